"""The benchmark's result table, as Markdown (readable in a terminal, pasted as is into the docs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

_MIB = 2**20
COLUMNS = ("windows", "pools", "resources", "program s", "baseline s", "ratio", "ratio range", "floor s",
           "floor ratio", "program peak MiB", "baseline peak MiB", "plan s", "plan baseline s", "plan ratio")


@dataclass(frozen=True)
class Row:
    """One stack size: every run's seconds (the table shows medians) and the highest peak memory of each kind."""

    windows: int
    pools: int
    resources: int
    program_seconds: list[float]
    baseline_seconds: list[float]
    floor_seconds: list[float]
    program_peak_bytes: int  # peak resident memory of the measuring process, imports included
    baseline_peak_bytes: int
    plan_seconds: list[float]  # `prescale plan` end to end; empty when not measured
    plan_baseline_seconds: list[float]  # the baseline in a fresh interpreter, end to end; empty likewise

    @property
    def ratio(self) -> float:
        """The figure to quote: the program's median time over the baseline's (Pulumi's own cost)."""
        return median(self.program_seconds) / median(self.baseline_seconds)

    @property
    def ratio_range(self) -> tuple[float, float]:
        """The lowest and highest ratio of a round's program run to the baseline run after it: how far the machine's
        pace moved this pass's figure (a round's two runs are seconds apart, so a slow spell tends to hit both)."""
        ratios = [program / baseline for program, baseline in zip(self.program_seconds, self.baseline_seconds,
                                                                     strict=True)]
        return min(ratios), max(ratios)

    @property
    def floor_ratio(self) -> float:
        """The program's median time over the floor's (the engine alone, no SDK classes)."""
        return median(self.program_seconds) / median(self.floor_seconds)

    @property
    def plan_ratio(self) -> float:
        """What a user waits for against Pulumi's own share of it: ``prescale plan``'s median time over the cold
        baseline's, both interpreter start to exit."""
        return median(self.plan_seconds) / median(self.plan_baseline_seconds)

    def cells(self) -> tuple[str, ...]:
        plan = (f"{median(self.plan_seconds):.2f}", f"{median(self.plan_baseline_seconds):.2f}",
                f"{self.plan_ratio:.2f}") if self.plan_seconds else ("-", "-", "-")
        return (str(self.windows), str(self.pools), str(self.resources),
                f"{median(self.program_seconds):.2f}", f"{median(self.baseline_seconds):.2f}",
                f"{self.ratio:.2f}", "{:.2f}–{:.2f}".format(*self.ratio_range),
                f"{median(self.floor_seconds):.2f}", f"{self.floor_ratio:.2f}",
                f"{self.program_peak_bytes / _MIB:.1f}", f"{self.baseline_peak_bytes / _MIB:.1f}", *plan)


def markdown(rows: list[Row]) -> str:
    """A Markdown table of ``rows`` with :data:`COLUMNS`."""
    return aligned_table(COLUMNS, [row.cells() for row in rows])


def aligned_table(columns: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    """A Markdown table, each column as wide as its widest cell, numbers right-aligned."""
    cells = [columns, *lines]
    widths = [max(len(line[index]) for line in cells) for index in range(len(columns))]
    header = "| " + " | ".join(name.ljust(width) for name, width in zip(columns, widths, strict=True)) + " |"
    rule = "|" + "|".join("-" * (width + 1) + ":" for width in widths) + "|"
    body = ["| " + " | ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)) + " |"
            for line in lines]
    return "\n".join([header, rule, *body])
