"""Find the Pulumi project and read a stack's config exactly as the program will see it.

``prescale schedule`` needs the typed config without running the whole Pulumi program, and must refuse the
same configs ``pulumi up`` would refuse, with the same message. So the stack file is read the Pulumi CLI's way
(:func:`prescale.stack_file.read_stack_file`), decoded as the program decodes it
(:func:`prescale.model.validation.decode_config`), and validated by
:func:`prescale.model.validation.load_stack_config` (or ``load_capacity_config`` for a library's stack).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from prescale.calendar_file import CalendarFileError, with_calendar
from prescale.model.config import CONFIG_NAMESPACE, CapacityConfig
from prescale.model.validation import ConfigError, decode_config, load_capacity_config, load_stack_config
from prescale.stack_file import (
    PROJECT_FILE,
    StackFileError,
    StackFileProblems,
    project_name,
    read_config_file,
    read_stack_file,
    stack_document,
)


def find_project(start: Path) -> Path:
    """The nearest directory from ``start`` upward that holds ``Pulumi.yaml`` (as the Pulumi CLI looks)."""
    for directory in (start, *start.parents):
        if (directory / PROJECT_FILE).is_file():
            return directory
    raise FileNotFoundError(f"no {PROJECT_FILE} in {start} or any directory above it; run prescale inside the "
                            "project or pass --project DIR")


def project_at(directory: Path) -> Path:
    """``--project DIR``: a directory that holds ``Pulumi.yaml``, or ``FileNotFoundError`` saying which is not so."""
    if not directory.is_dir():
        what = "is a file, not a directory" if directory.exists() else "does not exist"
        raise FileNotFoundError(f"--project {directory}: the directory {what}; pass the Pulumi project's directory")
    if not (directory / PROJECT_FILE).is_file():
        raise FileNotFoundError(f"--project {directory}: no {PROJECT_FILE} there, so it is not a Pulumi project; pass "
                                f"the directory that holds the project's {PROJECT_FILE} (and its Pulumi.<stack>.yaml)")
    return directory


@dataclass(frozen=True)
class Stack:
    """A stack's validated config and its stack file's config as the engine hands it over: what prescale's config
    leaves to other providers (``aws:allowedAccountIds``, say) is there, so nobody reads the file twice."""

    config: CapacityConfig
    wire: Mapping[str, str]


def load_config(project: Path, stack: str, now: datetime) -> CapacityConfig:
    """The validated config of ``Pulumi.<stack>.yaml``; ``ConfigError``, ``StackFileError`` or
    ``FileNotFoundError`` otherwise (:func:`load_stack`)."""
    return load_stack(project, stack, now).config


def load_stack(project: Path, stack: str, now: datetime) -> Stack:
    """``Pulumi.<stack>.yaml`` read once: its validated config and its keys as written; ``ConfigError``,
    ``StackFileError`` or ``FileNotFoundError`` otherwise. Keys the stack file cannot hand over are reported with
    every problem of the rest of it, in one run.

    A stack without ``prescale:cluster`` belongs to a program that uses prescale as a library (it brings its
    own platform): its ``prescale:`` keys are read as that program reads them, with ``load_capacity_config``.
    """
    return _validated(project, stack, now, lambda: read_stack_file(project, stack))


def rewrite_problems(project: Path, stack: str, now: datetime, text: str) -> list[str]:
    """What validating ``text`` as ``Pulumi.<stack>.yaml`` refuses, as :func:`load_stack` would: a rewrite (by
    ``prune --write`` or ``tune --write``) checked before it replaces the file. It is read from a scratch file, but
    as the project's stack, so a ``prescale:calendar`` path is still found relative to the project."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"Pulumi.{stack}.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            _validated(project, stack, now, lambda: read_config_file(path, project_name(project)))
        except ConfigError as error:
            return list(error.problems)
    return []


def _validated(project: Path, stack: str, now: datetime, read: Callable[[], dict[str, str]]) -> Stack:
    """The stack's config as ``read`` hands it over, validated (:func:`load_stack`)."""
    try:
        wire, unreadable, problems = read(), frozenset[str](), []
    except StackFileProblems as error:
        wire, unreadable, problems = error.wire, error.unreadable, error.problems
    try:
        raw = with_calendar(decode_config(wire), project)
    except CalendarFileError as error:
        raise ConfigError([*problems, str(error)]) from None
    cluster = f"{CONFIG_NAMESPACE}:cluster"
    load = load_stack_config if cluster in raw or cluster in unreadable else load_capacity_config
    try:
        config = load(raw, now, unreadable)
    except ConfigError as error:
        raise ConfigError(_environments(project, stack) + problems + error.problems) from None
    if problems:
        raise ConfigError(problems)
    return Stack(config, wire)


def _environments(project: Path, stack: str) -> list[str]:
    """What to know first when a stack that imports Pulumi ESC environments is refused: their config (a shared
    calendar, say) is resolved by the Pulumi CLI, which the offline commands do not run."""
    try:
        imported = stack_document(project / f"Pulumi.{stack}.yaml").get("environment")
    except (StackFileError, OSError):
        return []
    if not imported:
        return []
    return [f"Pulumi.{stack}.yaml imports the Pulumi ESC environment(s) {imported!r}, which prescale's offline "
            "commands cannot resolve: config they give the stack (prescale:calendar, say) is missing here; write "
            "it in the stack file too, or a prescale:calendar path (docs/fleet.md#one-calendar)"]
