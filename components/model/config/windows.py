"""``prescale:eventWindows``: when capacity must be ready, where and how much, and a one-off's capacity reservations."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Self
from zoneinfo import ZoneInfo

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..values.cron import CronSpec, parse_cron
from ..values.duration import format_duration, parse_duration, shorter_than
from ..values.time_zones import load_zone
from .base import (
    LOCAL_DATETIME,
    AvailabilityZone,
    CapacityRequest,
    Duration,
    ImageReference,
    Model,
    WindowName,
    WindowTime,
    _Checked,
    _distinct,
    _fail,
    _left_out,
    _list_as_tuple,
    _shaped,
    _time_zone,
)

MAX_HOLD = timedelta(days=7)
_MINUTE = timedelta(minutes=1)  # the least hold: whole minutes, more than zero


class ReserveConfig(Model):
    """``eventWindows[].reserve``: targeted On-Demand Capacity Reservations that hold EC2 capacity for a one-off
    window, created only by a ``pulumi up`` within ``holdFrom`` of its scale-up
    (:mod:`prescale.model.fleet.reservations`; docs/capacity.md#capacity-reservations-for-one-off-events)."""

    instance_type: Annotated[StrictStr, _shaped(r"[a-z][a-z0-9-]*\.[a-z0-9]+",
                                                'an EC2 instance type like "m7i.xlarge" (lowercase)')] = Field(
        description=("The instance type to reserve: one the pool can launch, that holds the window's placeholders "
                     "and that the pool's limits can fill."))
    count: StrictInt | None = Field(default=None, ge=1, le=1000, description=(
        "Instances to reserve in all (1 to 1000), split over the zones as evenly as it goes. Unset: the nodes the "
        "window needs (nodes: N gives N; a capacity window, the instances that hold its placeholders)."))
    availability_zones: Annotated[tuple[AvailabilityZone, ...], BeforeValidator(_list_as_tuple),
                                  _Checked(_distinct, uniqueItems=True), Field(min_length=1)] | None = Field(
        default=None, description=("Zones to reserve in, each once. Unset: the zones of the pool's "
                                   "topology.kubernetes.io/zone requirement (a pool without one is refused)."))
    hold_from: Duration = Field(default="24h", json_schema_extra={"not": {"pattern": shorter_than(_MINUTE)}},
                                description=(
        "How long before the window's scale-up the reservations may be created: a Go duration of whole minutes "
        f"(\"24h\", \"1.5h\"), at most {format_duration(MAX_HOLD)}: a pulumi up within that time creates them, "
        "and they are billed from then (docs/capacity.md#when-it-exists-and-what-it-costs)."))

    @field_validator("hold_from")
    @classmethod
    def _positive_whole_minutes(cls, value: str) -> str:
        hold = parse_duration(value)
        if not hold or hold.total_seconds() % 60:
            raise _fail("lead", "must be whole minutes and more than zero: the reservation is created by a "
                                "`pulumi up` that long before the scale-up or later")
        if hold > MAX_HOLD:
            raise _fail("lead", f"is more than {format_duration(MAX_HOLD)} (a week): the reservation is billed "
                                "every hour from the `pulumi up` that creates it, used or not, so a longer hold bills "
                                "the idle reservation for weeks; the hold only has to leave time to react if EC2 "
                                "cannot reserve (run `pulumi up` again, try another zone or type); allowed: 1m to "
                                f"{format_duration(MAX_HOLD)}, e.g. 24h (the default) or 72h over a weekend")
        return value

    @property
    def hold(self) -> timedelta:
        return parse_duration(self.hold_from)


class EventWindow(Model):
    """One ``prescale:eventWindows`` entry: when capacity must be ready, where, and how much.

    ``start``/``end`` are either both 5-field crons in KEDA's dialect (a recurring window) or both local
    date-times ``YYYY-MM-DDTHH:MM`` (a one-off event), always read in ``timezone``. How the two fit together
    over time is checked by :mod:`prescale.model.checks.stack`, which can name the exact key at fault.
    """

    name: WindowName = Field(description=(
        "Unique (at most 40 characters); names the window's Kubernetes objects (prescale-<name>)."))
    node_pool: StrictStr = Field(description="The prescale:nodePools entry, by name, whose nodes the window holds.")
    timezone: Annotated[StrictStr, AfterValidator(_time_zone)] = Field(description=(
        "IANA time zone that start and end are read in, naming a place or UTC: Asia/Seoul, America/New_York, UTC. "
        "Abbreviations (KST) and legacy or fixed-offset names (EST, CET, Etc/GMT+5) are refused with the zone to "
        "write."))
    start: WindowTime = Field(description=(
        'When the event starts: a 5-field cron in KEDA\'s dialect for a recurring window ("15 11 * * *": minute '
        "hour day-of-month month day-of-week, day-of-week 0-6; no @daily, CRON_TZ= or L/W/#), or a local date-time "
        'YYYY-MM-DDTHH:MM for a one-off event ("2027-03-02T08:00", no seconds or offset). start and end are both '
        "crons or both date-times; prescale plan and schedule check how they fit over the coming year (a start or "
        "end in a DST gap or overlap, starts and ends that do not alternate)."))
    end: WindowTime = Field(description=(
        "When the event ends, in the same form as start; a one-off end must be after its start."))
    event: WindowName | None = Field(default=None, description=(
        "An event of prescale:calendar, by name: the window takes its timezone, start and end (and gives none of "
        "its own), so every stack that names it moves with the calendar (docs/fleet.md#one-calendar)."))
    nodes: StrictInt | None = Field(default=None, ge=1, le=1000, description=(
        "Nodes to hold ready (1 to 1000): one placeholder of the pool's nodeSize on each. Give exactly one of "
        "nodes or capacity (docs/capacity.md#pod-sizing)."))
    capacity: CapacityRequest | None = Field(default=None, description=(
        "Pod requests to hold ready, split into the fewest equal placeholders no bigger than maxPodSize; give "
        "exactly one of nodes or capacity (docs/capacity.md#pod-sizing)."))
    lead_time: Duration = Field(default="10m", description=(
        "Placeholders scale up this long before start: a Go duration of whole minutes (\"10m\", \"1.5h\"); below 2m "
        "is warned: nodes need about that to be Ready (docs/capacity.md#how-long-a-lead-time)."))
    prepull_images: Annotated[tuple[ImageReference, ...], BeforeValidator(_list_as_tuple),
                              _Checked(_distinct, uniqueItems=True)] = Field(default=(), description=(
        "Images the window's placeholders pull onto their nodes during the lead time (a placeholder is Ready once "
        "its images are there), so the event's pods start without a pull; any image, distroless included "
        "(docs/capacity.md#event-images-prepullimages)."))
    reserve: ReserveConfig | None = Field(default=None, description=(
        "One-off windows only: targeted On-Demand Capacity Reservations that hold EC2 capacity for the event, "
        "created by a pulumi up from holdFrom before the scale-up; the pool must be one prescale creates, without "
        "nodeClassName, whose capacityTypes allow reserved "
        "(docs/capacity.md#capacity-reservations-for-one-off-events)."))

    @property
    def is_one_off(self) -> bool:
        return bool(LOCAL_DATETIME.match(self.start))

    @property
    def lead(self) -> timedelta:
        return parse_duration(self.lead_time)

    @property
    def zone(self) -> ZoneInfo:
        """The zone ``start`` and ``end`` are read in."""
        return load_zone(self.timezone)

    @property
    def start_cron(self) -> CronSpec:
        """A recurring window's start as KEDA parses it (only for recurring windows)."""
        return parse_cron(self.start)

    @property
    def local_start(self) -> datetime:
        """The one-off start as a naive local date-time (only for one-off windows)."""
        return datetime.fromisoformat(self.start)

    @property
    def local_end(self) -> datetime:
        return datetime.fromisoformat(self.end)

    @field_validator("lead_time")
    @classmethod
    def _whole_minutes(cls, value: str) -> str:
        if parse_duration(value).total_seconds() % 60:
            raise _fail("lead", "must be whole minutes: KEDA's cron has no seconds field")
        return value

    @model_validator(mode="after")
    def _one_amount(self, info: ValidationInfo) -> Self:
        if (self.nodes is None) == (self.capacity is None) and not _left_out(info, "nodes", "capacity"):
            given = "both" if self.nodes is not None else "neither"
            raise _fail("model", f"give exactly one of nodes (a node count) or capacity ({{cpu, memory}}); "
                                 f"got {given}")
        return self
