"""Whether KEDA opens and closes each window exactly when the user means, every time over the coming year.

Part of the cross-key checks (:mod:`.stack` runs them): a start and end that do not strictly alternate, a fire in a
DST gap or overlap, a lead time that pairs a scale-up with the previous end, a cron KEDA's version cannot run, and
a consolidation freeze that cannot be one UTC budget are refused with the key at fault and what is allowed.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import compress, count
from operator import le
from zoneinfo import ZoneInfo

from ..config import LOCAL_DATETIME, EventWindow, KedaConfig
from ..schedule.dst import dst_problem, dst_problem_local, wall_shifted
from ..schedule.freezes import recurring_freeze
from ..schedule.instants import show_instant
from ..schedule.keda import DAY, END, START, events, interleaved, keda_window, occurrence_instants
from ..schedule.shift import ShiftError, shift_cron
from ..values.cron import CronSpec, epoch_seconds, fire_timestamps, next_fire_timestamp, parse_cron
from ..values.duration import format_duration
from ..values.time_zones import load_zone


def window_time_problems(path: str, window: EventWindow, now: datetime, freeze: bool = True) -> list[str]:
    """Whether KEDA would open and close this window exactly when the user means, every time, and (``freeze``:
    on a pool prescale owns) whether its consolidation freeze fits one UTC disruption budget."""
    if window.is_one_off != bool(LOCAL_DATETIME.match(window.end)):
        kinds = ("a date-time", "a cron") if window.is_one_off else ("a cron", "a date-time")
        return [f"{path}.end: {window.end!r} is {kinds[1]} but start {window.start!r} is {kinds[0]}; "
                "allowed: two crons (a recurring window) or two local date-times (a one-off event)"]
    if window.is_one_off:
        return _one_off_problems(path, window)
    return _recurring_problems(path, window, now, freeze)


def _one_off_problems(path: str, window: EventWindow) -> list[str]:
    if window.local_end <= window.local_start:
        return [f"{path}.end: {window.end!r} is not after start {window.start!r}; allowed: a later date-time"]
    problems = []
    moments = [("start", window.local_start), ("end", window.local_end)]
    if window.lead:
        moments.append(("leadTime", window.local_start - window.lead))
    for key, moment in moments:
        problem = dst_problem_local(moment, window.timezone)
        if problem:
            value = window.lead_time if key == "leadTime" else moment.isoformat(timespec="minutes")
            problems.append(f"{path}.{key}: {value!r}: {problem}")
    return problems


def _recurring_problems(path: str, window: EventWindow, now: datetime, freeze: bool) -> list[str]:
    if window.start.strip() == window.end.strip():
        return [f"{path}.end: {window.end!r} equals start; KEDA refuses identical start and end "
                "(kedacore/keda#2031); allowed: a different time"]
    try:
        scale_up = shift_cron(window.start, -window.lead)
    except ShiftError as error:
        return [f"{path}.leadTime: {window.lead_time!r} cannot move start {window.start!r} earlier exactly "
                f"({error}); allowed: {error.fix}"]
    problems, never = [], set()
    for key, expr in _crons(window, scale_up):
        if key == "leadTime" and "start" in never:
            continue  # the scale-up cron is the start moved: a start that never fires is reported once, there
        if problem := never_fires_problem(expr, window.timezone, now):
            never.add(key)
        if problem := problem or dst_problem(expr, window.timezone, now):
            problems.append(f"{path}.{key}: {_shown(window, key, expr)}: {problem}")
    if not problems:
        problem = alternation_problem(window.start, window.end, window.timezone, now)
        if problem:
            problems.append(f"{path}.end: start {window.start!r} and end {window.end!r} do not alternate: "
                            f"{problem}; allowed: the same days in start and end, e.g. '0 9 * * 1-5' → "
                            "'0 17 * * 1-5', or a window across days such as '0 18 * * 5' → '0 6 * * 1'")
    if not problems and window.lead:
        problem = lead_problem(window.start, window.end, window.timezone, window.lead, now)
        if problem:
            problems.append(f"{path}.leadTime: {window.lead_time!r}: {problem}")
    if not problems and freeze:
        problems += _freeze_problems(path, window, now)
    return problems


def _freeze_problems(path: str, window: EventWindow, now: datetime) -> list[str]:
    """Karpenter budgets are UTC crons: the window's freeze must be expressible as one."""
    try:
        recurring_freeze(window.start, window.end, window.timezone, window.lead, now)
    except ValueError as error:
        return [f"{path}.start: {window.start!r} in {window.timezone}: the consolidation freeze cannot be "
                f"written as one UTC disruption budget (Karpenter has no time zones): {error}; allowed: a start "
                "whose UTC time stays on the same day-of-month (the days named), or a day-of-week schedule"]
    return []


def cron_comma_problems(path: str, window: EventWindow, keda: KedaConfig) -> list[str]:
    """KEDA before 2.20 turns a comma in a cron into an invalid metric name: the ScaledObject never works.

    Each comma is blamed on the key that holds it: the scale-up cron's on ``leadTime`` only when moving the start
    earlier made it (the start's own comma is reported once, under ``start``)."""
    if keda.cron_commas_work or window.is_one_off:
        return []
    crons = [("start", window.start), ("end", window.end)]
    if window.lead and "," not in window.start:
        crons.append(("leadTime", shift_cron(window.start, -window.lead)))
    return [f"{path}.{key}: {_shown(window, key, expr)} has a comma, which KEDA {keda.version} "
            "(prescale:keda.version) turns into an invalid metric name (kedacore/keda#7448, fixed in 2.20.0); allowed: "
            "ranges such as '1-5' instead of lists, one window per list item, or KEDA 2.20.0 or newer"
            for key, expr in crons if "," in expr]


