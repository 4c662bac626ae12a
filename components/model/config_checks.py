"""Rules that look across keys and through time: the second half of stack-config validation.

The models in :mod:`prescale.model.config` check each value on its own. The rules here need several values
at once (a window and its node pool; a window's start, end, time zone and lead time over a year of
occurrences) and name the exact key they blame, with its value and what would be accepted. They run on every
part of the config that validated on its own: a rule is skipped only when a value it needs was refused
(:class:`~prescale.model.refused.Refused`), so one run reports every problem.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta

from pydantic.alias_generators import to_camel

from . import addresses, capacity_checks, failsafe_timing, pool_checks, reservation_checks, schedule
from .config import (
    AUTO_MODE_EXPIRE_AFTER,
    AUTO_MODE_MAX_NODE_LIFETIME,
    CONFIG_NAMESPACE,
    KARPENTER_INSTALL_KEYS,
    LOCAL_DATETIME,
    CapacityConfig,
    EventWindow,
    KedaConfig,
    StackConfig,
)
from .duration import format_duration, parse_duration
from .refused import NOTHING_REFUSED, Refused
from .subnets import plan_subnets, usable_addresses


def stack_problems(config: StackConfig, now: datetime, refused: Refused = NOTHING_REFUSED) -> list[str]:
    """Every cross-key problem of a parsed stack config, as ``key path: message`` lines."""
    cluster, karpenter = ("cluster" not in refused.sections), ("karpenter" not in refused.sections)
    problems = _endpoint_problems(config) if cluster else []
    if cluster and karpenter:
        problems += _karpenter_problems(config) + _node_role_problems(config)
    if cluster:
        problems += _auto_mode_problems(config, refused, karpenter) + _vpc_cidr_problems(config)
        if "alerts" not in refused.sections:
            problems += _alerts_problems(config)
    region = None if "region" in refused.sections else config.region
    problems += capacity_problems(config, now, refused, auto_mode=config.cluster.auto_mode if cluster else None,
                                  region=region)
    if problems or refused.sections or refused.node_pools or refused.event_windows:
        return problems  # addresses are counted for a wholly valid config only
    return _planned_address_problems(config, now)


def capacity_problems(config: CapacityConfig, now: datetime, refused: Refused = NOTHING_REFUSED,
                      auto_mode: bool | None = None, region: str | None = None) -> list[str]:
    """Every cross-key problem of the node pools and event windows (with or without a platform around them);
    ``auto_mode``: the pools are EKS Auto Mode's (their label keys and ``expireAfter`` default differ), ``None``
    when that is not known here (a library program's platform decides it); ``region``: the stack's AWS region,
    when known."""
    problems = _duplicate_names(config, refused) + pool_checks.pool_problems(config, refused, auto_mode)
    keda = None if "keda" in refused.sections else config.keda
    grace = None  # the failsafe grace, once it is known to be valid
    if keda is not None:
        problems += _keda_version_problems(keda)
    if "placeholders" not in refused.sections:
        grace_problems = _grace_problems(config)
        problems += grace_problems
        grace = None if grace_problems else parse_duration(config.placeholders.failsafe_grace)
    owned = {pool.name: pool.owned for pool in config.node_pools}  # pool name → whether prescale writes its freezes
    spans: dict[int, list[capacity_checks.Span]] = {}  # window index → when it holds placeholders
    for index, window in refused.entries("event_windows", config.event_windows):
        path = f"{CONFIG_NAMESPACE}:eventWindows[{index}]"
        unknown = refused.pool(window.node_pool)  # its pool was refused: nothing is known about it
        if window.node_pool not in owned and not unknown:
            allowed = ", ".join(repr(name) for name in owned) or "none (prescale:nodePools is empty)"
            problems.append(f"{path}.nodePool: {window.node_pool!r} is not a node pool; allowed: {allowed}")
        time_problems = window_time_problems(path, window, now, freeze=owned.get(window.node_pool, not unknown))
        if not time_problems and keda is not None:
            time_problems = _cron_comma_problems(path, window, keda)
        problems += time_problems
        if not time_problems:
            spans[index] = capacity_checks.occupied_spans(window, now)  # now, while its occurrences are cached
            if grace is not None:
                problems += _failsafe_problems(path, window, grace, now)
    problems += _expiry_problems(config, refused, spans, bool(auto_mode))
    problems += reservation_checks.reservation_problems(config, refused, region)
    if "placeholders" in refused.sections:  # every placeholder's size is unknown
        return problems
    return problems + capacity_checks.capacity_problems(config, spans, refused)


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
        return [f"{CONFIG_NAMESPACE}:cluster.endpointPrivateAccess: false while endpointPublicAccess is false too: the "
                "cluster would have no API endpoint; allowed: true (private, from the VPC), or a public endpoint "
                "limited by publicAccessCidrs"]
    limited = not any(ipaddress.ip_network(cidr).prefixlen == 0 for cidr in cluster.public_access_cidrs)
    if cluster.endpoint_public_access and not cluster.endpoint_private_access and limited:
        return [f"{CONFIG_NAMESPACE}:cluster.endpointPrivateAccess: false while publicAccessCidrs is limited to "
                f"{cluster.public_access_cidrs}: nodes would reach the API only from their NAT gateways' public "
                "addresses, outside that list, so no node could join the cluster; allowed: true (nodes use the "
                "private endpoint, the public one stays limited), or publicAccessCidrs [\"0.0.0.0/0\"]"]
    return []


def _karpenter_problems(config: StackConfig) -> list[str]:
    """``karpenter.install: false`` hands the pools to a Karpenter already running in the cluster: a new cluster
    has none, and the keys that shape an install would mean nothing. (On Auto Mode every karpenter key is refused
    on its own.)"""
    karpenter, path = config.karpenter, f"{CONFIG_NAMESPACE}:karpenter"
    if karpenter.install or config.cluster.auto_mode:
        return []
    problems = []
    if config.cluster.create:
        problems.append(f"{path}.install: false with a new cluster (prescale:cluster.create is true): a new cluster "
                        "has no Karpenter of its own, so nothing would launch nodes for its node pools; allowed: "
                        "true (prescale installs Karpenter), prescale:cluster.create: false (an existing cluster "
                        "whose Karpenter runs the pools), or prescale:cluster.autoMode: true (AWS runs Karpenter)")
    problems += [f"{path}.{to_camel(key)}: {getattr(karpenter, key)!r} applies only when install is true (prescale "
                 "installs Karpenter); with install: false the cluster's own Karpenter is used as it is; allowed: "
                 "remove it" for key in KARPENTER_INSTALL_KEYS if key in karpenter.model_fields_set]
    return problems
def _vpc_cidr_problems(config: StackConfig) -> list[str]:
    """The VPC a new cluster gets must split into its zones' subnets (:func:`prescale.model.subnets.plan_subnets`)."""
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


def _planned_address_problems(config: StackConfig, now: datetime) -> list[str]:
    """A VPC prescale creates must hold the busiest moment of the pools that launch into it (by the discovery tag):
    its private subnets' sizes are known before anything exists, and its VPC CNI runs with EKS's defaults."""
    cluster = config.cluster
    pools = addresses.selector_groups(config).get(None)
    if not cluster.create or cluster.vpc_id is not None or not pools:
        return []
    subnets = addresses.planned_subnets(plan_subnets(cluster.vpc_cidr, cluster.availability_zones).private)
    windows = addresses.pool_windows(config, config.event_windows, pools, prefixes=cluster.auto_mode)
    shortfall = addresses.address_shortfall([pool.name for pool in pools], subnets, windows, now,
                                            defaults_certain=not cluster.auto_mode, prefixes=cluster.auto_mode)
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


def _node_role_problems(config: StackConfig) -> list[str]:
    """EC2NodeClasses that prescale creates name a node role; without its own Karpenter, prescale has none."""
    karpenter, cluster = config.karpenter, config.cluster
    if karpenter.install or karpenter.node_role_name is not None or cluster.create or cluster.auto_mode:
        return []  # (a new cluster or Auto Mode with install: false is refused by its own rule)
    needing = [pool.name for pool in config.node_pools if pool.owned and pool.node_class_name is None]
    if not needing:
        return []
    return [f"{CONFIG_NAMESPACE}:karpenter.nodeRoleName: required key is missing: with karpenter.install false, the "
            f"EC2NodeClasses prescale creates (node pools {', '.join(map(repr, needing))}) need the IAM role name "
            "of your Karpenter's nodes. Upstream's controller policy lets Karpenter pass only its own node role "
            "(iam:PassRole on KarpenterNodeRole), so name that role; or give those pools nodeClassName (an "
            "existing EC2NodeClass) or existing: true (an existing NodePool)"]


def _keda_version_problems(keda: KedaConfig) -> list[str]:
    """With ``install: false`` the version is the running KEDA's, and it decides which crons are safe."""
    if keda.install or "version" in keda.model_fields_set:
        return []
    return [f"{CONFIG_NAMESPACE}:keda.version: required key is missing: with keda.install false it is the version of "
            "the KEDA already running in the cluster (the tag of its keda-operator image), which decides the crons "
            "it runs correctly (commas need 2.20.0, kedacore/keda#7448); allowed: that exact version, 2.18.0 or "
            "newer, e.g. \"2.20.2\""]


def _cron_comma_problems(path: str, window: EventWindow, keda: KedaConfig) -> list[str]:
    """KEDA before 2.20 turns a comma in a cron into an invalid metric name: the ScaledObject never works.

    Each comma is blamed on the key that holds it: the scale-up cron's on ``leadTime`` only when moving the start
    earlier made it (the start's own comma is reported once, under ``start``)."""
    if keda.cron_commas_work or window.is_one_off:
        return []
    crons = [("start", window.start), ("end", window.end)]
    if window.lead and "," not in window.start:
        crons.append(("leadTime", schedule.shift_cron(window.start, -window.lead)))
    return [f"{path}.{key}: {expr!r} has a comma, which KEDA {keda.version} (prescale:keda.version) turns into an "
            "invalid metric name (kedacore/keda#7448, fixed in 2.20.0); allowed: ranges such as '1-5' instead of "
            "lists, one window per list item, or KEDA 2.20.0 or newer"
            for key, expr in crons if "," in expr]


def _auto_mode_problems(config: StackConfig, refused: Refused, karpenter: bool) -> list[str]:
    """With ``cluster.autoMode`` AWS runs Karpenter: self-managed settings would be silently ignored, and
    Auto Mode's own limits (no custom AMI, at most 21 days per node) apply to every pool. ``karpenter``: whether
    ``prescale:karpenter`` validated (else its keys are not looked at)."""
    if not config.cluster.auto_mode:
        return []
    why = f"does not apply with {CONFIG_NAMESPACE}:cluster.autoMode: true"
    problems = [f"{CONFIG_NAMESPACE}:karpenter.{to_camel(key)}: {getattr(config.karpenter, key)!r} {why}: AWS runs "
                "Karpenter (its version, credentials and service-linked roles are AWS's); allowed: remove it"
                for key in sorted(config.karpenter.model_fields_set)] if karpenter else []
    lifetime = f"{format_duration(AUTO_MODE_MAX_NODE_LIFETIME)} (21 days)"
    for index, pool in refused.entries("node_pools", config.node_pools):
        path = f"{CONFIG_NAMESPACE}:nodePools[{index}]"
        if not pool.owned:  # a built-in pool (system, general-purpose) or another owner's: used as it is
            continue
        if "ami_alias" in pool.model_fields_set:
            problems.append(f"{path}.amiAlias: {pool.ami_alias!r} {why}: Auto Mode runs only its own AMIs; "
                            "allowed: remove it")
        expire_after, grace = pool.deployed_expire_after(auto_mode=True), pool.termination_grace_period
        if expire_after == "Never":
            problems.append(f"{path}.expireAfter: 'Never' {why}: Auto Mode ends every node after at most "
                            f"{lifetime}; allowed: a duration with expireAfter + terminationGracePeriod <= "
                            f"{lifetime}, or no expireAfter (then {AUTO_MODE_EXPIRE_AFTER!r})")
        elif parse_duration(expire_after) + parse_duration(grace) > AUTO_MODE_MAX_NODE_LIFETIME:
            problems.append(f"{path}.expireAfter: {expire_after!r} plus terminationGracePeriod {grace!r} is "
                            f"longer than Auto Mode lets a node live, {lifetime}; allowed: expireAfter + "
                            f"terminationGracePeriod <= {lifetime}")
    return problems


def _alerts_problems(config: StackConfig) -> list[str]:
    """Alerts need the Prometheus Operator (its PrometheusRule CRD) and kube-state-metrics, which a cluster
    prescale creates does not run: the rule could not even be applied there (docs/alerts.md)."""
    if not (config.alerts.prometheus_rule and config.cluster.create):
        return []
    return [f"{CONFIG_NAMESPACE}:alerts.prometheusRule: true needs a cluster that already runs the Prometheus Operator "
            f"and kube-state-metrics, and a cluster prescale creates ({CONFIG_NAMESPACE}:cluster.create: true) runs "
            "neither, so there would be no PrometheusRule CRD to apply it to and nothing to evaluate it; allowed: "
            f"false here, or true with {CONFIG_NAMESPACE}:cluster.create: false on a cluster that runs both"]


def _expiry_problems(config: CapacityConfig, refused: Refused, spans: dict[int, list[capacity_checks.Span]],
                     auto_mode: bool) -> list[str]:
    """A pool's ``expireAfter`` must outlast every window on it, from scale-up to end: disruption budgets do not
    stop expiry (Karpenter's disruption docs), so a node launched at scale-up that expires earlier goes mid-event."""
    longest: dict[str, tuple[int, EventWindow, int]] = {}  # pool → the window holding nodes longest, in seconds
    for index, window in refused.entries("event_windows", config.event_windows):
        seconds_held = max((end - begin for begin, end in spans.get(index, ())), default=0)
        if seconds_held > longest.get(window.node_pool, (0, window, 0))[2]:
            longest[window.node_pool] = (index, window, seconds_held)
    problems = []
    for pool_index, pool in refused.entries("node_pools", config.node_pools):
        expire_after = pool.deployed_expire_after(auto_mode)
        if not pool.owned or pool.name not in longest or expire_after == "Never":
            continue
        index, window, seconds = longest[pool.name]
        held = format_duration(timedelta(seconds=seconds))
        if parse_duration(expire_after).total_seconds() < seconds:
            problems.append(
                f"{CONFIG_NAMESPACE}:nodePools[{pool_index}].expireAfter: {expire_after!r} is shorter than the {held} "
                f"window {window.name!r} (eventWindows[{index}]) holds its nodes, from scale-up to end: disruption "
                "budgets do not stop expiry, so nodes launched at scale-up would be replaced mid-event; allowed: "
                f"at least {held}" + ("" if auto_mode else ", or Never (the default)"))
    return problems


def _grace_problems(config: CapacityConfig) -> list[str]:
    grace = config.placeholders.failsafe_grace
    problem = failsafe_timing.grace_problem(parse_duration(grace))
    return [f"{CONFIG_NAMESPACE}:placeholders.failsafeGrace: {grace!r} {problem}"] if problem else []


def _failsafe_problems(path: str, window: EventWindow, grace: timedelta, now: datetime) -> list[str]:
    """The window's failsafe scale-down must fire once after each occurrence, never inside the next one."""
    problem = failsafe_timing.failsafe_problem(window, grace, now)
    if problem is None:
        return []
    return [f"{path}.end: {window.end!r}: {problem} (prescale:placeholders.failsafeGrace is "
            f"{format_duration(grace)}; the failsafe is explained in docs/guardrails.md)"]


def _duplicate_names(config: CapacityConfig, refused: Refused) -> list[str]:
    problems = []
    for key, field in (("nodePools", "node_pools"), ("eventWindows", "event_windows")):
        first: dict[str, int] = {}  # name → index of its first use (one pass: stacks hold hundreds of windows)
        for index, entry in refused.entries(field, getattr(config, field)):
            if first.setdefault(entry.name, index) != index:
                problems.append(f"{CONFIG_NAMESPACE}:{key}[{index}].name: {entry.name!r} is already used by "
                                f"{CONFIG_NAMESPACE}:{key}[{first[entry.name]}]; names must be unique")
    return problems


def window_time_problems(path: str, window: EventWindow, now: datetime, freeze: bool = True) -> list[str]:
    """Whether KEDA would open and close this window exactly when the user means, every time, and (``freeze``:
    on a pool prescale owns) whether its consolidation freeze fits one UTC disruption budget."""
    if window.is_one_off != bool(LOCAL_DATETIME.match(window.end)):
        kinds = ("a date-time", "a cron") if window.is_one_off else ("a cron", "a date-time")
        return [f"{path}.end: {window.end!r} is {kinds[1]} but start {window.start!r} is {kinds[0]}; "
                "allowed: two crons (a recurring window) or two local date-times (a one-off event)"]
    if window.is_one_off:
        return _one_off_problems(path, window)
    return _recurring_problems(path, window, now, freeze)


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


def _recurring_problems(path: str, window: EventWindow, now: datetime, freeze: bool) -> list[str]:
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
    if not problems and freeze:
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
