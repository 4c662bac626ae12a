"""What every window's components are built from, and what a strategy's deployer says it built."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi

from ...contract import Platform
from ...model.config import CapacityConfig
from ..drivers import CapacityDriver
from ..failsafe import Failsafe
from ..node_pools import EventNodePool
from ..node_prepull import NodePrepull
from ..scheduled_capacity import ScheduledCapacity


@dataclass(frozen=True)
class WindowSite:
    """The shared objects a window's components stand on, built once by
    :class:`~prescale.capacity.deploy.PrescaleCapacity`."""

    config: CapacityConfig
    platform: Platform
    node_pools: Mapping[str, EventNodePool]  # the pools prescale owns, by name
    namespace: pulumi.Input[str]  # namespace prescale's name, awaited by every window's objects
    priority_class_name: pulumi.Input[str]  # the placeholders' PriorityClass
    # Placeholder windows sat at the stack's top before PrescaleCapacity parented them: their options carry that
    # alias. Windows of the other strategies never sat anywhere else.
    moved: pulumi.ResourceOptions
    added: pulumi.ResourceOptions


@dataclass(frozen=True)
class WindowParts:
    """One window's components, each in the stack output and field of
    :class:`~prescale.capacity.deploy.DeployedCapacity` it belongs to."""

    scheduled: ScheduledCapacity | None = None  # its KEDA-scaled placeholders (armedWindows)
    failsafe: Failsafe | None = None
    native: pulumi.ComponentResource | None = None  # the object its driver sets (nativeWindows)
    driver: CapacityDriver | None = None
    prepull: NodePrepull | None = None
