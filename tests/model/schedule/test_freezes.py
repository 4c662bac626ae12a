"""Fitting consolidation freezes into a NodePool's 50 budgets beside its standing ones: never fewer frozen instants."""

import bisect
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import example, given, settings
from hypothesis import strategies as st
from prescale.model.plan import plan_capacity
from prescale.model.schedule.freezes import (
    FREEZE_SLOTS,
    MAX_BUDGETS,
    STANDING_BUDGETS,
    FittedFreezes,
    Freeze,
    fit_freezes,
    freeze_active,
)
from prescale.model.values.cron import epoch_seconds, fire_timestamps, parse_cron
from prescale.model.values.duration import parse_duration

from tests.support.capacity import NOW, pool, stack_config, window

UTC_ZONE = ZoneInfo("UTC")
SINCE = datetime(2027, 1, 1, tzinfo=UTC)
YEAR = (epoch_seconds(SINCE), epoch_seconds(SINCE + timedelta(days=366)))


def test_identical_and_overlapping_freezes_collapse_without_widening():
    fitted = fit_freezes([Freeze("0 1 * * 1-5", "30m"), Freeze("0 1 * * 1-5", "30m"),
                          Freeze("15 1 * * 1-5", "1h"), Freeze("0 23 * * *", "2h")])
    assert fitted.freezes == [Freeze("0 1 * * 1-5", "1h15m"), Freeze("0 23 * * *", "2h")]
    assert fitted.requested == 3 and not fitted.merged


def test_touching_freezes_become_one():
    fitted = fit_freezes([Freeze("0 1 * * *", "30m"), Freeze("30 1 * * *", "30m")])
    assert fitted.freezes == [Freeze("0 1 * * *", "1h")] and not fitted.merged


def test_freezes_that_fit_are_kept_as_they_are():
    freezes = [Freeze(f"{minute} 2 * * *", "10m") for minute in (0, 20, 40)]
    assert fit_freezes(freezes).freezes == sorted(freezes, key=lambda f: f.schedule)
    assert not fit_freezes(freezes).merged


def unjoinable(count: int) -> list[Freeze]:
    """``count`` (at most 72) freezes on distinct days at distinct times of day 10 minutes apart: no join is exact."""
    return [Freeze(f"{20 * i % 60} {20 * i // 60} {1 + i % 28} {1 + i // 28} *", "10m") for i in range(count)]


def test_the_standing_budgets_keep_their_slots():
    assert FREEZE_SLOTS + len(STANDING_BUDGETS) == MAX_BUDGETS
    assert len(fit_freezes(unjoinable(MAX_BUDGETS)).freezes) == FREEZE_SLOTS


def test_exactly_as_many_freezes_as_slots_are_kept_and_one_more_is_merged():
    exact = fit_freezes(unjoinable(FREEZE_SLOTS))
    assert exact.freezes == sorted(unjoinable(FREEZE_SLOTS), key=lambda f: f.schedule) and not exact.merged
    over = fit_freezes(unjoinable(FREEZE_SLOTS + 1))
    assert len(over.freezes) == FREEZE_SLOTS and over.merged and over.requested == FREEZE_SLOTS + 1


# A daily freeze beside dated ones (days 1-28, each at its own hours): uniting their day patterns must keep
# every day, including the 29th to the 31st that no dated freeze names.
DAILY_BESIDE_DATED = [Freeze("0 10 * * *", "1h")] + [
    Freeze(f"{(7 * day) % 60} {day % 24} {day} * *", "30m") for day in range(1, 29)]


def test_a_daily_freeze_united_with_dated_ones_still_covers_every_day():
    fitted = fit_freezes(DAILY_BESIDE_DATED, slots=4)
    assert fitted.merged and {freeze.schedule.split(" ", 2)[2] for freeze in fitted.freezes} == {"* * *"}
    assert_covered(DAILY_BESIDE_DATED, fitted.freezes)


def test_many_dated_events_at_the_same_hours_are_joined_exactly():
    # 60 one-off events (each its own date) at the same time of day: 60 budgets cannot fit in 49, one can.
    dates = [(day, month) for month in (3, 4, 5) for day in range(1, 21)]
    fitted = fit_freezes([Freeze(f"40 12 {day} {month} *", "6h20m") for day, month in dates])
    assert fitted.freezes == [Freeze("40 12 1-20 3-5 *", "6h20m")]
    assert fitted.requested == 60 and not fitted.merged


def test_joinable_freezes_are_joined_only_when_they_do_not_fit():
    dated = [Freeze("40 12 2 3 *", "1h"), Freeze("40 12 3 3 *", "1h")]
    assert fit_freezes(dated, slots=2) == FittedFreezes(dated, requested=2, merged=False)
    assert fit_freezes(dated, slots=1) == FittedFreezes([Freeze("40 12 2,3 3 *", "1h")], requested=2,
                                                        merged=False)  # two days are a list, three a range


def test_dated_events_at_different_hours_are_merged_per_month_into_covering_budgets():
    freezes = [Freeze(f"{(7 * i) % 60} {(5 * i) % 24} {1 + i % 28} {1 + i % 12} *", f"{1 + i % 4}h")
               for i in range(60)]
    fitted = fit_freezes(freezes)
    assert fitted.merged and len(fitted.freezes) <= MAX_BUDGETS - 1
    # January's five events (days 1, 9, 13, 21, 25) share one budget from the earliest start to the latest end.
    assert Freeze("0 0 1,9,13,21,25 1 *", "1h48m") in fitted.freezes


