"""Every hint passes validation itself: each refusal's "allowed: ..." or "did you mean ..." is applied to the stack
it refused, and the result is accepted (a hint that is refused in turn sends the user round in circles)."""

from __future__ import annotations

import copy
import re

from prescale.model.validation import load_stack_config

from tests.support.config import NOW, only_problem, problems

ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}
POOL = {"name": "event", "strategy": "static", "limits": {"nodes": 10},
        "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]},
                         ZONE_A]}
WINDOW = {"name": "sale", "nodePool": "event", "timezone": "Asia/Seoul", "start": "0 20 * * 5", "end": "0 22 * * 5",
          "nodes": 3}


def stack(pool: dict | None = None, window: dict | None = None, **more: object) -> dict:
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "shop-prod"},
            "prescale:nodePools": [{**POOL, **(pool or {})}], "prescale:eventWindows": [{**WINDOW, **(window or {})}],
            **{f"prescale:{key}": value for key, value in more.items()}}


def accepted(raw: dict) -> None:
    load_stack_config(raw, NOW)  # raises ConfigError with the problems otherwise


def hinted(problem: str, pattern: str) -> str:
    found = re.search(pattern, problem)
    assert found, problem
    return found.group(1)


def test_a_capacity_window_on_a_static_pool_is_told_the_nodes_of_the_type_the_pool_launches():
    raw = stack(window={"nodes": None, "capacity": {"cpu": "16", "memory": "32Gi"}})
    del raw["prescale:eventWindows"][0]["nodes"]
    problem = only_problem(raw)
    nodes = int(hinted(problem, r"allowed: nodes: (\d+) "))
    # m7i.xlarge: 4 vCPU, 3720m CPU beside DaemonSets: 16 CPU of pod requests take 5 of them, not 16 1-CPU nodes.
    assert nodes == 5 and "m7i.xlarge" in problem
    fixed = copy.deepcopy(raw)
    fixed["prescale:eventWindows"][0] = {**WINDOW, "nodes": nodes}
    accepted(fixed)


def test_a_capacity_window_above_the_static_pools_node_limit_is_told_to_raise_it_too():
    raw = stack(pool={"limits": {"nodes": 2}}, window={"capacity": {"cpu": "16", "memory": "32Gi"}})
    del raw["prescale:eventWindows"][0]["nodes"]
    problem = only_problem(raw)
    assert "allowed: nodes: 5 with the pool's limits.nodes at least 5 " in problem
    accepted(stack(pool={"limits": {"nodes": 5}}, window={"nodes": 5}))


def test_a_feature_gates_setting_written_as_text_is_told_the_list_it_means():
    karpenter = {"install": False, "nodeRoleName": "KarpenterNodeRole", "featureGates": "StaticCapacity=true"}
    existing = {"name": "shop-prod", "create": False}
    problem = only_problem(stack(karpenter=karpenter, cluster=existing))
    gates = hinted(problem, r"must be a list, like \[(.*?)\]")
    assert gates == "StaticCapacity"
    accepted(stack(karpenter={**karpenter, "featureGates": gates.split(", ")}, cluster=existing))


def test_feature_gates_written_as_text_with_install_true_are_told_in_the_same_run_to_go():
    """With install: true prescale turns the gates on itself: the list's shape is not the whole answer."""
    found = problems(stack(karpenter={"featureGates": "StaticCapacity=true"}))
    assert [problem.split(": ", 1)[0] for problem in found] == ["prescale:karpenter.featureGates"] * 2
    assert found[1].endswith("applies only with install: false (the gates of a Karpenter already running); "
                             "prescale turns on the gates its pools need in the Karpenter it installs itself; "
                             "allowed: remove it")
    accepted(stack())


def test_comma_separated_text_is_told_the_list_of_its_items():
    problem = only_problem(stack(pool={"strategy": "placeholders", "limits": {"cpu": "64"},
                                       "capacityTypes": "on-demand, spot"}))
    assert hinted(problem, r"like (\[.*?\])") == "[on-demand, spot]"


def test_a_data_volume_on_auto_mode_is_told_only_to_remove_it():
    raw = stack(pool={"strategy": "placeholders", "limits": {"cpu": "64"},
                      "dataVolume": {"snapshotID": "snap-0123456789abcdef0"}})
    raw["prescale:cluster"]["autoMode"] = True
    problem = only_problem(raw)  # not also "allowed: amiAlias bottlerocket@...", which Auto Mode refuses
    assert problem.startswith("prescale:nodePools[0].dataVolume:") and problem.endswith("allowed: remove it")
    del raw["prescale:nodePools"][0]["dataVolume"]
    accepted(raw)


def test_a_month_start_window_east_of_utc_is_told_days_that_stay_in_their_month():
    problem = only_problem(stack(window={"start": "0 8 1 * *", "end": "0 10 1 * *"}))
    first, last = map(int, hinted(problem, r"days (\d+-\d+) stay in their month").split("-"))
    assert (first, last) == (2, 28)  # 08:00 in Seoul is 23:00 UTC the day before: day 1 would be in another month
    for day in (first, last):
        accepted(stack(window={"start": f"0 8 {day} * *", "end": f"0 10 {day} * *"}))


def test_strategy_on_a_window_or_at_the_top_level_is_told_it_is_a_key_of_the_node_pools():
    raw = stack(pool={"strategy": "placeholders", "limits": {"cpu": "64"}}, window={"strategy": "static"})
    assert "strategy is a key of prescale:nodePools[]" in only_problem(raw)
    raw = stack(pool={"strategy": "placeholders", "limits": {"cpu": "64"}}, strategy="static")
    assert "strategy is a key of prescale:nodePools[]" in only_problem(raw)
    accepted(stack(pool={"strategy": "static"}))


def test_a_misplaced_key_is_not_taken_for_a_misspelling_of_one_beside_it():
    """`strategy` on a window is not a misspelled `start`: the window's times are still checked in the same run."""
    found = problems(stack(pool={"strategy": "placeholders", "limits": {"cpu": "64"}},
                           window={"strategy": "static", "end": WINDOW["start"]}))
    assert [problem.split(": ", 1)[0] for problem in found] == ["prescale:eventWindows[0].strategy",
                                                                "prescale:eventWindows[0].end"]


def test_an_uppercase_instance_type_is_told_its_lowercase():
    raw = stack(pool={"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                        "values": ["M7i.xlarge"]}, ZONE_A]})
    meant = hinted(only_problem(raw), r"allowed: values \[(.*?)\] \(did you mean them\?\)")
    assert meant == "m7i.xlarge"
    accepted(stack(pool={"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                           "values": [meant]}, ZONE_A]}))
    raw = stack()
    raw["prescale:cluster"]["systemNodeGroup"] = {"instanceTypes": ["M7i.large"]}
    meant = hinted(only_problem(raw), r"did you mean '(.*?)'\?")
    raw["prescale:cluster"]["systemNodeGroup"] = {"instanceTypes": [meant]}
    accepted(raw)
