"""The drivers of static and buffer windows, run through a simulation of Kubernetes' CronJob and Job controllers
(tests/support/cronjob_controller.py): the object's count must follow the window within minutes, through missed
edges, failing Jobs and objects created mid-window, and never be N outside the window because of a late run."""

from datetime import UTC, datetime, timedelta

import pytest
from prescale.model.config import EventWindow
from prescale.model.schedule.drivers import (
    CREATION_LEAD,
    MIN_HALF,
    RETRY_CAP,
    SAFETY,
    DriverSchedule,
    driver_schedule,
    failsafe_bounds,
    halves,
    retries_within,
    run_bounds,
)
from prescale.model.schedule.keda import one_off, recurring_occurrences
from prescale.model.strategies.driven import driver_failsafe_name, driver_names

from tests.support.cronjob_controller import CALL, POD_START, Cluster, mismatches, run_cron_job, seconds, timeline

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
N = 4
GRACE = timedelta(minutes=15)
ON_TIME = POD_START + CALL  # how long after its edge a run's write lands, normally
MINUTE = 60

WINDOWS = {
    "daily": EventWindow(name="lunch", node_pool="event", timezone="Asia/Seoul", start="0 11 * * *",
                         end="0 13 * * *", nodes=N),
    "overnight": EventWindow(name="night", node_pool="event", timezone="America/New_York", start="0 22 * * 5",
                             end="0 2 * * 6", lead_time="30m", nodes=N),
    "dst": EventWindow(name="morning", node_pool="event", timezone="America/New_York", start="0 8 * * *",
                       end="0 10 * * *", nodes=N),
    "one-off": EventWindow(name="launch", node_pool="event", timezone="Asia/Seoul", start="2027-03-02T08:00",
                           end="2027-03-02T12:00", nodes=N),
}
# Where each is simulated: a few occurrences (the DST one across New York's spring change, 2027-03-14).
SPANS = {"daily": (datetime(2026, 12, 1, tzinfo=UTC), 3), "overnight": (datetime(2026, 12, 3, tzinfo=UTC), 16),
         "dst": (datetime(2027, 3, 12, tzinfo=UTC), 5), "one-off": (datetime(2027, 3, 1, tzinfo=UTC), 3)}
CASES = [(kind, until) for kind in WINDOWS for until in ("end", "start")]


def _driver(kind: str, until: str) -> DriverSchedule:
    window = WINDOWS[kind]
    names = (*driver_names(window.name), driver_failsafe_name(window.name))
    return driver_schedule(window, N, until, names, GRACE, NOW)  # type: ignore[arg-type]


def _spans(kind: str, until: str) -> list[tuple[int, int]]:
    """When the count must be N: each occurrence's [scale-up, end) (static) or [scale-up, start) (buffer)."""
    window, (since, days) = WINDOWS[kind], SPANS[kind]
    if window.is_one_off:
        occurrences = [one_off(window)]
    else:
        occurrences = recurring_occurrences(window.start, window.end, window.timezone, window.lead, since,
                                            since + timedelta(days=days))
    return [(seconds(o.scale_up), seconds(o.end if until == "end" else o.start)) for o in occurrences]


CALM = Cluster()  # nothing goes wrong


def _simulate(kind: str, until: str, cluster: Cluster = CALM, created: int | None = None,
              cron_jobs_created: int | None = None, initial: int | None = None):
    """The object's count over the simulated span, with the two CronJobs and the object created at ``created`` (by
    default the span's start), the CronJobs possibly later (a slow `pulumi up`)."""
    driver, (since, days) = _driver(kind, until), SPANS[kind]
    start = seconds(since) if created is None else created
    end = seconds(since + timedelta(days=days))
    jobs_at = start if cron_jobs_created is None else cron_jobs_created
    writes = [write for run in driver.runs for write in run_cron_job(run, driver.timezone, jobs_at, end, cluster)]
    initial = driver.created_replicas(datetime.fromtimestamp(start, UTC)) if initial is None else initial
    spans = _spans(kind, until)
    expected = lambda moment: N if any(a <= moment < b for a, b in spans) else 0  # noqa: E731
    steps = timeline(initial, start, writes)
    return steps, mismatches(steps, expected, [edge for span in spans for edge in span], end), spans


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_normal_runs_follow_the_window(kind, until):
    _, wrong, spans = _simulate(kind, until)
    assert spans
    assert all(end - start <= ON_TIME for start, end, _ in wrong), wrong


