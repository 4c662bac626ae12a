"""The ``--json`` documents of ``prescale plan``, ``schedule`` and ``status``, as typed models.

What a tool reads is declared here once: every key with its type and meaning, and each document's
``schemaVersion``. docs/json-schemas.md shows the JSON Schema generated from these models (:func:`json_schema`), and
tests/project/test_generated.py keeps that copy true. Instants for tools are UTC as ``YYYY-MM-DDTHH:MM:SSZ``
(:func:`prescale.model.schedule.instants.utc_iso`, as the stack outputs write them); a window's own instants keep
its zone's offset, which is what they mean. When a version is bumped: docs/cli.md#json-documents.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from prescale.model.schedule.instants import utc_iso
from prescale.model.strategies import STRATEGIES
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema
from pydantic.alias_generators import to_camel
from pydantic.json_schema import GenerateJsonSchema

from .reservation_report import ReservationState
from .status import WindowState

UtcInstant = Annotated[AwareDatetime, PlainSerializer(utc_iso, return_type=str), WithJsonSchema(
    {"type": "string", "format": "date-time", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"})]
# A pool's strategy, by name: one the registry knows (prescale.model.strategies), listed as the schema's enum.
Strategy = Annotated[str, WithJsonSchema({"enum": list(STRATEGIES), "type": "string"})]
LocalInstant = Annotated[AwareDatetime, PlainSerializer(datetime.isoformat, return_type=str), WithJsonSchema(
    {"type": "string", "format": "date-time", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$"})]


class Record(BaseModel):
    """Keys in camelCase, as printed; every key always present (``null`` where it has no value)."""

    # Built on first use, so a command that prints no JSON pays nothing for the models.
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, serialize_by_alias=True, frozen=True,
                              extra="forbid", strict=True, defer_build=True,
                              json_schema_serialization_defaults_required=True)


def _version(document: str) -> Any:
    return Field(1, description=f"The version of the {document} document's shape: bumped only when a key is removed "
                                "or renamed, or changes its type or meaning (docs/cli.md, \"JSON documents\").")


def json_schema(document: type[Record]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of what ``document`` prints."""
    schema = document.model_json_schema(mode="serialization", schema_generator=_WithoutFieldTitles)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


class _WithoutFieldTitles(GenerateJsonSchema):
    """Pydantic titles each key after itself (``"scaleUp"`` → ``"Scale Up"``), which says nothing more."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


# --- prescale plan --json --------------------------------------------------------------------------------------

class PlannedResource(Record):
    """A resource the program registers."""

    type: str = Field(description="Its Pulumi type, e.g. kubernetes:karpenter.sh/v1:NodePool.")
    name: str = Field(description="Its Pulumi name, derived from its pool's or window's name.")
    parent: str = Field(description="Its parent's URN (the stack's for a top-level resource).")
    inputs: dict[str, Any] = Field(description="Its inputs in Pulumi's camelCase wire form: integral numbers as "
                                               "integers, map keys sorted, secrets as \"[secret]\".")


class PlanDocument(Record):
    """`prescale plan --json`: exactly the resources the program registers, parents first, then by type and name."""

    schema_version: Literal[1] = _version("plan")
    resources: list[PlannedResource]


# --- prescale schedule --json ----------------------------------------------------------------------------------

class ZoneAbbreviations(Record):
    """The window's zone's abbreviation at each of its local instants (they differ across a DST change)."""

    scale_up: str
    start: str
    end: str


class Capacity(Record):
    """A `capacity:` window's size, as configured."""

    cpu: str
    memory: str


class PlaceholderSizes(Record):
    """What the window's placeholders request while it is open."""

    pods: int
    cpu: str = Field(description="Each placeholder's CPU request.")
    memory: str = Field(description="Each placeholder's memory request.")
    one_per_node: bool = Field(description="true for a `nodes:` window: one placeholder per node.")


