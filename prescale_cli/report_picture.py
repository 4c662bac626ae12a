"""``prescale report --png``: per window, planned vs Ready around each measured occurrence, every occurrence on one
time axis relative to its start (minutes before and after the doors open), so a late or short one stands out from
the others. Drawn with matplotlib's Agg backend, as the schedule's picture is."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: a file renderer, never a window

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .report import Measured, Report  # noqa: E402

VERDICT_COLOURS = {"served": "#2e7d32", "late": "#ef6c00", "short": "#c62828", "no-data": "#9e9e9e"}


def draw_report(report: Report, path: Path) -> None:
    """Write the report's picture to ``path`` (PNG)."""
    figure = report_figure(report)
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)


def report_figure(report: Report) -> Figure:
    """One panel per window with measured occurrences (the tests read its artists)."""
    windows = list(dict.fromkeys(measured.window for measured in report.occurrences))
    figure = plt.figure(figsize=(10, 1.2 + 2.6 * max(len(windows), 1)), layout="constrained")
    figure.suptitle(f"Stack {report.stack}: planned vs Ready around each event's start", x=0.01, ha="left",
                    fontsize=12)
    for index, window in enumerate(windows, 1):
        axis = figure.add_subplot(len(windows), 1, index)
        occurrences = [measured for measured in report.occurrences if measured.window == window]
        for measured in occurrences:
            _draw(axis, measured)
        first = occurrences[0]
        axis.axhline(first.planned, color="#424242", linestyle="--", linewidth=1, label=f"planned: {first.planned}")
        axis.axvline(0, color="#424242", linewidth=1)
        axis.set_title(f"{window} (pool {first.node_pool}, {first.strategy.name})", loc="left", fontsize=10)
        axis.set_ylabel(f"Ready {first.counted}")
        axis.set_xlabel("minutes from the event's start")
        axis.set_ylim(bottom=0, top=max(first.planned, *(value for m in occurrences for _, value in m.ready),
                                        1) * 1.15)
        axis.legend(loc="lower right", fontsize=8)
    return figure


def _draw(axis, measured: Measured) -> None:
    """The occurrence's Ready count, as a step line coloured by its verdict."""
    if not measured.ready:
        return
    start = measured.occurrence.start_utc.timestamp()
    minutes = [(at - start) / 60 for at, _ in measured.ready]
    axis.step(minutes, [value for _, value in measured.ready], where="post", linewidth=1.5,
              color=VERDICT_COLOURS[measured.verdict], gid=f"ready:{measured.window}:{measured.verdict}",
              label=f"{measured.occurrence.start:%Y-%m-%d}: {measured.verdict}")
