"""Pools and windows a strategy cannot serve (``nodePools[].strategy``, ``dataVolume``, ``karpenter.featureGates``),
as each strategy says (:mod:`prescale.model.strategies`): refused with the key, its value and what is allowed.

Part of the cross-key config checks (:mod:`prescale.model.checks.stack` calls them). The rules that need no platform
(:func:`strategy_problems`) run for a library program too; the gates and EKS Auto Mode's limits
(:func:`platform_strategy_problems`) only where the stack says which Karpenter runs. Details: docs/internals.md
(`prescale.model.checks.strategies`).
"""

from __future__ import annotations

from datetime import datetime

from ..config import (
    CONFIG_NAMESPACE,
    GATE_VALUES,
    CapacityConfig,
    EventWindow,
    KarpenterConfig,
    NodePoolConfig,
    StackConfig,
)
from ..schedule.drivers import Edge, run_bounds
from ..strategies import STRATEGIES, feature_gates, strategy_of
from .refused import Refused

# The fields of a pool the rules here read (a refused pool that still has them is checked).
STRATEGY_FIELDS = {"name", "existing", "strategy", "requirements", "capacity_types", "instance_categories",
                   "architectures", "node_size", "ami_alias", "data_volume"}


def strategy_problems(config: CapacityConfig, refused: Refused, auto_mode: bool | None = None) -> list[str]:
    """Windows and pools their strategy refuses (a static pool takes no capacity windows, nor types smaller than
    its nodeSize), and data volumes on pools that have none (on EKS Auto Mode, ``auto_mode``, none has one: refused by
    :func:`platform_strategy_problems` without an ``amiAlias`` Auto Mode refuses)."""
    problems = []
    pools = {pool.name: (index, pool) for index, pool in refused.entries("node_pools", config.node_pools,
                                                                         needs=STRATEGY_FIELDS)}
    windows_by_pool: dict[str, list[int]] = {}
    for index, window in refused.entries("event_windows", config.event_windows, needs={"node_pool", "nodes",
                                                                                       "capacity"}):
        if window.node_pool not in pools:
            continue  # unknown or refused: reported on its own
        windows_by_pool.setdefault(window.node_pool, []).append(index)
        pool = pools[window.node_pool][1]
        problems += strategy_of(pool).window_problems(f"{CONFIG_NAMESPACE}:eventWindows[{index}]", window, pool,
                                                      config)
    sized = "placeholders" not in refused.sections  # the placeholders' sizes are known
    for name, (index, pool) in pools.items():
        path = f"{CONFIG_NAMESPACE}:nodePools[{index}]"
        problems += strategy_of(pool).pool_problems(path, pool, config, name in windows_by_pool, sized)
        if pool.data_volume is not None and not auto_mode and not pool.ami_alias.startswith("bottlerocket@"):
            problems.append(f"{path}.dataVolume: {{snapshotID: {pool.data_volume.snapshot_id}}} needs a Bottlerocket "
                            f"pool, and amiAlias {pool.ami_alias!r} is AL2023, whose nodes keep their images on the "
                            "root volume (no separate data volume to restore from a snapshot); allowed: amiAlias "
                            "bottlerocket@vX.Y.Z, or no dataVolume")
    return problems


def driver_problems(path: str, window: EventWindow, pool: NodePoolConfig, scale_down: Edge,
                    now: datetime) -> list[str]:
    """Whether the driver of ``window`` (its times valid, on a driven ``pool`` whose count goes back to 0 at
    ``scale_down``) keeps its two runs apart (:func:`prescale.model.schedule.drivers.run_bounds`): the key to change
    bounds the shorter half, the lead time when the count goes back to 0 at the start."""
    try:
        run_bounds(window, scale_down, now)
    except ValueError as error:
        key = "leadTime" if scale_down == "start" else "end"
        value = window.lead_time if key == "leadTime" else window.end
        return [f"{path}.{key}: {value!r}: on {pool.strategy} node pool {pool.name!r}, {error}; allowed: a longer "
                f"{'lead time' if key == 'leadTime' else 'window'}, or more time between occurrences"]
    return []


def platform_strategy_problems(config: StackConfig, refused: Refused) -> list[str]:
    """Strategies the stack's Karpenter cannot run: its gates, and EKS Auto Mode, which has no CapacityBuffer.
    ``config.karpenter``'s ``install`` is valid; a rule that reads its refused ``featureGates`` or ``values`` is
    skipped, but a ``featureGates`` given at all with ``install: true`` is refused."""
    problems = []
    karpenter, path = config.karpenter, f"{CONFIG_NAMESPACE}:karpenter"
    unknown = refused.fields("karpenter", KarpenterConfig)
    pools = list(refused.entries("node_pools", config.node_pools, needs={"name", "existing", "strategy"}))
    if config.cluster.auto_mode:
        auto = f"on EKS Auto Mode ({CONFIG_NAMESPACE}:cluster.autoMode: true)"
        volumes = refused.entries("node_pools", config.node_pools, needs={"existing", "data_volume"})
        allowed = ", or ".join(name for name, strategy in STRATEGIES.items() if strategy.on_auto_mode)
        return ([f"{CONFIG_NAMESPACE}:nodePools[{index}].strategy: {pool.strategy!r} is not available {auto}: "
                 f"AWS's Karpenter there runs no {strategy_of(pool).gated_objects}; allowed: {allowed}"
                 for index, pool in pools if not strategy_of(pool).on_auto_mode]
                + [f"{CONFIG_NAMESPACE}:nodePools[{index}].dataVolume: {{snapshotID: {pool.data_volume.snapshot_id}}} "
                   f"does not apply {auto}: its NodeClass has no block device mappings and its nodes run AWS's own "
                   "AMI; allowed: remove it" for index, pool in volumes if pool.data_volume is not None])
    if karpenter.install:
        if karpenter.feature_gates or "feature_gates" in unknown:
            given = "" if "feature_gates" in unknown else f" {list(karpenter.feature_gates)!r}"
            problems.append(f"{path}.featureGates:{given} applies only with install: false (the gates of a Karpenter "
                            "already running); prescale turns on the gates its pools need in the Karpenter it "
                            "installs itself; allowed: remove it")
        if "values" in unknown:
            return problems
        settings = karpenter.values.get("settings")
        gates = settings.get("featureGates") if isinstance(settings, dict) else None
        for gate in feature_gates(config):
            if isinstance(gates, dict) and gates.get(GATE_VALUES[gate]) is False:
                users = [pool.name for _, pool in pools if strategy_of(pool).gate == gate]
                problems.append(f"{path}.values.settings.featureGates.{GATE_VALUES[gate]}: false turns off the gate "
                                f"{gate} that node pools {', '.join(map(repr, users))} need; allowed: remove it "
                                "(prescale turns it on)")
        return problems
    for index, pool in pools if "feature_gates" not in unknown else ():
        strategy = strategy_of(pool)
        needed = strategy.gate
        if needed is not None and needed not in karpenter.feature_gates:
            gate = needed
            problems.append(f"{CONFIG_NAMESPACE}:nodePools[{index}].strategy: {pool.strategy!r} needs Karpenter's "
                            f"{gate} feature gate, and {path}.featureGates {list(karpenter.feature_gates)!r} (the "
                            "gates of the Karpenter already running, install: false) does not list it: with it "
                            f"off, Karpenter ignores the pool's {strategy.gated_objects}; allowed: turn it on in your "
                            f"Karpenter (FEATURE_GATES, or chart value settings.featureGates.{GATE_VALUES[gate]}) and "
                            f"list {gate} in featureGates, or strategy placeholders")
    return problems
