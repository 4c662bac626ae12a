"""The capacity wing: what turns ``prescale:nodePools`` and ``prescale:eventWindows`` into capacity in a cluster.

:class:`~prescale.capacity.deploy.PrescaleCapacity` (or its wrapper
:func:`~prescale.capacity.deploy.deploy_capacity`) renders a :class:`~prescale.model.plan.CapacityPlan` on a
:class:`~prescale.contract.Platform`: node pools, each window's placeholders and ScaledObject, and its failsafe,
and the capacity reservations one-off windows hold.
It reads the platform only through that contract, never :mod:`prescale.platform`.
"""

from .deploy import DeployedCapacity, PrescaleCapacity, PrescaleCapacityArgs, deploy_capacity

__all__ = ["DeployedCapacity", "PrescaleCapacity", "PrescaleCapacityArgs", "deploy_capacity"]
