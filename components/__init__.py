"""prescale: scheduled, pre-scaled Karpenter capacity for known traffic events, as Pulumi components.

Installed from the project's ``components/`` folder: :mod:`prescale.model` (typed config, schedule math and the
plan, pure), :mod:`prescale.platform` (cluster, Karpenter, KEDA) and :mod:`prescale.capacity` (pools, windows),
which meet only through :mod:`prescale.contract`. The names below are imported on first use, so reading the pure
model (``import prescale.model.schedule``) never loads the Pulumi SDKs. As a library (docs/library.md)::

    from prescale import Platform, deploy_capacity, load_capacity_config, read_raw_config

    capacity_config = load_capacity_config(read_raw_config(), now)       # your stack's prescale:* keys
    deploy_capacity(capacity_config, Platform(cluster_name=..., kubernetes_provider=your_provider), now)
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what IDEs and type checkers resolve; at run time each name is imported on first use
    from .capacity.deploy import DeployedCapacity, PrescaleCapacity, PrescaleCapacityArgs, deploy_capacity
    from .capacity.failsafe import Failsafe, FailsafeArgs
    from .capacity.node_pools import EventNodePool, EventNodePoolArgs
    from .capacity.scheduled_capacity import ScheduledCapacity, ScheduledCapacityArgs
    from .contract import Platform, SystemPlacement
    from .model.config import CapacityConfig, EventWindow, NodePoolConfig, PlaceholderConfig, StackConfig
    from .model.plan import CapacityPlan, plan_capacity
    from .model.validation import ConfigError, load_capacity_config, load_stack_config
    from .model.windows import ArmedWindow, plan_window
    from .platform.deploy import PrescalePlatform, PrescalePlatformArgs, deploy_platform
    from .program import evaluation_time, read_raw_config

# Public name → the module that defines it.
_EXPORTS = {
    "DeployedCapacity": "prescale.capacity.deploy",
    "PrescaleCapacity": "prescale.capacity.deploy",
    "PrescaleCapacityArgs": "prescale.capacity.deploy",
    "deploy_capacity": "prescale.capacity.deploy",
    "EventNodePool": "prescale.capacity.node_pools",
    "EventNodePoolArgs": "prescale.capacity.node_pools",
    "Failsafe": "prescale.capacity.failsafe",
    "FailsafeArgs": "prescale.capacity.failsafe",
    "ScheduledCapacity": "prescale.capacity.scheduled_capacity",
    "ScheduledCapacityArgs": "prescale.capacity.scheduled_capacity",
    "Platform": "prescale.contract",
    "SystemPlacement": "prescale.contract",
    "PrescalePlatform": "prescale.platform.deploy",
    "PrescalePlatformArgs": "prescale.platform.deploy",
    "deploy_platform": "prescale.platform.deploy",
    "evaluation_time": "prescale.program",
    "read_raw_config": "prescale.program",
    "CapacityConfig": "prescale.model.config",
    "EventWindow": "prescale.model.config",
    "NodePoolConfig": "prescale.model.config",
    "PlaceholderConfig": "prescale.model.config",
    "StackConfig": "prescale.model.config",
    "CapacityPlan": "prescale.model.plan",
    "plan_capacity": "prescale.model.plan",
    "ConfigError": "prescale.model.validation",
    "load_capacity_config": "prescale.model.validation",
    "load_stack_config": "prescale.model.validation",
    "ArmedWindow": "prescale.model.windows",
    "plan_window": "prescale.model.windows",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'prescale' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