class Span(Record):
    """A stretch of time in UTC, [from, until)."""

    since: UtcInstant = Field(serialization_alias="from")
    until: UtcInstant


class DriverRun(Record):
    """One CronJob of a static or buffer window's driver (namespace prescale), and when it fires for the occurrence."""

    cron_job: str
    schedule: str = Field(description="Its cron, read in the window's zone (the CronJob's timeZone).")
    replicas: int = Field(description="The count it sets: the window's at scale-up, 0 at scale-down.")
    at: LocalInstant = Field(description="When it fires for this occurrence, in the window's zone.")
    at_utc: UtcInstant
    starting_deadline_seconds: int = Field(description="How late the CronJob controller may still start the run.")
    active_deadline_seconds: int = Field(description="How long the run's Job retries once started.")


class Driver(Record):
    """What a static or buffer window's CronJobs set, and when they fire for this occurrence."""

    kind: Literal["NodePool", "CapacityBuffer"]
    name: str = Field(description="The window's own static NodePool, or its CapacityBuffer in namespace prescale.")
    scale_up: DriverRun = Field(description="At the occurrence's scaleUp: sets the window's count.")
    scale_down: DriverRun = Field(description="Sets 0: at the end for a static NodePool, at the event's start for a "
                                              "CapacityBuffer (which would refill as the event's pods take its room).")
    failsafe: DriverRun = Field(description="Sets 0 again failsafeGrace after the scale-down, whatever happened to "
                                            "that run; a one-off's also deletes its scale-up CronJob.")


class Occurrence(Record):
    """One occurrence of one window whose [scaleUp, end) meets the range."""

    window: str
    node_pool: str
    strategy: Strategy = Field(description="Its pool's: placeholders (KEDA-scaled pods), static (its own static "
                                           "NodePool) or buffer (a CapacityBuffer).")
    timezone: str = Field(description="The window's IANA time zone.")
    one_off: bool
    scale_up: LocalInstant = Field(description="When KEDA creates the placeholders (start minus leadTime), in the "
                                               "window's zone.")
    start: LocalInstant = Field(description="The event's start, in the window's zone.")
    end: LocalInstant = Field(description="The event's end, in the window's zone.")
    zone_abbreviations: ZoneAbbreviations
    scale_up_utc: UtcInstant
    start_utc: UtcInstant
    end_utc: UtcInstant
    nodes: int | None = Field(description="A `nodes:` window's nodes, else null.")
    capacity: Capacity | None = Field(description="A `capacity:` window's size, else null.")
    placeholders: PlaceholderSizes
    frozen: Span | None = Field(description="The consolidation freeze covering the occurrence (united budgets); "
                                            "null when none does, or on an existing pool.")
    armed: bool = Field(description="Whether `pulumi up` deploys the window now (false: a one-off too far ahead).")
    not_armed_reason: str | None
    protection: Literal["budget", "do-not-disrupt"] = Field(
        description="How its nodes are kept: the NodePool's budgets (pools prescale owns) or do-not-disrupt pods "
                    "(existing pools).")
    driver: Driver | None = Field(description="A static or buffer window's driver runs for this occurrence; null "
                                              "for placeholders (KEDA scales them), or while not armed.")


class Overlap(Record):
    """A stretch where several windows hold placeholders on one NodePool: they add up."""

    node_pool: str
    since: UtcInstant = Field(serialization_alias="from")
    until: UtcInstant
    windows: list[str]
    pods: int
    cpu: str = Field(description="The CPU they request together.")
    memory: str = Field(description="The memory they request together.")


class PoolFreeze(Record):
    """A `nodes: "0"` budget exactly as the NodePool gets it."""

    node_pool: str
    node_pool_object: str = Field(description="The NodePool that gets it: the pool's own (prescale-<pool>), or on a "
                                              "static pool the window's own static NodePool.")
    schedule: str = Field(description="Its cron, in UTC.")
    duration: str


