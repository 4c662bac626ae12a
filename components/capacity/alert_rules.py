"""The alerting rules of ``prescale:alerts.prometheusRule``, written from the plan; pure (no Pulumi) for promtool.

A rule cannot read the calendar, so the windows' own objects are its clock (a window's placeholder Deployment has
replicas while it is on; a static or buffer window's scale-up CronJob last ran after its scale-down one), and the
rules on KEDA's own series fire at any time, since that clock stops when KEDA stops evaluating a window. One rule
group per node pool with deployed windows; each rule names that pool's windows and says which one fired in its
``window`` label. Which metric, why, and their upstream sources: docs/alerts.md#the-clock-the-windows-own-objects
and docs/alerts.md#static-and-buffer-pools.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import timedelta
from itertools import groupby
from operator import attrgetter
from typing import NotRequired, TypedDict

from ..model.config import NodePoolConfig
from ..model.plan import CapacityPlan
from ..model.schedule.drivers import DriverRun
from ..model.strategies.driven import converge_name, driver_failsafe_name, driver_names, prepull_name
from ..model.strategies.static import StaticNodes
from ..model.values.duration import format_duration
from ..model.windows import ArmedWindow
from ..names import PLACEHOLDER_NAMESPACE, node_pool_object_name, placeholder_name
from ..series import (
    DEPLOYMENT_READY,
    JOB_OWNER,
    JOB_START,
    KARPENTER_BUILD_INFO,
    READY_NODE,
    SCALER_ACTIVE,
    launch_failures,
    nodes_of_pool,
)

# The PrometheusRule's (monitoring.coreos.com/v1) groups and rules, in its CRD's own keys; the resource itself is
# prescale.capacity.crds.PrometheusRule. Here, not there, so that the rules load no Pulumi SDK (promtool tests them).
# `for` is a Python keyword, hence the functional form.
AlertingRule = TypedDict("AlertingRule", {"alert": str, "expr": str, "for": NotRequired[str],
                                          "labels": dict[str, str], "annotations": dict[str, str]})


class RuleGroup(TypedDict):
    name: str  # unique in the PrometheusRule (the CRD's list-map key)
    rules: list[AlertingRule]


# KEDA re-creates a running ScaledObject's scaler series within one poll (15 s) of deleting it at each
# reconcile: minutes without a sample mean no scale loop runs for it.
SCALER_ABSENT_FOR = timedelta(minutes=5)
# A pause lifted within minutes (a quick fix) is no alarm; one left on is.
PAUSED_FOR = timedelta(minutes=5)
# KEDA writes the count at its first poll after scale-up (every 15 s): minutes without it mean it cannot.
NOT_SCALED_UP_FOR = timedelta(minutes=2)
# A node is Ready 30 to 80 s after Karpenter launches it (docs/alerts.md): minutes unscheduled mean none is coming.
PENDING_FOR = timedelta(minutes=5)
# The kubelet retries a failed pull with a back-off; failing for minutes is no passing registry hiccup.
PULL_FAILING_FOR = timedelta(minutes=5)
# How far back an error or a failed launch still counts (Karpenter gives up on a launch after 5 minutes).
FAILURES_WITHIN = timedelta(minutes=10)
# A container's waiting reasons when its image cannot be pulled (kubernetes `pkg/kubelet/images/types.go`); while
# an image is still being pulled an init container waits as `PodInitializing`, which is no failure.
PULL_FAILURE_REASONS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
                        "ImageInspectError", "RegistryUnavailable")

# Karpenter creates a static NodePool's NodeClaims at once, and a node is Ready 30 to 80 s after its launch: minutes
# short of the count mean they are not coming.
STATIC_SHORT_FOR = timedelta(minutes=5)
# Karpenter retries a pod it cannot place at every batch (1 to 10 s): minutes of it mean it cannot.
UNPLACEABLE_FOR = timedelta(minutes=5)

_PREFIX = placeholder_name("")  # a window's Deployment and ScaledObject are this prefix + its name
_WINDOW = f"{_PREFIX}(.+)"
_REPLICA_SET_SUFFIX = "-[a-z0-9]+"  # the Deployment's pod-template hash: no '-', so no window's matches another's
_UP, _DOWN = driver_names("")  # a window's driver CronJobs are these prefixes + its name
_FAILSAFE, _CONVERGE = driver_failsafe_name(""), converge_name("")  # its failsafe CronJob and its converge Job
_RUNS = f"({_UP[:-1]}|{_DOWN[:-1]}|{_FAILSAFE[:-1]})-(.+)"  # a driver CronJob's name: its run, then its window
PREPULL_PREFIX = prepull_name("")  # a static or buffer window's pre-pull DaemonSet
# KEDA's HPA for a ScaledObject (kedacore/keda v2.20.2 controllers/keda/hpa.go getHPAName, no custom name set): the
# ScaledObject owns it, so it goes with it, unlike KEDA's own series of the ScaledObject, which stay until the operator
# restarts (controllers/keda/scaledobject_controller.go: the delete path removes none).
_HPA_PREFIX = "keda-hpa-"


def rule_groups(plan: CapacityPlan) -> list[RuleGroup]:
    """The rule groups watching every deployed window, one per node pool that has any, in pool-name order, each
    written by its pool's strategy's rules (:data:`RULES`; a strategy without rules of its own gets none)."""
    by_pool: dict[str, list[ArmedWindow]] = defaultdict(list)
    for window in plan.armed:
        by_pool[window.window.node_pool].append(window)
    return [RULES[strategy](plan.pools[name].pool, by_pool[name]) for name in sorted(by_pool)
            if (strategy := plan.pools[name].strategy.name) in RULES]


def pool_rules(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> RuleGroup:
    """The rules for one pool's armed windows: KEDA evaluating them, scale-up, placeholders without a node or an
    image, readiness at the start, launches."""
    objects = sorted(placeholder_name(armed.window.name) for armed in windows)
    names = "|".join(objects)
    lead_of = attrgetter("window.lead")
    by_lead = groupby(sorted(windows, key=lead_of), lead_of)
    return {"name": f"prescale-pool-{pool.name}", "rules": [
        _paused(pool, names), _not_evaluated(pool, objects), _scaled_object_gone(pool, objects),
        _keda_errors(pool, names),
        _not_scaled_up(pool, names), _pending(pool, names),
        _pull_failing(pool, "PrescalePlaceholderImagePullFailing", _placeholder_pods(names), "Placeholder",
                      "the placeholder"),
        *(_not_ready_at_start(pool, lead, [armed.window.name for armed in same]) for lead, same in by_lead),
        _launch_failures(pool, [node_pool_object_name(pool.name) if pool.owned else pool.name],
                         f'(max({_deployments("kube_deployment_spec_replicas", names)}) > 0)',
                         "one of its windows holds placeholders")]}


def static_rules(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> RuleGroup:
    """The rules for one static pool's windows: each window's nodes against its count, and whether they can be
    counted, then the driven windows' rules (:func:`driven_rules`) on the windows' own NodePools."""
    windows = sorted(windows, key=attrgetter("window.name"))
    nodepools = [window.capacity.node_pool_name for window in windows if isinstance(window.capacity, StaticNodes)]
    return driven_rules(pool, windows, [*(_static_short(pool, window) for window in windows),
                                        _node_count_missing(pool, windows)], nodepools)


def buffer_rules(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> RuleGroup:
    """The rules for one buffer pool's windows: pods Karpenter cannot place while a buffer is up, then the driven
    windows' rules (:func:`driven_rules`) on the pool's NodePool."""
    windows = sorted(windows, key=attrgetter("window.name"))
    return driven_rules(pool, windows, [_buffer_unplaceable(pool, windows)], [node_pool_object_name(pool.name)])


def driven_rules(pool: NodePoolConfig, windows: Sequence[ArmedWindow], own: list[AlertingRule],
                 nodepools: list[str]) -> RuleGroup:
    """A driven pool's group: its strategy's ``own`` rules, then a driver run or converge Job that gave up, the
    pre-pull DaemonSets' images, and launches on ``nodepools`` while a window is on."""
    prepulls = sorted(window.capacity.prepull.name for window in windows if window.capacity.prepull is not None)
    return {"name": f"prescale-pool-{pool.name}", "rules": [
        *own, _driver_failed(pool, windows), _converge_failed(pool, windows),
        *([_pull_failing(pool, "PrescalePrepullImagePullFailing",
                         _of_windows_pods("DaemonSet", "|".join(prepulls), f"{PREPULL_PREFIX}(.+)"),
                         "Pre-pull pod", "the pre-pull DaemonSet's pod")] if prepulls else []),
        _launch_failures(pool, nodepools, _driver_on(windows), "one of its windows is on")]}


