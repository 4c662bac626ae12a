"""Per static or buffer window with ``prepullImages``: a DaemonSet on its nodes whose init containers pull them.

Their nodes run no placeholder, so one small pod per node pulls the images as the placeholders' init containers do
(:func:`prescale.capacity.prepull.prepull_pod_fields`), on the window's static NodePool or the buffer pool's nodes,
never awaited by ``pulumi up``. Where it runs and what it costs: docs/capacity.md#images-on-static-and-buffer-nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import NodePoolConfig, PlaceholderConfig
from ..model.strategies.base import Prepull
from ..model.values.labels import WINDOW_LABEL
from ..names import PREPULL_LABELS
from .prepull import prepull_pod_fields
from .provider import on_cluster
from .scheduled_capacity import pause_pod_security, pull_secrets, restricted_container, tolerations

# What each container of the pod asks for: pause and busybox's `true` need next to nothing.
PREPULL_REQUESTS = {"cpu": "5m", "memory": "16Mi"}


@dataclass(frozen=True)
class NodePrepullArgs:
    window_name: str
    prepull: Prepull  # the plan's (`ArmedWindow.capacity.prepull`): the images and the nodes' label
    pool: NodePoolConfig  # its taints, tolerated
    placeholders: PlaceholderConfig  # the pause image, the prepull tool image, pull secrets
    namespace: pulumi.Input[str]  # namespace prescale (pod security "restricted")
    platform: Platform  # its provider


class NodePrepull(pulumi.ComponentResource):
    """One window's prepull DaemonSet."""

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: NodePrepullArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:NodePrepull", name, {}, on_cluster(opts, args.platform))
        labels = {**PREPULL_LABELS, WINDOW_LABEL: args.window_name}
        self.daemon_set: k8s.apps.v1.DaemonSet = k8s.apps.v1.DaemonSet(
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
