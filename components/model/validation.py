"""The one door from raw stack config to a :class:`~prescale.model.config.StackConfig`: all or nothing.

:func:`load_stack_config` either returns a fully valid, immutable config or raises one :class:`ConfigError`
listing *every* problem, each with its key path (``prescale:eventWindows[0].timezone``), the offending value
and what is allowed. Nothing is skipped: a half-valid config would make Pulumi delete the resources of the
part it dropped. Per-value rules live on the models (:mod:`.config`), rules across keys and through time in
:mod:`.checks`; this module runs both and words their findings.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache, lru_cache
from typing import Annotated, Any, TypeVar, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError, create_model
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails

from .calendar import CALENDAR_KEY, EVENT_TIMES, WINDOWS_KEY, with_event_times
from .checks.refused import Partial, Refused
from .checks.stack import capacity_config_problems, stack_problems
from .config import CONFIG_NAMESPACE, SALVAGE_CONTEXT, STRATEGIES_CONTEXT, CapacityConfig, PoolName, StackConfig
from .strategies import STRATEGIES


class ConfigError(ValueError):
    """Every problem of a stack config at once, each as ``key path: message``."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(
            f"invalid stack config ({len(problems)} problem{'s' * (len(problems) != 1)}); "
            "nothing was registered:\n" + "\n".join(f"  - {p}" for p in problems))



# Full config key → StackConfig field. `aws:region` is the AWS provider's own key; the program needs the
# region too (the controller policy is scoped to it), so it is read from there rather than duplicated.
KEYS = {"aws:region": "region", **{f"{CONFIG_NAMESPACE}:{to_camel(f)}": f for f in StackConfig.model_fields
                                   if f != "region"}}
_REQUIRED = ("aws:region", f"{CONFIG_NAMESPACE}:cluster")
_READ_NAMESPACES = (CONFIG_NAMESPACE, "aws")
# The AWS provider's config keys (pulumi-aws 7.51, sdk/python/pulumi_aws/config/vars.py): its default provider
# refuses a stack with any other aws: key (pulumi/pulumi-aws#3360, #5116), so a typo is named here, before a run.
AWS_PROVIDER_KEYS = frozenset({
    "accessKey", "allowedAccountIds", "assumeRoleWithWebIdentity", "assumeRoles", "customCaBundle", "defaultTags",
    "ec2MetadataServiceEndpoint", "ec2MetadataServiceEndpointMode", "endpoints", "forbiddenAccountIds", "httpProxy",
    "httpsProxy", "ignoreTags", "insecure", "maxRetries", "noProxy", "profile", "region", "retryMode",
    "s3UsEast1RegionalEndpoint", "s3UsePathStyle", "secretKey", "sharedConfigFiles", "sharedCredentialsFiles",
    "skipCredentialsValidation", "skipMetadataApiCheck", "skipRegionValidation", "skipRequestingAccountId",
    "stsRegion", "tagPolicyCompliance", "token", "tokenBucketRateLimiterCapacity", "useDualstackEndpoint",
    "useFipsEndpoint", "userAgents"})
# The same for a program that uses prescale as a library and brings its own platform.
CAPACITY_KEYS = {f"{CONFIG_NAMESPACE}:{to_camel(f)}": f for f in CapacityConfig.model_fields}

_Config = TypeVar("_Config", bound=CapacityConfig)


def reads(key: str) -> bool:
    """Whether the program reads the value of config ``key``: ``prescale:*`` (all of it, so typos are caught) and
    ``aws:region``; other keys (``pulumi:*``, ``aws:profile``...) are left to their owners."""
    return key.startswith(f"{CONFIG_NAMESPACE}:") or key in _REQUIRED