def test_dst_moves_the_runs_with_the_local_clock():
    """New York springs forward on 2027-03-14: the 07:50 scale-up is 12:50 UTC before and 11:50 UTC after."""
    steps, wrong, _ = _simulate("dst", "end")
    ups = [datetime.fromtimestamp(moment - ON_TIME, UTC) for moment, count in steps if count == N]
    assert [f"{up:%d %H:%M}" for up in ups] == ["12 12:50", "13 12:50", "14 11:50", "15 11:50", "16 11:50"]
    assert all(end - start <= ON_TIME for start, end, _ in wrong)


def _late(wrong):
    return [entry for entry in wrong if entry[1] - entry[0] > ON_TIME]


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_controller_down_across_an_edge_within_the_deadline_runs_it_at_restart(kind, until):
    driver = _driver(kind, until)
    for run, edge in ((driver.up, _spans(kind, until)[0][0]), (driver.down, _spans(kind, until)[0][1])):
        back = edge + min(run.starting_deadline_seconds, 6 * 3600) - MINUTE  # within the simulated span
        _, wrong, _ = _simulate(kind, until, Cluster(controller_down=[(edge - 2 * MINUTE, back)]))
        assert _late(wrong) == [(edge, back + ON_TIME, 0 if run is driver.up else N)], (run.name, wrong)


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_controller_down_past_the_deadline_misses_the_scale_up_and_never_sets_n_late(kind, until):
    driver = _driver(kind, until)
    (scale_up, off), *_ = _spans(kind, until)
    back = scale_up + driver.up.starting_deadline_seconds + MINUTE
    steps, wrong, _ = _simulate(kind, until, Cluster(controller_down=[(scale_up - 2 * MINUTE, back)]))
    assert wrong[0][:3] == (scale_up, off, 0)  # the occurrence gets nothing ...
    assert all(end - start <= ON_TIME for start, end, _ in wrong[1:])  # ... and the next ones are whole
    assert not [moment for moment, count in steps if count == N and moment < off]


