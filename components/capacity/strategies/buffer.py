"""Strategy buffer's components: the window's :class:`~prescale.capacity.buffers.WindowBuffer` (its CapacityBuffer
and PodTemplate) and its driver."""

from __future__ import annotations

from ...model.windows import ArmedWindow
from ..buffers import WindowBuffer, WindowBufferArgs
from .driven import driven_parts
from .site import WindowParts, WindowSite


def deploy(armed: ArmedWindow, site: WindowSite) -> WindowParts:
    native = WindowBuffer(armed.window.name, WindowBufferArgs(
        armed, site.config.node_pool(armed.window.node_pool), site.config.placeholders, site.namespace,
        site.priority_class_name, site.platform), site.added)
    return driven_parts(armed, site, native)