class WindowCost(Record):
    """One window's estimated fleet and cost over the range."""

    window: str
    node_pool: str
    strategy: Strategy
    occurrences: int = Field(description="Its occurrences in the range.")
    instance_type: str | None = Field(description=(
        "The instance type of the cheapest fleet holding its placeholders (a buffer: its virtual pods); a static "
        "window: the cheapest type its pool allows, which Karpenter launches for a static NodePool; null when none "
        "fits one (no estimate)."))
    nodes_estimated: int | None
    price_per_node_hour: float | None
    node_hours: float = Field(description="Node-hours it pays for inside the range.")
    cost: float
    node_hours_per_week: float | None = Field(description=(
        "In a week of its schedule, the same whatever the range: its coming week from now, or for a monthly schedule "
        "the coming year's average week; null for a one-off."))
    cost_per_week: float | None = Field(description="As nodeHoursPerWeek; null for a one-off.")
    all_day_cost: float = Field(description="Its fleet kept for the whole range (0 if it does not occur in it).")
    rate_per: Literal["week", "month"] | None = Field(description=(
        "The rate the text shows: week, or month for a schedule that names days of the month or leaves months out; "
        "null for a one-off."))
    node_hours_per_month: float | None = Field(description=(
        "For a monthly schedule, the coming year's average month; null otherwise."))
    cost_per_month: float | None = Field(description="As nodeHoursPerMonth.")


class PoolCost(Record):
    """One NodePool's cost over the range, beside a static pool sized for its busiest moment."""

    node_pool: str
    cost: float = Field(description="What its windows' nodes cost in the range.")
    recurring_cost_per_week: float = Field(description="Its recurring windows' costPerWeek, summed.")
    peak_price_per_hour: float = Field(description="The hourly price of its fleets up at its busiest moment.")
    all_day_cost: float = Field(description="peakPricePerHour for the whole range.")
    reservation_cost: float = Field(description=(
        "What the capacity reservations of its windows that occur in the range bill, whole (as in reservations)."))
    total_cost: float = Field(description=(
        "cost with reservationCost, less the reserved nodes' hours in cost (EC2 bills no instance in a reservation "
        "on top of it): the text's headline."))
    existing: bool = Field(description=(
        "An existing pool (existing: true): its instance types and consolidateAfter are its owner's, and the "
        "estimate assumes prescale's defaults."))


class Tail(Record):
    """How long a window's nodes stay after each end, and what that costs."""

    window: str
    strategy: Strategy
    nodes_stay_after_end: str = Field(description=(
        "Placeholders: KEDA's cooldown, the pool's consolidateAfter and the drain; static: the drain (Karpenter "
        "deletes the nodes as the scale-down sets 0); buffer: consolidateAfter and the drain once the freeze ends."))
    cost_per_end: float
    if_keda_fails_stay: str = Field(description=(
        "The same when the scale-down is as late as it can be: placeholders, KEDA never scales down and the failsafe "
        "does at the end plus failsafeGrace; static, the scale-down run acts at the last moment its deadlines allow; "
        "buffer, as nodesStayAfterEnd (its driver acts at the event's start)."))
    if_keda_fails_cost_per_end: float


class Cost(Record):
    """The cost estimate over the range (docs/cli.md, "The cost estimate"), amounts rounded to cents."""

    currency: Literal["USD"]
    days: float = Field(description="The range's length.")
    windows: list[WindowCost]
    node_pools: list[PoolCost]
    tails: list[Tail]


