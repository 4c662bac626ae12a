"""KEDA, which turns each event window's cron trigger into placeholder replicas.

The ``kedacore/keda`` chart keeps its CRDs in ``templates/``, so they upgrade with the release and no
separate CRD chart is needed (unlike Karpenter). Operator, metrics server and admission webhooks each run
two replicas with a PodDisruptionBudget: the operator is leader-elected and the metrics server serves the
external-metrics API the HPAs poll, so a single pod evicted during a node drain would freeze scaling right
when a window starts. All of them run on the system nodes, with requests and limits set here rather than
inherited from chart defaults that may change between versions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from .cluster import SystemPlacement
from .model.config import KedaConfig
from .helm import pinned_release

CHART_REPOSITORY = "https://kedacore.github.io/charts"
RELEASE_NAME = "keda"
NAMESPACE = "keda"
REPLICAS = 2
# The chart's own defaults, pinned: KEDA's documented sizing for a cluster of this scale.
RESOURCES = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "1", "memory": "1000Mi"}}
# Per component: its key under which `replicaCount` lives, and its key under `podDisruptionBudget` and
# `resources` (the chart spells the metrics server `metricsServer` in one place, `metricServer` in the other).
_COMPONENT_KEYS = (("operator", "operator"), ("metricsServer", "metricServer"), ("webhooks", "webhooks"))


@dataclass(frozen=True)
class KedaArgs:
    config: KedaConfig
    kubernetes_provider: k8s.Provider
    placement: SystemPlacement
    # What must be in place first (the cluster's system nodes; by convention, Karpenter).
    depends_on: Sequence[pulumi.Resource]


class Keda(pulumi.ComponentResource):
    """The KEDA namespace and Helm release."""

    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: KedaArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:Keda", name, {},
                         pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(
                             providers={"kubernetes": args.kubernetes_provider})))
        # Both retained on delete: the chart holds KEDA's CRDs, so uninstalling it (or deleting its namespace)
        # would delete every ScaledObject in the cluster. A switch to `keda.install: false` hands KEDA over.
        namespace = k8s.core.v1.Namespace(f"{name}-namespace", metadata={"name": NAMESPACE},
                                          opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.depends_on),
                                                                      retain_on_delete=True))
        self.release = pinned_release(
            name, chart="keda", repository=CHART_REPOSITORY, version=args.config.version,
            release_name=RELEASE_NAME, namespace=namespace.metadata.name, values=keda_values(args.placement),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace, *args.depends_on], retain_on_delete=True))
        self.register_outputs({"namespace": namespace.metadata.name, "version": args.config.version})


def keda_values(placement: SystemPlacement) -> dict[str, Any]:
    """Helm values of the ``keda`` chart: HA replicas, PDBs, resources, system-node placement."""
    values: dict[str, Any] = {
        "podDisruptionBudget": {},
        "resources": {},
        "nodeSelector": dict(placement.node_selector),
        "tolerations": [dict(toleration) for toleration in placement.tolerations],
    }
    for deployment_key, budget_key in _COMPONENT_KEYS:
        values[deployment_key] = {"replicaCount": REPLICAS}
        values["podDisruptionBudget"][budget_key] = {"minAvailable": 1}
        values["resources"][budget_key] = {kind: dict(amounts) for kind, amounts in RESOURCES.items()}
    return values
