"""Window semantics against KEDA v2.20's cron scaler and Karpenter's budget rule (shared/reference keda.md §1.3,
karpenter.md §4): activity, occurrences, lead shift, UTC budgets and the validation helpers.

Calendar used below: 2026-06-01 and 2026-03-09 are Mondays; 2027-01-01 is a Friday. DST: New York
2026-03-08 02:00→03:00 and 2026-11-01 02:00→01:00; Berlin 2026-03-29 02:00→03:00 and 2026-10-25 03:00→02:00.
"""

import re
from bisect import bisect_left
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from prescale.model.checks.window_times import alternation_problem, lead_problem, never_fires_problem
from prescale.model.schedule.dst import dst_problem, dst_problem_local, wall_shifted
from prescale.model.schedule.freezes import Freeze, freeze_active, one_off_freeze, recurring_freeze
from prescale.model.schedule.keda import (
    DAY,
    Occurrence,
    _scan_intervals,
    cron_window_active,
    interleaved,
    keda_intervals,
    keda_window,
    one_off_occurrence,
    one_off_problem,
    one_off_trigger,
    recurring_occurrences,
)
from prescale.model.schedule.shift import shift_cron
from prescale.model.values.cron import epoch_seconds, fire_timestamps, parse_cron
from prescale.model.values.duration import parse_duration

UTC = ZoneInfo("UTC")
SEOUL = ZoneInfo("Asia/Seoul")
BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
H, M = timedelta(hours=1), timedelta(minutes=1)
KARPENTER_DURATION = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")


def at(*fields, tz=UTC, fold=0) -> datetime:
    return datetime(*fields, tzinfo=tz, fold=fold)


def z(*fields) -> datetime:
    """A UTC instant with datetime.timezone.utc, for comparing with ``*_utc`` values."""
    return datetime(*fields, tzinfo=timezone.utc)


# --- KEDA's activity rule -------------------------------------------------------------------------------

