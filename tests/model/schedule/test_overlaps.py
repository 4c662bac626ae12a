"""The sweep over spans' boundaries that the config checks and `prescale schedule` share."""

import pytest
from prescale.model.schedule.overlaps import boundaries, coinciding


def test_boundaries_close_before_they_open_and_skip_empty_spans():
    spans = [(0, 10, "a"), (10, 20, "b"), (5, 10, "c"), (7, 7, "empty")]
    assert list(boundaries(spans)) == [(0, [], ["a"]), (5, [], ["c"]), (10, ["a", "c"], ["b"]), (20, ["b"], [])]


@pytest.mark.parametrize("spans, stretches", [
    ([], []),
    ([(0, 10, "a")], []),
    ([(0, 10, "a"), (10, 20, "b")], []),  # half-open: back to back is no overlap
    ([(0, 10, "a"), (5, 20, "b")], [(5, 10, ("a", "b"))]),
    ([(0, 30, "a"), (5, 10, "b"), (20, 25, "c")], [(5, 10, ("a", "b")), (20, 25, ("a", "c"))]),
    # the set changes at 10 and at 15: three stretches, keys by when they opened
    ([(5, 20, "b"), (0, 15, "a"), (10, 30, "c")], [(5, 10, ("a", "b")), (10, 15, ("a", "b", "c")),
                                                     (15, 20, ("b", "c"))]),
    # the same key closing and reopening at one instant keeps one stretch
    ([(0, 10, "a"), (10, 20, "a"), (0, 20, "b")], [(0, 20, ("a", "b"))]),
    # spans opening together are listed in input order
    ([(0, 5, "z"), (0, 5, "y")], [(0, 5, ("z", "y"))]),
])
def test_coinciding_stretches(spans, stretches):
    assert list(coinciding(spans)) == stretches


def test_coinciding_agrees_with_counting_at_every_instant():
    spans = [(start, start + length, index) for index, (start, length) in
             enumerate([(0, 7), (3, 2), (5, 9), (5, 1), (14, 3), (16, 4), (19, 1), (20, 5)])]
    covered = {moment for start, end, _ in coinciding(spans) for moment in range(start, end)}
    expected = {moment for moment in range(30) if sum(start <= moment < end for start, end, _ in spans) >= 2}
    assert covered == expected
