"""When each window's capacity is up in a date range, where windows overlap, and when consolidation is frozen.

All time maths is :mod:`prescale.model.schedule`'s and every deployment decision the
:class:`~prescale.model.plan.CapacityPlan`'s (what the program deploys at ``now``, the same object the components
render); this module only asks them about a range and lines the answers up, with when a driven window's
driver CronJobs fire for each occurrence (docs/internals.md#prescale_clitimeline).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from prescale.model.config import EventWindow
from prescale.model.fleet.sizing import PlaceholderPlan
from prescale.model.plan import CapacityPlan
from prescale.model.schedule.drivers import DriverRun, DriverSchedule
from prescale.model.schedule.freezes import Freeze, frozen_between
from prescale.model.schedule.keda import Occurrence
from prescale.model.schedule.overlaps import coinciding
from prescale.model.strategies import Capacity, Strategy
from prescale.model.strategies.placeholders import PLACEHOLDERS
from prescale.model.windows import ArmedWindow, IdleWindow, WindowPlan, occurrences_between
from prescale.names import node_pool_object_name

Interval = tuple[datetime, datetime]  # [from, until) in UTC


@dataclass(frozen=True)
class DriverFire:
    """When one CronJob of a driven window's driver fires for one occurrence, and the count it sets."""

    run: DriverRun
    at: datetime  # in the window's zone

    @property
    def at_utc(self) -> datetime:
        return self.at.astimezone(UTC)


@dataclass(frozen=True)
class Entry:
    """One occurrence of one window, with what it holds and the freeze that protects it."""

    window: EventWindow
    occurrence: Occurrence
    placeholders: PlaceholderPlan
    freeze: Interval | None
    not_armed: str | None = None  # why the program deploys nothing for it yet (a one-off far ahead)
    # On a NodePool prescale does not own: no freeze, its placeholders carry `karpenter.sh/do-not-disrupt`.
    existing_pool: bool = False
    strategy: Strategy = PLACEHOLDERS  # its pool's
    capacity: Capacity | None = None  # what its strategy deploys for it, once armed
    driver: tuple[DriverFire, DriverFire, DriverFire] | None = None  # its scale-up, scale-down, failsafe here


@dataclass(frozen=True)
class Overlap:
    """A stretch where several windows hold placeholders on one NodePool at once."""

    node_pool: str
    start: datetime  # UTC
    end: datetime
    windows: tuple[str, ...]
    pods: int
    cpu: Decimal  # cores requested together
    memory: Decimal  # bytes requested together


@dataclass(frozen=True)
class PoolFreeze:
    """A ``nodes: "0"`` budget as one NodePool gets it: its pool's own NodePool, or a static window's."""

    node_pool: str  # the pool's config name
    node_pool_object: str  # the NodePool that carries it
    freeze: Freeze


@dataclass(frozen=True)
class Timeline:
    since: datetime
    until: datetime
    now: datetime
    entries: list[Entry]  # by scale-up instant
    overlaps: list[Overlap]
    freezes: list[PoolFreeze]  # every fitted `nodes: "0"` budget, by pool
    frozen: dict[str, list[Interval]]  # pool name → when its NodePool's budgets are active around the range (united)
    plan: CapacityPlan  # what the program deploys for each window and pool at `now`


