"""How many placeholder pods a window needs, and what each one requests: pure arithmetic, no Pulumi.

A placeholder's requests are room kept free for real pods, and Karpenter sizes nodes for pending pods after every
node's overhead and its DaemonSets, so the requests carry no margin of their own: ``nodes: N`` is N pods of
``nodeSize``, one per node; ``capacity`` the fewest equal pods no bigger than ``maxPodSize`` (or, for a reserving
window, pods that tile the reserved type). The rules: docs/capacity.md#pod-sizing; how they are computed:
docs/internals.md#prescalemodelfleetsizing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

from ..config import EventWindow, PlaceholderConfig
from ..values.quantity import MIB, format_cpu, format_memory, parse_quantity
from .instances import instance_type


@dataclass(frozen=True)
class PlaceholderPlan:
    """What a window's placeholder Deployment runs at the window's peak."""

    pods: int
    cpu: str  # requests of each pod, as Kubernetes quantities
    memory: str
    one_per_node: bool  # `nodes:` windows: each pod on its own node

    @cached_property
    def requests(self) -> tuple[Decimal, Decimal]:
        """Each pod's CPU cores and memory bytes."""
        return parse_quantity(self.cpu), parse_quantity(self.memory)


def plan_placeholders(window: EventWindow, placeholders: PlaceholderConfig) -> PlaceholderPlan:
    """The placeholder pods for ``window`` (the rules: docs/capacity.md#pod-sizing), with the settings of its pool
    (:meth:`prescale.model.config.CapacityConfig.placeholders_for`)."""
    if window.nodes is not None:
        return PlaceholderPlan(pods=window.nodes, cpu=placeholders.node_size.cpu,
                               memory=placeholders.node_size.memory, one_per_node=True)
    assert window.capacity is not None  # the config model guarantees exactly one of nodes/capacity
    # Whole millicores and MiB: the units requests are rounded to.
    cores, memory_bytes = window.capacity.requests
    cpu, memory = cores * 1000, memory_bytes / MIB
    most_cores, most_bytes = placeholders.max_pod_size.requests
    max_cpu, max_memory = math.floor(most_cores * 1000), math.floor(most_bytes / MIB)
    if max_cpu < 1 or max_memory < 1:
        raise ValueError("must be at least 1m CPU and 1Mi memory to split a capacity into pods")
    # ⌈total / pods⌉ ≤ max  ⇔  pods ≥ total / max, so this is the fewest pods that fit after rounding up.
    pods = max(math.ceil(cpu / max_cpu), math.ceil(memory / max_memory), 1)
    reserved = instance_type(window.reserve.instance_type) if window.reserve else None
    if reserved is not None:  # an unknown type is refused by the config checks
        pods = _tiled_pods(cpu, memory, max_cpu, max_memory, reserved.room) or pods
    return PlaceholderPlan(pods=pods, cpu=format_cpu(cpu / pods / 1000), memory=format_memory(memory / pods * MIB),
                           one_per_node=False)


def _tiled_pods(cpu: Decimal, memory: Decimal, max_cpu: int, max_memory: int,
                room: tuple[Decimal, Decimal]) -> int | None:
    """How many pods tile instances of ``room`` (docs/internals.md#prescalemodelfleetsizing), all sizes in
    millicores and MiB; ``None`` if a pod's share of the room would be under 1m or 1Mi (a type too small, refused by
    the config checks)."""
    room_cpu, room_memory = math.floor(room[0] * 1000), math.floor(room[1] / MIB)
    per_node = max(math.ceil(room_cpu / max_cpu), math.ceil(room_memory / max_memory), 1)
    share_cpu, share_memory = room_cpu // per_node, room_memory // per_node  # what each pod may request
    if share_cpu < 1 or share_memory < 1:
        return None
    nodes = max(math.ceil(cpu / (per_node * share_cpu)), math.ceil(memory / (per_node * share_memory)), 1)
    return nodes * per_node


def pods_per_node(plan: PlaceholderPlan, room: tuple[Decimal, Decimal]) -> int:
    """How many of ``plan``'s pods one node with ``room`` (CPU cores, memory bytes) holds: at most one for
    ``nodes:`` windows."""
    (cpu, memory), (pod_cpu, pod_memory) = room, plan.requests
    fit = int(min(cpu // pod_cpu, memory // pod_memory))
    return min(fit, 1) if plan.one_per_node else max(fit, 0)
