"""Capacity reservations (``eventWindows[].reserve``) that could not work, or would be paid and never used.

What is refused, and why: docs/capacity.md#when-it-exists-and-what-it-costs ("Refused"); where the rules run:
docs/internals.md#prescalemodelchecksreservations.
"""

from __future__ import annotations

import difflib
from decimal import Decimal

from ..config import CONFIG_NAMESPACE, CapacityConfig, EventWindow, NodePoolConfig
from ..fleet.instances import InstanceType, instance_type, instance_types, pool_launchable
from ..fleet.requirements import pool_requirements
from ..fleet.reservations import reservation_zones, reserved_count
from ..fleet.sizing import plan_placeholders
from ..strategies import strategy_of
from ..values.labels import CAPACITY_TYPE, ZONE
from ..values.quantity import MIB, format_memory
from .pools import POOL_SHAPE
from .refused import Refused

# The fields the rules here read: they still run on a refused pool or window that has them (Refused.entries); a
# window's times are not among them (only whether its start is a date-time).
RESERVATION_POOL_FIELDS = POOL_SHAPE | {"strategy", "limits", "node_size", "max_pod_size"}
RESERVATION_WINDOW_FIELDS = {"node_pool", "start", "reserve", "nodes", "capacity"}


def reservation_problems(config: CapacityConfig, refused: Refused, region: str | None = None) -> list[str]:
    """Every problem of the windows' ``reserve`` settings (``refused``: the entries left out of ``config``);
    ``region``: the stack's, when known, for the zones."""
    pools = {pool.name: (index, pool) for index, pool in refused.entries("node_pools", config.node_pools,
                                                                         needs=RESERVATION_POOL_FIELDS)}
    sized = "placeholders" not in refused.sections  # the placeholders' sizes are known
    problems = []
    for index, window in refused.entries("event_windows", config.event_windows, needs=RESERVATION_WINDOW_FIELDS):
        if window.reserve is not None and window.node_pool in pools:  # an unknown pool is reported on its own
            path = f"{CONFIG_NAMESPACE}:eventWindows[{index}].reserve"
            problems += _window_problems(path, window, *pools[window.node_pool], config, region, sized)
    return problems


def _window_problems(path: str, window: EventWindow, pool_index: int, pool: NodePoolConfig, config: CapacityConfig,
                     region: str | None, sized: bool) -> list[str]:
    reserve = window.reserve
    assert reserve is not None
    shown = f"{{instanceType: {reserve.instance_type}, ...}}"
    if not window.is_one_off:
        return [f"{path}: {shown} on a recurring window (start {window.start!r}): a capacity reservation is for one "
                "event, billed every hour it exists and ended after the window; allowed: reserve on a one-off window "
                "(start and end as local date-times YYYY-MM-DDTHH:MM), or no reserve"]
    if pool.existing:
        return [f"{path}: {shown} on node pool {pool.name!r}, an existing pool (existing: true): its EC2NodeClass is "
                "its owner's, so prescale cannot make it select the reservation; allowed: a node pool prescale "
                "creates, or no reserve"]
    if pool.node_class_name is not None:
        return [f"{path}: {shown} on node pool {pool.name!r}, which uses the existing EC2NodeClass "
                f"{pool.node_class_name!r} (nodeClassName): prescale does not write it, so it cannot select the "
                "reservation by id; allowed: a node pool without nodeClassName, or no reserve"]
    instance = instance_type(reserve.instance_type)
    problems = (_type_problems(path, reserve.instance_type, instance, pool)
                or _capacity_type_problems(path, pool_index, pool)
                or _zone_problems(path, window, pool, region)
                or _static_count_problems(path, window, pool))
    if problems or instance is None or not sized:
        return problems
    return _fit_problems(path, window, instance, pool, config) or _limit_problems(path, window, instance, pool, config)