@pytest.mark.parametrize("kind", [kind for kind in WINDOWS if kind != "one-off"])
def test_controller_down_past_the_scale_down_deadline_keeps_n_until_the_next_end(kind):
    driver = _driver(kind, "end")
    (_, first_end), (second_up, second_end), *_ = _spans(kind, "end")
    back = first_end + driver.down.starting_deadline_seconds + MINUTE
    assert back < second_up
    _, wrong, _ = _simulate(kind, "end", Cluster(controller_down=[(first_end - MINUTE, back)]))
    assert _late(wrong) == [(first_end, second_up, N)]  # the nodes stay (a cost), and the next end removes them


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_a_failing_first_job_is_retried_until_it_sets_the_count(kind, until):
    driver = _driver(kind, until)
    (scale_up, _), *_ = _spans(kind, until)
    cleared = scale_up + driver.up.active_deadline_seconds // 2
    _, wrong, _ = _simulate(kind, until, Cluster(api_failing=[(scale_up, cleared)]))
    assert wrong[0][0] == scale_up and cleared < wrong[0][1] <= cleared + RETRY_CAP + CALL, wrong
    assert all(end - start <= ON_TIME for start, end, _ in wrong[1:])


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_objects_created_mid_window_start_at_n(kind, until):
    (scale_up, off), *_ = _spans(kind, until)
    created = scale_up + (off - scale_up) // 2
    steps, wrong, _ = _simulate(kind, until, created=created)
    assert steps[0] == (created, N)
    assert all(end - start <= ON_TIME for start, end, _ in wrong), wrong
    up = _driver(kind, until).up  # a new CronJob runs no fire from before its creation: N comes from the object
    assert [moment for moment, _ in run_cron_job(up, WINDOWS[kind].timezone, created, off, Cluster())] == []


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_a_slow_pulumi_up_that_creates_the_cron_jobs_after_the_scale_up_still_holds_n(kind, until):
    """The object is planned 5 minutes before the scale-up and its CronJobs exist only 2 minutes after it: the
    scale-up CronJob never runs that fire, so the object must start at N (`CREATION_LEAD`)."""
    (scale_up, _), *_ = _spans(kind, until)
    planned = scale_up - 5 * MINUTE
    steps, wrong, _ = _simulate(kind, until, created=planned, cron_jobs_created=scale_up + 2 * MINUTE)
    assert steps[0] == (planned, N)
    assert [entry for entry in wrong if entry[0] >= scale_up and entry[1] - entry[0] > ON_TIME] == []


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_each_run_ends_before_the_other_edge(kind, until):
    """Started as late as its deadline allows, and failing until the last attempt its Job's deadline leaves, a run
    still writes before the other run's edge: the two never race."""
    driver, spans = _driver(kind, until), _spans(kind, until)
    up_half, down_half = halves(WINDOWS[kind], until, NOW)  # type: ignore[arg-type]
    assert up_half is not None and driver.up.latest_act <= up_half
    assert down_half is None or driver.down.latest_act <= down_half
    (scale_up, off), *later = spans
    edges = [(driver.up, scale_up, off)] + ([(driver.down, off, later[0][0])] if later else [])
    for run, edge, other in edges:
        started = edge + run.starting_deadline_seconds - 1  # at the deadline itself, the fire is missed
        attempts = _attempts(started + POD_START, started + run.active_deadline_seconds)
        worst = Cluster(controller_down=[(edge - MINUTE, started)], api_failing=[(started, attempts[-1])])
        steps, _, _ = _simulate(kind, until, worst)
        written = [moment for moment, count in steps if count == run.replicas and edge < moment <= other]
        assert written == [attempts[-1] + CALL], (run.name, written)
        assert written[0] <= other - SAFETY + POD_START


def _attempts(first: int, stop: int) -> list[int]:
    """When a failing Job's kubectl runs, from its pod's start until the Job's deadline (the kubelet's back-off)."""
    moments, moment, delay = [], first, 10
    while moment + CALL <= stop:
        moments.append(moment)
        moment, delay = moment + CALL + delay, min(2 * delay, RETRY_CAP)
    return moments


def test_bounds_split_the_half_and_backoff_limit_outlasts_the_deadline():
    window = WINDOWS["daily"]
    (deadline, active, limit), (down_deadline, down_active, _) = run_bounds(window, "end", NOW)
    assert deadline + active + SAFETY == 130 * MINUTE and active == MINUTE * 60 and deadline == 69 * MINUTE
    assert down_active == 3600 and down_deadline + down_active + SAFETY == 22 * 60 * MINUTE - 10 * MINUTE
    assert limit == retries_within(active) and retries_within(310) == 6 and retries_within(309) == 5


