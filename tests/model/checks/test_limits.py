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



# --- one window above a limit: the nodes Karpenter must launch, counted as its limits count them ----------------

def only_type(name: str) -> list[dict]:
    """Requirements that leave a pool one instance type, so that the least it launches is worked out by hand."""
    return [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [name]}]


def test_one_per_node_placeholders_count_the_capacity_of_their_nodes_not_their_requests():
    """150 placeholders of 1 CPU request 150 CPU, but each takes a node, and no type holding one beside DaemonSets has
    under 2 vCPU: Karpenter stops at 100 nodes under a 200 CPU limit and 50 placeholders stay Pending."""
    config = raw([pool(limits={"cpu": "200"})], [window("big", "0 8 * * *", "0 11 * * *", nodes=150)])
    assert only_problem(config) == (
        "prescale:eventWindows[0].nodes: 150 nodes holding placeholders.nodeSize.cpu '1' count at least 300 CPU, above "
        "the cpu limit '200' of node pool 'event': NodePool limits count a node's capacity, and the least of any "
        "instance type the pool can launch that holds one beside DaemonSets is 2 CPU (c3.large); allowed: at most "
        "100 nodes, a smaller nodeSize, or a cpu limit of at least 300")
    config["prescale:eventWindows"][0]["nodes"] = 100  # 100 nodes of 2 vCPU: exactly the limit
    assert load_stack_config(config, NOW).event_windows[0].nodes == 100


def test_one_per_node_placeholders_count_their_nodes_memory_less_the_vm_overhead():
    """The least memory of a type holding 2Gi beside DaemonSets: c3.large, 3840Mi less Karpenter's 7.5 % VM overhead
    (288Mi) = 3552Mi, so 10 nodes count 35520Mi against a memory limit."""
    config = raw([pool(limits={"memory": "35519Mi"})], [window("big", "0 8 * * *", "0 11 * * *", nodes=10)])
    assert only_problem(config).startswith(
        "prescale:eventWindows[0].nodes: 10 nodes holding placeholders.nodeSize.memory '2Gi' count at least 35520Mi "
        "memory, above the memory limit '35519Mi' of node pool 'event': NodePool limits count a node's capacity, and "
        "the least of any instance type the pool can launch that holds one beside DaemonSets is 3552Mi memory "
        "(c3.large); allowed: at most 9 nodes,")
    config["prescale:nodePools"][0]["limits"]["memory"] = "35520Mi"
    assert load_stack_config(config, NOW).node_pools[0].limits.memory == "35520Mi"


def test_graviton_nodes_lose_64_mebibytes_more():
    """m7g.large: 8192Mi less 64Mi (the AWS provider's Graviton reservation) less ⌈8128 × 0.075⌉ = 610Mi."""
    config = raw([pool(limits={"memory": "75180Mi"}, requirements=only_type("m7g.large"), architectures=["arm64"])],
                 [window("big", "0 8 * * *", "0 11 * * *", nodes=10)])
    assert load_stack_config(config, NOW).event_windows[0].nodes == 10
    config["prescale:nodePools"][0]["limits"]["memory"] = "75179Mi"
    assert "count at least 75180Mi memory" in only_problem(config)


def test_an_existing_pool_counts_only_the_requests():
    """Its instance types are its owner's, so only what the placeholders request is certain."""
    existing = {"name": "event", "existing": True, "limits": {"cpu": "200"}}
    assert load_stack_config(raw([existing], [window("big", "0 8 * * *", "0 11 * * *", nodes=150)]), NOW)
    problem = only_problem(raw([existing], [window("big", "0 8 * * *", "0 11 * * *", nodes=201)]))
    assert problem == ("prescale:eventWindows[0].nodes: 201 nodes × placeholders.nodeSize.cpu '1' = 201 CPU is above "
                       "the cpu limit '200' of node pool 'event'; allowed: at most 200 nodes, a smaller nodeSize, or a "
                       "cpu limit of at least 201")


def test_a_window_exactly_at_the_limits_is_accepted():
    """512 nodes of at least 2 vCPU and 3552Mi (c3.large) each."""
    config = raw([pool(limits={"cpu": 1024, "memory": "1776Gi", "nodes": 512})],
                 [window("full", "0 8 * * *", "0 11 * * *", nodes=512)])
    assert load_stack_config(config, NOW).event_windows[0].nodes == 512


