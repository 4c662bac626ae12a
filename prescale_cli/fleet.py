"""``prescale fleet``: every stack of one or more projects, read offline, lined up by event.

Each stack's windows are planned as ``prescale schedule`` plans them, and grouped by the event they take (a window's
calendar ``event``, else its own name, which stacks of one fleet share by convention). Per event: each stack's
nodes, vCPUs and first scale-up in the range; per AWS account and region: the vCPUs by On-Demand quota group
(:mod:`prescale.model.values.quota_families`), the quota the stacks give (``prescale:quotas``), the most
instances launching within one minute, and the instances by type and zone that capacity reservations would hold. It
says what no stack sees alone: a region's vCPUs above its quota, more launches in one minute than EC2's RunInstances
resource bucket refills (1,000 instances at once, then 2 a second: AWS docs, "Request throttling for the Amazon EC2
API"), and stacks that give one event different times. Stacks are validated in parallel processes. Details:
docs/fleet.md#the-fleet.
"""

from __future__ import annotations

import fnmatch
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from prescale.model.config import StackConfig
from prescale.model.fleet.reservations import pool_zones, reservation_zones, reserved_count, split
from prescale.model.plan import CapacityPlan, plan_capacity
from prescale.model.validation import ConfigError
from prescale.model.values.quota_families import quota_family
from prescale.model.windows import WindowPlan
from prescale.stack_file import StackFileError

from .cost import Fleet as WindowFleet
from .cost import window_fleet
from .stack import load_stack
from .timeline import build_timeline

# RunInstances' resource token bucket (AWS docs, "Request throttling for the Amazon EC2 API"): launches beyond it in
# one minute wait for its refill of 2 a second.
LAUNCH_BURST = 1_000


@dataclass(frozen=True)
class Placement:
    """Instances of one type that On-Demand Capacity Reservations for the event would hold, and where: one zone in
    ``zones`` pins them there; several, Karpenter picks among them at launch (how many land in each is not known
    before); none, any zone of the region."""

    instance_type: str
    zones: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class StackWindow:
    """One window of one stack, as the fleet adds it up."""

    stack: str  # <project>/<stack> when several projects are read, else the stack's name
    window: str
    event: str
    times: tuple[str, str, str]  # timezone, start, end
    nodes: int
    vcpus: int
    family: str
    placements: tuple[Placement, ...]
    price_per_hour: float  # of one node, as `prescale schedule` prices it (prescale:pricing)
    scale_up: datetime | None  # the first in the range; None: none there
    account: str | None
    region: str


@dataclass(frozen=True)
class Region:
    account: str | None
    region: str
    vcpus_by_family: dict[str, int]
    quota: dict[str, int]
    launches_per_minute: int
    instances: tuple[Placement, ...]  # by type and zones, added up over the stacks
    cost_per_hour: float  # of the event's nodes there, as `prescale schedule` prices them


@dataclass
class Fleet:
    stacks: list[str]
    windows: list[StackWindow]
    problems: list[str] = field(default_factory=list)

    def events(self) -> dict[str, list[StackWindow]]:
        found: dict[str, list[StackWindow]] = defaultdict(list)
        for window in self.windows:
            found[window.event].append(window)
        return dict(found)

    def regions(self, windows: list[StackWindow], quotas: dict[tuple[str | None, str], dict[str, int]]) -> list[Region]:
        """The event's totals per account and region."""
        grouped: dict[tuple[str | None, str], list[StackWindow]] = defaultdict(list)
        for window in windows:
            grouped[window.account, window.region].append(window)
        regions = []
        for (account, region), members in sorted(grouped.items(), key=lambda item: (item[0][0] or "", item[0][1])):
            vcpus: dict[str, int] = defaultdict(int)
            for window in members:
                vcpus[window.family] += window.vcpus
            minutes: dict[datetime, int] = defaultdict(int)
            for window in members:
                if window.scale_up is not None:
                    minutes[window.scale_up.replace(second=0, microsecond=0)] += window.nodes
            regions.append(Region(account, region, dict(vcpus), quotas.get((account, region), {}),
                                  max(minutes.values(), default=0), _added_up(members),
                                  sum(window.nodes * window.price_per_hour for window in members)))
        return regions


def _added_up(windows: list[StackWindow]) -> tuple[Placement, ...]:
    """The windows' instances by type and zones, in that order."""
    counts: dict[tuple[str, tuple[str, ...]], int] = defaultdict(int)
    for placement in (placement for window in windows for placement in window.placements):
        counts[placement.instance_type, placement.zones] += placement.count
    return tuple(Placement(name, zones, count) for (name, zones), count in sorted(counts.items()))


