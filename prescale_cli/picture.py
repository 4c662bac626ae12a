"""``prescale schedule --png FILE``: a week of the timeline as a picture, one panel per NodePool.

For people who would rather look than read a table: each panel stacks the placeholder pods every window
holds over time (they appear at scale-up, before the event), shades each event window from start to end,
and marks along the top when consolidation is frozen. The time axis is in the windows' zone when they all
share one, otherwise in UTC. Drawn with matplotlib's Agg backend: no display needed.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import matplotlib

matplotlib.use("Agg")  # before pyplot: a file renderer, never a window

import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from prescale.model.config import StackConfig  # noqa: E402

from .timeline import Entry, Timeline  # noqa: E402

WEEK = timedelta(days=7)


def draw_week(config: StackConfig, timeline: Timeline, path: Path) -> None:
    """Write a PNG of the timeline's first week (or the whole range if shorter) to ``path``."""
    until = min(timeline.until, timeline.since + WEEK)
    zones = {window.timezone for window in config.event_windows}
    zone = ZoneInfo(zones.pop() if len(zones) == 1 else "UTC")
    pools = [pool.name for pool in config.node_pools] or ["(no node pools)"]
    by_pool: dict[str, list[Entry]] = defaultdict(list)
    for entry in timeline.entries:
        if entry.occurrence.scale_up_utc < until:
            by_pool[entry.window.node_pool].append(entry)
    colours = {window.name: plt.get_cmap("tab10")(index % 10) for index, window in enumerate(config.event_windows)}

    figure, axes = plt.subplots(len(pools), 1, figsize=(14, 2.8 * len(pools)), sharex=True, squeeze=False)
    for axis, pool in zip(axes[:, 0], pools):
        _draw_pool(axis, by_pool[pool], colours, timeline)
        axis.set_title(f"NodePool {pool}", loc="left", fontsize=10)
        axis.set_ylabel("placeholder pods")
    bottom = axes[-1, 0]
    bottom.set_xlim(timeline.since.astimezone(zone), until.astimezone(zone))
    bottom.xaxis.set_major_locator(mdates.DayLocator(tz=zone))
    bottom.xaxis.set_major_formatter(mdates.DateFormatter("%a %m-%d", tz=zone))
    bottom.xaxis.set_minor_locator(mdates.HourLocator(byhour=range(0, 24, 6), tz=zone))
    bottom.set_xlabel(f"time ({zone.key})")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour) for colour in colours.values()]
    figure.legend(handles, list(colours), loc="upper right", ncols=max(1, len(colours)), fontsize=9)
    figure.suptitle(f"Placeholders (bars) vs event windows (shaded); frozen consolidation on top — "
                    f"{timeline.since:%Y-%m-%d} to {until:%Y-%m-%d} UTC", x=0.01, ha="left", fontsize=11)
    figure.tight_layout(rect=(0, 0, 1, 0.93))
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)


def _draw_pool(axis, entries: list[Entry], colours: dict, timeline: Timeline) -> None:
    """Stacked placeholder pods per window (a step area), event windows shaded, freezes as a top band."""
    instants = sorted({moment for entry in entries
                       for moment in (entry.occurrence.scale_up_utc, entry.occurrence.end_utc)})
    peak = 1
    if instants:
        stacked = [0] * len(instants)
        for name, colour in colours.items():
            levels = [sum(entry.placeholders.pods for entry in entries if entry.window.name == name
                          and entry.occurrence.scale_up_utc <= instant < entry.occurrence.end_utc)
                      for instant in instants]
            if any(levels):
                top = [low + level for low, level in zip(stacked, levels)]
                axis.fill_between(instants, stacked, top, step="post", color=colour, alpha=0.85, linewidth=0)
                stacked = top
        peak = max(peak, *stacked)
    for entry in entries:
        colour = colours[entry.window.name]
        axis.axvspan(entry.occurrence.start_utc, entry.occurrence.end_utc, color=colour, alpha=0.15, linewidth=0)
    frozen = {entry.freeze for entry in entries if entry.freeze}
    for start, end in frozen:
        axis.axvspan(start, end, ymin=0.94, ymax=1.0, color="dimgray", linewidth=0)
    axis.set_ylim(0, peak * 1.15)
    axis.grid(axis="x", which="both", alpha=0.3)