def _crons(window: EventWindow, scale_up: str) -> list[tuple[str, str]]:
    """The crons KEDA runs for a window, each with the key that sets it: the scale-up cron is ``leadTime``'s."""
    return [("start", window.start), ("end", window.end)] + ([("leadTime", scale_up)] if window.lead else [])


def _shown(window: EventWindow, key: str, expr: str) -> str:
    """A cron as the key that sets it shows it: a lead time with the scale-up cron it makes."""
    return f"{window.lead_time!r} (scale-up cron {expr!r})" if key == "leadTime" else repr(expr)


def never_fires_problem(expr: str, timezone: str, since: datetime) -> str | None:
    """A cron no date matches (``0 0 30 2 *``): robfig gives up after five years and returns the zero time."""
    if next_fire_timestamp(parse_cron(expr), load_zone(timezone), since) is not None:
        return None
    return (f"never fires: no date in the five years after {since:%Y-%m-%d} matches its day-of-month, month and "
            "day-of-week (as a start KEDA would keep the window always open, as an end never open it)")


def alternation_problem(start: str, end: str, timezone: str, since: datetime, days: int = 366) -> str | None:
    """Whether start and end fires strictly alternate (start, end, start...) over ``days`` from ``since``.

    KEDA only looks at which fire comes next, so two starts in a row open the window at the second one, two
    ends in a row keep it open from the start before them to the last end (kedacore/keda#4677), and a start
    and an end at the same instant count as an end. The event just before ``since`` is included so that a run
    straddling ``since`` is found too.
    """
    if start.strip() == end.strip():
        return f"start and end are the same cron {end.strip()!r}, which KEDA refuses (kedacore/keda#2031)"
    start_spec, end_spec, tz = keda_window(start, end, timezone)
    first = epoch_seconds(since)
    before = _event_before(start_spec, end_spec, tz, first, days)
    if before is None or before[1] != START | END:  # first, without an event-by-event walk: do they alternate?
        starts, ends = (list(fire_timestamps(spec, tz, first, first + days * DAY)) for spec in (start_spec, end_spec))
        if before is not None:
            (starts if before[1] == START else ends).insert(0, before[0])
        if interleaved(starts, ends) or interleaved(ends, starts):
            return None
    fires = events(start_spec, end_spec, tz, first, first + days * DAY)
    stream = fires if before is None else [before, *fires]
    run: list[int] = []
    run_kind = opened = None
    for instant, kind in stream:
        if kind == START | END:
            return (f"start and end both fire at {show_instant(instant, tz)}: KEDA counts that as an end only, so the "
                    "window closes there and the start is lost")
        if kind != run_kind:
            if len(run) > 1:
                return _run_problem(run_kind, run, opened, tz)
            opened = run[-1] if run and kind == END else None
            run, run_kind = [], kind
        run.append(instant)
    return _run_problem(run_kind, run, opened, tz) if len(run) > 1 else None


def _event_before(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, instant: int,
                  days: int) -> tuple[int, int] | None:
    """The last event before ``instant`` within ``days`` (look-back doubling from a week: cheap when daily)."""
    lookback = 8
    while True:
        earlier = events(start_spec, end_spec, tz, instant - min(lookback, days) * DAY, instant)
        if earlier or lookback >= days:
            return earlier[-1] if earlier else None
        lookback *= 2


def _run_problem(kind: int | None, run: list[int], opened: int | None, tz: ZoneInfo) -> str:
    fires = f"{len(run)} times in a row ({show_instant(run[0], tz)} … {show_instant(run[-1], tz)})"
    if kind == START:
        return (f"start fires {fires} with no end in between: KEDA ignores all but the last, so the window "
                f"opens only at {show_instant(run[-1], tz)}")
    since = f"from {show_instant(opened, tz)} " if opened is not None else ""
    return (f"end fires {fires} with no start in between: KEDA keeps the window open {since}until "
            f"{show_instant(run[-1], tz)} (kedacore/keda#4677)")


def lead_problem(start: str, end: str, timezone: str, lead: timedelta, since: datetime,
                 days: int = 366) -> str | None:
    """Whether the lead time moves a scale-up to or before the end of the previous occurrence.

    KEDA pairs each scale-up with the *next* end, so a lead longer than the gap between occurrences makes it
    open and close the window within the gap (``0 9 * * *`` → ``0 17 * * *`` with 17h: open 16:00-17:00).
    """
    try:
        occurrences = occurrence_instants(start, end, timezone, timedelta(0), since - lead - timedelta(days=2),
                                          since + timedelta(days=days))
    except ValueError as error:
        return str(error)
    if len(occurrences) < 2:
        return None
    tz = load_zone(timezone)
    previous_ends, begins_after = list(occurrences.ends[:-1]), list(occurrences.starts[1:])
    scale_ups = wall_shifted(begins_after, -lead, tz)
    late = next(compress(count(), map(le, scale_ups, previous_ends)), None)  # the first to reach the previous end
    if late is None:
        return None
    gap = min(begins - ended for ended, begins in zip(previous_ends, begins_after, strict=True))
    return (f"lead time {format_duration(lead)} moves the scale-up for {show_instant(begins_after[late], tz)} to "
            f"{show_instant(scale_ups[late], tz)}, not after the previous occurrence's end "
            f"({show_instant(previous_ends[late], tz)}): KEDA would pair it with that earlier end; allowed: less "
            f"than {format_duration(timedelta(seconds=gap))}")
