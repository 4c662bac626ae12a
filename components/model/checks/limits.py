"""Capacity a node pool can never provide: refused with the window, the pool, the limit and the instant.

Part of the cross-key config checks (:mod:`prescale.model.checks.stack` calls them). Only what is certain is
refused; each count below is a lower bound of what Karpenter would have to launch:

Details: docs/internals.md (`prescale.model.checks.limits`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from ..config import CONFIG_NAMESPACE, CapacityConfig, CapacityRequest, EventWindow, Limits, NodePoolConfig
from ..fleet.instances import fit_problem, narrows, pool_launchable
from ..fleet.quantity import format_cpu, format_memory, parse_quantity
from ..fleet.requirements import pool_requirements
from ..fleet.sizing import PlaceholderPlan, plan_placeholders
from ..schedule.overlaps import boundaries
from ..schedule.time_zones import load_zone
from ..windows import Span
from .refused import Refused

_RESOURCES = ("cpu", "memory", "nodes")


_NAMED = 6  # windows named in one message; more are counted


@dataclass(frozen=True)
class _Demand:
    """What one window's placeholders hold at once on its pool."""

    index: int
    window: EventWindow
    plan: PlaceholderPlan

    @property
    def path(self) -> str:
        return f"{CONFIG_NAMESPACE}:eventWindows[{self.index}]"

    def amount(self, resource: str) -> Decimal:
        if resource == "nodes":  # only one-per-node placeholders certainly need nodes of their own
            return Decimal(self.plan.pods if self.plan.one_per_node else 0)
        return self.plan.pods * parse_quantity(getattr(self.plan, resource))


def limit_problems(config: CapacityConfig, spans: Mapping[int, list[Span]], refused: Refused) -> list[str]:
    """Every capacity problem; ``spans`` maps the index of each window whose timing is valid to its
    :func:`occupied_spans` (other windows get no overlap check); ``refused``: the entries left out of ``config``."""
    pools = {pool.name: (index, pool) for index, pool in refused.entries("node_pools", config.node_pools)}
    problems, demands = _plans(config, pools, refused)
    by_pool: dict[str, list[_Demand]] = defaultdict(list)
    for demand in demands:
        by_pool[demand.window.node_pool].append(demand)
    for name, pool_demands in by_pool.items():
        pool_index, pool = pools[name]
        if pool.owned:  # an existing pool's instance types are its owner's, unknown here
            problems += _size_problems(config, pool_index, pool, pool_demands)
        if pool.limits is None:
            continue
        alone = [_window_limit_problems(demand, pool_index, pool, pool.limits) for demand in pool_demands]
        problems += [problem for found in alone for problem in found]
        together = [demand for demand, found in zip(pool_demands, alone, strict=True)
                    if not found and demand.index in spans]
        problems += _overlap_problems(pool_index, pool, pool.limits, together, spans)
    return problems


def _plans(config: CapacityConfig, pools: Mapping[str, tuple[int, NodePoolConfig]],
           refused: Refused) -> tuple[list[str], list[_Demand]]:
    problems: dict[str, str] = {}  # one per maxPodSize that cannot split a capacity
    demands = []
    for index, window in refused.entries("event_windows", config.event_windows):
        if window.node_pool not in pools:
            continue  # reported with the pool names allowed, or its pool was refused
        placeholders = config.placeholders_for(window.node_pool)
        try:
            demands.append(_Demand(index, window, plan_placeholders(window, placeholders)))
        except ValueError as error:
            path = _size_path(*pools[window.node_pool], "maxPodSize")
            problems[path] = f"{CONFIG_NAMESPACE}:{path}: {_show_size(placeholders.max_pod_size)} {error}"
    return list(problems.values()), demands


def _size_path(pool_index: int, pool: NodePoolConfig, key: str) -> str:
    """Where the ``nodeSize``/``maxPodSize`` of windows on ``pool`` is set: the pool's own, or the stack-wide one."""
    own = getattr(pool, "node_size" if key == "nodeSize" else "max_pod_size") is not None
    return f"nodePools[{pool_index}].{key}" if own else f"placeholders.{key}"


def _window_limit_problems(demand: _Demand, pool_index: int, pool: NodePoolConfig, limits: Limits) -> list[str]:
    """One window alone above its pool's ``limits``."""
    window, problems = demand.window, []
    for resource in ("cpu", "memory"):
        limit = getattr(limits, resource)
        if limit is None:
            continue
        if window.capacity is not None:
            wanted = getattr(window.capacity, resource)
            if parse_quantity(wanted) > parse_quantity(limit):
                problems.append(f"{demand.path}.capacity.{resource}: {wanted!r} is above the limit {limit!r} of "
                                f"node pool {pool.name!r}; allowed: at most {limit!r} (raise the pool's limit)")
        elif window.nodes is not None and demand.amount(resource) > parse_quantity(limit):
            size, total = getattr(demand.plan, resource), demand.amount(resource)
            fitting = int(parse_quantity(limit) / parse_quantity(size))
            fewer = f"at most {_count(fitting)}, " if fitting else ""
            problems.append(f"{demand.path}.nodes: {_count(window.nodes)} × {_size_path(pool_index, pool, 'nodeSize')}"
                            f".{resource} {size!r} = {_show(resource, total)} is above the {resource} limit "
                            f"{limit!r} of node pool {pool.name!r}; allowed: {fewer}a smaller nodeSize, or a "
                            f"{resource} limit of at least {_show(resource, total, bare=True)}")
    if window.nodes is not None and limits.nodes is not None and window.nodes > limits.nodes:
        problems.append(f"{demand.path}.nodes: {window.nodes} is above the limit of {limits.nodes} nodes of "
                        f"node pool {pool.name!r}; allowed: 1 to {limits.nodes}")
    return problems