class Reservation(Record):
    """A one-off window's capacity reservations (`reserve`), held by a run at `now` or not yet."""

    window: str
    instance_type: str
    zones: dict[str, int] = Field(description="Instances reserved per availability zone.")
    hold_from: UtcInstant = Field(description="The earliest `pulumi up` that creates them (reserve.holdFrom before "
                                              "the scale-up).")
    end_date: UtcInstant = Field(description="When EC2 ends them: the window's end plus the time its nodes take to "
                                             "go.")
    drift_held_until: UtcInstant = Field(description=(
        "Until when the pool's budget stops Karpenter replacing the nodes still in them (CapacityReservationDrift) "
        "after the window: an hour past endDate, the most EC2 takes to move them out, and two drift re-checks."))
    held: bool = Field(description="Whether a `pulumi up` at `now` holds them.")
    state: ReservationState = Field(
        description="held; not created yet (before holdFrom); not armed yet (its window is not deployed yet); "
                    "ended (its window is over, the drift hold still stands).")
    billed_from: UtcInstant = Field(description="Where hours start: holdFrom, or `now` once that has passed.")
    hours: float = Field(description="Billed from billedFrom to endDate, used or not (0 once endDate has passed).")
    price_per_hour: float = Field(description="All its instances at the estimate's price.")
    cost: float = Field(description="hours × pricePerHour, in the estimate's currency.")


class ScheduleDocument(Record):
    """`prescale schedule --json`: every occurrence in [from, until), as the stack's plan at `now` deploys it."""

    schema_version: Literal[1] = _version("schedule")
    stack: str
    since: UtcInstant = Field(serialization_alias="from")
    until: UtcInstant
    now: UtcInstant
    occurrences: list[Occurrence] = Field(description="By scale-up instant.")
    overlaps: list[Overlap]
    freezes: list[PoolFreeze]
    cost: Cost
    reservations: list[Reservation]
    next_up_for_reservations: UtcInstant | None = Field(description="When the next `pulumi up` must run to create "
                                                                    "the reservations not created yet; null if none.")
    warnings: list[str] = Field(description="What `pulumi up` would log.")


# --- prescale status --json ------------------------------------------------------------------------------------

class Condition(Record):
    """A condition as its controller (KEDA, Karpenter) wrote it ("" for a part it left out)."""

    type: str
    status: str
    reason: str
    message: str


class ScaledObject(Record):
    """The window's ScaledObject and its conditions."""

    name: str
    found: bool
    ready: bool
    active: bool
    paused: bool
    fallback: bool
    conditions: list[Condition]


class Waiting(Record):
    """Why one placeholder is not Ready: the scheduler's or the kubelet's reason."""

    pod: str
    reason: str
    message: str


class PlaceholderReadiness(Record):
    """The window's placeholder pods (leaving out those being deleted)."""

    desired: int = Field(description="The count KEDA holds while the window is open.")
    ready: int
    pending: int = Field(description="Those in phase Pending.")
    reasons: list[Waiting] = Field(description="One per placeholder not Ready.")


class Nodes(Record):
    """The pool's nodes."""

    total: int
    ready: int
    reserved: int = Field(description="Those launched into a capacity reservation.")
    reservations: list[str] = Field(description="The ids of the reservations they use.")


class LaunchFailure(Record):
    """A NodeClaim Karpenter failed to launch, or launched without its node registering in time, with its reason."""

    node_claim: str
    reason: str
    message: str
    deleted: bool = Field(description="Karpenter deleted it and retries: only its event is left.")
    condition: Literal["Launched", "Registered"] = Field(
        description="The NodeClaim condition it has not reached: Launched, or Registered (launched, no node yet).")
    since: UtcInstant = Field(description="When that condition last changed (for a deleted one: its event).")


class NodeClaims(Record):
    """The pool's NodeClaims."""

    total: int
    ready: int
    launch_failures: list[LaunchFailure]


class KarpenterObject(Record):
    """The NodePool or the node class of the window's pool (Karpenter launches only while both are Ready)."""

    kind: str = Field(description="NodePool, EC2NodeClass, or Auto Mode's NodeClass.")
    name: str
    found: bool
    ready: bool
    conditions: list[Condition]


