"""``prescale prune``: one-off windows whose event is over, listed, and removed from the stack file.

An ended one-off deploys nothing (its dated crons would fire again next year), but its entry stays in
``prescale:eventWindows`` for good. Pruning removes each such entry's own lines, the comment block right above it
included, from ``Pulumi.<stack>.yaml``'s text, so every other line, comment, order and quoting stays as written;
and only when the file it would leave validates as ``pulumi up`` validates it (another key may need the window:
a pool's reserved capacity its ``reserve``). Details: docs/cli.md#prescale-prune.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from prescale.model.config import CONFIG_NAMESPACE, EventWindow
from prescale.model.validation import ConfigError
from prescale.stack_file import PROJECT_FILE, StackFileError, full_key, project_name
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from .stack import load_config

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
    return [Ended(window, window.one_off_occurrence().end) for window in config.event_windows
            if window.is_one_off and window.one_off_occurrence().end_utc <= cut]


def pruned_text(path: Path, names: set[str]) -> str:
    """``path``'s text without the entries of ``prescale:eventWindows`` named ``names``: each entry's lines from the
    comment block right above it to the next entry's (or the end of the list)."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        document = YAML().load(text)
    except YAMLError as error:
        raise StackFileError(f"{path}: not valid YAML: {error}") from None
    config = document.get("config") if isinstance(document, CommentedMap) else None
    if not isinstance(config, CommentedMap):
        raise StackFileError(f"{path}: no config: map")
    project = project_name(path.parent)
    keys = [key for key in config if full_key(str(key), project) == WINDOWS_KEY]
    windows = config[keys[0]] if keys else None
    if not isinstance(windows, CommentedSeq):
        raise StackFileError(f"{path}: no {WINDOWS_KEY} list")
    if windows.fa.flow_style():
        raise StackFileError(f"{path}: {keys[0]} is written as one flow list ([...]); remove the windows by hand")
    lines = text.splitlines(keepends=True)
    starts = [_block_start(lines, windows.lc.item(index)[0]) for index in range(len(windows))]
    ends = [*starts[1:], _list_end(lines, windows.lc.item(len(windows) - 1)[0], windows.lc.item(0)[1])]
    drop = {line for index, item in enumerate(windows) if isinstance(item, CommentedMap) and item.get("name") in names
            for line in range(starts[index], ends[index])}
    return "".join(line for number, line in enumerate(lines) if number not in drop)


def prune(project: Path, stack: str, now: datetime, ended: list[Ended]) -> None:
    """Rewrite ``Pulumi.<stack>.yaml`` without the ``ended`` windows, if the result validates; ``ConfigError``
    naming what would break otherwise (the file is left as it was)."""
    path = project / f"Pulumi.{stack}.yaml"
    text = pruned_text(path, {entry.window.name for entry in ended})
    with tempfile.TemporaryDirectory() as scratch:  # validated exactly as `schedule` reads a stack file
        shutil.copyfile(project / PROJECT_FILE, Path(scratch) / PROJECT_FILE)
        (Path(scratch) / path.name).write_text(text, encoding="utf-8")
        try:
            load_config(Path(scratch), stack, now)
        except ConfigError as error:
            raise ConfigError([f"removing {', '.join(repr(e.window.name) for e in ended)} would leave "
                               f"{path.name} invalid, so it was left as it is: {problem}"
                               for problem in error.problems]) from None
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
