"""Paid node-hours (``prescale_cli.node_hours``): who pays for each node of a pool and type, computed by hand here
from the rule in docs/cli.md#the-cost-estimate (each occurrence pays from its scale-up to its end, an emptied node
stays ``consolidateAfter`` longer, or that long after a freeze holding it, and a scale-up takes emptied nodes first,
the longest-kept first)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from prescale_cli.node_hours import Hold, paid_node_hours, released

T0 = datetime(2026, 12, 1, tzinfo=UTC)
WAIT = timedelta(minutes=30)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def hold(window: str, nodes: int, start: float, end: float, instance_type: str = "m7i.xlarge") -> Hold:
    return Hold(window, "event", instance_type, nodes, at(start), at(end))


def paid(*holds: Hold, frozen: list[tuple[float, float]] = (), until: float = 48) -> dict[str, float]:
    return paid_node_hours(holds, {"event": [(at(a), at(b)) for a, b in frozen]}, {"event": WAIT}, T0, at(until))


def test_one_window_pays_its_nodes_from_scale_up_to_end_and_their_wait():
    assert paid(hold("a", 2, 10, 11)) == {"a": 2 * 1.5}


def test_back_to_back_windows_hand_over_the_nodes_so_each_is_counted_once():
    """b's scale-up at a's end takes a's emptied nodes: a pays to its end only, b from its scale-up on."""
    assert paid(hold("a", 2, 10, 11), hold("b", 2, 11, 12)) == {"a": 2 * 1.0, "b": 2 * 1.5}


def test_a_node_that_leaves_exactly_when_the_next_window_arrives_is_paid_to_then():
    """a's nodes go at 11:30, the moment b scales up: a pays its wait; b launches its own."""
    assert paid(hold("a", 2, 10, 11), hold("b", 2, 11.5, 12.5)) == {"a": 2 * 1.5, "b": 2 * 1.5}


def test_a_scale_up_takes_the_longest_kept_emptied_node_first():
    """At 11:10 a's node (emptied at 11:00, kept to 11:30) and b's (emptied at 11:05, kept to 11:35) are both free:
    c takes b's, and a's leaves at 11:30, the cheaper of the two ways."""
    b_end, c_start = 11 + 5 / 60, 11 + 10 / 60
    found = paid(hold("a", 1, 10, 11), hold("b", 1, 10, b_end), hold("c", 1, c_start, 12))
    assert found == pytest.approx({"a": 1.5, "b": c_start - 10, "c": 2.5 - c_start + 10})


def test_another_type_is_never_taken():
    assert paid(hold("a", 1, 10, 11, "m7i.xlarge"), hold("b", 1, 11, 12, "c7i.xlarge")) == {"a": 1.5, "b": 1.5}


def test_a_freeze_holding_an_emptied_node_keeps_it_until_its_wait_after_the_freeze():
    assert released(at(11), [(at(11.25), at(13))], WAIT) == at(13.5)  # the freeze starts before the node goes
    assert released(at(11), [(at(11.5), at(13))], WAIT) == at(13.5)  # ... or exactly when it would go
    assert released(at(11), [(at(10), at(11))], WAIT) == at(11.5)  # a freeze ending as it empties holds nothing
    assert paid(hold("a", 1, 10, 11), frozen=[(11.25, 13)]) == {"a": 3.5}


def test_only_the_range_is_counted():
    assert paid(hold("a", 2, 10, 11), until=10.5) == {"a": 1.0}