def _deployments(metric: str, names: str) -> str:
    return f'{metric}{{namespace="{PLACEHOLDER_NAMESPACE}", deployment=~"{names}"}}'


def _labels(pool: NodePoolConfig, severity: str) -> dict[str, str]:
    return {"severity": severity, "node_pool": pool.name}


def _by_window(expr: str, source: str) -> str:
    """``expr`` with a ``window`` label, read from its ``source`` label (a placeholder object's name)."""
    return f'label_replace(\n  {expr},\n  "window", "$1", "{source}", "{_WINDOW}")'


def _of_windows_pods(owner_kind: str, owners: str, window_of_owner: str) -> str:
    """A join that keeps the series of the pods that ``owner_kind`` objects named ``owners`` (a regex) own, with a
    ``window`` label read from the owner's name by ``window_of_owner``: a window's placeholder pods (by their
    ReplicaSets) or its pre-pull DaemonSet's pods."""
    return (f'label_replace(kube_pod_owner{{namespace="{PLACEHOLDER_NAMESPACE}", owner_kind="{owner_kind}", '
            f'owner_name=~"{owners}"}}, "window", "$1", "owner_name", "{window_of_owner}")')


def _placeholder_pods(names: str) -> str:
    """:func:`_of_windows_pods` for the placeholder pods of the Deployments ``names`` (by their ReplicaSets)."""
    return _of_windows_pods("ReplicaSet", f"({names}){_REPLICA_SET_SUFFIX}", f"{_WINDOW}{_REPLICA_SET_SUFFIX}")


