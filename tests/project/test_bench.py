"""The benchmark script runs: on a one-window stack, once, it prints its table (no timings are asserted).

``python -m bench`` and its workers run in this process here: each worker would otherwise pay the SDK imports again
in a fresh interpreter (2-3 s apiece, three per stack size), and what they would compute is the same. What this
leaves out is the ``subprocess.run`` that starts ``python -m bench.worker`` and the worker's collection before it
starts the clock: in a fresh interpreter it finds the warm-up's leftovers; here it would scan and free everything the
session's evaluations left (2.4 s for the first, measured after the capacity and platform tests).
"""

import contextlib
import io
import json
import runpy
import sys
from types import SimpleNamespace

import pytest

import bench.run
import bench.worker
from bench.table import COLUMNS, Row


def worker_here(mode, stack, record):
    """``bench.run._worker`` without the fresh interpreter: ``bench.worker``'s own ``main``, its JSON line read back."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert bench.worker.main([mode, str(stack), "--record", str(record)]) == 0
    return json.loads(printed.getvalue().splitlines()[-1])


@pytest.mark.slow
def test_bench_prints_its_table_for_a_tiny_stack(capsys, monkeypatch):
    monkeypatch.setattr(bench.run, "_worker", worker_here)
    monkeypatch.setattr(bench.worker, "gc", SimpleNamespace(collect=lambda: 0))
    monkeypatch.setattr(sys, "argv", ["python -m bench", "--windows", "1", "--runs", "1", "--no-plan"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("bench", run_name="__main__")
    captured = capsys.readouterr()
    assert done.value.code == 0, captured.err
    header, rule, row = captured.out.strip().splitlines()
    assert [cell.strip() for cell in header.strip("|").split("|")] == list(COLUMNS)
    assert set(rule) <= {"|", "-", ":"}
    cells = dict(zip(COLUMNS, (cell.strip() for cell in row.strip("|").split("|"))))
    assert (cells["windows"], cells["pools"]) == ("1", "1")
    assert (cells["plan s"], cells["plan baseline s"], cells["plan ratio"]) == ("-", "-", "-")
    assert int(cells["resources"]) > 60  # the platform, the pool and the window: a whole program ran
    assert all(float(cells[column]) > 0 for column in COLUMNS[3:11] if column != "ratio range")
    low, high = map(float, cells["ratio range"].split("–"))
    assert low == high == float(cells["ratio"])  # one round: its own ratio


def test_the_ratio_range_pairs_each_program_run_with_the_baseline_run_of_its_round():
    # Round two ran in a slow spell: its program run took longer, and so did its baseline run.
    row = Row(160, 6, 1362, program_seconds=[2.2, 3.3, 2.3], baseline_seconds=[2.0, 3.0, 2.0],
              floor_seconds=[1.5, 1.5, 1.5], program_peak_bytes=0, baseline_peak_bytes=0, plan_seconds=[],
              plan_baseline_seconds=[])
    assert row.ratio == 2.3 / 2.0
    assert row.ratio_range == pytest.approx((1.1, 1.15))
    assert row.cells()[5:7] == ("1.15", "1.10–1.15")
