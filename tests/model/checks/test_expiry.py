"""A pool's ``expireAfter`` against the longest stretch a window holds its nodes (scale-up, lead time included, to
end): budgets do not stop expiry, so a node that expires sooner goes mid-event; one that lasts exactly as long
does not."""

from prescale.model.validation import load_stack_config

from tests.support.config import NOW, only_problem


def stack(expire_after: str) -> dict:
    """A 08:00-11:00 window with the default 10m lead time: its nodes are held 3h10m."""
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "expiry"},
            "prescale:nodePools": [{"name": "event", "limits": {"cpu": "512"}, "expireAfter": expire_after}],
            "prescale:eventWindows": [{"name": "morning", "nodePool": "event", "timezone": "Asia/Seoul",
                                       "start": "0 8 * * *", "end": "0 11 * * *", "nodes": 3}]}


def test_an_expire_after_exactly_as_long_as_the_window_holds_its_nodes_is_accepted():
    assert load_stack_config(stack("3h10m"), NOW).node_pools[0].expire_after == "3h10m"
    assert load_stack_config(stack("190m"), NOW).node_pools[0].expire_after == "190m"


def test_an_expire_after_a_minute_shorter_is_refused():
    assert only_problem(stack("3h9m")).startswith(
        "prescale:nodePools[0].expireAfter: '3h9m' is shorter than the 3h10m window 'morning' (eventWindows[0]) holds "
        "its nodes, from scale-up to end")
