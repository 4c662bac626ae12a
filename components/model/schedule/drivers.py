"""The driver of a static or buffer window: CronJobs in the window's zone that set its object's count.

KEDA cannot scale a NodePool or a CapacityBuffer, so each such window gets a ``batch/v1`` CronJob that sets N at
scale-up and one that sets 0 at the end (a static NodePool) or at the event's start (a CapacityBuffer, which would
refill as real pods take its room), and a failsafe that sets 0 again ``failsafeGrace`` after that edge: a second,
independent run, so a scale-down whose Job failed, whose deadline passed, or whose CronJob was created (by a slow
`pulumi up`) after its edge still ends at 0 by then, and a one-off's scale-up is disarmed even if its scale-down
never ran. Each run is bounded inside its half of the window: it may start as late as
``startingDeadlineSeconds`` and its Job retries until ``activeDeadlineSeconds``, and both together end a margin
before the other run's edge, so the two can never race and the last writer is always the right one. A missed edge
(a controller down across it, a failing Job) is so recovered as soon as the cause clears within its half, and an
object created mid-window starts at the count it must have (:meth:`DriverSchedule.created_replicas`), since a new
CronJob never runs a schedule from before its creation; a `pulumi up` away from the edges also registers a Job that
sets that count at once on an existing object (:meth:`DriverSchedule.converge`). Pure: the components render the
runs. Details: docs/internals.md (`prescale.model.schedule.drivers`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from ..config import EventWindow
from ..values.cron import (
    CronSpec,
    dated_cron,
    epoch_seconds,
    fire_timestamps,
    next_fire,
    next_fire_timestamp,
    parse_cron,
)
from ..values.duration import format_duration
from ..values.time_zones import load_zone
from .dst import dst_problem, dst_problem_local
from .keda import DAY, Occurrence, one_off
from .shift import shift_cron

# Kubernetes' CronJob and Job controllers (kubernetes/kubernetes pkg/controller/cronjob/cronjob_controllerv2.go and
# utils.go; the kubelet's container restart back-off, pkg/kubelet/kubelet.go). Docs/internals.md says why each value.
CONCURRENCY_POLICY = "Forbid"  # a run never starts while the previous one of the same CronJob is still active
RESTART_POLICY = "OnFailure"  # a failed kubectl restarts in its pod, after the kubelet's back-off
RETRY_FIRST = 10  # seconds before the first restart; it doubles after each failure
RETRY_CAP = 300  # the kubelet's MaxContainerBackOff
SAFETY = 60  # seconds from a run's last possible act to the other run's edge: its pod's termination, a call in flight
MIN_BOUND = 60  # the least startingDeadlineSeconds and activeDeadlineSeconds (below 10 s a run may never start)
MAX_ACTIVE = 3_600  # a Job retries for at most an hour: a cause that outlasts it needs a person, not more retries
MAX_DEADLINE = 7 * DAY  # as the failsafe of a one-off: a run still due a week late starts
# A `pulumi up` registers a window's objects within this long after its clock: an object created up to this long
# before a scale-up starts at N (its scale-up CronJob may be created after the edge it would have run).
CREATION_LEAD = timedelta(minutes=30)
MIN_HALF = timedelta(seconds=SAFETY + 2 * MIN_BOUND)  # the shortest half a run fits in

Edge = Literal["end", "start"]  # where the count goes back to 0: a static NodePool's end, a CapacityBuffer's start
_YEAR = timedelta(days=366)
_MARGIN = 32 * DAY  # fires after the year that still pair with one in it
Bounds = tuple[int, int, int]  # startingDeadlineSeconds, activeDeadlineSeconds, backoffLimit


@dataclass(frozen=True)
class DriverRun:
    """One CronJob of a driver: at ``schedule`` (read in the window's zone) set the object's count to ``replicas``."""

    name: str  # the CronJob's
    schedule: str
    replicas: int
    starting_deadline_seconds: int
    active_deadline_seconds: int  # of its Job, from the Job's start
    backoff_limit: int  # restarts, more than fit in active_deadline_seconds: the deadline ends a failing run
    concurrency_policy: str = CONCURRENCY_POLICY
    restart_policy: str = RESTART_POLICY
    disarms: str | None = None  # a one-off's scale-down and failsafe delete this CronJob (its dated cron repeats)

    @property
    def spec(self) -> CronSpec:
        return parse_cron(self.schedule)

    @property
    def latest_act(self) -> int:
        """How long after its schedule this run can still write the count, in seconds (its bound in the half)."""
        return self.starting_deadline_seconds + self.active_deadline_seconds + SAFETY


@dataclass(frozen=True)
class ConvergeRun:
    """A Job (not a CronJob) that sets the count an object created at the plan's clock would get, once per half of
    the window and count: it runs when the `pulumi up` registers it, retries for at most ``active_deadline_seconds``
    (which end before the driver's next run that writes another count), and a new half or count replaces it."""

    name: str  # the Job's
    replicas: int
    # The last scale-up or scale-down fire (epoch seconds) before the plan's clock, the half's identity (a one-off's
    # dated crons fire every year: before its occurrence, a year earlier); None if neither fired in two years.
    since: int | None
    active_deadline_seconds: int
    backoff_limit: int


@dataclass(frozen=True)
class DriverSchedule:
    """The runs of one window's driver, in ``timezone``: ``up`` sets N, ``down`` sets 0, ``failsafe`` sets 0 again
    ``failsafeGrace`` later (both in the half from the scale-down to the next scale-up)."""

    timezone: str
    up: DriverRun
    down: DriverRun
    failsafe: DriverRun

    @property
    def runs(self) -> tuple[DriverRun, DriverRun, DriverRun]:
        """Every CronJob of the driver, in the order they fire."""
        return self.up, self.down, self.failsafe

    @property
    def zone(self) -> ZoneInfo:
        return load_zone(self.timezone)

    def fires_for(self, occurrence: Occurrence) -> tuple[datetime, datetime, datetime]:
        """When the CronJobs fire for ``occurrence``, from their own crons in the window's zone: the scale-up at its
        first fire from the occurrence's scale-up, the scale-down at its first fire after that (the occurrence's end,
        or its start for a buffer), the failsafe at its first fire after the scale-down."""
        up = next_fire(self.up.spec, self.zone, occurrence.scale_up - timedelta(seconds=1))
        assert up is not None  # the occurrence comes from the same cron, shifted as the driver's
        down = next_fire(self.down.spec, self.zone, up)
        assert down is not None
        failsafe = next_fire(self.failsafe.spec, self.zone, down)
        assert failsafe is not None
        return up, down, failsafe

    def replicas_at(self, moment: datetime) -> int:
        """The count the runs leave at ``moment`` (aware): the last one to fire wins."""
        at = epoch_seconds(moment)
        up = _last_fire(self.up.spec, self.zone, at)
        down = _last_fire(self.down.spec, self.zone, at)
        return self.up.replicas if up is not None and (down is None or up > down) else self.down.replicas

    def converge(self, name: str, now: datetime) -> ConvergeRun | None:
        """The one-shot run a `pulumi up` at ``now`` registers to set the count an object created then would get
        (:meth:`created_replicas`: an object set by hand, a ``nodes`` changed inside the window, a count a run
        missed for good), or ``None`` within :data:`CREATION_LEAD` + :data:`MIN_HALF` of the next run that writes
        another count: a registration that late could land after that edge and write the count from before it (that
        run sets it anyway, and the failsafe if the registration straddles a scale-down). Named by ``name``; its
        ``since`` (the last scale-up or scale-down at ``now``) and count make each half's run a new Job."""
        zone, at = self.zone, epoch_seconds(now)
        replicas = self.created_replicas(now)
        other = next_fire_timestamp((self.down if replicas else self.up).spec, zone, now)
        room = (at + MAX_DEADLINE if other is None else other) - epoch_seconds(now + CREATION_LEAD) - SAFETY
        if room < MIN_HALF.total_seconds() - SAFETY:
            return None
        last = max((fire for run in (self.up, self.down)
                    if (fire := _last_fire(run.spec, zone, at)) is not None), default=None)
        active = min(MAX_ACTIVE, room)
        return ConvergeRun(name, replicas, last, active, retries_within(active))

    def created_replicas(self, now: datetime) -> int:
        """The count an object created by a `pulumi up` at ``now`` starts with: N inside the window and within
        :data:`CREATION_LEAD` before a scale-up (its CronJob may exist only after that edge), else 0."""
        scale_up = next_fire_timestamp(self.up.spec, self.zone, now)
        soon = scale_up is not None and scale_up <= epoch_seconds(now + CREATION_LEAD)
        return self.up.replicas if soon else self.replicas_at(now)


def driver_crons(window: EventWindow, until: Edge) -> tuple[str, str]:
    """The scale-up and scale-down crons, read in ``window.timezone``: the lead-shifted start (KEDA's own) and the end
    or start; dated ones for a one-off. ``ValueError`` when the scale-up is not one cron."""
    if window.is_one_off:
        occurrence = one_off(window)
        off = occurrence.end if until == "end" else occurrence.start
        return dated_cron(occurrence.scale_up), dated_cron(off)
    return shift_cron(window.start, -window.lead), window.end if until == "end" else window.start


def driver_schedule(window: EventWindow, replicas: int, until: Edge, names: tuple[str, str, str],
                    grace: timedelta, now: datetime) -> DriverSchedule:
    """``window``'s driver: N (``replicas``) at scale-up, 0 at ``until`` and again at ``until`` + ``grace``;
    ``names``: the three CronJobs'. ``ValueError`` as :func:`run_bounds` and :func:`failsafe_bounds`."""
    up_cron, down_cron = driver_crons(window, until)
    up_bounds, down_bounds = run_bounds(window, until, now)
    disarms = names[0] if window.is_one_off else None
    up = DriverRun(names[0], up_cron, replicas, *up_bounds)
    down = DriverRun(names[1], down_cron, 0, *down_bounds, disarms=disarms)
    failsafe = DriverRun(names[2], failsafe_cron(window, until, grace), 0,
                         *failsafe_bounds(window, until, grace, now), disarms=disarms)
    return DriverSchedule(window.timezone, up, down, failsafe)


def failsafe_cron(window: EventWindow, until: Edge, grace: timedelta) -> str:
    """The failsafe's cron, read in ``window.timezone``: the scale-down's moved ``grace`` later (on the wall clock,
    as the placeholders' failsafe). ``ValueError`` when that is not one cron."""
    if window.is_one_off:
        return dated_cron(_local_edge(window, until) + grace)
    return shift_cron(driver_crons(window, until)[1], grace)


def _local_edge(window: EventWindow, until: Edge) -> datetime:
    """A one-off's scale-down, as a naive local date-time."""
    return window.local_end if until == "end" else window.local_start


def failsafe_bounds(window: EventWindow, until: Edge, grace: timedelta, now: datetime) -> Bounds:
    """The failsafe's bounds: like the scale-down's (:func:`_bounds`), over the shortest time from its fire after a
    scale-down to the first scale-up after that scale-down, so that even its latest act never lands in the next
    occurrence. ``ValueError`` when that is shorter than :data:`MIN_HALF` (negative when the failsafe would fire after
    that scale-up), or when the failsafe is not one cron."""
    what = (f"from the failsafe at {'the end' if until == 'end' else 'the start'} + {format_duration(grace)} to the "
            "next scale-up")
    if window.is_one_off:
        failsafe_cron(window, until, grace)
        return _bounds(None, what)
    up_cron, down_cron = driver_crons(window, until)
    zone = load_zone(window.timezone)
    since, horizon = epoch_seconds(now), epoch_seconds(now + _YEAR)
    ups = list(fire_timestamps(parse_cron(up_cron), zone, since, horizon + _MARGIN))
    fires = list(fire_timestamps(parse_cron(failsafe_cron(window, until, grace)), zone, since, horizon + _MARGIN))
    halves = [up - fire for down in fire_timestamps(parse_cron(down_cron), zone, since, horizon)
              if (up := _after(down, ups)) is not None and (fire := _after(down - 1, fires)) is not None]
    return _bounds(min(halves, default=None), what)


def failsafe_problem(window: EventWindow, until: Edge, grace: timedelta, now: datetime) -> str | None:
    """Why the driver's failsafe of ``window`` (valid, its driver's halves too) cannot run once after each scale-down
    and before the next scale-up, or ``None``: not one cron, in a DST gap or repeated hour, or too late."""
    try:
        cron = failsafe_cron(window, until, grace)
        failsafe_bounds(window, until, grace, now)
    except ValueError as error:  # says which failsafe
        return str(error)
    if window.is_one_off:
        problem = dst_problem_local(_local_edge(window, until) + grace, window.timezone)
    else:
        problem = dst_problem(cron, window.timezone, now)
    return f"the failsafe ({cron!r} in {window.timezone}): {problem}" if problem else None


def _after(moment: int, fires: list[int]) -> int | None:
    """The first of ``fires`` (sorted) after ``moment``."""
    index = bisect_right(fires, moment)
    return fires[index] if index < len(fires) else None


def run_bounds(window: EventWindow, until: Edge, now: datetime) -> tuple[Bounds, Bounds]:
    """The scale-up's and the scale-down's bounds: each splits its shortest half over the coming year less
    :data:`SAFETY` (:func:`_bounds`). ``ValueError`` naming the half when one is shorter than :data:`MIN_HALF`, or when
    the scale-up is not one exact cron."""
    up_half, down_half = halves(window, until, now)
    off = "the end" if until == "end" else "the event's start"
    return (_bounds(up_half, f"from scale-up to {off}"), _bounds(down_half, f"from {off} to the next scale-up"))


def halves(window: EventWindow, until: Edge, now: datetime) -> tuple[int | None, int | None]:
    """The shortest time, in seconds, from a fire of the scale-up cron to the next fire of the scale-down one, and
    from a scale-down to the next scale-up, over the coming year (``None``: no next fire, as after a one-off)."""
    if window.is_one_off:
        occurrence = one_off(window)
        off = occurrence.end_utc if until == "end" else occurrence.start_utc
        return epoch_seconds(off) - epoch_seconds(occurrence.scale_up_utc), None
    up_cron, down_cron = driver_crons(window, until)
    zone = load_zone(window.timezone)
    since, horizon = epoch_seconds(now), epoch_seconds(now + _YEAR)
    ups = list(fire_timestamps(parse_cron(up_cron), zone, since, horizon + _MARGIN))
    downs = list(fire_timestamps(parse_cron(down_cron), zone, since, horizon + _MARGIN))
    return (min((gap for fire in ups if fire < horizon and (gap := _gap(fire, downs)) is not None), default=None),
            min((gap for fire in downs if fire < horizon and (gap := _gap(fire, ups)) is not None), default=None))


def _gap(fire: int, others: list[int]) -> int | None:
    """Seconds from ``fire`` to the first of ``others`` at or after it (0 when both fire at once)."""
    index = bisect_right(others, fire - 1)
    return others[index] - fire if index < len(others) else None


def _bounds(half: int | None, what: str) -> Bounds:
    """``startingDeadlineSeconds``, ``activeDeadlineSeconds`` and ``backoffLimit`` of a run whose half lasts ``half``
    seconds at the shortest: the Job keeps half of what is left (at most :data:`MAX_ACTIVE`), the late start the
    rest (at most :data:`MAX_DEADLINE`)."""
    budget = MAX_ACTIVE + MAX_DEADLINE if half is None else half - SAFETY
    if budget < 2 * MIN_BOUND:
        shortest = format_duration(timedelta(seconds=max(half or 0, 0)))
        raise ValueError(f"its driver needs at least {format_duration(MIN_HALF)} {what} (a run may start up to "
                         f"{MIN_BOUND} s late and retry for {MIN_BOUND} s more, and must end {SAFETY} s before the "
                         f"other run's edge), and that is {shortest} at the shortest")
    active = min(MAX_ACTIVE, budget // 2)
    return min(MAX_DEADLINE, budget - active), active, retries_within(active)


def retries_within(seconds: int) -> int:
    """How many restarts the kubelet's back-off (:data:`RETRY_FIRST` doubling up to :data:`RETRY_CAP`) fits in
    ``seconds``, plus one: as a ``backoffLimit``, the Job's deadline rather than its count ends a failing run."""
    waited, delay, count = 0, RETRY_FIRST, 0
    while waited + delay <= seconds:
        waited, delay, count = waited + delay, min(2 * delay, RETRY_CAP), count + 1
    return count + 1


def _last_fire(spec: CronSpec, zone: ZoneInfo, at: int) -> int | None:
    """The last fire at or before ``at`` (epoch seconds) within two years, or ``None``."""
    lookback = 8 * DAY
    while lookback <= 2 * 366 * DAY:
        fires = list(fire_timestamps(spec, zone, at - lookback, at + 1))
        if fires:
            return fires[-1]
        lookback *= 4
    return None