def read_fleet(projects: Sequence[Path], pattern: str, now: datetime, since: datetime, days: int,
               quota_overrides: dict[str, int]) -> tuple[Fleet, dict[tuple[str | None, str], dict[str, int]]]:
    """Every stack matching ``pattern`` of ``projects``, planned at ``now`` over ``days`` from ``since``."""
    stacks = [(project, path.name.removeprefix("Pulumi.").removesuffix(".yaml"))
              for project in projects for path in sorted(project.glob("Pulumi.*.yaml"))]
    stacks = [(project, name) for project, name in stacks if fnmatch.fnmatchcase(name, pattern)]
    several = len(set(projects)) > 1
    jobs = [(str(project), name, f"{project.name}/{name}" if several else name, now, since, days)
            for project, name in stacks]
    with ProcessPoolExecutor() as pool:
        results = list(pool.map(_stack_windows, *zip(*jobs, strict=True))) if jobs else []
    fleet = Fleet([label for *_, label, _, _, _ in jobs], [])
    quotas: dict[tuple[str | None, str], dict[str, int]] = defaultdict(dict)
    for windows, problems, stack_quotas in results:
        fleet.windows += windows
        fleet.problems += problems
        for key, given in stack_quotas.items():
            for family, limit in given.items():  # stacks of one account and region: the smallest they give
                quotas[key][family] = min(limit, quotas[key].get(family, limit))
    for key in {(window.account, window.region) for window in fleet.windows}:
        quotas[key].update(quota_overrides)
    fleet.problems += _problems(fleet, dict(quotas))
    return fleet, dict(quotas)


def _stack_windows(project: str, stack: str, label: str, now: datetime, since: datetime,
                   days: int) -> tuple[list[StackWindow], list[str], dict[tuple[str | None, str], dict[str, int]]]:
    """One stack's windows (run in a worker process: validating a stack is the fleet's cost)."""
    try:
        loaded = load_stack(Path(project), stack, now)
    except (ConfigError, StackFileError, FileNotFoundError) as error:
        return [], [f"stack {label}: {error}"], {}
    config = loaded.config
    if not isinstance(config, StackConfig):
        return [], [f"stack {label}: a library program's stack (no prescale:cluster): its region is its program's, "
                    "so the fleet leaves it out"], {}
    account = _account(loaded.wire)
    plan = plan_capacity(config, now)
    timeline = build_timeline(plan, since, since + timedelta(days=days))
    first: dict[str, datetime] = {}  # window → its first scale-up in the range
    for entry in timeline.entries:
        first.setdefault(entry.window.name, entry.occurrence.scale_up_utc)
    windows = []
    for window_plan in plan.windows:
        window = window_plan.window
        fleet = window_fleet(plan, window_plan)
        if fleet is None:
            continue
        windows.append(StackWindow(label, window.name, window.event or window.name,
                                   (window.timezone, window.start, window.end), fleet.nodes,
                                   fleet.nodes * fleet.shape.instance.vcpus, quota_family(fleet.shape.name),
                                   _placements(plan, window_plan, fleet), fleet.shape.price_per_hour,
                                   first.get(window.name), account, config.region))
    given: dict[str, int] = {str(family): limit for family, limit in config.quotas.items()}
    return windows, [], ({(account, config.region): given} if given else {})


def _placements(plan: CapacityPlan, window_plan: WindowPlan, fleet: WindowFleet) -> tuple[Placement, ...]:
    """Where the window's instances are, as far as the plan knows. A window that reserves: its reservations, one
    per zone, as prescale splits them (:mod:`prescale.model.fleet.reservations`). Any other: the estimate's nodes in
    the zones its pool allows, not split over them, since Karpenter picks the zone of each node at launch."""
    window, pool = window_plan.window, plan.pools[window_plan.window.node_pool].pool
    if window.reserve is None:
        return (Placement(fleet.shape.name, pool_zones(pool), fleet.nodes),)
    shares = split(reserved_count(window, window_plan.placeholders), reservation_zones(window, pool))
    return tuple(Placement(window.reserve.instance_type, (share.zone,), share.count) for share in shares)


def _account(wire: Mapping[str, str]) -> str | None:
    """The AWS account the stack's provider is pinned to (``aws:allowedAccountIds`` with one id), if any."""
    value = wire.get("aws:allowedAccountIds")
    try:
        ids = json.loads(value) if value is not None else None
    except ValueError:
        return None
    return str(ids[0]) if isinstance(ids, list) and len(ids) == 1 else None


def _problems(fleet: Fleet, quotas: dict[tuple[str | None, str], dict[str, int]]) -> list[str]:
    problems = []
    for event, windows in fleet.events().items():
        times = {window.times for window in windows}
        if len(times) > 1:
            problems.append(f"event {event!r}: its stacks give it different times ("
                            + "; ".join(f"{window.stack}: {' '.join(window.times)}" for window in windows)
                            + "): give each window event: " + repr(event) + " from one prescale:calendar")
        for region in fleet.regions(windows, quotas):
            where = f"{region.account or 'an account not pinned (aws:allowedAccountIds)'} in {region.region}"
            for family, vcpus in sorted(region.vcpus_by_family.items()):
                limit = region.quota.get(family)
                if limit is not None and vcpus > limit:
                    problems.append(f"event {event!r}: {vcpus} {family} vCPUs on {where}, above its On-Demand "
                                    f"quota of {limit}: request an increase (Service Quotas), or spread the event")
            if region.launches_per_minute > LAUNCH_BURST:
                problems.append(f"event {event!r}: {region.launches_per_minute} instances launch within one minute on "
                                f"{where}, more than EC2's RunInstances bucket of {LAUNCH_BURST} (then 2 a second): "
                                "stagger the stacks' lead times")
    return problems
