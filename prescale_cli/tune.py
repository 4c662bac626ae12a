"""``prescale tune``: the next occurrence of each window sized from its last measured ones (:mod:`.report`).

* **leadTime**: the p95 (nearest rank) of scale-up → complete over the occurrences that completed, plus the margin
  you state, rounded up to a whole minute: a lead time that would have had each of them complete before its start.
* **nodes** or **capacity**: what the pods on the window's NodePool requested at their peak during the event (their
  requests, not the placeholders'; DaemonSets' left out), the largest over the occurrences, plus the headroom you
  state: in nodes of the pool's ``nodeSize`` for a ``nodes:`` window, as CPU and memory for a ``capacity:`` one.

A window with fewer than :data:`MIN_OCCURRENCES` measured occurrences gets no suggestion. ``--write`` edits
``Pulumi.<stack>.yaml`` in place (ruamel.yaml finds where each value is written), each window's suggestion only if
the file it leaves validates as ``pulumi up`` validates it, so one that would break a limit is shown and left
alone; only the values change, every other character of the file stays as written. Details:
docs/report.md#prescale-tune.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from prescale.model.config import CONFIG_NAMESPACE, CapacityConfig, EventWindow
from prescale.model.values.duration import format_duration
from prescale.model.values.quantity import format_cpu, format_memory
from prescale.stack_file import StackFileError, full_key, project_name
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from .report import Measured, Report
from .stack import rewrite_problems

MIN_OCCURRENCES = 2  # measured occurrences a suggestion needs (fewer are shown and left alone)
WINDOWS_KEY = f"{CONFIG_NAMESPACE}:eventWindows"


@dataclass(frozen=True)
class Sizing:
    """A ``nodes:`` count, or a ``capacity:`` as CPU and memory quantities."""

    nodes: int | None = None
    cpu: str | None = None
    memory: str | None = None


@dataclass(frozen=True)
class Tuned:
    """One window's current values, what its measured occurrences suggest (``None``: nothing), and why."""

    window: EventWindow
    occurrences: int  # measured, of the last ones asked for
    lead_time: str
    suggested_lead_time: str | None
    sizing: Sizing
    suggested_sizing: Sizing | None
    evidence: str  # the figures behind the suggestion, or why there is none

    @property
    def changes(self) -> bool:
        return (self.suggested_lead_time not in (None, self.lead_time)
                or (self.suggested_sizing is not None and self.suggested_sizing != self.sizing))


def suggest(config: CapacityConfig, report: Report, last: int, margin: timedelta, headroom: float) -> list[Tuned]:
    """Each window's suggestion from its ``last`` occurrences in ``report``."""
    tuned = []
    for window in config.event_windows:
        measured = [item for item in report.occurrences if item.window == window.name and _measured(item)][-last:]
        tuned.append(_tune(config, window, measured, margin, headroom))
    return tuned


def _measured(item: Measured) -> bool:
    """Whether the occurrence left any figure a suggestion reads (one before the series existed left none)."""
    return item.ready_at_start is not None or bool(item.peak_requests and any(item.peak_requests))


def _tune(config: CapacityConfig, window: EventWindow, measured: list[Measured], margin: timedelta,
          headroom: float) -> Tuned:
    asked = window.capacity
    current = Sizing(nodes=window.nodes) if asked is None else Sizing(cpu=asked.cpu, memory=asked.memory)
    took = sorted(item.scale_up_to_complete for item in measured if item.scale_up_to_complete is not None)
    # An event whose pods left no request on the pool (none ran there, or none was exported) says nothing of its size.
    peaks = [item.peak_requests for item in measured if item.peak_requests is not None and any(item.peak_requests)]
    lead = sizing = None
    notes = []
    if len(took) >= MIN_OCCURRENCES:
        p95 = took[max(math.ceil(0.95 * len(took)) - 1, 0)]
        lead = format_duration(timedelta(minutes=math.ceil((p95 + margin) / timedelta(minutes=1))))
        notes.append(f"scale-up → complete p95 {format_duration(p95)} over {len(took)} occurrences, "
                     f"+ {format_duration(margin)}")
    else:
        notes.append(f"{len(took)} of {len(measured)} occurrences completed: lead time needs {MIN_OCCURRENCES}")
    if len(peaks) >= MIN_OCCURRENCES:
        cpu = Decimal(str(max(peak[0] for peak in peaks))) * Decimal(str(1 + headroom))
        memory = Decimal(str(max(peak[1] for peak in peaks))) * Decimal(str(1 + headroom))
        if window.nodes is not None:
            size = config.placeholders_for(window.node_pool).node_size
            nodes = max(math.ceil(cpu / size.requests[0]), math.ceil(memory / size.requests[1]), 1)
            sizing = Sizing(nodes=nodes)
        else:
            sizing = Sizing(cpu=format_cpu(cpu), memory=format_memory(memory))
        notes.append(f"peak requests {format_cpu(cpu / Decimal(str(1 + headroom)))} CPU, "
                     f"{format_memory(memory / Decimal(str(1 + headroom)))} over {len(peaks)} occurrences, "
                     f"+ {headroom:.0%}")
    else:
        notes.append(f"{len(peaks)} occurrences with pod requests on the pool: sizing needs {MIN_OCCURRENCES}")
    return Tuned(window, len(measured), window.lead_time, lead, current, sizing, "; ".join(notes))


