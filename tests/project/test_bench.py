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
from bench.table import COLUMNS


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
    assert all(float(cells[column]) > 0 for column in COLUMNS[3:10])
