"""Rules on ``prescale:karpenter.values`` and ``prescale:keda.values``: Helm values a user merges over prescale's.

A user's values may set anything the chart knows except the paths prescale owns: those it sets because the stack's
wiring depends on them (the cluster, queue and identity Karpenter runs with; replicas, budgets and spread; where
controllers run). They are refused by key path before anything is registered, and so is what would silently do
nothing: a key the chart does not know (Helm ignores it, as neither chart has a values schema) and a null (Pulumi
drops it on the way to Helm). The long why, and which of prescale's own values a user may change:
docs/platform.md#helm-values.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config import CONFIG_NAMESPACE, KedaConfig, StackConfig
from ..values.quantity import parse_quantity
from .chart_keys import KARPENTER_CHART_VERSION, KARPENTER_KEYS, KEDA_CHART_VERSION, KEDA_KEYS, KeyTree

Path = tuple[str, ...]

# What prescale renders at the paths it owns (components/platform/karpenter.py and keda.py render from these): a
# user's value equal to it is accepted, as when values are pasted from an install that already runs as prescale needs.
KARPENTER_CONTROLLER_REPLICAS = 2
KARPENTER_CONTROLLER_RESOURCES = {"cpu": "1", "memory": "1Gi"}  # requests and limits alike (Karpenter's advice)
KARPENTER_DNS_POLICY = "Default"
KEDA_REPLICAS = 2
KEDA_PRIORITY_CLASS = "system-cluster-critical"
KEDA_WATCH_NAMESPACE = ""  # every namespace, the chart's default


@dataclass(frozen=True)
class ChartValues:
    """What prescale knows of the values of one chart it installs."""

    chart: str
    version: str  # of the chart whose keys are known (tests/charts/)
    keys: KeyTree
    # Dotted path → why a user's value there is refused: a value at the path, below it, or a non-map above it.
    owned: Mapping[str, str]
    # Paths prescale renders that a user may change all the same (sizing, not wiring).
    overridable: tuple[str, ...]
    # The list of extra environment variables the chart appends after its own (a path of its values), and the names
    # the chart already sets there from a value → that value's path: a second entry of one name takes its place,
    # as the kubelet keeps the last of two (kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
    env: tuple[Path, Mapping[str, str]] = ((), {})

    def problems(self, key: str, values: Mapping[str, Any], rendered: Mapping[str, Any]) -> list[str]:
        """Every owned path ``values`` would set or replace with something else than prescale renders there
        (``rendered``: dotted path → value), every variable that would override one the chart sets, every key the
        chart would ignore, and every null that would not reach Helm."""
        touched: dict[Path, list[str]] = {}  # the user's path → the owned paths its value sets or replaces
        for owned in self.owned:
            at = _touch(values, tuple(owned.split(".")))
            if at is not None and not (owned in rendered and at == tuple(owned.split("."))
                                       and _value_at(values, at) == rendered[owned]):
                touched.setdefault(at, []).append(owned)
        unknown = unknown_paths(values, self.keys)
        reported = [*touched, *unknown]
        nulls = [path for path in _null_paths(values) if not any(path[:len(other)] == other for other in reported)]
        return ([self._owned_problem(key, values, at, owned) for at, owned in touched.items()]
                + self._env_problems(key, values)
                + [self._unknown_problem(key, values, path) for path in unknown]
                + [_null_problem(key, path) for path in nulls])

    def _env_problems(self, key: str, values: Mapping[str, Any]) -> list[str]:
        path, set_from = self.env
        entries = _value_at(values, path) if path and _touch(values, path) == path else None
        if not isinstance(entries, list):
            return []
        return [f"{key}.{'.'.join(path)}[{index}]: {entry!r} overrides {entry['name']}, which the {self.chart} chart "
                f"sets from {set_from[entry['name']]} and then appends {'.'.join(path)} after, so the kubelet keeps "
                f"this one; allowed: {self._env_fix(set_from[entry['name']])}"
                for index, entry in enumerate(entries)
                if isinstance(entry, Mapping) and entry.get("name") in set_from]

    def _env_fix(self, setting: str) -> str:
        if any(setting == owned or setting.startswith(f"{owned}.") for owned in self.owned):
            return "remove it (prescale sets it: docs/platform.md#helm-values)"
        return f"remove it and set {setting} instead"

    def _owned_problem(self, key: str, values: Mapping[str, Any], at: Path, owned: list[str]) -> str:
        whys = "; ".join(f"{path}: {self.owned[path]}" if len(owned) > 1 else self.owned[path] for path in owned)
        given = f"{key}.{'.'.join(at)}: {_value_at(values, at)!r}"
        if owned == [".".join(at)]:
            return f"{given} is prescale's to set: {whys}; allowed: remove it (docs/platform.md#helm-values)"
        return (f"{given} would replace {' and '.join(owned)}, which prescale sets: {whys}; allowed: a map that "
                f"leaves {'them' if len(owned) > 1 else 'it'} out (docs/platform.md#helm-values)")

    def _unknown_problem(self, key: str, values: Mapping[str, Any], path: Path) -> str:
        known = _tree_at(self.keys, path[:-1])
        dotted = path[-1].split(".")
        if len(dotted) > 1 and dotted[0] in known:  # a dotted key: Helm reads values as nested maps only
            nested = "{" + ": {".join(dotted) + f": {_value_at(values, path)!r}" + "}" * len(dotted)
            return (f"{key}.{'.'.join(path)}: {_value_at(values, path)!r} is one key with dots in its name, which "
                    f"the {self.chart} chart does not read (Helm values are nested maps); allowed: nest it, "
                    f"{nested}")
        close = difflib.get_close_matches(path[-1], list(known), n=1)
        suggestion = f"did you mean {close[0]!r}? " if close else ""
        return (f"{key}.{'.'.join(path)}: {_value_at(values, path)!r} is not a key of the {self.chart} chart "
                f"{self.version}, so Helm would silently ignore it; {suggestion}the chart's keys there: "
                f"{', '.join(known)}")


def unknown_paths(values: Mapping[str, Any], keys: KeyTree) -> list[Path]:
    """Each key path of ``values`` that ``keys`` does not know, down to its first unknown key (lists are leaves)."""
    found: list[Path] = []
    for key, value in values.items():
        name = str(key)
        if name not in keys:
            found.append((name,))
        elif (below := keys[name]) is not None and isinstance(value, Mapping):
            found += [(name, *path) for path in unknown_paths(value, below)]
    return found


def _null_problem(key: str, path: Path) -> str:
    return (f"{key}.{'.'.join(path)}: null would not reach Helm: Pulumi drops the null map values of a Python "
            "program before they reach the provider (Pulumi's guide \"Deleting Helm Chart Default Values\"), so the "
            "chart's default would stay; allowed: remove it, or give a value")


def _null_paths(values: Mapping[str, Any]) -> list[Path]:
    found: list[Path] = []
    for key, value in values.items():
        if value is None:
            found.append((str(key),))
        elif isinstance(value, Mapping):
            found += [(str(key), *path) for path in _null_paths(value)]
    return found


def _touch(values: Mapping[str, Any], owned: Path) -> Path | None:
    """Where ``values`` sets or replaces ``owned``: at it (or below it), at a non-map above it, or nowhere."""
    node: Any = values
    for depth, key in enumerate(owned):
        if not isinstance(node, Mapping):
            return owned[:depth]  # a list, a scalar or null replaces the whole map, owned path included
        if key not in node:
            return None
        node = node[key]
    return owned


def _value_at(values: Mapping[str, Any], path: Path) -> Any:
    for key in path:
        values = values[key]
    return values


def _tree_at(keys: KeyTree, path: Path) -> KeyTree:
    for key in path:
        below = keys[key]
        assert below is not None  # unknown_paths descends only into maps the chart reads key by key
        keys = below
    return keys


_PLACEMENT = ("where prescale runs the cluster's controllers: on the system nodes (the node group's label and "
              "taint), never on a node Karpenter launched")
# Each KEDA component as the chart's values name it, for the keys it takes on its own.
_KEDA_COMPONENTS = ("operator", "metricsServer", "webhooks")

KARPENTER_VALUES = ChartValues(
    "karpenter", KARPENTER_CHART_VERSION, KARPENTER_KEYS,
    owned={
        "settings.clusterName": "it names this stack's cluster (prescale:cluster.name), to which the controller's "
                                "IAM policy and the discovery tags are scoped",
        "settings.interruptionQueue": "it names the SQS queue prescale creates for interruption events, the only "
                                      "queue the controller's IAM policy lets it read",
        "serviceAccount": "the controller's AWS identity trusts exactly the service account kube-system/karpenter "
                          "(its Pod Identity association, or the IRSA trust and the role annotation prescale sets)",
        "nameOverride": "the chart names the controller's objects after it, so Helm would replace the running "
                        "controller with a renamed one",
        "fullnameOverride": "the chart names the controller's objects after it, so Helm would replace the running "
                            "controller with a renamed one",
        "replicas": "two, one per host as the chart's anti-affinity requires, on the two or more system nodes "
                    "prescale asks for, so a node's loss leaves a controller running",
        "nodeSelector": _PLACEMENT,
        "tolerations": _PLACEMENT,
        "affinity": "the chart's default keeps the controller off the nodes it launches and its replicas on "
                    "different hosts, which prescale relies on",
        "dnsPolicy": "Default, so the controller resolves AWS endpoints even while CoreDNS has no node to run on "
                     "(Karpenter's own advice)",
    },
    overridable=("controller.resources", "serviceMonitor"),
    # tests/charts/karpenter/templates/deployment.yaml: the env the chart renders from settings, then controller.env
    env=(("controller", "env"), {
        "CLUSTER_NAME": "settings.clusterName", "INTERRUPTION_QUEUE": "settings.interruptionQueue",
        "FEATURE_GATES": "settings.featureGates",
        "BATCH_MAX_DURATION": "settings.batchMaxDuration", "BATCH_IDLE_DURATION": "settings.batchIdleDuration",
        "PREFERENCE_POLICY": "settings.preferencePolicy", "MIN_VALUES_POLICY": "settings.minValuesPolicy",
        "CLUSTER_CA_BUNDLE": "settings.clusterCABundle", "CLUSTER_ENDPOINT": "settings.clusterEndpoint",
        "ISOLATED_VPC": "settings.isolatedVPC", "EKS_CONTROL_PLANE": "settings.eksControlPlane",
        "VM_MEMORY_OVERHEAD_PERCENT": "settings.vmMemoryOverheadPercent",
        "ENABLE_ZONAL_SHIFT": "settings.enableZonalShift", "RESERVED_ENIS": "settings.reservedENIs",
        "LOG_LEVEL": "logLevel", "CPU_REQUESTS": "controller.resources", "MEMORY_LIMIT": "controller.resources"}))

KEDA_VALUES = ChartValues(
    "keda", KEDA_CHART_VERSION, KEDA_KEYS,
    owned={
        **{f"{component}.replicaCount": "two replicas of each KEDA component, so a node's drain never stops it"
           for component in _KEDA_COMPONENTS},
        "operator.name": "it names the operator's and the metrics server's pods (their app label), which prescale's "
                         "spread over nodes selects",
        "webhooks.name": "it names the webhooks' pods (their app label), which prescale's spread over nodes selects",
        "podDisruptionBudget": "one budget per component (minAvailable: 1), so a drain always leaves one replica",
        "topologySpreadConstraints": "each component's two replicas spread over two nodes",
        "priorityClassName": "system-cluster-critical, so a full node preempts other pods for KEDA rather than "
                             "leaving it Pending",
        "watchNamespace": "KEDA must watch namespace prescale, where the windows' ScaledObjects are, as it does by "
                          "default (every namespace)",
        **{key: _PLACEMENT for key in ("nodeSelector", "tolerations", "affinity")},
        **{f"{component}.{key}": f"{_PLACEMENT} (a component's own {key} would take the place of the shared one)"
           for component in _KEDA_COMPONENTS for key in ("nodeSelector", "tolerations", "affinity")},
    },
    overridable=("resources", "prometheus"),
    # tests/charts/keda/templates/manager/deployment.yaml: the operator's WATCH_NAMESPACE, then the shared env
    env=(("env",), {"WATCH_NAMESPACE": "watchNamespace"}))


def karpenter_values_problems(config: StackConfig) -> list[str]:
    """The values given for the Karpenter prescale installs (elsewhere the key is refused whole, by
    :mod:`.platform`)."""
    karpenter = config.karpenter
    if not karpenter.install or config.cluster.auto_mode:
        return []
    key = f"{CONFIG_NAMESPACE}:karpenter.values"
    rendered = {"settings.clusterName": config.cluster.name, "replicas": KARPENTER_CONTROLLER_REPLICAS,
                "dnsPolicy": KARPENTER_DNS_POLICY}
    return (KARPENTER_VALUES.problems(key, karpenter.values, rendered)
            + _reserved_gate_problems(key, config) + _controller_resource_problems(key, karpenter.values))


def _reserved_gate_problems(key: str, config: StackConfig) -> list[str]:
    """``settings.featureGates.reservedCapacity: false`` while pools launch reserved capacity: Karpenter then ignores
    their reservations (the gate is on by default in the 1.14 chart's values)."""
    gates = _value_at(config.karpenter.values, ("settings", "featureGates")) \
        if _touch(config.karpenter.values, ("settings", "featureGates")) == ("settings", "featureGates") else None
    if not isinstance(gates, Mapping) or gates.get("reservedCapacity") is not False:
        return []
    users = [pool.name for pool in config.node_pools if not pool.existing and "reserved" in pool.capacity_types]
    if not users:
        return []
    return [f"{key}.settings.featureGates.reservedCapacity: False turns off the ReservedCapacity gate that node pools "
            f"{', '.join(map(repr, users))} need for their capacityTypes reserved: Karpenter would ignore their "
            "capacity reservations; allowed: remove it (the chart turns it on)"]


def _controller_resource_problems(key: str, values: Mapping[str, Any]) -> list[str]:
    """Requests above the limits they end with (the user's, else prescale's): the API server refuses such a pod, so
    the Karpenter controller would never start."""
    controller = values.get("controller")
    resources = controller.get("resources") if isinstance(controller, Mapping) else None
    if not isinstance(resources, Mapping) or not isinstance(resources.get("requests"), Mapping):
        return []
    given = resources.get("limits")
    limits: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    problems = []
    for resource, request in resources["requests"].items():
        limit = limits.get(resource, KARPENTER_CONTROLLER_RESOURCES.get(resource))
        try:
            above = limit is not None and parse_quantity(str(request)) > parse_quantity(str(limit))
        except ValueError:
            continue  # not a quantity: the chart renders it as given and the API server names it
        if above:
            problems.append(f"{key}.controller.resources.requests.{resource}: {request!r} is above the limit "
                            f"{limit!r} the controller runs with, and the API server refuses a pod whose request "
                            f"exceeds its limit; allowed: at most {limit!r}, or controller.resources.limits."
                            f"{resource} as high")
    return problems


def keda_values_problems(keda: KedaConfig) -> list[str]:
    """The values given for the KEDA prescale installs; with ``install: false`` there is no chart to give them to."""
    key = f"{CONFIG_NAMESPACE}:keda.values"
    if keda.install:
        rendered = {**{f"{component}.replicaCount": KEDA_REPLICAS for component in _KEDA_COMPONENTS},
                    "priorityClassName": KEDA_PRIORITY_CLASS, "watchNamespace": KEDA_WATCH_NAMESPACE}
        return KEDA_VALUES.problems(key, keda.values, rendered)
    if "values" not in keda.model_fields_set:
        return []
    return [f"{key}: {keda.values!r} applies only when install is true (prescale installs KEDA); with install: false "
            "the cluster's own KEDA is used as it is; allowed: remove it"]