ACTIVITY = [
    # window [start, end) at one-second granularity
    ("0 9 * * *", "0 17 * * *", SEOUL, at(2026, 6, 1, 9, tz=SEOUL), True),
    ("0 9 * * *", "0 17 * * *", SEOUL, at(2026, 6, 1, 8, 59, 59, 999_000, tz=SEOUL), False),
    ("0 9 * * *", "0 17 * * *", SEOUL, at(2026, 6, 1, 16, 59, 59, 999_000, tz=SEOUL), True),
    ("0 9 * * *", "0 17 * * *", SEOUL, at(2026, 6, 1, 17, tz=SEOUL), False),
    ("0 9 * * *", "0 17 * * *", SEOUL, at(2026, 6, 1, 3, tz=SEOUL), False),
    ("0 9 * * *", "0 17 * * *", SEOUL, at(2026, 6, 1, 0), True),               # 09:00 KST given in UTC
    # across midnight
    ("0 22 * * *", "0 6 * * *", UTC, at(2026, 6, 1, 23), True),
    ("0 22 * * *", "0 6 * * *", UTC, at(2026, 6, 2, 5, 59, 59), True),
    ("0 22 * * *", "0 6 * * *", UTC, at(2026, 6, 2, 6), False),
    ("0 22 * * *", "0 6 * * *", UTC, at(2026, 6, 2, 21, 59, 59), False),
    ("0 22 * * *", "0 6 * * *", SEOUL, at(2026, 6, 1, 23, 30, tz=SEOUL), True),
    # across days: Monday 09:00 to Friday 17:00
    ("0 9 * * MON", "0 17 * * FRI", UTC, at(2026, 6, 1, 8, 59), False),
    ("0 9 * * MON", "0 17 * * FRI", UTC, at(2026, 6, 1, 9), True),
    ("0 9 * * MON", "0 17 * * FRI", UTC, at(2026, 6, 3, 12), True),
    ("0 9 * * MON", "0 17 * * FRI", UTC, at(2026, 6, 5, 16, 59), True),
    ("0 9 * * MON", "0 17 * * FRI", UTC, at(2026, 6, 5, 17), False),
    ("0 9 * * MON", "0 17 * * FRI", UTC, at(2026, 6, 7, 12), False),
    # kedacore/keda#4677: weekday start, daily end → open from Friday's end to Sunday's end
    ("0 9 * * 1-5", "0 17 * * *", UTC, at(2026, 6, 5, 18), True),
    ("0 9 * * 1-5", "0 17 * * *", UTC, at(2026, 6, 6, 12), True),
    ("0 9 * * 1-5", "0 17 * * *", UTC, at(2026, 6, 7, 16, 59), True),
    ("0 9 * * 1-5", "0 17 * * *", UTC, at(2026, 6, 7, 17), False),
    ("0 9 * * 1-5", "0 17 * * *", UTC, at(2026, 6, 8, 8), False),
    # daily start, Friday end → only Friday 09-17
    ("0 9 * * *", "0 17 * * 5", UTC, at(2026, 6, 4, 12), False),
    ("0 9 * * *", "0 17 * * 5", UTC, at(2026, 6, 5, 8), False),
    ("0 9 * * *", "0 17 * * 5", UTC, at(2026, 6, 5, 12), True),
    # missing days are skipped: 30th → 1st is active all February
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 1, 29, 12), False),
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 1, 31, 12), True),
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 2, 1), True),
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 2, 15), True),
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 2, 28, 23, 59, 59), True),
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 3, 1), False),
    ("0 0 30 * *", "0 0 1 * *", UTC, at(2026, 4, 15), False),
    # equivalent but different strings: next start == next end → always active
    ("0 9 * * *", "0 9 * * 0-6", UTC, at(2026, 6, 1, 3), True),
    ("0 9 * * *", "0  9 * * *", UTC, at(2026, 6, 1, 12), True),
    # never-firing crons (Go zero time)
    ("0 0 30 2 *", "0 17 * * *", UTC, at(2026, 6, 1, 18), True),
    ("0 9 * * *", "0 0 30 2 *", UTC, at(2026, 6, 1, 12), False),
    ("0 0 30 2 *", "0 0 31 2 *", UTC, at(2026, 6, 1, 12), True),
    # DST gap: the skipped 02:30 start leaves the window open from the previous day's start
    ("30 2 * * *", "0 6 * * *", NEW_YORK, at(2026, 3, 6, 12, tz=NEW_YORK), False),
    ("30 2 * * *", "0 6 * * *", NEW_YORK, at(2026, 3, 7, 12, tz=NEW_YORK), True),
    ("30 2 * * *", "0 6 * * *", NEW_YORK, at(2026, 3, 8, 5, 59, tz=NEW_YORK), True),
    ("30 2 * * *", "0 6 * * *", NEW_YORK, at(2026, 3, 8, 6, tz=NEW_YORK), False),
    ("30 2 * * *", "0 6 * * *", BERLIN, at(2026, 3, 27, 12, tz=BERLIN), False),
    ("30 2 * * *", "0 6 * * *", BERLIN, at(2026, 3, 28, 12, tz=BERLIN), True),
    # DST overlap: the end fires twice, so the window reopens between the two 02:30s
    ("0 1 * * *", "30 2 * * *", BERLIN, at(2026, 10, 25, 2, 15, tz=BERLIN), True),
    ("0 1 * * *", "30 2 * * *", BERLIN, at(2026, 10, 25, 2, 45, tz=BERLIN), True),
    ("0 1 * * *", "30 2 * * *", BERLIN, at(2026, 10, 25, 2, 45, tz=BERLIN, fold=1), False),
    ("0 1 * * *", "30 2 * * *", BERLIN, at(2026, 10, 24, 2, 45, tz=BERLIN), False),
]


@pytest.mark.parametrize("start, end, tz, moment, expected", ACTIVITY)
def test_cron_window_active_matches_keda(start, end, tz, moment, expected):
    assert cron_window_active(start, end, tz.key, moment) is expected


