"""The addresses a new VPC gives the nodes (:mod:`prescale.model.checks.addresses`), called directly: a ``vpcCidr``
that cannot be split into its zones' subnets, and private subnets too small for a pool's busiest moment, are refused
with a VPC that would do; a tight fit, a VPC of the user's own and pools on subnets of their own are not this
module's to refuse (the capacity wing checks looked-up subnets at preview)."""

import pytest
from prescale.model.checks.addresses import planned_address_problems, vpc_cidr_problems
from prescale.model.config import STRATEGIES_CONTEXT, StackConfig
from prescale.model.strategies import STRATEGIES

from tests.support.capacity import NOW, pool, window

MORNING = window("morning", "0 8 * * *", "0 11 * * *", nodes=10)  # 07:50-11:00 KST with its lead time
LUNCH = window("lunch", "15 11 * * *", "30 11 * * *", nodes=5)
EXISTING_VPC = {"vpcId": "vpc-0123456789abcdef0",
                "privateSubnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]}
MORNING_REFUSED = (
    "prescale:cluster.vpcCidr: '10.0.0.0/24' with availabilityZones 3: node pool 'event': at least 200 addresses are "
    "held from Mon 2026-11-30 22:50 UTC (07:50 KST in Asia/Seoul) by window 'morning' (eventWindows[0], 10 nodes) "
    "under the VPC CNI's defaults, where WARM_ENI_TARGET=1 keeps a spare network interface of addresses on each node "
    "('morning' 200: 20 per node, 2 interfaces × 10 addresses on a c3.large (no type of the pool holding a "
    "placeholder has fewer)), more than the 177 free in the subnets prescale creates from vpcCidr (10.0.0.0/26: 59, "
    "10.0.0.64/26: 59, 10.0.0.128/26: 59; 177 free in all); allowed: a vpcCidr of /23 or larger, more "
    "availabilityZones, or fewer nodes at once")


def stack(cluster: dict, windows: tuple[dict, ...] = (MORNING,), **settings) -> StackConfig:
    """A stack as its models validate it, without the cross-key rules (which would refuse what is tested here)."""
    return StackConfig.model_validate(
        {"region": "ap-northeast-2", "cluster": {"name": "shop", **cluster},
         "nodePools": [pool(instanceCategories=["c", "m"], **settings)], "eventWindows": list(windows)},
        context={STRATEGIES_CONTEXT: STRATEGIES})


def test_the_default_vpc_splits_and_holds_the_busiest_moment():
    config = stack({})
    assert vpc_cidr_problems(config) == []
    assert planned_address_problems(config, NOW) == []


@pytest.mark.parametrize("cidr, zones, problem", [
    ("10.0.0.0/26", 6, "prescale:cluster.vpcCidr: '10.0.0.0/26' with availabilityZones 6: VPC CIDR 10.0.0.0/26 is too "
                       "small for 6 zones: public subnets would be /32, smaller than the /28 AWS allows; allowed: a "
                       "vpcCidr of /22 or larger"),
    ("fd00::/56", 3, "prescale:cluster.vpcCidr: 'fd00::/56' with availabilityZones 3: VPC CIDR fd00::/56 must be "
                     "IPv4; allowed: an IPv4 vpcCidr such as \"10.0.0.0/16\" (AWS allows /16 at most), or subnets of "
                     "your own (vpcId and privateSubnetIds)"),
])
def test_a_vpc_cidr_that_cannot_be_split_into_its_zones_subnets_is_refused_with_what_would_split(cidr, zones, problem):
    assert vpc_cidr_problems(stack({"vpcCidr": cidr, "availabilityZones": zones})) == [problem]


def test_private_subnets_too_small_for_the_busiest_moment_are_refused_with_a_vpc_large_enough():
    config = stack({"vpcCidr": "10.0.0.0/24"})
    assert vpc_cidr_problems(config) == []  # it splits; its subnets are too small
    assert planned_address_problems(config, NOW) == [MORNING_REFUSED]


def test_a_tight_fit_is_left_to_the_preview():
    """5 nodes hold 100 of the 177 free addresses: said at preview with the subnets' real counts, not refused."""
    assert planned_address_problems(stack({"vpcCidr": "10.0.0.0/24"}, (LUNCH,)), NOW) == []


def test_subnets_prescale_does_not_create_are_not_counted_here():
    """A VPC of the user's own, an existing cluster, and a pool on subnets of its own: their sizes are unknown
    before a preview looks them up, however small vpcCidr is."""
    assert vpc_cidr_problems(stack({"vpcCidr": "10.0.0.0/26", "availabilityZones": 6, **EXISTING_VPC})) == []
    assert planned_address_problems(stack({"vpcCidr": "10.0.0.0/24", **EXISTING_VPC}), NOW) == []
    new = stack({"vpcCidr": "10.0.0.0/24"})
    existing = new.model_copy(update={"cluster": new.cluster.model_copy(update={"create": False})})
    assert vpc_cidr_problems(existing) == [] and planned_address_problems(existing, NOW) == []
    own_subnets = stack({"vpcCidr": "10.0.0.0/24"}, subnetSelectorTerms=[{"tags": {"tier": "events"}}])
    assert planned_address_problems(own_subnets, NOW) == []
