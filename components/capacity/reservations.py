"""A one-off window's capacity reservations: one targeted On-Demand Capacity Reservation per zone.

Rendered only while the plan holds them (:attr:`prescale.model.fleet.reservations.ReservationPlan.held`: from
``reserve.holdFrom`` before the scale-up until the window ends); a later ``pulumi up`` declares none and Pulumi
cancels them. ``targeted``, so only launches that name a reservation use it (Karpenter's, once the pool's
EC2NodeClass selects it by id: :mod:`prescale.capacity.node_pools`); ``limited`` with the plan's end date, so EC2
ends them itself even if no ``pulumi up`` follows the event. They are AWS resources of the program's AWS provider
(``aws:region``, or one passed in ``opts``), created by whoever runs ``pulumi up``: no role of prescale's needs
new permissions. Why and what it costs: docs/capacity.md#capacity-reservations-for-one-off-events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from ..model.fleet.reservations import ReservationPlan
from ..model.schedule.instants import utc_iso
from ..model.values.labels import POOL_LABEL, WINDOW_LABEL
from ..names import CLUSTER_TAG, placeholder_name

LINUX = "Linux/UNIX"  # the instance platform of every AMI prescale's pools run (AL2023, Bottlerocket)


@dataclass(frozen=True)
class WindowReservationsArgs:
    plan: ReservationPlan  # held (`plan_capacity(...).reservations`, those with `held`)
    cluster_name: pulumi.Input[str]  # the cluster they are for (CLUSTER_TAG)
    tags: Mapping[str, str] = field(default_factory=dict)  # prescale:tags, beside the window's own


class WindowReservations(pulumi.ComponentResource):
    """The window's reservations, by zone; ``ids`` for the pool's EC2NodeClass to select."""

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: WindowReservationsArgs, opts: pulumi.ResourceOptions | None = None):
        plan = args.plan
        if not plan.held:
            raise ValueError(f"event window {plan.window.name!r}: its reservations are not held at this time "
                             "(prescale.plan_capacity says when they are)")
        super().__init__("prescale:index:WindowReservations", name, {}, opts)
        window = plan.window
        tags: dict[str, pulumi.Input[str]] = {**args.tags, "Name": placeholder_name(window.name),
                                               POOL_LABEL: window.node_pool, WINDOW_LABEL: window.name,
                                               CLUSTER_TAG: args.cluster_name}
        self.reservations: dict[str, aws.ec2.CapacityReservation] = {share.zone: aws.ec2.CapacityReservation(  # by zone
            f"{name}-reservation-{share.zone}",
            instance_type=plan.instance_type, instance_platform=LINUX, availability_zone=share.zone,
            instance_count=share.count, instance_match_criteria="targeted", tenancy="default",
            end_date_type="limited", end_date=end_date(plan), tags=tags,
            opts=pulumi.ResourceOptions(parent=self)) for share in plan.zones}
        self.ids: list[pulumi.Output[str]] = [reservation.id for reservation in self.reservations.values()]
        self.register_outputs({"ids": self.ids, "endDate": end_date(plan)})


def end_date(plan: ReservationPlan) -> str:
    """The plan's end as EC2 takes it: RFC 3339 in UTC, whole seconds (``2027-03-02T03:04:00Z``)."""
    return utc_iso(plan.end)
