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
from pathlib import Path
from types import SimpleNamespace

import pytest

import bench.instructions
import bench.run
import bench.stacks
import bench.worker
from bench.table import COLUMNS, Row


def worker_here(mode, stack, record):
    """``bench.run.run_worker`` without the fresh interpreter: ``bench.worker``'s own ``main``, its JSON line read."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert bench.worker.main([mode, str(stack), "--record", str(record)]) == 0
    return json.loads(printed.getvalue().splitlines()[-1])


@pytest.mark.slow
def test_bench_prints_its_table_for_a_tiny_stack(capsys, monkeypatch):
    monkeypatch.setattr(bench.run, "run_worker", worker_here)
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


# --- python -m bench.instructions -------------------------------------------------------------------------

CALLGRIND_STDERR = """==4242== Callgrind, a call-graph generating cache profiler
==4242== For interactive control, run 'callgrind_control -h'.
==4242==
==4242== Events    : Ir
==4242== Collected : 26750919587
==4242==
==4242== I   refs:      26,750,919,587
"""


def test_the_instruction_count_is_read_from_callgrinds_report():
    assert bench.instructions.collected(CALLGRIND_STDERR, "the program") == 26_750_919_587


@pytest.mark.parametrize(("stderr", "returncode"), [(CALLGRIND_STDERR, 1), ("valgrind: command not found", 0)])
def test_a_failed_or_uncounted_run_is_an_error_not_a_count(stderr, returncode):
    with pytest.raises(RuntimeError, match="did not count the program stopped after the run"):
        bench.instructions.collected(stderr, "program stopped after the run", returncode)


def test_each_sides_count_is_its_evaluation_less_its_warm_up(monkeypatch):
    counts = {("program", "run"): 26_750, ("program", "warm-up"): 7_875,
              ("baseline", "run"): 24_600, ("baseline", "warm-up"): 7_996}
    monkeypatch.setattr(bench.instructions, "count_instructions",
                        lambda side, stop, stack, record: counts[side, stop])
    counted = bench.instructions.count_runs(Path("stack.json"), Path("run.pickle"))
    assert counted == {"program": 18_875, "baseline": 16_604}
    table = bench.instructions.markdown(160, 6, 1362, {"program": 18_875 * 10**6, "baseline": 16_604 * 10**6})
    header, _, row = table.splitlines()
    assert [cell.strip() for cell in row.strip("|").split("|")] == ["160", "6", "1362", "18.875", "16.604", "1.137"]
    assert [cell.strip() for cell in header.strip("|").split("|")] == list(bench.instructions.COLUMNS)


@pytest.mark.slow
@pytest.mark.parametrize("stop", ["warm-up", "run"])
def test_a_stopped_worker_prints_and_records_nothing(stop, tmp_path, capsys, monkeypatch):
    # Whatever runs after the stop would be counted as the evaluation's (a recording, the replay's check).
    monkeypatch.setattr(bench.worker, "gc", SimpleNamespace(collect=lambda: 0))
    evaluated = []
    run_program = bench.worker.run_program
    monkeypatch.setattr(bench.worker, "run_program", lambda *args, **kwargs: evaluated.append(args[1]) or
                        run_program(*args, **kwargs))
    stack, record = tmp_path / "stack.json", tmp_path / "run.pickle"
    stack.write_text(json.dumps(bench.stacks.wire_config(1)))
    assert bench.worker.main(["program", str(stack), "--record", str(record), "--stop", stop]) == 0
    assert evaluated == (["warm-up"] if stop == "warm-up" else ["warm-up", bench.worker.STACK])
    assert capsys.readouterr().out == ""
    assert not record.exists()
