"""The benchmark script runs: on a one-window stack, once, it prints its table (no timings are asserted).

``python -m bench`` runs in this process (its workers still run in their own, as always): a second interpreter
here would only pay the imports again.
"""

import runpy
import sys

import pytest

from bench.table import COLUMNS


@pytest.mark.slow
def test_bench_prints_its_table_for_a_tiny_stack(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["python -m bench", "--windows", "1", "--runs", "1", "--no-plan"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("bench", run_name="__main__")
    captured = capsys.readouterr()
    assert done.value.code == 0, captured.err
    header, rule, row = captured.out.strip().splitlines()
    assert [cell.strip() for cell in header.strip("|").split("|")] == list(COLUMNS)
    assert set(rule) <= {"|", "-", ":"}
    cells = dict(zip(COLUMNS, (cell.strip() for cell in row.strip("|").split("|"))))
    assert (cells["windows"], cells["pools"], cells["plan s"]) == ("1", "1", "-")
    assert int(cells["resources"]) > 60  # the platform, the pool and the window: a whole program ran
    assert all(float(cells[column]) > 0 for column in COLUMNS[3:10])
