"""Zones a node pool's requirements name outside the stack's region: no node would ever launch there.

A ``topology.kubernetes.io/zone`` In requirement listing such a zone is refused (the rule is
:func:`prescale.model.fleet.zones.zone_region_problem`); a zone of the region that AWS does not list is only warned,
by the plan (:class:`prescale.model.plan.PoolPlan`), since accounts see zones differently.
"""

from __future__ import annotations

from ..config import CONFIG_NAMESPACE, CapacityConfig
from ..fleet.zones import zone_region_problem
from ..values.labels import ZONE
from .refused import Refused


def zone_problems(config: CapacityConfig, refused: Refused, region: str) -> list[str]:
    """Every zone of a pool's ``topology.kubernetes.io/zone`` In requirement that is not in ``region``."""
    problems = []
    for index, pool in refused.entries("node_pools", config.node_pools, needs={"requirements"}):
        for at, requirement in enumerate(pool.requirements):
            if requirement.key != ZONE or requirement.operator != "In":
                continue
            path = f"{CONFIG_NAMESPACE}:nodePools[{index}].requirements[{at}].values"
            problems += [f"{path}[{value}]: {zone!r} {problem}" for value, zone in enumerate(requirement.values)
                         if (problem := zone_region_problem(zone, region))]
    return problems
