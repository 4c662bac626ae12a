"""Every place the docs quote the program, each checked and rewritten from the program as it runs now.

The docs quote sample output of ``prescale plan``, ``prescale schedule`` and ``prescale status`` (the cluster
answering from a recording in tests/data/status/), the JSON Schemas of their ``--json`` documents, the number of
Kubernetes manifests and of resources, the stack outputs, the size of the bad-config corpus, and docs/fleet.md's
example project (``examples/fleet/``: its files, and what ``prescale fleet`` and ``prune`` print for it). Each quote
is defined once below: where it sits in a doc (the text just before and just after it) and how to produce it from
the current program, with the clock fixed at :data:`NOW`. ``tests/project/test_generated.py`` fails when a doc says
something else; after changing the program, rewrite every quote from it (with every other generated file) with::

    .venv/bin/python -m tools.regenerate --write    # without --write: list the stale files, exit 1 if any

Timing figures (``python -m bench``) are measurements of one machine on one day, not program output: the
docs say when and where they were taken instead, and nothing here checks them.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from unittest import mock

from prescale.offline import SECRET, Evaluation, run_program

from prescale_cli import cluster_reader
from prescale_cli import main as cli
from prescale_cli.documents import (
    FleetDocument,
    PlanDocument,
    PreflightDocument,
    Record,
    ReportDocument,
    ScheduleDocument,
    StatusDocument,
    TuneDocument,
    json_schema,
)
from tests.model.test_bad_configs import CORPUS
from tests.support.cli import ROOT
from tests.support.status import LEAD_TIME_NOW, RecordedCluster

NOW = "2026-11-30T12:00Z"  # every quoted run takes this as "now" (`--at`, PRESCALE_NOW)
STACK = "dev"
ELIDED = "…"  # stands for lines a quote leaves out


class Program:
    """The program's answers for the dev stack at :data:`NOW`; its one offline run is shared by all quotes."""

    @cached_property
    def evaluation(self) -> Evaluation:
        return run_program(ROOT, STACK, now=cli.instant(NOW))

    def command(self, *args: str) -> str:
        """What ``prescale *args`` prints (plain text, as when piped), reusing the one offline run."""
        out = io.StringIO()
        with mock.patch("prescale.offline.run_program", self._offline_run), contextlib.redirect_stdout(out):
            code = cli.main([*args, "--project", str(ROOT)])
        if code != 0:
            raise RuntimeError(f"prescale {' '.join(args)} exited {code}")
        return out.getvalue()

    def _offline_run(self, project: Path, stack: str, now) -> Evaluation:
        if (project, stack, now) != (ROOT, STACK, cli.instant(NOW)):
            raise ValueError(f"only the {STACK} stack at {NOW} is run offline for the docs")
        return self.evaluation


@dataclass(frozen=True)
class Quote:
    """A piece of a doc that must read exactly as ``render`` produces it, wherever ``before…after`` occurs."""

    doc: str  # path from the repository root
    before: str  # the text right before the quoted piece
    after: str  # the text right after it
    render: Callable[[Program], str]
    inline: bool = False  # prose: line breaks and spaces may differ

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the quoted piece sits in ``text``: every ``before…after``, at least one."""
        found, position = [], text.find(self.before)
        while position >= 0:
            start = position + len(self.before)
            end = text.find(self.after, start)
            if end < 0:
                break
            found.append((start, end))
            position = text.find(self.before, end)
        if not found:
            raise LookupError(f"{self.doc}: no quote between {self.before!r} and {self.after!r}")
        return found

    def agrees(self, written: str, expected: str) -> bool:
        return written.split() == expected.split() if self.inline else written == expected


def sample(doc: str, *args: str, prompt: str = "prescale",
           excerpt: Callable[[str], str] = lambda output: output) -> Quote:
    """A fenced block that starts with the command line ``$ <prompt> <args>`` and then shows its output."""
    return Quote(doc, command_line(args, prompt), "```", lambda program: excerpt(program.command(*args)))


def status_sample(recording: str, *args: str, excerpt: Callable[[str], str] = lambda output: output) -> Quote:
    """A ``prescale status`` sample, the cluster answering from ``tests/data/status/<recording>.yaml``; its exit
    code is the sample's (a cluster that is not ready exits 1)."""
    def render(program: Program) -> str:
        out = io.StringIO()
        with mock.patch.object(cluster_reader, "connect", lambda kubeconfig, context: RecordedCluster(recording)), \
                contextlib.redirect_stdout(out):
            code = cli.main([*args, "--project", str(ROOT)])
        if code not in (0, 1):
            raise RuntimeError(f"prescale {' '.join(args)} exited {code}")
        return excerpt(out.getvalue())
    return Quote("docs/cli.md", command_line(args), "```", render)