class Karpenter(Record):
    """The pool's NodePool and the node class it names."""

    node_pool: KarpenterObject
    node_class: KarpenterObject | None = Field(description="null when there is no NodePool to name it, or it "
                                                           "names a kind prescale does not read.")


class Budget(Record):
    """A `nodes: "0"` budget, its schedule in UTC."""

    schedule: str
    duration: str


class StaticReadiness(Record):
    """A static window's own NodePool: the count its driver sets, and Karpenter's count of its nodes."""

    desired: int = Field(description="The window's nodes.")
    replicas: int | None = Field(description="The NodePool's spec.replicas: its driver sets the window's count at "
                                             "scale-up and 0 at the end; null without such a NodePool.")
    nodes: int | None = Field(description="Its status.nodes, the nodes Karpenter counts for it; null before it "
                                          "counted any.")


class BufferReadiness(Record):
    """A buffer window's CapacityBuffer in namespace prescale, and Karpenter's conditions on it."""

    name: str
    found: bool
    desired: int = Field(description="The window's virtual pods.")
    replicas: int | None = Field(description="Its spec.replicas: its driver sets the window's count at scale-up and "
                                             "0 at the event's start.")
    provisioned: int | None = Field(description="Its status.replicas: the count Karpenter provisions for.")
    ready_for_provisioning: bool = Field(description="ReadyForProvisioning True: Karpenter resolved its PodTemplate.")
    provisioning: bool = Field(description="Provisioning True (FitsExistingCapacity): every virtual pod fits on an "
                                           "existing node.")
    conditions: list[Condition]


class DriverJob(Record):
    """A driver CronJob's most recent Job."""

    name: str
    state: Literal["active", "succeeded", "failed"]
    reason: str = Field(description="Its Failed condition's reason (DeadlineExceeded, BackoffLimitExceeded), else "
                                    "\"\".")
    message: str
    started: UtcInstant | None


class CronJobReadiness(Record):
    """One of a static or buffer window's driver CronJobs in namespace prescale."""

    name: str
    sets: int = Field(description="The count its runs set.")
    found: bool
    suspended: bool
    last_schedule_time: UtcInstant | None = Field(description="When its last run was due (status.lastScheduleTime).")
    last_successful_time: UtcInstant | None = Field(description="status.lastSuccessfulTime.")
    last_job: DriverJob | None


class WindowReadiness(Record):
    """One window running now or starting within `within`, at its first occurrence there."""

    window: str
    node_pool: str
    strategy: Strategy
    state: WindowState = Field(description="In its lead time (from scale-up to start), running (to its end), or "
                                           "upcoming (before its scale-up).")
    scale_up: LocalInstant
    start: LocalInstant
    end: LocalInstant
    ready: bool = Field(description=(
        "Placeholders, in its lead time or running: its ScaledObject is Ready and Active and all its placeholders are "
        "Ready; upcoming: its ScaledObject exists, Ready, not paused. Static, in its lead time or running: its "
        "NodePool at the window's count and that many nodes Ready. Buffer, in its lead time: its CapacityBuffer at "
        "the window's count, ReadyForProvisioning and Provisioning; otherwise ReadyForProvisioning. Static and "
        "buffer: the driver's CronJobs (scale-up, scale-down, failsafe) exist, not suspended, their last Jobs not "
        "failed. Always: its NodePool and node class are Ready."))
    not_ready: list[str] = Field(description="Why it is not ready, as sentences.")
    scaled_object: ScaledObject | None = Field(description="Placeholders only; null on static and buffer pools.")
    placeholders: PlaceholderReadiness | None = Field(description="Placeholders only; null on static and buffer "
                                                                  "pools.")
    static: StaticReadiness | None = Field(description="Static only; null otherwise.")
    buffer: BufferReadiness | None = Field(description="Buffer only; null otherwise.")
    driver: list[CronJobReadiness] = Field(description="Static and buffer: its scale-up and scale-down CronJobs; "
                                                       "empty for placeholders.")
    nodes: Nodes = Field(description="Its NodePool's nodes: the pool's, or a static window's own.")
    node_claims: NodeClaims
    karpenter: Karpenter
    freeze: Budget | None = Field(description="The budget in force now on its NodePool, from the plan; null if "
                                              "none.")


