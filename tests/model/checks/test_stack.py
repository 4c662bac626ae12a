"""``prescale.model.checks.stack``: the door's list of rules across keys, run on every part that validated."""

from prescale.model.checks.stack import capacity_config_problems, stack_problems

from tests.support.capacity import NOW

from .conftest import changed


def test_a_valid_stack_has_no_problem(valid):
    assert stack_problems(valid, NOW) == []


def test_a_window_name_used_twice_names_both_entries(valid):
    lunch = valid.event_windows[0]
    assert capacity_config_problems(changed(valid, event_windows=[lunch, lunch]), NOW) == [
        "prescale:eventWindows[1].name: 'lunch' is already used by prescale:eventWindows[0]; names must be unique"]


def test_a_window_on_an_unknown_pool_names_the_pools(valid):
    stray = changed(valid.event_windows[0], node_pool="evnet")
    assert capacity_config_problems(changed(valid, event_windows=[stray]), NOW) == [
        "prescale:eventWindows[0].nodePool: 'evnet' is not a node pool; allowed: 'event', 'fixed'"]
