"""What a Pulumi program (prescale's own ``__main__.py``, or yours using prescale as a library) reads from its stack.

The one place that reads Pulumi config; components never do. Every key the engine hands over is decoded, and
:mod:`prescale.model.validation` then reads the ``prescale:*`` ones (so typos are caught) and ``aws:region``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import config as runtime_config

from .calendar_file import CalendarFileError, with_calendar
from .model.schedule.instants import parse_instant
from .model.validation import decode_config


def read_raw_config() -> dict[str, Any]:
    """Every config value the engine hands the program, decoded for the config model; a ``prescale:calendar`` path
    read relative to the project directory (the program's working directory under the Pulumi CLI). A calendar
    file that cannot be read stops the run with one line (``pulumi.RunError``)."""
    raw = decode_config({**runtime_config.get_config_env(), **runtime_config.CONFIG.get()})
    try:
        return with_calendar(raw, Path.cwd())
    except CalendarFileError as error:
        raise pulumi.RunError(str(error)) from None


def evaluation_time() -> datetime:
    """Now, or ``PRESCALE_NOW`` (ISO-8601; without an offset, UTC) so offline plans and tests are reproducible. A
    value that is no instant stops the run with one line naming the variable (``pulumi.RunError``)."""
    fixed = os.environ.get("PRESCALE_NOW")
    if not fixed:
        return datetime.now(UTC)
    try:
        return parse_instant(fixed)
    except ValueError as error:
        raise pulumi.RunError(f"$PRESCALE_NOW: {error}; it sets the instant taken as now: fix it, or unset it to use "
                              "the current time") from None