def _of_windows(expr: str, owners: str) -> str:
    """``expr``'s series of the pods ``owners`` (:func:`_of_windows_pods`) stands for, with a ``window`` label."""
    return f"{expr}\n* on (namespace, pod) group_left (window)\n{owners}"


def _grew(counter: str, within: str) -> str:
    """The series of ``counter`` that counted something within ``within``, to be summed and kept when > 0.

    ``increase()`` sees no growth in a series' first sample (prometheus/prometheus#1673), and KEDA and Karpenter
    create a series at its first count (KEDA also at 0, and again after each reconcile or restart): a series
    missing ``within`` ago counts with what it holds.
    """
    return f"(increase({counter}[{within}]) > 0)\n  or ({counter} unless {counter} offset {within})"


def _paused(pool: NodePoolConfig, names: str) -> AlertingRule:
    """A window's ScaledObject paused: KEDA runs no scale loop for it (or scales only one way)."""
    paused = f'max by (scaledObject) (keda_scaled_object_paused{{scaledObject=~"{names}"}}) == 1'
    return {
        "alert": "PrescaleScaledObjectPaused",
        "expr": _by_window(paused, "scaledObject"),
        "for": format_duration(PAUSED_FOR),
        "labels": _labels(pool, "critical"),
        "annotations": {
            "summary": "ScaledObject {{ $labels.scaledObject }} of window {{ $labels.window }} is paused",
            "description": f"KEDA has reported ScaledObject {PLACEHOLDER_NAMESPACE}/{{{{ $labels.scaledObject }}}} "
                           f"paused for {format_duration(PAUSED_FOR)} (an autoscaling.keda.sh/paused, "
                           "paused-replicas, paused-scale-out or paused-scale-in annotation). While it is, KEDA "
                           "does not scale the window's placeholders up: its next event starts without them. "
                           "Remove the annotation, or `pulumi up` to restore the ScaledObject prescale wrote."}}


def _not_evaluated(pool: NodePoolConfig, objects: Sequence[str]) -> AlertingRule:
    """No scaler series of a window for minutes: KEDA does not evaluate its trigger at all (a paused one is told
    by its own alert)."""
    within = format_duration(SCALER_ABSENT_FOR)
    # absent_over_time() gives a series the labels of its equality matchers only: one call per ScaledObject.
    absent = "\n    or ".join(f'absent_over_time({SCALER_ACTIVE}{{type="scaledobject", scaledObject="{name}"}}'
                              f"[{within}])" for name in objects)
    return {
        "alert": "PrescaleWindowTriggerNotEvaluated",
        "expr": _by_window(f"max by (scaledObject) (\n    {absent}\n  )\n"
                           "  unless on (scaledObject) (keda_scaled_object_paused == 1)", "scaledObject"),
        "labels": _labels(pool, "critical"),
        "annotations": {
            "summary": "KEDA is not evaluating window {{ $labels.window }}'s trigger",
            "description": f"KEDA has reported no keda_scaler_active for ScaledObject {PLACEHOLDER_NAMESPACE}/"
                           f"{{{{ $labels.scaledObject }}}} for {within}: no scale loop runs for it (its check "
                           "failed, or the ScaledObject is gone), or the KEDA operator is down or not scraped. "
                           "Nothing will scale the window's placeholders up: its next event starts without "
                           "them. See the ScaledObject's Ready condition and the KEDA operator's log."}}


