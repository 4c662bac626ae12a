"""What happens after a window ends: KEDA scales the placeholders to zero, the nodes stay for their tail, and a
failsafe scales down if KEDA does not.

KEDA's timings (which the ScaledObject renders), the tail a window's nodes outlive its end by, per strategy (which
``prescale schedule`` prices and a window's capacity reservations last for), and the failsafe's schedule and the
rules that keep its run out of the next occurrence. What the user sees: docs/capacity.md#a-windows-timeline and
docs/guardrails.md#3-the-failsafe-when-keda-fails-at-a-windows-end.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from math import ceil
from zoneinfo import ZoneInfo

from ..config import EventWindow
from ..values.cron import dated_cron
from ..values.duration import format_duration
from ..values.time_zones import load_zone
from .dst import dst_problem, dst_problem_local, wall_shifted
from .keda import occurrence_instants
from .shift import shift_cron

# --- KEDA's timings ------------------------------------------------------------------------------------

POLLING_INTERVAL_SECONDS = 15  # KEDA writes N within 15 s of the window opening (default 30)
# After the window closes, KEDA waits this long since the last poll that saw it open, then writes 0.
# One minute absorbs a missed poll without keeping nodes long.
COOLDOWN_SECONDS = 60
# A ScaledObject never active yet (just created outside its window) scales a Deployment the API server
# defaulted to 1 replica (a GitOps apply without `replicas`) to 0 at KEDA's first poll.
INITIAL_COOLDOWN_SECONDS = 0
IDLE_REPLICAS = 0  # outside windows; KEDA's docs: the only supported idleReplicaCount

# --- the tail ------------------------------------------------------------------------------------------


KEDA_COOLDOWN = timedelta(seconds=COOLDOWN_SECONDS)  # the placeholders outlive the end by this much


DRAIN = timedelta(minutes=1)  # an emptied node's drain and termination: nothing to evict (an assumption)


# --- the failsafe --------------------------------------------------------------------------------------


# The longest failsafeGrace: a scale-down that waits longer than a day guards nothing.
MAX_GRACE = timedelta(days=1)


# The shortest: KEDA itself writes 0 up to one poll plus its cooldown after the end (keda_timing); a failsafe that
# runs before that, in whole minutes, would do KEDA's job at every end instead of standing in when KEDA fails.
MIN_GRACE = timedelta(minutes=ceil((POLLING_INTERVAL_SECONDS + COOLDOWN_SECONDS) / 60))


_YEAR = timedelta(days=366)
_SECOND = timedelta(seconds=1)


def starting_deadline(window: EventWindow) -> timedelta:
    """How late the CronJob controller may still start a missed run (``startingDeadlineSeconds``).

    Recurring: a few minutes, so that a controller outage never makes the run land in the next occurrence
    (the config checks count it in). One-off: a week, because its next fire is a year away, and a late
    run still disarms the event's trigger before it can repeat next year.
    """
    return timedelta(days=7) if window.is_one_off else timedelta(minutes=5)


def failsafe_schedule(window: EventWindow, grace: timedelta) -> str:
    """The CronJob's schedule, read in ``window.timezone``: the window's end moved ``grace`` later.

    A one-off gets a dated cron (``M H D Mon *``) like its KEDA trigger; ``ValueError`` when a recurring
    end cannot be shifted as one cron (see :func:`prescale.model.schedule.shift.shift_cron`).
    """
    if window.is_one_off:
        return dated_cron(window.local_end + grace)
    return shift_cron(window.end, grace)


def grace_problem(grace: timedelta) -> str | None:
    """What is wrong with ``placeholders.failsafeGrace`` on its own, or ``None``."""
    if grace % timedelta(minutes=1):
        return "must be whole minutes: a CronJob schedule has no seconds field"
    if grace < MIN_GRACE:
        return (f"must be at least {format_duration(MIN_GRACE)}: KEDA itself scales the placeholders to zero up to "
                f"{format_duration(timedelta(seconds=POLLING_INTERVAL_SECONDS + COOLDOWN_SECONDS))} after each end "
                f"(its cooldownPeriod of {COOLDOWN_SECONDS}s after its last poll, {POLLING_INTERVAL_SECONDS}s apart), "
                "so an earlier failsafe would do KEDA's job at every end instead of standing in when KEDA fails")
    if grace > MAX_GRACE:
        return f"must be at most {format_duration(MAX_GRACE)}: a failsafe that waits longer guards nothing"
    return None


def failsafe_problem(window: EventWindow, grace: timedelta, now: datetime) -> str | None:
    """Why ``window``'s failsafe would not run exactly once after each occurrence, or ``None``.

    ``window`` must already be valid on its own (the other config checks passed), ``grace`` too.
    """
    try:
        cron = failsafe_schedule(window, grace)
    except ValueError as error:
        return f"the failsafe scale-down at end + {format_duration(grace)} is not one cron: {error}"
    if window.is_one_off:
        problem = dst_problem_local(window.local_end + grace, window.timezone)
    else:
        problem = dst_problem(cron, window.timezone, now) or _reaches_next_window(window, grace, now)
    return f"the failsafe scale-down ({cron!r} in {window.timezone}): {problem}" if problem else None


def _reaches_next_window(window: EventWindow, grace: timedelta, now: datetime) -> str | None:
    """Whether a failsafe run, started as late as allowed, falls into the next occurrence of the window."""
    # The same year the freeze check walked, so the occurrences come from their cache.
    occurrences = occurrence_instants(window.start, window.end, window.timezone, window.lead, now, now + _YEAR)
    tz = load_zone(window.timezone)
    latest = starting_deadline(window)
    latest_seconds = latest // _SECOND
    ends, next_scale_ups = list(occurrences.ends[:-1]), occurrences.scale_ups[1:]
    # The failsafe cron is the end's moved by the grace on the wall clock, so each end's run is its wall time plus
    # the grace; even started as late as the CronJob controller allows, it must come before the next scale-up.
    runs = wall_shifted(ends, grace, tz)
    for ended, run, next_scale_up in zip(ends, runs, next_scale_ups, strict=True):
        if run + latest_seconds >= next_scale_up:
            return _runs_into_next(ended, run, next_scale_up, latest, tz)
    return None


def _runs_into_next(ended: int, run: int, next_scale_up: int, latest: timedelta, tz: ZoneInfo) -> str:
    """The problem of a failsafe run (for the occurrence ``ended``) that may start at or after the next scale-up."""
    longest = timedelta(seconds=next_scale_up - ended) - latest - timedelta(minutes=1)
    allowed = (f"a failsafeGrace from {format_duration(MIN_GRACE)} to {format_duration(longest)}"
               if longest >= MIN_GRACE else
               f"a next scale-up more than {format_duration(MIN_GRACE + latest)} after each end")
    return (f"would run at {_show(run, tz)} (or up to {format_duration(latest)} later), not before the "
            f"next scale-up at {_show(next_scale_up, tz)}, and empty an "
            f"open window; allowed: {allowed}")


def _show(instant: int, tz: ZoneInfo) -> str:
    return f"{datetime.fromtimestamp(instant, tz):%a %Y-%m-%d %H:%M %Z}"
