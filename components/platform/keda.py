"""KEDA, which turns each event window's cron trigger into placeholder replicas.

The ``kedacore/keda`` chart (its CRDs upgrade with the release): operator, metrics server and admission webhooks
two replicas each, with a PodDisruptionBudget, spread over two nodes, at ``system-cluster-critical`` priority,
where the cluster's controllers run (never on Karpenter's nodes), with requests and limits set here. Why each:
docs/platform.md#what-gets-created-prescaleclustercreate-true-the-default (the KEDA row).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import pulumi
import pulumi_kubernetes as k8s

from ..contract import SystemPlacement
from ..model.checks.helm_values import KEDA_PRIORITY_CLASS, KEDA_REPLICAS
from ..model.config import KedaConfig
from .helm import merged_values, pinned_release

CHART_REPOSITORY = "https://kedacore.github.io/charts"
RELEASE_NAME = "keda"
KEDA_NAMESPACE = "keda"
# The chart's own defaults, pinned: KEDA's documented sizing for a cluster of this scale.
RESOURCES = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "1", "memory": "1000Mi"}}


class _Component(NamedTuple):
    """One KEDA deployment as the chart addresses it."""

    values_key: str  # holds `replicaCount`; also its key under `topologySpreadConstraints`
    budget_key: str  # its key under `podDisruptionBudget` and `resources` (the chart spells `metricServer` there)
    app: str  # its pods' `app` label


_COMPONENTS = (_Component("operator", "operator", "keda-operator"),
               _Component("metricsServer", "metricServer", "keda-operator-metrics-apiserver"),
               _Component("webhooks", "webhooks", "keda-admission-webhooks"))


@dataclass(frozen=True)
class KedaArgs:
    config: KedaConfig
    kubernetes_provider: k8s.Provider
    placement: SystemPlacement
    # What must be in place first (the cluster's system nodes; by convention, Karpenter).
    depends_on: Sequence[pulumi.Resource]
    # Alerts read the operator's metrics: it exposes them and the chart creates its ServiceMonitor.
    scraped: bool = False


class Keda(pulumi.ComponentResource):
    """The KEDA namespace and Helm release."""

    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: KedaArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:Keda", name, {},
                         pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(
                             providers={"kubernetes": args.kubernetes_provider})))
        # Both retained on delete: the chart holds KEDA's CRDs, so uninstalling it (or deleting its namespace)
        # would delete every ScaledObject in the cluster. A switch to `keda.install: false` hands KEDA over.
        namespace = k8s.core.v1.Namespace(f"{name}-namespace", metadata={"name": KEDA_NAMESPACE},
                                          opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.depends_on),
                                                                      retain_on_delete=True))
        self.release = pinned_release(
            name, chart="keda", repository=CHART_REPOSITORY, version=args.config.version,
            release_name=RELEASE_NAME, namespace=namespace.metadata.name,
            values=merged_values(keda_values(args.placement, args.scraped), args.config.values),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace, *args.depends_on], retain_on_delete=True))
        self.register_outputs({"namespace": namespace.metadata.name, "version": args.config.version})


def keda_values(placement: SystemPlacement, scraped: bool = False) -> dict[str, Any]:
    """Helm values of the ``keda`` chart: HA replicas spread over nodes, PDBs, resources, priority, placement; with
    ``scraped``, the operator's metrics exposed and its ServiceMonitor, which the alert rules on KEDA's series need."""
    values: dict[str, Any] = {
        "podDisruptionBudget": {},
        "resources": {},
        "topologySpreadConstraints": {},
        "nodeSelector": dict(placement.node_selector),
        "tolerations": [dict(toleration) for toleration in placement.tolerations],
        **({"affinity": placement.affinity} if placement.affinity else {}),
        "priorityClassName": KEDA_PRIORITY_CLASS,
    }
    for component in _COMPONENTS:
        values[component.values_key] = {"replicaCount": KEDA_REPLICAS}
        values["podDisruptionBudget"][component.budget_key] = {"minAvailable": 1}
        values["resources"][component.budget_key] = {kind: dict(amounts) for kind, amounts in RESOURCES.items()}
        values["topologySpreadConstraints"][component.values_key] = [_one_per_node(component.app)]
    if scraped:
        values["prometheus"] = {"operator": {"enabled": True, "serviceMonitor": {"enabled": True}}}
    return values


def _one_per_node(app: str) -> dict[str, Any]:
    """A component's replicas on different nodes whenever two nodes can take them.

    A spread constraint rather than required anti-affinity: a rolling update's surge pod may share a node
    (``maxSkew: 1``), so two system nodes never deadlock an upgrade, and a cluster with one eligible node
    still runs both replicas. Only nodes the pods may use count (``nodeTaintsPolicy: Honor``; node affinity
    and selector are honoured by default), and ``pod-template-hash`` keeps a new revision's pods spread among
    themselves rather than around the old ones.
    """
    return {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": app}}, "matchLabelKeys": ["pod-template-hash"],
            "nodeTaintsPolicy": "Honor"}
