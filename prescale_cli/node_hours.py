"""Which nodes are up on a NodePool over a range, and which window pays for each node-hour.

Each occurrence holds its own fleet from scale-up to end; an emptied node stays for the pool's ``consolidateAfter``,
or that long after a freeze holding it ends; a window scaling up takes the emptied nodes of its type first, so a node
is counted once. The rule, step 3 of the estimate: docs/cli.md#the-cost-estimate.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class Hold:
    """One occurrence's fleet: ``nodes`` of ``instance_type`` held by ``window``'s placeholders in ``[start, end)``."""

    window: str
    node_pool: str
    instance_type: str
    nodes: int
    start: datetime  # UTC scale-up
    end: datetime


@dataclass
class _Lot:
    """Nodes of one type that one window pays for since ``since``."""

    window: str
    nodes: int
    since: datetime


def paid_node_hours(holds: Iterable[Hold], frozen: dict[str, list[tuple[datetime, datetime]]],
                    waits: dict[str, timedelta], since: datetime, until: datetime) -> dict[str, float]:
    """Node-hours inside ``[since, until)`` per window; ``frozen``: each pool's united freezes (UTC),
    ``waits``: each pool's ``consolidateAfter``."""
    fleets: dict[tuple[str, str], list[Hold]] = defaultdict(list)
    for hold in holds:
        fleets[hold.node_pool, hold.instance_type].append(hold)
    paid: dict[str, float] = defaultdict(float)
    for (pool, _), fleet in fleets.items():
        for window, nodes, start, end in _payments(fleet, frozen.get(pool, []), waits[pool]):
            paid[window] += nodes * max(min(end, until) - max(start, since), timedelta(0)) / HOUR
    return dict(paid)


def _payments(holds: list[Hold], frozen: list[tuple[datetime, datetime]],
              wait: timedelta) -> Iterator[tuple[str, int, datetime, datetime]]:
    """``(window, nodes, from, until)``: who pays for the nodes of one pool and type, when (one sweep)."""
    # At one instant, placeholders leaving (0) come before arriving ones (1): the newcomers may take their nodes.
    events = sorted([(hold.end, 0, index) for index, hold in enumerate(holds)]
                    + [(hold.start, 1, index) for index, hold in enumerate(holds)])
    busy: dict[int, _Lot] = {}
    emptied: list[tuple[datetime, _Lot]] = []  # with when they go
    for moment, arriving, index in events:
        if not arriving:
            emptied.append((released(moment, frozen, wait), busy.pop(index)))
            continue
        for gone, lot in emptied:
            if gone <= moment:
                yield lot.window, lot.nodes, lot.since, gone
        emptied = sorted(((gone, lot) for gone, lot in emptied if gone > moment), key=lambda item: item[0],
                         reverse=True)  # the longest-kept are taken first
        needed = holds[index].nodes
        for _, lot in emptied:
            taken = min(needed, lot.nodes)
            if taken:
                yield lot.window, taken, lot.since, moment
                lot.nodes, needed = lot.nodes - taken, needed - taken
        emptied = [(gone, lot) for gone, lot in emptied if lot.nodes]
        busy[index] = _Lot(holds[index].window, holds[index].nodes, moment)
    for gone, lot in emptied:
        yield lot.window, lot.nodes, lot.since, gone


def released(emptied: datetime, frozen: list[tuple[datetime, datetime]], wait: timedelta) -> datetime:
    """When a node emptied at ``emptied`` goes: ``wait`` later, unless a freeze holds it by then; then ``wait``
    after that freeze ends (``frozen``: sorted, united). A budget is active on ``[start, end)`` (Karpenter's
    ``Budget.IsActive``, :func:`prescale.model.schedule.freezes.freeze_active`): a freeze that starts exactly when
    the node would go holds it, one that ends exactly when it empties does not."""
    release = emptied + wait
    index = bisect_right(frozen, emptied, key=lambda interval: interval[1])  # the first freeze still on after it
    while index < len(frozen) and frozen[index][0] <= release:
        release = frozen[index][1] + wait
        index += 1
    return release
