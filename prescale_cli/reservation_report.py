"""``prescale schedule``'s capacity reservations: what each one-off window reserves, when the ``pulumi up`` that
creates it must run, what it costs, and how long its pool keeps the reserved nodes after it.

A reservation is billed at the on-demand price of its instance type for every hour it exists, used or not, from
the ``pulumi up`` that creates it until EC2 ends it (within an hour after its end date). So the cost is counted from
the *earliest* ``pulumi up`` that would create it (``reserve.holdFrom`` before the scale-up), or from ``now`` once
that has passed, to its end date: what it costs from here at most when that ``up`` runs on time. Instances running
in a reservation are not billed on top of it, so the window's nodes in the cost estimate above are, for the reserved
ones, part of this figure. Prices as in :mod:`prescale_cli.cost` (``prescale:pricing``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from prescale.model.fleet.instances import instance_type
from prescale.model.fleet.reservations import ReservationPlan, next_up
from prescale.model.plan import CapacityPlan

from .cost import CURRENCY, InstanceShape, priced
from .output import Output

# Not created yet: before holdFrom; not armed yet: from then on, while its window is not deployed yet; ended: its
# window is over, its pool still holds the drift of the nodes that were in it.
ReservationState = Literal["held", "not created yet", "not armed yet", "ended"]


@dataclass(frozen=True)
class ReservationCost:
    plan: ReservationPlan
    shape: InstanceShape  # one instance of the reserved type, at the price the estimate takes
    state: ReservationState
    now: datetime  # the plan's

    @property
    def billed_from(self) -> datetime:
        """The earliest `pulumi up` that creates it, never before ``now``: what was billed before is spent."""
        return max(self.now, self.plan.hold_from)

    @property
    def hours(self) -> float:
        """From :attr:`billed_from` to its end date (none once that has passed)."""
        return max(self.plan.end - self.billed_from, timedelta()) / timedelta(hours=1)

    @property
    def price_per_hour(self) -> float:
        return self.plan.count * self.shape.price_per_hour

    @property
    def cost(self) -> float:
        return self.price_per_hour * self.hours


def reservation_costs(plan: CapacityPlan) -> list[ReservationCost]:
    """Every planned reservation (held now, not yet, or just ended) with its cost; the config checks proved each type
    known."""
    return [ReservationCost(reservation, priced(instance, plan.config.pricing), _state(reservation, plan.now),
                            plan.now)
            for reservation in plan.reservations if (instance := instance_type(reservation.instance_type)) is not None]


def show_reservations(plan: CapacityPlan, output: Output) -> None:
    costs = reservation_costs(plan)
    if not costs:
        return
    output.line()
    output.table(["Window", "Reserves", "Created by a `pulumi up` from (UTC)", "Ends (UTC)",
                  "Drift held until (UTC)", "Now", "Hours", "Per hour", "Cost"],
                 [(cost.plan.window.name, cost.plan.describe(), _utc(cost.plan.hold_from), _utc(cost.plan.end),
                   _utc(cost.plan.released), cost.state, f"{cost.hours:.1f}", _money(cost.price_per_hour),
                   _money(cost.cost)) for cost in costs],
                 title=f"Capacity reservations (targeted On-Demand Capacity Reservations, {CURRENCY})")
    waiting = next_up(plan.reservations)
    if waiting is not None:
        output.line(f"Run `pulumi up` from {_utc(waiting)} UTC (and before the scale-up) to create the reservations "
                    "not created yet: an earlier `up` creates none.")
    output.line("A reservation is billed every hour it exists, used or not, until EC2 ends it (within an hour after "
                "its end: the window's end plus the time its nodes take to go); the cost counts from the earliest "
                "`pulumi up` that creates it, or from now. The reserved nodes are not billed on top (the estimate "
                "above counts them too).")
    output.line("Event pods still on reserved nodes at the end stay where they are: the nodes run on as on-demand "
                "instances (billed at the on-demand rate), and the pool's budget stops Karpenter replacing them for "
                "the ended reservation (CapacityReservationDrift) until \"Drift held until\", past the hour EC2 "
                "takes to move them out of it.")


def _state(reservation: ReservationPlan, now: datetime) -> ReservationState:
    if reservation.held:
        return "held"
    if reservation.ended:
        return "ended"
    return "not armed yet" if now >= reservation.hold_from else "not created yet"


def _utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%a %Y-%m-%d %H:%M}"


def _money(amount: float) -> str:
    return f"${amount:,.2f}"
