"""Pools with strategy static or buffer: what the plan says renders each window, the names it gives their objects,
and the rules only these strategies have."""

from datetime import UTC, datetime, timedelta

import pytest
from prescale.model.config import GATE_VALUES, CapacityConfig, NodePoolConfig, StackConfig
from prescale.model.fleet.instances import pool_launchable
from prescale.model.plan import plan_capacity
from prescale.model.strategies import STRATEGIES, feature_gates
from prescale.model.strategies.base import window_object_name
from prescale.model.strategies.buffer import BufferedCapacity
from prescale.model.strategies.driven import driver_account_name, driver_names, prepull_name
from prescale.model.strategies.placeholders import PlaceholderPods
from prescale.model.strategies.static import LABEL_VALUE_LIMIT, StaticNodes, static_node_limit, static_node_pool_name
from prescale.model.validation import load_stack_config
from prescale.model.values.labels import NODEPOOL_LABEL, POOL_LABEL
from prescale.model.values.quantity import parse_quantity
from prescale.model.windows import ArmedWindow, IdleWindow

from tests.support.config import NOW, problems

M7I = [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}]
ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}


def stack(strategy: str = "static", windows: list | None = None, **pool) -> dict:
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "shop"},
            "prescale:nodePools": [{"name": "event", "strategy": strategy, "limits": {"nodes": 40},
                                    "requirements": [*M7I, ZONE_A], **pool}],
            "prescale:eventWindows": windows if windows is not None else [
                {"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "0 12 * * *",
                 "end": "0 13 * * *", "nodes": 5, "prepullImages": ["nginx:1.27"]}]}


def plan(raw: dict, now: datetime = NOW):
    return plan_capacity(load_stack_config(raw, now), now)


def test_a_static_window_gets_its_own_driven_node_pool_and_the_pool_no_dynamic_one():
    planned = plan(stack())
    window = planned.window("lunch")
    assert isinstance(window, ArmedWindow) and window.strategy is STRATEGIES["static"]
    assert planned.armed == (window,) and planned.pools["event"].strategy is STRATEGIES["static"]
    capacity = window.capacity
    assert isinstance(capacity, StaticNodes)
    assert (capacity.node_pool_name, capacity.nodes, capacity.created_replicas) == (
        static_node_pool_name("event", "lunch"), 5, 0)
    up, down = capacity.driver.up, capacity.driver.down
    assert (up.name, up.schedule, up.replicas) == ("scale-up-lunch", "50 11 * * *", 5)
    assert (down.name, down.schedule, down.replicas, down.disarms) == ("scale-down-lunch", "0 13 * * *", 0, None)
    assert capacity.driver.timezone == "Asia/Seoul" and up.concurrency_policy == "Forbid"
    assert window.freeze is not None and planned.pools["event"].freezes == [window.freeze]  # on its own NodePool
    assert capacity.prepull is not None
    assert (capacity.prepull.name, capacity.prepull.node_label, capacity.prepull.images) == (
        "prepull-lunch", (NODEPOOL_LABEL, capacity.node_pool_name), ("nginx:1.27",))


def test_a_buffer_window_gets_a_capacity_buffer_driven_to_zero_at_the_start():
    planned = plan(stack("buffer", windows=[
        {"name": "sale", "nodePool": "event", "timezone": "Asia/Seoul", "start": "0 12 * * *", "end": "0 13 * * *",
         "capacity": {"cpu": "20", "memory": "40Gi"}, "prepullImages": ["nginx:1.27"]}], limits={"cpu": "100"},
        requirements=[]))
    window = planned.window("sale")
    assert isinstance(window, ArmedWindow) and window.strategy is STRATEGIES["buffer"]
    capacity = window.capacity
    assert isinstance(capacity, BufferedCapacity)
    assert (capacity.buffer_name, capacity.pod_template_name) == ("prescale-sale", "prescale-sale")
    assert capacity.pods == window.placeholders.pods == 5 and window.placeholders.cpu == "4"
    assert (capacity.driver.up.schedule, capacity.driver.down.schedule) == ("50 11 * * *", "0 12 * * *")
    assert planned.pools["event"].freezes == [window.freeze]  # the pool's own NodePool, fitted as placeholders'
    assert capacity.prepull is not None and capacity.prepull.node_label == (POOL_LABEL, "event")


