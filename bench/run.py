"""``python -m bench``: how the whole program's cost compares with Pulumi's own, from 1 to 500 event windows.

For each stack size it builds a synthetic stack (:mod:`bench.stacks`), then in fresh interpreters
(:mod:`bench.worker`) evaluates the real ``__main__.py`` under mocks, the baseline that registers the same
resources through the same SDK classes with no program logic, and the floor that registers them as plain
resources (:mod:`bench.replay`), one after the other in every round, and prints the medians, the ratios, the
peak memory and, unless ``--no-plan``, how long ``prescale plan`` takes end to end (interpreter start and
imports included: what a user waits for) against the baseline run the same way. See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .stacks import NOW, pool_count, wire_config
from .table import Row, markdown
from .worker import PROJECT

_CLI = "import sys; from prescale_cli.main import main; sys.exit(main())"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", type=_counts, default=[1, 10, 100, 500], metavar="N,N,...",
                        help="stack sizes in event windows (default: 1,10,100,500)")
    parser.add_argument("--pools", type=int, metavar="N",
                        help="node pools in every stack (default: about √windows / 2, from 1 to 10)")
    parser.add_argument("--runs", type=int, default=3, metavar="N",
                        help="timed runs of each kind per size; the table shows their medians (default: 3)")
    parser.add_argument("--plan", action=argparse.BooleanOptionalAction, default=True,
                        help="also time `prescale plan` end to end, and the baseline the same way (default: yes)")
    args = parser.parse_args(argv)

    print(machine(), file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="prescale-bench-") as scratch:
        rows = [measure_size(windows, args.pools or pool_count(windows), args.runs, args.plan, Path(scratch))
                for windows in args.windows]
    print(markdown(rows))
    return 0


def measure_size(windows: int, pools: int, runs: int, plan: bool, scratch: Path) -> Row:
    """One table row: ``runs`` runs of the program, each followed by its baseline and floor (and the plan)."""
    stack = scratch / f"bench-{windows}.json"
    record = scratch / f"bench-{windows}.pickle"
    wire = wire_config(windows, pools)
    stack.write_text(json.dumps(wire))
    print(f"{windows} windows, {pools} pools: ", end="", file=sys.stderr, flush=True)
    measured: dict[str, list[dict[str, Any]]] = {"program": [], "baseline": [], "floor": []}
    plan_seconds: list[float] = []
    plan_baseline_seconds: list[float] = []
    for _ in range(runs):
        for mode, runs_of_mode in measured.items():  # the replays replay the latest program run
            runs_of_mode.append(run_worker(mode, stack, record))
        if plan:
            plan_seconds.append(time_plan(wire, f"bench-{windows}", scratch / "project"))
            plan_baseline_seconds.append(time_cold_baseline(stack, record))
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    seconds = {mode: [run["seconds"] for run in runs_of_mode] for mode, runs_of_mode in measured.items()}
    return Row(windows, pools, measured["program"][0]["resources"], seconds["program"], seconds["baseline"],
               seconds["floor"], max(run["peak_bytes"] for run in measured["program"]),
               max(run["peak_bytes"] for run in measured["baseline"]), plan_seconds, plan_baseline_seconds)


def run_worker(mode: str, stack: Path, record: Path, *options: str) -> dict[str, Any]:
    """One measurement in a fresh interpreter (:mod:`bench.worker`): the JSON it printed."""
    done = subprocess.run([sys.executable, "-m", "bench.worker", mode, str(stack), "--record", str(record),
                           *options], cwd=PROJECT, check=False, capture_output=True, text=True)
    if done.returncode:  # e.g. a replay that did not register what the program did
        raise RuntimeError(f"bench.worker {mode} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])  # the program's own prints come before


def time_plan(wire: dict[str, str], stack: str, project: Path) -> float:
    """Seconds ``prescale plan`` takes for ``wire`` in a scratch project that runs this repository's program."""
    project.mkdir(exist_ok=True)
    for name in ("__main__.py", "Pulumi.yaml", "components"):
        if not (project / name).exists():
            (project / name).symlink_to(PROJECT / name)
    # The engine's YAML 1.2 reads JSON as is: objects, strings and booleans stay what they are.
    config = {key: value if key == "aws:region" else json.loads(value) for key, value in wire.items()}
    (project / f"Pulumi.{stack}.yaml").write_text(json.dumps({"config": config}))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CLI, "plan", "--project", str(project), "--stack", stack,
                           "--at", NOW.isoformat()], cwd=PROJECT, check=False, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)  # stderr: the one-offs' warnings, every run alike
    seconds = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"prescale plan failed:\n{done.stderr}")
    return seconds


def time_cold_baseline(stack: Path, record: Path) -> float:
    """Seconds a fresh interpreter takes to register the program's latest run again through the SDK classes,
    interpreter start, imports and the proof that it registered the same included: Pulumi's own share of what
    ``prescale plan`` waits for (the worker's import of ``prescale.offline``, which brings the config model, too)."""
    started = time.perf_counter()
    run_worker("baseline", stack, record, "--cold")
    return time.perf_counter() - started


def machine() -> str:
    """Where the figures come from: CPUs this process may use (``nproc``), CPU model, Python."""
    cpuinfo = Path("/proc/cpuinfo")
    models = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
              if line.startswith("model name")] if cpuinfo.exists() else []
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpus} CPUs ({models[0] if models else platform.processor()}), Python {platform.python_version()}"


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of window counts ≥ 1")
    return counts
