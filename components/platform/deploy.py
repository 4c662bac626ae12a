"""The platform for a stack: cluster → Karpenter → KEDA, each layer only when the config asks for it.

:func:`deploy_platform` builds it and returns the :class:`~prescale.contract.Platform` handle the capacity wing
needs. Every mode is decided here, once: on EKS Auto Mode AWS runs Karpenter (no install, the cluster's node role,
Auto Mode's node classes), ``karpenter.install: false`` / ``keda.install: false`` adopt the user's own, and an
existing cluster is looked up instead of created (docs/platform.md, docs/adoption.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pulumi

from ..contract import AUTO_MODE_NODE_CLASSES, KARPENTER_NODE_CLASSES, Platform
from ..model.config import ClusterConfig, FeatureGate, KarpenterConfig, KedaConfig, StackConfig
from ..model.strategies import feature_gates
from .cluster import Cluster, ClusterArgs
from .karpenter import Karpenter, KarpenterArgs
from .keda import Keda, KedaArgs


@dataclass(frozen=True)
class PrescalePlatformArgs:
    cluster: ClusterConfig
    karpenter: KarpenterConfig
    keda: KedaConfig
    region: str
    tags: Mapping[str, str]
    # The program's clock (aware): EKS support dates are checked against it.
    now: datetime
    # The Karpenter feature gates the node pools' strategies need, turned on in the Karpenter prescale installs.
    karpenter_feature_gates: tuple[FeatureGate, ...] = ()
    # `alerts.prometheusRule`: the charts prescale installs then create the monitors that have their metrics scraped
    # (docs/alerts.md says which rule reads what).
    scraped: bool = False

    @classmethod
    def from_config(cls, config: StackConfig, now: datetime) -> PrescalePlatformArgs:
        return cls(cluster=config.cluster, karpenter=config.karpenter, keda=config.keda, region=config.region,
                   tags=config.tags, now=now, karpenter_feature_gates=feature_gates(config),
                   scraped=config.alerts.prometheus_rule)


class PrescalePlatform(pulumi.ComponentResource):
    """Cluster → Karpenter → KEDA, each waiting explicitly for the one before it; Karpenter and KEDA only when
    the config asks prescale to install them (never Karpenter on Auto Mode, where AWS runs it)."""

    platform: Platform
    # The stack outputs it offers (`pulumi.export` each): cluster name, kubeconfig (secret), node role,
    # interruption queue, chart versions.
    stack_outputs: dict[str, pulumi.Input[Any]]

    def __init__(self, name: str, args: PrescalePlatformArgs, opts: pulumi.ResourceOptions | None = None):
        # The type token keeps its first name: it is part of every child's URN, and a new one would replace the
        # whole cluster on the next `pulumi up`.
        super().__init__("prescale:index:PlatformStack", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        auto_mode = args.cluster.auto_mode
        karpenter_installed = args.karpenter.install and not auto_mode
        cluster = Cluster(f"{name}-cluster", ClusterArgs(
            config=args.cluster, region=args.region, tags=args.tags,
            pod_identity_agent=karpenter_installed and args.karpenter.controller_auth == "podIdentity",
            karpenter_installed=karpenter_installed, now=args.now), opts=child)
        exports: dict[str, pulumi.Input[Any]] = {"clusterName": cluster.cluster_name, "kubeconfig": cluster.kubeconfig}
        node_role_name: pulumi.Input[str] | None = args.karpenter.node_role_name
        karpenter_ready: list[pulumi.Resource] = []
        if auto_mode:
            # AWS runs Karpenter; its CRDs exist once the cluster does.
            node_role_name, karpenter_ready = cluster.auto_mode_node_role_name, list(cluster.ready)
            exports["autoModeNodeRoleName"] = node_role_name
        else:
            if karpenter_installed:
                karpenter = Karpenter(f"{name}-karpenter", KarpenterArgs(
                    cluster_name=cluster.cluster_name, config=args.karpenter, region=args.region,
                    kubernetes_provider=cluster.provider, placement=cluster.system_placement,
                    oidc_provider_arn=cluster.oidc_provider_arn, oidc_issuer=cluster.oidc_issuer,
                    cluster_ready=cluster.ready, tags=args.tags, feature_gates=args.karpenter_feature_gates,
                    scraped=args.scraped),
                    opts=child)
                node_role_name = karpenter.node_role_name
                karpenter_ready = [karpenter.crd_release, karpenter.release]
                exports.update(karpenterInterruptionQueueName=karpenter.queue_name,
                               karpenterVersion=args.karpenter.version)
            if node_role_name is not None:
                exports["karpenterNodeRoleName"] = node_role_name
        keda_ready: list[pulumi.Resource] = []
        if args.keda.install:
            keda = Keda(f"{name}-keda", KedaArgs(
                config=args.keda, kubernetes_provider=cluster.provider, placement=cluster.system_placement,
                depends_on=list(dict.fromkeys([*cluster.ready, *karpenter_ready])), scraped=args.scraped), opts=child)
            keda_ready = [keda.release]
        exports["kedaVersion"] = args.keda.version

        self.platform = Platform(
            cluster_name=cluster.cluster_name, kubernetes_provider=cluster.provider, node_role_name=node_role_name,
            karpenter_ready=karpenter_ready, keda_ready=keda_ready,
            system_placement=cluster.system_placement,
            node_classes=AUTO_MODE_NODE_CLASSES if auto_mode else KARPENTER_NODE_CLASSES,
            node_network=cluster.node_network)
        self.stack_outputs = exports
        self.register_outputs(exports)


def deploy_platform(config: StackConfig, now: datetime, opts: pulumi.ResourceOptions | None = None) -> Platform:
    """Build the whole platform for a stack (``now``: aware datetime, the program's clock) and return its
    :class:`~prescale.contract.Platform` (for the stack outputs, build :class:`PrescalePlatform` itself)."""
    return PrescalePlatform("prescale", PrescalePlatformArgs.from_config(config, now), opts).platform
