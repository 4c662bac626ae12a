"""The alerting rules of ``prescale:alerts.prometheusRule``, written from the plan; pure (no Pulumi) for promtool.

A rule cannot read the calendar, so the windows' own objects are its clock: KEDA scales a window's placeholder
Deployment up at ``start − leadTime`` and down at the end, so "the window is on" is that Deployment having
replicas, and "the event has started" is its placeholders having been short of Ready for a whole lead time since.
One rule group per node pool with armed windows; each rule names that pool's armed windows (their Deployments,
ScaledObjects and ReplicaSets) and says which one fired in its ``window`` label. Metrics come from
kube-state-metrics, KEDA and Karpenter; which metric, why, and their upstream sources: docs/alerts.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from itertools import groupby
from operator import attrgetter
from typing import TYPE_CHECKING

from ..model.config import NodePoolConfig
from ..model.plan import CapacityPlan
from ..model.schedule.duration import format_duration
from ..model.windows import ArmedWindow
from ..names import PLACEHOLDER_NAMESPACE, node_pool_object_name, placeholder_name

if TYPE_CHECKING:  # the PrometheusRule's shapes, for type checkers only: nothing of the SDK is loaded
    from .crds import AlertingRule, RuleGroup

# KEDA writes the count at its first poll after scale-up (every 15 s): minutes without it mean it cannot.
NOT_SCALED_UP_FOR = timedelta(minutes=2)
# A node is Ready 30 to 80 s after Karpenter launches it (docs/alerts.md): minutes Pending mean none is coming.
PENDING_FOR = timedelta(minutes=5)
# How far back a failed launch still counts (Karpenter gives up on a launch after 5 minutes).
LAUNCH_FAILURES_WITHIN = timedelta(minutes=10)
# Why Karpenter deletes a NodeClaim that never became a node (karpenter `nodeclaim/lifecycle`, v1.14.1).
LAUNCH_FAILURE_REASONS = ("insufficient_capacity", "launch_timeout", "nodeclass_not_ready", "registration_timeout")

_PREFIX = placeholder_name("")  # a window's Deployment and ScaledObject are this prefix + its name
_WINDOW = f"{_PREFIX}(.+)"
_REPLICA_SET_SUFFIX = "-[a-z0-9]+"  # the Deployment's pod-template hash: no '-', so no window's matches another's


def rule_groups(plan: CapacityPlan) -> list[RuleGroup]:
    """The rule groups watching every armed window, one per node pool that has any, in pool-name order."""
    pool_of = attrgetter("window.node_pool")
    return [pool_rules(plan.pools[name].pool, list(windows))
            for name, windows in groupby(sorted(plan.armed, key=pool_of), pool_of)]


def pool_rules(pool: NodePoolConfig, windows: Sequence[ArmedWindow]) -> RuleGroup:
    """The rules for one pool's armed windows: scale-up, Pending placeholders, readiness at the start, launches."""
    names = "|".join(sorted(placeholder_name(armed.window.name) for armed in windows))
    lead_of = attrgetter("window.lead")
    by_lead = groupby(sorted(windows, key=lead_of), lead_of)
    return {"name": f"prescale-pool-{pool.name}", "rules": [
        _not_scaled_up(pool, names), _pending(pool, names),
        *(_not_ready_at_start(pool, lead, [armed.window.name for armed in same]) for lead, same in by_lead),
        _launch_failures(pool, names)]}


def _deployments(metric: str, names: str) -> str:
    return f'{metric}{{namespace="{PLACEHOLDER_NAMESPACE}", deployment=~"{names}"}}'


def _labels(pool: NodePoolConfig, severity: str) -> dict[str, str]:
    return {"severity": severity, "node_pool": pool.name}


