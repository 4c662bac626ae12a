"""Rules that look across keys and through time: the second half of stack-config validation.

The models in :mod:`prescale.model.config` check each value on its own. The rules here need several values
at once (a window and its node pool; a window's start, end, time zone and lead time over a year of
occurrences) and name the exact key they blame, with its value and what would be accepted. They run on every
part of the config that validated on its own: a rule is skipped only when a value it needs was refused
(:class:`~prescale.model.checks.refused.Refused`), so one run reports every problem.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..config import (
    CONFIG_NAMESPACE,
    CalendarConfig,
    CapacityConfig,
    EventWindow,
    KedaConfig,
    NodePoolConfig,
    StackConfig,
)
from ..schedule import after_end, drivers
from ..schedule.drivers import Edge
from ..strategies import strategy_of
from ..values.duration import format_duration
from ..windows import Span, occupied_spans
from . import limits, pools, reservations, strategies
from .addresses import planned_address_problems, vpc_cidr_problems
from .helm_values import karpenter_values_problems, keda_values_problems
from .platform import alerts_problems, auto_mode_problems, endpoint_problems, karpenter_problems, node_role_problems
from .refused import NOTHING_REFUSED, Refused
from .window_times import cron_comma_problems, window_time_problems
from .zones import zone_problems

# The fields each rule reads, so that it still runs on a refused part that has them (Refused.view, Refused.entries).
_ENDPOINT = {"create", "endpoint_public_access", "endpoint_private_access", "public_access_cidrs"}
_MODE = {"create", "auto_mode"}
_VPC = {"create", "vpc_id", "vpc_cidr", "availability_zones"}
WINDOW_TIMES = {"start", "end", "timezone", "lead_time"}


def stack_problems(config: StackConfig, now: datetime, refused: Refused = NOTHING_REFUSED) -> list[str]:
    """Every cross-key problem of a parsed stack config, as ``key path: message`` lines."""
    problems = []
    if (seen := refused.view(config, cluster=_ENDPOINT)) is not None:
        problems += endpoint_problems(seen)
    if (seen := refused.view(config, cluster=_MODE, karpenter={"install"})) is not None:
        problems += karpenter_problems(seen)
    if (seen := refused.view(config, cluster=_MODE, karpenter={"install", "node_role_name"})) is not None:
        problems += node_role_problems(seen)
    if (seen := refused.view(config, cluster=_MODE, karpenter={"install", "values"})) is not None:
        problems += karpenter_values_problems(seen)
    if (seen := refused.view(config, cluster={"auto_mode"})) is not None:
        karpenter = refused.view(seen, karpenter=())  # its keys as far as they validated
        problems += auto_mode_problems(karpenter or seen, refused, karpenter is not None)
    if (seen := refused.view(config, cluster=_VPC)) is not None:
        problems += vpc_cidr_problems(seen)
    if (seen := refused.view(config, cluster={"create"}, alerts={"prometheus_rule"})) is not None:
        problems += alerts_problems(seen)
    if (seen := refused.view(config, cluster={"auto_mode"}, karpenter={"install"})) is not None:
        problems += strategies.platform_strategy_problems(seen, refused)
    mode = refused.view(config, cluster={"auto_mode"})
    auto_mode = None if mode is None else mode.cluster.auto_mode
    region = None if "region" in refused.sections else config.region
    problems += capacity_config_problems(config, now, refused, auto_mode=auto_mode, region=region)
    if problems or refused.sections or refused.node_pools or refused.event_windows:
        return problems  # addresses are counted for a wholly valid config only
    return planned_address_problems(config, now)


def capacity_config_problems(config: CapacityConfig, now: datetime, refused: Refused = NOTHING_REFUSED,
                             auto_mode: bool | None = None, region: str | None = None) -> list[str]:
    """Every cross-key problem of the node pools and event windows (with or without a platform around them);
    ``auto_mode``: the pools are EKS Auto Mode's (their label keys and ``expireAfter`` default differ), ``None``
    when that is not known here (a library program's platform decides it); ``region``: the stack's AWS region,
    when known."""
    problems = _duplicate_names(config, refused) + pools.pool_problems(config, refused, auto_mode)
    problems += _calendar_problems(config, refused, now)
    versioned = refused.view(config, keda={"install", "version"})
    keda = None if versioned is None else versioned.keda  # the KEDA that runs the crons, once known
    if keda is not None:
        problems += _keda_version_problems(keda)
    if (seen := refused.view(config, keda={"install", "values"})) is not None:
        problems += keda_values_problems(seen.keda)
    grace = None  # the failsafe grace, once it is known to be valid
    if (seen := refused.view(config, placeholders={"failsafe_grace"})) is not None:
        grace_problems = _grace_problems(seen)
        problems += grace_problems
        grace = None if grace_problems else seen.placeholders.grace
    owned = {pool.name: pool.owned for _, pool in refused.entries("node_pools", config.node_pools,
                                                                   needs={"name", "existing"})}
    driven = {pool.name: pool for _, pool in refused.entries("node_pools", config.node_pools,
                                                             needs={"name", "strategy"})
              if strategy_of(pool).scale_down is not None}  # the pools whose windows a driver runs
    for index, window in refused.entries("event_windows", config.event_windows, needs={"node_pool"}):
        unknown = refused.pool(window.node_pool) and window.node_pool not in owned  # refused: nothing is known of it
        if window.node_pool not in owned and not unknown:
            allowed = ", ".join(repr(name) for name in owned) or "none (prescale:nodePools is empty)"
            problems.append(f"{CONFIG_NAMESPACE}:eventWindows[{index}].nodePool: {window.node_pool!r} is not a node "
                            f"pool; allowed: {allowed}")
    spans: dict[int, list[Span]] = {}  # window index → when it holds placeholders, for the windows with valid times
    for index, window in refused.entries("event_windows", config.event_windows, needs=WINDOW_TIMES):
        path = f"{CONFIG_NAMESPACE}:eventWindows[{index}]"
        freeze = owned.get(window.node_pool, not refused.pool(window.node_pool))  # whether prescale freezes its pool
        time_problems = window_time_problems(path, window, now, freeze=freeze)
        if not time_problems and keda is not None:
            time_problems = cron_comma_problems(path, window, keda)
        problems += time_problems
        if not time_problems:
            spans[index] = occupied_spans(window, now)  # now, while its occurrences are cached
            if window.node_pool in driven:
                pool = driven[window.node_pool]
                scale_down = strategy_of(pool).scale_down
                assert scale_down is not None
                driver = strategies.driver_problems(path, window, pool, scale_down, now)
                problems += driver
                if grace is not None and not driver:  # every strategy's window has a failsafe
                    problems += _driver_failsafe_problems(path, window, pool, scale_down, grace, now)
            elif grace is not None:
                problems += _failsafe_problems(path, window, grace, now)
    problems += _expiry_problems(config, refused, spans, bool(auto_mode))
    problems += reservations.reservation_problems(config, refused, region)
    problems += strategies.strategy_problems(config, refused, auto_mode)
    if region is not None:
        problems += zone_problems(config, refused, region)
    sized = refused.view(config, placeholders={"node_size", "max_pod_size"})
    if sized is None:  # every placeholder's size is unknown
        return problems
    return problems + limits.limit_problems(sized, spans, refused)


def _keda_version_problems(keda: KedaConfig) -> list[str]:
    """With ``install: false`` the version is the running KEDA's, and it decides which crons are safe."""
    if keda.install or "version" in keda.model_fields_set:
        return []
    return [f"{CONFIG_NAMESPACE}:keda.version: required key is missing: with keda.install false it is the version of "
            "the KEDA already running in the cluster (the tag of its keda-operator image), which decides the crons "
            "it runs correctly (commas need 2.20.0, kedacore/keda#7448); allowed: that exact version, 2.18.0 or "
            "newer, e.g. \"2.20.2\""]


def _expiry_problems(config: CapacityConfig, refused: Refused, spans: dict[int, list[Span]],
                     auto_mode: bool) -> list[str]:
    """A pool's ``expireAfter`` must outlast every window on it, from scale-up to end: disruption budgets do not
    stop expiry (Karpenter's disruption docs), so a node launched at scale-up that expires earlier goes mid-event."""
    longest: dict[str, tuple[int, EventWindow, int]] = {}  # pool → the window holding nodes longest, in seconds
    for index, window in refused.entries("event_windows", config.event_windows,
                                         needs={"name", "node_pool", *WINDOW_TIMES}):
        seconds_held = max((end - begin for begin, end in spans.get(index, ())), default=0)
        if seconds_held > longest.get(window.node_pool, (0, window, 0))[2]:
            longest[window.node_pool] = (index, window, seconds_held)
    problems = []
    lifetimes = refused.entries("node_pools", config.node_pools, needs={"name", "existing", "expire_after"})
    for pool_index, pool in lifetimes:
        expire_after, lifetime = pool.deployed_expire_after(auto_mode), pool.lifetime(auto_mode)
        if not pool.owned or pool.name not in longest or lifetime is None:
            continue
        index, window, seconds = longest[pool.name]
        held = format_duration(timedelta(seconds=seconds))
        if lifetime.total_seconds() < seconds:
            problems.append(
                f"{CONFIG_NAMESPACE}:nodePools[{pool_index}].expireAfter: {expire_after!r} is shorter than the {held} "
                f"window {window.name!r} (eventWindows[{index}]) holds its nodes, from scale-up to end: disruption "
                "budgets do not stop expiry, so nodes launched at scale-up would be replaced mid-event; allowed: "
                f"at least {held}" + ("" if auto_mode else ", or Never (the default)"))
    return problems


def _grace_problems(config: CapacityConfig) -> list[str]:
    problem = after_end.grace_problem(config.placeholders.grace)
    return [f"{CONFIG_NAMESPACE}:placeholders.failsafeGrace: {config.placeholders.failsafe_grace!r} {problem}"
            ] if problem else []


def _failsafe_problems(path: str, window: EventWindow, grace: timedelta, now: datetime) -> list[str]:
    """The window's failsafe scale-down must fire once after each occurrence, never inside the next one."""
    problem = after_end.failsafe_problem(window, grace, now)
    if problem is None:
        return []
    return [f"{path}.end: {window.end!r}: {problem} (prescale:placeholders.failsafeGrace is "
            f"{format_duration(grace)}; the failsafe is explained in docs/guardrails.md)"]


def _driver_failsafe_problems(path: str, window: EventWindow, pool: NodePoolConfig, until: Edge, grace: timedelta,
                              now: datetime) -> list[str]:
    """A driven window's failsafe must set 0 once after each scale-down (at ``until``), never in the next
    occurrence (:func:`prescale.model.schedule.drivers.failsafe_problem`)."""
    problem = drivers.failsafe_problem(window, until, grace, now)
    if problem is None:
        return []
    return [f"{path}.{until}: {getattr(window, until)!r}: on {pool.strategy} node pool {pool.name!r}, {problem} "
            f"(prescale:placeholders.failsafeGrace is {format_duration(grace)}); allowed: a shorter failsafeGrace, "
            "or more time between occurrences (docs/capacity.md#the-failsafe-and-converging-from-any-state)"]


def _calendar_problems(config: CapacityConfig, refused: Refused, now: datetime) -> list[str]:
    """The calendar's events, checked by the rules a window's times are (DST, KEDA's alternation, a one-off's
    order), under their own key, whether or not a window of this stack names them: other stacks may."""
    if "calendar" in refused.sections or not isinstance(config.calendar, CalendarConfig):
        return []
    problems: list[str] = []
    first: dict[str, int] = {}  # event name → index of its first use
    for index, event in enumerate(config.calendar.events):
        path = f"{CONFIG_NAMESPACE}:calendar.events[{index}]"
        if first.setdefault(event.name, index) != index:
            problems.append(f"{path}.name: {event.name!r} is already used by {CONFIG_NAMESPACE}:calendar.events"
                            f"[{first[event.name]}]; names must be unique")
        as_window = EventWindow.model_construct(name=event.name, node_pool="", timezone=event.timezone,
                                                start=event.start, end=event.end, lead_time="0m")
        problems += window_time_problems(path, as_window, now, freeze=False)
    return problems


def _duplicate_names(config: CapacityConfig, refused: Refused) -> list[str]:
    problems = []
    for key, field in (("nodePools", "node_pools"), ("eventWindows", "event_windows")):
        first: dict[str, int] = {}  # name → index of its first use (one pass: stacks hold hundreds of windows)
        for index, entry in refused.entries(field, getattr(config, field), needs={"name"}):
            if first.setdefault(entry.name, index) != index:
                problems.append(f"{CONFIG_NAMESPACE}:{key}[{index}].name: {entry.name!r} is already used by "
                                f"{CONFIG_NAMESPACE}:{key}[{first[entry.name]}]; names must be unique")
    return problems
