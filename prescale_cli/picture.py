"""``prescale schedule --png FILE``: a week of the timeline as a picture a person reads at a glance.

One row per event window, grouped under its NodePool, every bar to scale (an event shorter than
:data:`RESOLUTION` of the week gets a marker), a pool of more than :data:`MAX_ROWS_PER_POOL` windows on one row; a
static or buffer window's driver runs as ticks. Drawn with matplotlib's Agg backend. What the picture shows:
docs/cli.md#--png-file.
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
from prescale.model.config import EventWindow  # noqa: E402
from prescale.model.plan import CapacityPlan  # noqa: E402
from prescale.model.schedule.freezes import unite
from prescale.model.strategies import DEFAULT

from .schedule_report import _holds, zoned_times  # noqa: E402 - the table's words for what and when
from .timeline import Entry, Timeline  # noqa: E402

WEEK = timedelta(days=7)
RESOLUTION = 0.006  # of the drawn range (about an hour of a week, a few pixels): shorter events get a marker
MAX_ROWS_PER_POOL = 12  # a pool with more windows is drawn on one row
EVENT, LEAD_ALPHA = "tab:blue", 0.35  # event bars; the lead time in the same colour, paler
FROZEN, NOT_FROZEN, OVERLAP, OVERLAP_ALPHA = "dimgray", "tab:red", "tab:red", 0.15
DRIVER = "black"  # the ticks of a static or buffer window's CronJob runs
BAR, FREEZE_OFFSET = 0.5, 0.34  # bar height and where the freeze line sits below a row's centre, in rows


@dataclass(frozen=True)
class _Row:
    windows: list[EventWindow]
    entries: list[Entry]
    y: int


def draw_week(timeline: Timeline, path: Path) -> None:
    """Write a PNG of the timeline's first week (or the whole range if shorter) to ``path``."""
    figure = week_figure(timeline)
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)


def week_figure(timeline: Timeline) -> Figure:
    """The picture of the timeline's first week, as a matplotlib figure (the tests read its artists)."""
    since, until = timeline.since, min(timeline.until, timeline.since + WEEK)
    drawn = [entry for entry in timeline.entries
             if entry.occurrence.scale_up_utc < until and entry.occurrence.end_utc > since]
    zone = _axis_zone({entry.window.zone for entry in drawn})
    rows, headers = _layout(timeline.plan, drawn)

    figure = plt.figure(figsize=(14, 2.4 + 0.42 * (len(rows) + len(headers))), layout="constrained")
    axis = figure.add_subplot()
    resolution = (mdates.date2num(until) - mdates.date2num(since)) * RESOLUTION
    for row in rows:
        for entry in row.entries:  # on a pool's shared row, bars side by side need no marker
            _draw_entry(axis, row.y, entry, resolution if len(row.windows) == 1 else 0)
    _draw_overlaps(axis, timeline, rows, since, until)

    _label_rows(axis, rows, headers)
    _time_axis(axis, since, until, zone, multiple_zones=zone.key == "UTC" and bool(drawn))
    figure.suptitle(f"Event windows, {_range(since, until, zone)}", x=0.01, ha="left", fontsize=12)
    if not drawn:
        axis.text(0.5, 0.5, "No window occurs in this week.", transform=axis.transAxes, ha="center")
    _key(figure, axis, native=any(entry.strategy is not DEFAULT for entry in drawn))
    return figure


def _axis_zone(zones: set[ZoneInfo]) -> ZoneInfo:
    """The windows' one zone, or UTC when they are in several."""
    return zones.pop() if len(zones) == 1 else ZoneInfo("UTC")


def _zone_name(zone: ZoneInfo, *moments: datetime) -> str:
    """``KST (Asia/Seoul)``; ``CET/CEST (Europe/Berlin)`` if the zone changes abbreviation between ``moments``."""
    abbreviations = "/".join(dict.fromkeys(f"{moment.astimezone(zone):%Z}" for moment in moments))
    return zone.key if abbreviations == zone.key else f"{abbreviations} ({zone.key})"


def _range(since: datetime, until: datetime, zone: ZoneInfo) -> str:
    """The drawn range in ``zone``, each end with its own abbreviation when they differ (a DST change)."""
    start, end = since.astimezone(zone), until.astimezone(zone)
    if start.tzname() == end.tzname():
        return f"{start:%a %Y-%m-%d %H:%M} to {end:%a %Y-%m-%d %H:%M} {_zone_name(zone, since)}"
    return f"{start:%a %Y-%m-%d %H:%M %Z} to {end:%a %Y-%m-%d %H:%M %Z} ({zone.key})"


