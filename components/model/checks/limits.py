"""Capacity a node pool can never provide: refused with the window, the pool, the limit and the instant.

Part of the cross-key config checks (:mod:`prescale.model.checks.stack` calls them). Only what is certain is
refused: each figure is a lower bound of what the nodes Karpenter would have to launch count against the limits
(:mod:`prescale.model.fleet.least_launch`). How Karpenter counts limits, and what is refused:
docs/capacity.md#overlapping-windows-the-sum; how the checks run: docs/internals.md#prescalemodelcheckslimits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from ..config import CONFIG_NAMESPACE, CapacityConfig, CapacityRequest, EventWindow, Limits, NodePoolConfig
from ..fleet.instances import fit_problem, narrows, pool_launchable
from ..fleet.least_launch import RESOURCES, Least, least_launch
from ..fleet.requirements import pool_requirements
from ..fleet.sizing import PlaceholderPlan, plan_placeholders
from ..schedule.overlaps import boundaries
from ..strategies import strategy_of
from ..values.quantity import format_cpu, format_memory
from ..windows import Span
from .pools import POOL_SHAPE
from .refused import Refused

# The fields the rules here read: they still run on a refused pool or window that has them (Refused.entries), so a
# window alone above its pool's limits is refused in the same run as its misspelled time zone.
LIMIT_POOL_FIELDS = POOL_SHAPE | {"strategy", "limits", "node_size", "max_pod_size"}
_NAMED = 6  # windows named in one message; more are counted

# Two lower bounds of what windows together count against a limit (docs/capacity.md#overlapping-windows-the-sum):
# the capacity of the nodes of their one-per-node placeholders, which are distinct nodes; and every placeholder's
# requests.
_OWN_NODES, _REQUESTS = "own nodes", "requests"


@dataclass(frozen=True)
class _Demand:
    """What one window's placeholders hold at once on its pool, and the least its nodes count against the limits."""

    index: int
    window: EventWindow
    plan: PlaceholderPlan
    least: dict[str, Least] | None  # None: the pool's types are unknown (an existing pool) or none holds a pod

    @property
    def path(self) -> str:
        return f"{CONFIG_NAMESPACE}:eventWindows[{self.index}]"

    def counted(self, resource: str) -> Decimal:
        """The least the window's nodes alone count against ``resource``'s limit."""
        if self.least is not None:
            return self.least[resource].amount
        return self.requested(resource) if resource != "nodes" else Decimal(self.plan.pods * self.plan.one_per_node)

    def requested(self, resource: str) -> Decimal:
        """What its placeholders request together (no nodes: they may share nodes with other windows' pods)."""
        return Decimal(0) if resource == "nodes" else self.plan.pods * self.plan.requests[RESOURCES.index(resource)]

    def together(self, reading: str, resource: str) -> Decimal:
        """Its share of what windows count together, in one of the two readings (see :data:`_OWN_NODES`)."""
        if reading == _REQUESTS:
            return self.requested(resource)
        return self.counted(resource) if self.plan.one_per_node else Decimal(0)


def limit_problems(config: CapacityConfig, spans: Mapping[int, list[Span]], refused: Refused) -> list[str]:
    """Every capacity problem; ``spans`` maps the index of each window whose timing is valid to its
    :func:`~prescale.model.windows.occupied_spans` (other windows get no overlap check); ``refused``: the entries
    left out of ``config``."""
    pools = {pool.name: (index, pool) for index, pool in refused.entries("node_pools", config.node_pools,
                                                                         needs=LIMIT_POOL_FIELDS)}
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
    types = {name: pool_launchable(pool).types for name, (_, pool) in pools.items()
             if pool.owned and pool.limits is not None}  # an existing pool's types are its owner's
    for index, window in refused.entries("event_windows", config.event_windows, needs={"name", "node_pool", "nodes",
                                                                                       "capacity"}):
        if window.node_pool not in pools:
            continue  # reported with the pool names allowed, or its pool was refused
        if strategy_of(pools[window.node_pool][1]).holds_nodes and window.capacity is not None:
            continue  # a pool that holds whole nodes takes no requests: refused by its strategy
        placeholders = config.placeholders_for(pools[window.node_pool][1])
        try:
            plan = plan_placeholders(window, placeholders)
        except ValueError as error:
            path = _size_path(*pools[window.node_pool], "maxPodSize")
            problems[path] = f"{CONFIG_NAMESPACE}:{path}: {_show_size(placeholders.max_pod_size)} {error}"
            continue
        least = least_launch(plan, types[window.node_pool]) if window.node_pool in types else None
        demands.append(_Demand(index, window, plan, least))
    return list(problems.values()), demands