def _overlap_problems(pool_index: int, pool: NodePoolConfig, limits: Limits, demands: list[_Demand],
                      spans: Mapping[int, list[Span]]) -> list[str]:
    """Windows that together, at some instant of the coming year, hold more than a limit of their pool.

    Running totals over the windows' boundaries: each window alone is within the limits (checked before), so a
    total above one means two or more windows together, and the first instant is the one to report. Limits that
    even all the windows at once stay within need no sweep (the usual case, and free).
    """
    amounts = {demand.index: {resource: demand.amount(resource) for resource in _RESOURCES} for demand in demands}
    bounds = {}
    for resource in _RESOURCES:
        limit = getattr(limits, resource)
        if limit is not None and sum(amount[resource] for amount in amounts.values()) > parse_quantity(str(limit)):
            bounds[resource] = parse_quantity(str(limit))
    if not bounds:
        return []
    by_index = {demand.index: demand for demand in demands}
    totals = dict.fromkeys(bounds, Decimal(0))
    open_windows: dict[int, None] = {}  # an ordered set: by when they opened
    problems = []
    for instant, closing, opening in boundaries((begin, end, demand.index) for demand in demands
                                                for begin, end in spans[demand.index]):
        for index in closing:
            del open_windows[index]
            for resource in bounds:
                totals[resource] -= amounts[index][resource]
        for index in opening:
            open_windows[index] = None
            for resource in bounds:
                totals[resource] += amounts[index][resource]
        for resource in [resource for resource in bounds if totals[resource] > bounds[resource]]:
            problems.append(_overlap_problem(pool_index, pool, resource, totals[resource], instant,
                                             [by_index[index] for index in open_windows]))
            del bounds[resource]  # the first instant is enough to fix it
        if not bounds:
            break
    return problems


def _overlap_problem(pool_index: int, pool: NodePoolConfig, resource: str, total: Decimal, instant: int,
                     demands: list[_Demand]) -> str:
    held = [f"{demand.window.name!r} (eventWindows[{demand.index}], {_show(resource, demand.amount(resource))})"
            for demand in demands if demand.amount(resource)]
    if len(held) > _NAMED:
        held = held[:_NAMED - 1] + [f"{len(held) - _NAMED + 1} more"]
    zone = demands[0].window.timezone
    limit = getattr(pool.limits, resource)
    return (f"{CONFIG_NAMESPACE}:nodePools[{pool_index}].limits.{resource}: {limit!r} is below "
            f"the {_show(resource, total)} held together from {datetime.fromtimestamp(instant, UTC):%a %Y-%m-%d %H:%M} "
            f"UTC ({datetime.fromtimestamp(instant, load_zone(zone)):%H:%M %Z} in {zone}) by windows "
            f"{', '.join(held[:-1])} and {held[-1]} on node pool {pool.name!r} (windows on one pool add up, from "
            f"scale-up, lead time included, to end); allowed: a {resource} limit of at least "
            f"{_show(resource, total, bare=True)}, or windows that do not overlap")


def _size_problems(config: CapacityConfig, pool_index: int, pool: NodePoolConfig,
                   demands: list[_Demand]) -> list[str]:
    """Placeholders of the pool's windows that no instance type the pool can launch holds."""
    types = pool_launchable(pool).types
    if not types:
        return []  # the pool itself is refused (prescale.model.checks.pools)
    sizes = config.placeholders_for(pool.name)
    narrowing = ", ".join(requirement.describe() for requirement in pool_requirements(pool) if narrows(requirement))
    problems, seen = [], set()
    for demand in demands:
        key = "nodeSize" if demand.plan.one_per_node else "maxPodSize"
        cpu, memory = demand.plan.cpu, demand.plan.memory
        if (key, cpu, memory) in seen:
            continue
        seen.add((key, cpu, memory))
        problem = fit_problem(types, parse_quantity(cpu), parse_quantity(memory))
        if problem is None:
            continue
        if key == "nodeSize":
            value, pod = _show_size(sizes.node_size), "its placeholders"
        else:
            value = _show_size(sizes.max_pod_size)
            pod = f"its capacity in placeholders of {cpu} CPU / {memory}"
        problems.append(f"{CONFIG_NAMESPACE}:{_size_path(pool_index, pool, key)}: {value} {problem} (window "
                        f"{demand.window.name!r}, {demand.path}, holds {pod} on node pool {pool.name!r}: "
                        f"{narrowing})")
    return problems


def _show_size(size: CapacityRequest) -> str:
    return f"{{cpu: {size.cpu!r}, memory: {size.memory!r}}}"


def _count(nodes: int | Decimal) -> str:
    return f"{nodes} node{'s' * (nodes != 1)}"


def _show(resource: str, amount: Decimal, bare: bool = False) -> str:
    if resource == "nodes":
        return f"{amount}" if bare else _count(amount)
    if resource == "cpu":
        return format_cpu(amount) if bare else f"{format_cpu(amount)} CPU"
    return format_memory(amount) if bare else f"{format_memory(amount)} memory"
