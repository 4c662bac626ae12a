"""``prescale.model.checks.addresses``: a VPC prescale creates must hold its subnets and the windows' busiest
moment; an existing VPC's are counted at preview."""

from prescale.model.checks.addresses import planned_address_problems, vpc_cidr_problems

from tests.support.capacity import NOW, pool, stack_config, window

from .conftest import changed


def test_a_vpc_too_small_for_its_zones_names_the_size_that_fits(valid):
    small = changed(valid, cluster=changed(valid.cluster, vpc_cidr="10.0.0.0/26"))
    assert vpc_cidr_problems(small) == [
        "prescale:cluster.vpcCidr: '10.0.0.0/26' with availabilityZones 3: VPC CIDR 10.0.0.0/26 is too small for 3 "
        "zones: public subnets would be /30, smaller than the /28 AWS allows; allowed: a vpcCidr of /24 or larger"]
    assert vpc_cidr_problems(valid) == []


def test_an_existing_vpc_is_not_counted_here(valid):
    existing = changed(valid, cluster=changed(valid.cluster, vpc_cidr="10.0.0.0/26", vpc_id="vpc-0123456789abcdef0"))
    assert vpc_cidr_problems(existing) == [] and planned_address_problems(existing, NOW) == []


def test_a_busiest_moment_larger_than_the_planned_subnets_is_refused():
    crowded = stack_config([pool(limits={"cpu": "100000", "memory": "400000Gi"})],
                           [window("sale", "0 12 * * *", "0 13 * * *", nodes=1000)])
    small = changed(crowded, cluster=changed(crowded.cluster, vpc_cidr="10.0.0.0/22"))
    (problem,) = planned_address_problems(small, NOW)
    assert problem.startswith("prescale:cluster.vpcCidr: '10.0.0.0/22' with availabilityZones 3: node pool "
                              "'event': at least") and "allowed: a vpcCidr of /" in problem
    assert planned_address_problems(crowded, NOW) == []