def test_nodes_above_the_node_limit():
    problem = only_problem(raw([pool(limits={"nodes": 5})], [window("big", "0 8 * * *", "0 11 * * *", nodes=6)]))
    assert problem == ("prescale:eventWindows[0].nodes: 6 is above the limit of 5 nodes of node pool 'event'; "
                       "allowed: 1 to 5")


def test_a_capacity_window_counts_the_least_capacity_of_any_mix_of_nodes():
    """64 CPU / 64Gi is 16 pods of 4 CPU / 4Gi; an m7i.4xlarge (16 vCPU, 15.69 CPU of room beside DaemonSets) holds 3
    of them, so the pods' nodes count at least 16 × 16/3 = 85⅓ CPU (in fact 6 nodes, 96 CPU)."""
    capacity = window("sale", "15 11 * * *", "30 11 * * *", nodes=None, capacity={"cpu": "64", "memory": "64Gi"})
    config = raw([pool(limits={"cpu": "85"}, requirements=only_type("m7i.4xlarge"))], [capacity])
    assert only_problem(config) == (
        "prescale:eventWindows[0].capacity.cpu: '64' (in 16 pods of 4 CPU / 4Gi) counts at least 85334m CPU, above "
        "the cpu limit '85' of node pool 'event': NodePool limits count a node's capacity, and a node holds the pods "
        "at best 3 per 16 CPU (m7i.4xlarge); allowed: a cpu limit of at least 85334m, or less capacity (at most 5 "
        "nodes of m7i.4xlarge fit the limit)")
    config["prescale:nodePools"][0]["limits"]["cpu"] = "86"
    assert load_stack_config(config, NOW).node_pools[0].limits.cpu == "86"


def test_a_capacity_window_needs_the_fewest_nodes_any_type_holds_its_pods_in():
    capacity = window("sale", "15 11 * * *", "30 11 * * *", nodes=None, capacity={"cpu": "64", "memory": "64Gi"})
    config = raw([pool(limits={"nodes": 5}, requirements=only_type("m7i.4xlarge"))], [capacity])
    assert only_problem(config) == (
        "prescale:eventWindows[0].capacity: {cpu: '64', memory: '64Gi'} (in 16 pods of 4 CPU / 4Gi) needs at least 6 "
        "nodes, above the nodes limit 5 of node pool 'event': a node holds at most 3 of the pods (m7i.4xlarge); "
        "allowed: a nodes limit of at least 6, or less capacity")
    config["prescale:nodePools"][0]["limits"]["nodes"] = 6
    assert load_stack_config(config, NOW).node_pools[0].limits.nodes == 6


def test_a_capacity_window_takes_the_best_type_of_the_pool():
    """Of the default pool's types, c8i.96xlarge (384 vCPU, 382.77 CPU of room beside DaemonSets) holds 95 pods of
    4 CPU: less capacity per pod than any other type, so 16 pods count at least 16 × 384/95 CPU."""
    capacity = window("sale", "15 11 * * *", "30 11 * * *", nodes=None, capacity={"cpu": "64", "memory": "64Gi"})
    problem = only_problem(raw([pool(limits={"cpu": "64"})], [capacity]))
    assert "counts at least 64674m CPU" in problem and "at best 95 per 384 CPU (c8i.96xlarge)" in problem


def test_a_window_above_a_limit_is_not_reported_again_as_an_overlap():
    found = problems(raw([pool()], [window("big", "0 8 * * *", "0 11 * * *", nodes=600),
                                    window("small", "0 9 * * *", "0 10 * * *", nodes=1)]))
    assert [problem.split(":")[1] for problem in found] == ["eventWindows[0].nodes", "eventWindows[0].nodes"]
    assert [problem.split("'")[3] for problem in found] == ["512", "2048Gi"]  # the cpu limit, then the memory one


def test_reserved_instances_count_their_capacity_as_the_limits_do():
    """10 × m7i.xlarge (16384Mi) have 10 × 15155Mi of capacity after the VM overhead: what the memory limit counts."""
    reserving = window("launch", "2027-03-02T09:00", "2027-03-02T12:00", nodes=10, reserve={
        "instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a", "ap-northeast-2c"]})
    config = raw([pool(capacityTypes=["on-demand", "reserved"], limits={"memory": "151550Mi"})], [reserving])
    assert load_stack_config(config, NOW).event_windows[0].reserve.instance_type == "m7i.xlarge"
    config["prescale:nodePools"][0]["limits"]["memory"] = "151549Mi"
    assert only_problem(config).startswith("prescale:eventWindows[0].reserve: 10 × m7i.xlarge (151550Mi) is above "
                                           "the limit memory '151549Mi' of node pool 'event'")