def _size_path(pool_index: int, pool: NodePoolConfig, key: str) -> str:
    """Where the ``nodeSize``/``maxPodSize`` of windows on ``pool`` is set: the pool's own, or the stack-wide one."""
    own = getattr(pool, "node_size" if key == "nodeSize" else "max_pod_size") is not None
    return f"nodePools[{pool_index}].{key}" if own else f"placeholders.{key}"


def _window_limit_problems(demand: _Demand, pool_index: int, pool: NodePoolConfig, limits: Limits) -> list[str]:
    """One window alone above its pool's ``limits``: one problem per limit, the least its nodes count above it."""
    problems = []
    for resource in RESOURCES:
        limit, bound = getattr(limits, resource), limits.amount(resource)
        if bound is None or demand.counted(resource) <= bound:
            continue
        if resource == "nodes" and demand.plan.one_per_node:
            problems.append(f"{demand.path}.nodes: {demand.window.nodes} is above the limit of {limit} nodes of "
                            f"node pool {pool.name!r}; allowed: 1 to {limit}")
        elif demand.plan.one_per_node:
            problems.append(_nodes_problem(demand, pool_index, pool, resource, limit, bound))
        else:
            problems.append(_capacity_problem(demand, pool, resource, limit, bound))
    return problems


def _nodes_problem(demand: _Demand, pool_index: int, pool: NodePoolConfig, resource: str, limit: str | int,
                   bound: Decimal) -> str:
    """A ``nodes:`` window whose nodes count more than a ``cpu`` or ``memory`` limit."""
    nodes, total, value = demand.plan.pods, demand.counted(resource), getattr(demand.plan, resource)
    size = f"{_size_path(pool_index, pool, 'nodeSize')}.{resource} {value!r}"
    above = f"the {resource} limit {limit!r} of node pool {pool.name!r}"
    if demand.least is None:  # an existing pool: its types are unknown, only the requests are certain
        each = demand.plan.requests[RESOURCES.index(resource)]
        why = f"× {size} = {_show(resource, total)} is above {above}"
    else:
        least = demand.least[resource]
        each = least.amount / nodes
        why = (f"holding {size} count{'s' * (nodes == 1)} at least {_show(resource, total)}, above {above}: "
               "NodePool limits count a node's capacity, and the least of any instance type the pool can launch that "
               f"holds one beside DaemonSets is {_show(resource, each)} ({least.instance.name})")
    fitting = int(bound / each)
    fewer = f"at most {_count(fitting)}, " if fitting else ""
    return (f"{demand.path}.nodes: {_count(nodes)} {why}; allowed: {fewer}a smaller nodeSize, or a {resource} limit "
            f"of at least {_show(resource, total, bare=True)}")


def _capacity_problem(demand: _Demand, pool: NodePoolConfig, resource: str, limit: str | int,
                      bound: Decimal) -> str:
    """A ``capacity:`` window whose nodes count more than a limit."""
    window, plan, total = demand.window, demand.plan, demand.counted(resource)
    assert window.capacity is not None
    if resource == "nodes":
        key, given = "capacity", f"{{cpu: {window.capacity.cpu!r}, memory: {window.capacity.memory!r}}}"
    else:
        key, given = f"capacity.{resource}", repr(getattr(window.capacity, resource))
    held = f"{given} (in {plan.pods} pod{'s' * (plan.pods != 1)} of {plan.cpu} CPU / {plan.memory})"
    above = f"the {resource} limit {limit!r} of node pool {pool.name!r}"
    fits = ""
    if demand.least is None:  # an existing pool: its types are unknown, only the requests are certain
        why = f"requests {_show(resource, total)}, above {above}"
    elif resource == "nodes":
        least = demand.least[resource]
        why = (f"needs at least {_count(total)}, above {above}: a node holds at most {least.per_node} of the pods "
               f"({least.instance.name})")
    else:
        least = demand.least[resource]
        capacity = least.instance.capacity[RESOURCES.index(resource)]
        why = (f"counts at least {_show(resource, total)}, above {above}: NodePool limits count a node's capacity, "
               f"and a node holds the pods at best {least.per_node} per {_show(resource, capacity)} "
               f"({least.instance.name})")
        nodes = int(bound / capacity)
        fits = f" (at most {_count(nodes)} of {least.instance.name} fit{'s' * (nodes == 1)} the limit)" if nodes else ""
    return (f"{demand.path}.{key}: {held} {why}; allowed: a {resource} limit of at least "
            f"{_show(resource, total, bare=True)}, or less capacity{fits}")


