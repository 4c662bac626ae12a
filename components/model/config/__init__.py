"""The stack config model: what users write in ``Pulumi.<stack>.yaml``, as typed, immutable models.

Each model checks its own values; :func:`prescale.model.validation.load_stack_config` is the door that
runs them and the cross-key rules together and reports every problem at once.

Models are strict (no ``"5"`` for ``5``, no ``yes`` for ``true``) and forbid unknown keys, so typos fail
loudly instead of silently falling back to defaults.

Every field's ``description`` is written for the user of the stack file: the config reference (docs/config.md)
and the editors' JSON Schema (``prescale schema``, :mod:`prescale.model.config_schema`) are generated from it.

One module per part of the stack file (:mod:`.platform`, :mod:`.pools`, :mod:`.windows`, :mod:`.placeholders`,
:mod:`.pricing`, :mod:`.alerts`, :mod:`.calendar`, the whole in :mod:`.stack`), on the shared types of
:mod:`.base`; every name is imported from here.
"""

from __future__ import annotations

from .alerts import AlertsConfig
from .base import (
    CONFIG_NAMESPACE,
    LOCAL_DATETIME,
    SALVAGE_CONTEXT,
    AvailabilityZone,
    CapacityRequest,
    Duration,
    DurationOrNever,
    ImageReference,
    Memory,
    Model,
    NodePoolDuration,
    NodePoolDurationOrNever,
    PoolName,
    Quantity,
    SecretName,
    Version,
    WindowName,
)
from .calendar import CalendarConfig, CalendarEvent, CalendarPath
from .placeholders import PlaceholderConfig
from .platform import (
    GATE_VALUES,
    KARPENTER_INSTALL_KEYS,
    KARPENTER_POLICY_MINORS,
    Cidr,
    ClusterConfig,
    FeatureGate,
    IamRoleName,
    KarpenterConfig,
    KedaConfig,
    SubnetId,
    SystemNodeGroupConfig,
    karpenter_policy_problem,
)
from .pools import (
    AUTO_MODE_EXPIRE_AFTER,
    AUTO_MODE_MAX_NODE_LIFETIME,
    EVENT_CAPACITY_TAINT_KEY,
    EXISTING_POOL_KEYS,
    NODE_CLASS_KEYS,
    STRATEGIES_CONTEXT,
    CapacityReservationSelectorTerm,
    DataVolumeConfig,
    LabelValue,
    LimitQuantity,
    Limits,
    NodePoolConfig,
    NodeRequirement,
    RequirementKey,
    RequirementOperator,
    SecurityGroupSelectorTerm,
    StrategyName,
    SubnetSelectorTerm,
    TaintConfig,
)
from .pricing import PricingConfig
from .stack import CapacityConfig, StackConfig
from .windows import MAX_HOLD, EventWindow, ReserveConfig

__all__ = [
    "AUTO_MODE_EXPIRE_AFTER",
    "AUTO_MODE_MAX_NODE_LIFETIME",
    "AlertsConfig",
    "AvailabilityZone",
    "CONFIG_NAMESPACE",
    "CalendarConfig",
    "CalendarEvent",
    "CalendarPath",
    "CapacityConfig",
    "CapacityRequest",
    "CapacityReservationSelectorTerm",
    "Cidr",
    "ClusterConfig",
    "DataVolumeConfig",
    "Duration",
    "DurationOrNever",
    "EVENT_CAPACITY_TAINT_KEY",
    "EXISTING_POOL_KEYS",
    "EventWindow",
    "FeatureGate",
    "GATE_VALUES",
    "IamRoleName",
    "ImageReference",
    "KARPENTER_INSTALL_KEYS",
    "KARPENTER_POLICY_MINORS",
    "KarpenterConfig",
    "KedaConfig",
    "LOCAL_DATETIME",
    "LabelValue",
    "LimitQuantity",
    "Limits",
    "MAX_HOLD",
    "Memory",
    "Model",
    "NODE_CLASS_KEYS",
    "NodePoolConfig",
    "NodePoolDuration",
    "NodePoolDurationOrNever",
    "NodeRequirement",
    "PlaceholderConfig",
    "PoolName",
    "PricingConfig",
    "Quantity",
    "RequirementKey",
    "RequirementOperator",
    "ReserveConfig",
    "SALVAGE_CONTEXT",
    "STRATEGIES_CONTEXT",
    "SecretName",
    "SecurityGroupSelectorTerm",
    "StackConfig",
    "StrategyName",
    "SubnetId",
    "SubnetSelectorTerm",
    "SystemNodeGroupConfig",
    "TaintConfig",
    "Version",
    "WindowName",
    "karpenter_policy_problem",
]
