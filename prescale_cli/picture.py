"""``prescale schedule --png FILE``: a week of the timeline as a picture a person reads at a glance.

One row per event window, grouped under its NodePool, over the week: a pale bar from scale-up to the
event's start (the lead time, when the placeholders are already there), a solid bar for the event, a grey
line under it while consolidation is frozen, and a red band across a pool's rows where its windows overlap
(their placeholders add up). Each row is labelled with the window's own times, in its own zone, and what it
holds, so a 15-minute window drawn wider than it is (every event bar is at least :data:`MIN_EVENT_WIDTH`
of the week wide) still says exactly when it is. Hours are ticked and labelled in the windows' zone when all
drawn windows share one, else in UTC, as the axis label says; the key below the plot lists only what is
drawn. Drawn with matplotlib's Agg backend: no display needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import matplotlib

matplotlib.use("Agg")  # before pyplot: a file renderer, never a window

import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from prescale.model.config import EventWindow, CapacityConfig  # noqa: E402

from .schedule_report import _holds  # noqa: E402 - the same words as the table's Placeholders column
from .timeline import Entry, Timeline  # noqa: E402

WEEK = timedelta(days=7)
MIN_EVENT_WIDTH = 0.006  # of the drawn range: 15 minutes of a week would be a hairline, this is ~1 hour
COLOURS = plt.get_cmap("tab10").colors  # one per NodePool: rows are labelled, colour only groups them
BAR, FREEZE_OFFSET = 0.5, 0.34  # bar height and where the freeze line sits below a row's centre, in rows


@dataclass(frozen=True)
class _Row:
    window: EventWindow
    entries: list[Entry]
    y: int


def draw_week(config: CapacityConfig, timeline: Timeline, path: Path) -> None:
    """Write a PNG of the timeline's first week (or the whole range if shorter) to ``path``."""
    figure = week_figure(config, timeline)
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)


def week_figure(config: CapacityConfig, timeline: Timeline) -> Figure:
    """The picture of the timeline's first week, as a matplotlib figure (the tests read its artists)."""
    since, until = timeline.since, min(timeline.until, timeline.since + WEEK)
    drawn = [entry for entry in timeline.entries
             if entry.occurrence.scale_up_utc < until and entry.occurrence.end_utc > since]
    zone = _axis_zone({entry.window.timezone for entry in drawn})
    rows, headers = _layout(config, drawn)

    figure = plt.figure(figsize=(14, 2.4 + 0.42 * (len(rows) + len(headers))), layout="constrained")
    axis = figure.add_subplot()
    span = mdates.date2num(until) - mdates.date2num(since)
    colours = {pool.name: COLOURS[index % len(COLOURS)] for index, pool in enumerate(config.node_pools)}
    for row in rows:
        for entry in row.entries:
            _draw_entry(axis, row.y, entry, colours[row.window.node_pool], span * MIN_EVENT_WIDTH)
    for overlap in timeline.overlaps:
        ys = [row.y for row in rows if row.window.node_pool == overlap.node_pool]
        if ys and overlap.start < until and overlap.end > since:
            axis.add_patch(Rectangle((mdates.date2num(overlap.start), min(ys) - 0.5),
                                     mdates.date2num(overlap.end) - mdates.date2num(overlap.start),
                                     max(ys) - min(ys) + 1, color="tab:red", alpha=0.15, linewidth=0,
                                     zorder=0, gid="overlap"))

    _label_rows(axis, rows, headers)
    _time_axis(axis, since, until, zone, multiple_zones=zone.key == "UTC" and bool(drawn))
    figure.suptitle(f"Event windows, {since.astimezone(zone):%a %Y-%m-%d %H:%M} to "
                    f"{until.astimezone(zone):%a %Y-%m-%d %H:%M} {_zone_name(zone, since)}",
                    x=0.01, ha="left", fontsize=12)
    if not drawn:
        axis.text(0.5, 0.5, "No window occurs in this week.", transform=axis.transAxes, ha="center")
    _key(figure, axis)
    return figure


def _axis_zone(zones: set[str]) -> ZoneInfo:
    return ZoneInfo(zones.pop() if len(zones) == 1 else "UTC")


def _zone_name(zone: ZoneInfo, at: datetime) -> str:
    abbreviation = at.astimezone(zone).tzname()
    return zone.key if abbreviation == zone.key else f"{abbreviation} ({zone.key})"


def _layout(config: CapacityConfig, drawn: list[Entry]) -> tuple[list[_Row], dict[int, str]]:
    """Rows top to bottom: a header per NodePool with drawn windows, then its windows in config order."""
    rows, headers, y = [], {}, 0
    for pool in config.node_pools:
        windows = [window for window in config.event_windows if window.node_pool == pool.name
                   and any(entry.window is window for entry in drawn)]
        if not windows:
            continue
        headers[y] = f"NodePool {pool.name}"
        y += 1
        for window in windows:
            rows.append(_Row(window, [entry for entry in drawn if entry.window is window], y))
            y += 1
    return rows, headers


