"""What the capacity wing needs from a platform, as one small typed handle: :class:`Platform`.

The platform wing (:mod:`prescale.platform`: cluster, Karpenter, KEDA) builds it; the capacity wing
(:mod:`prescale.capacity`: node pools, scheduled placeholders, failsafes) reads only this module, never the
platform's. A program that brings its own cluster, Karpenter and KEDA builds a :class:`Platform` itself and uses
the capacity wing as a library (docs/library.md). Every difference between modes (self-managed Karpenter, EKS Auto
Mode, an existing cluster) reaches the capacity wing as a field here: :class:`SystemPlacement` says where
controllers run, :class:`NodeClassFlavour` which node class and label keys a pool uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from .model.values.labels import NODEPOOL_LABEL

# The taint prescale's system node group carries, and that controllers commonly tolerate.
SYSTEM_NODE_TAINT = {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}

# Every node Karpenter launches carries this label. A controller pod there would be evicted whenever Karpenter
# consolidates the node, and while Pending it would make Karpenter launch a node for it; with this affinity
# Karpenter knows no NodePool of its can host the pod and launches nothing (Karpenter's own chart does the same).
NOT_ON_KARPENTER_NODES = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [{"key": NODEPOOL_LABEL, "operator": "DoesNotExist"}]}]}}}


@dataclass(frozen=True)
class SystemPlacement:
    """Where cluster controllers (Karpenter, KEDA, the failsafe) run: ``nodeSelector``, ``tolerations`` and
    ``affinity`` for their pods (and Helm values)."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: Sequence[Mapping[str, str]] = (
        {"key": SYSTEM_NODE_TAINT["key"], "operator": "Exists", "effect": SYSTEM_NODE_TAINT["effect"]},)
    # Never on a node Karpenter launched. Off where every node is Karpenter's (EKS Auto Mode): there the node
    # selector names the pool to run on instead.
    avoid_karpenter_nodes: bool = True

    @property
    def affinity(self) -> Mapping[str, Any] | None:
        return NOT_ON_KARPENTER_NODES if self.avoid_karpenter_nodes else None


# Auto Mode's `system` pool: selected by its name, its CriticalAddonsOnly taint tolerated whatever the effect
# (the EKS user guide's "Run critical add-ons on dedicated instances").
AUTO_MODE_SYSTEM_PLACEMENT = SystemPlacement(node_selector={NODEPOOL_LABEL: "system"},
                                             tolerations=({"key": "CriticalAddonsOnly", "operator": "Exists"},),
                                             avoid_karpenter_nodes=False)


@dataclass(frozen=True)
class NodeClassFlavour:
    """The node class a pool's NodePool references, and how AWS's instance labels are spelled there."""

    api_version: str  # the node class's apiVersion (its group is the NodePool's nodeClassRef.group)
    kind: str
    label_domain: str  # `<domain>/instance-category`, `<domain>/instance-family`...
    # Whether the NodePool says `kubernetes.io/os: linux` (Auto Mode refuses the key: its nodes are all Linux).
    requires_os: bool
    auto_mode: bool  # EKS Auto Mode's limits apply (expireAfter at most 21 days, no custom AMI)

    @property
    def group(self) -> str:
        return self.api_version.split("/")[0]


KARPENTER_NODE_CLASSES = NodeClassFlavour("karpenter.k8s.aws/v1", "EC2NodeClass", "karpenter.k8s.aws",
                                          requires_os=True, auto_mode=False)
AUTO_MODE_NODE_CLASSES = NodeClassFlavour("eks.amazonaws.com/v1", "NodeClass", "eks.amazonaws.com",
                                          requires_os=False, auto_mode=True)


@dataclass(frozen=True)
class NodeNetwork:
    """What the platform knows of its nodes' subnets and addresses, for the capacity wing's address check
    (:mod:`prescale.capacity.addresses`). The default knows nothing: subnets are looked up by the discovery tag."""

    # The VPC CNI runs as EKS installs it (a cluster prescale creates, not on Auto Mode), so what its defaults hold
    # is certain.
    cni_defaults: bool = False
    # Subnets this run tags for discovery, looked up by id (the tag does not exist before the run).
    discovery_subnet_ids: Sequence[str] = ()
    # Or subnets this run creates, by CIDR: their sizes are known without a lookup.
    discovery_subnet_cidrs: Sequence[str] = ()


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
    # IAM role name Karpenter's nodes run as; the node classes prescale creates name it. None: the platform
    # has none to offer, so every pool must be existing or reference an existing EC2NodeClass.
    node_role_name: pulumi.Input[str] | None = None
    # NodePools and node classes wait for these (prescale's karpenter-crd and karpenter Helm releases, or the
    # Auto Mode cluster; empty when Karpenter was there before).
    karpenter_ready: Sequence[pulumi.Resource] = ()
    # ScaledObjects wait for these (prescale's KEDA Helm release: CRDs and admission webhook; empty when KEDA
    # was there before).
    keda_ready: Sequence[pulumi.Resource] = ()
    # Where controllers run (the failsafe's CronJob pods too): by default off Karpenter's nodes, tolerating
    # the common `CriticalAddonsOnly` taint.
    system_placement: SystemPlacement = SystemPlacement()
    # Which node class pools reference: Karpenter's EC2NodeClass, or Auto Mode's NodeClass (AWS runs Karpenter).
    node_classes: NodeClassFlavour = KARPENTER_NODE_CLASSES
    # The subnets tagged for discovery, where the platform knows them before a lookup could.
    node_network: NodeNetwork = NodeNetwork()
