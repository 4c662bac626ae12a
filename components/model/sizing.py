"""How many placeholder pods a window needs, and what each one requests: pure arithmetic, no Pulumi.

A placeholder's requests are *room kept free for real pods*: Kubernetes schedules by requests, so a pause
pod requesting 4 CPU / 16 GiB holds exactly that much allocatable space until a real pod preempts it.
Karpenter sizes instances for pending pods the same way, after subtracting what it knows every node
loses: kubelet/system reservations, the eviction threshold, VM overhead and the requests of the
DaemonSets that will run there. So requests need no overhead margin of their own: a placeholder of
``max_pod_size`` gets a node whose *allocatable room after DaemonSets* fits it. The flip side is that
``max_pod_size`` (and ``node_size``) must fit on the pool's largest instance type after that overhead,
or the placeholder stays Pending.

* ``nodes: N`` → N pods of ``node_size``, one per node (required hostname anti-affinity):
  N nodes each with at least that much free room.
* ``capacity: {cpu, memory}`` → the fewest equal pods no bigger than ``max_pod_size`` whose
  requests add up to at least the capacity: ``n = max(⌈cpu / max cpu⌉, ⌈memory / max memory⌉)`` (counted in
  whole millicores and MiB), each requesting ``cpu / n`` and ``memory / n`` rounded *up* to a millicore and
  a MiB, so the total never falls short and exceeds the capacity by under 1m CPU and 1 MiB per pod. Equal
  pods pack evenly, and Karpenter is free to put several on one node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .config import EventWindow, PlaceholderConfig
from .quantity import MIB, format_cpu, format_memory, parse_quantity



@dataclass(frozen=True)
class PlaceholderPlan:
    """What a window's placeholder Deployment runs at the window's peak."""

    pods: int
    cpu: str  # requests of each pod, as Kubernetes quantities
    memory: str
    one_per_node: bool  # `nodes:` windows: each pod on its own node


def plan_placeholders(window: EventWindow, placeholders: PlaceholderConfig) -> PlaceholderPlan:
    """The placeholder pods for ``window`` (see the module docstring for the sizing rules), with the settings of
    its pool (:meth:`prescale.model.config.CapacityConfig.placeholders_for`)."""
    if window.nodes is not None:
        return PlaceholderPlan(pods=window.nodes, cpu=placeholders.node_size.cpu,
                               memory=placeholders.node_size.memory, one_per_node=True)
    assert window.capacity is not None  # the config model guarantees exactly one of nodes/capacity
    # Whole millicores and MiB: the units requests are rounded to.
    cpu = parse_quantity(window.capacity.cpu) * 1000
    memory = parse_quantity(window.capacity.memory) / MIB
    max_cpu = math.floor(parse_quantity(placeholders.max_pod_size.cpu) * 1000)
    max_memory = math.floor(parse_quantity(placeholders.max_pod_size.memory) / MIB)
    if max_cpu < 1 or max_memory < 1:
        raise ValueError("must be at least 1m CPU and 1Mi memory to split a capacity into pods")
    # ⌈total / pods⌉ ≤ max  ⇔  pods ≥ total / max, so this is the fewest pods that fit after rounding up.
    pods = max(math.ceil(cpu / max_cpu), math.ceil(memory / max_memory), 1)
    return PlaceholderPlan(pods=pods, cpu=format_cpu(cpu / pods / 1000), memory=format_memory(memory / pods * MIB),
                           one_per_node=False)
