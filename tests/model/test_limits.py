"""Capacity a node pool can never provide is refused, naming the window, the pool, the limit and the instant;
capacity it can provide, however close to the limits, is accepted."""

from prescale.model.validation import load_stack_config

from tests.support.config import NOW, only_problem, problems


def pool(**settings) -> dict:
    return {"name": "event", "limits": {"cpu": "512", "memory": "2048Gi"}, **settings}


def window(name: str, start: str, end: str, **settings) -> dict:
    return {"name": name, "nodePool": "event", "timezone": "Asia/Seoul", "start": start, "end": end,
            **({"nodes": 2} | settings)}


def raw(pools: list[dict], windows: list[dict], **more) -> dict:
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "capacity"}, "prescale:nodePools": pools,
            "prescale:eventWindows": windows, **{f"prescale:{key}": value for key, value in more.items()}}



# --- one window above a limit --------------------------------------------------------------------------------

def test_nodes_times_node_size_above_the_cpu_limit():
    problem = only_problem(raw([pool()], [window("big", "0 8 * * *", "0 11 * * *", nodes=600)]))
    assert problem == ("prescale:eventWindows[0].nodes: 600 nodes × placeholders.nodeSize.cpu '1' = 600 CPU is above "
                       "the cpu limit '512' of node pool 'event'; allowed: at most 512 nodes, a smaller nodeSize, or "
                       "a cpu limit of at least 600")


def test_nodes_times_node_size_above_the_memory_limit():
    problem = only_problem(raw([pool(limits={"memory": "100Gi"})], [window("big", "0 8 * * *", "0 11 * * *", nodes=3)],
                               placeholders={"nodeSize": {"cpu": "2", "memory": "40Gi"}}))
    assert problem.startswith("prescale:eventWindows[0].nodes: 3 nodes × placeholders.nodeSize.memory '40Gi' = 120Gi "
                              "memory is above the memory limit '100Gi' of node pool 'event'; allowed: at most 2 nodes")


def test_a_window_exactly_at_the_limits_is_accepted():
    config = raw([pool(limits={"cpu": 512, "memory": "1Ti", "nodes": 512})],
                 [window("full", "0 8 * * *", "0 11 * * *", nodes=512)])
    assert load_stack_config(config, NOW).event_windows[0].nodes == 512


def test_a_window_above_a_limit_is_not_reported_again_as_an_overlap():
    found = problems(raw([pool()], [window("big", "0 8 * * *", "0 11 * * *", nodes=600),
                                    window("small", "0 9 * * *", "0 10 * * *", nodes=1)]))
    assert [problem.split(":")[1] for problem in found] == ["eventWindows[0].nodes"]


# --- overlapping windows -------------------------------------------------------------------------------------

def test_overlapping_windows_above_the_cpu_limit_name_both_windows_the_limit_and_the_first_instant():
    problem = only_problem(raw([pool()], [window("morning", "0 8 * * *", "0 11 * * *", nodes=300),
                                          window("late", "0 10 * * *", "0 12 * * *", nodes=300, leadTime="0m")]))
    assert problem == (
        "prescale:nodePools[0].limits.cpu: '512' is below the 600 CPU held together from Tue 2026-12-01 01:00 UTC "
        "(10:00 KST in Asia/Seoul) by windows 'morning' (eventWindows[0], 300 CPU) and 'late' (eventWindows[1], "
        "300 CPU) on node pool 'event' (windows on one pool add up, from scale-up, lead time included, to end); "
        "allowed: a cpu limit of at least 600, or windows that do not overlap")


def test_the_lead_time_makes_windows_overlap():
    """The second event starts when the first ends, but its placeholders come 10 minutes earlier."""
    windows = [window("morning", "0 8 * * *", "0 11 * * *", nodes=300), window("lunch", "0 11 * * *", "0 12 * * *",
                                                                                nodes=300, leadTime="10m")]
    assert "from Tue 2026-12-01 01:50 UTC (10:50 KST in Asia/Seoul)" in only_problem(raw([pool()], windows))
    windows[1]["leadTime"] = "0m"  # back to back: [08:00, 11:00) and [11:00, 12:00) never coincide
    assert load_stack_config(raw([pool()], windows), NOW).event_windows[1].lead_time == "0m"