def _not_scaled_up(pool: NodePoolConfig, names: str) -> AlertingRule:
    """KEDA's cron trigger is on, yet the Deployment has no replicas: KEDA cannot write the scale."""
    active = f'max by (scaledObject) (keda_scaler_active{{type="scaledobject", scaledObject=~"{names}"}}) == 1'
    scaled = (f'label_replace({_deployments("kube_deployment_spec_replicas", names)} > 0, '
              '"scaledObject", "$1", "deployment", "(.+)")')
    return {
        "alert": "PrescalePlaceholdersNotScaledUp",
        "expr": f'label_replace(\n  {active}\n  unless on (scaledObject)\n  {scaled},\n'
                f'  "window", "$1", "scaledObject", "{_WINDOW}")',
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
    """A placeholder Pending for minutes: no node for it (pool limits, EC2 capacity) or no image."""
    replica_sets = f"({names}){_REPLICA_SET_SUFFIX}"
    owners = (f'label_replace(kube_pod_owner{{namespace="{PLACEHOLDER_NAMESPACE}", owner_kind="ReplicaSet", '
              f'owner_name=~"{replica_sets}"}}, "window", "$1", "owner_name", "{_WINDOW}{_REPLICA_SET_SUFFIX}")')
    return {
        "alert": "PrescalePlaceholdersPending",
        "expr": f'(kube_pod_status_phase{{namespace="{PLACEHOLDER_NAMESPACE}", phase="Pending"}} == 1)\n'
                f'* on (namespace, pod) group_left (window)\n{owners}',
        "for": format_duration(PENDING_FOR),
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": "Placeholder {{ $labels.pod }} of window {{ $labels.window }} has been Pending for "
                       f"{format_duration(PENDING_FOR)}",
            "description": "Karpenter usually has a node Ready for a Pending pod within a minute or two. The pool may "
                           f"be at its limits, EC2 may be out of the pool's instance types (see "
                           f"PrescaleNodeClaimsFailingToLaunch), or the image cannot be pulled: `kubectl -n "
                           f"{PLACEHOLDER_NAMESPACE} describe pod {{{{ $labels.pod }}}}` says which."}}


def _not_ready_at_start(pool: NodePoolConfig, lead: timedelta, windows: Sequence[str]) -> AlertingRule:
    """Short of Ready for a whole lead time since the scale-up: the event starts without its capacity."""
    names = "|".join(sorted(placeholder_name(window) for window in windows))
    short = (f'{_deployments("kube_deployment_status_replicas_ready", names)}\n'
             f'  < {_deployments("kube_deployment_spec_replicas", names)}')
    return {
        "alert": "PrescaleEventStartedNotReady",
        "expr": f'label_replace(\n  {short},\n  "window", "$1", "deployment", "{_WINDOW}")',
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
                           "PrescalePlaceholdersPending and PrescaleNodeClaimsFailingToLaunch say why."}}


def _launch_failures(pool: NodePoolConfig, names: str) -> AlertingRule:
    """Karpenter deleted the pool's NodeClaims that never became nodes, while one of its windows is on."""
    nodepool = node_pool_object_name(pool.name) if pool.owned else pool.name
    failed = (f'karpenter_nodeclaims_disrupted_total{{nodepool="{nodepool}", '
              f'reason=~"{"|".join(LAUNCH_FAILURE_REASONS)}"}}')
    within = format_duration(LAUNCH_FAILURES_WITHIN)
    # increase() needs two samples of a series, and Karpenter creates one at its first failure (value 1): a
    # series missing `within` ago is a new failure too.
    return {
        "alert": "PrescaleNodeClaimsFailingToLaunch",
        "expr": f"sum by (nodepool, reason) (\n  (increase({failed}[{within}]) > 0)\n"
                f"  or ({failed} unless {failed} offset {within})\n) > 0\n"
                f'and on () (max({_deployments("kube_deployment_spec_replicas", names)}) > 0)',
        "labels": _labels(pool, "warning"),
        "annotations": {
            "summary": f"NodeClaims of node pool {pool.name} failed to launch ({{{{ $labels.reason }}}}) while one "
                       "of its windows holds placeholders",
            "description": f"Within {within} Karpenter deleted NodeClaims of NodePool {{{{ $labels.nodepool }}}} "
                           "that never became nodes: insufficient_capacity (EC2 had none of the allowed instance "
                           "types in the allowed zones), launch_timeout or registration_timeout (no instance after "
                           "5 minutes, no node after 15), nodeclass_not_ready (its node class is not Ready). "
                           "Karpenter retries; while it fails, the window's placeholders stay Pending."}}
