"""Addresses the nodes cannot have: a new VPC that cannot be split into its zones' subnets, or subnets that cannot
hold a pool's busiest moment (refused where certain, said where tight). The counts are
:mod:`prescale.model.fleet.addresses`', asked of the plan (:meth:`~prescale.model.plan.CapacityPlan.address_demand`);
the capacity wing runs :func:`address_shortfall` again at preview on subnets it looks up. Rules and sources:
docs/capacity.md#addresses.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from ..config import CONFIG_NAMESPACE, StackConfig
from ..fleet.addresses import (
    Subnets,
    WindowAddresses,
    busiest,
    plan_subnets,
    planned_subnets,
    selector_groups,
    usable_addresses,
)
from ..windows import Span, address_demand, occupied_spans, plan_windows

TIGHT = Fraction(1, 2)  # more than this share of the free addresses held at once is said


@dataclass(frozen=True)
class AddressShortfall:
    """Node pools whose subnets cannot hold (``refused``), or can barely hold, their busiest moment."""

    refused: bool
    message: str
    needed: int  # addresses held at that moment (under the defaults, or at the least when refused otherwise)


def address_shortfall(pools: Sequence[str], subnets: Subnets, windows: Sequence[WindowAddresses], now: datetime, *,
                      defaults_certain: bool, prefixes: bool = False,
                      spans: Mapping[int, list[Span]] | None = None) -> AddressShortfall | None:
    """Whether the busiest moment of ``windows`` (on ``pools``, which share ``subnets``) in the year from ``now`` fits
    their free addresses.

    Refused when it certainly cannot: its addresses under the networking's defaults where those are certain
    (``defaults_certain``: a cluster prescale creates, with the VPC CNI as EKS installs it), else one per node and
    one per placeholder, the least any setting holds. Said when the defaults need more than half of them.
    ``spans``: the windows' :func:`~prescale.model.windows.occupied_spans` by index where the caller has them (the
    config checks do), else walked here.
    """
    free = subnets.total
    if sum(window.expected for window in windows) <= TIGHT * free:
        return None  # all of them at once fit: no sweep needed (the usual case)
    given = spans or {}  # the caller's, where it has them
    spans = {window.index: given[window.index] if window.index in given else occupied_spans(window.window, now)
             for window in windows}
    expected = busiest(windows, spans, lambda window: window.expected)
    if expected is None or expected.expected <= TIGHT * free:
        return None
    defaults = ("under EKS Auto Mode's networking, which takes /28 prefixes of 16 addresses" if prefixes else
                "under the VPC CNI's defaults, where WARM_ENI_TARGET=1 keeps a spare network interface of addresses on "
                "each node")
    on = f"node pool{'s' * (len(pools) != 1)} {', '.join(map(repr, pools))}"
    in_subnets = f"the {free} free in {subnets.describe()}"
    if defaults_certain and expected.expected > free:
        return AddressShortfall(True, f"{on}: at least {expected.expected} addresses are held {expected.describe()} "
                                      f"{defaults} ({expected.breakdown()}), more than {in_subnets}",
                                expected.expected)
    least = busiest(windows, spans, lambda window: window.least)
    assert least is not None  # the same spans
    if not defaults_certain and least.least > free:
        return AddressShortfall(True, (
            f"{on}: at least {least.least} addresses are held {least.describe()} whatever the networking's settings "
            f"(one per node and one per placeholder; {least.expected} {defaults}: {least.breakdown()}), more than "
            f"{in_subnets}"), least.least)
    if expected.expected > free:
        tail = f"more than {in_subnets}: those nodes will lack pod addresses " + (
            "unless Auto Mode falls back to single addresses" if prefixes else
            "unless the VPC CNI is set to hold fewer (WARM_IP_TARGET, MINIMUM_IP_TARGET)")
    else:
        tail = (f"{expected.expected * 100 // free}% of {in_subnets}, leaving little for other nodes and pods (and "
                "Karpenter may put every node in one zone's subnet)")
    return AddressShortfall(False, f"{on}: at least {expected.expected} addresses are held {expected.describe()} "
                                   f"{defaults} ({expected.breakdown()}), {tail}", expected.expected)


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


def planned_address_problems(config: StackConfig, now: datetime,
                             spans: Mapping[int, list[Span]] | None = None) -> list[str]:
    """A VPC prescale creates must hold the busiest moment of the pools that launch into it (by the discovery tag):
    its private subnets' sizes are known before anything exists, and its VPC CNI runs with EKS's defaults. Every
    window counts, armed now or later, as the plan holds it (planning is pure, and cheap beside validation);
    ``spans``: each window's occupied spans by index, if the caller has them.
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
                                  prefixes=cluster.auto_mode, spans=spans)
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