def test_a_buffer_lead_time_shorter_than_the_least_half_is_refused():
    short = WINDOWS["daily"].model_copy(update={"lead_time": "2m"})
    with pytest.raises(ValueError, match=r"at least 3m from scale-up to the event's start"):
        run_bounds(short, "start", NOW)
    assert MIN_HALF == timedelta(minutes=3)
    fits = WINDOWS["daily"].model_copy(update={"lead_time": "3m"})
    (deadline, active, _), _ = run_bounds(fits, "start", NOW)
    assert (deadline, active) == (60, 60)


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_a_slow_pulumi_up_that_creates_the_cron_jobs_after_the_scale_down_ends_at_zero_by_the_failsafe(kind, until):
    """Planned 5 minutes before the scale-down, its CronJobs exist only 2 minutes after it: the scale-down never runs
    that fire (a new CronJob runs none from before its creation), and the failsafe sets 0 at its edge + the grace."""
    (_, off), *_ = _spans(kind, until)
    planned = off - 5 * MINUTE
    steps, wrong, _ = _simulate(kind, until, created=planned, cron_jobs_created=off + 2 * MINUTE)
    assert steps[0] == (planned, N)
    assert _late(wrong) == [(off, off + int(GRACE.total_seconds()) + ON_TIME, N)], wrong


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_the_failsafe_acts_before_the_next_scale_up_and_disarms_a_one_off(kind, until):
    driver, window = _driver(kind, until), WINDOWS[kind]
    (_, off), *later = _spans(kind, until)
    failsafe = driver.failsafe
    assert (failsafe.name, failsafe.replicas) == (f"failsafe-{window.name}", 0)
    if later:  # its latest act (started at its deadline, retried to its Job's end) lands before the next scale-up
        assert off + GRACE.total_seconds() + failsafe.latest_act <= later[0][0]
        assert failsafe.disarms is None
    else:
        assert failsafe.disarms == driver.up.name == f"scale-up-{window.name}"
        assert failsafe.starting_deadline_seconds == 7 * 86_400


def test_a_failsafe_grace_reaching_the_next_scale_up_is_refused_by_the_bounds():
    """Back-to-back hourly windows: a scale-down at :50 and the next scale-up at :00 leave no room for a failsafe
    10 minutes after the end (the config checks refuse such a grace first, as for placeholders)."""
    window = EventWindow(name="hourly", node_pool="event", timezone="UTC", start="0 * * * *", end="50 * * * *",
                         lead_time="0m", nodes=N)
    with pytest.raises(ValueError, match=r"from the failsafe at the end \+ 9m to the next scale-up"):
        failsafe_bounds(window, "end", timedelta(minutes=9), NOW)
    assert failsafe_bounds(window, "end", timedelta(minutes=2), NOW)[0] >= 60
    # 15 minutes after :50 is :05, after the next scale-up at :00 (and 55 minutes before the one after it)
    with pytest.raises(ValueError, match=r"to the next scale-up .* and that is 0s at the shortest"):
        failsafe_bounds(window, "end", timedelta(minutes=15), NOW)


# --- converging from any state --------------------------------------------------------------------------------------
# The bound the docs state (docs/capacity.md#the-failsafe-and-converging-from-any-state): whatever minute a `pulumi
# up` (or a new pool) plans the objects at, and however its registration lands up to APPLY_DELAY later, with new
# CronJobs and the object new or at any count, the count equals the window's at every instant except (a) N up to
# CREATION_LEAD before a scale-up (cost only), (b) N from a scale-down the registration straddled to that edge +
# failsafeGrace, (c) the ON_TIME a run (or the converge Job) takes after each edge (or its registration), and (d) an
# existing object at a wrong count registered within CREATION_LEAD + MIN_HALF of a run's next fire (no converge Job
# then), which is right from that run on.
APPLY_DELAY = 10 * MINUTE


def _calm_writes(kind: str, until: str) -> list[tuple[int, int, int]]:
    """(fire, write, count) of every run over the span with the CronJobs created before it; a CronJob created at c
    makes exactly the writes of its fires after c (CALM: each write is its fire + ON_TIME)."""
    driver, (since, days) = _driver(kind, until), SPANS[kind]
    start, end = seconds(since) - DAY_SECONDS, seconds(since + timedelta(days=days))
    writes = [(moment - ON_TIME, moment, count) for run in driver.runs
              for moment, count in run_cron_job(run, driver.timezone, start, end, CALM)]
    return sorted(writes)


DAY_SECONDS = 86_400