@pytest.mark.parametrize(("strategy", "off"), [("static", 13), ("buffer", 12)])
def test_objects_created_mid_window_or_just_before_it_start_at_n(strategy, off):
    raw = stack(strategy)
    def created(hour: int, minute: int) -> int:
        now = datetime(2026, 12, 1, hour, minute, tzinfo=UTC) - timedelta(hours=9)  # KST
        window = plan(raw, now).window("lunch")
        assert isinstance(window, ArmedWindow) and isinstance(window.capacity, StaticNodes | BufferedCapacity)
        return window.capacity.created_replicas
    assert created(11, 19) == 0 and created(11, 20) == 5  # 30 minutes before the 11:50 scale-up
    assert created(11, 55) == 5 and created(off - 1, 59) == 5 and created(off, 0) == 0


def test_a_one_off_static_window_disarms_its_scale_up_and_goes_idle_after_the_event():
    one_off = [{"name": "launch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "2027-03-02T08:00",
                "end": "2027-03-02T12:00", "nodes": 3}]
    window = plan(stack(windows=one_off)).window("launch")
    assert isinstance(window, ArmedWindow) and window.occurrence is not None
    assert window.capacity.driver.up.schedule == "50 7 2 3 *"
    assert window.capacity.driver.down.disarms == "scale-up-launch"
    assert window.capacity.driver.down.starting_deadline_seconds == 7 * 86_400
    after = plan(stack(windows=one_off), datetime(2027, 3, 2, 3, 0, tzinfo=UTC))
    assert isinstance(after.window("launch"), IdleWindow) and after.armed == ()


def test_placeholder_pools_plan_exactly_as_before():
    window = plan(stack("placeholders", requirements=[])).window("lunch")
    assert isinstance(window, ArmedWindow) and isinstance(window.capacity, PlaceholderPods)
    assert window.capacity.trigger_start == "50 11 * * *"


def test_object_names_are_stable_fit_their_limits_and_never_collide():
    names = {static_node_pool_name(pool, window) for pool, window in [("a", "b-c"), ("a-b", "c"), ("a", "b--c")]}
    assert len(names) == 3 and all(name.startswith("prescale-a-b") for name in names)
    assert static_node_pool_name("a", "b") == static_node_pool_name("a", "b") != "prescale-a-b"
    longest = static_node_pool_name("p" * 40, "w" * 40)
    assert len(longest) == LABEL_VALUE_LIMIT and longest.startswith("prescale-" + "p" * 40)
    window = "w" * 40  # the longest window name
    assert all(len(name) <= 52 for name in driver_names(window))  # CronJobs
    assert all(len(name) <= 63 for name in (window_object_name(window), prepull_name(window),
                                             "prescale-" + driver_account_name(window)))


def test_adding_a_window_to_a_static_pool_changes_no_other_window():
    before = plan(stack()).window("lunch")
    raw = stack()
    raw["prescale:eventWindows"].append({"name": "dinner", "nodePool": "event", "timezone": "Asia/Seoul",
                                         "start": "0 18 * * *", "end": "0 20 * * *", "nodes": 8})
    after = plan(raw)
    assert after.window("lunch") == before
    assert after.window("dinner").capacity.node_pool_name != before.capacity.node_pool_name


def test_gates_the_strategies_need():
    assert {name: strategy.gate for name, strategy in STRATEGIES.items()} == {
        "placeholders": None, "static": "StaticCapacity", "buffer": "CapacityBuffer"}
    assert set(GATE_VALUES) == {strategy.gate for strategy in STRATEGIES.values()} - {None}
    config = load_stack_config(stack(), NOW)
    assert isinstance(config, StackConfig) and feature_gates(config) == ("StaticCapacity",)
    assert feature_gates(CapacityConfig()) == ()


