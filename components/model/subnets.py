"""A new VPC's subnet layout, and the addresses each subnet offers: pure, so the config checks can size it.

The platform's network (:mod:`prescale.platform.network`) creates exactly these subnets; the address checks
(:mod:`prescale.model.addresses`) read their sizes before anything exists. AWS keeps 5 addresses of every subnet
(the network address, the VPC router, DNS, one reserved for future use, and the broadcast address: Amazon VPC
User Guide, "Subnet CIDR blocks") and refuses subnets smaller than /28.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

RESERVED_PER_SUBNET = 5
SMALLEST_SUBNET_PREFIX = 28


@dataclass(frozen=True)
class SubnetPlan:
    """CIDR blocks for one VPC, index i of each list in availability zone i."""

    private: list[str]
    public: list[str]


def plan_subnets(vpc_cidr: str, zones: int) -> SubnetPlan:
    """Split ``vpc_cidr`` into ``zones`` large private and ``zones`` small public subnets, all disjoint.

    The VPC is cut into the fewest equal blocks that leave one spare (2 zones → 4, 3 → 4, 6 → 8); each zone's
    private subnet is one block, and the last block is cut again into the public subnets.
    """
    network = ipaddress.ip_network(vpc_cidr)
    if network.version != 4:
        raise ValueError(f"VPC CIDR {vpc_cidr} must be IPv4")
    if zones < 1:
        raise ValueError("need at least one availability zone")
    blocks = list(network.subnets(prefixlen_diff=math.ceil(math.log2(zones + 1))))
    public_prefix = blocks[-1].prefixlen + math.ceil(math.log2(zones))
    if public_prefix > SMALLEST_SUBNET_PREFIX:
        raise ValueError(f"VPC CIDR {vpc_cidr} is too small for {zones} zones: public subnets would be "
                         f"/{public_prefix}, smaller than the /{SMALLEST_SUBNET_PREFIX} AWS allows")
    public = list(blocks[-1].subnets(new_prefix=public_prefix))[:zones]
    return SubnetPlan(private=[str(b) for b in blocks[:zones]], public=[str(b) for b in public])


def usable_addresses(cidr: str) -> int:
    """The addresses a new subnet of ``cidr`` offers its instances and pods."""
    return ipaddress.ip_network(cidr).num_addresses - RESERVED_PER_SUBNET
