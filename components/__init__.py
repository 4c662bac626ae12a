"""prescale: scheduled, pre-scaled Karpenter capacity for known traffic events, as Pulumi components.

Installed from the project's ``components/`` folder. Two layers:

* :mod:`prescale.model`: the typed stack config and the schedule math, pure (no Pulumi);
* this package: the Pulumi ``ComponentResource`` s built on it (platform, node pools, scheduled capacity).

Use it as a library from your own Pulumi program (see ``examples/`` and ``docs/library.md``)::

    from prescale import Platform, deploy_capacity, load_capacity_config, read_raw_config

    capacity_config = load_capacity_config(read_raw_config(), now)       # your stack's prescale:* keys
    deploy_capacity(capacity_config, Platform(cluster_name=..., kubernetes_provider=your_provider), now)

The names below are imported on first use, so reading the pure model (``import prescale.model.schedule``)
never loads the Pulumi SDKs.
"""

from importlib import import_module

# Public name → the module that defines it.
_EXPORTS = {
    "Capacity": "prescale.capacity",
    "deploy_capacity": "prescale.capacity",
    "EventNodePool": "prescale.node_pools",
    "Failsafe": "prescale.failsafe",
    "Platform": "prescale.platform",
    "PlatformStack": "prescale.platform",
    "deploy_platform": "prescale.platform",
    "evaluation_time": "prescale.program",
    "read_raw_config": "prescale.program",
    "ScheduledCapacity": "prescale.scheduled_capacity",
    "CapacityConfig": "prescale.model.config",
    "EventWindow": "prescale.model.config",
    "NodePoolConfig": "prescale.model.config",
    "PlaceholderConfig": "prescale.model.config",
    "StackConfig": "prescale.model.config",
    "ConfigError": "prescale.model.validation",
    "load_capacity_config": "prescale.model.validation",
    "load_stack_config": "prescale.model.validation",
    "ArmedWindow": "prescale.model.windows",
    "plan_window": "prescale.model.windows",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'prescale' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
