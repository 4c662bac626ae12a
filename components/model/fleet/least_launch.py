"""The least a window's placeholders make Karpenter launch, counted the way NodePool ``limits`` count it.

Karpenter counts the *capacity* of the nodes it launches against a pool's limits, and one per node against
``nodes``, not the requests on them. Each figure here is a lower bound for any mix of the pool's instance types, so
a limit below one certainly leaves placeholders Pending. Why these bounds, with Karpenter's source:
docs/capacity.md#overlapping-windows-the-sum; how they are computed: docs/internals.md#prescalemodelfleetleast_launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache

from .instances import InstanceType, one_per_shape
from .sizing import PlaceholderPlan, pods_per_node

RESOURCES = ("cpu", "memory", "nodes")


@dataclass(frozen=True)
class Least:
    """The least one resource of the window's nodes adds up to (CPU cores, memory bytes or nodes), and the type that
    sets it: the least capacity per pod it holds, or for ``nodes`` the most pods per node."""

    amount: Decimal
    instance: InstanceType
    per_node: int  # the window's pods one node of ``instance`` holds beside DaemonSets


def least_launch(plan: PlaceholderPlan, types: tuple[InstanceType, ...]) -> dict[str, Least] | None:
    """Per resource of :data:`RESOURCES`, the least the nodes holding ``plan``'s pods add up to, over ``types`` (a
    pool's); ``None`` if no type holds one pod beside DaemonSets (:attr:`InstanceType.room`).

    A node of type t holds at most k(t) of the pods, so the nodes holding all ``pods`` have at least
    pods × min over t of capacity(t) / k(t), and number at least ⌈pods / max over t of k(t)⌉.
    """
    best = _best_types(replace(plan, pods=1), types)
    if best is None:
        return None
    least = {resource: Least(plan.pods * instance.capacity[position] / per_node, instance, per_node)
             for position, (resource, (instance, per_node)) in enumerate(zip(RESOURCES[:2], best[:2], strict=True))}
    instance, per_node = best[2]
    least["nodes"] = Least(Decimal(math.ceil(plan.pods / per_node)), instance, per_node)
    return least


@lru_cache(maxsize=256)  # keyed by a pod size and a pool's types: a stack has a few of each
def _best_types(pod: PlaceholderPlan, types: tuple[InstanceType, ...]) -> tuple[tuple[InstanceType, int], ...] | None:
    """The types (with the pods each holds) that set the least CPU, memory and nodes for one pod of ``pod``'s size;
    windows of one size on one pool share them. Ties go to the name, so that the type named is stable."""
    holding = [(instance, per_node) for instance in one_per_shape(types)
               if (per_node := pods_per_node(pod, instance.room))]
    if not holding:
        return None
    return (min(holding, key=lambda held: (held[0].capacity[0] / held[1], held[0].name)),
            min(holding, key=lambda held: (held[0].capacity[1] / held[1], held[0].name)),
            min(holding, key=lambda held: (-held[1], held[0].name)))
