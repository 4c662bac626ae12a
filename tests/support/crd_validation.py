"""Validate custom resources the way the API server would, from the upstream CRDs alone (no cluster).

The API server checks a custom resource in three steps; this module does the same, offline:

1. **defaulting** — every ``default`` of the CRD's ``openAPIV3Schema`` is filled in first (CEL rules and
   ``required`` see the defaulted object, e.g. NodePool's ``disruption.budgets`` default ``[{nodes: 10%}]``);
2. **structural schema** — the schema converted to JSON Schema: ``x-kubernetes-int-or-string`` becomes
   integer-or-string, ``list-type: set`` unique items, ``list-type: map`` unique keys, ``int32``/``int64``
   ranges, and unknown fields are errors (what ``kubectl``/server-side apply report in strict mode; the
   API server itself would silently prune them, which hides typos);
3. **CEL** — every ``x-kubernetes-validations`` rule, with ``self`` bound to the value it sits on, evaluated
   with common-expression-language. Transition rules (those reading ``oldSelf``) only run on updates and
   are skipped: these are creates. The two Kubernetes CEL library functions the saved CRDs use, regex
   ``find`` and the strings extension ``split``, are supplied here.

Not modelled: CEL cost limits, ``messageExpression`` (the saved CRDs have none) and admission webhooks
(KEDA's webhook checks more than its schema). Built-in kinds go through :func:`validate_kubernetes` instead.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import cel
import jsonschema
import kubernetes_validate
import kubernetes_validate.utils
from prescale.model.config import ClusterConfig

from . import TESTS, load_yaml

CRD_DIR = TESTS / "crds"
CRD_FILES = {
    ("karpenter.sh/v1", "NodePool"): CRD_DIR / "karpenter" / "karpenter.sh_nodepools.yaml",
    ("karpenter.k8s.aws/v1", "EC2NodeClass"): CRD_DIR / "karpenter" / "karpenter.k8s.aws_ec2nodeclasses.yaml",
    # No AWS-published CRD: a recorded schema, each constraint's source in tests/crds/eks/SOURCE.md.
    ("eks.amazonaws.com/v1", "NodeClass"): CRD_DIR / "eks" / "eks.amazonaws.com_nodeclasses.yaml",
    ("keda.sh/v1alpha1", "ScaledObject"): CRD_DIR / "keda" / "keda.sh_scaledobjects.yaml",
    # Karpenter creates NodeClaims; prescale only reads them (`prescale status`), so the chart's copy serves.
    ("karpenter.sh/v1", "NodeClaim"): CRD_DIR.parent / "charts" / "karpenter" / "crds" / "karpenter.sh_nodeclaims.yaml",
    # The chart's own (served: v1beta1 only; the karpenter-crd chart prescale installs holds the same schema).
    ("autoscaling.x-k8s.io/v1beta1", "CapacityBuffer"):
        CRD_DIR.parent / "charts" / "karpenter" / "crds" / "autoscaling.x-k8s.io_capacitybuffers.yaml",
    ("monitoring.coreos.com/v1", "PrometheusRule"):
        CRD_DIR / "prometheus-operator" / "monitoring.coreos.com_prometheusrules.yaml",
}

_INT_RANGES = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
KUBERNETES_VERSION = ClusterConfig(name="default").kubernetes_version

# kubernetes-validate reads and parses the kind's schema and 1.5 MB of shared definitions on every call (about
# 7 ms); the files never change and jsonschema never modifies a schema, so each file is parsed once.
kubernetes_validate.utils.schema_contents = cache(kubernetes_validate.utils.schema_contents)


def validate(obj: Mapping[str, Any]) -> list[str]:
    """Every problem the API server would report for creating ``obj``, as ``path: message``; [] if valid."""
    schema = schema_of(obj["apiVersion"], obj["kind"])
    defaulted = apply_defaults(schema, copy.deepcopy(dict(obj)))
    problems = [f"{_path(error.absolute_path)}: {error.message}"
                for error in _validator(obj["apiVersion"], obj["kind"]).iter_errors(defaulted)]
    return problems + list(_cel_problems(schema, defaulted, ""))


def validate_kubernetes(obj: dict[str, Any]) -> None:
    """Raise ``kubernetes_validate.ValidationError`` unless the built-in object ``obj`` passes the schema of
    the default cluster version, strictly (unknown fields are errors)."""
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def apply_defaults(schema: Mapping[str, Any], value: Any) -> Any:
    """Fill in the schema's defaults the way the API server does: absent fields only, then recurse."""
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])
            if key in value:
                value[key] = apply_defaults(sub, value[key])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in set(value) - set(schema.get("properties") or {}):
                value[key] = apply_defaults(extra, value[key])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [apply_defaults(schema["items"], item) for item in value]
    return value


