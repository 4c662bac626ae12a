"""A real Prometheus server for the report's tests: synthetic series, shaped as their exporters write them, written
as OpenMetrics, backfilled into blocks by ``promtool tsdb create-blocks-from openmetrics`` and served on 127.0.0.1.

Skipped with the install hint where the ``prometheus`` package is missing, failed instead under ``CI=true``
(:mod:`tests.support.promtool`)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .promtool import promtool

SERVER_HINT = "prometheus is missing: `apt-get install -y prometheus` (Debian) installs /usr/bin/prometheus"


class Series:
    """Samples of many series, grouped by metric family as OpenMetrics wants them."""

    def __init__(self) -> None:
        self.families: dict[str, dict[tuple[tuple[str, str], ...], dict[int, float]]] = defaultdict(dict)

    def set(self, metric: str, labels: dict[str, str], at: int, value: float) -> None:
        """The series' value at ``at`` (unix seconds)."""
        self.families[metric].setdefault(tuple(sorted(labels.items())), {})[at] = value

    def hold(self, metric: str, labels: dict[str, str], since: int, until: int, value: float, step: int = 30) -> None:
        """The series at ``value`` on every ``step`` in ``[since, until)``."""
        for at in range(since, until, step):
            self.set(metric, labels, at, value)

    def openmetrics(self, since: int | None = None, until: int | None = None) -> str:
        """The samples (those in ``[since, until)`` when given) as OpenMetrics text."""
        lines = []
        for metric, series in sorted(self.families.items()):
            lines.append(f"# TYPE {metric} gauge")
            for labels, samples in sorted(series.items()):
                rendered = ",".join(f'{key}="{value}"' for key, value in labels)
                lines += [f"{metric}{{{rendered}}} {value!r} {at}" for at, value in sorted(samples.items())
                          if (since is None or at >= since) and (until is None or at < until)]
        return "\n".join([*lines, "# EOF", ""])

    def span(self) -> tuple[int, int]:
        instants = [at for series in self.families.values() for samples in series.values() for at in samples]
        return min(instants), max(instants) + 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def prometheus_serving(series: Series, directory: Path, chunk_days: int | None = None) -> Iterator[str]:
    """A Prometheus server on 127.0.0.1 holding ``series``; yields its base URL. ``chunk_days``: backfill that many
    days per promtool run (promtool 2.42 reads its whole input once per 2-hour block, so a year in one file takes
    most of an hour)."""
    server = shutil.which("prometheus")
    tool = promtool()
    if server is None:
        import os
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{SERVER_HINT} (CI=true: CI must run the report's tests)")
        pytest.skip(SERVER_HINT)
    data, tsdb = directory / "data.om", directory / "tsdb"
    first, last = series.span()
    step = chunk_days * 86_400 if chunk_days else last - first
    for since in range(first, last, step):
        data.write_text(series.openmetrics(since, since + step))
        subprocess.run([tool, "tsdb", "create-blocks-from", "openmetrics", str(data), str(tsdb)], check=True,
                       capture_output=True)
    (directory / "prometheus.yml").write_text("global: {}\n")
    port = _free_port()
    process = subprocess.Popen(
        [server, f"--config.file={directory / 'prometheus.yml'}", f"--storage.tsdb.path={tsdb}",
         "--storage.tsdb.retention.time=100y", f"--web.listen-address=127.0.0.1:{port}",
         # Backfilled series carry no staleness markers, which a scraped one gets when its target stops exporting
         # it: a lookback just under the samples' 30 s spacing ends a series where its samples end, as scraping does.
         "--query.lookback-delta=29s"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the test Prometheus did not become ready")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
