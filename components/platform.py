"""What in-cluster capacity needs from the platform (cluster, Karpenter, KEDA), as one typed handle.

The platform components (cluster, Karpenter, KEDA) produce it; the capacity components (node pools,
scheduled placeholders) consume it. Keeping the contract this small lets either side be tested alone.
:func:`deploy_platform` builds it from the stack config.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pulumi

from .cluster import Cluster, ClusterArgs
from .model.config import StackConfig
from .karpenter import Karpenter, KarpenterArgs
from .keda import Keda, KedaArgs


@dataclass(frozen=True)
class Platform:
    """A cluster with Karpenter and KEDA installed, ready for custom resources."""

    cluster_name: pulumi.Input[str]
    # Role Karpenter's nodes run as; EC2NodeClass.spec.role names it.
    node_role_name: pulumi.Input[str]
    # Every in-cluster resource goes through this provider (never the ambient kubeconfig).
    kubernetes_provider: pulumi.ProviderResource
    # NodePool/EC2NodeClass must wait for these (the karpenter-crd and karpenter Helm releases).
    karpenter_ready: Sequence[pulumi.Resource]
    # ScaledObjects must wait for these (the KEDA Helm release: CRDs and admission webhook).
    keda_ready: Sequence[pulumi.Resource]
    # Stack outputs a user needs (`pulumi.export` each): cluster name, kubeconfig (secret), node role,
    # interruption queue, chart versions.
    exports: Mapping[str, pulumi.Input[Any]] = field(default_factory=dict)


class PlatformStack(pulumi.ComponentResource):
    """Cluster → Karpenter → KEDA, each waiting explicitly for the one before it."""

    platform: Platform

    def __init__(self, name: str, config: StackConfig, now: datetime, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:PlatformStack", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = Cluster(f"{name}-cluster", ClusterArgs(
            config=config.cluster, region=config.region, tags=config.tags,
            pod_identity_agent=config.karpenter.controller_auth == "podIdentity", now=now), opts=child)
        karpenter = Karpenter(f"{name}-karpenter", KarpenterArgs(
            cluster_name=cluster.cluster_name, config=config.karpenter, region=config.region,
            kubernetes_provider=cluster.provider, placement=cluster.system_placement,
            oidc_provider_arn=cluster.oidc_provider_arn, oidc_issuer=cluster.oidc_issuer,
            cluster_ready=cluster.ready, tags=config.tags), opts=child)
        karpenter_ready = [karpenter.crd_release, karpenter.release]
        keda = Keda(f"{name}-keda", KedaArgs(
            config=config.keda, kubernetes_provider=cluster.provider, placement=cluster.system_placement,
            depends_on=[*cluster.ready, *karpenter_ready]), opts=child)

        exports = {
            "clusterName": cluster.cluster_name,
            "kubeconfig": cluster.kubeconfig,
            "karpenterNodeRoleName": karpenter.node_role_name,
            "karpenterInterruptionQueueName": karpenter.queue_name,
            "karpenterVersion": config.karpenter.version,
            "kedaVersion": config.keda.version,
        }
        self.platform = Platform(
            cluster_name=cluster.cluster_name, node_role_name=karpenter.node_role_name,
            kubernetes_provider=cluster.provider, karpenter_ready=karpenter_ready, keda_ready=[keda.release],
            exports=exports)
        self.register_outputs(exports)


def deploy_platform(config: StackConfig, now: datetime, opts: pulumi.ResourceOptions | None = None) -> Platform:
    """Build the whole platform for a stack (``now``: aware datetime, the program's clock); ``pulumi.export``
    each of the result's ``exports``."""
    return PlatformStack("prescale", config, now, opts).platform