def test_static_pool_refusals_name_the_key_and_what_to_write():
    found = problems(stack(windows=[{"name": "x", "nodePool": "event", "timezone": "UTC", "start": "0 9 * * *",
                                     "end": "0 10 * * *", "capacity": {"cpu": "3", "memory": "9Gi"}}]))
    assert found == ["prescale:eventWindows[0].capacity: {cpu: '3', memory: '9Gi'} cannot go on static node pool "
                     "'event': a static NodePool holds a number of whole nodes, not pod requests; allowed: nodes: 1 "
                     "(the smallest type the pool launches, m7i.xlarge, has 3720m CPU and 13906Mi beside "
                     "DaemonSets; the capacity takes 1 of them), or a pool with strategy placeholders or buffer"]
    [small] = problems(stack(requirements=[ZONE_A], nodeSize={"cpu": "2", "memory": "4Gi"}))
    assert small.startswith("prescale:nodePools[0].requirements: node pool 'event' has strategy static")
    assert "such as c1.medium" not in small and "allowed: requirements that leave only types" in small


def test_every_type_a_static_pool_allows_must_hold_its_node_size():
    """The refusal's example of a type that holds it is really among the pool's, and the one it names is not."""
    [small] = problems(stack(requirements=[ZONE_A], nodeSize={"cpu": "2", "memory": "4Gi"}))
    types = {instance.name: instance for instance in pool_launchable(
        load_stack_config(stack("placeholders", requirements=[]), NOW).node_pools[0]).types}
    named = small.split("such as ")[1].split(" ")[0]
    example = small.split("values: [")[1].split("]")[0]
    room = types[example].room
    assert room[0] >= 2 and room[1] >= parse_quantity("4Gi")
    assert types[named].room[0] < 2 or types[named].room[1] < parse_quantity("4Gi")


def test_strategy_takes_placeholders_only_on_an_existing_pool():
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "shop"},
           "prescale:nodePools": [{"name": "general", "existing": True, "strategy": "placeholders"}]}
    assert load_stack_config(raw, NOW).node_pools[0].strategy == "placeholders"
    raw["prescale:nodePools"][0]["strategy"] = "buffer"
    [found] = problems(raw)
    assert found.startswith("prescale:nodePools[0]: strategy 'buffer' needs a pool prescale creates")


def test_own_karpenter_with_the_gate_listed_is_accepted_and_auto_mode_needs_no_gate():
    own = {**stack(), "prescale:cluster": {"name": "shop", "create": False},
           "prescale:karpenter": {"install": False, "nodeRoleName": "KarpenterNodeRole-shop",
                                  "featureGates": ["StaticCapacity"]}}
    assert load_stack_config(own, NOW).karpenter.feature_gates == ("StaticCapacity",)
    auto = {**stack(), "prescale:cluster": {"name": "shop", "autoMode": True}}
    auto["prescale:nodePools"][0]["requirements"] = [{"key": "eks.amazonaws.com/instance-family",
                                                      "operator": "In", "values": ["m7i"]},
                                                     {"key": "eks.amazonaws.com/instance-size", "operator": "In",
                                                      "values": ["xlarge"]}, ZONE_A]
    assert load_stack_config(auto, NOW).node_pools[0].strategy == "static"


def test_a_data_volume_on_a_bottlerocket_pool_is_accepted():
    raw = stack("placeholders", requirements=[], amiAlias="bottlerocket@v1.30.0",
                dataVolume={"snapshotID": "snap-0123456789abcdef0", "volumeInitializationRate": 200})
    volume = load_stack_config(raw, NOW).node_pools[0].data_volume
    assert volume is not None and (volume.snapshot_id, volume.volume_initialization_rate) == (
        "snap-0123456789abcdef0", 200)


