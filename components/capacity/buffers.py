"""Per window on a buffer pool: a CapacityBuffer of the window's placeholder pods, and the PodTemplate it refers to.

Karpenter provisions room on the pool's own NodePool for the buffer's virtual pods, which real pods then take; the
driver sets the count (N at scale-up, 0 at the event's start), so Pulumi creates it at ``created_replicas`` and
then ignores it. The template is the window's placeholder pod without its pulls, which a DaemonSet runs instead.
What it holds and why: docs/capacity.md#buffer-a-capacitybuffer-per-window.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import NodePoolConfig, PlaceholderConfig
from ..model.strategies.buffer import BufferedCapacity
from ..model.values.labels import POOL_LABEL, WINDOW_LABEL
from ..model.windows import ArmedWindow
from ..names import BUFFER_LABELS
from .crds import CapacityBuffer
from .provider import on_cluster
from .scheduled_capacity import placeholder_pod_template


@dataclass(frozen=True)
class WindowBufferArgs:
    window: ArmedWindow  # a buffer window deployed now (`plan_capacity(...).armed`, capacity a BufferedCapacity)
    pool: NodePoolConfig  # its pool: the node selector and taints of the virtual pods
    placeholders: PlaceholderConfig  # the pause image and pull secrets of the pod's shape
    namespace: pulumi.Input[str]  # where both live (namespace prescale)
    priority_class_name: pulumi.Input[str]  # the placeholders' (Karpenter gives virtual pods its own lowest one)
    platform: Platform  # its provider, and what Karpenter's install (the CRD) waits for


class WindowBuffer(pulumi.ComponentResource):
    """One buffer window's PodTemplate and CapacityBuffer."""

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: WindowBufferArgs, opts: pulumi.ResourceOptions | None = None):
        window, platform = args.window, args.platform
        capacity = window.capacity
        if not isinstance(capacity, BufferedCapacity):
            raise ValueError(f"event window {window.window.name!r} is not on a buffer pool")
        super().__init__("prescale:index:WindowBuffer", name, {}, on_cluster(opts, platform))
        labels = {**BUFFER_LABELS, WINDOW_LABEL: window.window.name, POOL_LABEL: window.window.node_pool}
        self.buffer_name: str = capacity.buffer_name
        self.pod_template: k8s.core.v1.PodTemplate = k8s.core.v1.PodTemplate(
            f"{name}-pod-template",
            metadata={"name": capacity.pod_template_name, "namespace": args.namespace, "labels": labels},
            template=placeholder_pod_template(window, args.pool, args.placeholders, args.priority_class_name, labels),
            opts=pulumi.ResourceOptions(parent=self))
        self.buffer: CapacityBuffer = CapacityBuffer(
            f"{name}-buffer", {"name": capacity.buffer_name, "namespace": args.namespace, "labels": labels},
            {"podTemplateRef": {"name": capacity.pod_template_name}, "replicas": capacity.created_replicas},
            # The driver owns the count from creation on (docs/internals.md, `prescale.model.strategies`).
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*platform.karpenter_ready, self.pod_template],
                                        ignore_changes=["spec.replicas"]))
        self.register_outputs({"bufferName": capacity.buffer_name, "pods": capacity.pods})
