"""One Karpenter NodePool + EC2NodeClass per ``prescale:nodePools`` entry: where event capacity lands.

Its nodes carry ``prescale.io/node-pool: <name>`` (the placeholders' ``nodeSelector``) and the pool's taints, which
the placeholders tolerate; ``nodes: "0"`` budgets freeze consolidation during windows, and ``expireAfter``
defaults to ``Never``. On Auto Mode the node class is Auto Mode's ``NodeClass`` (``platform.node_classes``). A static
pool gets its node class only, which its windows' static NodePools use (:mod:`prescale.capacity.static_pools`). What
each pool gets and why: docs/capacity.md#node-pools; how it is built: docs/internals.md#prescalecapacitynode_pools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pulumi
from prescale.model.schedule.freezes import Freeze

from ..contract import KARPENTER_NODE_CLASSES, NodeClassFlavour, Platform
from ..model.config import CapacityReservationSelectorTerm as ReservationTermConfig
from ..model.config import (
    DataVolumeConfig,
    Limits,
    NodePoolConfig,
    SecurityGroupSelectorTerm,
    SubnetSelectorTerm,
    TaintConfig,
)
from ..model.fleet.requirements import pool_requirements
from ..model.schedule.freezes import FREEZE_SLOTS, STANDING_BUDGETS
from ..model.strategies import strategy_of
from ..model.values.duration import nodepool_duration
from ..model.values.labels import POOL_LABEL, mode_key_problem
from ..names import DISCOVERY_TAG, node_pool_object_name
from .crds import (
    BlockDeviceMapping,
    Budget,
    CapacityReservationSelectorTerm,
    EbsVolume,
    EC2NodeClass,
    EC2NodeClassSpec,
    NodeClaimTemplate,
    NodeClaimTemplateSpec,
    NodeClass,
    NodeClassSpec,
    NodePool,
    NodePoolSpec,
    NodeSelectorRequirement,
    SelectorTerm,
    Taint,
)
from .provider import on_cluster

# Karpenter's own per-family defaults, with a larger disk for event workloads' images.
_DISK_GIB = 50
_BLOCK_DEVICES: dict[str, list[BlockDeviceMapping]] = {
    "al2023": [{"deviceName": "/dev/xvda",
                "ebs": {"volumeSize": f"{_DISK_GIB}Gi", "volumeType": "gp3", "encrypted": True,
                        "deleteOnTermination": True}}],
    # Bottlerocket: a small OS volume and a data volume for images and logs.
    "bottlerocket": [{"deviceName": "/dev/xvda",
                      "ebs": {"volumeSize": "4Gi", "volumeType": "gp3", "encrypted": True,
                              "deleteOnTermination": True}},
                     {"deviceName": "/dev/xvdb",
                      "ebs": {"volumeSize": f"{_DISK_GIB}Gi", "volumeType": "gp3", "encrypted": True,
                              "deleteOnTermination": True}}],
}
DATA_DEVICE = "/dev/xvdb"  # Bottlerocket's data volume, where its container images live


@dataclass(frozen=True)
class EventNodePoolArgs:
    pool: NodePoolConfig  # a pool prescale owns (`existing` false)
    # Its `nodes: "0"` budgets, already fitted beside the standing ones (`plan_capacity(...).pools[name].freezes`;
    # a static pool's are its windows' NodePools', and unused here).
    freezes: Sequence[Freeze]
    platform: Platform  # its provider, node role, node class flavour, and what Karpenter's install waits for
    tags: Mapping[str, str] = field(default_factory=dict)  # on the EC2 instances (EC2NodeClass `tags`)
    # The reservations its windows hold now (`WindowReservations.ids`), selected by id beside the pool's own terms.
    reservation_ids: Sequence[pulumi.Input[str]] = ()
    # The check of the addresses in the pool's subnets (prescale.capacity.addresses): the pool waits for it.
    addresses_checked: pulumi.Input[None] | None = None
    # Budgets that stop only drift while its windows' reservations let go of their nodes, fitted like the freezes
    # (`plan_capacity(...).pools[name].drift_holds`).
    drift_holds: Sequence[Freeze] = ()


class EventNodePool(pulumi.ComponentResource):
    """A pool's node class and NodePool, with its windows' consolidation freezes as disruption budgets.

    For a pool prescale owns (``existing`` false). The node class is an ``EC2NodeClass`` for self-managed
    Karpenter, a ``NodeClass`` on EKS Auto Mode, and names ``platform.node_role_name``; with ``nodeClassName``
    the NodePool uses that existing node class instead and none is created. A pool whose strategy gives each window
    its own NodePool (static) has none: its windows' NodePools use its node class.
    """

    node_class: EC2NodeClass | NodeClass | None  # None when the pool uses an existing node class
    node_class_name: str  # the one its NodePools reference
    node_pool: NodePool | None  # None on a static pool

    def __init__(self, name: str, args: EventNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        pool, platform = args.pool, args.platform
        if pool.existing:
            raise ValueError(f"node pool {pool.name!r} is an existing pool: prescale creates no NodePool for it")
        if pool.node_class_name is None:
            _node_role(pool, platform)  # refused before anything is registered
        own_node_pools = strategy_of(pool).own_node_pools  # its windows' NodePools carry their own freezes
        if not own_node_pools and len(args.freezes) + len(args.drift_holds) > FREEZE_SLOTS:
            raise ValueError(f"node pool {pool.name!r}: {len(args.freezes)} freezes and {len(args.drift_holds)} drift "
                             f"holds do not fit beside the standing budgets ({FREEZE_SLOTS} at most); fit them first "
                             "(prescale.plan_capacity does)")
        # Registered once its subnets' addresses are checked, so its node class and NodePool never are if they fail.
        checked = {} if args.addresses_checked is None else {"addressesChecked": args.addresses_checked}
        super().__init__("prescale:index:EventNodePool", name, checked, on_cluster(opts, platform))
        children = pulumi.ResourceOptions(parent=self, depends_on=list(platform.karpenter_ready))
        object_name = node_pool_object_name(pool.name)
        self.node_class = None
        node_class_name = pool.node_class_name
        if node_class_name is None:
            node_class_name = object_name
            if platform.node_classes.kind == NodeClass.KIND:
                self.node_class = NodeClass(f"{name}-node-class", {"name": object_name},
                                            auto_mode_node_class_spec(pool, platform, args.reservation_ids),
                                            opts=children)
            else:
                self.node_class = EC2NodeClass(f"{name}-node-class", {"name": object_name},
                                               node_class_spec(pool, platform, args.tags, args.reservation_ids),
                                               opts=children)
            # After its node class, so that deleting the pool removes its nodes before the class they launch from.
            children = pulumi.ResourceOptions.merge(children, pulumi.ResourceOptions(depends_on=[self.node_class]))
        self.node_class_name = node_class_name
        self.node_pool = None if own_node_pools else NodePool(
            f"{name}-node-pool", {"name": object_name},
            node_pool_spec(pool, node_class_name, budgets(args.freezes, args.drift_holds), platform.node_classes),
            opts=children)
        self.register_outputs({"nodeClassName": node_class_name,
                               "nodePoolName": object_name if self.node_pool is not None else None})


def node_class_spec(pool: NodePoolConfig, platform: Platform, tags: Mapping[str, str],
                    reservation_ids: Sequence[pulumi.Input[str]] = ()) -> EC2NodeClassSpec:
    """The pool's EC2NodeClass: subnets and security groups from the pool's selector terms, or else those tagged
    ``karpenter.sh/discovery: <cluster>`` (as in Karpenter's getting-started guide); reservations from the pool's
    terms and ``reservation_ids``."""
    discovery: list[SelectorTerm] = [{"tags": {DISCOVERY_TAG: platform.cluster_name}}]
    spec: EC2NodeClassSpec = {
        "role": _node_role(pool, platform),
        "amiSelectorTerms": [{"alias": pool.ami_alias}],
        "subnetSelectorTerms": _terms(pool.subnet_selector_terms) or discovery,
        "securityGroupSelectorTerms": _terms(pool.security_group_selector_terms) or discovery,
        "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                            "httpPutResponseHopLimit": 1, "httpTokens": "required"},
        "blockDeviceMappings": block_devices(pool),
        "tags": {**tags, POOL_LABEL: pool.name},
    }
    if terms := reservation_terms(pool, reservation_ids=reservation_ids):
        spec["capacityReservationSelectorTerms"] = terms
    return spec


def block_devices(pool: NodePoolConfig) -> list[BlockDeviceMapping]:
    """The AMI family's volumes, a Bottlerocket pool's data volume made from its ``dataVolume`` snapshot."""
    devices = _BLOCK_DEVICES[pool.ami_alias.split("@")[0]]
    if pool.data_volume is None:
        return [{**device, "ebs": {**device["ebs"]}} for device in devices]  # each pool its own copies
    return [{**device, "ebs": _from_snapshot(device["ebs"], pool.data_volume)} if device["deviceName"] == DATA_DEVICE
            else {**device, "ebs": {**device["ebs"]}} for device in devices]


def _from_snapshot(volume: EbsVolume, data: DataVolumeConfig) -> EbsVolume:
    """The data volume made from the snapshot: the snapshot's size unless ``dataVolume.size`` says more (EC2 refuses a
    volume smaller than its snapshot, and with no size takes the snapshot's: aws/karpenter-provider-aws v1.14.1
    ``pkg/providers/launchtemplate/launchtemplate.go`` sends none when unset), its type, and no ``encrypted``, which
    EC2 refuses beside a snapshot (the volume is as encrypted as the snapshot: docs/readiness.md)."""
    made: EbsVolume = {"volumeType": volume["volumeType"], "deleteOnTermination": volume["deleteOnTermination"],
                       "snapshotID": data.snapshot_id}
    if data.size is not None:
        made["volumeSize"] = data.size
    if data.volume_initialization_rate is not None:
        made["volumeInitializationRate"] = data.volume_initialization_rate
    return made


def _node_role(pool: NodePoolConfig, platform: Platform) -> pulumi.Input[str]:
    """The node role the pool's node class names: the platform's, which a node class prescale creates needs."""
    if platform.node_role_name is None:
        raise ValueError(f"node pool {pool.name!r}: its EC2NodeClass needs a node role, and the platform has "
                         "none (set karpenter.nodeRoleName, or give the pool nodeClassName)")
    return platform.node_role_name


# How a reservation term names the owning account: ``ownerID`` in an EC2NodeClass, ``owner`` in Auto Mode's NodeClass.
OwnerKey = Literal["ownerID", "owner"]


def reservation_terms(pool: NodePoolConfig, owner_key: OwnerKey = "ownerID",
                      reservation_ids: Sequence[pulumi.Input[str]] = ()) -> list[CapacityReservationSelectorTerm]:
    """The reservations the pool's node class selects, in Karpenter's shape (Auto Mode's NodeClass spells the
    owning account ``owner``: ``owner_key``): the pool's terms, then ``reservation_ids`` one term each."""
    by_id: list[CapacityReservationSelectorTerm] = [{"id": reservation_id} for reservation_id in reservation_ids]
    return [_reservation_term(term, owner_key) for term in pool.capacity_reservation_selector_terms or ()] + by_id


