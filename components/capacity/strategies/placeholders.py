"""Strategy placeholders' components: the window's :class:`~prescale.capacity.scheduled_capacity.ScheduledCapacity`
and its :class:`~prescale.capacity.failsafe.Failsafe`."""

from __future__ import annotations

from ...model.windows import ArmedWindow
from ..failsafe import Failsafe, FailsafeArgs
from ..scheduled_capacity import ScheduledCapacity, ScheduledCapacityArgs
from .site import WindowParts, WindowSite


def deploy(armed: ArmedWindow, site: WindowSite) -> WindowParts:
    name, config = armed.window.name, site.config
    scheduled = ScheduledCapacity(name, ScheduledCapacityArgs(
        armed, config.node_pool(armed.window.node_pool), config.placeholders, site.namespace,
        site.priority_class_name, site.platform), site.moved)
    return WindowParts(scheduled=scheduled, failsafe=Failsafe(name, FailsafeArgs(
        scheduled, config.placeholders.failsafe_image, site.platform), site.moved))
