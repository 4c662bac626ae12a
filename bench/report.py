"""``python -m bench.report``: ``prescale report`` over a year of 20 daily windows, against a local Prometheus.

Backfills a year of each window's placeholder Deployment's Ready replicas (kube-state-metrics' series, every 30 s
around each occurrence) with ``promtool tsdb create-blocks-from openmetrics``, serves it on 127.0.0.1 (the same
server the tests start, :mod:`tests.support.prometheus`) and times ``prescale report --days 365`` end to end. The goal
(docs/performance.md): 10 s or less on this repository's 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.prometheus import Series, prometheus_serving

ROOT = Path(__file__).resolve().parents[1]
SINCE = datetime(2026, 1, 1, tzinfo=UTC)


def stack(windows: int) -> str:
    entries = [{"name": f"w{index}", "nodePool": "event", "timezone": "UTC",
                "start": f"{index % 60} {index % 20} * * *", "end": f"{index % 60} {index % 20 + 1} * * *",
                "nodes": 2} for index in range(windows)]
    return json.dumps({"config": {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-bench"},
                                  "prescale:nodePools": [{"name": "event", "limits": {"cpu": "1000",
                                                                                      "memory": "4000Gi"}}],
                                  "prescale:eventWindows": entries}})


def series(windows: int, days: int) -> Series:
    found = Series()
    for index in range(windows):
        labels = {"namespace": "prescale", "deployment": f"prescale-w{index}"}
        for day in range(days):
            start = SINCE + timedelta(days=day, hours=index % 20, minutes=index % 60)
            scale_up = int((start - timedelta(minutes=10)).timestamp())
            found.hold("kube_deployment_status_replicas_ready", labels, scale_up - 300, scale_up + 240, 0)
            found.hold("kube_deployment_status_replicas_ready", labels, scale_up + 240, scale_up + 4200, 2)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__)
    parser.add_argument("--windows", type=int, default=20)
    parser.add_argument("--days", type=int, default=365)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        shutil.copy(ROOT / "Pulumi.yaml", directory / "Pulumi.yaml")
        (directory / "Pulumi.bench.yaml").write_text(stack(args.windows))
        began = time.perf_counter()
        (directory / "prometheus").mkdir()
        with prometheus_serving(series(args.windows, args.days), directory / "prometheus", chunk_days=1) as url:
            backfilled = time.perf_counter() - began
            began = time.perf_counter()
            done = subprocess.run([str(Path(sys.executable).parent / "prescale"), "report", "--project",
                                   str(directory), "--stack", "bench", "--prometheus", url, "--json",
                                   "--from", f"{SINCE:%Y-%m-%d}", "--days", str(args.days),
                                   "--at", f"{SINCE + timedelta(days=args.days):%Y-%m-%dT%H:%MZ}"],
                                  capture_output=True, text=True)
            took = time.perf_counter() - began
        if done.returncode not in (0, 1):
            print(done.stderr, file=sys.stderr)
            return 2
        occurrences = json.loads(done.stdout)["occurrences"]
        print("| windows | days | occurrences | report s | (backfill and start s) |")
        print("|---:|---:|---:|---:|---:|")
        print(f"| {args.windows} | {args.days} | {len(occurrences)} | {took:.2f} | {backfilled:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
