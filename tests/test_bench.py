"""The benchmark script runs: on a one-window stack, once, it prints its table (no timings are asserted)."""

import subprocess
import sys
from pathlib import Path

from bench.table import COLUMNS

ROOT = Path(__file__).resolve().parent.parent


def test_bench_prints_its_table_for_a_tiny_stack():
    done = subprocess.run([sys.executable, "-m", "bench", "--windows", "1", "--runs", "1", "--no-plan"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    header, rule, row = done.stdout.strip().splitlines()
    assert [cell.strip() for cell in header.strip("|").split("|")] == list(COLUMNS)
    assert set(rule) <= {"|", "-", ":"}
    cells = dict(zip(COLUMNS, (cell.strip() for cell in row.strip("|").split("|"))))
    assert (cells["windows"], cells["pools"], cells["plan s"]) == ("1", "1", "-")
    assert int(cells["resources"]) > 60  # the platform, the pool and the window: a whole program ran
    assert all(float(cells[column]) > 0 for column in COLUMNS[3:10])
