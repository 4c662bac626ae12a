"""Pools and windows a strategy cannot serve (:mod:`prescale.model.checks.strategies`), called directly: a static pool
takes no capacity windows, must be pinned to one zone and launch types that hold its nodeSize; a data volume needs
Bottlerocket; a driver needs room for its two runs; and the platform must run the strategy (its Karpenter's gates, no
buffer on EKS Auto Mode), with the gates given only where a Karpenter already runs."""

from prescale.model.checks.refused import NOTHING_REFUSED, Partial, Refused
from prescale.model.checks.strategies import driver_problems, platform_strategy_problems, strategy_problems
from prescale.model.config import STRATEGIES_CONTEXT, KarpenterConfig, StackConfig
from prescale.model.strategies import STRATEGIES

from tests.support.config import NOW

M7I = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}
ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}
SNAPSHOT = {"snapshotID": "snap-0123456789abcdef0"}
DRIVER = ("its driver needs at least 3m from scale-up to {edge} (a run may start up to 60 s late and retry for 60 s "
          "more, and must end 60 s before the other run's edge), and that is {shortest} at the shortest")
EVENT_START = "the event's start"


def static(name: str = "static", **settings) -> dict:
    return {"name": name, "strategy": "static", "limits": {"nodes": 40}, "requirements": [M7I, ZONE_A], **settings}


def buffer(name: str = "buffer", **settings) -> dict:
    return {"name": name, "strategy": "buffer", "limits": {"cpu": "100"}, "amiAlias": "bottlerocket@v1.30.0",
            "dataVolume": SNAPSHOT, **settings}


def window(name: str, node_pool: str, start: str = "0 12 * * *", end: str = "0 13 * * *", **amount) -> dict:
    return {"name": name, "nodePool": node_pool, "timezone": "Asia/Seoul", "start": start, "end": end,
            **(amount or {"nodes": 3})}


def stack(cluster: dict | None = None, **sections) -> StackConfig:
    """A stack as its models validate it, without the cross-key rules (which would refuse what is tested here)."""
    return StackConfig.model_validate({"region": "ap-northeast-2", "cluster": {"name": "shop", **(cluster or {})},
                                       **sections}, context={STRATEGIES_CONTEXT: STRATEGIES})


def test_static_and_buffer_pools_as_their_strategies_want_them_are_accepted():
    config = stack(nodePools=[static(), buffer()],
                   eventWindows=[window("lunch", "static"), window("sale", "buffer", capacity={"cpu": "8",
                                                                                             "memory": "16Gi"})])
    assert strategy_problems(config, NOTHING_REFUSED) == []
    assert platform_strategy_problems(config, NOTHING_REFUSED) == []
    assert driver_problems("prescale:eventWindows[0]", config.event_windows[0], config.node_pools[0], "end", NOW) == []


def test_a_static_pool_refuses_capacity_windows_and_more_than_one_zone_and_a_data_volume_needs_bottlerocket():
    config = stack(nodePools=[static(requirements=[M7I]), {"name": "al2023", "limits": {"cpu": "100"},
                                                           "dataVolume": SNAPSHOT}],
                   eventWindows=[window("sale", "static", capacity={"cpu": "8", "memory": "16Gi"})])
    assert strategy_problems(config, NOTHING_REFUSED) == [
        "prescale:eventWindows[0].capacity: {cpu: '8', memory: '16Gi'} cannot go on static node pool 'static': a "
        "static NodePool holds a number of whole nodes, not pod requests; allowed: nodes: 3 (the smallest type the "
        "pool launches, m7i.xlarge, has 3720m CPU and 13906Mi beside DaemonSets; the capacity takes 3 of them), or a "
        "pool with strategy placeholders or buffer",
        "prescale:nodePools[0].requirements: node pool 'static' has strategy static and is not pinned to one zone: "
        "Karpenter does not spread a static NodePool's nodes over zones, so all of a window's nodes may land in one "
        "zone, and one zone's outage or shortage takes them all; allowed: the requirement {key: "
        "topology.kubernetes.io/zone, operator: In, values: [<one zone>]}, and for nodes in several zones one static "
        "pool per zone with each window's nodes split between them",
        "prescale:nodePools[1].dataVolume: {snapshotID: snap-0123456789abcdef0} needs a Bottlerocket pool, and "
        "amiAlias 'al2023@v20260828' is AL2023, whose nodes keep their images on the root volume (no separate data "
        "volume to restore from a snapshot); allowed: amiAlias bottlerocket@vX.Y.Z, or no dataVolume"]
    # On Auto Mode no pool has a data volume: refused by the platform rule, not as AL2023.
    assert [problem.split(":")[1] for problem in strategy_problems(config, NOTHING_REFUSED, auto_mode=True)] \
        == ["eventWindows[0].capacity", "nodePools[0].requirements"]