@pytest.mark.parametrize("start, end, timezone_name, moment, message", [
    ("0 9 * * 7", "0 17 * * *", "UTC", at(2026, 6, 1), "error parsing start schedule: end of range (7)"),
    ("0 9 * * *", "@daily", "UTC", at(2026, 6, 1), "error parsing end schedule: parser does not accept"),
    ("0 9 * * *", " 0 9 * * * ", "UTC", at(2026, 6, 1), "start and end can not have exactly same time input"),
    ("0 9 * * *", "0 17 * * *", "Mars/Olympus", at(2026, 6, 1), "unknown time zone Mars/Olympus"),
    ("0 9 * * *", "0 17 * * *", "UTC", datetime(2026, 6, 1), "no time zone"),
])
def test_cron_window_active_refuses_what_keda_refuses(start, end, timezone_name, moment, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        cron_window_active(start, end, timezone_name, moment)


# --- occurrences ----------------------------------------------------------------------------------------

def utc_triples(occurrences: list[Occurrence]) -> list[tuple[datetime, datetime, datetime]]:
    return [(o.scale_up_utc, o.start_utc, o.end_utc) for o in occurrences]


@pytest.mark.parametrize("start, end, tz, lead, since, until, expected", [
    # daily in Seoul: 08:30/09:00/17:30 KST
    ("0 9 * * *", "30 17 * * *", SEOUL, 30 * M, at(2026, 6, 1, tz=SEOUL), at(2026, 6, 3, tz=SEOUL),
     [(z(2026, 5, 31, 23, 30), z(2026, 6, 1, 0), z(2026, 6, 1, 8, 30)),
      (z(2026, 6, 1, 23, 30), z(2026, 6, 2, 0), z(2026, 6, 2, 8, 30))]),
    # weekdays in New York across the spring-forward weekend: UTC moves an hour earlier
    ("0 9 * * 1-5", "0 17 * * 1-5", NEW_YORK, H, at(2026, 3, 6, tz=NEW_YORK), at(2026, 3, 10, tz=NEW_YORK),
     [(z(2026, 3, 6, 13), z(2026, 3, 6, 14), z(2026, 3, 6, 22)),
      (z(2026, 3, 9, 12), z(2026, 3, 9, 13), z(2026, 3, 9, 21))]),
    # across midnight: the occurrence already open at `since` is included
    ("0 22 * * *", "0 6 * * *", UTC, 0 * M, at(2026, 6, 2, 3), at(2026, 6, 3),
     [(z(2026, 6, 1, 22), z(2026, 6, 1, 22), z(2026, 6, 2, 6)),
      (z(2026, 6, 2, 22), z(2026, 6, 2, 22), z(2026, 6, 3, 6))]),
    # lead crossing midnight with a restricted day-of-week: Monday 01:00 → Sunday 23:00
    ("0 1 * * 1", "0 3 * * 1", UTC, 2 * H, at(2026, 6, 1, 2), at(2026, 6, 9),
     [(z(2026, 5, 31, 23), z(2026, 6, 1, 1), z(2026, 6, 1, 3)),
      (z(2026, 6, 7, 23), z(2026, 6, 8, 1), z(2026, 6, 8, 3))]),
    # month end: no 30 February, so January's occurrence lasts until 1 March
    ("0 0 30 * *", "0 0 1 * *", UTC, 0 * M, at(2026, 1, 15), at(2026, 4, 15),
     [(z(2026, 1, 30), z(2026, 1, 30), z(2026, 3, 1)), (z(2026, 3, 30), z(2026, 3, 30), z(2026, 4, 1))]),
])
def test_recurring_occurrences(start, end, tz, lead, since, until, expected):
    found = recurring_occurrences(start, end, tz.key, lead, since, until)
    assert utc_triples(found) == expected
    assert all(moment.tzinfo is tz for occurrence in found
               for moment in (occurrence.scale_up, occurrence.start, occurrence.end))


AGREEMENT_WINDOWS = [
    ("0 9 * * *", "30 17 * * *", "Asia/Seoul", 30 * M),
    ("0 9 * * 1-5", "0 17 * * 1-5", "America/New_York", H),
    ("0 18 * * 5", "0 6 * * 1", "Europe/Berlin", 2 * H),
    ("0 1 * * 1", "0 3 * * 1", "UTC", 2 * H),
    ("0 0 30 * *", "0 0 1 * *", "UTC", 0 * M),
    ("30 6 * * 1-5", "10 22 * * *", "Asia/Seoul", 0 * M),  # #4677: odd, but occurrences still follow KEDA
]


@pytest.mark.parametrize("start, end, timezone_name, lead", AGREEMENT_WINDOWS)
def test_occurrences_are_where_keda_is_active(start, end, timezone_name, lead):
    since, until = at(2026, 1, 1), at(2027, 1, 1)
    occurrences = recurring_occurrences(start, end, timezone_name, lead, since, until)
    deployed = shift_cron(start, -lead)
    spans = [(epoch_seconds(o.scale_up), epoch_seconds(o.end)) for o in occurrences]
    probes = {epoch_seconds(since) + step * 14_821 for step in range(2_130)}
    probes |= {edge + delta for span in spans for edge in span for delta in (-1, 0)}
    for probe in sorted(p for p in probes if epoch_seconds(since) <= p < epoch_seconds(until)):
        inside = any(opened <= probe < closed for opened, closed in spans)
        moment = datetime.fromtimestamp(probe, timezone.utc)
        assert cron_window_active(deployed, end, timezone_name, moment) is inside, moment
    assert all((o.start_utc - o.scale_up_utc) == lead for o in occurrences)


def test_a_lead_that_makes_the_deployed_start_equal_the_end_is_refused_like_keda():
    with pytest.raises(ValueError, match="start and end can not have exactly same time input"):
        recurring_occurrences("10 9 * * *", "0 9 * * *", "UTC", 10 * M, at(2026, 6, 1), at(2026, 6, 8))
    assert "KEDA refuses" in alternation_problem(shift_cron("10 9 * * *", -10 * M), "0 9 * * *", "UTC",
                                                 at(2026, 6, 1))


def test_a_window_keda_never_closes_has_no_occurrences():
    with pytest.raises(ValueError, match="do not alternate"):
        recurring_occurrences("0 9 * * *", "0 9 * * 0-6", "UTC", 0 * M, at(2026, 6, 1), at(2026, 6, 8))


def test_one_off_occurrence_trigger_and_budget():
    occurrence = one_off_occurrence(datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 14), "America/New_York", 45 * M)
    assert utc_triples([occurrence]) == [(z(2027, 3, 2, 12, 15), z(2027, 3, 2, 13), z(2027, 3, 2, 19))]
    assert occurrence.scale_up.tzinfo is NEW_YORK and occurrence.capacity_time == 6 * H + 45 * M
    start, end = one_off_trigger(occurrence)
    assert (start, end) == ("15 7 2 3 *", "0 14 2 3 *")
    for moment, expected in ((occurrence.scale_up_utc - M, False), (occurrence.scale_up_utc, True),
                             (occurrence.end_utc - M, True), (occurrence.end_utc, False)):
        assert cron_window_active(start, end, "America/New_York", moment) is expected
    budget = one_off_freeze(occurrence)
    assert budget == Freeze("15 12 2 3 *", "6h45m")
    minutes = range(epoch_seconds(occurrence.scale_up), epoch_seconds(occurrence.end), 60)
    assert all(freeze_active(budget, datetime.fromtimestamp(m, timezone.utc)) for m in minutes)
    assert not freeze_active(budget, occurrence.scale_up_utc - M)
    assert not freeze_active(budget, occurrence.end_utc)