def _reservation_term(term: ReservationTermConfig, owner_key: OwnerKey) -> CapacityReservationSelectorTerm:
    rendered: CapacityReservationSelectorTerm = {}
    if term.id is not None:
        rendered["id"] = term.id
    if term.tags is not None:
        rendered["tags"] = dict(term.tags)
    if term.owner_id is not None:
        rendered[owner_key] = term.owner_id
    return rendered


def _terms(terms: Sequence[SubnetSelectorTerm | SecurityGroupSelectorTerm] | None) -> list[SelectorTerm]:
    return [_selector_term(term) for term in terms or ()]


def _selector_term(term: SubnetSelectorTerm | SecurityGroupSelectorTerm) -> SelectorTerm:
    rendered: SelectorTerm = {}
    if term.tags is not None:
        rendered["tags"] = dict(term.tags)
    if term.id is not None:
        rendered["id"] = term.id
    if isinstance(term, SecurityGroupSelectorTerm) and term.name is not None:
        rendered["name"] = term.name
    return rendered


def auto_mode_node_class_spec(pool: NodePoolConfig, platform: Platform,
                              reservation_ids: Sequence[pulumi.Input[str]] = ()) -> NodeClassSpec:
    """Auto Mode's NodeClass: the platform's node role, subnets and security groups from the pool's selector terms
    or else the discovery tag, and the pool's capacity reservations if it selects any.

    No ``tags``: Auto Mode's managed policies do not let it put user-defined tags on the instances it
    launches (that needs extra permissions on the cluster role), so it would fail to launch any.
    """
    discovery: list[SelectorTerm] = [{"tags": {DISCOVERY_TAG: platform.cluster_name}}]
    spec: NodeClassSpec = {"role": _node_role(pool, platform),
                           "subnetSelectorTerms": _terms(pool.subnet_selector_terms) or discovery,
                           "securityGroupSelectorTerms": _terms(pool.security_group_selector_terms) or discovery}
    if terms := reservation_terms(pool, owner_key="owner", reservation_ids=reservation_ids):
        spec["capacityReservationSelectorTerms"] = terms
    return spec