def test_pairs_within_the_limit_but_three_at_once_above_it():
    """Only the stretch all three are up is too much: 11:00-12:00 UTC on Mondays, when the weekly one joins."""
    windows = [window("a", "0 8 * * *", "0 12 * * *", timezone="UTC", nodes=200, leadTime="0m"),
               window("b", "0 9 * * *", "0 13 * * *", timezone="UTC", nodes=200, leadTime="0m"),
               window("c", "0 11 * * 1", "0 14 * * 1", timezone="UTC", nodes=200, leadTime="0m")]
    problem = only_problem(raw([pool()], windows))
    assert problem.startswith("prescale:nodePools[0].limits.cpu: '512' is below the 600 CPU held together from "
                              "Mon 2026-12-07 11:00 UTC (11:00 UTC in UTC) by windows 'a' (eventWindows[0], 200 CPU), "
                              "'b' (eventWindows[1], 200 CPU) and 'c' (eventWindows[2], 200 CPU)")
    windows[2]["start"] = "0 12 * * 1"  # a has ended at 12:00: b and c alone are 400
    assert load_stack_config(raw([pool()], windows), NOW)


def test_windows_adding_up_to_exactly_the_limit_are_accepted():
    windows = [window("a", "0 8 * * *", "0 12 * * *", nodes=256), window("b", "0 9 * * *", "0 13 * * *", nodes=256)]
    assert load_stack_config(raw([pool(limits={"cpu": "512", "nodes": 512})], windows), NOW)


def test_overlapping_windows_at_exactly_the_limit_are_accepted_when_all_windows_together_exceed_it():
    """All three windows sum to 768 CPU, so the overlap sweep runs; the two that coincide hold exactly 512."""
    windows = [window("a", "0 8 * * *", "0 12 * * *", nodes=256), window("b", "0 9 * * *", "0 13 * * *", nodes=256),
               window("c", "0 15 * * *", "0 16 * * *", nodes=256)]
    assert load_stack_config(raw([pool(limits={"cpu": "512", "nodes": 512})], windows), NOW)


def test_overlaps_are_found_across_zones_and_with_one_off_events():
    windows = [window("daily", "0 9 * * *", "0 17 * * *", timezone="Europe/Berlin", nodes=200),
               window("launch", "2027-03-02T08:00", "2027-03-02T14:00", timezone="America/New_York", nodes=400)]
    problem = only_problem(raw([pool()], windows))
    # 07:50 EST on 2 March (lead 10m) is 12:50 UTC, inside Berlin's 09:00-17:00 (08:00-16:00 UTC).
    assert problem.startswith("prescale:nodePools[0].limits.cpu: '512' is below the 600 CPU held together from "
                              "Tue 2027-03-02 12:50 UTC (13:50 CET in Europe/Berlin) by windows 'daily'")


def test_overlapping_nodes_windows_above_the_node_limit():
    windows = [window("daily", "0 12 * * *", "0 14 * * *", nodes=8), window("monday", "0 13 * * 1", "0 15 * * 1",
                                                                          nodes=5)]
    problem = only_problem(raw([pool(limits={"nodes": 10})], windows))
    assert problem.startswith("prescale:nodePools[0].limits.nodes: 10 is below the 13 nodes held together from "
                              "Mon 2026-12-07 03:50 UTC (12:50 KST in Asia/Seoul) by windows 'daily' (eventWindows[0], "
                              "8 nodes) and 'monday' (eventWindows[1], 5 nodes)")


def test_capacity_windows_count_no_nodes_against_the_node_limit():
    """Their pods may fill the room left on the nodes of a `nodes` window, so no extra node is certain."""
    windows = [window("daily", "0 12 * * *", "0 14 * * *", nodes=10),
               window("batch", "0 13 * * *", "0 15 * * *", nodes=None, capacity={"cpu": "8", "memory": "16Gi"})]
    config = load_stack_config(raw([pool(limits={"cpu": "100", "nodes": 10})], windows), NOW)
    assert config.node_pools[0].limits.nodes == 10


def test_capacity_windows_add_their_requests_to_the_sum():
    windows = [window("daily", "0 12 * * *", "0 14 * * *", nodes=10),
               window("batch", "0 13 * * *", "0 15 * * *", nodes=None, capacity={"cpu": "96", "memory": "16Gi"})]
    problem = only_problem(raw([pool(limits={"cpu": "100"})], windows))
    assert problem.startswith("prescale:nodePools[0].limits.cpu: '100' is below the 106 CPU held together")


def test_only_the_given_limits_are_checked():
    windows = [window("a", "0 12 * * *", "0 14 * * *", nodes=300), window("b", "0 13 * * *", "0 15 * * *", nodes=300)]
    assert load_stack_config(raw([pool(limits={"nodes": 600})], windows), NOW).node_pools[0].limits.cpu is None