def _scaled_object_gone(pool: NodePoolConfig, objects: Sequence[str]) -> AlertingRule:
    """The HPA KEDA keeps for a window's ScaledObject is gone for minutes: the ScaledObject was deleted (KEDA's own
    series of it stay until its operator restarts, so :func:`_not_evaluated` cannot tell), or KEDA cannot keep it.
    A paused ScaledObject has no HPA on purpose and is told by its own alert."""
    within = format_duration(SCALER_ABSENT_FOR)
    # absent_over_time() gives a series the labels of its equality matchers only: one call per HPA.
    absent = "\n    or ".join(
        f'absent_over_time(kube_horizontalpodautoscaler_spec_max_replicas{{namespace="{PLACEHOLDER_NAMESPACE}", '
        f'horizontalpodautoscaler="{_HPA_PREFIX}{name}"}}[{within}])' for name in objects)
    gone = (f'label_replace(\n    {absent},\n    "scaledObject", "$1", "horizontalpodautoscaler", '
            f'"{_HPA_PREFIX}(.+)")\n  unless on (scaledObject) (keda_scaled_object_paused == 1)')
    return {
        "alert": "PrescaleScaledObjectGone",
        "expr": _by_window(f"max by (scaledObject) (\n  {gone}\n  )", "scaledObject"),
        "labels": _labels(pool, "critical"),
        "annotations": {
            "summary": "Window {{ $labels.window }}'s ScaledObject has no HPA: it was deleted, or KEDA cannot keep it",
            "description": f"kube-state-metrics has shown no HPA {_HPA_PREFIX}{{{{ $labels.scaledObject }}}} in "
                           f"namespace {PLACEHOLDER_NAMESPACE} for {within}. KEDA keeps one for every ScaledObject "
                           "that is not paused and the ScaledObject owns it, so the ScaledObject was most likely "
                           "deleted (KEDA's own series of it stay until its operator restarts). Nothing will scale "
                           "the window's placeholders up: its next event starts without them. `pulumi up` restores "
                           "it; `kubectl -n prescale get scaledobject` shows what is there."}}


def _keda_errors(pool: NodePoolConfig, names: str) -> AlertingRule:
    """KEDA counted errors evaluating a window's ScaledObject (building its scalers, running its trigger)."""
    within = format_duration(FAILURES_WITHIN)
    errors = f'keda_scaled_object_errors_total{{scaledObject=~"{names}"}}'
    return {
        "alert": "PrescaleScaledObjectErrors",
        "expr": _by_window(f"sum by (scaledObject) (\n  {_grew(errors, within)}\n  ) > 0", "scaledObject"),
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": "KEDA failed evaluating window {{ $labels.window }}'s ScaledObject",
            "description": f"Within {within} KEDA counted errors for ScaledObject {PLACEHOLDER_NAMESPACE}/"
                           "{{ $labels.scaledObject }} (keda_scaled_object_errors_total; which scaler: "
                           "keda_scaler_detail_errors_total). While its trigger fails, KEDA neither opens nor "
                           "closes the window. The ScaledObject's events (KEDAScalerFailed) and the KEDA "
                           "operator's log say why."}}