def _layout(plan: CapacityPlan, drawn: list[Entry]) -> tuple[list[_Row], dict[int, str]]:
    """Rows top to bottom: a header per NodePool with drawn windows, then its windows in config order (or
    all of them on one row, past :data:`MAX_ROWS_PER_POOL`)."""
    rows, headers, y = [], {}, 0
    for pool in plan.pools:
        windows = [window for window in (window_plan.window for window_plan in plan.windows)
                   if window.node_pool == pool and any(entry.window is window for entry in drawn)]
        if not windows:
            continue
        headers[y] = f"NodePool {pool}"
        y += 1
        groups = [windows] if len(windows) > MAX_ROWS_PER_POOL else [[window] for window in windows]
        for group in groups:
            rows.append(_Row(group, [entry for entry in drawn if any(entry.window is window for window in group)], y))
            y += 1
    return rows, headers


def _draw_entry(axis, y: int, entry: Entry, resolution: float) -> None:
    occurrence = entry.occurrence
    scale_up, start, end = (mdates.date2num(moment) for moment in
                            (occurrence.scale_up_utc, occurrence.start_utc, occurrence.end_utc))
    name = entry.window.name
    hatch = "///" if entry.not_armed else None
    _bar(axis, y, scale_up, start, f"lead:{name}", color=EVENT, alpha=LEAD_ALPHA, hatch=hatch)
    _bar(axis, y, start, end, f"event:{name}", color=EVENT, hatch=hatch)
    if end - start < resolution:
        axis.plot((start + end) / 2, y - BAR / 2, marker="v", markersize=6, color=EVENT, linestyle="none",
                  gid=f"short:{name}")
    for fire in entry.driver or ():
        axis.plot(mdates.date2num(fire.at_utc), y - BAR / 2, marker="|", markersize=9, markeredgewidth=1.5,
                  color=DRIVER, linestyle="none", gid=f"driver:{name}")
    if entry.freeze:
        low, high = (mdates.date2num(moment) for moment in entry.freeze)
        _bar(axis, y + FREEZE_OFFSET, low, high, f"frozen:{name}", height=0.08, color=FROZEN)
    elif not entry.not_armed:
        _bar(axis, y + FREEZE_OFFSET, scale_up, end, f"not-frozen:{name}", height=0.08, color=NOT_FROZEN)


def _bar(axis, y: float, low: float, high: float, gid: str, height: float = BAR, **style) -> None:
    """A bar exactly from ``low`` to ``high``: not snapped to whole pixels, where a short one would vanish."""
    axis.barh(y, high - low, left=low, height=height, linewidth=0, snap=False, gid=gid, **style)


def _draw_overlaps(axis, timeline: Timeline, rows: list[_Row], since: datetime, until: datetime) -> None:
    """A band over each stretch where windows overlap, across their rows (touching stretches as one)."""
    row_of = {window.name: row.y for row in rows for window in row.windows}
    bands: dict[tuple[int, int], list[tuple[datetime, datetime]]] = {}
    for overlap in timeline.overlaps:
        ys = [row_of[window] for window in overlap.windows if window in row_of]
        if ys and overlap.start < until and overlap.end > since:
            bands.setdefault((min(ys), max(ys)), []).append((overlap.start, overlap.end))
    for (top, bottom), stretches in bands.items():
        for start, end in unite(stretches):
            axis.add_patch(Rectangle((mdates.date2num(start), top - 0.5), mdates.date2num(end) - mdates.date2num(start),
                                     bottom - top + 1, color=OVERLAP, alpha=OVERLAP_ALPHA, linewidth=0, zorder=0,
                                     gid="overlap"))


def _label_rows(axis, rows: list[_Row], headers: dict[int, str]) -> None:
    labels = {**headers, **{row.y: _row_label(row) for row in rows}}
    axis.set_yticks(sorted(labels), [labels[y] for y in sorted(labels)], fontsize=9)
    for y in headers:
        axis.get_yticklabels()[sorted(labels).index(y)].set_fontweight("bold")
        if y:
            axis.axhline(y - 0.5, color="black", linewidth=0.6)
    axis.set_ylim(max(labels, default=0) + 0.6, -0.6)
    axis.tick_params(axis="y", length=0)


def _row_label(row: _Row) -> str:
    if len(row.windows) == 1:
        entry = row.entries[0]
        strategy = f"{entry.strategy.name}: " if entry.strategy is not DEFAULT else ""
        return f"{row.windows[0].name}  ·  {strategy}{_holds(entry)}\n{_times(row.entries)}"
    return f"{len(row.windows)} windows: {row.windows[0].name} … {row.windows[-1].name}\n(their times: the table)"


