"""The platform wing: the EKS cluster (new or existing), its network, Karpenter with its AWS side, and KEDA.

:func:`~prescale.platform.deploy.deploy_platform` builds what a stack's config asks for and hands the capacity
wing one :class:`~prescale.contract.Platform`; nothing in :mod:`prescale.capacity` imports this package.
"""

from ..contract import Platform
from .deploy import PrescalePlatform, PrescalePlatformArgs, deploy_platform

__all__ = ["Platform", "PrescalePlatform", "PrescalePlatformArgs", "deploy_platform"]