def _not_scaled_up(pool: NodePoolConfig, names: str) -> AlertingRule:
    """KEDA's cron trigger is on, yet the Deployment has no replicas: KEDA cannot write the scale."""
    active = f'max by (scaledObject) ({SCALER_ACTIVE}{{type="scaledobject", scaledObject=~"{names}"}}) == 1'
    scaled = (f'label_replace({_deployments("kube_deployment_spec_replicas", names)} > 0, '
              '"scaledObject", "$1", "deployment", "(.+)")')
    return {
        "alert": "PrescalePlaceholdersNotScaledUp",
        "expr": _by_window(f"{active}\n  unless on (scaledObject)\n  {scaled}", "scaledObject"),
        "for": format_duration(NOT_SCALED_UP_FOR),
        "labels": _labels(pool, "critical"),
        "annotations": {
            "summary": "KEDA turned window {{ $labels.window }} on, but its placeholders were not scaled up",
            "description": f"The cron trigger of ScaledObject {PLACEHOLDER_NAMESPACE}/{{{{ $labels.scaledObject }}}} "
                           f"has been active for {format_duration(NOT_SCALED_UP_FOR)} while Deployment "
                           f"{PLACEHOLDER_NAMESPACE}/{{{{ $labels.scaledObject }}}} has no replicas: no capacity is "
                           "being prepared for the event. See the ScaledObject's conditions and the KEDA operator's "
                           "log."}}


def _pending(pool: NodePoolConfig, names: str) -> AlertingRule:
    """A placeholder the scheduler has placed on no node for minutes: no node is coming for it."""
    unscheduled = f'(kube_pod_status_scheduled{{namespace="{PLACEHOLDER_NAMESPACE}", condition="false"}} == 1)'
    return {
        "alert": "PrescalePlaceholdersPending",
        "expr": _of_windows(unscheduled, _placeholder_pods(names)),
        "for": format_duration(PENDING_FOR),
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": "Placeholder {{ $labels.pod }} of window {{ $labels.window }} has had no node for "
                       f"{format_duration(PENDING_FOR)}",
            "description": "Karpenter usually has a node Ready for an unschedulable pod within a minute or two. The "
                           "pool may be at its limits, EC2 may be out of the pool's instance types (see "
                           "PrescaleNodeClaimsFailingToLaunch), or its NodePool or node class may not be Ready "
                           f"(`prescale status` shows both): `kubectl -n {PLACEHOLDER_NAMESPACE} describe pod "
                           "{{ $labels.pod }}` has the scheduler's reason."}}


def _pull_failing(pool: NodePoolConfig, alert: str, owners: str, who: str, whose: str) -> AlertingRule:
    """``alert``: a pod of the windows' (``owners``: :func:`_of_windows_pods`) on its node that cannot pull an image:
    a placeholder never gets Ready, a pre-pull pod leaves the event's images unpulled on its node."""
    reasons = "|".join(PULL_FAILURE_REASONS)
    waiting = "\n  or ".join(f'{metric}{{namespace="{PLACEHOLDER_NAMESPACE}", reason=~"{reasons}"}}' for metric in
                             ("kube_pod_init_container_status_waiting_reason",
                              "kube_pod_container_status_waiting_reason"))
    # By pod: the reason flips between ErrImagePull and ImagePullBackOff at each retry, a new series each time.
    return {
        "alert": alert,
        "expr": _of_windows(f"max by (namespace, pod) (\n  {waiting}\n)", owners),
        "for": format_duration(PULL_FAILING_FOR),
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": f"{who} {{{{ $labels.pod }}}} of window {{{{ $labels.window }}}} cannot pull an image",
            "description": f"For {format_duration(PULL_FAILING_FOR)} a container of {whose} (a prepull "
                           "image's init container, or its own) has been waiting with ErrImagePull, "
                           "ImagePullBackOff or another pull failure: the image name, the registry or the pull "
                           "secret is wrong, so the event's pods pull their images when they start instead of "
                           f"before. `kubectl -n {PLACEHOLDER_NAMESPACE} describe pod {{{{ $labels.pod }}}}` says "
                           "which image."}}


def _not_ready_at_start(pool: NodePoolConfig, lead: timedelta, windows: Sequence[str]) -> AlertingRule:
    """Short of Ready for a whole lead time since the scale-up: the event starts without its capacity."""
    names = "|".join(sorted(placeholder_name(window) for window in windows))
    short = (f'{_deployments(DEPLOYMENT_READY, names)}\n'
             f'  < {_deployments("kube_deployment_spec_replicas", names)}')
    return {
        "alert": "PrescaleEventStartedNotReady",
        "expr": _by_window(short, "deployment"),
        "for": format_duration(lead),
        # Rules of one pool differ only in their lead time: the label tells them (and their alerts) apart.
        "labels": {**_labels(pool, "critical"), "lead_time": format_duration(lead)},
        "annotations": {
            "summary": "Window {{ $labels.window }}'s event is starting short of capacity (placeholders Ready: "
                       "{{ $value }})",
            "description": "The placeholders of Deployment "
                           f"{PLACEHOLDER_NAMESPACE}/{{{{ $labels.deployment }}}} have not all been Ready at any "
                           f"moment of the last {format_duration(lead)}, the window's lead time, which began when "
                           "KEDA scaled them up: the event starts without the capacity it was to have. "
                           "PrescalePlaceholdersPending, PrescalePlaceholderImagePullFailing and "
                           "PrescaleNodeClaimsFailingToLaunch say why."}}