class StatusDocument(Record):
    """`prescale status --json`: whether each window running now or starting soon is ready in the cluster."""

    schema_version: Literal[1] = _version("status")
    stack: str
    now: UtcInstant
    within: str
    ready: bool = Field(description="What the exit code says: every window in its lead time or running is ready.")
    windows: list[WindowReadiness]


class NodeReadySeconds(Record):
    """Launch → Ready of the nodes that came for the occurrence: from each node's creation (kube_node_created) to
    its first Ready sample."""

    p50: float
    p95: float
    max: float


class MeasuredOccurrence(Record):
    """One occurrence as planned and as the cluster's series saw it; null where a figure had no data (``missing``
    says what to turn on)."""

    window: str
    strategy: Strategy
    scale_up: UtcInstant
    start: UtcInstant
    end: UtcInstant
    planned: int = Field(description="The count the window asked for: its placeholder pods, a static window's "
                                     "nodes, or a buffer window's virtual pods.")
    ready_at_start: int | None = Field(description="How much of it was Ready at the start.")
    complete_at: UtcInstant | None = Field(description="The first instant all of it was Ready, between scale-up and "
                                                       "end (at the report's 30-second resolution).")
    margin_seconds: int | None = Field(description="completeAt before the start, in seconds; negative when late.")
    node_ready_seconds: NodeReadySeconds | None
    unschedulable_pod_minutes: float | None = Field(description="Pods outside namespace prescale that could not be "
                                                                "scheduled during the event, in pod-minutes.")
    unschedulable_pods: int | None = Field(default=None, description=(
        "How many pods outside namespace prescale could not be scheduled at some time during the event."))
    node_claim_launch_failures: dict[str, int] | None = Field(description=(
        "NodeClaims of its NodePool that Karpenter deleted before they became nodes, from the scale-up to the end, "
        "by Karpenter's reason (insufficient_capacity, nodeclass_not_ready, launch_timeout, registration_timeout); "
        "{} when none failed."))
    scale_up_measured: UtcInstant | None = Field(default=None, description=(
        "The scale-up as it happened: KEDA's trigger turning active (keda_scaler_active), or the driver's scale-up "
        "Job starting (kube_job_status_start_time); null if it did not happen or without the series."))
    scale_up_delay_seconds: int | None = Field(default=None, description=(
        "scaleUpMeasured after the planned scaleUp, in seconds."))
    placeholders_replaced: int | None = Field(default=None, description=(
        "Placeholder pods made from the scale-up to the end beyond the count KEDA's scale-up made: each replaced one "
        "that went, preempted by the event's pods (the design at work) or lost with its node; null for a static or "
        "buffer window (no placeholder pods) or without kube_pod_created."))
    node_hours: float | None = Field(description="Node-hours of its NodePool above the count just before the "
                                                 "scale-up, until they left (at most 2 hours after the end).")
    nodes_gone_at: UtcInstant | None = Field(default=None, description=(
        "When its NodePool was back at its count before the scale-up, after the end (the window's nodes gone); "
        "null if not within 2 hours, or without the node labels."))
    ideal_node_hours: float | None = Field(description="The plan's estimated nodes × (lead time + duration).")
    cost: float | None = Field(description="nodeHours at the price `prescale schedule` uses, in USD.")
    verdict: Literal["served", "late", "short", "no-data"] = Field(description=(
        "served: all Ready at the start; late: complete after it; short: never complete before the end; no-data: "
        "the series its readiness needs were missing."))
    missing: list[str] = Field(description="The series a figure needed and did not find, and how to get them.")


