"""The inverse of the bad-input corpus: valid edge cases run through the whole program and deploy exactly that.

Each stack goes through ``__main__.py`` under mocks, as ``pulumi up`` would run it: no windows at all, one
pool with one window, and 50 windows over several pools, kinds and time zones.
"""

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from prescale.model.config import EventWindow
from prescale.model.schedule.after_end import failsafe_schedule
from prescale.model.schedule.shift import shift_cron
from prescale.offline import Evaluation, run_program

from tests.capacity.test_failsafe import CRON_JOB, FAILSAFE_TYPES, GRACE
from tests.capacity.test_node_pools import STANDING
from tests.support import ROOT
from tests.support.capacity import DEPLOYMENT, NODE_CLASS, NODE_POOL, SCALED_OBJECT, as_object, pool, window
from tests.support.crd_validation import validate

ROOT = ROOT
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PER_WINDOW = (DEPLOYMENT, SCALED_OBJECT, *FAILSAFE_TYPES)


def run_stack(node_pools: list[dict], event_windows: list[dict] | None = None) -> Evaluation:
    """The whole program on a stack file holding just these pools and windows (``None``: no windows key)."""
    config: dict[str, Any] = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "edge"},
                              "prescale:nodePools": node_pools}
    if event_windows is not None:
        config["prescale:eventWindows"] = event_windows
    wire = {key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()}
    return run_program(ROOT, "edge", NOW, config=wire)


def names(evaluation: Evaluation, type_: str) -> list[str]:
    return sorted(r.name for r in evaluation.of_type(type_))


def test_no_windows_at_all_deploys_the_pools_with_their_default_budget_only():
    evaluation = run_stack([pool("event")])  # no prescale:eventWindows key at all
    assert evaluation.outputs["armedWindows"] == [] and evaluation.outputs["idleWindows"] == {}
    assert all(names(evaluation, type_) == [] for type_ in PER_WINDOW)
    node_pool = as_object(evaluation.named(NODE_POOL, "event-node-pool"))
    assert node_pool["spec"]["disruption"]["budgets"] == STANDING
    assert evaluation.warnings == []


def test_one_pool_with_one_window_deploys_one_of_each():
    evaluation = run_stack([pool("only")], [window("rush", "0 12 * * *", "0 13 * * *", "only", nodes=1)])
    assert (names(evaluation, NODE_POOL), names(evaluation, NODE_CLASS)) == (["only-node-pool"], ["only-node-class"])
    assert {type_: names(evaluation, type_) for type_ in PER_WINDOW} == {
        DEPLOYMENT: ["rush-placeholders"], SCALED_OBJECT: ["rush-scaler"],
        "kubernetes:core/v1:ServiceAccount": ["rush-failsafe-account"],
        "kubernetes:rbac.authorization.k8s.io/v1:Role": ["rush-failsafe-role"],
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": ["rush-failsafe-binding"],
        CRON_JOB: ["rush-failsafe-job"]}
    budgets = as_object(evaluation.named(NODE_POOL, "only-node-pool"))["spec"]["disruption"]["budgets"]
    assert budgets == [{"nodes": "0", "schedule": "50 2 * * *", "duration": "1h10m"}, *STANDING]


def test_karpenters_getting_started_limits_deploy_as_quantity_strings():
    """`limits: {cpu: 1000}` as in Karpenter's getting-started NodePool: an integer, no memory, no nodes."""
    evaluation = run_stack([pool("default", limits={"cpu": 1000})],
                           [window("rush", "0 12 * * *", "0 13 * * *", "default", nodes=2)])
    node_pool = as_object(evaluation.named(NODE_POOL, "default-node-pool"))
    assert node_pool["spec"]["limits"] == {"cpu": "1000"}
    assert validate(node_pool) == []


ZONES = ("Asia/Seoul", "America/New_York", "Europe/Berlin", "Australia/Sydney", "UTC", "Asia/Kolkata",
         "America/Sao_Paulo")
POOLS = ("web", "batch", "spot")


def fifty_windows() -> list[dict]:
    """Daily, weekday, overnight, weekend and one-off windows, round-robin over 3 pools and 7 zones, sized by
    nodes or by capacity, away from DST changes (which the config checks would refuse)."""
    windows = []
    for i in range(50):
        zone, node_pool, kind = ZONES[i % len(ZONES)], POOLS[i % len(POOLS)], i % 5
        amount = {"nodes": 1 + i % 4} if i % 2 else {"capacity": {"cpu": f"{4 + i}", "memory": f"{8 + i}Gi"}}
        start, end = {
            0: (f"{i % 60} {8 + i % 9} * * *", f"{i % 60} {10 + i % 9} * * *"),
            1: (f"0 {9 + i % 5} * * 1-5", f"30 {15 + i % 4} * * 1-5"),
            2: ("0 22 * * *", "0 5 * * *"),
            3: ("0 18 * * 5", "0 6 * * 1"),
            4: (f"2027-{1 + i % 10:02d}-{5 + i % 20:02d}T10:00", f"2027-{1 + i % 10:02d}-{5 + i % 20:02d}T16:30"),
        }[kind]
        windows.append(window(f"window-{i:02d}", start, end, node_pool, zone, leadTime=f"{5 + i % 3 * 5}m", **amount))
    return windows


@pytest.mark.slow
def test_fifty_windows_over_pools_kinds_and_zones_are_all_armed_and_guarded():
    configured = fifty_windows()
    evaluation = run_stack([pool(name) for name in POOLS], configured)
    assert evaluation.outputs["armedWindows"] == sorted(w["name"] for w in configured)
    # Nothing idle, no budgets merged: the only warnings say each one-off's freeze repeats until the next `pulumi up`.
    one_offs = [raw["name"] for raw in configured if EventWindow.model_validate(raw).is_one_off]
    assert len(evaluation.warnings) == len(one_offs) == 10
    for name, warning in zip(one_offs, evaluation.warnings):
        assert warning.startswith(f"event window {name!r}: one-off event: its consolidation freeze") \
            and "until a `pulumi up` after the event removes it" in warning
    for type_ in PER_WINDOW:
        assert len(evaluation.of_type(type_)) == 50, type_
    for raw in configured:
        window_ = EventWindow.model_validate(raw)
        trigger = as_object(evaluation.named(SCALED_OBJECT, f"{window_.name}-scaler"))["spec"]["triggers"][0]
        guard = as_object(evaluation.named(CRON_JOB, f"{window_.name}-failsafe-job"))["spec"]
        assert trigger["metadata"]["timezone"] == guard["timeZone"] == window_.timezone
        assert guard["schedule"] == failsafe_schedule(window_, GRACE)
        if not window_.is_one_off:
            assert trigger["metadata"]["start"] == shift_cron(window_.start, -window_.lead)
            assert trigger["metadata"]["end"] == window_.end
    for name in POOLS:
        budgets = as_object(evaluation.named(NODE_POOL, f"{name}-node-pool"))["spec"]["disruption"]["budgets"]
        assert 1 < len(budgets) <= 50 and budgets[-2:] == STANDING