def _launch_failures(pool: NodePoolConfig, nodepools: Sequence[str], on: str, while_on: str) -> AlertingRule:
    """Karpenter deleted NodeClaims of the pool's NodePools that never became nodes, while ``on`` (one of its
    windows is on: ``while_on``)."""
    # One name exactly (an existing pool's may hold a '.'); a static pool's windows' NodePools as a regex.
    matcher = f'="{nodepools[0]}"' if len(nodepools) == 1 else f'=~"{"|".join(nodepools)}"'
    failed = launch_failures(matcher)
    within = format_duration(FAILURES_WITHIN)
    return {
        "alert": "PrescaleNodeClaimsFailingToLaunch",
        "expr": f"sum by (nodepool, reason) (\n  {_grew(failed, within)}\n) > 0\nand on () {on}",
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": f"NodeClaims of node pool {pool.name} failed to launch ({{{{ $labels.reason }}}}) while "
                       f"{while_on}",
            "description": f"Within {within} Karpenter deleted NodeClaims of NodePool {{{{ $labels.nodepool }}}} "
                           "that never became nodes: insufficient_capacity (EC2 had none of the allowed instance "
                           "types in the allowed zones), launch_timeout or registration_timeout (no instance after "
                           "5 minutes, no node after 15), nodeclass_not_ready (its node class is not Ready). "
                           "Karpenter retries; while it fails, the window's capacity is short."}}


def _runs(window: ArmedWindow) -> tuple[DriverRun, ...]:
    return window.capacity.driver.runs if window.capacity.driver is not None else ()


def _driver_on(windows: Sequence[ArmedWindow]) -> str:
    """One series per window its driver holds at its count now, labelled ``namespace`` and ``window`` only: its
    scale-up CronJob last ran later than its scale-down one, or the scale-down never ran (kube-state-metrics'
    lastScheduleTime, set when the CronJob controller starts a run). A static window is so from scale-up to its
    end, a buffer to its start."""
    def runs(prefix: str) -> str:
        names = "|".join(sorted(f"{prefix}{window.window.name}" for window in windows))
        return (f'label_replace(kube_cronjob_status_last_schedule_time{{namespace="{PLACEHOLDER_NAMESPACE}", '
                f'cronjob=~"{names}"}}, "window", "$1", "cronjob", "{prefix}(.+)")')
    up, down = runs(_UP), runs(_DOWN)
    later = f"({up}\n  > on (namespace, window)\n  {down})"
    never = f"({up}\n  unless on (namespace, window)\n  {down})"
    return f"max by (namespace, window) (\n  {later}\n  or\n  {never}\n)"


def _nodes_of(nodepool: str) -> str:
    """One series per node of NodePool ``nodepool``, labelled ``node``: from kube-state-metrics' node labels where
    they carry the NodePool (its ``--metric-labels-allowlist=nodes=[karpenter.sh/nodepool]``; EKS Auto Mode's nodes
    carry it too), else from Karpenter's own node series where Karpenter is scraped."""
    labelled = nodes_of_pool(f'="{nodepool}"')
    return (f'max by (node) (\n      {labelled}\n'
            f'      or label_replace(karpenter_nodes_allocatable{{nodepool="{nodepool}", resource_type="cpu"}}, '
            '"node", "$1", "node_name", "(.+)")\n    )')


# Whether nodes can be counted by NodePool at all: some node's kube-state-metrics labels carry one, or Karpenter's
# series are scraped (its build info is always exported).
_COUNTABLE = "(count(" + nodes_of_pool('!=""') + f") > 0 or count({KARPENTER_BUILD_INFO}) > 0)"


