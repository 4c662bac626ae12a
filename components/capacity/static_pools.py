"""Per window on a static pool: its own static NodePool, made from the pool's template, driven by its CronJobs.

Created at the plan's ``created_replicas`` and then left to the driver (``ignore_changes``); only ``limits.nodes`` (N
and a surge), no weight, the window's freeze beside the standing budgets, and a name no dynamic NodePool ever has
(the CRD's CEL rules). A reserving window narrows it to the reserved type and zones. What it holds and why:
docs/capacity.md#static-a-nodepool-per-window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi

from ..contract import NodeClassFlavour, Platform
from ..model.config import NodePoolConfig
from ..model.fleet.reservations import ReservationPlan
from ..model.strategies.static import StaticNodes
from ..model.values.labels import INSTANCE_TYPE, ZONE
from ..model.windows import ArmedWindow
from .crds import NodePool, NodePoolSpec, NodeSelectorRequirement
from .node_pools import budgets, node_claim_template, requirements
from .provider import on_cluster

# Ignored with replicas set, but required beside budgets (the NodePool CRD): "Never" says what happens.
STATIC_CONSOLIDATE_AFTER = "Never"


@dataclass(frozen=True)
class StaticNodePoolArgs:
    window: ArmedWindow  # a static window deployed now (`plan_capacity(...).armed`, capacity a StaticNodes)
    pool: NodePoolConfig  # its pool: the template (requirements, taints, labels, lifetimes)
    node_class_name: str  # the pool's node class (`EventNodePool.node_class_name`)
    platform: Platform  # its provider, node class flavour, and what Karpenter's install waits for
    # What the NodePool waits for beside Karpenter: its pool's EventNodePool (the node class, the address check).
    pool_ready: Sequence[pulumi.Resource] = ()


class StaticNodePool(pulumi.ComponentResource):
    """One static window's NodePool, at ``nodes`` nodes while its driver says so."""

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: StaticNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        window, platform = args.window, args.platform
        capacity = window.capacity
        if not isinstance(capacity, StaticNodes):
            raise ValueError(f"event window {window.window.name!r} is not on a static pool")
        super().__init__("prescale:index:StaticNodePool", name, {}, on_cluster(opts, platform))
        self.node_pool_name: str = capacity.node_pool_name
        self.node_pool: NodePool = NodePool(
            f"{name}-static-node-pool", {"name": capacity.node_pool_name},
            static_node_pool_spec(window, args.pool, args.node_class_name, platform.node_classes),
            # The driver owns the count from creation on (docs/internals.md, `prescale.model.strategies`).
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*platform.karpenter_ready, *args.pool_ready],
                                        ignore_changes=["spec.replicas"]))
        self.register_outputs({"nodePoolName": capacity.node_pool_name, "nodes": capacity.nodes})


def static_node_pool_spec(window: ArmedWindow, pool: NodePoolConfig, node_class_name: str,
                          node_classes: NodeClassFlavour) -> NodePoolSpec:
    """The pool's template at ``created_replicas`` nodes, at most ``node_limit`` with those terminating (the surge
    that replaces a lost node at once), with the window's freeze."""
    capacity = window.capacity
    assert isinstance(capacity, StaticNodes)
    chosen = requirements(pool, node_classes)
    if window.reservation is not None:
        chosen = reserved(chosen, window.reservation)
    return {
        "template": node_claim_template(pool, node_class_name, chosen, node_classes),
        "replicas": capacity.created_replicas,
        "limits": {"nodes": str(capacity.node_limit)},
        "disruption": {"consolidateAfter": STATIC_CONSOLIDATE_AFTER,
                       "budgets": budgets([window.freeze] if window.freeze else [], [])},
    }


def reserved(chosen: list[NodeSelectorRequirement], reservation: ReservationPlan) -> list[NodeSelectorRequirement]:
    """The requirements narrowed to the reserved type in the reservations' zones (the config checks proved the pool
    can launch that type there), in place of the pool's own on those two keys."""
    kept = [requirement for requirement in chosen if requirement["key"] not in (INSTANCE_TYPE, ZONE)]
    return [*kept, {"key": INSTANCE_TYPE, "operator": "In", "values": [reservation.instance_type]},
            {"key": ZONE, "operator": "In", "values": list(reservation.zone_names)}]
