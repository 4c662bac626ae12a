"""Where spans of time coincide: one sweep over their boundaries, shared by the config checks and the CLI.

Windows on one node pool add up (each holds its own placeholders), so both the config checks (the sum must fit
the pool's limits) and ``prescale schedule`` (which shows the stretches where windows overlap) walk the same
boundaries of the windows' occurrences ``[scale_up, end)`` in time order. Sorting the boundaries is the only
cost above linear, whatever the number of windows.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from itertools import groupby
from operator import itemgetter
from typing import Any, Protocol, TypeVar


class Ordered(Protocol):
    """Anything ``<``-comparable: epoch seconds in the config checks, datetimes in the CLI's timeline."""

    def __lt__(self, other: Any, /) -> bool: ...

    def __le__(self, other: Any, /) -> bool: ...


T = TypeVar("T", bound=Ordered)
K = TypeVar("K", bound=Hashable)


def boundaries(spans: Iterable[tuple[T, T, K]]) -> Iterator[tuple[T, list[K], list[K]]]:
    """``(instant, closing, opening)`` at every instant where spans ``(start, end, key)`` close or open, in time
    order. Spans are half-open ``[start, end)``, so at one instant the closing ones go before the opening ones, and
    an empty span is no span."""
    events: list[tuple[T, bool, K]] = []
    for start, end, key in spans:
        if start < end:
            events += ((start, True, key), (end, False, key))
    events.sort(key=itemgetter(0, 1))  # stable: at one instant closing (False) first, each in input order
    for instant, group in groupby(events, key=itemgetter(0)):
        closing: list[K] = []
        opening: list[K] = []
        for _, opens, key in group:
            (opening if opens else closing).append(key)
        yield instant, closing, opening


def coinciding(spans: Iterable[tuple[T, T, K]]) -> Iterator[tuple[T, T, tuple[K, ...]]]:
    """Maximal stretches ``(from, until, keys)`` in which two or more spans are open, in time order; ``keys`` lists
    the open spans' keys by when they opened (then in input order). A new stretch begins whenever that set changes."""
    open_keys: dict[K, None] = {}  # an ordered set
    stretch: tuple[T, tuple[K, ...]] | None = None
    for instant, closing, opening in boundaries(spans):
        for key in closing:
            del open_keys[key]
        open_keys.update(dict.fromkeys(opening))
        if stretch is not None and open_keys.keys() != set(stretch[1]):
            yield stretch[0], instant, stretch[1]
            stretch = None
        if stretch is None and len(open_keys) >= 2:
            stretch = (instant, tuple(open_keys))
