"""Regenerate :mod:`prescale.plugin_types` (the plugin component's input types) from the config models.

The Pulumi SDK's schema inference (``pulumi.provider.experimental``) reads a component's inputs from TypedDicts of
plain values, never from pydantic models, and takes each property's description from the string literal after it.
So the input types mirror :class:`prescale.model.config.CapacityConfig` field for field, each key spelled as the
stack file spells it and described as the config reference describes it; written from the models, they cannot drift
from them. After changing a capacity config model, ``python -m tools.regenerate --write`` rewrites the module.
"""

from __future__ import annotations

import textwrap
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from prescale.model.config import CapacityConfig
from pydantic import BaseModel

# Read only by `prescale schedule`'s cost estimate, from a stack file: no input of the component.
LEFT_OUT = frozenset({"pricing"})
ROOT = "CapacityConfigInputs"
_SCALARS = {str: "str", int: "int", float: "float", bool: "bool"}
_WIDTH = 116


def type_name(model: type[BaseModel]) -> str:
    """The TypedDict standing for ``model``: its name without ``Config`` (``NodePoolConfig`` → ``NodePool``)."""
    return model.__name__.removesuffix("Config") or model.__name__


def spelled(annotation: Any, needed: dict[str, type[BaseModel]]) -> str:
    """``annotation`` as the plain type the schema inference takes; the models it names are added to ``needed``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return spelled(args[0], needed)
    if origin in (Union, types.UnionType):  # optional: the TypedDict's NotRequired says so
        given = [arg for arg in args if arg is not type(None)]
        # A map or its file's path (prescale:calendar): other languages' programs pass the map.
        models = [arg for arg in given if isinstance(arg, type) and issubclass(arg, BaseModel)]
        return spelled(models[0] if models else given[0], needed)
    if origin is Literal:  # the inference takes no Literal: the model refuses anything else, naming what is allowed
        return "str"
    if origin in (list, tuple):
        return f"list[{spelled(args[0], needed)}]"
    if origin is dict:
        return f"dict[str, {spelled(args[1], needed)}]"
    if annotation is Any:
        return "Any"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        needed.setdefault(type_name(annotation), annotation)
        return type_name(annotation)
    return _SCALARS[annotation]


def render_class(name: str, model: type[BaseModel], needed: dict[str, type[BaseModel]],
                 left_out: frozenset[str] = frozenset()) -> str:
    lines = [f"class {name}(TypedDict):", *_docstring(_first_sentence(model.__doc__ or name), "    ")]
    for field, info in model.model_fields.items():
        if field in left_out:
            continue
        value = spelled(info.annotation, needed)
        lines.append(f"    {info.alias or field}: {value if info.is_required() else f'NotRequired[{value}]'}")
        lines += _docstring(info.description or "", "    ")
    return "\n".join(lines)


def _first_sentence(doc: str) -> str:
    """A model's docstring up to its first blank line, on one line (its first paragraph)."""
    return " ".join(doc.strip().split("\n\n")[0].split())


def _docstring(text: str, indent: str) -> list[str]:
    """``text`` as the string literal after a declaration, wrapped into adjacent literals: Python joins them into one
    string, so the description the inference reads has no line breaks."""
    wrapped = textwrap.wrap(text, _WIDTH - len(indent) - 10, drop_whitespace=False)
    if not wrapped:
        return []
    if len(wrapped) == 1:
        return [f"{indent}{wrapped[0]!r}"]
    return [f"{indent}({wrapped[0]!r}", *(f"{indent} {line!r}" for line in wrapped[1:-1]), f"{indent} {wrapped[-1]!r})"]


def render_module() -> str:
    """The source of :mod:`prescale.plugin_types`: every model the root input reaches, each once and after the
    ones it names (the annotations are evaluated as each class is made), then the root."""
    rendered: dict[str, str] = {}

    def render(name: str, model: type[BaseModel], left_out: frozenset[str] = frozenset()) -> None:
        needed: dict[str, type[BaseModel]] = {}
        text = render_class(name, model, needed, left_out)
        for inner, inner_model in needed.items():
            if inner not in rendered:
                render(inner, inner_model)
        rendered[name] = text

    render(ROOT, CapacityConfig, LEFT_OUT)
    classes = list(rendered.values())
    header = textwrap.dedent('''\
        """The Capacity component's input types: :class:`prescale.model.config.CapacityConfig` as the Pulumi SDK's
        schema inference takes it (TypedDicts of plain values, each key as the stack file spells it, described as
        docs/config.md describes it). Written by :mod:`tools.plugin_types_gen`: do not edit, regenerate.
        Annotations stay evaluated (no ``from __future__ import annotations``): the inference reads them at run
        time.
        """

        from typing import Any, NotRequired, TypedDict
        ''')
    return header + "".join(f"\n\n{text}\n" for text in classes)

