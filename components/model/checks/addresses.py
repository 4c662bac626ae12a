"""Addresses the nodes cannot have: a new VPC that cannot be split into its zones' subnets, or subnets that cannot
hold a pool's busiest moment (refused where certain, said where tight). The counts are
:mod:`prescale.model.fleet.addresses`', asked of the plan (:meth:`~prescale.model.plan.CapacityPlan.address_demand`);
the busiest moment's fit is :func:`prescale.model.shortfall.address_shortfall`, which the capacity wing runs again
at preview on the subnets it looks up. Rules and sources:
docs/capacity.md#addresses.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime

from ..config import CONFIG_NAMESPACE, StackConfig
from ..fleet.addresses import (
    plan_subnets,
    planned_subnets,
    selector_groups,
    usable_addresses,
)
from ..shortfall import address_shortfall
from ..windows import address_demand, plan_windows


def vpc_cidr_problems(config: StackConfig) -> list[str]:
    """The VPC a new cluster gets must split into its zones' subnets
    (:func:`prescale.model.fleet.addresses.plan_subnets`)."""
    cluster = config.cluster
    if not cluster.create or cluster.vpc_id is not None:
        return []
    try:
        plan_subnets(cluster.vpc_cidr, cluster.availability_zones)
    except ValueError as error:
        larger = _larger_vpc(cluster.vpc_cidr, cluster.availability_zones)
        return [f"{CONFIG_NAMESPACE}:cluster.vpcCidr: {cluster.vpc_cidr!r} with availabilityZones "
                f"{cluster.availability_zones}: {error}; allowed: {larger}"]
    return []


def planned_address_problems(config: StackConfig, now: datetime) -> list[str]:
    """A VPC prescale creates must hold the busiest moment of the pools that launch into it (by the discovery tag):
    its private subnets' sizes are known before anything exists, and its VPC CNI runs with EKS's defaults. Every
    window counts, armed now or later, as the plan holds it (planning is pure, and cheap beside validation).
    """
    cluster = config.cluster
    pools = selector_groups(config.node_pools).get(None)
    if not cluster.create or cluster.vpc_id is not None or not pools:
        return []
    subnets = planned_subnets(plan_subnets(cluster.vpc_cidr, cluster.availability_zones).private)
    names = [pool.name for pool in pools]
    windows = address_demand(plan_windows(config, now), {pool.name: pool for pool in config.node_pools}, names,
                             prefixes=cluster.auto_mode)
    shortfall = address_shortfall(names, subnets, windows, now, defaults_certain=not cluster.auto_mode,
                                  prefixes=cluster.auto_mode)
    if shortfall is None or not shortfall.refused:
        return []  # a tight fit is said at preview, with the same numbers
    return [f"{CONFIG_NAMESPACE}:cluster.vpcCidr: {cluster.vpc_cidr!r} with availabilityZones "
            f"{cluster.availability_zones}: {shortfall.message}; allowed: "
            f"{_larger_vpc(cluster.vpc_cidr, cluster.availability_zones, shortfall.needed)}, more availabilityZones, "
            "or fewer nodes at once"]


def _larger_vpc(cidr: str, zones: int, needed: int = 0) -> str:
    """The smallest VPC at ``cidr``'s address (AWS allows /16 to /28) whose private subnets offer ``needed``."""
    network = ipaddress.ip_network(cidr)
    if network.version == 4:
        for prefix in range(min(network.prefixlen, 28), 15, -1):
            try:
                private = plan_subnets(str(ipaddress.ip_network((network.network_address, prefix), strict=False)),
                                       zones).private
            except ValueError:
                continue
            if sum(map(usable_addresses, private)) >= needed:
                return f"a vpcCidr of /{prefix} or larger"
    return ("an IPv4 vpcCidr such as \"10.0.0.0/16\" (AWS allows /16 at most), or subnets of your own (vpcId and "
            "privateSubnetIds)")
