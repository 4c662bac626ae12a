"""Which EC2 instance types a node pool can launch, and whether a placeholder pod fits on any of them.

The types are Karpenter's own list (:mod:`prescale.model.fleet.ec2_instance_types`), narrowed by the pool's
requirements (:mod:`prescale.model.fleet.requirements`) on the labels Karpenter gives each type. A type's room is
its *allocatable* room (before DaemonSets), so only a pod that fits no type at all is refused; its *capacity* is
what NodePool limits count. Details: docs/internals.md#prescalemodelfleetinstances.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, cached_property, lru_cache

from ..config import NodePoolConfig
from ..values.labels import ARCH, INSTANCE_TYPE, KARPENTER_DOMAIN, table_key
from ..values.quantity import MIB, format_cpu, format_memory
from .ec2_instance_types import INSTANCE_TYPES
from .requirements import PoolRequirement, pool_requirements

# What the DaemonSets of a node (VPC CNI, kube-proxy, Pod Identity agent...) typically request: an assumption, as a
# cluster's own DaemonSets are unknown here.
DAEMONSET_CPU = Decimal("0.2")
DAEMONSET_MEMORY = 256 * Decimal(MIB)

# What the AWS provider takes off a type's memory for its capacity (pkg/providers/instancetype/types.go `memory`,
# v1.14.1): the VM overhead, Karpenter's `vmMemoryOverheadPercent` (0.075 by default; prescale leaves it), and 64 MiB
# more on Graviton (arm64) types.
VM_MEMORY_OVERHEAD = 0.075
ARM64_RESERVED_MIB = 64

# Karpenter's reading of a type's name: category and generation ("u-6tb1.metal": u, 1; "m7i-flex.large": m, 7).
_NAME_SCHEME = re.compile(r"^([a-z]+)(-[0-9]+tb)?([0-9]+).*\.")


@dataclass(frozen=True, eq=False)  # one object per type of the table (:func:`instance_types`): compared by identity
class InstanceType:
    name: str
    category: str  # karpenter.k8s.aws/instance-category
    architecture: str  # kubernetes.io/arch
    vcpus: int
    memory_mib: int
    allocatable_cpu: Decimal  # cores a node offers pods after Karpenter's overhead
    allocatable_memory: Decimal  # bytes
    network_interfaces: int  # the most the VPC CNI attaches (its default network card's)
    ipv4_per_interface: int  # each interface's addresses: its primary one and the secondary ones pods get

    @cached_property
    def labels(self) -> dict[str, str]:
        """The labels requirements match this type by, Karpenter's (docs/internals.md#prescalemodelfleetinstances)."""
        family, _, size = self.name.partition(".")
        scheme = _NAME_SCHEME.match(self.name)
        aws = {"instance-category": self.category, "instance-family": family, "instance-size": size,
               "instance-cpu": str(self.vcpus), "instance-memory": str(self.memory_mib),
               "instance-capability-flex": str("-flex" in family).lower(),
               **({"instance-generation": scheme[3]} if scheme else {})}
        return {INSTANCE_TYPE: self.name, ARCH: self.architecture,
                **{f"{KARPENTER_DOMAIN}/{key}": value for key, value in aws.items()}}

    def holds(self, cpu: Decimal, memory: Decimal) -> bool:
        return cpu <= self.allocatable_cpu and memory <= self.allocatable_memory

    @cached_property  # asked for each type of a pool for every pod size (:mod:`.least_launch`)
    def room(self) -> tuple[Decimal, Decimal]:
        """CPU cores and memory bytes left for pods beside typical DaemonSets (:data:`DAEMONSET_CPU`/``_MEMORY``)."""
        return self.allocatable_cpu - DAEMONSET_CPU, self.allocatable_memory - DAEMONSET_MEMORY

    @cached_property
    def capacity(self) -> tuple[Decimal, Decimal]:
        """CPU cores and memory bytes of one node of this type as NodePool ``limits`` count them: Karpenter's figure
        for the type (its vCPUs, and its memory less the VM overhead: :data:`VM_MEMORY_OVERHEAD`)."""
        mib = self.memory_mib - (ARM64_RESERVED_MIB if self.architecture == "arm64" else 0)
        overhead = math.ceil(float(mib * MIB) * VM_MEMORY_OVERHEAD / 1024 / 1024)  # as the provider rounds, in float64
        return Decimal(self.vcpus), Decimal((mib - overhead) * MIB)

    def describe(self) -> str:
        return (f"{self.name} ({self.vcpus} vCPU, {format_memory(Decimal(self.memory_mib * MIB))}; "
                f"{format_cpu(self.allocatable_cpu)} CPU and {format_memory(self.allocatable_memory)} allocatable)")


