"""Pools and windows a strategy cannot serve (``nodePools[].strategy``, ``dataVolume``, ``karpenter.featureGates``):
refused with the key, its value and what is allowed.

Part of the cross-key config checks (:mod:`prescale.model.checks.stack` calls them). The rules that need no platform
(:func:`strategy_problems`) run for a library program too; the gates and EKS Auto Mode's limits
(:func:`platform_strategy_problems`) only where the stack says which Karpenter runs. Details: docs/internals.md
(`prescale.model.checks.strategies`).
"""

from __future__ import annotations

import math
from datetime import datetime
from decimal import Decimal

from ..config import (
    CONFIG_NAMESPACE,
    GATE_VALUES,
    STRATEGY_GATES,
    CapacityConfig,
    EventWindow,
    KarpenterConfig,
    NodePoolConfig,
    StackConfig,
)
from ..fleet.instances import InstanceType, pool_launchable
from ..fleet.labels import ZONE
from ..fleet.quantity import format_cpu, format_memory, parse_quantity
from ..schedule.drivers import run_bounds
from .refused import Refused

# The fields of a pool the rules here read (a refused pool that still has them is checked).
STRATEGY_FIELDS = {"name", "existing", "strategy", "requirements", "capacity_types", "instance_categories",
                   "architectures", "node_size", "ami_alias", "data_volume"}


