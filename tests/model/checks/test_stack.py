"""The cross-key pass over a whole config (:mod:`prescale.model.checks.stack`), called directly: the rules it owns
(names used twice, a window on no pool, KEDA's version when it is not prescale's, the failsafe's grace and timing,
a driven window's failsafe), and how it runs the others: every rule on what validated, the region's rules only where
the region is known, and the addresses only for a config that validated whole."""

from prescale.model.checks.refused import Refused
from prescale.model.checks.stack import capacity_config_problems, stack_problems
from prescale.model.config import STRATEGIES_CONTEXT, CapacityConfig, StackConfig
from prescale.model.strategies import STRATEGIES

from tests.support.capacity import RICH_POOLS, RICH_WINDOWS
from tests.support.config import NOW

CONTEXT = {STRATEGIES_CONTEXT: STRATEGIES}
M7I = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}
ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}


def pool(name: str = "event", **settings) -> dict:
    return {"name": name, "limits": {"cpu": "1000"}, **settings}


def window(name: str, node_pool: str = "event", start: str = "0 9 * * 1-5", end: str = "0 17 * * 1-5",
           **settings) -> dict:
    return {"name": name, "nodePool": node_pool, "timezone": "Asia/Seoul", "start": start, "end": end,
            **({"nodes": 2} | settings)}


MORNING = window("morning", start="0 8 * * *", end="0 11 * * *", nodes=10)  # 200 addresses at 07:50 KST


def capacity(**sections) -> CapacityConfig:
    """Sections as their models validate them, without the cross-key rules (which would refuse what is tested)."""
    return CapacityConfig.model_validate(sections, context=CONTEXT)


def stack(cluster: dict | None = None, **sections) -> StackConfig:
    return StackConfig.model_validate({"region": "ap-northeast-2", "cluster": {"name": "shop", **(cluster or {})},
                                       **sections}, context=CONTEXT)


def test_a_rich_stack_has_no_problem():
    config = stack(nodePools=RICH_POOLS, eventWindows=RICH_WINDOWS, tags={"team": "platform"})
    assert stack_problems(config, NOW) == capacity_config_problems(config, NOW) == []


def test_names_used_twice_and_windows_on_no_pool_are_refused_by_their_index():
    config = capacity(nodePools=[pool(), pool("batch"), pool()],
                      eventWindows=[window("a"), window("b"), window("a", "batch"), window("c", "nope")])
    assert capacity_config_problems(config, NOW) == [
        "prescale:nodePools[2].name: 'event' is already used by prescale:nodePools[0]; names must be unique",
        "prescale:eventWindows[2].name: 'a' is already used by prescale:eventWindows[0]; names must be unique",
        "prescale:eventWindows[3].nodePool: 'nope' is not a node pool; allowed: 'event', 'batch'"]
    assert capacity_config_problems(capacity(eventWindows=[window("a")]), NOW) == [
        "prescale:eventWindows[0].nodePool: 'event' is not a node pool; allowed: none (prescale:nodePools is empty)"]


def test_a_window_on_a_refused_pool_is_not_said_to_be_on_no_pool():
    refused = Refused(node_pools=frozenset({0}), pool_names=frozenset({"event"}))
    assert capacity_config_problems(capacity(eventWindows=[window("a")]), NOW, refused) == []
    unnamed = Refused(node_pools=frozenset({0}), pool_names=frozenset({None}))  # its name refused: any may be it
    assert capacity_config_problems(capacity(eventWindows=[window("a", "anything")]), NOW, unnamed) == []


def test_a_keda_prescale_does_not_install_needs_its_version():
    config = capacity(nodePools=[pool()], eventWindows=[window("a")], keda={"install": False})
    assert capacity_config_problems(config, NOW) == [
        "prescale:keda.version: required key is missing: with keda.install false it is the version of the KEDA "
        "already running in the cluster (the tag of its keda-operator image), which decides the crons it runs "
        "correctly (commas need 2.20.0, kedacore/keda#7448); allowed: that exact version, 2.18.0 or newer, e.g. "
        "\"2.20.2\""]
    versioned = capacity(nodePools=[pool()], eventWindows=[window("a")], keda={"install": False, "version": "2.20.2"})
    assert capacity_config_problems(versioned, NOW) == []


def test_the_failsafe_grace_must_stand_in_for_keda_and_never_reach_the_next_scale_up():
    too_soon = capacity(nodePools=[pool()], eventWindows=[window("a")], placeholders={"failsafeGrace": "1m"})
    assert capacity_config_problems(too_soon, NOW) == [
        "prescale:placeholders.failsafeGrace: '1m' must be at least 2m: KEDA itself scales the placeholders to zero up "
        "to 1m15s after each end (its cooldownPeriod of 60s after its last poll, 15s apart), so an earlier failsafe "
        "would do KEDA's job at every end instead of standing in when KEDA fails"]
    # 09:00-17:00 with a 15h lead time scales up again at 18:00: a failsafe an hour after the end empties it.
    daily = window("a", start="0 9 * * *", end="0 17 * * *", leadTime="15h")
    assert capacity_config_problems(capacity(nodePools=[pool()], eventWindows=[daily],
                                             placeholders={"failsafeGrace": "1h"}), NOW) == [
        "prescale:eventWindows[0].end: '0 17 * * *': the failsafe scale-down ('0 18 * * *' in Asia/Seoul): would run "
        "at Tue 2026-12-01 18:00 KST (or up to 5m later), not before the next scale-up at Tue 2026-12-01 18:00 KST, "
        "and empty an open window; allowed: a failsafeGrace from 2m to 54m (prescale:placeholders.failsafeGrace is "
        "1h; the failsafe is explained in docs/guardrails.md)"]
    static = pool(strategy="static", limits={"nodes": 40}, requirements=[M7I, ZONE_A])
    (driven,) = capacity_config_problems(capacity(nodePools=[static], eventWindows=[daily],
                                                  placeholders={"failsafeGrace": "1h"}), NOW)
    assert driven.startswith("prescale:eventWindows[0].end: '0 17 * * *': on static node pool 'event', its driver "
                             "needs at least 3m from the failsafe at the end + 1h to the next scale-up")
    assert driven.endswith("(prescale:placeholders.failsafeGrace is 1h); allowed: a shorter failsafeGrace, or more "
                           "time between occurrences (docs/capacity.md#the-failsafe-and-converging-from-any-state)")


def test_addresses_are_counted_for_a_config_valid_whole_and_zones_only_where_the_region_is_known():
    small = stack({"vpcCidr": "10.0.0.0/24"}, nodePools=[pool(instanceCategories=["c", "m"])], eventWindows=[MORNING])
    (problem,) = stack_problems(small, NOW)
    assert problem.startswith("prescale:cluster.vpcCidr: '10.0.0.0/24' with availabilityZones 3: node pool 'event': "
                              "at least 200 addresses are held")
    assert stack_problems(small, NOW, Refused(sections=frozenset({"tags"}))) == []  # the tags' problem is enough

    foreign = stack(nodePools=[pool(requirements=[{**ZONE_A, "values": ["us-east-1a"]}])], eventWindows=[MORNING])
    (problem,) = stack_problems(foreign, NOW)
    assert problem.startswith("prescale:nodePools[0].requirements[0].values[0]: 'us-east-1a' is not a zone of the "
                              "stack's region 'ap-northeast-2'")
    assert stack_problems(foreign, NOW, Refused(sections=frozenset({"region"}))) == []
    assert capacity_config_problems(foreign, NOW) == []  # a library program: no region here
