"""``prescale prune``: one-off windows whose event is over, listed, and removed from the stack file.

An ended one-off deploys nothing (its dated crons would fire again next year), but its entry stays in
``prescale:eventWindows`` for good. Pruning removes each such entry's own lines, the comment block right above it
included, from ``Pulumi.<stack>.yaml``'s text, so every other line, comment, order and quoting stays as written;
and only when the file it would leave validates as ``pulumi up`` validates it (another key may need the window:
a pool's reserved capacity its ``reserve``). Details: docs/cli.md#prescale-prune.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from prescale.calendar_file import read_calendar
from prescale.model.calendar import CALENDAR_KEY
from prescale.model.config import CONFIG_NAMESPACE, LOCAL_DATETIME, EventWindow
from prescale.model.schedule.keda import one_off
from prescale.model.validation import ConfigError, decode_config
from prescale.model.values.time_zones import load_zone
from prescale.stack_file import StackFileError, full_key, project_name, read_stack_file
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from .stack import load_config, rewrite_problems

WINDOWS_KEY = f"{CONFIG_NAMESPACE}:eventWindows"


@dataclass(frozen=True)
class Ended:
    """A one-off window whose event ended before the cut-off."""

    window: EventWindow
    end: datetime  # local, aware


def ended_one_offs(project: Path, stack: str, now: datetime, older_than: timedelta) -> list[Ended]:
    """The one-off windows of the (valid) stack whose event ended at or before ``now - older_than``."""
    config = load_config(project, stack, now)
    cut = now - older_than
    return [Ended(window, one_off(window).end) for window in config.event_windows
            if window.is_one_off and one_off(window).end_utc <= cut]


def pruned_text(path: Path, names: set[str]) -> str:
    """``path``'s text without the entries of ``prescale:eventWindows`` named ``names``: each entry's lines from the
    comment block right above it to the next entry's (or the end of the list)."""
    text = path.read_text(encoding="utf-8-sig")
    document = _yaml(text, path)
    config = document.get("config") if isinstance(document, CommentedMap) else None
    if not isinstance(config, CommentedMap):
        raise StackFileError(f"{path}: no config: map")
    project = project_name(path.parent)
    keys = [key for key in config if full_key(str(key), project) == WINDOWS_KEY]
    windows = config[keys[0]] if keys else None
    if not isinstance(windows, CommentedSeq):
        raise StackFileError(f"{path}: no {WINDOWS_KEY} list")
    return without_entries(text, windows, names, f"{path}: {keys[0]}")


def without_entries(text: str, entries: CommentedSeq, names: set[str], where: str) -> str:
    """``text`` without the block-style list ``entries``' maps whose ``name`` is in ``names``, each with the comment
    block right above it; every other line as it was."""
    if entries.fa.flow_style():
        raise StackFileError(f"{where} is written as one flow list ([...]); remove the entries by hand")
    lines = text.splitlines(keepends=True)
    starts = [_block_start(lines, entries.lc.item(index)[0]) for index in range(len(entries))]
    ends = [*starts[1:], _list_end(lines, entries.lc.item(len(entries) - 1)[0], entries.lc.item(0)[1])]
    drop = {line for index, item in enumerate(entries) if isinstance(item, CommentedMap) and item.get("name") in names
            for line in range(starts[index], ends[index])}
    return "".join(line for number, line in enumerate(lines) if number not in drop)


def _yaml(text: str, path: Path) -> object:
    try:
        return YAML().load(text)
    except YAMLError as error:
        raise StackFileError(f"{path}: not valid YAML: {error}") from None


def prune(project: Path, stack: str, now: datetime, ended: list[Ended]) -> None:
    """Rewrite ``Pulumi.<stack>.yaml`` without the ``ended`` windows, if the result validates; ``ConfigError``
    naming what would break otherwise (the file is left as it was)."""
    path = project / f"Pulumi.{stack}.yaml"
    text = pruned_text(path, {entry.window.name for entry in ended})
    problems = rewrite_problems(project, stack, now, text)
    if problems:
        raise ConfigError([f"removing {', '.join(repr(e.window.name) for e in ended)} would leave {path.name} "
                           f"invalid, so it was left as it is: {problem}" for problem in problems])
    path.write_text(text, encoding="utf-8")


def _block_start(lines: list[str], line: int) -> int:
    """The first line of an entry whose ``- `` is on ``line``: the comment lines right above it belong to it."""
    while line > 0 and lines[line - 1].lstrip().startswith("#"):
        line -= 1
    return line


def _list_end(lines: list[str], last: int, column: int) -> int:
    """The line after the list whose last entry starts on ``last``: the first line that is not blank and indented no
    deeper than the entries' ``- `` (the next key, or a comment above it), less the blank lines before it."""
    for number in range(last + 1, len(lines)):
        stripped = lines[number].lstrip()
        if stripped.strip() and len(lines[number]) - len(stripped) <= column:
            while number > last + 1 and not lines[number - 1].strip():
                number -= 1  # blank lines before the next key stay
            return number
    return len(lines)


@dataclass(frozen=True)
class EndedEvent:
    """A one-off event of the stack's calendar file that is over and that no stack of the project takes."""

    name: str
    end: datetime  # local, aware
    timezone: str


def ended_events(project: Path, stack: str, now: datetime, older_than: timedelta) -> tuple[Path | None,
                                                                                          list[EndedEvent]]:
    """The stack's calendar file (when ``prescale:calendar`` is a path), and its one-off events that ended at or
    before ``now - older_than`` and that no window of any stack of the project names."""
    raw = decode_config(read_stack_file(project, stack))
    path = raw.get(CALENDAR_KEY)
    if not isinstance(path, str):
        return None, []
    content = read_calendar(project / path)
    taken = set()
    for other in sorted(project.glob("Pulumi.*.yaml")):
        try:
            windows = decode_config(read_stack_file(project, other.name[len("Pulumi."):-len(".yaml")])).get(
                WINDOWS_KEY)
        except (StackFileError, FileNotFoundError):
            continue  # a stack that cannot be read takes nothing here (prune's own stack was read above)
        taken |= {window.get("event") for window in windows or () if isinstance(window, dict)}
    cut = now - older_than
    ended = []
    for event in content.get("events") or ():
        if not isinstance(event, dict) or event.get("name") in taken or not LOCAL_DATETIME.match(str(event.get("end"))):
            continue
        end = datetime.fromisoformat(str(event["end"])).replace(tzinfo=load_zone(str(event.get("timezone", "UTC"))))
        if end <= cut:
            ended.append(EndedEvent(str(event["name"]), end, str(event.get("timezone"))))
    return project / path, ended


def prune_events(path: Path, ended: list[EndedEvent]) -> None:
    """Rewrite the calendar file without the ``ended`` events (the file is YAML: an .ics is left to its owner)."""
    if path.suffix.lower() == ".ics":
        raise StackFileError(f"{path}: an iCalendar file is its calendar application's to edit; remove "
                             f"{', '.join(event.name for event in ended)} there")
    text = path.read_text(encoding="utf-8-sig")
    document = _yaml(text, path)
    events = document.get("events") if isinstance(document, CommentedMap) else None
    if not isinstance(events, CommentedSeq):
        raise StackFileError(f"{path}: no events: list")
    path.write_text(without_entries(text, events, {event.name for event in ended}, f"{path}: events"),
                    encoding="utf-8")