def strategy_problems(config: CapacityConfig, refused: Refused, auto_mode: bool | None = None) -> list[str]:
    """Windows a static pool cannot hold, static pools that could launch nodes smaller than their windows ask for,
    and data volumes on pools that have none (on EKS Auto Mode, ``auto_mode``, none has one: refused by
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
        if pool.strategy == "static" and window.capacity is not None:
            problems.append(_capacity_on_static(index, window, pool, config))
    for name, (index, pool) in pools.items():
        path = f"{CONFIG_NAMESPACE}:nodePools[{index}]"
        if pool.strategy == "static" and not _pinned_to_one_zone(pool):
            problems.append(_unpinned_static(path, pool))
        if pool.strategy == "static" and name in windows_by_pool and "placeholders" not in refused.sections:
            problems += _small_types(path, pool, config)
        if pool.data_volume is not None and not auto_mode and not pool.ami_alias.startswith("bottlerocket@"):
            problems.append(f"{path}.dataVolume: {{snapshotID: {pool.data_volume.snapshot_id}}} needs a Bottlerocket "
                            f"pool, and amiAlias {pool.ami_alias!r} is AL2023, whose nodes keep their images on the "
                            "root volume (no separate data volume to restore from a snapshot); allowed: amiAlias "
                            "bottlerocket@vX.Y.Z, or no dataVolume")
    return problems


def driver_problems(path: str, window: EventWindow, pool: NodePoolConfig, now: datetime) -> list[str]:
    """Whether the driver of ``window`` (its times valid, on a static or buffer ``pool``) keeps its two runs apart
    (:func:`prescale.model.schedule.drivers.run_bounds`)."""
    try:
        run_bounds(window, "end" if pool.strategy == "static" else "start", now)
    except ValueError as error:
        key = "leadTime" if pool.strategy == "buffer" else "end"
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
        return ([f"{CONFIG_NAMESPACE}:nodePools[{index}].strategy: 'buffer' is not available {auto}: AWS's Karpenter "
                 "there has no CapacityBuffer; allowed: placeholders, or static (Auto Mode runs static NodePools "
                 "without a gate)" for index, pool in pools if pool.strategy == "buffer"]
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
        for gate in config.strategy_gates():
            if isinstance(gates, dict) and gates.get(GATE_VALUES[gate]) is False:
                users = [pool.name for _, pool in pools if STRATEGY_GATES.get(pool.strategy) == gate]
                problems.append(f"{path}.values.settings.featureGates.{GATE_VALUES[gate]}: false turns off the gate "
                                f"{gate} that node pools {', '.join(map(repr, users))} need; allowed: remove it "
                                "(prescale turns it on)")
        return problems
    for index, pool in pools if "feature_gates" not in unknown else ():
        needed = STRATEGY_GATES.get(pool.strategy)
        if needed is not None and needed not in karpenter.feature_gates:
            gate = needed
            problems.append(f"{CONFIG_NAMESPACE}:nodePools[{index}].strategy: {pool.strategy!r} needs Karpenter's "
                            f"{gate} feature gate, and {path}.featureGates {list(karpenter.feature_gates)!r} (the "
                            "gates of the Karpenter already running, install: false) does not list it: with it "
                            f"off, Karpenter ignores the pool's {_what(pool.strategy)}; allowed: turn it on in your "
                            f"Karpenter (FEATURE_GATES, or chart value settings.featureGates.{GATE_VALUES[gate]}) and "
                            f"list {gate} in featureGates, or strategy placeholders")
    return problems


def _what(strategy: str) -> str:
    return "spec.replicas and launches nothing" if strategy == "static" else "CapacityBuffers"


def _capacity_on_static(index: int, window: EventWindow, pool: NodePoolConfig, config: CapacityConfig) -> str:
    """A ``capacity`` window on a static pool, with the ``nodes`` that hold as much: of the smallest type the pool
    launches that holds its ``nodeSize`` (Karpenter gives a static pool its cheapest type), counted by their room
    beside DaemonSets; of ``nodeSize`` itself if none holds it (refused on its own: :func:`_small_types`)."""
    assert window.capacity is not None
    cpu, memory = parse_quantity(window.capacity.cpu), parse_quantity(window.capacity.memory)
    size = config.placeholders_for(pool).node_size
    holding = [instance for instance in pool_launchable(pool).types
               if _room_for(instance, parse_quantity(size.cpu), parse_quantity(size.memory))]
    if holding:
        smallest = min(holding, key=_smallest)
        room_cpu, room_memory = smallest.room
        nodes = max(math.ceil(cpu / room_cpu), math.ceil(memory / room_memory), 1)
        why = (f"the smallest type the pool launches, {smallest.name}, has {format_cpu(room_cpu)} CPU and "
               f"{format_memory(room_memory)} beside DaemonSets; the capacity takes {nodes} of them")
    else:
        nodes = max(math.ceil(cpu / parse_quantity(size.cpu)), math.ceil(memory / parse_quantity(size.memory)), 1)
        why = f"nodes of nodeSize {size.cpu} CPU / {size.memory} hold as much"
    limit = pool.limits.nodes if pool.limits is not None else None
    raise_limit = f" with the pool's limits.nodes at least {nodes}" if limit is not None and nodes > limit else ""
    return (f"{CONFIG_NAMESPACE}:eventWindows[{index}].capacity: {{cpu: {window.capacity.cpu!r}, memory: "
            f"{window.capacity.memory!r}}} cannot go on static node pool {pool.name!r}: a static NodePool holds a "
            f"number of whole nodes, not pod requests; allowed: nodes: {nodes}{raise_limit} ({why}), or a pool with "
            "strategy placeholders or buffer")


def _pinned_to_one_zone(pool: NodePoolConfig) -> bool:
    return any(requirement.key == ZONE and requirement.operator == "In" and len(requirement.values) == 1
               for requirement in pool.requirements)


def _unpinned_static(path: str, pool: NodePoolConfig) -> str:
    """A static pool that more than one zone could serve: Karpenter launches a static NodePool's nodes where its
    cheapest offering is, with no spread over zones (kubernetes-sigs/karpenter v1.14.1 ``designs/static-capacity.md``
    pins one NodePool per zone), so every node of a window could land in one zone and one zone's outage (or its
    shortage of the type) takes them all."""
    return (f"{path}.requirements: node pool {pool.name!r} has strategy static and is not pinned to one zone: "
            "Karpenter does not spread a static NodePool's nodes over zones, so all of a window's nodes may land in "
            "one zone, and one zone's outage or shortage takes them all; allowed: the requirement "
            f"{{key: {ZONE}, operator: In, values: [<one zone>]}}, and for nodes in several zones one static pool "
            "per zone with each window's nodes split between them")


def _small_types(path: str, pool: NodePoolConfig, config: CapacityConfig) -> list[str]:
    """Karpenter gives a static NodePool the cheapest type its requirements allow, whatever its windows ask for:
    every such type must hold the pool's ``nodeSize`` beside DaemonSets, or N nodes are not N nodes of that size."""
    types = pool_launchable(pool).types
    size = config.placeholders_for(pool).node_size
    cpu, memory = parse_quantity(size.cpu), parse_quantity(size.memory)
    small = [instance for instance in types if not _room_for(instance, cpu, memory)]
    if not types or not small:
        return []  # a pool that launches nothing is refused by prescale.model.checks.pools
    small.sort(key=_smallest)
    holding = sorted((instance for instance in types if instance not in small), key=_smallest)
    fix = (f"requirements that leave only types that hold it, e.g. {{key: node.kubernetes.io/instance-type, operator: "
           f"In, values: [{holding[0].name}]}}" if holding else "a smaller nodeSize")
    return [f"{path}.requirements: node pool {pool.name!r} has strategy static, and Karpenter launches the cheapest "
            f"type its requirements allow; {len(small)} of the {len(types)} types they allow cannot hold its nodeSize "
            f"({size.cpu} CPU, {size.memory}) beside DaemonSets, such as {small[0].describe()}, so its windows' nodes "
            f"could be smaller than asked; allowed: {fix}"]


def _smallest(instance: InstanceType) -> tuple[int, int, str]:
    return instance.vcpus, instance.memory_mib, instance.name


def _room_for(instance: InstanceType, cpu: Decimal, memory: Decimal) -> bool:
    room_cpu, room_memory = instance.room
    return cpu <= room_cpu and memory <= room_memory
