"""Rules that look across keys and through time: the second half of stack-config validation.

The models in :mod:`prescale.model.config` check each value on its own. The rules here need several values
at once (a window and its node pool; a window's start, end, time zone and lead time over a year of
occurrences) and name the exact key they blame, with its value and what would be accepted.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta

from . import failsafe_timing, schedule
from .config import LOCAL_DATETIME, NAMESPACE, EventWindow, NodePoolConfig, StackConfig
from .duration import format_duration, parse_duration
from .quantity import parse_quantity


def stack_problems(config: StackConfig, now: datetime) -> list[str]:
    """Every cross-key problem of a parsed config, as ``key path: message`` lines."""
    problems = _duplicate_names(config) + _endpoint_problems(config)
    grace_problems = _grace_problems(config)
    problems += grace_problems
    grace = parse_duration(config.placeholders.failsafe_grace)
    pools = {pool.name: pool for pool in config.node_pools}
    for index, window in enumerate(config.event_windows):
        path = f"{NAMESPACE}:eventWindows[{index}]"
        pool = pools.get(window.node_pool)
        if pool is None:
            allowed = ", ".join(repr(name) for name in pools) or "none (prescale:nodePools is empty)"
            problems.append(f"{path}.nodePool: {window.node_pool!r} is not a node pool; allowed: {allowed}")
        else:
            problems += _limit_problems(path, window, pool)
        time_problems = window_time_problems(path, window, now)
        problems += time_problems
        if not time_problems and not grace_problems:
            problems += _failsafe_problems(path, window, grace, now)
    return problems


def _endpoint_problems(config: StackConfig) -> list[str]:
    """A new cluster needs an API endpoint its nodes can reach.

    Without one, not even ``pulumi up`` could reach it. Without the private endpoint, nodes in the private
    subnets reach the public one from their NAT gateways' addresses: a limited ``publicAccessCidrs`` would have
    to hold those (AWS, "Cluster API server endpoint"), which prescale cannot promise (a new VPC's NAT
    addresses exist only after `pulumi up`; an existing VPC's are unknown to it), so no node would ever join.
    """
    cluster = config.cluster
    if not cluster.create:
        return []
    if not (cluster.endpoint_public_access or cluster.endpoint_private_access):
        return [f"{NAMESPACE}:cluster.endpointPrivateAccess: false while endpointPublicAccess is false too: the "
                "cluster would have no API endpoint; allowed: true (private, from the VPC), or a public endpoint "
                "limited by publicAccessCidrs"]
    limited = not any(ipaddress.ip_network(cidr).prefixlen == 0 for cidr in cluster.public_access_cidrs)
    if cluster.endpoint_public_access and not cluster.endpoint_private_access and limited:
        return [f"{NAMESPACE}:cluster.endpointPrivateAccess: false while publicAccessCidrs is limited to "
                f"{cluster.public_access_cidrs}: nodes would reach the API only from their NAT gateways' public "
                "addresses, outside that list, so no node could join the cluster; allowed: true (nodes use the "
                "private endpoint, the public one stays limited), or publicAccessCidrs [\"0.0.0.0/0\"]"]
    return []


def _grace_problems(config: StackConfig) -> list[str]:
    grace = config.placeholders.failsafe_grace
    problem = failsafe_timing.grace_problem(parse_duration(grace))
    return [f"{NAMESPACE}:placeholders.failsafeGrace: {grace!r} {problem}"] if problem else []


def _failsafe_problems(path: str, window: EventWindow, grace: timedelta, now: datetime) -> list[str]:
    """The window's failsafe scale-down must fire once after each occurrence, never inside the next one."""
    problem = failsafe_timing.failsafe_problem(window, grace, now)
    if problem is None:
        return []
    return [f"{path}.end: {window.end!r}: {problem} (prescale:placeholders.failsafeGrace is "
            f"{format_duration(grace)}; the failsafe is explained in docs/guardrails.md)"]


def _duplicate_names(config: StackConfig) -> list[str]:
    problems = []
    for key, names in (("nodePools", [p.name for p in config.node_pools]),
                       ("eventWindows", [w.name for w in config.event_windows])):
        first: dict[str, int] = {}  # name → index of its first use (one pass: stacks hold hundreds of windows)
        for index, name in enumerate(names):
            if first.setdefault(name, index) != index:
                problems.append(f"{NAMESPACE}:{key}[{index}].name: {name!r} is already used by "
                                f"{NAMESPACE}:{key}[{first[name]}]; names must be unique")
    return problems


def _limit_problems(path: str, window: EventWindow, pool: NodePoolConfig) -> list[str]:
    problems = []
    if window.capacity is not None:
        for resource in ("cpu", "memory"):
            wanted, limit = getattr(window.capacity, resource), getattr(pool.limits, resource)
            if parse_quantity(wanted) > parse_quantity(limit):
                problems.append(f"{path}.capacity.{resource}: {wanted!r} is above node pool {pool.name!r}'s "
                                f"limit {limit!r}; allowed: at most {limit!r} (raise the pool's limit)")
    if window.nodes is not None and pool.limits.nodes is not None and window.nodes > pool.limits.nodes:
        problems.append(f"{path}.nodes: {window.nodes} is above node pool {pool.name!r}'s limit of "
                        f"{pool.limits.nodes} nodes; allowed: 1 to {pool.limits.nodes}")
    return problems


def window_time_problems(path: str, window: EventWindow, now: datetime) -> list[str]:
    """Whether KEDA would open and close this window exactly when the user means, every time."""
    if window.is_one_off != bool(LOCAL_DATETIME.match(window.end)):
        kinds = ("a date-time", "a cron") if window.is_one_off else ("a cron", "a date-time")
        return [f"{path}.end: {window.end!r} is {kinds[1]} but start {window.start!r} is {kinds[0]}; "
                "allowed: two crons (a recurring window) or two local date-times (a one-off event)"]
    if window.is_one_off:
        return _one_off_problems(path, window)
    return _recurring_problems(path, window, now)


def _one_off_problems(path: str, window: EventWindow) -> list[str]:
    if window.local_end <= window.local_start:
        return [f"{path}.end: {window.end!r} is not after start {window.start!r}; allowed: a later date-time"]
    problems = []
    moments = [("start", window.local_start), ("end", window.local_end)]
    if window.lead:
        moments.append(("leadTime", window.local_start - window.lead))
    for key, moment in moments:
        problem = schedule.dst_problem_local(moment, window.timezone)
        if problem:
            value = window.lead_time if key == "leadTime" else moment.isoformat(timespec="minutes")
            problems.append(f"{path}.{key}: {value!r}: {problem}")
    return problems


def _recurring_problems(path: str, window: EventWindow, now: datetime) -> list[str]:
    if window.start.strip() == window.end.strip():
        return [f"{path}.end: {window.end!r} equals start; KEDA refuses identical start and end "
                "(kedacore/keda#2031); allowed: a different time"]
    try:
        scale_up = schedule.shift_cron(window.start, -window.lead)
    except ValueError as error:
        return [f"{path}.leadTime: {window.lead_time!r} cannot move start {window.start!r} earlier exactly "
                f"({error}); allowed: a shorter lead time, or a start without restricted day-of-month/month"]
    checked = [("start", window.start), ("end", window.end)] + ([("leadTime", scale_up)] if window.lead else [])
    problems = []
    for key, expr in checked:
        problem = (schedule.never_fires_problem(expr, window.timezone, now)
                   or schedule.dst_problem(expr, window.timezone, now))
        if problem:
            shown = f"{window.lead_time!r} (scale-up cron {scale_up!r})" if key == "leadTime" \
                else repr(getattr(window, key))
            problems.append(f"{path}.{key}: {shown}: {problem}")
    if not problems:
        problem = schedule.alternation_problem(window.start, window.end, window.timezone, now)
        if problem:
            problems.append(f"{path}.end: start {window.start!r} and end {window.end!r} do not alternate: "
                            f"{problem}; allowed: the same days in start and end, e.g. '0 9 * * 1-5' → "
                            "'0 17 * * 1-5', or a window across days such as '0 18 * * 5' → '0 6 * * 1'")
    if not problems and window.lead:
        problem = schedule.lead_problem(window.start, window.end, window.timezone, window.lead, now)
        if problem:
            problems.append(f"{path}.leadTime: {window.lead_time!r}: {problem}")
    if not problems:
        problems += _freeze_problems(path, window, now)
    return problems


def _freeze_problems(path: str, window: EventWindow, now: datetime) -> list[str]:
    """Karpenter budgets are UTC crons: the window's freeze must be expressible as one."""
    try:
        schedule.recurring_budget(window.start, window.end, window.timezone, window.lead, now)
    except ValueError as error:
        return [f"{path}.start: {window.start!r} in {window.timezone}: the consolidation freeze cannot be "
                f"written as one UTC disruption budget (Karpenter has no time zones): {error}; allowed: a start "
                "whose UTC time stays on the same day-of-month, e.g. days 2-28 or day-of-week schedules"]
    return []