def test_too_many_intervals_on_one_day_pattern_join_across_the_smallest_gaps():
    # 60 daily 10-minute freezes, every 20 minutes from 00:00, but a 100-minute gap after 09:40.
    starts = [20 * i for i in range(30)] + [20 * i + 700 for i in range(30)]
    freezes = [Freeze(f"{start % 60} {start // 60} * * *", "10m") for start in starts]
    fitted = fit_freezes(freezes, slots=2)
    assert fitted.freezes == [Freeze("0 0 * * *", "9h50m"), Freeze("40 11 * * *", "9h50m")]


def test_the_result_does_not_depend_on_the_order_of_windows():
    freezes = [Freeze(f"{i % 60} {i % 24} {1 + i % 28} {1 + i % 12} *", f"{1 + i % 5}h") for i in range(80)]
    assert fit_freezes(freezes) == fit_freezes(list(reversed(freezes)))
    assert len(fit_freezes(freezes).freezes) <= MAX_BUDGETS - 1


def test_five_hundred_windows_fit():  # how fast: `python -m bench --pools 1 --windows 500`
    freezes = [Freeze(f"{i % 60} {i % 24} {1 + i % 28} {1 + i % 12} {i % 7}", f"{1 + i % 9}h{i % 60}m")
               for i in range(500)]
    fitted = fit_freezes(freezes)
    assert len(fitted.freezes) <= FREEZE_SLOTS and fitted.merged
    assert_covered(freezes, fitted.freezes)


DAY_FIELDS = st.tuples(st.sampled_from(["*", "1", "5,20", "10-12", "31"]), st.sampled_from(["*", "3", "6,7", "12"]),
                       st.sampled_from(["*", "1-5", "0,6", "3"]))
FREEZE = st.builds(lambda minute, hour, days, minutes: Freeze(
    f"{minute} {hour} {' '.join(days)}", f"{minutes // 60}h{minutes % 60}m" if minutes >= 60 else f"{minutes}m"),
    st.sampled_from([0, 15, 30, 45]), st.integers(0, 23), DAY_FIELDS, st.integers(5, 30 * 60))


@settings(max_examples=60, deadline=None)
@given(st.lists(FREEZE, min_size=1, max_size=8), st.integers(1, 6))
@example(DAILY_BESIDE_DATED, 4)  # day patterns united across the every-day one
@example(unjoinable(7), 6)  # one more than fits
@example([Freeze("0 0 31 * *", "30m"), Freeze("0 12 * 2 *", "1h"),  # all three kinds into one
          Freeze("0 6 * * 0", "2h")], 1)
@example([Freeze("40 12 2 3 *", "1h"), Freeze("40 12 * 3 1", "1h"),  # mixed day rules, exactly
          Freeze("40 12 9 3 5", "1h"), Freeze("40 12 9 4 5", "1h")], 2)
def test_fitted_budgets_are_active_whenever_a_requested_freeze_is(freezes, slots):
    fitted = fit_freezes(freezes, slots=slots)
    assert len(fitted.freezes) <= slots
    assert_covered(freezes, fitted.freezes)
    # Without covering merges, frozen exactly when requested: never longer.
    assert fitted.merged or _active_intervals(fitted.freezes, *YEAR) == _active_intervals(freezes, *YEAR)


def assert_covered(freezes, fitted):
    """Every instant a requested freeze is active during a year, one of the fitted ones is too."""
    since, until = epoch_seconds(SINCE), epoch_seconds(SINCE + timedelta(days=366))
    covered = _active_intervals(fitted, since - 3 * 86_400, until + 3 * 86_400)
    for freeze in freezes:
        for fire, end in _active_intervals([freeze], since, until):
            assert _inside(covered, fire, end), f"{freeze} at {datetime.fromtimestamp(fire, UTC)}"


def _active_intervals(freezes, since, until):
    """Karpenter's activity of UTC budgets: [fire, fire + duration) for every fire, united and sorted."""
    intervals = sorted((fire, fire + int(parse_duration(freeze.duration).total_seconds()))
                       for freeze in freezes
                       for fire in fire_timestamps(parse_cron(freeze.schedule, allow_descriptors=True), UTC_ZONE,
                                                   since, until))
    united = []
    for start, end in intervals:
        if united and start <= united[-1][1]:
            united[-1][1] = max(united[-1][1], end)
        else:
            united.append([start, end])
    return united


def _inside(intervals, start, end) -> bool:
    index = bisect.bisect_right([interval[0] for interval in intervals], start) - 1
    return index >= 0 and intervals[index][1] >= end


def test_a_drift_hold_lasts_until_the_reserved_nodes_are_released_when_the_tail_is_not_whole_minutes():
    """consolidateAfter 90s: the reservation ends at the window's end + 3m30s (KEDA's cooldown, 90s, the drain), so the
    nodes are released 1h13m30s after the end; a budget counts whole minutes, so the hold rounds up to 1h14m, never
    down to 1h13m, which would let Karpenter replace reserved nodes for the last 30 s."""
    end = datetime(2027, 3, 2, 3, 0, tzinfo=UTC)
    config = stack_config([pool(capacityTypes=["on-demand", "reserved"], consolidateAfter="90s")],
                          [window("launch", "2027-03-02T09:00", "2027-03-02T12:00", nodes=5, leadTime="10m",
                                  reserve={"instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a"]})],
                          NOW, tags={"team": "platform"})
    (reservation,) = plan_capacity(config, end).reservations
    assert reservation.released == end + timedelta(hours=1, minutes=13, seconds=30)
    hold = reservation.drift_hold
    assert hold == Freeze("0 3 2 3 *", "1h14m")
    assert freeze_active(hold, reservation.released - timedelta(seconds=1))