def test_a_static_pools_types_must_hold_its_node_size_once_the_sizes_are_known():
    config = stack(nodePools=[static()], eventWindows=[window("lunch", "static")],
                   placeholders={"nodeSize": {"cpu": "8", "memory": "16Gi"}})
    assert strategy_problems(config, NOTHING_REFUSED) == [
        "prescale:nodePools[0].requirements: node pool 'static' has strategy static, and Karpenter launches the "
        "cheapest type its requirements allow; 1 of the 1 types they allow cannot hold its nodeSize (8 CPU, 16Gi) "
        "beside DaemonSets, such as m7i.xlarge (4 vCPU, 16Gi; 3920m CPU and 14162Mi allocatable), so its windows' "
        "nodes could be smaller than asked; allowed: a smaller nodeSize"]
    assert strategy_problems(config, Refused(sections=frozenset({"placeholders"}))) == []
    assert strategy_problems(stack(nodePools=[static()], placeholders={"nodeSize": {"cpu": "8", "memory": "16Gi"}}),
                             NOTHING_REFUSED) == []  # no window on it: nothing launches


def test_a_driver_without_three_minutes_for_a_run_is_refused_on_the_key_that_bounds_it():
    config = stack(nodePools=[static(), buffer()],
                   eventWindows=[window("blip", "static", "0 12 * * *", "1 12 * * *", nodes=3, leadTime="1m"),
                                 window("rush", "buffer", nodes=3, leadTime="1m")])
    (static_pool, buffer_pool), (blip, rush) = config.node_pools, config.event_windows
    assert driver_problems("prescale:eventWindows[0]", blip, static_pool, "end", NOW) == [
        f"prescale:eventWindows[0].end: '1 12 * * *': on static node pool 'static', "
        f"{DRIVER.format(edge='the end', shortest='2m')}; allowed: a longer window, or more time between occurrences"]
    assert driver_problems("prescale:eventWindows[1]", rush, buffer_pool, "start", NOW) == [
        f"prescale:eventWindows[1].leadTime: '1m': on buffer node pool 'buffer', "
        f"{DRIVER.format(edge=EVENT_START, shortest='1m')}; allowed: a longer lead time, or more time "
        "between occurrences"]


def test_the_platform_must_run_the_strategy_and_gates_are_given_only_for_a_karpenter_already_running():
    pools = [static(), buffer()]
    assert platform_strategy_problems(stack({"autoMode": True}, nodePools=pools), NOTHING_REFUSED) == [
        "prescale:nodePools[1].strategy: 'buffer' is not available on EKS Auto Mode (prescale:cluster.autoMode: true): "
        "AWS's Karpenter there runs no CapacityBuffers; allowed: placeholders, or static",
        "prescale:nodePools[1].dataVolume: {snapshotID: snap-0123456789abcdef0} does not apply on EKS Auto Mode "
        "(prescale:cluster.autoMode: true): its NodeClass has no block device mappings and its nodes run AWS's own "
        "AMI; allowed: remove it"]
    assert platform_strategy_problems(stack(nodePools=pools, karpenter={"featureGates": ["StaticCapacity"]}),
                                      NOTHING_REFUSED) == [
        "prescale:karpenter.featureGates: ['StaticCapacity'] applies only with install: false (the gates of a "
        "Karpenter already running); prescale turns on the gates its pools need in the Karpenter it installs itself; "
        "allowed: remove it"]
    gates_off = {"settings": {"featureGates": {"capacityBuffer": False, "nodeRepair": False}}}
    assert platform_strategy_problems(stack(nodePools=pools, karpenter={"values": gates_off}), NOTHING_REFUSED) == [
        "prescale:karpenter.values.settings.featureGates.capacityBuffer: false turns off the gate CapacityBuffer that "
        "node pools 'buffer' need; allowed: remove it (prescale turns it on)"]
    running = stack({"create": False}, nodePools=pools,
                    karpenter={"install": False, "featureGates": ["StaticCapacity"]})
    assert platform_strategy_problems(running, NOTHING_REFUSED) == [
        "prescale:nodePools[1].strategy: 'buffer' needs Karpenter's CapacityBuffer feature gate, and "
        "prescale:karpenter.featureGates ['StaticCapacity'] (the gates of the Karpenter already running, install: "
        "false) does not list it: with it off, Karpenter ignores the pool's CapacityBuffers; allowed: turn it on in "
        "your Karpenter (FEATURE_GATES, or chart value settings.featureGates.capacityBuffer) and list CapacityBuffer "
        "in featureGates, or strategy placeholders"]


def test_refused_feature_gates_are_not_guessed_at_but_given_with_install_true_are_still_refused():
    pools = [static(), buffer()]
    running = stack({"create": False}, nodePools=pools, karpenter={"install": False})
    unknown = Refused(sections=frozenset({"karpenter"}), partial={
        ("karpenter", None): Partial(KarpenterConfig(install=False), frozenset({"feature_gates"}))})
    assert platform_strategy_problems(running, unknown) == []  # which gates run is not known
    installed = Refused(sections=frozenset({"karpenter"}), partial={
        ("karpenter", None): Partial(KarpenterConfig(), frozenset({"feature_gates"}))})
    assert platform_strategy_problems(stack(nodePools=pools), installed) == [
        "prescale:karpenter.featureGates: applies only with install: false (the gates of a Karpenter already "
        "running); prescale turns on the gates its pools need in the Karpenter it installs itself; allowed: remove it"]