@cache
def instance_types() -> tuple[InstanceType, ...]:
    """Every type of the table."""
    return tuple(InstanceType(name, category, architecture, vcpus, memory, Decimal(millicores) / 1000,
                              Decimal(allocatable_mib * MIB), interfaces, ipv4)
                 for name, category, architecture, vcpus, memory, millicores, allocatable_mib, interfaces, ipv4
                 in INSTANCE_TYPES)


def instance_type(name: str) -> InstanceType | None:
    """The type of the table called ``name``, if any."""
    return _by_name().get(name)


@cache
def _by_name() -> dict[str, InstanceType]:
    return {instance.name: instance for instance in instance_types()}


# The keys the table answers (every listed name follows the scheme, so every type has a generation).
MATCHED_KEYS = frozenset({INSTANCE_TYPE, ARCH, *(f"{KARPENTER_DOMAIN}/instance-{key}" for key in (
    "category", "family", "generation", "size", "cpu", "memory", "capability-flex"))})


@lru_cache(maxsize=256)  # keyed by what a pool launches: a few per stack
def one_per_shape(types: tuple[InstanceType, ...]) -> tuple[InstanceType, ...]:
    """Of ``types``, the first by name of each shape: the same allocatable room, capacity and interfaces.

    The fleet's bounds (:mod:`.least_launch`, :mod:`.addresses`) read only these figures of a type and break their
    ties by name, so their bound over these types is their bound over all of ``types``, for about a quarter of the
    work: Karpenter's table repeats each shape across families and generations (``m5.large``, ``m6i.large``...).
    """
    firsts: dict[tuple[object, ...], InstanceType] = {}
    for instance in sorted(types, key=lambda instance: instance.name):
        firsts.setdefault((instance.allocatable_cpu, instance.allocatable_memory, instance.capacity,
                           instance.network_interfaces, instance.ipv4_per_interface), instance)
    return tuple(firsts.values())


def narrows(requirement: PoolRequirement) -> bool:
    """Whether ``requirement`` narrows the instance table (its key is one of :data:`MATCHED_KEYS`)."""
    return table_key(requirement.key) in MATCHED_KEYS


@dataclass(frozen=True)
class Launchable:
    """What a pool's requirements leave of the table, and if nothing, which requirement left nothing."""

    types: tuple[InstanceType, ...]  # the types meeting every requirement (empty: the pool launches nothing)
    emptied_by: PoolRequirement | None = None
    before: tuple[InstanceType, ...] = ()  # the types left just before ``emptied_by``


@lru_cache(maxsize=256)  # keyed by a pool's requirements: a stack has a few pools
def launchable(requirements: tuple[PoolRequirement, ...]) -> Launchable:
    """The instance types a NodePool with ``requirements`` (in order) can launch."""
    types = instance_types()
    for requirement in filter(narrows, requirements):
        key = table_key(requirement.key)
        left = tuple(instance for instance in types if requirement.allows(instance.labels.get(key)))
        if not left:
            return Launchable((), requirement, types)
        types = left
    return Launchable(types)


def pool_launchable(pool: NodePoolConfig) -> Launchable:
    """The instance types node pool ``pool`` can launch (for an existing pool: those of its default shorthands,
    as its own are unknown here)."""
    return launchable(pool_requirements(pool))


def fit_problem(types: tuple[InstanceType, ...], cpu: Decimal, memory: Decimal) -> str | None:
    """Why no type of ``types`` (non-empty) holds a pod requesting ``cpu`` cores and ``memory`` bytes, or ``None``.

    Names the type that comes closest as the example to meet: the largest share of the pod's tighter resource,
    then of the other one, then the first name (so that the choice is stable).
    """
    if any(instance.holds(cpu, memory) for instance in types):
        return None

    def distance(instance: InstanceType) -> tuple[Decimal, Decimal, str]:
        shares = sorted((instance.allocatable_cpu / cpu, instance.allocatable_memory / memory))
        return -shares[0], -shares[1], instance.name

    closest = min(types, key=distance)
    return (f"fits no instance type the pool allows: the closest, {closest.describe()}, holds less after "
            "Karpenter's kubelet/system reservations, eviction threshold and VM overhead (and DaemonSets take "
            f"more); allowed: at most {format_cpu(closest.allocatable_cpu)} CPU and "
            f"{format_memory(closest.allocatable_memory)} on {closest.name}, or a pool that allows larger types "
            "(instanceCategories, architectures, requirements)")
