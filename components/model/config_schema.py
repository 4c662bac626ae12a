"""The JSON Schema (draft 2020-12) of a whole ``Pulumi.<stack>.yaml``, built from the config models.

Editors validate and complete stack files with it (``prescale schema``), and the config reference docs/config.md is
generated from it, so both say what the models say: camelCase keys, types, defaults, allowed values, the patterns
the validators check and every field's description, and what the checks know of one key alone (the failsafe's least
grace, the charts' values keys: :func:`_checked_facts`). It refuses nothing the program accepts (but prices written
as text); what JSON Schema cannot say (rules across keys, crons, time zones, DST, the pools' limits, ``5.0`` for an
integer, which its data model counts as one) stays the validation's alone, run by ``prescale plan`` and ``prescale
schedule``, and the descriptions say what it checks.
Details: docs/config.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from .checks.chart_keys import KARPENTER_KEYS, KEDA_KEYS, KeyTree
from .config import CONFIG_NAMESPACE, CapacityConfig, StackConfig
from .schedule.after_end import MIN_GRACE
from .strategies import STRATEGIES
from .validation import CAPACITY_KEYS, KEYS
from .values.duration import shorter_than

DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Pulumi's own stack-file keys beside `config:` (pulumi/pulumi sdk/go/common/workspace/project.go, ProjectStack).
_PULUMI_KEYS: dict[str, JsonSchemaValue] = {
    "secretsprovider": {"type": "string", "description": "The stack's secrets provider (Pulumi's own key)."},
    "encryptedkey": {"type": "string", "description": "The stack's encrypted data key (Pulumi's own key)."},
    "encryptionsalt": {"type": "string", "description": "The stack's passphrase salt (Pulumi's own key)."},
    "environment": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "object"}],
                    "description": "Pulumi ESC environments the stack imports, or one written inline (Pulumi's own "
                                   "key)."},
    "mainEnvironment": {"type": "string", "description": "The Pulumi ESC environment that holds the stack's config "
                                                         "(Pulumi's own key)."},
}
# `{secure: <ciphertext>}` is how the Pulumi CLI writes a secret; nothing of prescale's is secret, and the offline
# commands cannot decrypt it (prescale.stack_file), so a map of text must not be one.
_SECRET: JsonSchemaValue = {"type": "object", "required": ["secure"], "maxProperties": 1,
                            "properties": {"secure": {"type": "string"}}}


class _StackFileSchema(GenerateJsonSchema):
    """Pydantic's JSON Schema, for the person writing the stack file: no generated titles, no model docstrings
    (written for developers; each field's description is the user's), and no secret where a map of text goes."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        generated = super().model_schema(schema)
        generated.pop("title", None)
        generated.pop("description", None)
        return generated

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        generated = super().dict_schema(schema)
        values = generated.get("additionalProperties")
        if isinstance(values, dict) and values.get("type") == "string":
            generated["not"] = _SECRET
        return generated


def chart_values_schema(keys: KeyTree) -> JsonSchemaValue:
    """The Helm values a chart reads, key by key (checks.chart_keys, from the chart itself): a map there takes only
    the chart's keys; a path the templates read whole, a list or a scalar takes anything (what it replaces is the
    checks' to judge)."""
    return {"properties": {key: True if below is None else chart_values_schema(below) for key, below in keys.items()},
            "additionalProperties": False}


# The charts' values, each a definition of its own (a tree of hundreds of keys, kept out of the config reference).
_CHART_VALUES = {"KarpenterConfig": ("KarpenterChartValues", KARPENTER_KEYS),
                 "KedaConfig": ("KedaChartValues", KEDA_KEYS)}


def _checked_facts() -> dict[str, dict[str, JsonSchemaValue]]:
    """What the checks know of one key alone beyond its model's type (model → property → JSON Schema to add): the
    failsafe's least grace (its most, and whole minutes, stay the check's), the strategies a pool may name (the
    registry's, which config cannot see), the keys of the charts prescale installs."""
    return {"PlaceholderConfig": {"failsafeGrace": {"not": {"pattern": shorter_than(MIN_GRACE)}}},
            "NodePoolConfig": {"strategy": {"enum": list(STRATEGIES)}},
            **{model: {"values": {"allOf": [{"$ref": f"#/$defs/{name}"}]}}
               for model, (name, _) in _CHART_VALUES.items()}}


def stack_file_schema(library: bool = False) -> JsonSchemaValue:
    """The schema of a stack file of prescale's own program, or with ``library`` of a program that uses prescale as
    a library: its ``prescale:`` keys are the capacity's alone (no cluster or Karpenter), none is required, and keys
    without a namespace are that program's own (docs/library.md)."""
    model: type[BaseModel] = CapacityConfig if library else StackConfig
    keys = CAPACITY_KEYS if library else KEYS
    generated = model.model_json_schema(by_alias=True, schema_generator=_StackFileSchema)
    definitions = generated.get("$defs", {})
    for name, facts in _checked_facts().items():
        for field, schema in facts.items():
            if name in definitions:
                definitions[name]["properties"][field].update(schema)
    definitions.update({name: chart_values_schema(keys) for model, (name, keys) in _CHART_VALUES.items()
                        if model in definitions})
    config: JsonSchemaValue = {
        "type": "object",
        "description": "The stack's config: aws:region and the prescale: keys (docs/config.md); keys of other "
                       "namespaces (aws:profile, pulumi:tags...) are their owners'.",
        "properties": {},
        "patternProperties": {},
        "additionalProperties": False,
    }
    for key, field in keys.items():
        canonical, *others = _spellings(key, library)
        config["properties"][key] = generated["properties"][model.model_fields[field].alias or field]
        config["patternProperties"][f"^(?:{'|'.join(others)})$"] = {"$ref": f"#/properties/config/properties/{key}"}
    config["patternProperties"][f"^(?!{CONFIG_NAMESPACE}:)[^:]+:(?:config:)?[^:]+$"] = True
    if library:
        config["patternProperties"]["^[^:]+$"] = True  # the library program's own keys
    required = [key for key, field in keys.items() if model.model_fields[field].is_required()]
    if required:
        config["allOf"] = [{"anyOf": [{"required": [spelling]} for spelling in _spellings(key, library)]}
                           for key in required]
    who = "a program that uses prescale as a library" if library else "prescale's program"
    return {
        "$schema": DIALECT,
        "title": f"Pulumi.<stack>.yaml of {who}",
        "description": "A Pulumi stack file (docs/config.md). The schema flags keys beside Pulumi's own at the top "
                       "level, which the Pulumi CLI would ignore, and says what it can of each value; prescale plan "
                       "and prescale schedule check the rest.",
        "type": "object",
        "properties": {"config": config, **_PULUMI_KEYS},
        **({} if library else {"required": ["config"]}),
        "additionalProperties": False,
        "$defs": definitions,
    }


def _spellings(key: str, library: bool) -> list[str]:
    """``key`` and the other spellings the Pulumi CLI reads as it (prescale.stack_file): ``<namespace>:config:<name>``,
    and in prescale's own project (named ``prescale``) the name alone."""
    namespace, name = key.split(":")
    bare = [name] if namespace == CONFIG_NAMESPACE and not library else []
    return [key, f"{namespace}:config:{name}", *bare]
