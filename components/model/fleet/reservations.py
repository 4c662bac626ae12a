"""Capacity reservations of a one-off window (``reserve``): whether this run holds them, how many, where, until when.

A targeted On-Demand Capacity Reservation is billed every hour it exists, used or not. So a window's reservations are
declared only by a ``pulumi up`` from ``reserve.holdFrom`` before its scale-up until the window ends, and each ends
(EC2's ``limited`` end date) at the window's end plus the tail its nodes stay on its pool's strategy
(``Strategy.usual_tail``: a minute on a static pool, whose NodePool goes to 0 at the end); the pool then holds
Karpenter's drift replacement of the nodes still in them (:attr:`ReservationPlan.drift_hold`) until EC2 has moved
them out. Pure: the capacity wing renders the plan (:mod:`prescale.capacity.reservations`). The reasons and costs:
docs/capacity.md#capacity-reservations-for-one-off-events.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from ..config import EventWindow, NodePoolConfig
from ..schedule.freezes import Freeze, dated_freeze
from ..schedule.keda import one_off
from ..values.duration import format_duration
from ..values.labels import ZONE
from .instances import instance_type
from .sizing import PlaceholderPlan, pods_per_node

# What EC2's capacity reservation ids look like ("cr-" and 17 hex digits, e.g. cr-0123456789abcdef0); Karpenter's
# CRD takes any `cr-[0-9a-z]+`, and finds nothing by an id EC2 never gave.
EC2_RESERVATION_ID = re.compile(r"cr-[0-9a-f]{17}")

# EC2 ends a `limited` reservation within an hour after its end date; the instances still in it run on, outside it
# (EC2 API Reference, CreateCapacityReservation `EndDate`; EC2 User Guide, "Work with Capacity Reservations").
EC2_ENDS_WITHIN = timedelta(hours=1)
# Karpenter re-checks a NodeClaim's drift every 5 minutes (kubernetes-sigs/karpenter v1.14.1,
# pkg/controllers/nodeclaim/disruption/drift.go): two re-checks clear a Drifted condition set before EC2 let go.
DRIFT_RECHECKS = 2 * timedelta(minutes=5)

@dataclass(frozen=True)
class ZoneShare:
    """One reservation: ``count`` instances in availability zone ``zone``."""

    zone: str
    count: int


@dataclass(frozen=True)
class ReservationPlan:
    """A one-off window's reservations (one per zone), the instants that bound them, and whether this run holds them."""

    window: EventWindow
    instance_type: str
    zones: tuple[ZoneShare, ...]
    hold_from: datetime  # UTC: the earliest `pulumi up` that creates them (reserve.holdFrom before the scale-up)
    scale_up: datetime  # UTC
    window_end: datetime  # UTC
    end: datetime  # UTC: their end date, the window's end plus its nodes' tail
    held: bool  # declared by a run at the plan's `now`
    ended: bool = False  # the window is over at `now`: none declared, the drift hold still stands
    # A static pool's window NodePool goes to 0 at the end, its nodes with it (no drift of its nodes to hold).
    static: bool = False

    @property
    def count(self) -> int:
        return sum(share.count for share in self.zones)

    @property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(share.zone for share in self.zones)

    @property
    def released(self) -> datetime:
        """When no node is in them any more as Karpenter sees it: EC2's hour after the end date, and two drift
        re-checks (UTC)."""
        return self.end + EC2_ENDS_WITHIN + DRIFT_RECHECKS

    @property
    def drift_hold(self) -> Freeze:
        """A budget for the pool, from the window's end until :attr:`released`, that stops Karpenter replacing the
        nodes still in them: it drops a reservation at its end date and drifts its nodes
        (``CapacityReservationDrift``) while EC2 still counts them in it (docs/capacity.md)."""
        return dated_freeze(self.window_end, self.released)

    @property
    def holds_drift(self) -> bool:
        """Whether the pool carries :attr:`drift_hold` at the plan's ``now``: while they are held, or just ended."""
        return not self.static and (self.held or self.ended)

    def describe(self) -> str:
        """``3 × m7i.xlarge (ap-northeast-2a: 2, ap-northeast-2c: 1)``."""
        return (f"{self.count} × {self.instance_type} "
                f"({', '.join(f'{share.zone}: {share.count}' for share in self.zones)})")

    @property
    def warnings(self) -> tuple[str, ...]:
        name, zone, pool = self.window.name, self.window.zone, self.window.node_pool
        kept = (f"nodes still in them keep running, billed on-demand, and node pool {pool!r} holds Karpenter's "
                f"replacement of them (CapacityReservationDrift) until {_at(self.released, zone)}, past the hour "
                "EC2 takes to move them out") if not self.static else (
                f"the window's static NodePool on node pool {pool!r} is back at 0 nodes from the end (its driver's "
                "scale-down), so no node is left in them; one still running, if that scale-down failed, is billed "
                "on-demand")
        if self.ended:
            keep = "" if self.static else (": keep the window in prescale:eventWindows until then, and run `pulumi up` "
                                           "after it to lift the hold")
            return (f"event window {name!r}: its capacity reservations {self.describe()} ended with the window (a "
                    f"`pulumi up` now cancels any EC2 has not ended yet); {kept}{keep}",)
        if self.held:
            return (f"event window {name!r}: holds capacity reservations {self.describe()} until {_at(self.end, zone)} "
                    f"(the end plus {format_duration(self.end - self.window_end)} for its nodes to go); EC2 "
                    "bills every reserved instance each hour, used or not; a `pulumi up` after the event cancels "
                    f"them sooner; at their end, {kept}",)
        hold = format_duration(self.scale_up - self.hold_from)
        return (f"event window {name!r}: its capacity reservations {self.describe()} are not created yet: EC2 bills a "
                f"reservation every hour it exists, so only a `pulumi up` from {_at(self.hold_from, zone)} "
                f"(reserve.holdFrom {hold} before the scale-up) creates them; run `pulumi up` between then and the "
                f"scale-up at {_at(self.scale_up, zone)}, early enough to react if EC2 has no capacity to reserve",)


