"""What every driven strategy's window adds beside the object its driver sets: the
:class:`~prescale.capacity.drivers.CapacityDriver` and, with ``prepullImages``, the
:class:`~prescale.capacity.node_prepull.NodePrepull`."""

from __future__ import annotations

import pulumi

from ...model.windows import ArmedWindow
from ..drivers import CapacityDriver, CapacityDriverArgs
from ..node_prepull import NodePrepull, NodePrepullArgs
from .site import WindowParts, WindowSite


def driven_parts(armed: ArmedWindow, site: WindowSite, native: pulumi.ComponentResource) -> WindowParts:
    """``native`` (the object the driver sets) with its driver and pre-pull."""
    name, config, prepull = armed.window.name, site.config, armed.capacity.prepull
    driver = CapacityDriver(name, CapacityDriverArgs(armed, site.namespace, config.placeholders.failsafe_image,
                                                     site.platform), site.added)
    pulls = NodePrepull(name, NodePrepullArgs(name, prepull, config.node_pool(armed.window.node_pool),
                                              config.placeholders, site.namespace, site.platform), site.added) \
        if prepull is not None else None
    return WindowParts(native=native, driver=driver, prepull=pulls)
