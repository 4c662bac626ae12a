"""Which EC2 instance types a node pool allows, and whether a placeholder pod fits on any of them.

A placeholder stays Pending forever if no instance type the pool may launch can hold it: Karpenter then launches
nothing and the event gets no capacity. The instance types are Karpenter's own list
(:mod:`prescale.model.ec2_instance_types`, generated from its instance-types reference, with the VPC CNI's network
interfaces per type), filtered the way the NodePool's requirements filter them (``instanceCategories`` ×
``architectures``; every listed type runs Linux).

What a pod can use is the type's *allocatable* room as Karpenter computes it: capacity minus kube-reserved,
system-reserved, the eviction threshold and the VM memory overhead. DaemonSets (VPC CNI, kube-proxy, the Pod
Identity agent, whatever the cluster adds) take more of it, so a pod that just fits here may still not fit in a
real cluster; but one that does not fit here fits no node at all, which is why only that is refused. The list is
as of its release (see the data module), with AL2023's figures (Karpenter's default AMI family), and is not
narrowed to a region; a type EC2 added later is not known here until the table is regenerated. No package on the
registries keeps such data current (PyPI's ``ec2instances-info`` and ``ec2-sizes`` stopped in 2017 and 2018),
hence a table generated from Karpenter's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from .ec2_instance_types import INSTANCE_TYPES
from .quantity import MIB, format_cpu, format_memory



@dataclass(frozen=True)
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

    def holds(self, cpu: Decimal, memory: Decimal) -> bool:
        return cpu <= self.allocatable_cpu and memory <= self.allocatable_memory

    def describe(self) -> str:
        return (f"{self.name} ({self.vcpus} vCPU, {format_memory(Decimal(self.memory_mib * MIB))}; "
                f"{format_cpu(self.allocatable_cpu)} CPU and {format_memory(self.allocatable_memory)} allocatable)")


@cache
def allowed_instance_types(categories: tuple[str, ...], architectures: tuple[str, ...]) -> tuple[InstanceType, ...]:
    """The known instance types of these categories and architectures (a NodePool's ``In`` requirements)."""
    return tuple(InstanceType(name, category, architecture, vcpus, memory, Decimal(millicores) / 1000,
                              Decimal(allocatable_mib * MIB), interfaces, ipv4)
                 for name, category, architecture, vcpus, memory, millicores, allocatable_mib, interfaces, ipv4
                 in INSTANCE_TYPES if category in categories and architecture in architectures)


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
            f"{format_memory(closest.allocatable_memory)} on {closest.name}, or more instanceCategories or "
            "architectures")