def _static_short(pool: NodePoolConfig, window: ArmedWindow) -> AlertingRule:
    """A static window's NodePool with fewer Ready nodes than its count, minutes after its scale-up run, where its
    nodes can be counted (:func:`_node_count_missing` tells when they cannot, rather than paging for nodes that may
    well be there)."""
    capacity = window.capacity
    assert isinstance(capacity, StaticNodes)
    nodepool, nodes = capacity.node_pool_name, capacity.nodes
    ready = (f"count (\n    {_nodes_of(nodepool)}\n"
             f'    * on (node) group_left () ({READY_NODE} == 1)\n'
             "  )")
    return {
        "alert": "PrescaleStaticNodePoolShort",
        "expr": f"(\n  {ready}\n  or vector(0)\n) < {nodes}\nand on () {_driver_on([window])}\nand on () {_COUNTABLE}",
        "for": format_duration(STATIC_SHORT_FOR),
        "labels": {**_labels(pool, "critical"), "window": window.window.name, "nodepool": nodepool},
        "annotations": {
            "summary": f"Static NodePool {nodepool} of window {window.window.name} has {{{{ $value }}}} of its "
                       f"{nodes} nodes Ready",
            "description": f"{format_duration(STATIC_SHORT_FOR)} after its scale-up run (CronJob "
                           f"{PLACEHOLDER_NAMESPACE}/{capacity.driver.up.name}) the window's NodePool has "
                           f"fewer than its {nodes} nodes Ready: Karpenter creates them all at once, so they are not "
                           "coming. The run may have failed (PrescaleDriverRunFailed), EC2 may be out of the pool's "
                           "type (PrescaleNodeClaimsFailingToLaunch), Karpenter's StaticCapacity gate may be off, or "
                           f"the NodePool or its node class may not be Ready: `prescale status` shows each."}}


def _node_count_missing(pool: NodePoolConfig, static: Sequence[ArmedWindow]) -> AlertingRule:
    """A static window is on and no series says which node belongs to which NodePool: its nodes cannot be counted,
    so :func:`_static_short` stays silent, and this says what to turn on instead of paging."""
    return {
        "alert": "PrescaleNodeCountMetricsMissing",
        "expr": f"{_driver_on(static)}\nunless on () {_COUNTABLE}",
        "for": format_duration(STATIC_SHORT_FOR),
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": "The nodes of window {{ $labels.window }}'s static NodePool cannot be counted",
            "description": "No node series carries its NodePool: kube-state-metrics exports node labels only when "
                           "--metric-labels-allowlist=nodes=[karpenter.sh/nodepool] names it, and Karpenter's own "
                           "metrics are not scraped (the chart's serviceMonitor.enabled; EKS Auto Mode has none). "
                           "So PrescaleStaticNodePoolShort cannot tell whether the window's nodes are Ready. Turn on "
                           "one of the two (docs/alerts.md); until then `prescale status` shows the nodes. (With "
                           "the allowlist on, this also fires when no node of any NodePool exists, the window's "
                           "included.)"}}


def _buffer_unplaceable(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> AlertingRule:
    """Karpenter cannot place some pending pods, for minutes, while a buffer window of the pool is on (no metric
    says which CapacityBuffer: its virtual pods count among those of the whole cluster)."""
    unplaceable = 'max (karpenter_scheduler_unschedulable_pods_count{controller="provisioner"}) > 0'
    return {
        "alert": "PrescaleBufferCannotProvision",
        "expr": f"{_driver_on(windows)}\nand on () ({unplaceable})",
        "for": format_duration(UNPLACEABLE_FOR),
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": "Karpenter cannot place some pending pods while window {{ $labels.window }}'s "
                       "CapacityBuffer is up",
            "description": f"For {format_duration(UNPLACEABLE_FOR)} of the buffer's lead time Karpenter's provisioner "
                           "has found pods it cannot place on any node or new NodeClaim "
                           "(karpenter_scheduler_unschedulable_pods_count): the buffer's virtual pods count there, "
                           "beside every other pending pod of the cluster, since no metric tells one CapacityBuffer "
                           "apart. If they are the buffer's, its Provisioning condition stays False: the pool's "
                           "limits, its instance types or its NodePool may not allow them. `kubectl -n "
                           f"{PLACEHOLDER_NAMESPACE} get capacitybuffer {_PREFIX}{{{{ $labels.window }}}} -o yaml` "
                           "and `prescale status` show its conditions."}}