def node_pool_spec(pool: NodePoolConfig, node_class_name: str, budgets: list[Budget],
                   node_classes: NodeClassFlavour = KARPENTER_NODE_CLASSES) -> NodePoolSpec:
    if pool.limits is None:  # only an existing pool goes without, and its NodePool is its owner's
        raise ValueError(f"node pool {pool.name!r} has no limits: prescale creates no NodePool without limits")
    spec: NodePoolSpec = {
        "template": node_claim_template(pool, node_class_name, requirements(pool, node_classes), node_classes),
        "disruption": {"consolidationPolicy": pool.consolidation_policy,
                       "consolidateAfter": nodepool_duration(pool.consolidate_after), "budgets": budgets},
        "limits": limits(pool.limits),
    }
    if pool.weight is not None:
        spec["weight"] = pool.weight
    return spec


def node_claim_template(pool: NodePoolConfig, node_class_name: str, chosen: list[NodeSelectorRequirement],
                        node_classes: NodeClassFlavour = KARPENTER_NODE_CLASSES) -> NodeClaimTemplate:
    """The nodes a pool's NodePools launch: its label, node class, ``chosen`` requirements, taints and lifetimes."""
    template_spec: NodeClaimTemplateSpec = {
        "nodeClassRef": {"group": node_classes.group, "kind": node_classes.kind, "name": node_class_name},
        "requirements": chosen,
        "expireAfter": nodepool_duration(pool.deployed_expire_after(node_classes.auto_mode)),
        "terminationGracePeriod": nodepool_duration(pool.termination_grace_period),
    }
    if pool.taints:
        template_spec["taints"] = taints(pool)
    return {"metadata": {"labels": {POOL_LABEL: pool.name}}, "spec": template_spec}