def _overlap_problems(pool_index: int, pool: NodePoolConfig, limits: Limits, demands: list[_Demand],
                      spans: Mapping[int, list[Span]]) -> list[str]:
    """Windows that together, at some instant of the coming year, count more than a limit of their pool.

    Running totals of both readings over the windows' boundaries: each window alone is within the limits (checked
    before), so a total above one means two or more windows together, and the first instant is the one to report.
    Limits that even all the windows at once stay within need no sweep (the usual case, and free).
    """
    readings = (_OWN_NODES, _REQUESTS)
    amounts = {demand.index: {(reading, resource): demand.together(reading, resource)
                              for reading in readings for resource in RESOURCES} for demand in demands}
    bounds = {resource: bound for resource in RESOURCES if (bound := limits.amount(resource)) is not None
              and any(sum(amount[reading, resource] for amount in amounts.values()) > bound for reading in readings)}
    if not bounds:
        return []
    by_index = {demand.index: demand for demand in demands}
    totals = {(reading, resource): Decimal(0) for reading in readings for resource in bounds}
    open_windows: dict[int, None] = {}  # an ordered set: by when they opened
    problems = []
    for instant, closing, opening in boundaries((begin, end, demand.index) for demand in demands
                                                for begin, end in spans[demand.index]):
        for index in closing:
            del open_windows[index]
            for key in totals:
                totals[key] -= amounts[index][key]
        for index in opening:
            open_windows[index] = None
            for key in totals:
                totals[key] += amounts[index][key]
        for reading, resource in [key for key in totals if key[1] in bounds and totals[key] > bounds[key[1]]]:
            if resource in bounds:  # the first reading above it is enough to fix it
                problems.append(_overlap_problem(pool, pool_index, reading, resource, totals[reading, resource],
                                                 instant, [by_index[index] for index in open_windows]))
                del bounds[resource]
        if not bounds:
            break
    return problems


def _overlap_problem(pool: NodePoolConfig, pool_index: int, reading: str, resource: str, total: Decimal,
                     instant: int, demands: list[_Demand]) -> str:
    held = [f"{demand.window.name!r} (eventWindows[{demand.index}], {_show(resource, share)})"
            for demand in demands if (share := demand.together(reading, resource))]
    if len(held) > _NAMED:
        held = held[:_NAMED - 1] + [f"{len(held) - _NAMED + 1} more"]
    windows = f"windows {', '.join(held[:-1])} and {held[-1]}"
    window = demands[0].window
    limit = getattr(pool.limits, resource)
    when = (f"from {datetime.fromtimestamp(instant, UTC):%a %Y-%m-%d %H:%M} UTC "
            f"({datetime.fromtimestamp(instant, window.zone):%H:%M %Z} in {window.timezone})")
    if reading == _REQUESTS:
        what, why = f"the {_show(resource, total)} that {windows} request together {when}", ""
    elif resource == "nodes":
        what, why = f"the {_show(resource, total)} that {windows} hold together {when}", ""
    else:
        what = f"the {_show(resource, total)} of capacity that {windows} count at least together {when}"
        why = "their one-per-node placeholders each take a node, and NodePool limits count a node's capacity; "
    return (f"{CONFIG_NAMESPACE}:nodePools[{pool_index}].limits.{resource}: {limit!r} is below {what} on node pool "
            f"{pool.name!r} ({why}windows on one pool add up, from scale-up, lead time included, to end); allowed: a "
            f"{resource} limit of at least {_show(resource, total, bare=True)}, or windows that do not overlap")


def _size_problems(config: CapacityConfig, pool_index: int, pool: NodePoolConfig,
                   demands: list[_Demand]) -> list[str]:
    """Placeholders of the pool's windows that no instance type the pool can launch holds."""
    types = pool_launchable(pool).types
    if not types:
        return []  # the pool itself is refused (prescale.model.checks.pools)
    sizes = config.placeholders_for(pool)
    narrowing = ", ".join(requirement.describe() for requirement in pool_requirements(pool) if narrows(requirement))
    problems, seen = [], set()
    for demand in demands:
        key = "nodeSize" if demand.plan.one_per_node else "maxPodSize"
        cpu, memory = demand.plan.cpu, demand.plan.memory
        if (key, cpu, memory) in seen:
            continue
        seen.add((key, cpu, memory))
        problem = fit_problem(types, *demand.plan.requests)
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
