"""Addresses: what a window's placeholders hold in their pool's subnets, and what a subnet offers.

Each window's placeholders hold at least :func:`held_by_node` on each of their nodes while it is open; windows open
at once on pools that share subnets add up (:func:`busiest`). A new VPC's subnets are planned here too
(:func:`plan_subnets`; the platform's network creates exactly these), so their sizes are known before anything
exists. What is refused or said: :mod:`prescale.model.checks.addresses`; the rules and their sources:
docs/capacity.md#addresses.
"""

from __future__ import annotations

import ipaddress
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from ..config import EventWindow, NodePoolConfig
from ..schedule.overlaps import boundaries
from .instances import InstanceType, launchable, one_per_shape
from .requirements import PoolRequirement, pool_requirements
from .sizing import PlaceholderPlan

Span = tuple[int, int]  # an occurrence's [scale_up, end) in epoch seconds
PREFIX_ADDRESSES = 16  # a /28 prefix (EKS Auto Mode)
_NAMED = 6  # windows or subnets named in one message; more are counted


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


def held_by_node(instance: InstanceType, pods: int, prefixes: bool = False) -> int:
    """The addresses a node holds while ``pods`` of its pods have addresses of their own.

    VPC CNI defaults: each interface brings all its addresses (one its own, the others for pods), and ipamd attaches
    another while fewer than one interface's worth are free, up to the type's limit. Auto Mode: the node's own
    address and a /28 prefix per 16 pods (its warm pool, whose size AWS does not publish, not counted).
    """
    if prefixes:
        return 1 + PREFIX_ADDRESSES * math.ceil(pods / PREFIX_ADDRESSES)
    per_interface = instance.ipv4_per_interface
    return per_interface * min(instance.network_interfaces, math.ceil(pods / (per_interface - 1)) + 1)


@dataclass(frozen=True)
class WindowAddresses:
    """What one window's placeholders hold in their pool's subnets while it is open: lower bounds."""

    index: int  # in eventWindows
    window: EventWindow
    nodes: int  # the fewest nodes its placeholders fit on
    least: int  # whatever the networking's settings: one address per node and one per placeholder
    expected: int  # under the networking's defaults
    basis: str  # how `expected` follows

    def describe(self) -> str:
        return f"{self.window.name!r} (eventWindows[{self.index}], {self.nodes} node{'s' * (self.nodes != 1)})"


def window_addresses(index: int, window: EventWindow, plan: PlaceholderPlan, pool: NodePoolConfig,
                     prefixes: bool = False) -> WindowAddresses | None:
    """The addresses ``window``'s placeholders hold on the instance types ``pool`` allows (``None``: no type holds
    one, which the config checks refuse).

    One placeholder per node (``nodes:`` windows) costs a node each, on the type that holds the fewest addresses.
    Packed placeholders (``capacity:`` windows) cost at least the fewest addresses per placeholder any type holds
    them at (full, or filled up to its last whole interface or prefix), and at least their fewest nodes of the
    type that holds the fewest.
    """
    best = _cheapest(pool_requirements(pool), *plan.requests, plan.one_per_node, prefixes)
    if best is None:
        return None
    most, cost, packed, pods, smallest = best
    nodes = plan.pods if plan.one_per_node else math.ceil(plan.pods / most)
    by_node, by_placeholder = nodes * held_by_node(smallest, 1, prefixes), math.ceil(plan.pods * cost)
    least = nodes + plan.pods
    if by_node >= by_placeholder:
        return WindowAddresses(index, window, nodes, least, max(least, by_node), _per_node(smallest, prefixes))
    return WindowAddresses(index, window, nodes, least, max(least, by_placeholder),
                           f"{pods} placeholders per {packed.name} at best, {_held(packed, pods, prefixes)}")