def test_a_static_windows_node_limit_adds_a_surge_within_the_pools_limit():
    """Karpenter counts terminating nodes against limits.nodes: N alone would replace a lost node only once it is
    gone (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/state/statenodepool.go)."""
    pool = NodePoolConfig(name="fixed", strategy="static", limits={"nodes": 40})
    assert [static_node_limit(nodes, pool) for nodes in (1, 3, 4, 5, 20, 36, 40)] == [2, 4, 5, 7, 25, 40, 40]
    unbounded = NodePoolConfig(name="fixed", strategy="static", limits={"cpu": "1000"})
    assert static_node_limit(20, unbounded) == 25


def test_a_static_pool_not_pinned_to_one_zone_is_refused_with_the_fix():
    """Karpenter does not spread a static NodePool's nodes over zones (kubernetes-sigs/karpenter v1.14.1
    designs/static-capacity.md): one pool per zone is the way to have nodes in each."""
    two = {**ZONE_A, "values": ["ap-northeast-2a", "ap-northeast-2c"]}
    for requirements in (M7I, [*M7I, two], [*M7I, {**ZONE_A, "operator": "NotIn"}]):
        (problem,) = [p for p in problems(stack(requirements=requirements)) if "not pinned to one zone" in p]
        assert problem.startswith("prescale:nodePools[0].requirements: node pool 'event' has strategy static")
        assert "one static pool per zone" in problem
    # the fix, applied, is accepted; a buffer pool spreads like any pool and needs no pin
    assert plan(stack(requirements=[*M7I, ZONE_A])).window("lunch") is not None
    assert plan(stack("buffer", requirements=M7I)).window("lunch") is not None


def test_a_static_pools_node_size_exactly_its_types_room_beside_daemonsets_is_accepted():
    """m7i.xlarge has 3720m CPU and 13906Mi beside DaemonSets: a nodeSize of exactly that fits; a millicore more
    does not."""
    assert load_stack_config(stack(nodeSize={"cpu": "3720m", "memory": "13906Mi"}), NOW)
    [small] = problems(stack(nodeSize={"cpu": "3721m", "memory": "13906Mi"}))
    assert small.startswith("prescale:nodePools[0].requirements: node pool 'event' has strategy static")


def test_a_static_pool_without_windows_yet_is_not_refused_for_its_small_types():
    """Karpenter launches nothing for a static pool until a window sets its replicas: its types matter only then."""
    assert load_stack_config(stack(requirements=[ZONE_A], windows=[]), NOW).node_pools[0].strategy == "static"
    assert problems(stack(requirements=[ZONE_A]))  # with a window on it, its small types are refused


def test_a_feature_gates_map_that_leaves_the_static_gate_out_does_not_turn_it_off():
    """Only `staticCapacity: false` turns off the gate a static pool needs; a map of other gates leaves it to
    prescale, which turns it on."""
    def karpenter(gates: dict) -> dict:
        return {**stack(), "prescale:karpenter": {"values": {"settings": {"featureGates": gates}}}}

    assert load_stack_config(karpenter({"nodeRepair": True}), NOW)
    [off] = problems(karpenter({"nodeRepair": True, "staticCapacity": False}))
    assert off.startswith("prescale:karpenter.values.settings.featureGates.staticCapacity: false turns off the gate")


def test_reservations_above_a_static_windows_nodes_are_refused():
    """A static window launches exactly its nodes: reservations beyond them are billed and no node uses them."""
    one_off = {"name": "launch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "2027-03-02T08:00",
               "end": "2027-03-02T14:00", "nodes": 4}
    reserving = {"capacityTypes": ["on-demand", "reserved"], "capacityReservationSelectorTerms": [{"tags": {"a": "b"}}]}

    def reserve(count: int) -> dict:
        return stack(windows=[{**one_off, "reserve": {"instanceType": "m7i.xlarge", "count": count,
                                                      "availabilityZones": ["ap-northeast-2a"]}}], **reserving)

    assert load_stack_config(reserve(4), NOW)
    [above] = problems(reserve(5))
    assert above == ("prescale:eventWindows[0].reserve.count: 5 reservations on static node pool 'event', whose "
                     "window holds 4 nodes: Karpenter launches exactly those, so 1 reservation would be billed and "
                     "never used; allowed: at most 4 (reserve.count), or more nodes")
