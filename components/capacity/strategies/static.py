"""Strategy static's components: the window's own :class:`~prescale.capacity.static_pools.StaticNodePool`, of its
pool's node class (after the pool's component: its node class and address check), and its driver."""

from __future__ import annotations

from ...model.windows import ArmedWindow
from ..static_pools import StaticNodePool, StaticNodePoolArgs
from .driven import driven_parts
from .site import WindowParts, WindowSite


def deploy(armed: ArmedWindow, site: WindowSite) -> WindowParts:
    pool = site.node_pools[armed.window.node_pool]
    native = StaticNodePool(armed.window.name, StaticNodePoolArgs(
        armed, site.config.node_pool(armed.window.node_pool), pool.node_class_name, site.platform, [pool]),
        site.added)
    return driven_parts(armed, site, native)