def _allowed(spans: list[tuple[int, int]], planned: int, registered: int):
    """Whether a mismatch (start, end, count) is within the stated bound."""
    lead, grace = int(CREATION_LEAD.total_seconds()), int(GRACE.total_seconds())

    def allowed(entry: tuple[int, int, int]) -> bool:
        start, end, count = entry
        if end - start <= ON_TIME and (start == registered or any(start in span for span in spans)):
            return True
        early = any(up - lead <= start and end <= up and planned >= up - lead for up, _ in spans)
        straddled = any(planned < off <= registered and off <= start and end <= off + grace + ON_TIME
                        for _, off in spans)
        return count == N and (early or straddled)
    return allowed


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_every_minute_of_a_day_converges_within_the_stated_bound(kind, until):
    """A `pulumi up` at every minute of the day around an occurrence (the DST window's on New York's spring-forward
    day), registering at once or APPLY_DELAY later, with new CronJobs and the object new or at any count."""
    spans = _spans(kind, until)
    scale_up, _ = spans[2 if kind == "dst" else 0]  # 2027-03-14 for the DST window
    calm = _calm_writes(kind, until)
    # Two days from that scale-up hold the day's registrations and the edges after them (an occurrence later than
    # that is the same whatever minute it was planned at).
    driver, end = _driver(kind, until), min(max(b for _, b in spans) + DAY_SECONDS // 2, scale_up + 2 * DAY_SECONDS)
    edges = [edge for span in spans for edge in span]
    expected = lambda moment: N if any(a <= moment < b for a, b in spans) else 0  # noqa: E731
    first = scale_up - DAY_SECONDS // 2
    for planned in range(first, first + DAY_SECONDS, MINUTE):
        converge = driver.converge("converge", datetime.fromtimestamp(planned, UTC))
        initial = driver.created_replicas(datetime.fromtimestamp(planned, UTC))
        for registered in (planned, planned + APPLY_DELAY):
            runs = [(moment, count) for fire, moment, count in calm if fire > registered]
            once = [(registered + ON_TIME, converge.replicas)] if converge else []
            for start_count in {initial, 0, N, N + 3}:  # a new object, or an existing one at any count
                wrong = mismatches(timeline(start_count, registered, runs + once), expected, edges, end)
                if start_count != initial and converge is None:  # (d): right from the next run on
                    next_run = min((moment for moment, _ in runs), default=end)
                    wrong = [entry for entry in wrong if entry[0] >= next_run]
                    assert next_run - registered <= CREATION_LEAD.total_seconds() + MIN_HALF.total_seconds() + ON_TIME
                assert all(map(_allowed(spans, planned, registered), wrong)), (planned, registered, wrong)
        if planned % (97 * MINUTE) == 0:  # the shortcut is the controller model itself
            full, _, _ = _simulate(kind, until, created=planned + APPLY_DELAY, initial=initial)
            short = timeline(initial, planned + APPLY_DELAY,
                             [(m, c) for fire, m, c in calm if fire > planned + APPLY_DELAY])
            assert [step for step in full if step[0] < end] == [step for step in short if step[0] < end]


@pytest.mark.parametrize(("kind", "until"), CASES)
def test_the_converge_job_sets_the_count_the_runs_left_and_ends_before_the_next_run(kind, until):
    driver = _driver(kind, until)
    (scale_up, off), *_ = _spans(kind, until)
    inside = driver.converge("converge-x", datetime.fromtimestamp((scale_up + off) // 2, UTC))
    if until == "end":
        assert inside is not None and (inside.name, inside.replicas, inside.since) == ("converge-x", N, scale_up)
        assert (scale_up + off) // 2 + CREATION_LEAD.total_seconds() + inside.active_deadline_seconds + SAFETY <= off
    else:  # a buffer's half before the event's start is its lead time (10m), shorter than a registration may take
        assert inside is None
    near = datetime.fromtimestamp(off - CREATION_LEAD.total_seconds(), UTC)
    assert driver.converge("converge-x", near) is None  # the scale-down (or the object's count) does it
    before = datetime.fromtimestamp(scale_up - 2 * 3600, UTC)
    outside = driver.converge("converge-x", before)
    if outside is not None:
        assert outside.replicas == 0
        assert epoch(before + CREATION_LEAD) + outside.active_deadline_seconds + SAFETY <= scale_up


def epoch(moment: datetime) -> int:
    return seconds(moment)
