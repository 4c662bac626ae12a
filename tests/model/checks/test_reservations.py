"""Capacity reservations (``eventWindows[].reserve``) that could not work or would be paid unused
(:func:`prescale.model.checks.reservations.reservation_problems`), called directly: a reserve where prescale cannot
make the pool select it, a type the pool never launches, capacity types without reserved, zones the pool's nodes are
not in, and more instances than a static window holds, a placeholder fits on or the pool's limits allow; a window on
an unknown pool, and sizes that were refused, are left to their own rules."""

import pytest
from prescale.model.checks.refused import NOTHING_REFUSED, Refused
from prescale.model.checks.reservations import reservation_problems
from prescale.model.config import STRATEGIES_CONTEXT, CapacityConfig
from prescale.model.strategies import STRATEGIES

REGION = "ap-northeast-2"
RESERVE = "prescale:eventWindows[0].reserve"
SHOWN = "{instanceType: m7i.xlarge, ...}"
M7I = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}
ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}
UNUSED = "so Karpenter could never launch into all of them and the rest would be paid unused"


def pool(**settings) -> dict:
    return {"name": "event", "limits": {"cpu": "1000"}, "capacityTypes": ["on-demand", "reserved"], **settings}


def launch(reserve: dict | None = None, **settings) -> dict:
    """A one-off of 4 nodes reserving m7i.xlarge in two zones."""
    return {"name": "launch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "2027-03-02T18:00",
            "end": "2027-03-02T20:00", "nodes": 4,
            "reserve": {"instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a", "ap-northeast-2c"],
                        **(reserve or {})}, **settings}


def problems(node_pool: dict, window: dict, refused: Refused = NOTHING_REFUSED, region: str | None = REGION,
             **sections) -> list[str]:
    config = CapacityConfig.model_validate({"nodePools": [node_pool], "eventWindows": [window], **sections},
                                           context={STRATEGIES_CONTEXT: STRATEGIES})
    return reservation_problems(config, refused, region)


def test_a_reservation_the_pool_launches_into_is_accepted():
    assert problems(pool(), launch()) == []
    assert problems(pool(requirements=[ZONE_A]), launch({"availabilityZones": None})) == []  # the pool's zone
    assert problems(pool(strategy="static", limits={"nodes": 40}, requirements=[M7I, ZONE_A]),
                    launch({"availabilityZones": None, "count": 4})) == []  # exactly the nodes a static window holds


@pytest.mark.parametrize("node_pool, window, problem", [
    (pool(), launch(start="0 18 * * *", end="0 20 * * *"),
     f"{RESERVE}: {SHOWN} on a recurring window (start '0 18 * * *'): a capacity reservation is for one event, billed "
     "every hour it exists and ended after the window; allowed: reserve on a one-off window (start and end as local "
     "date-times YYYY-MM-DDTHH:MM), or no reserve"),
    ({"name": "event", "existing": True}, launch(),
     f"{RESERVE}: {SHOWN} on node pool 'event', an existing pool (existing: true): its EC2NodeClass is its owner's, "
     "so prescale cannot make it select the reservation; allowed: a node pool prescale creates, or no reserve"),
    (pool(nodeClassName="default"), launch(),
     f"{RESERVE}: {SHOWN} on node pool 'event', which uses the existing EC2NodeClass 'default' (nodeClassName): "
     "prescale does not write it, so it cannot select the reservation by id; allowed: a node pool without "
     "nodeClassName, or no reserve"),
    (pool(capacityTypes=["on-demand"]), launch(),
     "prescale:nodePools[0].capacityTypes: ['on-demand'] leaves out reserved, which eventWindows[0].reserve needs: "
     "Karpenter launches into a capacity reservation only for a NodePool whose karpenter.sh/capacity-type allows "
     "reserved; allowed: add reserved, e.g. capacityTypes [on-demand, reserved] (the reservation first, on-demand "
     "beyond it)"),
], ids=["recurring-window", "existing-pool", "existing-node-class", "no-reserved-capacity-type"])
def test_a_reservation_prescale_cannot_make_the_pool_use_is_refused(node_pool, window, problem):
    assert problems(node_pool, window) == [problem]