# --- schema → JSON Schema ---------------------------------------------------------------------------

@cache
def schema_of(api_version: str, kind: str) -> dict[str, Any]:
    """The served version's ``openAPIV3Schema`` from the saved CRD (memoised, like the compiled validators and CEL
    programs below: pure lookups by their arguments, not test state; read-only)."""
    path = CRD_FILES[(api_version, kind)]
    crd = load_yaml(path.read_text())
    version = api_version.split("/")[1]
    served = next(v for v in crd["spec"]["versions"] if v["name"] == version)
    return served["schema"]["openAPIV3Schema"]


@cache
def _validator(api_version: str, kind: str) -> jsonschema.protocols.Validator:
    checker = jsonschema.FormatChecker()
    for name, (low, high) in _INT_RANGES.items():
        checker.checks(name)(lambda value, low=low, high=high: not isinstance(value, int) or low <= value <= high)
    validator_class = jsonschema.validators.extend(jsonschema.Draft202012Validator,
                                                   {"x-list-map-keys": _unique_map_keys})
    return validator_class(to_json_schema(schema_of(api_version, kind)), format_checker=checker)


def to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A CRD structural schema as strict JSON Schema (see the module docstring for the mapping)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key == "items" or (key == "additionalProperties" and isinstance(value, dict)):
            out[key] = to_json_schema(value)
        elif key in ("anyOf", "oneOf", "allOf"):
            out[key] = [to_json_schema(sub) for sub in value]
        elif not key.startswith("x-kubernetes-") and key not in ("description", "default", "example", "nullable"):
            out[key] = value
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if schema.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    if schema.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    if schema.get("x-kubernetes-list-type") == "map":
        out["x-list-map-keys"] = schema.get("x-kubernetes-list-map-keys", [])
    if (schema.get("type") == "object" and "properties" in schema and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def _unique_map_keys(validator, keys, instance, schema) -> Iterator[jsonschema.ValidationError]:
    if not isinstance(instance, list):
        return
    seen = set()
    for item in instance:
        key = tuple(item.get(k) for k in keys)
        if key in seen:
            yield jsonschema.ValidationError(f"duplicate entries for key {dict(zip(keys, key))}")
        seen.add(key)


# --- CEL ---------------------------------------------------------------------------------------------

def _find(text: str, pattern: str) -> str:
    """Kubernetes' regex library ``find``: the first match, or "" (Python ``re`` suffices for these patterns)."""
    match = re.search(pattern, text)
    return match.group(0) if match else ""


_FUNCTIONS = {"find": _find, "split": lambda text, separator: text.split(separator)}


@cache
def _program(rule: str) -> cel.Program:
    return cel.compile(rule)


def _cel_problems(schema: Mapping[str, Any], value: Any, path: str) -> Iterator[str]:
    for rule in schema.get("x-kubernetes-validations", []):
        if "oldSelf" in rule["rule"]:
            continue
        try:
            passed = _program(rule["rule"]).execute(cel.Context(variables={"self": value}, functions=_FUNCTIONS))
        except RuntimeError as error:
            yield f"{path or '<root>'}: rule {rule['rule']!r} could not be evaluated: {error}"
            continue
        if passed is not True:
            yield f"{path or '<root>'}: {rule.get('message') or 'failed rule: ' + rule['rule']}"
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, sub_value in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from _cel_problems(sub, sub_value, f"{path}.{key}" if path else key)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            yield from _cel_problems(schema["items"], item, f"{path}[{index}]")


def _path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<root>"