def test_one_off_across_spring_forward_counts_real_time():
    occurrence = one_off_occurrence(datetime(2027, 3, 13, 22), datetime(2027, 3, 14, 6), "America/New_York", 0 * M)
    assert occurrence.capacity_time == 7 * H
    assert one_off_freeze(occurrence) == Freeze("0 3 14 3 *", "7h")


@pytest.mark.parametrize("start, end, lead, message", [
    (datetime(2027, 3, 2, 14), datetime(2027, 3, 2, 8), 0 * M, "is not after start"),
    (datetime(2027, 3, 14, 2, 30), datetime(2027, 3, 14, 6), 0 * M, "does not exist in America/New_York"),
    (datetime(2027, 11, 6, 22), datetime(2027, 11, 7, 1, 30), 0 * M, "happens twice in America/New_York"),
    (datetime(2027, 3, 14, 3, 30), datetime(2027, 3, 14, 6), H, "2027-03-14 02:30 does not exist"),  # the lead
    (datetime(2027, 3, 2, 8, 0, 30), datetime(2027, 3, 2, 14), 0 * M, "not a whole minute"),
    (datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 14), -M, "zero or positive whole minutes"),
    (datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 14), timedelta(seconds=90), "whole minutes"),
])
def test_one_off_refusals(start, end, lead, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        one_off_occurrence(start, end, "America/New_York", lead)


# --- lead shift -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, delta, expected", [
    ("0 9 * * MON-FRI", -30 * M, "30 8 * * MON-FRI"),         # no day moves: day fields kept verbatim
    ("0 9 * * 1-5", -10 * H, "0 23 * * 0-4"),                  # Seoul 09:00 → 00:00 UTC the day before
    ("0 0 * * 1", -30 * M, "30 23 * * 0"),
    ("0 23 * * 5", 2 * H, "0 1 * * 6"),
    ("0 23 * * 6", 2 * H, "0 1 * * 0"),                        # day-of-week wraps modulo 7
    ("0 23 * * 0,6", 2 * H, "0 1 * * 0,1"),
    ("0 0 15 * *", -30 * M, "30 23 14 * *"),                   # day-of-month moves within the month
    ("0 0 15 3 *", -30 * M, "30 23 14 3 *"),                   # ... so a month restriction is kept
    ("0 0 10 * 1", -30 * M, "30 23 9 * 0"),                    # OR of both day fields: both move
    ("0 9 ? * 1", -10 * H, "0 23 ? * 0"),
    ("0 9,23 * * *", 2 * H, "0 1,11 * * *"),                   # every day: mixed crossing is fine
    ("0 9 * * *", -25 * H, "0 8 * * *"),
    ("0 9 1-31 * 1", -10 * H, "0 23 1-31 * 1"),                # ORed with all days: every day
    ("*/15 9 * * *", -H, "0-45/15 8 * * *"),
    ("0 9,17 * * 1-5", -H, "0 8,16 * * 1-5"),
    ("0  9 * *  1", 0 * M, "0  9 * *  1"),                     # zero delta: unchanged, even the spacing
])
def test_shift_cron(expr, delta, expected):
    assert shift_cron(expr, delta) == expected