def example_sample(doc: str, example: str, *args: str, code: int = 0) -> Quote:
    """A sample of ``prescale *args --project <example>``, run on the example project ``example`` (a directory of
    the repository) as it is now; ``code``: the exit code the doc says it has (1: it flags a problem)."""
    def render(program: Program) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exited = cli.main([*args, "--project", str(ROOT / example)])
        if exited != code:
            raise RuntimeError(f"prescale {' '.join(args)} --project {example} exited {exited}, not {code}")
        return out.getvalue()
    return Quote(doc, command_line((*args, "--project", example)), "```", render)


def example_file(doc: str, path: str) -> Quote:
    """A file of an example project, shown whole in the fenced block under its path (``path``, from the root)."""
    return Quote(doc, f"`{path}`:\n\n```yaml\n", "```", lambda program: (ROOT / path).read_text())


def command_line(args: tuple[str, ...], prompt: str = "prescale") -> str:
    """How a sample block starts: the fence, then the command as typed."""
    return f"```\n$ {prompt} {' '.join(args)}\n"


def plan_excerpt(output: str, window: str = "morning-peak", pool: str = "event") -> str:
    """The plan trimmed to the tree's top level, one node pool and one window whole, and the busiest types."""
    tree, counts, total = output.split("\n\n", 2)
    heading, columns, *rows = tree.splitlines()
    named = [(row, *row.split()[-2:]) for row in rows]  # (line, type, name)
    windows = {name for _, type_, name in named if type_ == "prescale:index:ScheduledCapacity"}
    kept = [heading, columns]
    for row, _, name in named:
        top_level = not row.startswith(("│", " "))
        if name.startswith((window, pool)) or (top_level and name not in windows):
            kept.append(row)
        elif kept[-1] != ELIDED:
            kept.append(ELIDED)
    count_rows = counts.splitlines()
    return "\n".join([*kept, "", *count_rows[:5], ELIDED, count_rows[-1], "", total])


def json_excerpt(output: str) -> str:
    """A ``--json`` document with every list of records cut to its first record, short parts on one line."""
    return _compact(_first_records(json.loads(output))) + "\n"


def _first_records(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _first_records(item) for key, item in value.items()}
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return [_first_records(value[0])]
    return value


def _compact(value: Any, indent: int = 0, key: str | None = None, width: int = 110) -> str:
    """JSON laid out like ``json.dumps(indent=2)``, but with any part that fits in ``width`` on one line."""
    start = "" if key is None else f"{json.dumps(key)}: "
    flat = start + json.dumps(value, ensure_ascii=False)
    if indent + len(flat) <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    if isinstance(value, dict):
        items = [_compact(item, indent + 2, name, width) for name, item in value.items()]
    else:
        items = [_compact(item, indent + 2, None, width) for item in value]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    inner = " " * (indent + 2)
    return f"{start}{opening}\n" + ",\n".join(inner + item for item in items) + f"\n{' ' * indent}{closing}"


def schema(command: str, document: type[Record]) -> Quote:
    """A document's JSON Schema, as its models generate it, in the fenced block under its summary."""
    return Quote("docs/json-schemas.md", f"<summary>JSON Schema of <code>{command}</code></summary>\n\n```json\n",
                 "```", lambda program: _compact(json_schema(document)) + "\n")


def manifests_sample(program: Program) -> str:
    """``prescale plan --out k8s/`` (its last line) and the directory it wrote."""
    with tempfile.TemporaryDirectory() as directory, contextlib.chdir(directory):
        last_line = program.command(*PLAN_OUT).splitlines()[-1]
        listing = sorted(path.name for path in Path("k8s").iterdir())
    return "\n".join([ELIDED, last_line, "$ ls -1 k8s/", *listing, ""])


def stack_outputs(program: Program) -> str:
    """The stack outputs as ``pulumi stack output`` lists them (by name), secrets marked."""
    outputs = program.evaluation.outputs
    return ", ".join(f"`{name}`" + (" (secret)" if outputs[name] == SECRET else "") for name in sorted(outputs))


