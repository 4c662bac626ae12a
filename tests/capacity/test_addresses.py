"""Addresses for the nodes: what a pool's windows hold in its subnets at their busiest, and the checks on it.

The arithmetic (``prescale.model.fleet.addresses``, counted by the plan) against the VPC CNI's own examples; the
config check of a VPC prescale creates (``prescale:cluster.vpcCidr``); and the preview check of looked-up subnets in
the capacity wing, under mocks that answer ``aws.ec2.get_subnets`` / ``get_subnet`` with as few free addresses as a
test needs.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from prescale.capacity import deploy_capacity
from prescale.contract import AUTO_MODE_NODE_CLASSES, NodeNetwork, Platform
from prescale.model.config import EventWindow
from prescale.model.fleet.addresses import (
    Subnets,
    WindowAddresses,
    busiest,
    held_by_node,
    planned_subnets,
    selector_groups,
)
from prescale.model.fleet.instances import instance_type
from prescale.model.plan import plan_capacity
from prescale.model.shortfall import address_shortfall
from prescale.model.validation import ConfigError
from prescale.model.windows import IdleWindow
from prescale.offline import OfflineMocks, evaluate, fake_invoke

from tests.support.capacity import (
    M7I,
    NODE_CLASS,
    NODE_POOL,
    ZONE_A,
    as_object,
    pool,
    stack_config,
    stand_in_platform,
    window,
)

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
GET_SUBNETS, GET_SUBNET = "aws:ec2/getSubnets:getSubnets", "aws:ec2/getSubnet:getSubnet"
MORNING = window("morning", "0 8 * * *", "0 11 * * *", nodes=10)  # 07:50-11:00 KST with its lead time
LUNCH = window("lunch", "15 11 * * *", "30 11 * * *", nodes=5)  # 11:05-11:30: touches neither
LATE = window("late", "0 10 * * *", "0 12 * * *", nodes=3)  # 09:50-12:00: overlaps both


def instance(name: str):
    found = instance_type(name)
    assert found is not None, name
    return found


# --- the VPC CNI's arithmetic ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name, pods, interfaces", [
    # aws/amazon-vpc-cni-k8s docs/eni-and-ip-target.md, WARM_ENI_TARGET=1: attached ENIs for so many pods.
    ("t3.small", 0, 1), ("t3.small", 5, 3), ("t3.small", 9, 3),
    ("p3dn.24xlarge", 0, 1), ("p3dn.24xlarge", 3, 2), ("p3dn.24xlarge", 95, 3),
])
def test_a_node_holds_a_spare_interface_of_addresses_as_the_cni_documents(name, pods, interfaces):
    node = instance(name)
    assert held_by_node(node, pods) == interfaces * node.ipv4_per_interface


def test_auto_mode_holds_the_nodes_own_address_and_a_prefix_per_16_pods():
    node = instance("m5.large")
    assert [held_by_node(node, pods, prefixes=True) for pods in (0, 1, 16, 17)] == [1, 17, 17, 33]


def demand(windows: list[dict], raw_pool: dict | None = None, prefixes: bool = False,
           **more) -> list[WindowAddresses]:
    """What the plan of a one-pool stack counts for its windows."""
    return plan_capacity(stack_config([raw_pool or pool()], windows, NOW, **more), NOW).address_demand(["event"],
                                                                                                        prefixes)


def test_a_nodes_window_holds_two_interfaces_on_each_node_of_the_type_with_the_fewest():
    (held,) = demand([MORNING], pool(instanceCategories=["c", "m"]))
    assert (held.nodes, held.least, held.expected) == (10, 20, 200)  # 1 CPU / 2Gi fits a large: 10 per interface
    assert held.basis == ("20 per node, 2 interfaces × 10 addresses on a c3.large (no type of the pool holding a "
                          "placeholder has fewer)")
    large = {"nodeSize": {"cpu": "30", "memory": "32Gi"}}  # needs 32 vCPUs: 8xlarge types, 30 per interface
    assert demand([MORNING], pool(instanceCategories=["c", "m"]), placeholders=large)[0].expected == 600


def test_a_capacity_windows_packed_placeholders_hold_the_fewest_addresses_any_type_holds_them_at():
    (held,) = demand([window("sale", "0 10 * * *", "0 12 * * *", capacity={"cpu": "64", "memory": "256Gi"})])
    assert (held.nodes, held.least) == (1, 17)  # 16 placeholders of 4 CPU / 16Gi fit one large node
    # The largest types hold 2 or 3 interfaces of 64 addresses for 63 or 95 placeholders: 2.03 each at best.
    assert held.expected == 33
    assert held.basis == "95 placeholders per r8i.96xlarge at best, 3 interfaces × 64 addresses"


def test_the_plan_counts_the_windows_of_the_pools_asked_with_their_config_indexes_armed_or_every_one():
    # A one-off more than a year ahead is not armed yet: validation counts it (a later `up` deploys it), the
    # preview's check of what this run deploys does not; a window on another pool is not counted for "event".
    far = window("far", "2028-03-02T09:00", "2028-03-02T12:00", nodes=4)
    windows = [MORNING, window("other", "0 8 * * *", "0 9 * * *", node_pool="batch"), far]
    plan = plan_capacity(stack_config([pool(), pool("batch")], windows, NOW), NOW)
    assert isinstance(plan.window("far"), IdleWindow)
    assert [(held.index, held.window.name, held.nodes) for held in plan.address_demand(["event"], False)] == \
        [(0, "morning", 10), (2, "far", 4)]
    assert [held.window.name for held in plan.address_demand(["event"], False, armed_only=True)] == ["morning"]
    assert [held.window.name for held in plan.address_demand(["event", "batch"], True, armed_only=True)] == \
        ["morning", "other"]


def test_pools_that_select_the_same_subnets_are_checked_together():
    config = stack_config([pool("a"), pool("b"), pool("c", subnetSelectorTerms=[{"id": "subnet-0a"}]),
                           pool("d", subnetSelectorTerms=[{"id": "subnet-0a"}]), pool("e", nodeClassName="mine"),
                           {"name": "f", "existing": True}], [], NOW)
    groups = {key: [p.name for p in pools] for key, pools in selector_groups(config.node_pools).items()}
    assert groups == {None: ["a", "b"], '[{"id": "subnet-0a"}]': ["c", "d"]}  # e, f: their node classes are not ours


# --- the busiest moment ----------------------------------------------------------------------------------------

def held(index: int, name: str, least: int, expected: int) -> WindowAddresses:
    event = EventWindow.model_validate({**window(name, "0 8 * * *", "0 9 * * *"), "nodePool": "event"})
    return WindowAddresses(index, event, least // 2, least, expected, "")


def test_windows_open_at_once_add_up_and_touching_ones_do_not():
    windows = [held(0, "a", 2, 20), held(1, "b", 4, 40), held(2, "c", 6, 60)]
    spans = {0: [(0, 100)], 1: [(100, 200)], 2: [(50, 150), (300, 400)]}  # a ends as b opens
    moment = busiest(windows, spans, lambda w: w.expected)
    assert (moment.instant, [w.window.name for w in moment.windows], moment.expected) == (100, ["c", "b"], 100)
    assert busiest(windows, {}, lambda w: w.expected) is None


# --- refused, said, or fine ------------------------------------------------------------------------------------

def shortfall(free_each: int, *windows: dict, certain: bool = False, prefixes: bool = False):
    found = demand(list(windows), pool(instanceCategories=["c", "m"]), prefixes)
    subnets = Subnets("tagged karpenter.sh/discovery: shop", (("subnet-0a in zone-a", free_each),
                                                               ("subnet-0b in zone-b", free_each)))
    return address_shortfall(["event"], subnets, found, NOW, defaults_certain=certain, prefixes=prefixes)


def test_room_for_twice_the_busiest_moment_is_fine():
    assert shortfall(260, MORNING, LUNCH, LATE) is None  # 260 held at most (morning + late), 520 free


def test_more_than_half_of_the_free_addresses_at_once_is_said_with_the_instant_and_the_windows():
    found = shortfall(200, MORNING, LUNCH, LATE)
    assert not found.refused and found.needed == 260
    assert found.message == (
        "node pool 'event': at least 260 addresses are held from Tue 2026-12-01 00:50 UTC (09:50 KST in Asia/Seoul) by "
        "windows 'morning' (eventWindows[0], 10 nodes) and 'late' (eventWindows[2], 3 nodes) under the VPC CNI's "
        "defaults, where WARM_ENI_TARGET=1 keeps a spare network interface of addresses on each node ('morning' 200 "
        "and 'late' 60: 20 per node, 2 interfaces × 10 addresses on a c3.large (no type of the pool holding a "
        "placeholder has fewer)), 65% of the 400 free in the subnets tagged karpenter.sh/discovery: shop (subnet-0a "
        "in zone-a: 200, subnet-0b in zone-b: 200; 400 free in all), leaving little for other nodes and pods (and "
        "Karpenter may put every node in one zone's subnet)")


def test_more_than_the_free_addresses_under_uncertain_defaults_is_said_and_refused_only_below_the_least():
    found = shortfall(100, MORNING, LATE)  # 260 under the defaults, 26 at the least (13 nodes and placeholders)
    assert not found.refused and found.message.endswith(
        "more than the 200 free in the subnets tagged karpenter.sh/discovery: shop (subnet-0a in zone-a: 100, "
        "subnet-0b in zone-b: 100; 200 free in all): those nodes will lack pod addresses unless the VPC CNI is set to "
        "hold fewer (WARM_IP_TARGET, MINIMUM_IP_TARGET)")
    found = shortfall(12, MORNING, LATE)
    assert found.refused and found.needed == 26
    assert "by windows 'morning' (eventWindows[0], 10 nodes) and 'late' (eventWindows[1], 3 nodes) whatever the " \
        "networking's settings (one per node and one per placeholder; 260 under the VPC CNI's defaults" in found.message
    assert found.message.endswith("more than the 24 free in the subnets tagged karpenter.sh/discovery: shop "
                                  "(subnet-0a in zone-a: 12, subnet-0b in zone-b: 12; 24 free in all)")


def test_certain_defaults_are_refused_as_soon_as_they_do_not_fit():
    found = shortfall(100, MORNING, LATE, certain=True)
    assert found.refused and found.needed == 260
    assert shortfall(130, MORNING, LATE, certain=True).refused is False  # exactly all of them: tight, not refused


def test_auto_mode_counts_prefixes_and_names_its_fallback():
    found = shortfall(100, MORNING, LATE, prefixes=True)  # 13 nodes × 17
    assert not found.refused and found.needed == 221
    assert "under EKS Auto Mode's networking, which takes /28 prefixes of 16 addresses ('morning' 170 and 'late' " \
        "51: 17 per node, its own address and a /28 prefix)" in found.message
    assert found.message.endswith("unless Auto Mode falls back to single addresses")


# --- a VPC prescale creates: refused with the config ------------------------------------------------------------

def refused_vpc(cidr: str, zones: int = 3, *windows: dict, auto_mode: bool = False) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config([pool(instanceCategories=["c", "m"])], list(windows or [MORNING]), NOW,
                     cluster={"name": "shop", "vpcCidr": cidr, "availabilityZones": zones, "autoMode": auto_mode})
    return caught.value.problems


def test_a_new_vpc_too_small_for_the_busiest_moment_is_refused_with_a_vpc_that_fits():
    problems = refused_vpc("10.0.0.0/24")
    assert problems == [
        "prescale:cluster.vpcCidr: '10.0.0.0/24' with availabilityZones 3: node pool 'event': at least 200 addresses "
        "are held from Mon 2026-11-30 22:50 UTC (07:50 KST in Asia/Seoul) by window 'morning' (eventWindows[0], 10 "
        "nodes) under the VPC CNI's defaults, where WARM_ENI_TARGET=1 keeps a spare network interface of addresses on "
        "each node ('morning' 200: 20 per node, 2 interfaces × 10 addresses on a c3.large (no type of the pool "
        "holding a placeholder has fewer)), more than the 177 free in the subnets prescale creates from vpcCidr "
        "(10.0.0.0/26: "
        "59, 10.0.0.64/26: 59, 10.0.0.128/26: 59; 177 free in all); allowed: a vpcCidr of /23 or larger, more "
        "availabilityZones, or fewer nodes at once"]
    stack_config([pool(instanceCategories=["c", "m"])], [LUNCH], NOW,
                 cluster={"name": "shop", "vpcCidr": "10.0.0.0/24"})  # 100 of 177: fits (said at preview)


def test_on_auto_mode_a_new_vpc_is_refused_only_below_the_least():
    assert refused_vpc("10.0.0.0/24", 3, window("huge", "0 8 * * *", "0 9 * * *", nodes=100), auto_mode=True)[0] \
        .startswith("prescale:cluster.vpcCidr: '10.0.0.0/24' with availabilityZones 3: node pool 'event': at least "
                    "200 addresses are held from Tue 2026-12-01 22:50 UTC (07:50 KST in Asia/Seoul) by window 'huge' "
                    "(eventWindows[0], 100 nodes) whatever the networking's settings")
    stack_config([pool(instanceCategories=["c", "m"])], [MORNING], NOW,
                 cluster={"name": "shop", "vpcCidr": "10.0.0.0/24", "autoMode": True})  # 170 by prefixes, 20 least


@pytest.mark.parametrize("cidr, zones, problem", [
    ("10.0.0.0/26", 6, "prescale:cluster.vpcCidr: '10.0.0.0/26' with availabilityZones 6: VPC CIDR 10.0.0.0/26 is "
                       "too small for 6 zones: public subnets would be /32, smaller than the /28 AWS allows; allowed: "
                       "a vpcCidr of /22 or larger"),
    ("fd00::/56", 3, "prescale:cluster.vpcCidr: 'fd00::/56' with availabilityZones 3: VPC CIDR fd00::/56 must be "
                     "IPv4; allowed: an IPv4 vpcCidr such as \"10.0.0.0/16\""),
])
def test_a_vpc_cidr_that_cannot_be_split_into_the_zones_subnets_is_refused(cidr, zones, problem):
    assert refused_vpc(cidr, zones)[0].startswith(problem)


def test_the_planned_subnets_offer_all_but_the_five_addresses_aws_keeps():
    assert planned_subnets(["10.0.0.0/26", "10.0.0.64/28"]).free == (("10.0.0.0/26", 59), ("10.0.0.64/28", 11))


# --- subnets looked up at preview ------------------------------------------------------------------------------

class FewAddresses(OfflineMocks):
    """The offline account with ``free`` addresses in each subnet, recording every invoke."""

    def __init__(self, free: int = 4000, found: bool = True):
        super().__init__()
        self.free, self.found, self.calls = free, found, []

    def call(self, args):
        self.calls.append((args.token, args.args))
        answer = super().call(args)
        if args.token == GET_SUBNET:
            return {**answer, "availableIpAddressCount": self.free}
        if args.token == GET_SUBNETS and not self.found:
            return {**answer, "ids": []}
        return answer

    def filters(self) -> list[list[dict]]:
        return [args["filters"] for token, args in self.calls if token == GET_SUBNETS]


def preview(mocks: OfflineMocks, windows: list[dict], pools: list[dict] | None = None,
            platform=stand_in_platform):
    config = stack_config(pools or [pool(instanceCategories=["c", "m"])], windows, NOW)
    return evaluate(lambda: deploy_capacity(config, platform(), NOW), mocks=mocks)


def test_the_mock_account_answers_subnet_lookups_like_ec2():
    mocks = OfflineMocks()
    found = fake_invoke(mocks, GET_SUBNETS, {"filters": [{"name": "tag:karpenter.sh/discovery", "values": ["x"]}]})
    assert found["ids"] == ["subnet-0offlinea", "subnet-0offlineb", "subnet-0offlinec"]
    assert fake_invoke(mocks, GET_SUBNETS, {"filters": [{"name": "subnet-id", "values": ["subnet-1"]}]})["ids"] == \
        ["subnet-1"]
    subnet = fake_invoke(mocks, GET_SUBNET, {"id": "subnet-0offlinea"})
    assert subnet["availableIpAddressCount"] == 4000 and subnet["availabilityZone"].startswith("ap-northeast-2")


def test_the_discovery_subnets_are_looked_up_by_the_clusters_tag_and_a_tight_fit_is_said():
    mocks = FewAddresses(free=130)  # 390 free, 260 held by morning and late
    evaluation = preview(mocks, [MORNING, LUNCH, LATE])
    assert mocks.filters() == [[{"name": "tag:karpenter.sh/discovery", "values": ["prescale-test"]}]]
    # Each subnet is asked for once; the SDK runs the lookups on its own threads, in no fixed order.
    assert sorted(args["id"] for token, args in mocks.calls if token == GET_SUBNET) == \
        ["subnet-0offlinea", "subnet-0offlineb", "subnet-0offlinec"]
    said = [w for w in evaluation.warnings if w.startswith("node pool 'event'")]
    assert len(said) == 1 and "at least 260 addresses are held" in said[0]
    assert said[0].endswith("66% of the 390 free in the subnets tagged karpenter.sh/discovery: prescale-test "
                            "(subnet-0offlinea in ap-northeast-2c: 130, subnet-0offlineb in ap-northeast-2a: 130, "
                            "subnet-0offlinec in ap-northeast-2b: 130; 390 free in all), leaving little for other "
                            "nodes and pods (and Karpenter may put every node in one zone's subnet)")
    spec = as_object(evaluation.named(NODE_CLASS, "event-node-class"))["spec"]
    assert spec["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "prescale-test"}}]


def test_plenty_of_free_addresses_say_nothing():
    evaluation = preview(FewAddresses(), [MORNING, LUNCH, LATE])
    assert not [w for w in evaluation.warnings if w.startswith("node pool")]


def test_selector_terms_are_looked_up_as_karpenter_filters_them():
    mocks = FewAddresses()
    terms = [{"tags": {"tier": "private", "team": "*"}}, {"id": "subnet-0a1b2c3d"}, {"id": "subnet-0d3c2b1a"}]
    preview(mocks, [MORNING], [pool(instanceCategories=["c", "m"], subnetSelectorTerms=terms)])
    assert mocks.filters() == [[{"name": "tag:tier", "values": ["private"]}, {"name": "tag-key", "values": ["team"]}],
                               [{"name": "subnet-id", "values": ["subnet-0a1b2c3d", "subnet-0d3c2b1a"]}]]


def refusal(mocks: OfflineMocks, windows: list[dict], **preview_args) -> str:
    """The address check's message, which the run fails with: the SDK words it as the error of the pool's input."""
    with pytest.raises(ValueError) as caught:
        preview(mocks, windows, **preview_args)
    message = str(caught.value)  # its futures are left to a later collection: tests/platform/test_cluster.py refusal()
    assert message.startswith("While processing resource: 'event', type: 'prescale:index:EventNodePool'\n"
                              "ValueError has risen: While processing input: 'addressesChecked'")
    return message.rsplit("has risen: ", 1)[1]


def test_subnets_that_can_never_hold_the_busiest_moment_stop_the_run_before_the_pools_node_class():
    mocks = FewAddresses(free=8)  # 24 free; 26 at the least
    message = refusal(mocks, [MORNING, LATE])
    assert message.startswith("node pool 'event': at least 26 addresses are held from Tue 2026-12-01 00:50 UTC")
    assert message.endswith("more than the 24 free in the subnets tagged karpenter.sh/discovery: prescale-test "
                            "(subnet-0offlinea in ap-northeast-2c: 8, subnet-0offlineb in ap-northeast-2a: 8, "
                            "subnet-0offlinec in ap-northeast-2b: 8; 24 free in all); allowed: fewer nodes at once, "
                            "or subnets with at least 26 free addresses (docs/capacity.md#addresses)")
    registered = {r.type for r in mocks.registrations}
    assert "prescale:index:EventNodePool" not in registered and NODE_CLASS not in registered
    assert NODE_POOL not in registered


def test_no_subnet_found_is_said_and_nothing_is_counted():
    evaluation = preview(FewAddresses(found=False), [MORNING])
    assert "node pool 'event': no subnet is tagged karpenter.sh/discovery: prescale-test yet, so their nodes cannot " \
        "launch until one is; their addresses were not checked" in evaluation.warnings


def platform_with(network: NodeNetwork, **more):
    def build() -> Platform:
        base = stand_in_platform()
        return Platform(**{**base.__dict__, "node_network": network, **more})
    return build


def test_a_vpc_this_run_creates_is_counted_from_its_plan_without_a_lookup():
    mocks = FewAddresses()
    network = NodeNetwork(cni_defaults=True, discovery_subnet_cidrs=["10.0.0.0/26", "10.0.0.64/26", "10.0.0.128/26"])
    evaluation = preview(mocks, [LUNCH], platform=platform_with(network))
    assert GET_SUBNETS not in {token for token, _ in mocks.calls}
    said = [w for w in evaluation.warnings if w.startswith("node pool 'event'")]
    assert len(said) == 1 and "at least 100 addresses are held" in said[0]
    assert "56% of the 177 free in the subnets prescale creates from vpcCidr (10.0.0.0/26: 59, 10.0.0.64/26: 59, " \
        "10.0.0.128/26: 59; 177 free in all)" in said[0]


def test_subnets_this_run_tags_are_looked_up_by_id_and_certain_defaults_refuse():
    mocks = FewAddresses(free=100)  # 200 free; morning and late hold 260 under the defaults, certain here
    given = ["subnet-0aaaaaaaaaaaaaaa1", "subnet-0aaaaaaaaaaaaaaa2"]
    network = NodeNetwork(cni_defaults=True, discovery_subnet_ids=given)
    assert "and 'late' (eventWindows[1], 3 nodes) under the VPC CNI's defaults" in \
        refusal(mocks, [MORNING, LATE], platform=platform_with(network))
    assert mocks.filters() == [[{"name": "subnet-id", "values": given}]]


def test_auto_modes_node_class_waits_for_the_check_too():
    mocks = FewAddresses(free=8)
    assert "under EKS Auto Mode's networking" in refusal(
        mocks, [MORNING, LATE], platform=platform_with(NodeNetwork(), node_classes=AUTO_MODE_NODE_CLASSES))
    assert "kubernetes:eks.amazonaws.com/v1:NodeClass" not in {r.type for r in mocks.registrations}


def test_a_static_pools_window_node_pools_wait_for_its_check_too():
    mocks = FewAddresses(free=8)
    static = pool(strategy="static", limits={"nodes": 40}, requirements=[*M7I, ZONE_A])
    with pytest.raises(ValueError, match="allowed: fewer nodes at once"):
        preview(mocks, [MORNING, LATE], pools=[static])
    assert NODE_POOL not in {r.type for r in mocks.registrations}
    assert NODE_CLASS not in {r.type for r in mocks.registrations}


def test_a_one_off_not_armed_yet_is_not_counted_by_the_preview_though_its_event_falls_in_the_year():
    # 2027-12-01 09:00 KST is inside the year the check walks (366 days from now), but its dated crons would fire
    # today: it is idle, deployed by a later `up`, so this run's subnets are not checked for its 60 nodes.
    far = window("far", "2027-12-01T09:00", "2027-12-01T12:00", nodes=60)
    config = stack_config([pool(instanceCategories=["c", "m"])], [MORNING, far], NOW)
    assert isinstance(plan_capacity(config, NOW).window("far"), IdleWindow)
    evaluation = preview(FewAddresses(free=400), [MORNING, far])  # 1200 free: morning's 200 fit, with far's 1400 not
    assert not [w for w in evaluation.warnings if w.startswith("node pool")]