@lru_cache(maxsize=256)  # keyed by a pool and a placeholder size: a few per stack
def _cheapest(requirements: tuple[PoolRequirement, ...], size_cpu: Decimal, size_memory: Decimal,
              one_per_node: bool, prefixes: bool) -> tuple[int, Fraction, InstanceType, int, InstanceType] | None:
    """For placeholders of ``size_cpu`` cores and ``size_memory`` bytes on these types: the most one node holds, the
    fewest addresses per placeholder (with the type and the placeholders on it), and the type holding the fewest for
    one placeholder.
    Shared by every window of a size (most windows of a stack share one)."""
    room: list[tuple[_AddressTerms, int]] = []  # each type with room, and the placeholders a node of it holds
    for terms in _address_terms(launchable(requirements).types, prefixes):
        instance = terms.instance
        fits = int(min(instance.allocatable_cpu // size_cpu, instance.allocatable_memory // size_memory))
        if terms.addressed_pods is not None:  # a pod beyond the interfaces' secondary addresses gets none
            fits = min(fits, terms.addressed_pods)
        if fits >= 1:
            room.append((terms, 1 if one_per_node else fits))
    if not room:
        return None
    # The fewest addresses per placeholder (then the first name, then the fewest on the node), compared as cross
    # products: exact like a Fraction per option, for a fraction of its cost (a pool allows hundreds of types).
    held, pods, packed = 0, 0, None
    for terms, most in room:
        instance = terms.instance
        for option in (most, most - most % terms.step):  # full, or filled up to its last whole interface or prefix
            if option:
                addresses = held_by_node(instance, option, prefixes)
                if packed is None or (addresses * pods, instance.name, option) < (held * option, packed.name, pods):
                    held, pods, packed = addresses, option, instance
    assert packed is not None  # every type with room has an option
    smallest = min(room, key=lambda entry: entry[0].order_for_one)[0].instance
    return max(most for _, most in room), Fraction(held, pods), packed, pods, smallest


@dataclass(frozen=True)
class _AddressTerms:
    """What of a type :func:`_cheapest` reads for every placeholder size, worked out once per pool."""

    instance: InstanceType
    addressed_pods: int | None  # the most pods its interfaces give addresses (None: prefixes, no such limit)
    step: int  # pods per interface or prefix
    order_for_one: tuple[int, str]  # the addresses it holds for one placeholder, then its name


@lru_cache(maxsize=256)
def _address_terms(types: tuple[InstanceType, ...], prefixes: bool) -> tuple[_AddressTerms, ...]:
    return tuple(_AddressTerms(instance,
                               None if prefixes else instance.network_interfaces * (instance.ipv4_per_interface - 1),
                               PREFIX_ADDRESSES if prefixes else instance.ipv4_per_interface - 1,
                               (held_by_node(instance, 1, prefixes), instance.name))
                 for instance in one_per_shape(types))


def _per_node(instance: InstanceType, prefixes: bool) -> str:
    """How a node holding one placeholder holds its addresses, on the type that holds the fewest."""
    if prefixes:
        return f"{held_by_node(instance, 1, prefixes)} per node, its own address and a /28 prefix"
    return (f"{held_by_node(instance, 1)} per node, {_held(instance, 1, prefixes)} on a {instance.name} (no type of "
            "the pool holding a placeholder has fewer)")


def _held(instance: InstanceType, pods: int, prefixes: bool) -> str:
    held = held_by_node(instance, pods, prefixes)
    if prefixes:
        return f"its own address and {(held - 1) // PREFIX_ADDRESSES} /28 prefixes"
    return f"{held // instance.ipv4_per_interface} interfaces × {instance.ipv4_per_interface} addresses"


def selector_groups(pools: Iterable[NodePoolConfig]) -> dict[str | None, list[NodePoolConfig]]:
    """Of ``pools``, those prescale creates a node class for, by the subnets it selects: ``None`` for the discovery
    tag, else the selector terms as JSON. Pools in a group launch into the same subnets, so their windows add up."""
    groups: dict[str | None, list[NodePoolConfig]] = {}
    for pool in pools:
        if pool.owned and pool.node_class_name is None:
            terms = pool.subnet_selector_terms
            key = json.dumps([term.model_dump(exclude_none=True) for term in terms], sort_keys=True) if terms else None
            groups.setdefault(key, []).append(pool)
    return groups


@dataclass(frozen=True)
class Moment:
    """The windows open at one instant, by when they opened."""

    instant: int  # epoch seconds
    windows: tuple[WindowAddresses, ...]

    @property
    def least(self) -> int:
        return sum(window.least for window in self.windows)

    @property
    def expected(self) -> int:
        return sum(window.expected for window in self.windows)

    def describe(self) -> str:
        first = self.windows[0].window
        named = [window.describe() for window in self.windows]
        if len(named) > _NAMED:
            named = named[:_NAMED - 1] + [f"{len(named) - _NAMED + 1} more"]
        which = f"window {named[0]}" if len(named) == 1 else f"windows {', '.join(named[:-1])} and {named[-1]}"
        return (f"from {datetime.fromtimestamp(self.instant, UTC):%a %Y-%m-%d %H:%M} UTC "
                f"({datetime.fromtimestamp(self.instant, first.zone):%H:%M %Z} in {first.timezone}) by {which}")

    def breakdown(self) -> str:
        """Each window's addresses under the defaults, and how they follow (said once for windows alike)."""
        alike: dict[str, list[WindowAddresses]] = {}
        for window in self.windows:
            alike.setdefault(window.basis, []).append(window)
        return "; ".join(f"{' and '.join(f'{w.window.name!r} {w.expected}' for w in windows)}: {basis}"
                         for basis, windows in alike.items())


def busiest(windows: Sequence[WindowAddresses], spans: Mapping[int, list[Span]],
            amount: Callable[[WindowAddresses], int]) -> Moment | None:
    """The first instant of the coming year at which the open windows hold the most (``spans``: each window's
    :func:`prescale.model.windows.occupied_spans`, by index); ``None`` if none opens."""
    by_index = {window.index: window for window in windows}
    open_windows: dict[int, None] = {}  # an ordered set: by when they opened
    total, best = 0, None
    for instant, closing, opening in boundaries((start, end, window.index) for window in windows
                                                for start, end in spans.get(window.index, ())):
        for index in closing:
            del open_windows[index]
            total -= amount(by_index[index])
        for index in opening:
            open_windows[index] = None
            total += amount(by_index[index])
        if best is None or total > best[0]:
            best = (total, instant, tuple(by_index[index] for index in open_windows))
    return Moment(best[1], best[2]) if best else None


@dataclass(frozen=True)
class Subnets:
    """The subnets a pool's node class selects, with the addresses free in each."""

    selected_by: str  # e.g. "tagged karpenter.sh/discovery: shop"
    free: tuple[tuple[str, int], ...]  # (the subnet: its id and zone, or a planned one's CIDR; free addresses)

    @property
    def total(self) -> int:
        return sum(count for _, count in self.free)

    def describe(self) -> str:
        listed = [f"{subnet}: {count}" for subnet, count in self.free]
        if len(listed) > _NAMED:
            listed = listed[:_NAMED - 1] + [f"{len(listed) - _NAMED + 1} more"]
        return f"the subnets {self.selected_by} ({', '.join(listed) or 'none'}; {self.total} free in all)"


def planned_subnets(cidrs: Sequence[str]) -> Subnets:
    """The private subnets prescale creates for a new cluster: every address free but the 5 AWS keeps."""
    return Subnets("prescale creates from vpcCidr", tuple((cidr, usable_addresses(cidr)) for cidr in cidrs))
