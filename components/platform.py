"""What in-cluster capacity needs from the platform (cluster, Karpenter, KEDA), as one typed handle.

The platform components (cluster, Karpenter, KEDA) produce it; the capacity components (node pools,
scheduled placeholders) consume it. Keeping the contract this small lets either side be tested alone, and
lets a program that brings its own cluster, Karpenter and KEDA build a :class:`Platform` itself and use
prescale's capacity components as a library. :func:`deploy_platform` builds it from the stack config,
installing only the layers the config asks for (``karpenter.install``, ``keda.install``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pulumi

from .cluster import Cluster, ClusterArgs, SystemPlacement
from .model.config import StackConfig
from .karpenter import Karpenter, KarpenterArgs
from .keda import Keda, KedaArgs


@dataclass(frozen=True)
class Platform:
    """A cluster with Karpenter and KEDA running, ready for prescale's custom resources.

    Build one yourself to use prescale's capacity components in your own program: your cluster's name, your
    Kubernetes provider, and the resources (if any) that install Karpenter and KEDA in that program.
    """

    # EC2NodeClasses select subnets and security groups tagged `karpenter.sh/discovery: <cluster_name>`
    # unless a pool gives its own selectors.
    cluster_name: pulumi.Input[str]
    # Every in-cluster resource goes through this provider (never the ambient kubeconfig).
    kubernetes_provider: pulumi.ProviderResource
    # IAM role name Karpenter's nodes run as; the EC2NodeClasses prescale creates name it. None: the platform
    # has none to offer, so every pool must be existing or reference an existing EC2NodeClass.
    node_role_name: pulumi.Input[str] | None = None
    # NodePool/EC2NodeClass wait for these (prescale's karpenter-crd and karpenter Helm releases; empty when
    # Karpenter was there before).
    karpenter_ready: Sequence[pulumi.Resource] = ()
    # ScaledObjects wait for these (prescale's KEDA Helm release: CRDs and admission webhook; empty when KEDA
    # was there before).
    keda_ready: Sequence[pulumi.Resource] = ()
    # Stack outputs a user needs (`pulumi.export` each): cluster name, kubeconfig (secret), node role,
    # interruption queue, chart versions.
    exports: Mapping[str, pulumi.Input[Any]] = field(default_factory=dict)
    # Where controllers run (the failsafe's CronJob pods too): by default off Karpenter's nodes, tolerating
    # the common `CriticalAddonsOnly` taint.
    system_placement: SystemPlacement = SystemPlacement()
    # EKS Auto Mode: AWS runs Karpenter, so node pools reference Auto Mode NodeClasses and their labels;
    # node_role_name is then the Auto Mode node role and karpenter_ready the cluster itself.
    auto_mode: bool = False


class PlatformStack(pulumi.ComponentResource):
    """Cluster → Karpenter → KEDA, each waiting explicitly for the one before it; Karpenter and KEDA only when
    the config asks prescale to install them (never Karpenter on Auto Mode, where AWS runs it)."""

    platform: Platform

    def __init__(self, name: str, config: StackConfig, now: datetime, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:PlatformStack", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        karpenter_installed = config.karpenter.install and not config.cluster.auto_mode
        cluster = Cluster(f"{name}-cluster", ClusterArgs(
            config=config.cluster, region=config.region, tags=config.tags,
            pod_identity_agent=karpenter_installed and config.karpenter.controller_auth == "podIdentity",
            karpenter_installed=karpenter_installed, now=now), opts=child)
        exports: dict[str, pulumi.Input[Any]] = {"clusterName": cluster.cluster_name, "kubeconfig": cluster.kubeconfig}
        node_role_name: pulumi.Input[str] | None = config.karpenter.node_role_name
        karpenter_ready: list[pulumi.Resource] = []
        if config.cluster.auto_mode:
            # AWS runs Karpenter; its CRDs exist once the cluster does.
            node_role_name, karpenter_ready = cluster.auto_mode_node_role_name, list(cluster.ready)
            exports["autoModeNodeRoleName"] = node_role_name
        else:
            if karpenter_installed:
                karpenter = Karpenter(f"{name}-karpenter", KarpenterArgs(
                    cluster_name=cluster.cluster_name, config=config.karpenter, region=config.region,
                    kubernetes_provider=cluster.provider, placement=cluster.system_placement,
                    oidc_provider_arn=cluster.oidc_provider_arn, oidc_issuer=cluster.oidc_issuer,
                    cluster_ready=cluster.ready, tags=config.tags), opts=child)
                node_role_name = karpenter.node_role_name
                karpenter_ready = [karpenter.crd_release, karpenter.release]
                exports.update(karpenterInterruptionQueueName=karpenter.queue_name,
                               karpenterVersion=config.karpenter.version)
            if node_role_name is not None:
                exports["karpenterNodeRoleName"] = node_role_name
        keda_ready: list[pulumi.Resource] = []
        if config.keda.install:
            keda = Keda(f"{name}-keda", KedaArgs(
                config=config.keda, kubernetes_provider=cluster.provider, placement=cluster.system_placement,
                depends_on=list(dict.fromkeys([*cluster.ready, *karpenter_ready]))), opts=child)
            keda_ready = [keda.release]
        exports["kedaVersion"] = config.keda.version

        self.platform = Platform(
            cluster_name=cluster.cluster_name, kubernetes_provider=cluster.provider, node_role_name=node_role_name,
            karpenter_ready=karpenter_ready, keda_ready=keda_ready, exports=exports,
            system_placement=cluster.system_placement, auto_mode=config.cluster.auto_mode)
        self.register_outputs(exports)


def deploy_platform(config: StackConfig, now: datetime, opts: pulumi.ResourceOptions | None = None) -> Platform:
    """Build the whole platform for a stack (``now``: aware datetime, the program's clock); ``pulumi.export``
    each of the result's ``exports``."""
    return PlatformStack("prescale", config, now, opts).platform