@pytest.mark.parametrize("expr, delta, message", [
    ("0 0 1 * *", -30 * M, "day-of-month 1 would cross into another month"),
    ("30 23 28 * *", H, "day-of-month 28 would cross into another month"),
    ("0 9 1,15 * 1", -10 * H, "day-of-month 1 would cross"),
    ("0 0 * 3 *", -H, "its month field '3' is restricted"),
    ("0 0 * 3 1", -H, "its month field '3' is restricted"),
    ("0,30 9 * * *", -15 * M, "gives the times 08:45, 09:15"),
    ("0 9,23 * * 1", 2 * H, "moves some fires across midnight and not others"),
    ("0 9 * * *", timedelta(seconds=30), "whole minutes only"),
    ("0 9 * * 7", -H, "end of range (7) above maximum (6)"),
    ("@daily", -H, "parser does not accept descriptors"),
])
def test_shift_cron_refuses_what_one_cron_cannot_express(expr, delta, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        shift_cron(expr, delta)


YEAR = (epoch_seconds(at(2026, 1, 1)), epoch_seconds(at(2027, 1, 1)))


def _inner_fires(expr: str, tz: ZoneInfo, shift: int = 0) -> set[int]:
    """A year of fires moved ``shift`` seconds earlier, minus 3 days at each edge (leads are ≤ 2 days)."""
    moved = {fire - shift for fire in fire_timestamps(parse_cron(expr), tz, *YEAR)}
    return {fire for fire in moved if YEAR[0] + 3 * 86_400 <= fire < YEAR[1] - 3 * 86_400}


@settings(max_examples=25, deadline=None)
@given(minutes=st.tuples(st.integers(0, 59), st.integers(0, 59)),
       hours=st.tuples(st.integers(0, 23), st.integers(0, 23)),
       days=st.sets(st.integers(0, 6), min_size=1, max_size=6), lead=st.integers(1, 2 * 1440),
       tz=st.sampled_from([UTC, SEOUL]), phase=st.integers(0, 86_399))
def test_lead_shifted_window_is_the_same_window_lead_earlier(minutes, hours, days, lead, tz, phase):
    dows = ",".join(map(str, sorted(days)))
    start, end = (f"{minute} {hour} * * {dows}" for minute, hour in zip(minutes, hours))
    assume(start != end)
    delta = lead * M
    early_start, early_end = shift_cron(start, -delta), shift_cron(end, -delta)  # one time of day: never refused
    assert _inner_fires(early_start, tz) == _inner_fires(start, tz, shift=lead * 60)
    for day in range(365):
        moment = at(2026, 1, 1) + timedelta(days=day, seconds=(phase + day * 7_919) % 86_400)
        assert cron_window_active(early_start, early_end, tz.key, moment) is \
            cron_window_active(start, end, tz.key, moment + delta)


# --- Karpenter budgets ----------------------------------------------------------------------------------

BUDGET_WINDOWS = [
    # scale-up 07:00 KST = 22:00 UTC the day before (day-of-week moves back)
    ("30 8 * * 1-5", "0 18 * * 1-5", "Asia/Seoul", 90 * M, Freeze("0 22 * * 0-4", "11h")),
    # 18:30 EDT = 22:30 UTC, 18:30 EST = 23:30 UTC: earliest instant, duration + the hour of spread
    ("0 19 * * 5", "0 2 * * 6", "America/New_York", 30 * M, Freeze("30 22 * * 5", "8h30m")),
    ("30 19 * * 1-5", "0 23 * * 1-5", "America/New_York", 0 * M, Freeze("30 23 * * 1-5", "4h30m")),
    # Mon 09 → Tue 17 and Wed 09 → Fri 17: the longest (57h, +1h in winter) for both
    ("0 9 * * 1,3", "0 17 * * 2,5", "Europe/Berlin", H, Freeze("0 6 * * 1,3", "58h")),
    # fires 40 minutes apart, closer than Berlin's hour of spread: the winter 09:00 (08:00 UTC) is held from the
    # 07:40 UTC fire (50m), not from 07:00; the longest is the winter 09:40 → 09:50 from 07:40
    ("0,40 9 * * *", "30,50 9 * * *", "Europe/Berlin", 0 * M, Freeze("0,40 7 * * *", "1h10m")),
]


@pytest.mark.parametrize("start, end, timezone_name, lead, expected", BUDGET_WINDOWS)
def test_budget_holds_every_minute_of_every_occurrence(start, end, timezone_name, lead, expected):
    budget = recurring_freeze(start, end, timezone_name, lead, at(2026, 1, 1))
    assert budget == expected and KARPENTER_DURATION.match(budget.duration)
    # checked over two years: the one the budget was derived from and the next
    occurrences = recurring_occurrences(start, end, timezone_name, lead, at(2026, 1, 1), at(2028, 1, 1))
    duration = int(parse_duration(budget.duration).total_seconds())
    fires = list(fire_timestamps(parse_cron(budget.schedule), UTC, epoch_seconds(at(2025, 12, 20)),
                                 epoch_seconds(at(2028, 1, 10))))
    for occurrence in occurrences:
        scale_up, ends = epoch_seconds(occurrence.scale_up), epoch_seconds(occurrence.end)
        for now in range(scale_up, ends, 60):
            # Karpenter's IsActive: Next(now - duration) <= now, Next = first fire >= floor(x) + 1s
            hit = bisect_left(fires, now - duration + 1)
            assert fires[hit] <= now, datetime.fromtimestamp(now, timezone.utc)
        for now in (scale_up, (scale_up + ends) // 2, ends - 1):
            assert freeze_active(budget, datetime.fromtimestamp(now, timezone.utc))
    assert not freeze_active(budget, at(2026, 6, 6, 12, tz=ZoneInfo(timezone_name)))  # a Saturday noon


@settings(max_examples=20, deadline=None)
@given(times=st.sets(st.tuples(st.integers(0, 59), st.integers(0, 20)), min_size=1, max_size=2),
       hours=st.integers(1, 3), days=st.sampled_from(["*", "1-5", "0,3"]), lead=st.integers(0, 120),
       tz=st.sampled_from([BERLIN, NEW_YORK, SEOUL, UTC]))
def test_a_freeze_lasts_from_each_scale_ups_latest_budget_fire_to_its_end(times, hours, days, lead, tz):
    """Slowly: every occurrence's latest budget fire at or before its scale-up found by scanning the fires, and the
    freeze's duration the longest from there to the occurrence's end (fires closer than the offset spread too)."""
    minutes, hours_of_day = zip(*sorted(times), strict=True)
    start = f"{','.join(map(str, sorted(set(minutes))))} {','.join(map(str, sorted(set(hours_of_day))))} * * {days}"
    end = shift_cron(start, hours * H)
    since = at(2026, 1, 1)
    try:
        budget = recurring_freeze(start, end, tz.key, lead * M, since)
    except ValueError:
        assume(False)  # not one exact UTC cron (the config checks refuse those windows)
    occurrences = recurring_occurrences(start, end, tz.key, lead * M, since, since + timedelta(days=366))
    fires = list(fire_timestamps(parse_cron(budget.schedule), UTC, epoch_seconds(occurrences[0].scale_up) - 3 * DAY,
                                 epoch_seconds(occurrences[-1].scale_up) + 1))
    latest = longest = 0
    for occurrence in occurrences:  # both ascend: walk the fires along the scale-ups
        scale_up = epoch_seconds(occurrence.scale_up)
        while latest + 1 < len(fires) and fires[latest + 1] <= scale_up:
            latest += 1
        assert fires[latest] <= scale_up
        longest = max(longest, epoch_seconds(occurrence.end) - fires[latest])
    assert parse_duration(budget.duration) == timedelta(minutes=-(-longest // 60))


def test_budget_needs_an_occurrence_within_a_year():
    with pytest.raises(ValueError, match="no occurrence in the year"):
        recurring_freeze("0 9 29 2 *", "0 17 29 2 *", "UTC", 0 * M, at(2026, 3, 1))


@pytest.mark.parametrize("schedule, duration, moment, expected", [
    ("@daily", "1h", at(2026, 6, 1, 0, 59), True),
    ("@daily", "1h", at(2026, 6, 1, 1), False),
    ("0 0 30 2 *", "1h", at(2026, 6, 1, 12), True),   # Go zero time is never after now: always active
])
def test_budget_active_is_karpenters_rule(schedule, duration, moment, expected):
    assert freeze_active(Freeze(schedule, duration), moment) is expected


# --- validation helpers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("start, end, timezone_name, since, fragments", [
    ("30 6 * * 1-5", "10 22 * * *", "Asia/Seoul", at(2027, 1, 1, tz=SEOUL),
     ["end fires 3 times in a row (Fri 2027-01-01 22:10 KST … Sun 2027-01-03 22:10 KST)",
      "open from Fri 2027-01-01 06:30 KST until Sun 2027-01-03 22:10 KST", "kedacore/keda#4677"]),
    ("0 9 * * 1-5", "0 17 * * 1", "UTC", at(2027, 1, 1),
     ["start fires 3 times in a row (Thu 2026-12-31 09:00 UTC … Mon 2027-01-04 09:00 UTC)",
      "opens only at Mon 2027-01-04 09:00 UTC"]),
    ("0 9 * * *", "0 9 * * 0-6", "UTC", at(2027, 1, 1), ["start and end both fire at Thu 2026-12-31 09:00 UTC"]),
    # 29 February: the ends of 2026 and 2027 straddle `since`
    ("0 9 29 2 *", "0 9 1 3 *", "UTC", at(2026, 6, 1), ["end fires 2 times in a row (Sun 2026-03-01 09:00 UTC"]),
    ("0 18 * * 5", "0 6 * * 1", "Asia/Seoul", at(2027, 1, 1), None),   # weekend window
    ("0 9 * * 1-5", "0 17 * * 1-5", "America/New_York", at(2026, 1, 1), None),
    ("0 22 * * *", "0 6 * * *", "Europe/Berlin", at(2026, 1, 1), None),
    ("0 0 1 1 *", "0 0 1 7 *", "UTC", at(2026, 3, 1), None),
])
def test_alternation_problem(start, end, timezone_name, since, fragments):
    problem = alternation_problem(start, end, timezone_name, since)
    if fragments is None:
        assert problem is None
    else:
        assert problem is not None and all(fragment in problem for fragment in fragments), problem


@pytest.mark.parametrize("expr, timezone_name, fragments", [
    ("30 2 * * *", "Europe/Berlin", ["02:30 on Sun 2026-03-29", "clocks jump from 02:00 to 03:00", "skips"]),
    ("0 2 * * *", "America/New_York", ["02:00 on Sun 2026-03-08", "does not exist"]),
    ("30 1 * * *", "America/New_York", ["01:30 on Sun 2026-11-01", "clocks go back from 02:00 to 01:00",
                                        "fires twice"]),
    ("0 3 * * *", "America/Santiago", ["irregular clock change in America/Santiago"]),  # midnight gap
    ("0 5 * * 5", "Africa/Cairo", ["fires on Fri 2026-04-24", "clocks jump from 00:00 to 01:00"]),
    ("0 9 * * *", "Australia/Lord_Howe", ["first fire after the clock change in Australia/Lord_Howe on "
                                          "2026-04-05 (clocks go back from 02:00 to 01:30) is at Sun 2026-04-05 "
                                          "09:00"]),
    ("30 2 * * 1-5", "Europe/Berlin", None),     # both changes are on Sundays
    ("0 3 * * *", "America/New_York", None),     # 03:00 exists on both change days
    ("0 12 * * 3", "America/Santiago", None),    # Wednesdays are far from Santiago's Saturday-night changes
    ("0 5 * * 2", "Africa/Cairo", None),
    ("30 2 * * *", "Asia/Seoul", None),
    ("30 2 * * *", "UTC", None),
])
def test_dst_problem(expr, timezone_name, fragments):
    problem = dst_problem(expr, timezone_name, at(2026, 1, 1))
    if fragments is None:
        assert problem is None
    else:
        assert problem is not None and all(fragment in problem for fragment in fragments), problem


@pytest.mark.parametrize("moment, timezone_name, fragment", [
    (datetime(2026, 3, 8, 2, 30), "America/New_York", "2026-03-08 02:30 does not exist in America/New_York "
                                                      "(clocks jump from 02:00 to 03:00)"),
    (datetime(2026, 11, 1, 1, 30), "America/New_York", "2026-11-01 01:30 happens twice in America/New_York "
                                                       "(clocks go back from 02:00 to 01:00)"),
    (datetime(2026, 10, 25, 2, 0), "Europe/Berlin", "happens twice"),
    (datetime(2026, 3, 8, 3, 0), "America/New_York", None),
    (datetime(2026, 3, 29, 2, 30), "Asia/Seoul", None),
])
def test_dst_problem_local(moment, timezone_name, fragment):
    problem = dst_problem_local(moment, timezone_name)
    assert problem is None if fragment is None else fragment in problem


def test_dst_problem_local_wants_a_naive_local_time():
    with pytest.raises(ValueError, match="naive"):
        dst_problem_local(at(2026, 6, 1), "UTC")


@settings(max_examples=40, deadline=None)
@given(minute=st.integers(0, 59), hour=st.integers(0, 23), days=st.sampled_from(["*", "1-5", "0,6", "3"]),
       delta=st.integers(-2 * 1440, 2 * 1440),
       tz=st.sampled_from([NEW_YORK, BERLIN, ZoneInfo("Australia/Lord_Howe"), ZoneInfo("America/Santiago"), SEOUL]))
def test_wall_shifted_instants_are_where_the_shifted_cron_fires(minute, hour, days, delta, tz):
    expr = f"{minute} {hour} * * {days}"
    moved = shift_cron(expr, delta * M)  # one time of day on weekdays: always one cron
    assume(dst_problem(expr, tz.key, at(2026, 1, 1)) is None and dst_problem(moved, tz.key, at(2026, 1, 1)) is None)
    fires = list(fire_timestamps(parse_cron(expr), tz, *YEAR))
    inner = range(YEAR[0] + 3 * 86_400, YEAR[1] - 3 * 86_400)
    assert [fire for fire in wall_shifted(fires, delta * M, tz) if fire in inner] == \
        list(fire_timestamps(parse_cron(moved), tz, inner.start, inner.stop))


@pytest.mark.parametrize("expr, never", [("0 0 30 2 *", True), ("0 0 31 4,6,9,11 *", True),
                                         ("0 0 29 2 *", False), ("0 9 * * 1-5", False)])
def test_never_fires_problem(expr, never):
    problem = never_fires_problem(expr, "UTC", at(2026, 1, 1))
    assert (problem is not None and "never fires" in problem) if never else problem is None


@pytest.mark.parametrize("start, end, lead, fragment", [
    ("0 9 * * *", "0 17 * * *", 17 * H, "to Mon 2025-12-29 16:00 UTC, not after the previous occurrence's end "
                                        "(Mon 2025-12-29 17:00 UTC)"),
    ("0 9 * * *", "0 17 * * *", 16 * H, "allowed: less than 16h"),
    ("0 9 * * *", "0 17 * * *", 15 * H, None),
    ("0 9 * * 1-5", "0 17 * * 1-5", 15 * H + 59 * M, None),   # Monday's reaches back into Sunday only
    ("0 9 * * 1-5", "0 17 * * 1-5", 16 * H, "allowed: less than 16h"),
])
def test_lead_problem(start, end, lead, fragment):
    problem = lead_problem(start, end, "UTC", lead, at(2026, 1, 1))
    assert problem is None if fragment is None else fragment in problem, problem


@pytest.mark.parametrize("start, end, now, fragment", [
    (datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 14), at(2027, 1, 1), None),
    (datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 14), at(2027, 3, 2, 15), None),        # in progress
    (datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 20), at(2027, 3, 2, 23, 30), None),    # past
    (datetime(2027, 3, 2, 8), datetime(2027, 3, 2, 14), at(2026, 1, 1),                   # over a year ahead
     "active Mon 2026-03-02 07:15 EST → Mon 2026-03-02 14:00 EST"),
    (datetime(2028, 2, 29, 8), datetime(2028, 3, 1, 14), at(2027, 6, 1), "do not alternate"),
])
def test_one_off_problem(start, end, now, fragment):
    occurrence = one_off_occurrence(start, end, "America/New_York", 45 * M)
    problem = one_off_problem(occurrence, now)
    assert problem is None if fragment is None else fragment in problem, problem


