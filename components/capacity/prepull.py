"""A window's ``prepullImages``: init containers that pull each image onto the placeholder's node.

Any image can be pulled this way, distroless ones included: a first init container copies a static no-op (busybox's
``true``) into an ``emptyDir``, and each image's init container runs that copy instead of anything of its own
(kube-fledged's pull jobs do the same with busybox's ``echo``). Init containers finish before the pause container
starts, so a placeholder is Ready only once its images are on its node. They request exactly what the pause
container requests, so the pod's effective requests (the larger of any init container's and the containers' sum)
and the placeholder sizes stay as they are. Why init containers rather than image volumes, and what it costs (pull
time within the lead time, disk, kubelet image garbage collection): docs/capacity.md#event-images-prepullimages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TOOLS_VOLUME = "prepull-tools"
TOOLS_PATH = "/prescale-prepull"
NO_OP = f"{TOOLS_PATH}/true"  # busybox picks the applet by the name it is run as
TOOLS_SIZE_LIMIT = "16Mi"  # one static busybox (about 1 MiB)


def prepull_pod_fields(images: Sequence[str], tool_image: str, container: dict[str, Any]) -> dict[str, Any]:
    """The pod spec fields that pull ``images`` in order (none without images); ``container`` holds the fields
    every container of the pod shares (resources, security context)."""
    if not images:
        return {}
    mount = {"name": TOOLS_VOLUME, "mountPath": TOOLS_PATH}
    copy_no_op = {"name": "prepull-tools", "image": tool_image, "command": ["cp", "/bin/true", NO_OP],
                  "volumeMounts": [mount], **container}
    pulls = [{
        "name": f"prepull-{index}",
        "image": image,
        # A fresh node pulls either way; a node that has the image makes no registry round trip (even for :latest).
        "imagePullPolicy": "IfNotPresent",
        "command": [NO_OP],  # replaces the image's entrypoint and arguments
        "workingDir": TOOLS_PATH,  # the image's own may be closed to the placeholders' user
        "volumeMounts": [{**mount, "readOnly": True}],
        **container,
    } for index, image in enumerate(images)]
    return {"initContainers": [copy_no_op, *pulls],
            "volumes": [{"name": TOOLS_VOLUME, "emptyDir": {"sizeLimit": TOOLS_SIZE_LIMIT}}]}
