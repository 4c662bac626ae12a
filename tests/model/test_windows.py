"""What a window becomes at a given moment: its KEDA crons, its UTC freeze, or nothing (and why)."""

from datetime import UTC, datetime

import pytest
from prescale.model.config import EventWindow, PlaceholderConfig
from prescale.model.schedule.freezes import Freeze, freeze_active
from prescale.model.schedule.keda import cron_window_active
from prescale.model.windows import ArmedWindow, IdleWindow, one_off_repeat_warning, plan_window

PLACEHOLDERS = PlaceholderConfig()


def one_off(start: str, end: str, lead: str = "20m") -> EventWindow:
    return EventWindow(name="launch", node_pool="event", timezone="America/New_York", start=start, end=end,
                       nodes=4, lead_time=lead)


def test_a_recurring_window_starts_its_trigger_lead_time_early_in_its_own_zone():
    window = EventWindow(name="lunch-rush", node_pool="event", timezone="Asia/Seoul", start="15 11 * * *",
                         end="30 11 * * *", nodes=5, lead_time="10m")
    armed = plan_window(window, PLACEHOLDERS, datetime(2026, 12, 1, tzinfo=UTC))
    assert isinstance(armed, ArmedWindow)
    assert (armed.capacity.trigger_start, armed.capacity.trigger_end) == ("5 11 * * *", "30 11 * * *")
    assert armed.freeze == Freeze("5 2 * * *", "25m")  # 11:05-11:30 KST = 02:05-02:30 UTC
    assert armed.placeholders.pods == 5


def test_a_dst_window_is_active_from_scale_up_in_both_seasons_and_frozen_throughout():
    window = EventWindow(name="open", node_pool="event", timezone="America/New_York", start="0 9 * * 1-5",
                         end="0 17 * * 1-5", nodes=3, lead_time="15m")
    armed = plan_window(window, PLACEHOLDERS, datetime(2026, 12, 1, tzinfo=UTC))
    assert armed.capacity.trigger_start == "45 8 * * 1-5"
    for scale_up_utc in (datetime(2027, 1, 4, 13, 45, tzinfo=UTC), datetime(2027, 7, 5, 12, 45, tzinfo=UTC)):
        trigger = armed.capacity
        assert cron_window_active(trigger.trigger_start, trigger.trigger_end, window.timezone, scale_up_utc)
        assert freeze_active(armed.freeze, scale_up_utc)  # EST (13:45Z) and EDT (12:45Z) scale-ups
    for end_utc in (datetime(2027, 1, 4, 21, 59, tzinfo=UTC), datetime(2027, 7, 5, 20, 59, tzinfo=UTC)):
        assert freeze_active(armed.freeze, end_utc)


def test_a_one_off_within_a_year_is_armed_with_dated_crons():
    armed = plan_window(one_off("2027-03-02T08:00", "2027-03-02T14:00"), PLACEHOLDERS,
                        datetime(2026, 12, 1, tzinfo=UTC))
    assert isinstance(armed, ArmedWindow)
    assert (armed.capacity.trigger_start, armed.capacity.trigger_end) == ("40 7 2 3 *", "0 14 2 3 *")
    assert armed.freeze == Freeze("40 12 2 3 *", "6h20m")


def test_a_one_off_in_progress_stays_armed():
    armed = plan_window(one_off("2027-03-02T08:00", "2027-03-02T14:00"), PLACEHOLDERS,
                        datetime(2027, 3, 2, 15, 0, tzinfo=UTC))  # 10:00 in New York
    assert isinstance(armed, ArmedWindow)
    assert (armed.capacity.trigger_start, armed.capacity.trigger_end) == ("40 7 2 3 *", "0 14 2 3 *")
    assert armed.freeze == Freeze("40 12 2 3 *", "6h20m") and armed.placeholders.pods == 4
    # ...until its very end: an instant before it still deploys it, the end itself does not.
    assert isinstance(plan_window(armed.window, PLACEHOLDERS, datetime(2027, 3, 2, 18, 59, 59, tzinfo=UTC)),
                      ArmedWindow)
    assert isinstance(plan_window(armed.window, PLACEHOLDERS, datetime(2027, 3, 2, 19, 0, tzinfo=UTC)), IdleWindow)


def test_a_one_off_warns_that_its_freeze_comes_back_every_year_until_the_next_pulumi_up():
    event, now = one_off("2027-03-02T08:00", "2027-03-02T14:00"), datetime(2026, 12, 1, tzinfo=UTC)
    assert one_off_repeat_warning(plan_window(event, PLACEHOLDERS, now)) == (
        "one-off event: its consolidation freeze on node pool 'event' (UTC budget '40 12 2 3 *' for 6h20m) has no "
        "year, so it freezes the pool again on the same date every year until a `pulumi up` after the event "
        "removes it; run `pulumi up` after 2027-03-02 14:00 EST (America/New_York)")
    # On a pool prescale does not own there is no freeze of ours to come back.
    assert one_off_repeat_warning(plan_window(event, PLACEHOLDERS, now, freeze=False)) is None
    recurring = EventWindow(name="open", node_pool="event", timezone="UTC", start="0 9 * * *", end="0 17 * * *",
                            nodes=1)
    assert one_off_repeat_warning(plan_window(recurring, PLACEHOLDERS, now)) is None


def test_an_ended_one_off_deploys_nothing_and_says_so():
    idle = plan_window(one_off("2027-03-02T08:00", "2027-03-02T14:00"), PLACEHOLDERS,
                       datetime(2027, 3, 2, 19, 0, tzinfo=UTC))  # 14:00 in New York: the end
    assert isinstance(idle, IdleWindow)
    assert "ended at 2027-03-02 14:00 EST (America/New_York)" in idle.reason and "remove it" in idle.reason


@pytest.mark.parametrize("now", [datetime(2026, 3, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC)])
def test_a_one_off_more_than_a_year_ahead_is_not_armed_because_it_would_fire_a_year_early(now):
    idle = plan_window(one_off("2027-03-02T08:00", "2027-03-02T14:00"), PLACEHOLDERS, now)
    assert isinstance(idle, IdleWindow)
    assert "not armed yet" in idle.reason and "2026-03-02 07:40" in idle.reason


def test_a_one_off_is_armed_once_its_previous_anniversary_has_passed():
    window = one_off("2027-03-02T08:00", "2027-03-02T14:00")
    assert isinstance(plan_window(window, PLACEHOLDERS, datetime(2026, 3, 2, 12, 39, tzinfo=UTC)), IdleWindow)
    assert isinstance(plan_window(window, PLACEHOLDERS, datetime(2026, 3, 2, 19, 0, tzinfo=UTC)), ArmedWindow)