def _draw_entry(axis, y: int, entry: Entry, colour, min_width: float) -> None:
    occurrence = entry.occurrence
    scale_up, start, end = (mdates.date2num(moment) for moment in
                            (occurrence.scale_up_utc, occurrence.start_utc, occurrence.end_utc))
    name = entry.window.name
    hatch = "///" if entry.not_armed else None
    axis.barh(y, start - scale_up, left=scale_up, height=BAR, color=colour, alpha=0.35, linewidth=0,
              hatch=hatch, gid=f"lead:{name}")
    axis.barh(y, max(end - start, min_width), left=start, height=BAR, color=colour, linewidth=0,
              hatch=hatch, gid=f"event:{name}")
    if entry.freeze:
        low, high = (mdates.date2num(moment) for moment in entry.freeze)
        axis.barh(y + FREEZE_OFFSET, high - low, left=low, height=0.08, color="dimgray", linewidth=0,
                  gid=f"frozen:{name}")
    elif not entry.not_armed:
        axis.barh(y + FREEZE_OFFSET, max(end - scale_up, min_width), left=scale_up, height=0.08,
                  color="tab:red", linewidth=0, gid=f"not-frozen:{name}")


def _label_rows(axis, rows: list[_Row], headers: dict[int, str]) -> None:
    labels = {**headers, **{row.y: f"{row.window.name}  ·  {_holds(row.entries[0])}\n{_times(row.entries)}"
                            for row in rows}}
    axis.set_yticks(sorted(labels), [labels[y] for y in sorted(labels)], fontsize=9)
    for y in headers:
        axis.get_yticklabels()[sorted(labels).index(y)].set_fontweight("bold")
        if y:
            axis.axhline(y - 0.5, color="black", linewidth=0.6)
    axis.set_ylim(max(labels, default=0) + 0.6, -0.6)
    axis.tick_params(axis="y", length=0)


def _times(entries: list[Entry]) -> str:
    """The window's own times in its zone, as the table shows them (a one-off with its date); times that
    differ only by the zone's DST abbreviation are shown once (``08:30 → 09:00 – 17:00 EST/EDT``)."""
    shown: dict[str, list[str]] = {}
    for entry in entries:
        occurrence = entry.occurrence
        day = f"{occurrence.scale_up:%a %m-%d} " if entry.window.is_one_off else ""
        times = f"{day}{occurrence.scale_up:%H:%M} → {occurrence.start:%H:%M} – {occurrence.end:%H:%M}"
        zones = shown.setdefault(times, [])
        if occurrence.start.tzname() not in zones:
            zones.append(occurrence.start.tzname())
    texts = [f"{times} {'/'.join(zones)}" for times, zones in shown.items()]
    not_armed = "  (not armed yet)" if any(entry.not_armed for entry in entries) else ""
    return ", ".join(texts[:2]) + (", …" if len(texts) > 2 else "") + not_armed


def _time_axis(axis, since: datetime, until: datetime, zone: ZoneInfo, multiple_zones: bool) -> None:
    """Hours labelled every 6 in ``zone``, day names on top, a line at each midnight."""
    axis.set_xlim(mdates.date2num(since), mdates.date2num(until))
    axis.xaxis.set_major_locator(mdates.HourLocator(byhour=range(0, 24, 6), tz=zone))
    axis.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M", tz=zone))
    axis.xaxis.set_minor_locator(mdates.HourLocator(tz=zone))
    axis.tick_params(axis="x", labelsize=8)
    axis.grid(axis="x", which="major", alpha=0.25)
    first = since.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    days = [first + timedelta(days=day) for day in range((until - since).days + 2)]
    for midnight in days:
        axis.axvline(mdates.date2num(midnight), color="gray", linewidth=0.8)
    top = axis.secondary_xaxis("top")
    top.set_xticks([mdates.date2num(day.replace(hour=12)) for day in days
                    if since <= day.replace(hour=12) < until],
                   [f"{day:%a %m-%d}" for day in days if since <= day.replace(hour=12) < until], fontsize=10)
    top.tick_params(length=0)
    note = "; each window's own times are in its label" if multiple_zones else ""
    axis.set_xlabel(f"hour of the day in {_zone_name(zone, since)}{note}")


def _key(figure: Figure, axis) -> None:
    """What each mark means, only for marks that are drawn: below the plot, never over the title."""
    gids = {(artist.get_gid() or "").split(":")[0] for artist in axis.patches}
    kinds = [("lead", Patch(color="gray", alpha=0.35, label="placeholders up before the event (lead time)")),
             ("event", Patch(color="gray", label="event window")),
             ("frozen", Line2D([], [], color="dimgray", linewidth=3, label="consolidation frozen")),
             ("not-frozen", Line2D([], [], color="tab:red", linewidth=3, label="NOT frozen")),
             ("overlap", Patch(color="tab:red", alpha=0.15, label="windows overlap on the NodePool"))]
    if any(patch.get_hatch() for patch in axis.patches):
        gids.add("not-armed")
        kinds.append(("not-armed", Patch(facecolor="white", edgecolor="gray", hatch="///",
                                         label="not armed yet (deployed by a later pulumi up)")))
    handles = [handle for gid, handle in kinds if gid in gids]
    if handles:
        figure.legend(handles=handles, loc="outside lower center", ncols=len(handles) if len(handles) <= 5 else 3,
                      fontsize=9, frameon=False)
