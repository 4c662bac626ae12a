"""Per event window: a placeholder Deployment that KEDA scales up before the event and back to zero after it.

Pause containers at a negative priority only *hold* room: Karpenter launches nodes for them while they are
Pending, and the event's pods preempt them. Each window has its own Deployment and ScaledObject, so windows on one
pool add up. KEDA writes the count itself (idle-replica mode), the Deployment is created with ``replicas: 0`` that
Pulumi then ignores, and it is never awaited. Why each: docs/capacity.md#how-keda-scales-idle-replica-mode; how
it is built: docs/internals.md#prescalecapacityscheduled_capacity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import NodePoolConfig, PlaceholderConfig
from ..model.schedule.after_end import (
    COOLDOWN_SECONDS,
    IDLE_REPLICAS,
    INITIAL_COOLDOWN_SECONDS,
    POLLING_INTERVAL_SECONDS,
)
from ..model.strategies.placeholders import PlaceholderPods
from ..model.values.labels import INSTANCE_TYPE, ONE_PER_NODE_LABEL, POOL_LABEL, WINDOW_LABEL, ZONE
from ..model.windows import ArmedWindow
from ..names import DO_NOT_DISRUPT, PLACEHOLDER_LABELS, placeholder_name, pool_node_selector
from .crds import ObjectMeta, ScaledObject, ScaledObjectSpec
from .prepull import prepull_pod_fields
from .provider import on_cluster

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

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: ScheduledCapacityArgs, opts: pulumi.ResourceOptions | None = None):
        armed, pool, namespace, platform = args.armed, args.pool, args.namespace, args.platform
        keda_trigger(armed)  # refused before anything is registered
        super().__init__("prescale:index:ScheduledCapacity", name, {}, on_cluster(opts, platform))
        self.armed: ArmedWindow = armed  # its crons, freeze and placeholder plan (e.g. for a failsafe scale-down)
        self.namespace: pulumi.Input[str] = namespace
        self.deployment_name: str = placeholder_name(armed.window.name)
        metadata: ObjectMeta = {"name": self.deployment_name, "namespace": namespace, "labels": labels(armed)}
        self.deployment: k8s.apps.v1.Deployment = k8s.apps.v1.Deployment(
            f"{name}-placeholders",
            metadata={**metadata, "annotations": {"pulumi.com/skipAwait": "true"}},
            spec=deployment_spec(armed, pool, args.placeholders, args.priority_class_name),
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["spec.replicas"]))
        self.scaled_object: ScaledObject = ScaledObject(
            f"{name}-scaler", metadata, scaled_object_spec(armed, self.deployment_name),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*platform.keda_ready, self.deployment]))
        self.register_outputs({"deploymentName": self.deployment_name, "namespace": namespace,
                               "pods": armed.placeholders.pods})


def keda_trigger(armed: ArmedWindow) -> PlaceholderPods:
    """What KEDA and the failsafe run for ``armed``: only a window of strategy placeholders has them."""
    if not isinstance(armed.capacity, PlaceholderPods):
        raise ValueError(f"event window {armed.window.name!r} holds no placeholders: its pool's strategy is "
                         f"{armed.strategy.name}")
    return armed.capacity


def labels(armed: ArmedWindow) -> dict[str, str]:
    return {**PLACEHOLDER_LABELS, WINDOW_LABEL: armed.window.name, POOL_LABEL: armed.window.node_pool}


def deployment_spec(armed: ArmedWindow, pool: NodePoolConfig, placeholders: PlaceholderConfig,
                    priority_class_name: pulumi.Input[str]) -> dict:
    """Zero pods until KEDA says otherwise; pause containers (after the window's prepull init containers, if any)
    that meet the "restricted" pod security standard."""
    return {
        "replicas": 0,  # KEDA's from creation on (docs/capacity.md#who-owns-specreplicas-keda-never-pulumi)
        # Recreate: a template change never runs old and new placeholders side by side (twice the nodes).
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {WINDOW_LABEL: armed.window.name}},
        "template": placeholder_pod_template(armed, pool, placeholders, priority_class_name, labels(armed),
                                             armed.window.prepull_images),
    }


def placeholder_pod_template(plan: ArmedWindow, pool: NodePoolConfig, placeholders: PlaceholderConfig,
                             priority_class_name: pulumi.Input[str], pod_labels: dict[str, str],
                             prepull_images: Sequence[str] = ()) -> dict[str, Any]:
    """A window's placeholder pod (a placeholder Deployment's, or a CapacityBuffer's virtual pods' shape): its
    requests, the pool's node selector and taints, one per node for a ``nodes:`` window, the reserved type and
    zones; pause containers after init containers that pull ``prepull_images``."""
    pod_labels = dict(pod_labels)
    if plan.placeholders.one_per_node:
        pod_labels[ONE_PER_NODE_LABEL] = pool.name
    requests = {"cpu": plan.placeholders.cpu, "memory": plan.placeholders.memory}
    container = restricted_container({"requests": requests, "limits": requests})  # every container of the pod
    pod_spec = {
        "priorityClassName": priority_class_name,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "terminationGracePeriodSeconds": 0,  # pause holds nothing: let preempting pods in at once
        "nodeSelector": {**pool_node_selector(pool.name, pool.owned), **_reserved_type(plan)},
        "tolerations": tolerations(pool),
        "topologySpreadConstraints": [{
            # Spread over zones when Karpenter can; never stay Pending because one zone has no capacity.
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {WINDOW_LABEL: plan.window.name}},
        }],
        "securityContext": pause_pod_security(),
        "containers": [{"name": "pause", "image": placeholders.image, **container}],
        **prepull_pod_fields(prepull_images, placeholders.prepull_tool_image, container),
        **pull_secrets(placeholders),
    }
    affinity: dict[str, Any] = {}
    if plan.placeholders.one_per_node:
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {ONE_PER_NODE_LABEL: pool.name}},
            "topologyKey": "kubernetes.io/hostname",
        }]}
    if plan.reservation is not None:
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": list(plan.reservation.zone_names)}]}]}}
    if affinity:
        pod_spec["affinity"] = affinity
    return {"metadata": {"labels": pod_labels, **_protection(pool)}, "spec": pod_spec}


def restricted_container(resources: dict[str, Any]) -> dict[str, Any]:
    """A container's ``resources`` and a security context that meets the "restricted" pod security standard."""
    return {"resources": resources,
            "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}}


def pause_pod_security() -> dict[str, Any]:
    """The pod security context of pods made of pause containers: the pause image's own non-root user."""
    return {"runAsNonRoot": True, "runAsUser": PAUSE_USER, "runAsGroup": PAUSE_USER,
            "seccompProfile": {"type": "RuntimeDefault"}}


def pull_secrets(placeholders: PlaceholderConfig) -> dict[str, Any]:
    """The pod spec's ``imagePullSecrets`` (``placeholders.imagePullSecrets``), if any."""
    secrets = placeholders.image_pull_secrets
    return {"imagePullSecrets": [{"name": secret} for secret in secrets]} if secrets else {}


def _reserved_type(plan: ArmedWindow) -> dict[str, str]:
    """The reserved instance type, for a window with capacity reservations: its placeholders wait for the reserved
    instances rather than any type Karpenter finds cheaper
    (docs/capacity.md#capacity-reservations-for-one-off-events)."""
    return {INSTANCE_TYPE: plan.reservation.instance_type} if plan.reservation is not None else {}


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

    ``minReplicaCount = maxReplicaCount = N`` pins the HPA to N, so the metrics path plays no part
    (docs/capacity.md#how-keda-scales-idle-replica-mode).
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
            "start": keda_trigger(armed).trigger_start,
            "end": keda_trigger(armed).trigger_end,
            "desiredReplicas": str(pods),  # required by the cron scaler; only the clamped HPA reads it
        }}],
    }
