"""``python -m bench.instructions``: the program / baseline ratio counted in instructions, which the machine's pace
cannot move.

On a shared machine one pass of ``python -m bench`` moves by about ±0.1 within itself (its ``ratio range``), so a
ratio near a goal needs many passes to read. Here each side runs under valgrind's callgrind, which counts the
instructions the process executes: once stopped after the warm-up and once stopped right after the evaluation
(``bench.worker --stop``), so that the difference is the evaluation's alone. The counts depend on the Python build and
the installed libraries, not on the load; hash seeds are fixed, so two passes agree to a few parts in a thousand.
Instructions are not seconds (a cache miss costs more than an addition): the wall-time ratio stays the goal's
measure, and this one says how much of it is work. See bench/README.md. ::

    python -m bench.instructions                 # 160 windows: about 6 minutes on two CPUs
    python -m bench.instructions --windows 10    # one size
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .run import run_worker
from .stacks import pool_count, wire_config
from .table import aligned_table
from .worker import PROJECT

_COLLECTED = re.compile(r"^==\d+== Collected : (\d+)$", re.MULTILINE)  # callgrind's total, on stderr at exit
_SIDES = ("program", "baseline")
COLUMNS = ("windows", "pools", "resources", "program Ginstr", "baseline Ginstr", "ratio")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", type=int, default=160, metavar="N", help="event windows (default: 160)")
    parser.add_argument("--pools", type=int, metavar="N", help="node pools (default: about √windows / 2)")
    args = parser.parse_args(argv)
    if args.windows < 1:
        parser.error(f"--windows {args.windows}: a stack needs at least one window")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (Debian: apt-get install valgrind)")
    pools = args.pools or pool_count(args.windows)
    with tempfile.TemporaryDirectory(prefix="prescale-bench-") as scratch:
        stack, record = Path(scratch) / "stack.json", Path(scratch) / "run.pickle"
        stack.write_text(json.dumps(wire_config(args.windows, pools)))
        resources = run_worker("program", stack, record)["resources"]  # the recording the baseline replays...
        run_worker("baseline", stack, record)  # ...and the proof that it registers what the program did
        counted = count_runs(stack, record)
    print(markdown(args.windows, pools, resources, counted))
    return 0


def count_runs(stack: Path, record: Path) -> dict[str, int]:
    """Instructions of each side's evaluation: a process stopped after it, less one stopped after the warm-up."""
    runs = [(side, stop) for side in _SIDES for stop in ("run", "warm-up")]
    with ThreadPoolExecutor(max_workers=max(1, min(len(runs), os.cpu_count() or 1))) as pool:
        counts = dict(zip(runs, pool.map(lambda run: count_instructions(*run, stack, record), runs), strict=True))
    return {side: counts[side, "run"] - counts[side, "warm-up"] for side in _SIDES}


def count_instructions(side: str, stop: str, stack: Path, record: Path) -> int:
    """Instructions a ``bench.worker`` process executes from its start to its exit, stopped at ``stop``."""
    recording = [] if side == "program" else ["--record", str(record)]  # a stopped program writes none
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
               "bench.worker", side, str(stack), *recording, "--stop", stop]
    done = subprocess.run(command, cwd=PROJECT, env={**os.environ, "PYTHONHASHSEED": "0"}, check=False,
                          capture_output=True, text=True)
    return collected(done.stderr, f"{side} stopped after the {stop}", done.returncode)


def collected(stderr: str, what: str, returncode: int = 0) -> int:
    """callgrind's count of instructions from its report on ``stderr``."""
    found = _COLLECTED.findall(stderr)
    if returncode or len(found) != 1:
        raise RuntimeError(f"callgrind did not count the {what} (exit code {returncode}):\n{stderr[-2000:]}")
    return int(found[0])


def markdown(windows: int, pools: int, resources: int, counted: dict[str, int]) -> str:
    """The counts as a Markdown table of one row, in billions of instructions."""
    return aligned_table(COLUMNS, [(str(windows), str(pools), str(resources), f"{counted['program'] / 1e9:.3f}",
                                    f"{counted['baseline'] / 1e9:.3f}",
                                    f"{counted['program'] / counted['baseline']:.3f}")])


if __name__ == "__main__":
    raise SystemExit(main())
