"""What each event window becomes right now: armed, with what its pool's strategy deploys for it
(:mod:`.strategies`), its freeze and its pods' shape, or idle, with the reason.

Pure (no Pulumi): the decision depends on the window, its pool, the placeholder settings and ``now``, so it is
tested directly and the components only render it. What the user sees: docs/capacity.md#one-off-windows; how it
decides: docs/internals.md#prescalemodelwindows.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from .config import CapacityConfig, EventWindow, NodePoolConfig, PlaceholderConfig
from .fleet.addresses import WindowAddresses, window_addresses
from .fleet.reservations import ReservationPlan, plan_reservation
from .fleet.sizing import PlaceholderPlan, plan_placeholders
from .schedule.freezes import Freeze, one_off_freeze, recurring_freeze
from .schedule.keda import Occurrence, occurrence_instants, one_off, one_off_problem, recurring_occurrences
from .strategies import Capacity, Strategy, strategy_of
from .strategies.placeholders import PLACEHOLDERS
from .values.cron import epoch_seconds

# An ended one-off this long ago is pointed at `prescale prune`, which removes it from the stack file.
STALE_AFTER = timedelta(days=7)


@dataclass(frozen=True)
class ArmedWindow:
    """A window to deploy now, whatever its pool's strategy: what the strategy deploys for it (``capacity``: KEDA's
    cron pair and failsafe for placeholders, a static NodePool or a CapacityBuffer and their driver), its UTC freeze,
    the pod shape its nodes are sized for and, for a one-off, its only occurrence and its capacity reservations."""

    window: EventWindow
    strategy: Strategy
    capacity: Capacity
    freeze: Freeze | None  # None on a pool prescale does not own: its budgets are not ours
    placeholders: PlaceholderPlan  # nodes: N pods of nodeSize, one per node; capacity: pods no bigger than maxPodSize
    occurrence: Occurrence | None = None  # a one-off's only occurrence
    reservation: ReservationPlan | None = None  # a one-off's capacity reservations (`reserve`), held now or not

    @property
    def warnings(self) -> tuple[str, ...]:
        repeats = one_off_repeat_warning(self)
        return ((f"event window {self.window.name!r}: {repeats}",) if repeats else ()) + _reservation_warnings(self)


@dataclass(frozen=True)
class IdleWindow:
    """A window with nothing to deploy now, and why (shown to the user as a warning)."""

    window: EventWindow
    strategy: Strategy
    reason: str
    occurrence: Occurrence  # only one-offs go idle: their only occurrence
    placeholders: PlaceholderPlan  # what it would hold once armed
    reservation: ReservationPlan | None = None  # what it will reserve once armed, or just ended (never held)

    @property
    def warnings(self) -> tuple[str, ...]:
        return (f"event window {self.window.name!r}: {self.reason}",) + _reservation_warnings(self)


WindowPlan = ArmedWindow | IdleWindow


def occurrences_between(plan: WindowPlan, since: datetime, until: datetime, now: datetime) -> list[Occurrence]:
    """The window's occurrences whose ``[scale_up, end)`` meets ``[since, until)``; a finished one-off has none."""
    window, occurrence = plan.window, plan.occurrence
    if occurrence is None:
        return recurring_occurrences(window.start, window.end, window.timezone, window.lead, since, until)
    if occurrence.end_utc <= max(since, now) or occurrence.scale_up_utc >= until:
        return []
    return [occurrence]


def _reservation_warnings(plan: WindowPlan) -> tuple[str, ...]:
    return plan.reservation.warnings if plan.reservation else ()


def plan_windows(config: CapacityConfig, now: datetime) -> list[WindowPlan]:
    """Every configured window, planned at ``now`` with its pool's placeholder sizes; windows on existing pools ask
    for no freeze."""
    return [plan_window(window, config.placeholders_for(window.node_pool), now,
                        freeze=config.node_pool(window.node_pool).owned, pool=config.node_pool(window.node_pool))
            for window in config.event_windows]


def plan_window(window: EventWindow, placeholders: PlaceholderConfig, now: datetime,
                freeze: bool = True, pool: NodePoolConfig | None = None) -> WindowPlan:
    """Arm ``window`` at ``now`` (an aware datetime), or say why it stays idle (docs/capacity.md#one-off-windows).

    ``freeze``: whether the window's pool is prescale's, so that its consolidation freeze is computed. ``pool``: the
    window's pool, whose strategy decides what it deploys (placeholders without it) and needed to plan its capacity
    reservations (``reserve``; none are planned without it).
    """
    strategy: Strategy = strategy_of(pool) if pool is not None else PLACEHOLDERS
    plan = plan_placeholders(window, placeholders)
    occurrence, reservation = None, None
    if window.is_one_off:
        occurrence = one_off(window)
        idle = _idle_reason(occurrence, window, now)
        if idle:
            return IdleWindow(window, strategy, idle, occurrence, plan,
                              _reservation(window, pool, strategy, plan, now, armed=False))
        budget = one_off_freeze(occurrence) if freeze else None
        reservation = _reservation(window, pool, strategy, plan, now, armed=True)
    else:  # the config checks proved the freeze can be written
        budget = recurring_freeze(window.start, window.end, window.timezone, window.lead, now) if freeze else None
    capacity = strategy.plan(window, pool, plan, placeholders.grace, occurrence, now)
    return ArmedWindow(window, strategy, capacity, budget, plan, occurrence, reservation)


