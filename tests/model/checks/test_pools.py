"""Node pools that could never launch what they say (:func:`prescale.model.checks.pools.pool_problems`), called
directly: a key given twice, labels of the other kind of Karpenter, reservations selected but never launched into or
reserved capacity asked for with none selected, and requirements that leave no instance type or too few for a
``minValues``; a pool with one problem is not also blamed for what follows from it, and a refused pool is checked
only while its requirements are known. (Through the loader, with the NodePool rendered: test_pool_requirements.py.)"""

import pytest
from prescale.model.checks.pools import pool_problems
from prescale.model.checks.refused import NOTHING_REFUSED, Partial, Refused
from prescale.model.config import STRATEGIES_CONTEXT, CapacityConfig, NodePoolConfig
from prescale.model.strategies import STRATEGIES

CONTEXT = {STRATEGIES_CONTEXT: STRATEGIES}
CAPACITY_TYPE, INSTANCE_TYPE = "karpenter.sh/capacity-type", "node.kubernetes.io/instance-type"
LAUNCH = {"name": "launch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "2027-03-02T18:00",
          "end": "2027-03-02T20:00", "nodes": 2,
          "reserve": {"instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a"]}}
NO_RESERVATION = ("asks for reserved capacity, but node pool 'event' has no capacityReservationSelectorTerms, so its "
                  "EC2NodeClass selects no reservation and Karpenter never launches reserved capacity (it does not "
                  "use open On-Demand Capacity Reservations unselected); allowed: capacityReservationSelectorTerms (an "
                  "id, or tags with an optional ownerID) beside it, a one-off window on the pool with reserve, or "
                  "only on-demand and spot")


def pool(name: str = "event", **settings) -> dict:
    return {"name": name, "limits": {"cpu": "100"}, **settings}


def req(key: str, operator: str, *values: str, **more) -> dict:
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {}), **more}


def capacity(pools: list[dict], windows: list[dict] | None = None) -> CapacityConfig:
    """Pools and windows as their models validate them, without the cross-key rules."""
    return CapacityConfig.model_validate({"nodePools": pools, "eventWindows": windows or []}, context=CONTEXT)


@pytest.mark.parametrize("auto_mode", [None, False])
def test_pools_that_can_launch_are_accepted(auto_mode):
    config = capacity([pool(), pool("spot-arm", capacityTypes=["spot", "on-demand"], architectures=["arm64"],
                                    instanceCategories=["c", "m"]),
                       pool("pinned", requirements=[req(INSTANCE_TYPE, "In", "m7i.xlarge", "m7i.2xlarge"),
                                                    req("topology.kubernetes.io/zone", "In", "ap-northeast-2a")]),
                       pool("reserved", capacityTypes=["on-demand", "reserved"],
                            capacityReservationSelectorTerms=[{"id": "cr-0123456789abcdef0"}]),
                       pool("theirs", existing=True)])
    assert pool_problems(config, NOTHING_REFUSED, auto_mode) == []


def test_a_key_given_as_a_shorthand_and_as_a_requirement_is_refused_and_nothing_that_follows_from_it():
    """The two capacity-type requirements together leave nothing, and the type is unknown: both follow from the
    key written twice, so only that is said."""
    config = capacity([pool(capacityTypes=["spot"], requirements=[req(CAPACITY_TYPE, "In", "on-demand"),
                                                                  req(INSTANCE_TYPE, "In", "zz.large")])])
    assert pool_problems(config) == [
        "prescale:nodePools[0].requirements[0].key: 'karpenter.sh/capacity-type' is also given as capacityTypes "
        "['spot'], which is an In requirement on the same key; allowed: one of the two"]


def test_labels_of_the_other_kind_of_karpenter_are_refused_only_once_the_mode_is_known():
    self_managed = capacity([pool(requirements=[req("eks.amazonaws.com/instance-category", "In", "c")])])
    assert pool_problems(self_managed, NOTHING_REFUSED, False) == [
        "prescale:nodePools[0].requirements[0].key: 'eks.amazonaws.com/instance-category' is an EKS Auto Mode label, "
        "and this cluster runs its own Karpenter, which would take it for a label of your own and narrow nothing; "
        "allowed: karpenter.k8s.aws/instance-category"]
    auto = capacity([pool(requirements=[req("karpenter.k8s.aws/instance-category", "In", "c")])])
    (problem,) = pool_problems(auto, NOTHING_REFUSED, True)
    assert problem.startswith("prescale:nodePools[0].requirements[0].key: 'karpenter.k8s.aws/instance-category' is "
                              "not a label EKS Auto Mode supports (did you mean "
                              "'eks.amazonaws.com/instance-category'?)")
    assert pool_problems(self_managed, NOTHING_REFUSED, None) == pool_problems(auto, NOTHING_REFUSED, None) == []


