"""The names prescale writes into a cluster and its AWS account, in one place (label keys:
:mod:`prescale.model.values.labels`; the objects of each strategy's windows, which the plan carries:
:mod:`prescale.model.strategies`).

Label sets, tags and object names are read back by other objects (a Deployment's ``nodeSelector`` names the pool's
label, a failsafe names the Deployment it scales, the policy pack and ``prescale status`` find objects by them), so
each is defined once here and both wings import it. Pure: no Pulumi.
"""

from __future__ import annotations

from .model.strategies.base import window_object_name
from .model.values.labels import NODEPOOL_LABEL, POOL_LABEL

# Subnets and security groups an EC2NodeClass selects, unless a pool gives its own selector terms (Karpenter's
# getting-started convention).
DISCOVERY_TAG = "karpenter.sh/discovery"
# On a window's capacity reservations, beside its name: stacks of one account may share window names (a production
# cluster and its DR twin take the same event), so `prescale preflight` finds a stack's own by both.
CLUSTER_TAG = "prescale.io/cluster"

PLACEHOLDER_LABELS = {"app.kubernetes.io/name": "prescale-placeholder", "app.kubernetes.io/managed-by": "prescale"}
FAILSAFE_LABELS = {"app.kubernetes.io/name": "prescale-failsafe", "app.kubernetes.io/managed-by": "prescale"}
# A static or buffer window's driver (its CronJobs and RBAC), its CapacityBuffer's PodTemplate (the virtual pods
# carry these), and the DaemonSet that pulls its images.
DRIVER_LABELS = {"app.kubernetes.io/name": "prescale-driver", "app.kubernetes.io/managed-by": "prescale"}
BUFFER_LABELS = {"app.kubernetes.io/name": "prescale-buffer", "app.kubernetes.io/managed-by": "prescale"}
PREPULL_LABELS = {"app.kubernetes.io/name": "prescale-prepull", "app.kubernetes.io/managed-by": "prescale"}

# Karpenter's pod annotation that blocks voluntary disruption of the pod's node.
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"

# The namespace every window's objects live in, and the placeholders' PriorityClass.
PLACEHOLDER_NAMESPACE = "prescale"
PRIORITY_CLASS_NAME = "prescale-placeholder"


def node_pool_object_name(pool_name: str) -> str:
    """A prescale pool's NodePool and node class: prefixed, so it cannot collide with a cluster's own pools."""
    return f"prescale-{pool_name}"


def pool_node_selector(pool_name: str, owned: bool) -> dict[str, str]:
    """The labels a pool's nodes and NodeClaims carry: prescale's own pools put ``prescale.io/node-pool`` in their
    NodePool template; a pool someone else owns is found by Karpenter's ``karpenter.sh/nodepool``."""
    return {POOL_LABEL: pool_name} if owned else {NODEPOOL_LABEL: pool_name}


def placeholder_name(window_name: str) -> str:
    """A window's Deployment and ScaledObject (KEDA's HPA becomes ``keda-hpa-prescale-<window>``): the window's own
    object name, which a buffer window's CapacityBuffer has too."""
    return window_object_name(window_name)


def failsafe_name(window_name: str) -> str:
    """A window's failsafe CronJob, ServiceAccount, Role and RoleBinding.

    ``failsafe-<window>``: at most 49 characters for a 40-character window name, within a CronJob's 52
    (its Jobs append an 11-character suffix to it).
    """
    return f"failsafe-{window_name}"