# --- overlapping windows -------------------------------------------------------------------------------------

def test_overlapping_windows_above_the_cpu_limit_name_both_windows_the_limit_and_the_first_instant():
    problem = only_problem(raw([pool(limits={"cpu": "512"})],
                               [window("morning", "0 8 * * *", "0 11 * * *", nodes=150),
                                window("late", "0 10 * * *", "0 12 * * *", nodes=150, leadTime="0m")]))
    assert problem == (
        "prescale:nodePools[0].limits.cpu: '512' is below the 600 CPU of capacity that windows 'morning' "
        "(eventWindows[0], 300 CPU) and 'late' (eventWindows[1], 300 CPU) count at least together from Tue "
        "2026-12-01 01:00 UTC (10:00 KST in Asia/Seoul) on node pool 'event' (their one-per-node placeholders each "
        "take a node, and NodePool limits count a node's capacity; windows on one pool add up, from scale-up, lead "
        "time included, to end); allowed: a cpu limit of at least 600, or windows that do not overlap")


def test_the_lead_time_makes_windows_overlap():
    """The second event starts when the first ends, but its placeholders come 10 minutes earlier."""
    windows = [window("morning", "0 8 * * *", "0 11 * * *", nodes=150), window("lunch", "0 11 * * *", "0 12 * * *",
                                                                                nodes=150, leadTime="10m")]
    assert "from Tue 2026-12-01 01:50 UTC (10:50 KST in Asia/Seoul)" in only_problem(raw([pool()], windows))
    windows[1]["leadTime"] = "0m"  # back to back: [08:00, 11:00) and [11:00, 12:00) never coincide
    assert load_stack_config(raw([pool()], windows), NOW).event_windows[1].lead_time == "0m"


def test_pairs_within_the_limit_but_three_at_once_above_it():
    """Only the stretch all three are up is too much: 11:00-12:00 UTC on Mondays, when the weekly one joins."""
    windows = [window("a", "0 8 * * *", "0 12 * * *", timezone="UTC", nodes=100, leadTime="0m"),
               window("b", "0 9 * * *", "0 13 * * *", timezone="UTC", nodes=100, leadTime="0m"),
               window("c", "0 11 * * 1", "0 14 * * 1", timezone="UTC", nodes=100, leadTime="0m")]
    problem = only_problem(raw([pool()], windows))
    assert problem.startswith("prescale:nodePools[0].limits.cpu: '512' is below the 600 CPU of capacity that "
                              "windows 'a' (eventWindows[0], 200 CPU), 'b' (eventWindows[1], 200 CPU) and 'c' "
                              "(eventWindows[2], 200 CPU) count at least together from Mon 2026-12-07 11:00 UTC "
                              "(11:00 UTC in UTC)")
    windows[2]["start"] = "0 12 * * 1"  # a has ended at 12:00: b and c alone are 400
    assert load_stack_config(raw([pool()], windows), NOW)


def test_windows_adding_up_to_exactly_the_limit_are_accepted():
    windows = [window("a", "0 8 * * *", "0 12 * * *", nodes=128), window("b", "0 9 * * *", "0 13 * * *", nodes=128)]
    assert load_stack_config(raw([pool(limits={"cpu": "512", "nodes": 256})], windows), NOW)


def test_overlapping_windows_at_exactly_the_limit_are_accepted_when_all_windows_together_exceed_it():
    """All three windows count 768 CPU, so the overlap sweep runs; the two that coincide count exactly 512."""
    windows = [window("a", "0 8 * * *", "0 12 * * *", nodes=128), window("b", "0 9 * * *", "0 13 * * *", nodes=128),
               window("c", "0 15 * * *", "0 16 * * *", nodes=128)]
    assert load_stack_config(raw([pool(limits={"cpu": "512", "nodes": 256})], windows), NOW)


