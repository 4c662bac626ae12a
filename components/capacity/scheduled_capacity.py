"""Per event window: a placeholder Deployment that KEDA scales up before the event and back to zero after it.

The placeholders are pause containers at a negative priority (the shared PriorityClass built by
:mod:`prescale.capacity`): they only *hold* room. While they are Pending, Karpenter launches nodes for
them on the window's NodePool; when the event's real pods arrive, the scheduler preempts placeholders to
make room at once instead of waiting for new nodes. Each window has its own Deployment and ScaledObject,
so windows never interfere: overlapping windows on one pool hold the **sum** of their capacity (see
``docs/capacity.md``).

KEDA sets the count itself: idle-replica mode
---------------------------------------------
The ScaledObject has ``idleReplicaCount: 0`` and ``minReplicaCount = maxReplicaCount = N`` (the window's
placeholder count; idle mode since KEDA 2.4, kedacore/keda#1958). KEDA's executor
(``pkg/scaling/executor/scale_scaledobjects.go``; reworked between 2.18.0 and 2.20.2, with the same idle-mode
decisions, ``docs/capacity.md``) then writes the scale subresource itself at both ends of the window, without the
HPA:

* trigger active and fewer than N replicas → ``scaleFromZeroOrIdle`` writes N at once (and restores N if
  anything lowered it during the window);
* trigger inactive and more than 0 replicas → ``scaleToZeroOrIdle`` writes 0 once ``lastActiveTime +
  cooldownPeriod`` has passed (``lastActiveTime`` is refreshed on every active poll), or, on a ScaledObject
  that was never active, once ``creationTimestamp + initialCooldownPeriod`` has.

With plain ``minReplicaCount: 0`` KEDA only does 0 → 1 and the HPA does 1 → N from the cron metric, through
keda-operator-metrics-apiserver and the external metrics API: if that path is unhealthy a window silently
runs with one placeholder. Here the HPA KEDA still creates is clamped to N..N; it never decides anything
(at 0 replicas it is disabled), so it needs no ``behavior`` block and the metrics path is out of the loop.
KEDA's rules hold: the CRD's CEL ``minReplicaCount <= maxReplicaCount`` and the webhook's ``idle < min``
(N ≥ 1). The cost: one N per ScaledObject, which is what a window is anyway.

Replicas belong to KEDA, never to Pulumi
----------------------------------------
KEDA writes ``spec.replicas`` through the scale subresource. pulumi-kubernetes 4.x applies with server-side
apply, so a ``pulumi up`` in the middle of a window must not send a ``replicas`` of its own:

* *declared and not ignored*: pulumi's apply of ``replicas: 0`` conflicts with the scale writers' ownership
  (``conflict with "kube-controller-manager" with subresource "scale"``, pulumi/pulumi-kubernetes#2491,
  #2569) and the update fails — or, forced, scales the placeholders down mid-event;
* *omitted*: the API server defaults a new Deployment to ``replicas: 1``, so every window would start with
  a placeholder outside its window until KEDA's first poll (and the N..N HPA may raise it to N first);
* **declared as 0 and ignored** (chosen): created with zero pods; afterwards ``ignore_changes`` makes the
  engine keep the old input, and on an update the provider's ``handleSSAIgnoreFields`` (provider
  ``pkg/await/await.go``) *drops* the field from the apply whenever another manager (KEDA or the HPA)
  owns it, or re-sends the live value when only pulumi does. Either way a mid-window ``pulumi up``
  leaves the running count alone.

GitOps tools have no "set on create only": ``prescale plan --out`` leaves ``replicas`` out of these
Deployments instead (:mod:`prescale_cli.manifests`, ``docs/gitops.md``).

A window that reserves capacity (``reserve``) selects the reserved instance type and the reservations' zones, so
its placeholders wait for the reserved instances instead of any other type Karpenter finds cheaper; the selection
depends only on the config, never on whether this run holds the reservations.

The Deployment also carries ``pulumi.com/skipAwait``: placeholders are Pending by design (until their
node is up, or after real pods preempt them), and awaiting their rollout would make any mid-event
``pulumi up`` hang until its timeout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import NodePoolConfig, PlaceholderConfig
from ..model.keda_timing import COOLDOWN_SECONDS, IDLE_REPLICAS, INITIAL_COOLDOWN_SECONDS, POLLING_INTERVAL_SECONDS
from ..model.labels import INSTANCE_TYPE, ZONE
from ..model.windows import ArmedWindow
from ..names import (
    DO_NOT_DISRUPT,
    ONE_PER_NODE_LABEL,
    PLACEHOLDER_LABELS,
    POOL_LABEL,
    WINDOW_LABEL,
    placeholder_name,
    pool_node_selector,
)
from .crds import ObjectMeta, ScaledObject, ScaledObjectSpec
from .prepull import prepull_pod_fields

PAUSE_USER = 65535  # the pause image's own non-root user; every container of the pod runs as it


@dataclass(frozen=True)
class ScheduledCapacityArgs:
    # The window as deployed now (`plan_capacity(...).armed`, from a config validated by load_capacity_config).
    armed: ArmedWindow
    # The window's pool: prescale's own are selected by their `prescale.io/node-pool` label, an `existing` one by
    # `karpenter.sh/nodepool` (and the placeholders carry `do-not-disrupt`).
    pool: NodePoolConfig
    placeholders: PlaceholderConfig  # the pause image, pull secrets, the prepull tool image
    namespace: pulumi.Input[str]  # where the placeholders run (pod security "restricted")
    priority_class_name: pulumi.Input[str]  # their (negative) priority
    platform: Platform  # its Kubernetes provider (every object goes through it) and `keda_ready`


class ScheduledCapacity(pulumi.ComponentResource):
    """One window's placeholder Deployment and the KEDA ScaledObject that scales it on the window's cron."""

    armed: ArmedWindow  # the window's crons, freeze and placeholder plan (e.g. for a failsafe scale-down)
    deployment: k8s.apps.v1.Deployment
    scaled_object: ScaledObject
    deployment_name: str
    namespace: pulumi.Input[str]

    def __init__(self, name: str, args: ScheduledCapacityArgs, opts: pulumi.ResourceOptions | None = None):
        armed, pool, namespace, platform = args.armed, args.pool, args.namespace, args.platform
        super().__init__("prescale:index:ScheduledCapacity", name, {}, pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(providers=[platform.kubernetes_provider])))
        self.armed = armed
        self.namespace = namespace
        self.deployment_name = placeholder_name(armed.window.name)
        metadata: ObjectMeta = {"name": self.deployment_name, "namespace": namespace, "labels": labels(armed)}
        self.deployment = k8s.apps.v1.Deployment(
            f"{name}-placeholders",
            metadata={**metadata, "annotations": {"pulumi.com/skipAwait": "true"}},
            spec=deployment_spec(armed, pool, args.placeholders, args.priority_class_name),
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["spec.replicas"]))
        self.scaled_object = ScaledObject(
            f"{name}-scaler", metadata, scaled_object_spec(armed, self.deployment_name),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*platform.keda_ready, self.deployment]))
        self.register_outputs({"deploymentName": self.deployment_name, "namespace": namespace,
                               "pods": armed.placeholders.pods})


def labels(armed: ArmedWindow) -> dict[str, str]:
    return {**PLACEHOLDER_LABELS, WINDOW_LABEL: armed.window.name, POOL_LABEL: armed.window.node_pool}


def deployment_spec(armed: ArmedWindow, pool: NodePoolConfig, placeholders: PlaceholderConfig,
                    priority_class_name: pulumi.Input[str]) -> dict:
    """Zero pods until KEDA says otherwise; pause containers (after the window's prepull init containers, if any)
    that meet the "restricted" pod security standard."""
    pod_labels = labels(armed)
    if armed.placeholders.one_per_node:
        pod_labels[ONE_PER_NODE_LABEL] = pool.name
    requests = {"cpu": armed.placeholders.cpu, "memory": armed.placeholders.memory}
    container = {  # what every container of the pod has
        "resources": {"requests": requests, "limits": requests},
        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}},
    }
    pod_spec = {
        "priorityClassName": priority_class_name,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "terminationGracePeriodSeconds": 0,  # pause holds nothing: let preempting pods in at once
        "nodeSelector": {**pool_node_selector(pool.name, pool.owned), **_reserved_type(armed)},
        "tolerations": tolerations(pool),
        "topologySpreadConstraints": [{
            # Spread over zones when Karpenter can; never stay Pending because one zone has no capacity.
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {WINDOW_LABEL: armed.window.name}},
        }],
        "securityContext": {"runAsNonRoot": True, "runAsUser": PAUSE_USER, "runAsGroup": PAUSE_USER,
                            "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{"name": "pause", "image": placeholders.image, **container}],
        **prepull_pod_fields(armed.window.prepull_images, placeholders.prepull_tool_image, container),
    }
    if placeholders.image_pull_secrets:
        pod_spec["imagePullSecrets"] = [{"name": secret} for secret in placeholders.image_pull_secrets]
    affinity: dict[str, Any] = {}
    if armed.placeholders.one_per_node:
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {ONE_PER_NODE_LABEL: pool.name}},
            "topologyKey": "kubernetes.io/hostname",
        }]}
    if armed.reservation is not None:
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": list(armed.reservation.zone_names)}]}]}}
    if affinity:
        pod_spec["affinity"] = affinity
    return {
        "replicas": 0,  # KEDA's from creation on; see the module docstring
        # Recreate: a template change never runs old and new placeholders side by side (twice the nodes).
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {WINDOW_LABEL: armed.window.name}},
        "template": {"metadata": {"labels": pod_labels, **_protection(pool)}, "spec": pod_spec},
    }


def _reserved_type(armed: ArmedWindow) -> dict[str, str]:
    """The reserved instance type, for a window with capacity reservations (see the module docstring)."""
    return {INSTANCE_TYPE: armed.reservation.instance_type} if armed.reservation is not None else {}


def _protection(pool: NodePoolConfig) -> dict[str, dict[str, str]]:
    """Placeholders on a pool prescale does not own keep Karpenter from consolidating their nodes.

    prescale freezes consolidation on its own pools with disruption budgets; another owner's budget list is
    atomic (a patch would replace theirs), so here each placeholder says ``do-not-disrupt`` instead: its node
    stays while the placeholder runs on it. ``"true"``, not a duration: durations need Karpenter 1.12.
    """
    return {} if pool.owned else {"annotations": {DO_NOT_DISRUPT: "true"}}


def tolerations(pool: NodePoolConfig) -> list[dict[str, str]]:
    """Tolerate exactly the pool's taints (a value-less taint is tolerated whatever its value)."""
    return [{"key": taint.key, "effect": taint.effect,
             **({"operator": "Equal", "value": taint.value} if taint.value else {"operator": "Exists"})}
            for taint in pool.taints]


def scaled_object_spec(armed: ArmedWindow, deployment_name: str) -> ScaledObjectSpec:
    """The window's cron trigger, in idle-replica mode: KEDA itself writes N when it opens, 0 when it closes.

    ``minReplicaCount = maxReplicaCount = N`` pins the HPA to N; see the module docstring for why the
    metrics path then plays no part.
    """
    pods = armed.placeholders.pods
    return {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": deployment_name},
        "idleReplicaCount": IDLE_REPLICAS,
        "minReplicaCount": pods,
        "maxReplicaCount": pods,
        "pollingInterval": POLLING_INTERVAL_SECONDS,
        "cooldownPeriod": COOLDOWN_SECONDS,
        "initialCooldownPeriod": INITIAL_COOLDOWN_SECONDS,
        "triggers": [{"type": "cron", "metadata": {
            "timezone": armed.window.timezone,
            "start": armed.trigger_start,
            "end": armed.trigger_end,
            "desiredReplicas": str(pods),  # required by the cron scaler; only the clamped HPA reads it
        }}],
    }