def _type_problems(path: str, name: str, instance: InstanceType | None, pool: NodePoolConfig) -> list[str]:
    if instance is None:
        close = difflib.get_close_matches(name, [known.name for known in instance_types()], n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        return [f"{path}.instanceType: {name!r} is not in Karpenter's instance-type list (v1.14){hint}; allowed: an "
                "EC2 instance type Karpenter launches"]
    launchable = [known.name for known in pool_launchable(pool).types]
    if name in launchable:
        return []
    close = difflib.get_close_matches(name, launchable, n=3) or launchable[:3]
    return [f"{path}.instanceType: {name!r} is not a type node pool {pool.name!r} can launch (its instanceCategories, "
            f"architectures and requirements leave it out), so Karpenter would never use the reservation; allowed: "
            f"a type the pool launches, such as {', '.join(close)}, or a pool that allows {name}"]


def _capacity_type_problems(path: str, pool_index: int, pool: NodePoolConfig) -> list[str]:
    for requirement in pool_requirements(pool):
        if requirement.key == CAPACITY_TYPE and not requirement.allows("reserved"):
            key = requirement.source if requirement.shorthand else f"{requirement.source}.values"
            return [f"{CONFIG_NAMESPACE}:nodePools[{pool_index}].{key}: {list(requirement.values)!r} leaves out "
                    f"reserved, which {path.removeprefix(CONFIG_NAMESPACE + ':')} needs: Karpenter launches into a "
                    "capacity reservation only for a NodePool whose karpenter.sh/capacity-type allows reserved; "
                    "allowed: add reserved, e.g. capacityTypes [on-demand, reserved] (the reservation first, "
                    "on-demand beyond it)"]
    return []


def _zone_problems(path: str, window: EventWindow, pool: NodePoolConfig, region: str | None) -> list[str]:
    zones = reservation_zones(window, pool)
    if not zones:
        example = region or "ap-northeast-2"
        return [f"{path}: no availabilityZones, and node pool {pool.name!r} has no {ZONE} In requirement to take "
                "them from: the zones of the pool's subnets are unknown before `pulumi up`, and a reservation in a "
                "zone without them is paid and never used; allowed: availabilityZones (zones of the pool's subnets, "
                f"e.g. [{example}a, {example}c]), or a requirement {{key: {ZONE}, operator: In, values: [...]}} on "
                "the pool"]
    given = window.reserve.availability_zones if window.reserve else None
    problems = []
    for index, zone in enumerate(given or ()):
        where = f"{path}.availabilityZones[{index}]"
        if region is not None and not zone.startswith(region):
            problems.append(f"{where}: {zone!r} is not a zone of the stack's region {region!r} (aws:region); "
                            f"allowed: a zone such as {region}a")
            continue
        refusing = next((r for r in pool_requirements(pool) if r.key == ZONE and not r.allows(zone)), None)
        if refusing is not None:
            problems.append(f"{where}: {zone!r} is outside the zones node pool {pool.name!r} launches in "
                            f"({refusing.describe()}), so the reservation there would never be used; allowed: "
                            "a zone the pool's requirements allow")
    return problems


def _static_count_problems(path: str, window: EventWindow, pool: NodePoolConfig) -> list[str]:
    """More reservations than a window holds nodes on a pool whose strategy holds exactly that many (static):
    Karpenter launches exactly ``nodes`` for it, so the rest are billed and never used (a placeholders window may
    launch more nodes than it holds placeholders, a static one not)."""
    count = window.reserve.count if window.reserve is not None else None
    if not strategy_of(pool).holds_nodes or count is None or window.nodes is None or count <= window.nodes:
        return []
    unused = count - window.nodes
    return [f"{path}.count: {count} reservations on static node pool {pool.name!r}, whose window holds "
            f"{window.nodes} nodes: Karpenter launches exactly those, so {unused} reservation{'s' * (unused != 1)} "
            f"would be billed and never used; allowed: at most {window.nodes} (reserve.count), or more nodes"]


def _fit_problems(path: str, window: EventWindow, instance: InstanceType, pool: NodePoolConfig,
                  config: CapacityConfig) -> list[str]:
    room_cpu, room_memory = instance.room
    if room_cpu < Decimal("0.001") or room_memory < MIB:
        return [f"{path}.instanceType: {instance.describe()} leaves no room for placeholders beside a node's "
                "DaemonSets (about 200m CPU and 256Mi); allowed: a larger type"]
    if window.nodes is None:
        return []  # capacity windows are split into pods that fit the type (prescale.model.fleet.sizing)
    size = config.placeholders_for(pool).node_size
    if instance.holds(*size.requests):
        return []
    return [f"{path}.instanceType: {instance.describe()} cannot hold a placeholder of the window's nodeSize "
            f"({size.cpu} CPU, {size.memory}), so its nodes could not be the reserved ones; allowed: a type with at "
            "least that much allocatable, or a smaller nodeSize"]


def _limit_problems(path: str, window: EventWindow, instance: InstanceType, pool: NodePoolConfig,
                    config: CapacityConfig) -> list[str]:
    """More reserved instances than the pool's limits let Karpenter launch at once: the rest would be paid unused."""
    reserve, limits = window.reserve, pool.limits
    if reserve is None or limits is None:
        return []
    try:
        count = reserved_count(window, plan_placeholders(window, config.placeholders_for(pool)))
    except ValueError:
        return []  # a maxPodSize too small to split the capacity: refused by prescale.model.checks.limits
    key = f"{path}.count" if reserve.count is not None else path
    per_instance = {"nodes": Decimal(1), "cpu": instance.capacity[0], "memory": instance.capacity[1]}  # as limits count
    for resource, per in per_instance.items():
        given, bound = getattr(limits, resource), limits.amount(resource)
        if bound is None or count * per <= bound:
            continue
        most = int(bound // per)
        return [f"{key}: {count} × {instance.name} ({_amount(resource, count * per)}) is above the limit "
                f"{resource} {given!r} of node pool {pool.name!r}, so Karpenter could never launch into all of them "
                f"and the rest would be paid unused; allowed: at most {most} instances (reserve.count), or a higher "
                f"{resource} limit"]
    return []


def _amount(resource: str, amount: Decimal) -> str:
    if resource == "memory":
        return format_memory(amount)
    return f"{amount} {'vCPUs' if resource == 'cpu' else 'nodes'}"
