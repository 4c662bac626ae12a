"""Where command results go: rich tables on a terminal, plain aligned text when piped or redirected.

A person at a terminal gets colour and borders; ``grep``, ``diff``, CI logs and the tests get the same
rows as plain columns without escape codes or box drawing, so the output stays easy to parse and compare.
Everything a command prints goes through one :class:`Output`, which decides once from ``isatty``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TextIO

from pydantic import BaseModel

if TYPE_CHECKING:
    from rich.console import Console

_GAP = "  "  # between plain-text columns


class Output:
    """Tables, headings and notes for one command run, styled only when ``stream`` is a terminal."""

    def __init__(self, stream: TextIO, terminal: bool | None = None):
        self.stream = stream
        self.terminal = stream.isatty() if terminal is None else terminal

    @cached_property
    def console(self) -> Console:
        """rich, loaded only for a terminal: `prescale --version` and `schema` run without the cli extra."""
        from rich.console import Console

        return Console(file=self.stream, force_terminal=self.terminal, no_color=not self.terminal, highlight=False,
                       emoji=False)

    def heading(self, text: str) -> None:
        if self.terminal:
            from rich.text import Text

            self.console.print(Text(text, style="bold"))
        else:
            self.stream.write(f"{text}\n")

    def line(self, text: str = "") -> None:
        """One line of prose, printed as is (never read as rich markup)."""
        if self.terminal:
            from rich.text import Text

            self.console.print(Text(text))
        else:
            self.stream.write(f"{text}\n")

    def table(self, columns: Sequence[str], rows: Iterable[Sequence[str]], title: str | None = None) -> None:
        cells = [[str(cell) for cell in row] for row in rows]
        if title:
            self.heading(title)
        if self.terminal:
            self._rich_table(columns, cells)
        else:
            self._plain_table(columns, cells)

    def json(self, document: BaseModel | Mapping[str, Any]) -> None:
        """Machine-readable output: always plain, never styled (``--json`` is for pipes). A document model, or a
        JSON object as it is (``prescale schema``'s JSON Schema)."""
        value = document.model_dump(mode="json") if isinstance(document, BaseModel) else document
        self.stream.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def _rich_table(self, columns: Sequence[str], rows: list[list[str]]) -> None:
        from rich import box
        from rich.table import Table
        from rich.text import Text

        # Fitted to the terminal's width by wrapping cells at spaces, never inside a word (a name, a time, a
        # price) while the longest words fit side by side (else rich folds the widest); the first column, which
        # names the row or draws the resource tree, stays on one line.
        table = Table(box=box.SIMPLE_HEAD, header_style="bold cyan", pad_edge=False)
        words = [max(len(word) for cell in [column, *(row[index] for row in rows)] for word in cell.split() or [""])
                 for index, column in enumerate(columns)]
        whole_words = sum(words) + 2 * len(columns) <= self.console.width  # 2: the padding between columns
        for index, column in enumerate(columns):
            table.add_column(column, overflow="fold", no_wrap=index == 0,
                             min_width=words[index] if whole_words else None)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))  # Text: no rich markup in names like "x[0]"
        self.console.print(table)

    def _plain_table(self, columns: Sequence[str], rows: list[list[str]]) -> None:
        widths = [max(len(cell) for cell in column) for column in zip(columns, *rows, strict=True)]
        for row in [list(columns), *rows]:
            line = _GAP.join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            self.stream.write(line.rstrip() + "\n")
        self.stream.write("\n")