def test_many_overlapping_windows_are_counted_past_the_first_few():
    windows = [window(f"w{index}", "0 12 * * *", "0 14 * * *", nodes=100) for index in range(8)]
    problem = only_problem(raw([pool(limits={"cpu": "700"})], windows))
    assert "'w4' (eventWindows[4], 100 CPU) and 3 more on node pool 'event'" in problem


# --- placeholders no instance holds --------------------------------------------------------------------------

def test_a_node_size_that_fits_no_allowed_instance_names_the_closest_one():
    config = raw([pool(instanceCategories=["c"], architectures=["arm64"], limits={"cpu": "4000"})],
                 [window("lunch", "15 11 * * *", "30 11 * * *", nodes=2)],
                 placeholders={"nodeSize": {"cpu": "200", "memory": "8Gi"}})
    problem = only_problem(config)
    assert problem.startswith("prescale:placeholders.nodeSize: {cpu: '200', memory: '8Gi'} fits no instance type the "
                              "pool allows: the closest, c8gb.48xlarge (192 vCPU, 384Gi; 191450m CPU and 356820Mi "
                              "allocatable)")
    assert "window 'lunch', prescale:eventWindows[0]" in problem and "architectures ['arm64']" in problem
    # The same size fits an x86 pool, which has 384-vCPU types.
    config["prescale:nodePools"][0]["architectures"] = ["amd64"]
    assert load_stack_config(config, NOW).placeholders.node_size.cpu == "200"


def test_memory_that_fits_no_allowed_instance_is_refused_too():
    config = raw([pool(instanceCategories=["c"], limits={"memory": "100Ti"})],
                 [window("lunch", "15 11 * * *", "30 11 * * *", nodes=2)],
                 placeholders={"nodeSize": {"cpu": "2", "memory": "1Ti"}})
    assert only_problem(config).startswith("prescale:placeholders.nodeSize: {cpu: '2', memory: '1Ti'} fits no "
                                           "instance type")
    config["prescale:nodePools"][0]["instanceCategories"] = ["c", "x"]  # memory-optimised types hold 1 TiB
    assert load_stack_config(config, NOW).node_pools[0].instance_categories == ["c", "x"]


def test_a_capacity_window_is_checked_by_its_pod_size_not_by_max_pod_size():
    """maxPodSize is only an upper bound: 64 CPU of capacity in pods of at most 400 CPU is one 64 CPU pod."""
    small = window("sale", "15 11 * * *", "30 11 * * *", nodes=None, capacity={"cpu": "64", "memory": "64Gi"})
    big = window("sale", "15 11 * * *", "30 11 * * *", nodes=None, capacity={"cpu": "390", "memory": "64Gi"})
    placeholders = {"maxPodSize": {"cpu": "400", "memory": "1Ti"}}
    assert load_stack_config(raw([pool(limits={"cpu": "1000"})], [small], placeholders=placeholders), NOW)
    problem = only_problem(raw([pool(limits={"cpu": "1000"})], [big], placeholders=placeholders))
    assert problem.startswith("prescale:placeholders.maxPodSize: {cpu: '400', memory: '1Ti'} fits no instance type")
    assert "holds its capacity in placeholders of 390 CPU / 64Gi on node pool 'event'" in problem


def test_a_pool_whose_categories_match_no_instance_type():
    problem = only_problem(raw([pool(instanceCategories=["q"])], [window("lunch", "15 11 * * *", "30 11 * * *")]))
    assert problem.startswith("prescale:nodePools[0].instanceCategories: ['q'] leaves node pool 'event' no instance "
                              "type to launch: none of the 1363 types of Karpenter's list meets it")
    assert "those types have karpenter.k8s.aws/instance-category a, c, d," in problem


def test_a_max_pod_size_too_small_to_split_capacity_is_refused_not_crashed_on():
    config = raw([pool()], [window("sale", "15 11 * * *", "30 11 * * *", nodes=None,
                                   capacity={"cpu": "8", "memory": "16Gi"})],
                 placeholders={"maxPodSize": {"cpu": "0.5m", "memory": "1Gi"}})
    assert only_problem(config) == ("prescale:placeholders.maxPodSize: {cpu: '0.5m', memory: '1Gi'} must be at least "
                                    "1m CPU and 1Mi memory to split a capacity into pods")