def _times(entries: list[Entry]) -> str:
    """The window's own times in its zone, as the table shows them (a one-off with its date); times that
    differ only by the zone's DST abbreviation are shown once (``08:30 → 09:00 – 17:00 EST/EDT``), and an
    occurrence across a DST change gives each time its own (``00:50 CET → 01:00 CET – 04:00 CEST``)."""
    shown: dict[str, dict[str, None]] = {}  # times → their zones' abbreviations, both in order
    for entry in entries:
        occurrence = entry.occurrence
        day = f"{occurrence.scale_up:%a %m-%d} " if entry.window.is_one_off else ""
        clocks = (f"{day}{occurrence.scale_up:%H:%M}", f"{occurrence.start:%H:%M}", f"{occurrence.end:%H:%M}")
        zones = {f"{moment:%Z}": None for moment in (occurrence.scale_up, occurrence.start, occurrence.end)}
        if len(zones) == 1:
            shown.setdefault("{} → {} – {}".format(*clocks), {}).update(zones)
        else:
            shown.setdefault(zoned_times(occurrence, clocks), {})
    texts = [" ".join((times, "/".join(zones))).rstrip() for times, zones in shown.items()]
    not_armed = "  (not armed yet)" if any(entry.not_armed for entry in entries) else ""
    return "\n".join(texts[:2]) + (" …" if len(texts) > 2 else "") + not_armed


def _time_axis(axis, since: datetime, until: datetime, zone: ZoneInfo, multiple_zones: bool) -> None:
    """Hours labelled every 6 in ``zone``, day names on top, a line at each midnight."""
    left = mdates.date2num(since)
    axis.set_xlim(left, mdates.date2num(until))
    axis.xaxis.set_major_locator(mdates.HourLocator(byhour=range(0, 24, 6), tz=zone))
    axis.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M", tz=zone))
    axis.tick_params(axis="x", labelsize=8)
    axis.grid(axis="x", which="major", alpha=0.25)
    first = since.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    days = [first + timedelta(days=day) for day in range((until - since).days + 2)]
    # Each hour a short mark along the bottom, as one collection: a minor tick each (168 a week) made the layout
    # build and measure 168 tick objects, a third of the drawing's time.
    hours = [hour for hour in mdates.drange(first, until, timedelta(hours=1)) if hour >= left]
    axis.vlines(hours, 0, 0.015, transform=axis.get_xaxis_transform(), color="black", linewidth=0.6)
    for midnight in days:
        axis.axvline(mdates.date2num(midnight), color="gray", linewidth=0.8)
    top = axis.secondary_xaxis("top")
    top.set_xticks([mdates.date2num(day.replace(hour=12)) for day in days
                    if since <= day.replace(hour=12) < until],
                   [f"{day:%a %m-%d}" for day in days if since <= day.replace(hour=12) < until], fontsize=10)
    top.tick_params(length=0)
    note = "; each window's own times are in its label" if multiple_zones else ""
    axis.set_xlabel(f"hour of the day in {_zone_name(zone, since, until)}{note}")


def _key(figure: Figure, axis, native: bool) -> None:
    """What each mark means, only for marks that are drawn: below the plot, never over the title. ``native``: a
    window of another strategy than the default is drawn, so the lead time holds more than placeholders."""
    gids = {(artist.get_gid() or "").split(":")[0] for artist in (*axis.patches, *axis.lines)}
    held = "capacity" if native else "placeholders"
    kinds = [("lead", Patch(color=EVENT, alpha=LEAD_ALPHA, linewidth=0,
                            label=f"{held} up before the event (lead time)")),
             ("event", Patch(color=EVENT, linewidth=0, label="event window")),
             ("short", Line2D([], [], marker="v", markersize=6, color=EVENT, linestyle="none",
                              label="event shorter than the drawing's resolution (bar to scale)")),
             ("driver", Line2D([], [], marker="|", markersize=9, markeredgewidth=1.5, color=DRIVER,
                               linestyle="none", label="driver CronJob run (sets the count)")),
             ("frozen", Line2D([], [], color=FROZEN, linewidth=3, label="consolidation frozen")),
             ("not-frozen", Line2D([], [], color=NOT_FROZEN, linewidth=3, label="NOT frozen")),
             ("overlap", Patch(color=OVERLAP, alpha=OVERLAP_ALPHA, linewidth=0,
                               label="windows overlap on the NodePool"))]
    if any(patch.get_hatch() for patch in axis.patches):
        gids.add("not-armed")
        kinds.append(("not-armed", Patch(facecolor=EVENT, linewidth=0, hatch="///",
                                         label="not armed yet (deployed by a later pulumi up)")))
    handles = [handle for gid, handle in kinds if gid in gids]
    if handles:
        figure.legend(handles=handles, loc="outside lower center", ncols=len(handles) if len(handles) <= 5 else 3,
                      fontsize=9, frameon=False)