def test_reservations_need_a_pool_that_launches_into_them_and_reserved_capacity_needs_a_reservation():
    assert pool_problems(capacity([pool(capacityTypes=["spot"],
                                        capacityReservationSelectorTerms=[{"id": "cr-0123456789abcdef0"}])])) == [
        "prescale:nodePools[0].capacityReservationSelectorTerms: [{'id': 'cr-0123456789abcdef0'}] select reservations "
        "that node pool 'event' never launches into: its capacityTypes ['spot'] leaves out reserved, and Karpenter "
        "launches into a capacity reservation only for a NodePool whose karpenter.sh/capacity-type allows reserved; "
        "allowed: add reserved (e.g. capacityTypes [on-demand, reserved]: the reservations first, on-demand beyond "
        "them), or no capacityReservationSelectorTerms"]
    reserved = pool(capacityTypes=["on-demand", "reserved"])
    assert pool_problems(capacity([reserved])) == [f"prescale:nodePools[0].capacityTypes: ['on-demand', 'reserved'] "
                                                   f"{NO_RESERVATION}"]
    written = pool(requirements=[req(CAPACITY_TYPE, "In", "reserved")])
    assert pool_problems(capacity([written])) == [f"prescale:nodePools[0].requirements[0].values: ['reserved'] "
                                                  f"{NO_RESERVATION}"]
    assert pool_problems(capacity([reserved], [LAUNCH])) == []  # the one-off's reserve selects one
    assert pool_problems(capacity([reserved]), Refused(event_windows=frozenset({0}))) == []  # a refused one may
    assert pool_problems(capacity([pool(capacityTypes=["on-demand", "reserved"], nodeClassName="default")])) == []


def test_requirements_that_leave_no_type_or_too_few_for_min_values_are_refused_naming_the_culprit():
    (emptied,) = pool_problems(capacity([pool(requirements=[req(INSTANCE_TYPE, "In", "M7i.xlarge")])]))
    assert emptied.startswith("prescale:nodePools[0].requirements[0]: {key: node.kubernetes.io/instance-type, "
                              "operator: In, values: ['M7i.xlarge']} leaves node pool 'event' no instance type to "
                              "launch: none of the ")
    assert emptied.endswith("allowed: values [m7i.xlarge] (did you mean them?), or a requirement some of them meet")
    few = capacity([pool(requirements=[req(INSTANCE_TYPE, "In", "m7i.xlarge", "m7i.2xlarge"),
                                       req("karpenter.k8s.aws/instance-family", "Exists", minValues=2)])])
    assert pool_problems(few) == [
        "prescale:nodePools[0].requirements[1].minValues: 2 is more than the 1 karpenter.k8s.aws/instance-family "
        "values node pool 'event' can launch (m7i, over all its requirements), so Karpenter (MIN_VALUES_POLICY "
        "Strict, its default) would launch nothing; allowed: at most 1, or requirements that leave more instance types"]


def test_a_pool_after_a_refused_one_keeps_its_index_and_the_refused_one_is_checked_while_its_shape_is_known():
    later = pool("later", capacityTypes=["on-demand", "reserved"])  # nodePools[1]; [0] was refused
    salvaged = NodePoolConfig.model_validate(pool("first", capacityTypes=["on-demand", "reserved"]), context=CONTEXT)

    def refused(keys: set[str]) -> Refused:
        return Refused(node_pools=frozenset({0}), pool_names=frozenset({"first"}),
                       partial={("node_pools", 0): Partial(salvaged, frozenset(keys))})

    blamed = [problem.split(":")[1] for problem in pool_problems(capacity([later]), refused({"consolidate_after"}))]
    assert blamed == ["nodePools[0].capacityTypes", "nodePools[1].capacityTypes"]
    blamed = [problem.split(":")[1] for problem in pool_problems(capacity([later]), refused({"requirements"}))]
    assert blamed == ["nodePools[1].capacityTypes"]


def test_a_not_in_requirement_leaving_only_reserved_capacity_needs_a_reservation():
    only_reserved = pool(requirements=[req(CAPACITY_TYPE, "NotIn", "on-demand", "spot")])
    (problem,) = pool_problems(capacity([only_reserved]))
    assert problem.startswith("prescale:nodePools[0].requirements[0]: requirements[0] (karpenter.sh/capacity-type "
                              "NotIn") and "leaves node pool 'event' only reserved capacity" in problem
    assert pool_problems(capacity([only_reserved], [LAUNCH])) == []  # the one-off's reserve selects one
    assert pool_problems(capacity([pool(requirements=[req(CAPACITY_TYPE, "NotIn", "spot")])])) == []