def window_resources(program: Program, window: str = "morning-peak") -> str:
    """How many resources one window adds: its components (named after it) and everything under them."""
    resources = program.evaluation.resources
    inside = {r.urn for r in resources if r.name == window and not r.custom}
    grew = True
    while grew:
        children = {r.urn for r in resources if r.parent in inside} - inside
        inside |= children
        grew = bool(children)
    return str(len(inside))


def bad_configs(program: Program) -> str:
    """How many broken stack files the bad-config test runs through the program."""
    return str(len(CORPUS))


PLAN_OUT = ("plan", "--stack", STACK, "--at", NOW, "--out", "k8s/")
FLEET = "examples/fleet"  # docs/fleet.md's team of three clusters

QUOTES: list[Quote] = [
    Quote("README.md", "\nStack outputs: ", ".\n", stack_outputs, inline=True),
    Quote("README.md", "`tests/bad_configs/` keeps ", " broken", bad_configs),
    sample("docs/cli.md", "plan", "--stack", STACK, "--at", NOW, excerpt=plan_excerpt),
    sample("docs/cli.md", "plan", "--stack", STACK, "--at", NOW, "--json", excerpt=json_excerpt),
    Quote("docs/cli.md", command_line(PLAN_OUT), "```", manifests_sample),
    sample("docs/cli.md", "schedule", "--stack", STACK, "--at", NOW, "--from", "2027-03-01", "--days", "3"),
    sample("docs/cli.md", "schedule", "--stack", STACK, "--at", NOW, "--from", "2027-03-01", "--days", "3",
           "--json", excerpt=json_excerpt),
    status_sample("not-ready", "status", "--stack", STACK, "--at", LEAD_TIME_NOW),
    status_sample("not-ready", "status", "--stack", STACK, "--at", LEAD_TIME_NOW, "--json", excerpt=json_excerpt),
    schema("prescale plan --json", PlanDocument),
    schema("prescale schedule --json", ScheduleDocument),
    schema("prescale status --json", StatusDocument),
    schema("prescale report --json", ReportDocument),
    schema("prescale tune --json", TuneDocument),
    schema("prescale fleet --json", FleetDocument),
    schema("prescale preflight --json", PreflightDocument),
    Quote("docs/platform.md", "\nStack outputs: ", ".\n", stack_outputs, inline=True),
    Quote("docs/guardrails.md", "`tests/model/test_bad_configs.py` (", " broken stack files)", bad_configs),
    Quote("docs/guardrails.md", "that window's components and their children (", " resources)", window_resources),
    *(example_file("docs/fleet.md", f"{FLEET}/{name}")
      for name in ("calendar.yaml", "Pulumi.seoul-prod.yaml", "Pulumi.tokyo-dr.yaml", "Pulumi.staging.yaml")),
    example_sample("docs/fleet.md", FLEET, "fleet", "--at", NOW, "--from", "2027-11-01", "--days", "14", code=1),
    example_sample("docs/fleet.md", FLEET, "prune", "--stack", "seoul-prod", "--at", "2027-11-20T00:00Z"),
]


@dataclass(frozen=True)
class Difference:
    quote: Quote
    written: str
    expected: str


def differences(program: Program, quotes: list[Quote] = QUOTES, root: Path = ROOT) -> list[Difference]:
    """Every quoted piece (in the docs under ``root``) that does not read as the program says now."""
    found = []
    for quote in quotes:
        text = (root / quote.doc).read_text()
        expected = quote.render(program)
        found += [Difference(quote, text[start:end], expected) for start, end in quote.spans(text)
                  if not quote.agrees(text[start:end], expected)]
    return found


DOCS = list(dict.fromkeys(quote.doc for quote in QUOTES))  # the docs that quote the program, each once


def rewritten(program: Program, doc: str, text: str, quotes: list[Quote] = QUOTES) -> str:
    """``text`` (the doc ``doc``) with every quote of it that differs written anew from the program."""
    for quote in (quote for quote in quotes if quote.doc == doc):
        expected = quote.render(program)
        for start, end in reversed(quote.spans(text)):
            if not quote.agrees(text[start:end], expected):
                text = text[:start] + expected + text[end:]
    return text


def rewrite(program: Program, quotes: list[Quote] = QUOTES, root: Path = ROOT) -> list[str]:
    """Rewrite every differing quote (in the docs under ``root``) from the program; returns the docs changed."""
    changed = []
    for doc in dict.fromkeys(quote.doc for quote in quotes):
        path = root / doc
        original = path.read_text()
        text = rewritten(program, doc, original, quotes)
        if text != original:
            path.write_text(text)
            changed.append(doc)
    return changed