def _driver_failed(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> AlertingRule:
    """A driver CronJob's Job that failed (its deadline passed, its retries spent) after the CronJob's last success:
    the count it was to set may not be set."""
    names = "|".join(sorted(run.name for window in windows for run in _runs(window)))
    where = f'namespace="{PLACEHOLDER_NAMESPACE}"'
    failed = (f"{JOB_START}{{{where}}}\n"
              f'    * on (namespace, job_name) group_left (owner_name)\n'
              f'    {JOB_OWNER}{{{where}, owner_kind="CronJob", owner_name=~"{names}"}}\n'
              f'    and on (namespace, job_name) (kube_job_failed{{{where}, condition="true"}} == 1)')
    succeeded = (f'kube_cronjob_status_last_successful_time{{{where}, cronjob=~"{names}"}}\n'
                 f'    or on (namespace, cronjob) (0 * kube_cronjob_created{{{where}, cronjob=~"{names}"}})')
    since_success = (f'label_replace(\n    {failed},\n    "cronjob", "$1", "owner_name", "(.+)")\n'
                     f"  > on (namespace, cronjob) group_left ()\n  (\n    {succeeded}\n  )")
    return {
        "alert": "PrescaleDriverRunFailed",
        "expr": f'label_replace(\n  {since_success},\n  "window", "$2", "cronjob", "{_RUNS}")',
        "labels": _labels(pool, "critical"),
        "annotations": {
            "summary": "Job {{ $labels.job_name }} of window {{ $labels.window }}'s driver failed",
            "description": f"Job {PLACEHOLDER_NAMESPACE}/{{{{ $labels.job_name }}}} of CronJob "
                           "{{ $labels.cronjob }} failed (its deadline passed, or its retries were spent) and the "
                           "CronJob has not succeeded since: the count it sets may not be set. A scale-up that gave up "
                           "leaves the window without its nodes; a scale-down keeps them, and pays for them, until "
                           "the next run. `kubectl -n "
                           f"{PLACEHOLDER_NAMESPACE} logs job/{{{{ $labels.job_name }}}}` has kubectl's error (RBAC, "
                           "a missing object, the API server)."}}


def _converge_failed(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> AlertingRule:
    """The Job a `pulumi up` registers to set a window's count now failed, and no driver run of the window succeeded
    since: the count may be wrong until the window's next run."""
    where = f'namespace="{PLACEHOLDER_NAMESPACE}"'
    jobs = "|".join(sorted(converge_name(window.window.name) for window in windows))
    runs = "|".join(sorted(run.name for window in windows for run in _runs(window)))
    failed = (f'label_replace(\n    {JOB_START}{{{where}, job_name=~"{jobs}"}}\n'
              f'    and on (namespace, job_name) (kube_job_failed{{{where}, condition="true"}} == 1),\n'
              f'    "window", "$1", "job_name", "{_CONVERGE}(.+)")')
    succeeded = (f'max by (namespace, window) (label_replace(\n      kube_cronjob_status_last_successful_time'
                 f'{{{where}, cronjob=~"{runs}"}}\n      or on (namespace, cronjob) (0 * kube_cronjob_created'
                 f'{{{where}, cronjob=~"{runs}"}}),\n      "window", "$2", "cronjob", "{_RUNS}"))')
    return {
        "alert": "PrescaleConvergeJobFailed",
        "expr": f"{failed}\n  > on (namespace, window) group_left ()\n  {succeeded}",
        "labels": _labels(pool, "critical"),
        "annotations": {
            "summary": "Job {{ $labels.job_name }}, which sets window {{ $labels.window }}'s count now, failed",
            "description": f"Job {PLACEHOLDER_NAMESPACE}/{{{{ $labels.job_name }}}}, registered by the last `pulumi "
                           "up` to set the window's count to what it is now, failed, and no run of the window's "
                           "driver has succeeded since: the count may stay wrong until its next run (a window just "
                           "added mid-event may hold no capacity). `kubectl -n "
                           f"{PLACEHOLDER_NAMESPACE} logs job/{{{{ $labels.job_name }}}}` has kubectl's error; the "
                           "docs' converge section (docs/capacity.md) shows how to run it again by hand."}}


# Each strategy's rules for one pool's deployed windows, by strategy name.
RULES: dict[str, Callable[[NodePoolConfig, Sequence[ArmedWindow]], RuleGroup]] = {
    "placeholders": pool_rules, "static": static_rules, "buffer": buffer_rules}