def limits(given: Limits) -> dict[str, str]:
    """The limits that are given, each as the quantity string the NodePool's ``resource.Quantity`` reads
    (``cpu: 1000`` in config was already turned into ``"1000"``; ``nodes`` is an integer there)."""
    return {resource: str(value) for resource, value in
            (("cpu", given.cpu), ("memory", given.memory), ("nodes", given.nodes)) if value is not None}


def requirements(pool: NodePoolConfig,
                 node_classes: NodeClassFlavour = KARPENTER_NODE_CLASSES) -> list[NodeSelectorRequirement]:
    """The instances the pool may launch: its shorthands (the category in the node class's label domain) unless
    written as requirements, ``kubernetes.io/os: linux`` (not on Auto Mode, which refuses the key: its nodes are all
    Linux), then the pool's own requirements, whose keys must be the mode's (the stack's config checks refuse a
    wrong one earlier; this catches it for a library program, whose platform decides the mode)."""
    for requirement in pool.requirements:
        problem = mode_key_problem(requirement.key, node_classes.auto_mode)
        if problem:
            raise ValueError(f"node pool {pool.name!r}: requirement key {requirement.key!r} {problem}")
    chosen: list[NodeSelectorRequirement] = []
    for required in pool_requirements(pool, node_classes.label_domain, linux=node_classes.requires_os):
        rendered: NodeSelectorRequirement = {"key": required.key, "operator": required.operator}
        if required.values:
            rendered["values"] = list(required.values)
        if required.min_values is not None:
            rendered["minValues"] = required.min_values
        chosen.append(rendered)
    return chosen


def taints(pool: NodePoolConfig) -> list[Taint]:
    """The pool's taints; a value-less taint omits ``value`` (the NodePool schema refuses ``""``)."""
    return [_taint(taint) for taint in pool.taints]


def _taint(given: TaintConfig) -> Taint:
    rendered: Taint = {"key": given.key, "effect": given.effect}
    if given.value:
        rendered["value"] = given.value
    return rendered


def budgets(freezes: Sequence[Freeze], drift_holds: Sequence[Freeze]) -> list[Budget]:
    """``nodes: "0"`` for every (fitted) freeze, then for reason ``Drifted`` in every drift hold, then the standing
    budgets: at most the CRD's 50 in all."""
    frozen: list[Budget] = [{"nodes": "0", "schedule": f.schedule, "duration": f.duration} for f in freezes]
    held: list[Budget] = [{"nodes": "0", "schedule": h.schedule, "duration": h.duration, "reasons": ["Drifted"]}
                          for h in drift_holds]
    standing: list[Budget] = [{"nodes": b["nodes"], "reasons": list(b["reasons"])}  # each pool its own copies
                              for b in STANDING_BUDGETS]
    return frozen + held + standing