def test_a_type_unknown_or_outside_the_pool_is_refused_with_types_that_would_do():
    assert problems(pool(), launch({"instanceType": "m7i.xlarg"})) == [
        f"{RESERVE}.instanceType: 'm7i.xlarg' is not in Karpenter's instance-type list (v1.14); did you mean "
        "'m7i.xlarge' or 'm7i.8xlarge' or 'm7i.4xlarge'?; allowed: an EC2 instance type Karpenter launches"]
    assert problems(pool(architectures=["arm64"]), launch()) == [
        f"{RESERVE}.instanceType: 'm7i.xlarge' is not a type node pool 'event' can launch (its instanceCategories, "
        "architectures and requirements leave it out), so Karpenter would never use the reservation; allowed: a type "
        "the pool launches, such as m7g.xlarge, m7gd.xlarge, m7g.8xlarge, or a pool that allows m7i.xlarge"]


def test_zones_must_be_known_of_the_region_and_where_the_pool_launches():
    (none,) = problems(pool(), launch({"availabilityZones": None}))
    assert none.startswith(f"{RESERVE}: no availabilityZones, and node pool 'event' has no topology.kubernetes.io/zone "
                           "In requirement to take them from")
    assert problems(pool(requirements=[ZONE_A]), launch({"availabilityZones": ["us-east-1a", "ap-northeast-2c"]})) == [
        f"{RESERVE}.availabilityZones[0]: 'us-east-1a' is not a zone of the stack's region 'ap-northeast-2' "
        "(aws:region); allowed: a zone such as ap-northeast-2a",
        f"{RESERVE}.availabilityZones[1]: 'ap-northeast-2c' is outside the zones node pool 'event' launches in "
        "(requirements[0] (topology.kubernetes.io/zone In ap-northeast-2a)), so the reservation there would never be "
        "used; allowed: a zone the pool's requirements allow"]
    assert problems(pool(), launch({"availabilityZones": ["us-east-1a"]}), region=None) == []  # a library program


def test_more_instances_than_are_launched_into_are_refused_as_paid_unused():
    static = pool(strategy="static", limits={"nodes": 40}, requirements=[M7I, ZONE_A])
    assert problems(static, launch({"availabilityZones": None, "count": 6})) == [
        f"{RESERVE}.count: 6 reservations on static node pool 'event', whose window holds 4 nodes: Karpenter launches "
        "exactly those, so 2 reservations would be billed and never used; allowed: at most 4 (reserve.count), or more "
        "nodes"]
    assert problems(pool(limits={"cpu": "12"}), launch()) == [
        f"{RESERVE}: 4 × m7i.xlarge (16 vCPUs) is above the limit cpu '12' of node pool 'event', {UNUSED}; allowed: "
        "at most 3 instances (reserve.count), or a higher cpu limit"]
    assert problems(pool(limits={"cpu": "100", "nodes": 3}), launch({"count": 5})) == [
        f"{RESERVE}.count: 5 × m7i.xlarge (5 nodes) is above the limit nodes 3 of node pool 'event', {UNUSED}; "
        "allowed: at most 3 instances (reserve.count), or a higher nodes limit"]


def test_a_type_too_small_for_the_placeholder_is_refused_unless_the_sizes_were_refused():
    big = {"placeholders": {"nodeSize": {"cpu": "8", "memory": "16Gi"}}}
    assert problems(pool(), launch(), **big) == [
        f"{RESERVE}.instanceType: m7i.xlarge (4 vCPU, 16Gi; 3920m CPU and 14162Mi allocatable) cannot hold a "
        "placeholder of the window's nodeSize (8 CPU, 16Gi), so its nodes could not be the reserved ones; allowed: a "
        "type with at least that much allocatable, or a smaller nodeSize"]
    assert problems(pool(), launch(), Refused(sections=frozenset({"placeholders"})), **big) == []


def test_a_window_on_a_pool_that_is_unknown_or_refused_is_left_to_its_own_rule():
    assert problems(pool(), launch(nodePool="other", start="0 18 * * *", end="0 20 * * *")) == []
    refused = Refused(node_pools=frozenset({0}), pool_names=frozenset({"event"}))
    window = launch(start="0 18 * * *", end="0 20 * * *")  # refused on any pool it could be on
    config = CapacityConfig.model_validate({"eventWindows": [window]}, context={STRATEGIES_CONTEXT: STRATEGIES})
    assert reservation_problems(config, refused, REGION) == []