def build_timeline(plan: CapacityPlan, since: datetime, until: datetime) -> Timeline:
    """Everything ``prescale schedule`` shows for ``[since, until)``, as the program deploys it at ``plan.now``."""
    now = plan.now
    freezes = pool_freezes(plan)
    frozen = {pool: frozen_between(plan.pools[pool].freezes, since, until)
              for pool in dict.fromkeys(budget.node_pool for budget in freezes)
              if not plan.pools[pool].strategy.own_node_pools}
    entries = []
    for window_plan in plan.windows:
        window, pool = window_plan.window, plan.pools[window_plan.window.node_pool]
        existing, strategy = not pool.pool.owned, pool.strategy
        own = _own_freeze(window_plan, since, until)
        capacity = window_plan.capacity if isinstance(window_plan, ArmedWindow) else None
        driver = capacity.driver if capacity is not None else None
        for occurrence in occurrences_between(window_plan, since, until, now):
            if isinstance(window_plan, IdleWindow):
                entries.append(Entry(window, occurrence, window_plan.placeholders, None, not_armed=window_plan.reason,
                                     existing_pool=existing, strategy=strategy))
                continue
            freeze = _covering(own if own is not None else frozen.get(window.node_pool, []), occurrence)
            entries.append(Entry(window, occurrence, window_plan.placeholders, freeze, existing_pool=existing,
                                 strategy=strategy, capacity=capacity,
                                 driver=driver_fires(driver, occurrence) if driver is not None else None))
    entries.sort(key=lambda entry: (entry.occurrence.scale_up_utc, entry.window.name))
    return Timeline(since, until, now, entries, overlaps(entries), freezes, frozen, plan)


def pool_freezes(plan: CapacityPlan) -> list[PoolFreeze]:
    """Every pool's fitted budgets on the NodePool that gets them: a window with its own NodePool (static) has its
    freeze there."""
    found = []
    for name, pool in plan.pools.items():
        if not pool.strategy.own_node_pools:
            found += [PoolFreeze(name, node_pool_object_name(name), freeze) for freeze in pool.freezes]
            continue
        found += [PoolFreeze(name, own, armed.freeze) for armed in plan.armed
                  if armed.window.node_pool == name and (own := armed.capacity.node_pool_object) is not None
                  and armed.freeze is not None]
    return found


def _own_freeze(plan: WindowPlan, since: datetime, until: datetime) -> list[Interval] | None:
    """The freeze of a window's own NodePool (static), active around the range; None for a window on its pool's
    NodePool."""
    if isinstance(plan, ArmedWindow) and plan.capacity.node_pool_object is not None and plan.freeze is not None:
        return frozen_between([plan.freeze], since, until)
    return None


def driver_fires(driver: DriverSchedule, occurrence: Occurrence) -> tuple[DriverFire, DriverFire, DriverFire]:
    """The driver's scale-up, scale-down and failsafe for ``occurrence`` (:meth:`DriverSchedule.fires_for`)."""
    up, down, failsafe = driver.fires_for(occurrence)
    return DriverFire(driver.up, up), DriverFire(driver.down, down), DriverFire(driver.failsafe, failsafe)


def _covering(frozen: list[Interval], occurrence: Occurrence) -> Interval | None:
    """The united interval holding the whole occurrence: the last one starting by its scale-up, if it lasts."""
    index = bisect_right(frozen, occurrence.scale_up_utc, key=lambda interval: interval[0]) - 1
    return frozen[index] if index >= 0 and occurrence.end_utc <= frozen[index][1] else None


def overlaps(entries: list[Entry]) -> list[Overlap]:
    """Maximal stretches where two or more windows' placeholders are up on the same NodePool (one sweep)."""
    by_pool: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        by_pool[entry.window.node_pool].append(entry)
    return [_overlap(pool, start, end, active) for pool, pool_entries in sorted(by_pool.items())
            for start, end, active in coinciding((entry.occurrence.scale_up_utc, entry.occurrence.end_utc, entry)
                                                 for entry in pool_entries)]


def _overlap(pool: str, start: datetime, end: datetime, active: tuple[Entry, ...]) -> Overlap:
    plans = [entry.placeholders for entry in active]
    return Overlap(pool, start, end, tuple(entry.window.name for entry in active),
                   pods=sum(plan.pods for plan in plans),
                   cpu=sum((plan.pods * plan.requests[0] for plan in plans), Decimal(0)),
                   memory=sum((plan.pods * plan.requests[1] for plan in plans), Decimal(0)))
