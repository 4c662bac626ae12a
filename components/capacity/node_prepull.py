"""Per static or buffer window with ``prepullImages``: a DaemonSet on its nodes whose init containers pull them.

Nodes of these strategies run no placeholder whose init containers could pull the event's images, so one small pod
per node does (:func:`prescale.capacity.prepull.prepull_pod_fields`, as the placeholders do): on a static window's
own NodePool (``karpenter.sh/nodepool``), or on every node of a buffer pool (``prescale.io/node-pool``), tolerating
the pool's taints. Its pause container and the pulls request almost nothing, so Karpenter's sizing of the nodes
hardly changes; DaemonSet pods never keep a node from being emptied. Never awaited: a mid-window ``pulumi up`` must
not wait for pulls on the event's nodes. What it costs: docs/readiness.md ("Images at boot").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import NodePoolConfig, PlaceholderConfig
from ..model.fleet.labels import WINDOW_LABEL
from ..model.native import Prepull
from ..names import PREPULL_LABELS
from .prepull import prepull_pod_fields
from .scheduled_capacity import pause_pod_security, pull_secrets, restricted_container, tolerations

# What each container of the pod asks for: pause and busybox's `true` need next to nothing.
PREPULL_REQUESTS = {"cpu": "5m", "memory": "16Mi"}


@dataclass(frozen=True)
class NodePrepullArgs:
    window_name: str
    prepull: Prepull  # the plan's (`NativeWindow.capacity.prepull`): the images and the nodes' label
    pool: NodePoolConfig  # its taints, tolerated
    placeholders: PlaceholderConfig  # the pause image, the prepull tool image, pull secrets
    namespace: pulumi.Input[str]  # namespace prescale (pod security "restricted")
    platform: Platform  # its provider


class NodePrepull(pulumi.ComponentResource):
    """One window's prepull DaemonSet."""

    daemon_set: k8s.apps.v1.DaemonSet

    def __init__(self, name: str, args: NodePrepullArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:NodePrepull", name, {}, pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(providers=[args.platform.kubernetes_provider])))
        labels = {**PREPULL_LABELS, WINDOW_LABEL: args.window_name}
        self.daemon_set = k8s.apps.v1.DaemonSet(
            f"{name}-prepull",
            metadata={"name": args.prepull.name, "namespace": args.namespace, "labels": labels,
                      "annotations": {"pulumi.com/skipAwait": "true"}},
            spec=daemon_set_spec(args.prepull, args.pool, args.placeholders, labels),
            opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"daemonSetName": args.prepull.name, "images": list(args.prepull.images)})


def daemon_set_spec(prepull: Prepull, pool: NodePoolConfig, placeholders: PlaceholderConfig,
                    labels: dict[str, str]) -> dict[str, Any]:
    """A pause pod on every node labelled ``prepull.node_label``, after init containers that pull the images."""
    key, value = prepull.node_label
    container = restricted_container({"requests": dict(PREPULL_REQUESTS), "limits": dict(PREPULL_REQUESTS)})
    return {
        "selector": {"matchLabels": labels},
        "template": {"metadata": {"labels": labels}, "spec": {
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "terminationGracePeriodSeconds": 0,
            "nodeSelector": {key: value},
            "tolerations": tolerations(pool),
            "securityContext": pause_pod_security(),
            "containers": [{"name": "pause", "image": placeholders.image, **container}],
            **prepull_pod_fields(prepull.images, placeholders.prepull_tool_image, container),
            **pull_secrets(placeholders),
        }},
    }