@pytest.mark.parametrize(("first", "second", "expected"), [
    ([1, 3, 5], [2, 4], True),
    ([1, 3], [2, 4], True),
    ([1, 3, 5], [2], False),  # two firsts in a row
    ([1, 3], [2, 3], False),  # a first and a second at one instant
    ([2, 4], [1, 3], False),  # the second comes first
    ([], [], True),
])
def test_interleaved_needs_strict_alternation(first, second, expected):
    assert interleaved(first, second) is expected


@pytest.mark.parametrize(("start", "end", "zone"), [
    ("0 9 * * *", "0 17 * * *", "Asia/Seoul"),  # alternating: read from sorted fire lists
    ("0 18 * * 5", "0 6 * * 1", "America/New_York"),  # across the weekend, an end before the first start
    ("0 9 * * 1-5", "0 17 * * *", "UTC"),  # ends in a row at weekends: the event-by-event walk
    ("30 1 * * *", "0 3 * * *", "Europe/London"),  # DST moves the fires around the changes
])
def test_keda_intervals_match_the_event_by_event_walk(start, end, zone):
    start_spec, end_spec, tz = keda_window(start, end, zone)
    since, until = epoch_seconds(at(2026, 3, 1)), epoch_seconds(at(2027, 3, 1))
    walked = _scan_intervals(start_spec, end_spec, tz, since - 8 * 86_400, since, until)
    assert walked and walked[0][0] is not None
    assert keda_intervals(start_spec, end_spec, tz, since, until) == walked