def test_overlaps_are_found_across_zones_and_with_one_off_events():
    windows = [window("daily", "0 9 * * *", "0 17 * * *", timezone="Europe/Berlin", nodes=100),
               window("launch", "2027-03-02T08:00", "2027-03-02T14:00", timezone="America/New_York", nodes=200)]
    problem = only_problem(raw([pool(limits={"cpu": "512"})], windows))
    # 07:50 EST on 2 March (lead 10m) is 12:50 UTC, inside Berlin's 09:00-17:00 (08:00-16:00 UTC).
    assert problem.startswith("prescale:nodePools[0].limits.cpu: '512' is below the 600 CPU of capacity that windows "
                              "'daily' (eventWindows[0], 200 CPU) and 'launch' (eventWindows[1], 400 CPU) count at "
                              "least together from Tue 2027-03-02 12:50 UTC (13:50 CET in Europe/Berlin)")


def test_overlapping_nodes_windows_above_the_node_limit():
    windows = [window("daily", "0 12 * * *", "0 14 * * *", nodes=8), window("monday", "0 13 * * 1", "0 15 * * 1",
                                                                          nodes=5)]
    problem = only_problem(raw([pool(limits={"nodes": 10})], windows))
    assert problem.startswith("prescale:nodePools[0].limits.nodes: 10 is below the 13 nodes that windows 'daily' "
                              "(eventWindows[0], 8 nodes) and 'monday' (eventWindows[1], 5 nodes) hold together from "
                              "Mon 2026-12-07 03:50 UTC (12:50 KST in Asia/Seoul)")


def test_capacity_windows_count_no_nodes_together_with_others():
    """Their pods may fill the room left on the nodes of a `nodes` window, so no extra node is certain."""
    windows = [window("daily", "0 12 * * *", "0 14 * * *", nodes=10),
               window("batch", "0 13 * * *", "0 15 * * *", nodes=None, capacity={"cpu": "8", "memory": "16Gi"})]
    config = load_stack_config(raw([pool(limits={"cpu": "100", "nodes": 10})], windows), NOW)
    assert config.node_pools[0].limits.nodes == 10


def test_with_capacity_windows_the_requests_together_are_what_is_certain():
    """Ten nodes of 2 vCPU count 20 CPU, but the 96 CPU window beside them requests more: 106 CPU together, on
    nodes the pods may share."""
    windows = [window("daily", "0 12 * * *", "0 14 * * *", nodes=10),
               window("batch", "0 13 * * *", "0 15 * * *", nodes=None, capacity={"cpu": "96", "memory": "16Gi"})]
    problem = only_problem(raw([pool(limits={"cpu": "105"})], windows))
    assert problem.startswith("prescale:nodePools[0].limits.cpu: '105' is below the 106 CPU that windows 'daily' "
                              "(eventWindows[0], 10 CPU) and 'batch' (eventWindows[1], 96 CPU) request together from")
    assert load_stack_config(raw([pool(limits={"cpu": "106"})], windows), NOW)


def test_only_the_given_limits_are_checked():
    windows = [window("a", "0 12 * * *", "0 14 * * *", nodes=300), window("b", "0 13 * * *", "0 15 * * *", nodes=300)]
    assert load_stack_config(raw([pool(limits={"nodes": 600})], windows), NOW).node_pools[0].limits.cpu is None


def test_many_overlapping_windows_are_counted_past_the_first_few():
    windows = [window(f"w{index}", "0 12 * * *", "0 14 * * *", nodes=50) for index in range(8)]
    problem = only_problem(raw([pool(limits={"cpu": "700"})], windows))
    assert "'w4' (eventWindows[4], 100 CPU) and 3 more count at least together" in problem


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


def test_an_existing_pools_capacity_window_counts_no_nodes_against_its_node_limit():
    """Its pods may share the owner's nodes: only one-per-node placeholders count as nodes there."""
    existing = {"name": "event", "existing": True, "limits": {"nodes": 2}}
    capacity = window("big", "0 8 * * *", "0 11 * * *", capacity={"cpu": "64", "memory": "128Gi"})
    del capacity["nodes"]
    assert load_stack_config(raw([existing], [capacity]), NOW)
    problem = only_problem(raw([existing], [window("big", "0 8 * * *", "0 11 * * *", nodes=3)]))
    assert problem.startswith("prescale:eventWindows[0].nodes: 3 is above the limit of 2 nodes of node pool 'event'")