def write(project: Path, stack: str, now: datetime, tuned: list[Tuned]) -> tuple[list[str], list[str]]:
    """Write the suggestions into ``Pulumi.<stack>.yaml``, each window's only if the file it leaves still validates
    (all at once when they do together, the usual case, else window by window); the windows written, and the
    problems of those left alone."""
    path = project / f"Pulumi.{stack}.yaml"
    changing = [item for item in tuned if item.changes]
    original = path.read_text(encoding="utf-8-sig")
    together = original
    for item in changing:
        together = _edited(together, path, project, item)
    if changing and not rewrite_problems(project, stack, now, together):
        path.write_text(together, encoding="utf-8")
        return [item.window.name for item in changing], []
    written, refused = [], []
    for item in changing:
        text = _edited(path.read_text(encoding="utf-8-sig"), path, project, item)
        problems = rewrite_problems(project, stack, now, text)
        if problems:
            refused += [f"{item.window.name}: left as it is: {problem}" for problem in problems]
            continue
        path.write_text(text, encoding="utf-8")
        written.append(item.window.name)
    return written, refused


def _edited(text: str, path: Path, project: Path, item: Tuned) -> str:
    """``text`` with ``item``'s suggestions in its window's entry: each value replaced where it is written, a missing
    ``leadTime`` added beside the entry's name, every other character as it was."""
    try:
        document = YAML().load(text)
    except YAMLError as error:
        raise StackFileError(f"{path}: not valid YAML: {error}") from None
    config = document.get("config") if isinstance(document, CommentedMap) else None
    keys = [key for key in config or () if full_key(str(key), project_name(project)) == WINDOWS_KEY]
    windows = config[keys[0]] if config is not None and keys else None
    if not isinstance(windows, CommentedSeq):
        raise StackFileError(f"{path}: no {WINDOWS_KEY} list")
    entry = next(entry for entry in windows if isinstance(entry, CommentedMap)
                 and entry.get("name") == item.window.name)
    edits: list[tuple[CommentedMap, str, str]] = []
    if item.suggested_lead_time is not None:
        edits.append((entry, "leadTime", item.suggested_lead_time))
    sizing = item.suggested_sizing
    if sizing is not None and sizing.nodes is not None:
        edits.append((entry, "nodes", str(sizing.nodes)))
    elif sizing is not None and isinstance(entry.get("capacity"), CommentedMap):
        edits += [(entry["capacity"], "cpu", f'"{sizing.cpu}"'), (entry["capacity"], "memory", f"{sizing.memory}")]
    lines = text.splitlines(keepends=True)
    # Bottom-up, so that an edit never moves the position of one still to come.
    for mapping, key, value in sorted(edits, key=lambda edit: _position(*edit[:2]), reverse=True):
        _set(lines, mapping, key, value)
    return "".join(lines)


def _position(mapping: CommentedMap, key: str) -> tuple[int, int]:
    return mapping.lc.value(key if key in mapping else "name")


def _set(lines: list[str], mapping: CommentedMap, key: str, value: str) -> None:
    """``mapping``'s ``key`` set to ``value`` (YAML text) in ``lines``: replaced where its value is written, or added
    after the mapping's ``name`` (in a flow map on its line, in a block map as a line of its own)."""
    flow = mapping.fa.flow_style()
    if key in mapping:
        line, column = mapping.lc.value(key)
        text = lines[line]
        lines[line] = text[:column] + value + text[_scalar_end(text, column, flow):]
        return
    line, column = mapping.lc.value("name")
    text = lines[line]
    end = _scalar_end(text, column, flow)
    if flow:
        lines[line] = text[:end] + f", {key}: {value}" + text[end:]
    else:
        lines.insert(line + 1, " " * mapping.lc.key("name")[1] + f"{key}: {value}\n")


def _scalar_end(text: str, column: int, flow: bool) -> int:
    """Where the scalar written at ``column`` of ``text`` ends: its closing quote, else the next separator of a flow
    map, a comment or the end of the line."""
    if text[column] in "\"'":
        close = text.index(text[column], column + 1)
        return close + 1
    end = len(text.rstrip("\r\n"))
    for stop in ((",", "}", "]", " #") if flow else (" #",)):
        found = text.find(stop, column)
        if found != -1:
            end = min(end, found)
    return len(text[:end].rstrip()) if end > column else end