def _idle_reason(occurrence: Occurrence, window: EventWindow, now: datetime) -> str | None:
    """Why a one-off deploys nothing at ``now``: it is over, or more than a year ahead (its dated crons have no
    year); ``None`` when it is armed."""
    if now >= occurrence.end_utc:
        stale = (", over a week ago: `prescale prune --write` removes it and the other ended ones"
                 if now - occurrence.end_utc > STALE_AFTER else "")
        return (f"one-off event ended at {occurrence.end:%Y-%m-%d %H:%M %Z} ({window.timezone}); nothing is deployed "
                f"for it (its dated crons would fire again next year); remove it from prescale:eventWindows{stale}")
    problem = one_off_problem(occurrence, now)
    if problem:
        return (f"one-off event is not armed yet: {problem}. It is deployed by the first `pulumi up` less than a "
                "year before it.")
    return None


def _reservation(window: EventWindow, pool: NodePoolConfig | None, strategy: Strategy, plan: PlaceholderPlan,
                 now: datetime, armed: bool) -> ReservationPlan | None:
    if pool is None:
        return None
    return plan_reservation(window, pool, plan, now, armed, strategy.usual_tail(pool), strategy.own_node_pools)


def one_off_repeat_warning(armed: ArmedWindow) -> str | None:
    """For a one-off window whose pool prescale freezes, why a ``pulumi up`` after the event matters; ``None``
    for a recurring one, one on a pool prescale does not own (no freeze of ours to come back), or one with its own
    NodePool (which is at 0 nodes once the event is over)."""
    window, freeze = armed.window, armed.freeze
    if armed.occurrence is None or freeze is None or armed.strategy.own_node_pools:
        return None
    end = armed.occurrence.end
    return (f"one-off event: its consolidation freeze on node pool {window.node_pool!r} (UTC budget "
            f"{freeze.schedule!r} for {freeze.duration}) has no year, so it freezes the pool again on the same "
            "date every year until a `pulumi up` after the event removes it; run `pulumi up` after "
            f"{end:%Y-%m-%d %H:%M %Z} ({window.timezone})")


def requested_freezes(plans: list[WindowPlan]) -> dict[str, list[Freeze]]:
    """The consolidation freezes each node pool's deployed windows ask for (before fitting them into 50)."""
    freezes: dict[str, list[Freeze]] = defaultdict(list)
    for plan in plans:
        if isinstance(plan, ArmedWindow) and plan.freeze is not None:
            freezes[plan.window.node_pool].append(plan.freeze)
    return dict(freezes)


_YEAR = timedelta(days=366)  # the year every check walks (so the occurrences come from their cache)
Span = tuple[int, int]  # an occurrence's [scale_up, end) in epoch seconds


def occupied_spans(window: EventWindow, now: datetime) -> list[Span]:
    """When ``window`` holds placeholders over the coming year (recurring occurrences are cached, as the window's
    time checks asked for the same ones)."""
    scale_ups: Sequence[int]
    ends: Sequence[int]
    if window.is_one_off:
        occurrence = one_off(window)
        scale_ups, ends = [epoch_seconds(occurrence.scale_up)], [epoch_seconds(occurrence.end)]
    else:
        occurrences = occurrence_instants(window.start, window.end, window.timezone, window.lead, now, now + _YEAR)
        scale_ups, ends = occurrences.scale_ups, occurrences.ends
    # Occurrences follow one another, so those ending after now and starting before the year's end are a run of
    # them (found by bisection, not one by one: a year of daily occurrences per window).
    held = slice(bisect_right(ends, epoch_seconds(now)), bisect_left(scale_ups, epoch_seconds(now + _YEAR)))
    return list(zip(scale_ups[held], ends[held], strict=True))


def address_demand(plans: Sequence[WindowPlan], pools: Mapping[str, NodePoolConfig], names: Collection[str],
                   prefixes: bool, armed_only: bool = False) -> list[WindowAddresses]:
    """What each window of ``plans`` (every configured window, in config order) on the pools ``names`` holds in
    their subnets while it is open, from its planned placeholders (:func:`prescale.model.fleet.addresses.
    window_addresses`): every window's, or only those deployed now. ``prefixes``: EKS Auto Mode's /28 prefixes,
    else the VPC CNI's interfaces (the platform decides which)."""
    found = (window_addresses(index, plan.window, plan.placeholders, pools[plan.window.node_pool], prefixes)
             for index, plan in enumerate(plans)
             if plan.window.node_pool in names and (not isinstance(plan, IdleWindow) or not armed_only))
    return [held for held in found if held is not None]