def decode_config(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The keys this model reads (see :func:`reads`) from config as the Pulumi engine hands it over, and the names
    of the AWS provider's (only to name one it would refuse): structured values arrive as JSON text, plain strings
    stay strings."""
    return {key: _decode(value) if reads(key) else None for key, value in wire.items()
            if key.split(":", 1)[0] in _READ_NAMESPACES}


def _decode(value: Any) -> Any:
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def load_stack_config(raw: Mapping[str, Any], now: datetime, unreadable: Collection[str] = ()) -> StackConfig:
    """Validate raw stack config (full keys such as ``prescale:cluster`` → decoded values) as a whole.

    ``now`` anchors the time-dependent checks (a year of window occurrences). Raises :class:`ConfigError`
    with every problem; keys outside the ``prescale`` namespace (``pulumi:*``, ``aws:profile``...) are
    left to their owners, but for an ``aws:`` key the AWS provider does not have. ``unreadable``: keys the stack
    file holds but could not hand over (their problem is reported already), refused rather than missing.
    """
    return _load(StackConfig, KEYS, _REQUIRED, raw, lambda config, refused: stack_problems(config, now, refused),
                 unreadable)


def load_capacity_config(raw: Mapping[str, Any], now: datetime, unreadable: Collection[str] = ()) -> CapacityConfig:
    """Validate the ``prescale:`` keys of a program that uses prescale as a library (node pools, event windows,
    placeholders, KEDA version, tags; no cluster or Karpenter keys), all or nothing, exactly as
    :func:`load_stack_config` validates them in prescale's own program."""
    return _load(CapacityConfig, CAPACITY_KEYS, (), raw,
                 lambda config, refused: capacity_config_problems(config, now, refused), unreadable)


def _load(model: type[_Config], keys: Mapping[str, str], required: tuple[str, ...], raw: Mapping[str, Any],
          cross_key_problems: Callable[[_Config, Refused], list[str]], unreadable: Collection[str] = ()) -> _Config:
    """Each section on its own (so every bad value is reported), then the rules across sections on every part
    that validated: a refused section or list entry only skips the rules that need it (:class:`Refused`)."""
    raw, event_problems, event_windows = with_event_times(raw, CALENDAR_KEY in unreadable)
    problems, meant = _unknown_keys(raw, keys)
    problems += event_problems
    meant |= set(unreadable) & set(keys)
    problems += [f"{key}: required key is missing; see docs/config.md" for key in required
                 if key not in raw and key not in meant]
    values: dict[str, Any] = {}
    sections = {keys[key] for key in (*required, *meant) if key not in raw}  # the fields refused, or missing
    left_out: dict[str, set[int]] = {"node_pools": set(), "event_windows": set()}  # the list entries refused
    partial: dict[tuple[str, int | None], Partial] = {}
    for key, field in keys.items():
        if key in raw:
            section = _validate_section(model, key, field, raw[key])
            problems += section.problems
            if section.value is None and section.problems:
                sections.add(field)
            else:
                values[field] = section.value
            if section.left_out:
                left_out[field] = section.left_out
            partial |= {(field, index): salvaged for index, salvaged in section.partial.items()}
    # Built from the parts that validated, their own rules passed; missing fields keep their defaults. A key the
    # stack file could not hand over (its problem reported by the caller) is missing too: never validate without it.
    incomplete = bool(problems or sections)
    config = model.model_construct(**values) if incomplete else model.model_validate(values, context=_registered())
    refused = Refused(frozenset(sections), frozenset(left_out["node_pools"]), frozenset(left_out["event_windows"]),
                      frozenset(_pool_name(raw[f"{CONFIG_NAMESPACE}:nodePools"][index])
                                for index in left_out["node_pools"]), partial)
    problems += cross_key_problems(config, refused)
    # A window whose event could not give it times is refused for that alone, not for the times it lacks.
    lacking = tuple(f"{WINDOWS_KEY}[{index}].{key}: required key is missing" for index in event_windows
                    for key in EVENT_TIMES)
    problems = [problem for problem in problems if not problem.startswith(lacking)]
    if problems or incomplete:  # `unreadable` alone: no problem here, the caller reports those keys
        raise ConfigError(problems)
    return config


def _pool_name(entry: Any) -> str | None:
    """The name written in a refused ``nodePools`` entry, or None if that is not a valid name either."""
    name = entry.get("name") if isinstance(entry, dict) else None
    try:
        valid: str = _adapter(PoolName).validate_python(name)
    except ValidationError:
        return None
    return valid


def _unknown_keys(raw: Mapping[str, Any], keys: Mapping[str, str]) -> tuple[list[str], set[str]]:
    """Every key of the namespaces read here that is not one of ``keys`` (the AWS provider's own keys aside), and
    the keys those were most likely meant to be (refused with them, never reported missing)."""
    known = sorted(k for k in keys if k.startswith(f"{CONFIG_NAMESPACE}:"))
    problems, meant = [], set()
    for key in sorted(k for k in raw if k not in keys and k.split(":", 1)[0] in _READ_NAMESPACES):
        head = key.split(".", 1)[0]
        if key.startswith(f"{CONFIG_NAMESPACE}:") and head in keys:
            rest = key.split(".", 1)[1]
            problems.append(f"{key}: unknown config key: a config key names a whole section, and a dotted name is "
                            f"not a path into it; to set {rest} inside {head}, nest it: `{head}:` with `{rest}: ...` "
                            "indented below")
            meant.add(head)
        elif key.startswith(f"{CONFIG_NAMESPACE}:"):
            elsewhere = _elsewhere(key.removeprefix(f"{CONFIG_NAMESPACE}:"))
            problems.append(f"{key}: unknown config key; {elsewhere or _suggest(key, known)}known keys: "
                            f"{', '.join(known)}")
            meant.update(() if elsewhere else difflib.get_close_matches(key, known, n=1))
        elif key.startswith("aws:") and "aws:region" in keys and key.removeprefix("aws:") not in AWS_PROVIDER_KEYS:
            aws_keys = sorted(f"aws:{name}" for name in AWS_PROVIDER_KEYS)
            problems.append(f"{key}: not a config key of the AWS provider, which refuses the stack with it (`{key}` is "
                            f"not a valid configuration key for the aws provider); {_suggest(key, aws_keys)}its keys: "
                            f"{', '.join(aws_keys)}")
            meant.update(difflib.get_close_matches(key, ["aws:region"], n=1))
    return problems, meant & set(keys)


def _elsewhere(name: str) -> str:
    """Where key ``name`` belongs, if it is a key of one or two other maps of the config (``strategy`` on a window
    is one of ``prescale:nodePools[]``), as the start of a hint; empty otherwise."""
    owners = _key_owners().get(name, ())
    return f"{name} is a key of {' and of '.join(owners)}; " if 0 < len(owners) <= 2 else ""


@cache
def _key_owners() -> dict[str, tuple[str, ...]]:
    """Every key of the stack config below its top-level keys, to the maps that take it (``prescale:nodePools[]``)."""
    owners: dict[str, list[str]] = {}

    def walk(annotation: Any, path: str) -> None:
        model = _model_in(annotation)
        if model is None:
            return
        path += "[]" * _listed(annotation)
        for name, info in model.model_fields.items():
            owners.setdefault(info.alias or name, []).append(path)
            walk(info.annotation, f"{path}.{info.alias or name}")

    for key, field in KEYS.items():
        walk(StackConfig.model_fields[field].annotation, key)
    return {key: tuple(paths) for key, paths in owners.items()}


def _listed(annotation: Any) -> bool:
    """Whether ``annotation`` is a list (or tuple) of entries, optional or not."""
    return get_origin(annotation) in (list, tuple) or any(_listed(inner) for inner in get_args(annotation))


def _suggest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


@dataclass
class _Section:
    """One top-level key, validated."""

    value: Any  # None if refused
    problems: list[str]
    left_out: set[int] = dataclasses.field(default_factory=set)  # the indices of a list's entries that were refused
    # What refused ones still are (None: the key's own value).
    partial: dict[int | None, Partial] = dataclasses.field(default_factory=dict)


def _validate_section(model: type[BaseModel], key: str, field: str, value: Any) -> _Section:
    """Validate one top-level key; a list entry by entry, so one bad window does not hide the others."""
    info = model.model_fields[field]
    annotation: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    if getattr(annotation, "__origin__", None) is list and isinstance(value, list):
        item_type, section = get_args(annotation)[0], _Section([], [])
        for index, item in enumerate(value):
            try:
                section.value.append(_adapter(item_type).validate_python(item, context=_registered()))
            except ValidationError as error:
                salvaged, more = _salvage(item_type, item, error, f"{key}[{index}]")
                section.problems += _describe(error, f"{key}[{index}]", item_type) + more
                section.left_out.add(index)
                if salvaged is not None:
                    section.partial[index] = salvaged
        return section
    try:
        return _Section(_adapter(annotation).validate_python(value, context=_registered()), [])
    except ValidationError as error:
        salvaged, more = _salvage(annotation, value, error, key)
        return _Section(None, _describe(error, key, annotation) + more,
                        partial={} if salvaged is None else {None: salvaged})


def _salvage(annotation: Any, value: Any, error: ValidationError, prefix: str) -> tuple[Partial | None, list[str]]:
    """``value`` (a map that failed validation as ``annotation``) validated again without the keys ``error`` is
    about: what rules that read none of them can still check (:class:`~prescale.model.checks.refused.Partial`), and
    the problems of its other keys that the first pass could not see (its rules across keys run only on valid
    values). None when an error is about the map as a whole, or when the rest is refused too. An unknown key stands
    for the field it most likely misspells, unless it is a key of another map (misplaced, not misspelled)."""
    model = _model_in(annotation)
    if model is None or not isinstance(value, dict):
        return None, []
    fields = {info.alias or name: name for name, info in model.model_fields.items()}
    bad = set()
    for item in error.errors(include_url=False):
        if not item["loc"] or not isinstance(item["loc"][0], str):
            return None, []
        bad.add(item["loc"][0])
    refused = frozenset(fields[key] for key in bad if key in fields) | frozenset(
        fields[close] for key in bad - fields.keys() - _key_owners().keys()  # a key of another map is misplaced
        for close in difflib.get_close_matches(key, list(fields), n=1))
    kept = {key: item for key, item in value.items() if key not in bad and fields.get(key) not in refused}
    target = _without(model, refused) if annotation is model else annotation
    try:
        salvaged = _adapter(target).validate_python(kept, context={**_registered(), SALVAGE_CONTEXT: refused})
        return Partial(salvaged, refused), []
    except ValidationError as again:
        left_out = {alias for alias, name in fields.items() if name in refused}  # reported "missing" once left out
        described = zip(again.errors(include_url=False), _describe(again, prefix, annotation), strict=True)
        return None, [problem for item, problem in described if not (item["loc"] and item["loc"][0] in left_out)]


@lru_cache(maxsize=256)  # keyed by a config model and the set of its fields refused: a few per model
def _without(model: type[BaseModel], refused: frozenset[str]) -> type[BaseModel]:
    """``model`` with those of its ``refused`` fields that are required left None (they are left out of what is
    validated again): what an entry whose required value was refused (a window's misspelled ``timezone``) still is,
    for the rules that read none of them."""
    required: dict[str, Any] = {name: (None, None) for name, info in model.model_fields.items()
                                if name in refused and info.is_required()}
    return create_model(model.__name__, __base__=model, **required) if required else model


def _registered() -> dict[str, Any]:
    """What config's validators read beside the values: the strategies a pool may name (config cannot import
    them)."""
    return {STRATEGIES_CONTEXT: STRATEGIES}


@lru_cache(maxsize=256)  # keyed by a config model's field types: a fixed few dozen
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _describe(error: ValidationError, prefix: str, root: Any) -> list[str]:
    problems = []
    for item in error.errors(include_url=False):
        loc = list(item["loc"])
        path = prefix + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
        problems.append(f"{path}: {_explain(item, root, loc)}")
    return problems


def _explain(item: ErrorDetails, root: Any, loc: list[int | str]) -> str:
    kind, value = item["type"], item.get("input")
    if kind == "extra_forbidden":
        allowed = sorted(_keys(_model_at(root, loc[:-1])))
        hint = _elsewhere(str(loc[-1])) or _suggest(str(loc[-1]), allowed)
        return f"unknown key (value {value!r}); {hint}allowed keys: {', '.join(allowed)}"
    if kind == "missing":
        return "required key is missing"
    message = item["msg"].removeprefix("Value error, ")
    if kind == "model":  # a rule over several keys of one entry: the message names them itself
        return message
    if kind in _VALUE_FIRST:
        return f"{_shown(value)} {message}"
    return f"{_what_to_write(kind, value, item.get('ctx', {}), root, loc) or message} (got {_shown(value)})"


_VALUE_FIRST = {"dns_label", "semver", "quantity", "duration", "cidr", "timezone", "datetime", "cron", "lead",
                "unique", "version", "format"}
_YAML_1_1_BOOLEANS = {"yes", "no", "on", "off", "y", "n"}  # booleans in YAML 1.1, text in Pulumi's YAML 1.2
_BOUNDS = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
           "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
_LENGTHS = {"string_too_short": ("at least", "min_length", "character"),
            "too_short": ("at least", "min_length", "item"),
            "string_too_long": ("at most", "max_length", "character"),
            "too_long": ("at most", "max_length", "item")}


def _what_to_write(kind: str, value: Any, context: dict[str, Any], root: Any, loc: list[int | str]) -> str | None:
    """What the user should write, in the stack file's terms, for pydantic's error ``kind`` (None: its words
    already say it). Pydantic phrases errors for programmers ("Input should be a valid integer")."""
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return _whole_number(value)
    if kind in ("float_type", "float_parsing"):
        return "must be a number like 0.05, without quotes"
    if kind in ("bool_type", "bool_parsing"):
        yaml_1_1 = str(value).lower() in _YAML_1_1_BOOLEANS
        return "must be true or false, without quotes" + (
            "; Pulumi's YAML 1.2 reads yes, no, on and off as text" if yaml_1_1 else "")
    if kind == "string_type":
        return _text(value)
    if kind == "list_type":
        if isinstance(value, dict):
            return "must be a list: start each entry with '- ' on its own line, or write [entry, ...]"
        return f"must be a list, like {_as_list(value, root, loc)}" if isinstance(value, str) else \
            "must be a list, like [a, b]"
    if kind in ("model_type", "dict_type"):
        model = _model_at(root, loc)
        keys = f" ({', '.join(_keys(model))})" if model else ""
        return f"must be a map of keys{keys}" + ("; this entry is empty" if value is None else "")
    if kind == "literal_error":
        allowed = re.findall(r"'([^']*)'", context.get("expected", ""))
        closest = _suggest(str(value), allowed).strip()
        return f"must be one of {', '.join(allowed)}" + (f"; {closest}" if closest else "")
    if kind in _BOUNDS:
        words, key = _BOUNDS[kind]
        return f"must be {words} {context[key]:g}"
    if kind in _LENGTHS:
        words, key, unit = _LENGTHS[kind]
        count = context[key]
        return "must not be empty" if (kind, count) == ("string_too_short", 1) else \
            f"must have {words} {count} {unit}{'s' * (count != 1)}"
    return None


def _as_list(text: str, root: Any, loc: list[int | str]) -> str:
    """``text`` written as the list at ``loc`` takes: the first of ``[text]``, its comma-separated items, or those
    items without ``=true`` (``"StaticCapacity=true"``, a FEATURE_GATES setting) that the key accepts; ``[text]`` if
    none does (its items are refused on their own then)."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    candidates = [[text], items, [item.removesuffix("=true") for item in items if not item.endswith("=false")]]
    annotation = _field_annotation(root, loc)
    for candidate in candidates if annotation is not None else ():
        try:
            _adapter(annotation).validate_python(candidate, context=_registered())
        except ValidationError:
            continue
        return f"[{', '.join(candidate)}]"
    return f"[{text}]"


def _field_annotation(root: Any, loc: Sequence[int | str]) -> Any:
    """The type of the key at ``loc`` below ``root`` (with its constraints), or None where no model says it."""
    model = _model_at(root, loc[:-1])
    field = None if model is None or not loc else next(
        (info for info in model.model_fields.values() if info.alias == loc[-1]), None)
    if field is None:
        return None
    return Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation


def _whole_number(value: Any) -> str:
    if isinstance(value, bool):
        return "must be a whole number like 5, not true or false"
    if isinstance(value, list | dict):
        return "must be a single whole number like 5"
    if isinstance(value, float) and value.is_integer():
        return f"must be a whole number written without a decimal point or exponent, like {int(value)}"
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return f"must be a number like {value.strip()}, without quotes"
    return "must be a whole number like 5, without quotes"


def _text(value: Any) -> str:
    if isinstance(value, bool | int):
        return f'must be text: write it in quotes, like "{_shown(value)}"'
    if isinstance(value, float):
        return "must be text in quotes: unquoted, YAML reads it as a number (and drops trailing zeros)"
    return "must be text"


def _shown(value: Any) -> str:
    """A value as the stack file would spell it where Python's spelling differs (true, false, null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else repr(value)


def _model_at(root: Any, loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model that owns the key at ``loc`` below ``root`` (to list the keys allowed there); None if none does."""
    model = _model_in(root)
    for part in loc:
        if isinstance(part, str) and model is not None:
            field = next(f for f in model.model_fields.values() if f.alias == part)
            model = _model_in(field.annotation)
    return model


def _keys(model: type[BaseModel] | None) -> list[str]:
    """The keys a model takes, as a stack file spells them (its aliases: ``minValues``, ``ownerID``)."""
    return [] if model is None else [field.alias or name for name, field in model.model_fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model class inside an annotation such as ``Model``, ``list[Model]`` or ``Model | None``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for inner in getattr(annotation, "__args__", ()):
        found = _model_in(inner)
        if found is not None:
            return found
    return None
