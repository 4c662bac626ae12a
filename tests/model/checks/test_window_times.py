"""``prescale.model.checks.window_times``: whether KEDA opens and closes a window exactly when meant, every time:
a one-off's order, DST gaps, crons that never fire, starts and ends that do not alternate."""

from prescale.model.checks.window_times import alternation_problem, never_fires_problem, window_time_problems

from tests.support.capacity import NOW

from .conftest import changed


def test_a_valid_window_has_no_time_problem(valid):
    assert window_time_problems("w", valid.event_windows[0], NOW) == []


def test_a_one_off_ending_before_it_starts_is_refused(valid):
    backwards = changed(valid.event_windows[0], start="2027-03-02T10:00", end="2027-03-02T09:00")
    assert window_time_problems("w", backwards, NOW) == ["w.end: '2027-03-02T09:00' is not after start "
                                                         "'2027-03-02T10:00'; allowed: a later date-time"]


def test_a_start_in_a_dst_gap_is_refused_with_the_day(valid):
    gap = changed(valid.event_windows[0], timezone="Europe/Berlin", start="30 2 * * *", end="0 4 * * *")
    assert window_time_problems("w", gap, NOW)[0].startswith(
        "w.start: '30 2 * * *': fires at 02:30 on Sun 2027-03-28 in Europe/Berlin, where clocks jump from 02:00 to "
        "03:00")


def test_crons_that_never_fire_or_do_not_alternate_are_named():
    assert never_fires_problem("0 0 30 2 *", "UTC", NOW).startswith("never fires")
    assert never_fires_problem("0 12 * * *", "UTC", NOW) is None
    assert alternation_problem("0 12 * * *", "0 12 * * *", "UTC", NOW) == (
        "start and end are the same cron '0 12 * * *', which KEDA refuses (kedacore/keda#2031)")
    assert alternation_problem("0 12 * * 1", "0 13 * * *", "UTC", NOW).startswith("end fires 7 times in a row")
    assert alternation_problem("0 12 * * *", "0 13 * * *", "UTC", NOW) is None