def plan_reservation(window: EventWindow, pool: NodePoolConfig, placeholders: PlaceholderPlan, now: datetime,
                     armed: bool, tail: timedelta, own_node_pool: bool) -> ReservationPlan | None:
    """The reservations of ``window`` (a one-off with ``reserve``, on ``pool``, holding ``placeholders``) at ``now``;
    ``None`` for a window without them, or once their nodes are released (:attr:`ReservationPlan.released`).
    ``armed``: whether the window is deployed now (a reservation is held only beside its placeholders); ``tail``: how
    long its nodes stay after its end on its pool's strategy; ``own_node_pool``: whether the window has its own
    NodePool, whose nodes all go at the end (so no drift of them to hold)."""
    reserve = window.reserve
    if reserve is None or not window.is_one_off:
        return None
    occurrence = one_off(window)
    hold_from, ended = occurrence.scale_up_utc - reserve.hold, now >= occurrence.end_utc
    shares = split(reserved_count(window, placeholders), reservation_zones(window, pool))
    plan = ReservationPlan(window, reserve.instance_type, shares, hold_from, occurrence.scale_up_utc,
                           occurrence.end_utc, occurrence.end_utc + tail,
                           held=armed and not ended and now >= hold_from, ended=ended,
                           static=own_node_pool)
    return plan if now < plan.released else None


def reserved_count(window: EventWindow, placeholders: PlaceholderPlan) -> int:
    """``reserve.count``, or the nodes the window needs: one per placeholder of a ``nodes:`` window, else its
    placeholders over how many of them one instance of the reserved type holds beside DaemonSets."""
    assert window.reserve is not None
    if window.reserve.count is not None:
        return window.reserve.count
    instance = instance_type(window.reserve.instance_type)
    per_node = pods_per_node(placeholders, instance.room) if instance else 1
    return math.ceil(placeholders.pods / max(per_node, 1))


def reservation_zones(window: EventWindow, pool: NodePoolConfig) -> tuple[str, ...]:
    """``reserve.availabilityZones``, or else the zones of the pool's ``topology.kubernetes.io/zone`` In requirement
    (empty: neither, which the config checks refuse)."""
    assert window.reserve is not None
    if window.reserve.availability_zones:
        return tuple(window.reserve.availability_zones)
    return pool_zones(pool)


def pool_zones(pool: NodePoolConfig) -> tuple[str, ...]:
    """The zones the pool's ``topology.kubernetes.io/zone`` requirements leave Karpenter to launch its nodes in, as
    it reads them (every requirement on the key holds: the In lists intersected, the NotIn values taken out), in the
    first In's order; empty when no In pins any (any zone of the region, but a NotIn's)."""
    zoned = [requirement for requirement in pool.requirements if requirement.key == ZONE]
    pinned = [set(requirement.values) for requirement in zoned if requirement.operator == "In"]
    if not pinned:
        return ()
    first = next(requirement.values for requirement in zoned if requirement.operator == "In")
    excluded = {value for requirement in zoned if requirement.operator == "NotIn" for value in requirement.values}
    return tuple(zone for zone in first if all(zone in allowed for allowed in pinned) and zone not in excluded)


def split(count: int, zones: Iterable[str]) -> tuple[ZoneShare, ...]:
    """``count`` over ``zones`` as evenly as it goes, the first zones taking one more; zones left with none are
    dropped (fewer instances than zones)."""
    names = list(zones)
    if not names:
        return ()
    each, more = divmod(count, len(names))
    return tuple(ZoneShare(zone, each + (index < more)) for index, zone in enumerate(names) if each + (index < more))


def reservation_id_warnings(pool: NodePoolConfig) -> tuple[str, ...]:
    """The pool's reservation ids (``capacityReservationSelectorTerms[].id``) that cannot be EC2's: allowed, since
    the id format is EC2's to change, but never silent."""
    return tuple(f"node pool {pool.name!r}: capacityReservationSelectorTerms[{index}].id {term.id!r} cannot be an "
                 "EC2 capacity reservation id (cr- and 17 hexadecimal digits, like cr-0123456789abcdef0), so "
                 "Karpenter would find no reservation by it and launch no reserved capacity for that term; copy "
                 "the id from `aws ec2 describe-capacity-reservations`"
                 for index, term in enumerate(pool.capacity_reservation_selector_terms or ())
                 if term.id is not None and not EC2_RESERVATION_ID.fullmatch(term.id))


def next_up(plans: Iterable[ReservationPlan]) -> datetime | None:
    """The earliest ``pulumi up`` that would create reservations not held yet, or ``None``."""
    return min((plan.hold_from for plan in plans if not plan.held and not plan.ended), default=None)


def _at(moment: datetime, zone: ZoneInfo) -> str:
    local = moment.astimezone(zone)
    return f"{local:%Y-%m-%d %H:%M %Z} = {moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
