"""A new VPC for the cluster: public and private subnets in N availability zones, NAT for the private ones.

Plain ``aws.ec2`` resources, so the tests see every subnet, tag and route (why not pulumi-awsx, and what the
layout is: docs/internals.md#prescaleplatformnetwork).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from ..model.fleet.addresses import plan_subnets
from ..names import DISCOVERY_TAG

# Zone IDs (the same physical zone in every account, unlike zone names) where a cluster's subnets cannot be:
# Amazon EKS User Guide, "View Amazon EKS networking requirements for VPC and subnets", "Subnet requirements
# for clusters" (awsdocs/amazon-eks-user-guide latest/ug/networking/network-reqs.adoc).
EKS_UNSUPPORTED_ZONE_IDS = frozenset({"use1-az3", "usw1-az2", "cac1-az3"})


@dataclass(frozen=True)
class NetworkArgs:
    cluster_name: str  # written into the discovery tag and every Name tag
    cidr: str
    availability_zones: int
    nat_gateway_per_zone: bool
    tags: Mapping[str, str]
    # The system node group's instance types: every chosen zone must offer one of them.
    node_instance_types: Sequence[str]


class Network(pulumi.ComponentResource):
    """The VPC a new cluster runs in; nodes only ever live in its private subnets."""

    vpc_id: pulumi.Output[str]
    private_subnet_ids: list[pulumi.Output[str]]
    private_subnet_cidrs: list[str]  # where nodes run: known before the subnets exist
    public_subnet_ids: list[pulumi.Output[str]]

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:Network", name, {}, opts)
        self._name, self._args = name, args
        zones = args.availability_zones
        plan = plan_subnets(args.cidr, zones)
        # Real availability zones only: an opted-in Local Zone lacks services EKS nodes rely on.
        available = aws.get_availability_zones_output(
            state="available", filters=[aws.GetAvailabilityZonesFilterArgs(name="zone-type",
                                                                           values=["availability-zone"])],
            opts=pulumi.InvokeOutputOptions(parent=self))
        offered = aws.ec2.get_instance_type_offerings_output(
            location_type="availability-zone",
            filters=[aws.ec2.GetInstanceTypeOfferingsFilterArgs(name="instance-type",
                                                                values=list(args.node_instance_types))],
            opts=pulumi.InvokeOutputOptions(parent=self))
        def usable(found: list[list[str]]) -> list[str]:
            return choose_zones(*found, wanted=zones, instance_types=args.node_instance_types)

        chosen = pulumi.Output.all(available.names, available.zone_ids, offered.locations).apply(usable)
        zone_names = [chosen[i] for i in range(zones)]

        vpc = aws.ec2.Vpc(name, cidr_block=args.cidr, enable_dns_hostnames=True, enable_dns_support=True,
                          tags=self._tagged("vpc"), opts=self._child())
        gateway = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags=self._tagged("igw"),
                                          opts=self._child())
        public_routes = self._route_table("public", vpc,
                                          aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=gateway.id))
        public = self._subnets("public", vpc, plan.public, zone_names, [public_routes] * zones,
                               {"kubernetes.io/role/elb": "1"})

        nats = [self._nat_gateway(i, public[i], gateway)
                for i in range(zones if args.nat_gateway_per_zone else 1)]
        private_routes = [
            self._route_table(f"private-{i}", vpc, aws.ec2.RouteTableRouteArgs(
                cidr_block="0.0.0.0/0", nat_gateway_id=nats[i % len(nats)].id))
            for i in range(zones)]
        private = self._subnets("private", vpc, plan.private, zone_names, private_routes,
                                {"kubernetes.io/role/internal-elb": "1", DISCOVERY_TAG: args.cluster_name})

        self.vpc_id = vpc.id
        self.private_subnet_ids = [subnet.id for subnet in private]
        self.private_subnet_cidrs = plan.private
        self.public_subnet_ids = [subnet.id for subnet in public]
        self.register_outputs({"vpcId": self.vpc_id, "privateSubnetIds": self.private_subnet_ids,
                               "publicSubnetIds": self.public_subnet_ids})

    def _child(self, **options) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, **options)

    def _tagged(self, suffix: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The configured tags, a console-friendly ``Name`` (``<cluster>-<suffix>``) and ``extra``."""
        return {**self._args.tags, "Name": f"{self._args.cluster_name}-{suffix}", **(extra or {})}

    def _route_table(self, suffix: str, vpc: aws.ec2.Vpc,
                     default_route: aws.ec2.RouteTableRouteArgs) -> aws.ec2.RouteTable:
        return aws.ec2.RouteTable(f"{self._name}-{suffix}", vpc_id=vpc.id, routes=[default_route],
                                  tags=self._tagged(suffix), opts=self._child())

    def _nat_gateway(self, index: int, subnet: aws.ec2.Subnet, gateway: aws.ec2.InternetGateway
                     ) -> aws.ec2.NatGateway:
        suffix = f"nat-{index}"
        address = aws.ec2.Eip(f"{self._name}-{suffix}", domain="vpc", tags=self._tagged(suffix), opts=self._child())
        # A NAT gateway only routes once the VPC has its internet gateway.
        return aws.ec2.NatGateway(f"{self._name}-{suffix}", allocation_id=address.id, subnet_id=subnet.id,
                                  tags=self._tagged(suffix), opts=self._child(depends_on=[gateway]))

    def _subnets(self, kind: str, vpc: aws.ec2.Vpc, cidrs: Sequence[str], zones: Sequence[pulumi.Output[str]],
                 route_tables: Sequence[aws.ec2.RouteTable], role_tags: Mapping[str, str]) -> list[aws.ec2.Subnet]:
        """One subnet per zone, each associated with that zone's route table."""
        subnets = []
        for i, (cidr, zone, table) in enumerate(zip(cidrs, zones, route_tables, strict=True)):
            resource_name = f"{self._name}-{kind}-{i}"
            subnet = aws.ec2.Subnet(resource_name, vpc_id=vpc.id, cidr_block=cidr, availability_zone=zone,
                                    tags=self._tagged(f"{kind}-{i}", role_tags), opts=self._child())
            aws.ec2.RouteTableAssociation(resource_name, subnet_id=subnet.id, route_table_id=table.id,
                                          opts=self._child())
            subnets.append(subnet)
        return subnets


def choose_zones(names: Sequence[str], zone_ids: Sequence[str], offering: Sequence[str], *, wanted: int,
                 instance_types: Sequence[str]) -> list[str]:
    """The first ``wanted`` zone names, in name order, where EKS runs control planes and one of
    ``instance_types`` is offered (``offering``: the zones named by the instance type offerings).

    ``names`` and ``zone_ids`` are ``get_availability_zones``' parallel lists.
    """
    usable, skipped = [], []
    for name, zone_id in sorted(zip(names, zone_ids, strict=True)):
        if zone_id in EKS_UNSUPPORTED_ZONE_IDS:
            skipped.append(f"{name} ({zone_id}): EKS places no control plane there")
        elif name not in offering:
            skipped.append(f"{name}: offers none of {', '.join(instance_types)}")
        else:
            usable.append(name)
    if len(usable) < wanted:
        raise ValueError(
            f"prescale:cluster.availabilityZones asks for {wanted} zones but the region has {len(usable)} a cluster "
            f"can use ({', '.join(usable) or 'none'}; skipped: {'; '.join(skipped) or 'none'}); allowed: at most "
            f"{len(usable)}, or prescale:cluster.systemNodeGroup.instanceTypes offered in more zones")
    return usable[:wanted]
