"""Synthetic stacks for the benchmark: N valid event windows over a few node pools, as Pulumi hands them over.

The mix is what a platform team keeping a year of events in one stack would write: daily and weekday windows,
windows across midnight and across the weekend, some sized by capacity, one-off events through the coming
year, in zones with and without DST (and one off the whole hour). Times differ from window to window, so no
two windows share their schedule maths (a benchmark of identical windows would only measure a cache). Every
stack passes validation at :data:`NOW`, and every window is armed (one-off events lie less than a year ahead).
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
# DST zones first; they change their clocks between 01:00 and 03:00, before any window's earliest fire (04:00).
ZONES = ("America/New_York", "Europe/Berlin", "Australia/Sydney", "Europe/London", "America/Los_Angeles",
         "Asia/Seoul", "UTC", "Asia/Kolkata")
LEAD_TIMES = ("10m", "5m", "15m", "30m", "20m")
MAX_POOLS = 10


def pool_count(windows: int) -> int:
    """Pools for a stack of ``windows``: about √windows / 2, from 1 to 10 (1, 2, 5 and 10 for 1, 10, 100, 500)."""
    return min(MAX_POOLS, max(1, round(math.sqrt(windows) / 2)))


def wire_config(windows: int, pools: int | None = None) -> dict[str, str]:
    """The stack's config in Pulumi's wire form (strings; objects as JSON), like ``read_stack_file`` gives."""
    pools = pool_count(windows) if pools is None else pools
    raw: dict[str, Any] = {
        "prescale:cluster": {"name": "prescale-bench"},
        "prescale:nodePools": [node_pool(index) for index in range(pools)],
        "prescale:eventWindows": [event_window(index, pools) for index in range(windows)],
    }
    return {"aws:region": "ap-northeast-2", **{key: json.dumps(value) for key, value in raw.items()}}


def node_pool(index: int) -> dict[str, Any]:
    """Pools alternate between on-demand amd64 and spot arm64 with a taint, so both renderings are exercised."""
    settings: dict[str, Any] = {"name": f"pool-{index}", "limits": {"cpu": "100000", "memory": "400000Gi"}}
    if index % 2:
        settings |= {"capacityTypes": ["spot", "on-demand"], "architectures": ["arm64"],
                     "amiAlias": "bottlerocket@v1.30.0",
                     "taints": [{"key": "prescale.io/event", "value": "true", "effect": "NoSchedule"}]}
    return settings


def event_window(index: int, pools: int) -> dict[str, Any]:
    """Window ``index``: its kind cycles through :data:`_KINDS`, its zone, times and size vary with ``index``."""
    minute = index % 60
    hour = (index // 60 + index) % 12  # 0-11, added to each kind's earliest hour; no two windows alike below 720
    start, end = _KINDS[index % len(_KINDS)](index, hour, minute)
    amount: dict[str, Any] = ({"capacity": {"cpu": str(8 + index % 32), "memory": f"{32 + index % 64}Gi"}}
                              if index % 3 == 2 else {"nodes": 1 + index % 8})
    return {"name": f"window-{index}", "nodePool": f"pool-{index % pools}", "timezone": ZONES[index % len(ZONES)],
            "start": start, "end": end, "leadTime": LEAD_TIMES[index % len(LEAD_TIMES)], **amount}


def _daily(index: int, hour: int, minute: int) -> tuple[str, str]:
    return f"{minute} {6 + hour} * * *", f"{minute} {8 + hour} * * *"


def _weekdays(index: int, hour: int, minute: int) -> tuple[str, str]:
    return f"{minute} {7 + hour} * * 1-5", f"{minute} {10 + hour} * * 1-5"


def _overnight(index: int, hour: int, minute: int) -> tuple[str, str]:
    return f"{minute} {20 + hour % 4} * * *", f"{minute} {4 + hour % 3} * * *"


def _weekend(index: int, hour: int, minute: int) -> tuple[str, str]:
    return f"{minute} {12 + hour} * * 5", f"{minute} {6 + hour % 3} * * 1"


def _one_off(index: int, hour: int, minute: int) -> tuple[str, str]:
    # A week to a year ahead of NOW (2026-12-07 to 2027-11-11: no 29 February, whose dated crons skip years).
    day = datetime.combine(NOW.date(), datetime.min.time()) + timedelta(days=7 + index * 11 % 340)
    begins = day + timedelta(hours=9 + hour % 6, minutes=minute)
    return (begins.isoformat(timespec="minutes"),
            (begins + timedelta(hours=2 + index % 6)).isoformat(timespec="minutes"))


_KINDS = (_daily, _weekdays, _overnight, _weekend, _one_off, _daily)


def warm_up_config() -> dict[str, str]:
    """A one-window stack sharing no schedule with the benchmark's (zone, dates and times of its own).

    Evaluated once before each measurement, so that imports and the SDK's start-up are paid outside it while
    the schedule maths' caches stay cold.
    """
    window = {"name": "warm-up", "nodePool": "pool-0", "timezone": "Asia/Tokyo", "start": "2027-06-15T03:00",
              "end": "2027-06-15T04:00", "nodes": 1}
    return {"aws:region": "ap-northeast-2", "prescale:cluster": json.dumps({"name": "prescale-warm-up"}),
            "prescale:nodePools": json.dumps([node_pool(0)]), "prescale:eventWindows": json.dumps([window])}
