"""How many VPC addresses a pool's windows hold at their busiest moment, and whether its subnets have them.

Every node takes addresses from its subnet, for itself and for its pods, and holds more than its pods use: the VPC
CNI with its defaults (``WARM_ENI_TARGET=1``) keeps a whole spare network interface of addresses on every node,
EKS Auto Mode takes /28 prefixes of 16. A window's placeholders hold at least :func:`held_by_node` on each of their
nodes while it is open; windows open at once on pools that share subnets add up, and the busiest instant of the
coming year is compared with the subnets' free addresses: refused where it certainly cannot fit, said where it is
tight (:func:`address_shortfall`). Pure: the config checks (a VPC prescale creates) and the capacity wing (subnets
looked up at preview) both call it. Rules and sources: docs/capacity.md ("Addresses").
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from functools import cache

from . import schedule
from .capacity_checks import Span, occupied_spans
from .config import CapacityConfig, EventWindow, NodePoolConfig
from .instances import InstanceType, launchable
from .overlaps import boundaries
from .quantity import parse_quantity
from .requirements import PoolRequirement, pool_requirements
from .sizing import PlaceholderPlan, plan_placeholders
from .subnets import usable_addresses

TIGHT = Fraction(1, 2)  # more than this share of the free addresses held at once is said
PREFIX_ADDRESSES = 16  # a /28 prefix (EKS Auto Mode)
_NAMED = 6  # windows or subnets named in one message; more are counted


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
    best = _cheapest(pool_requirements(pool), plan.cpu, plan.memory, plan.one_per_node, prefixes)
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


@cache
def _cheapest(requirements: tuple[PoolRequirement, ...], cpu: str, memory: str, one_per_node: bool,
              prefixes: bool) -> tuple[int, Fraction, InstanceType, int, InstanceType] | None:
    """For placeholders of ``cpu`` and ``memory`` on these types: the most one node holds, the fewest addresses per
    placeholder (with the type and the placeholders on it), and the type holding the fewest for one placeholder.
    Shared by every window of a size (most windows of a stack share one)."""
    size = parse_quantity(cpu), parse_quantity(memory)
    room: dict[InstanceType, int] = {}  # placeholders a node of the type holds
    for instance in launchable(requirements).types:
        fits = int(min(instance.allocatable_cpu // size[0], instance.allocatable_memory // size[1]))
        if not prefixes:  # a pod beyond the interfaces' secondary addresses gets none
            fits = min(fits, instance.network_interfaces * (instance.ipv4_per_interface - 1))
        if fits >= 1:
            room[instance] = 1 if one_per_node else fits
    if not room:
        return None
    options = []  # (addresses per placeholder, name, type, placeholders on the node)
    for instance, most in room.items():
        step = PREFIX_ADDRESSES if prefixes else instance.ipv4_per_interface - 1
        for pods in {most, most - most % step} - {0}:
            options.append((Fraction(held_by_node(instance, pods, prefixes), pods), instance.name, instance, pods))
    cost, _, packed, pods = min(options)
    smallest = min(room, key=lambda instance: (held_by_node(instance, 1, prefixes), instance.name))
    return max(room.values()), cost, packed, pods, smallest


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


def pool_windows(config: CapacityConfig, windows: Sequence[EventWindow], pools: Sequence[NodePoolConfig],
                 prefixes: bool = False) -> list[WindowAddresses]:
    """The addresses each of ``windows`` on ``pools`` holds (``config``: for their placeholders and indexes)."""
    by_name = {pool.name: pool for pool in pools}
    indexes = {window.name: index for index, window in enumerate(config.event_windows)}
    found = [window_addresses(indexes[window.name], window,
                              plan_placeholders(window, config.placeholders_for(window.node_pool)),
                              by_name[window.node_pool], prefixes)
             for window in windows if window.node_pool in by_name]
    return [held for held in found if held is not None]


def selector_groups(config: CapacityConfig) -> dict[str | None, list[NodePoolConfig]]:
    """The pools prescale creates a node class for, by the subnets it selects: ``None`` for the discovery tag, else
    the selector terms as JSON. Pools in a group launch into the same subnets, so their windows add up."""
    groups: dict[str | None, list[NodePoolConfig]] = {}
    for pool in config.node_pools:
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
        zone = self.windows[0].window.timezone
        named = [window.describe() for window in self.windows]
        if len(named) > _NAMED:
            named = named[:_NAMED - 1] + [f"{len(named) - _NAMED + 1} more"]
        which = f"window {named[0]}" if len(named) == 1 else f"windows {', '.join(named[:-1])} and {named[-1]}"
        return (f"from {datetime.fromtimestamp(self.instant, UTC):%a %Y-%m-%d %H:%M} UTC "
                f"({datetime.fromtimestamp(self.instant, schedule.load_zone(zone)):%H:%M %Z} in {zone}) by {which}")

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
    :func:`prescale.model.capacity_checks.occupied_spans`, by index); ``None`` if none opens."""
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


@dataclass(frozen=True)
class AddressShortfall:
    """Node pools whose subnets cannot hold (``refused``), or can barely hold, their busiest moment."""

    refused: bool
    message: str
    needed: int  # addresses held at that moment (under the defaults, or at the least when refused otherwise)


def address_shortfall(pools: Sequence[str], subnets: Subnets, windows: Sequence[WindowAddresses], now: datetime, *,
                      defaults_certain: bool, prefixes: bool = False) -> AddressShortfall | None:
    """Whether the busiest moment of ``windows`` (on ``pools``, which share ``subnets``) in the year from ``now`` fits
    their free addresses.

    Refused when it certainly cannot: its addresses under the networking's defaults where those are certain
    (``defaults_certain``: a cluster prescale creates, with the VPC CNI as EKS installs it), else one per node and
    one per placeholder, the least any setting holds. Said when the defaults need more than half of them.
    """
    free = subnets.total
    if sum(window.expected for window in windows) <= TIGHT * free:
        return None  # all of them at once fit: no sweep needed (the usual case)
    spans = {window.index: occupied_spans(window.window, now) for window in windows}
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