class ReportDocument(Record):
    """`prescale report --json`: was each event of the range served, measured from Prometheus."""

    schema_version: Literal[1] = _version("report")
    stack: str
    from_: UtcInstant = Field(alias="from")
    to: UtcInstant
    occurrences: list[MeasuredOccurrence]


class SuggestedLeadTime(Record):
    current: str
    suggested: str | None = Field(description="null: too few occurrences completed to suggest one.")


class SuggestedNodes(Record):
    current: int
    suggested: int | None = Field(description="null: too few occurrences with the pods' requests on the pool.")


class SuggestedCapacity(Record):
    current: Capacity
    suggested: Capacity | None = Field(description="null: too few occurrences with the pods' requests on the pool.")


class TunedNodesWindow(Record):
    """A ``nodes:`` window: its lead time and its count, as its last measured occurrences suggest them."""

    window: str
    occurrences: int = Field(description="Its measured occurrences the suggestions come from.")
    lead_time: SuggestedLeadTime
    nodes: SuggestedNodes


class TunedCapacityWindow(Record):
    """A ``capacity:`` window: its lead time and its capacity, as its last measured occurrences suggest them."""

    window: str
    occurrences: int = Field(description="Its measured occurrences the suggestions come from.")
    lead_time: SuggestedLeadTime
    capacity: SuggestedCapacity


class TuneDocument(Record):
    """`prescale tune --json`: each window's next lead time and size, from its last measured occurrences."""

    schema_version: Literal[1] = _version("tune")
    windows: list[TunedNodesWindow | TunedCapacityWindow]


class FleetWindow(Record):
    """One stack's window for the event."""

    stack: str
    window: str
    nodes: int = Field(description="The nodes its estimate launches (a static window's exactly).")
    vcpus: int
    scale_up: UtcInstant | None = Field(description="Its first scale-up in the range; null if none.")


class FleetInstances(Record):
    """Instances of one type and where they are, as far as the plan knows."""

    instance_type: str
    zones: list[str] = Field(description=(
        "One zone: pinned there (a window's reservation, one per zone, or a pool pinned to one zone); several: "
        "Karpenter picks among them at launch, how many in each is not known before; none: any zone of the region."))
    count: int


class FleetRegion(Record):
    """The event's totals in one AWS account and region."""

    account: str | None = Field(description="aws:allowedAccountIds where a stack pins one; null: grouped by region "
                                            "alone.")
    region: str
    vcpus_by_family: dict[str, int] = Field(description="vCPUs by On-Demand quota group (standard, g, p, ...).")
    quota: dict[str, int] = Field(description="The quotas the stacks give (prescale:quotas, --quota), by group.")
    launches_per_minute: int = Field(description="The most instances whose scale-up falls in one minute.")
    instances: list[FleetInstances] = Field(description=(
        "The event's instances there by type and zones: what On-Demand Capacity Reservations for it would hold."))


class FleetEvent(Record):
    event: str = Field(description="A window's calendar event, else its name.")
    stacks: list[FleetWindow]
    regions: list[FleetRegion]


class FleetDocument(Record):
    """`prescale fleet --json`: the stacks of one or more projects, lined up by event."""

    schema_version: Literal[1] = _version("fleet")
    stacks: list[str]
    events: list[FleetEvent]
    problems: list[str]


class PreflightFinding(Record):
    window: str = Field(description="The window checked; * for a call that left a check undone for all.")
    check: Literal["quotas", "offerings", "addresses", "reservations"]
    ok: bool | None = Field(description="false: a blocker; null: not checked (the call was not answered).")
    message: str


class PreflightDocument(Record):
    """`prescale preflight --json`: what the AWS account says of the coming windows."""

    schema_version: Literal[1] = _version("preflight")
    stack: str
    region: str
    blocked: bool = Field(description="What the exit code says: a finding is a blocker.")
    findings: list[PreflightFinding]
