"""``python -m bench.fleet``: ``prescale fleet`` over a project of many stacks, timed end to end.

Writes a Pulumi project of N stacks (default 100; each the synthetic stack of :mod:`bench.stacks` with 10 windows,
its own cluster name and one of three regions, all taking one shared calendar event) and times ``prescale fleet
--project DIR`` in a fresh interpreter, interpreter start and imports included. The goal (docs/performance.md): 100
stacks in 30 s or less on this repository's 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.stacks import wire_config

ROOT = Path(__file__).resolve().parents[1]
REGIONS = ("ap-northeast-2", "ap-northeast-1", "us-east-1")
CALENDAR = ('events:\n  - {name: sale, timezone: Asia/Seoul, start: "2027-03-02T10:00", end: "2027-03-02T14:00"}\n')


def write_project(directory: Path, stacks: int, windows: int) -> None:
    shutil.copy(ROOT / "Pulumi.yaml", directory / "Pulumi.yaml")
    (directory / "calendar.yaml").write_text(CALENDAR)
    for index in range(stacks):
        wire = wire_config(windows)
        config = {key: json.loads(value) if key.startswith("prescale:") else value for key, value in wire.items()}
        config["aws:region"] = REGIONS[index % len(REGIONS)]
        config["prescale:cluster"] = {"name": f"prescale-bench-{index}"}
        config["prescale:calendar"] = "calendar.yaml"
        pool = config["prescale:nodePools"][0]["name"]
        config["prescale:eventWindows"].append({"name": "sale", "nodePool": pool, "event": "sale", "nodes": 4})
        (directory / f"Pulumi.stack-{index}.yaml").write_text(json.dumps({"config": config}, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fleet", description=__doc__)
    parser.add_argument("--stacks", type=int, default=100)
    parser.add_argument("--windows", type=int, default=10, help="windows per stack (default: 10)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        write_project(project, args.stacks, args.windows)
        times = []
        for _ in range(args.runs):
            began = time.perf_counter()
            done = subprocess.run([str(Path(sys.executable).parent / "prescale"), "fleet", "--project", str(project),
                                   "--at", "2026-11-30T12:00Z", "--json"], capture_output=True, text=True)
            times.append(time.perf_counter() - began)
            if done.returncode not in (0, 1):
                print(done.stderr, file=sys.stderr)
                return 2
            events = json.loads(done.stdout)["events"]
        print(f"| stacks | windows per stack | events | fleet s (median of {args.runs}) |")
        print("|---:|---:|---:|---:|")
        print(f"| {args.stacks} | {args.windows + 1} | {len(events)} | {statistics.median(times):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
