"""One Karpenter NodePool + EC2NodeClass per ``prescale:nodePools`` entry: where event capacity lands.

Each pool is dedicated to event capacity: its nodes carry ``prescale.io/node-pool: <name>`` and the
pool's configured taints, so only workloads that select it on purpose (the placeholders, and the event's
own pods if they choose to) land there. Nodes come up for pending placeholders and go away on their own:

* **Consolidation** (``consolidationPolicy``/``consolidateAfter`` from config, default
  ``WhenEmptyOrUnderutilized`` after 2m) removes the nodes once the placeholders scale to zero after a
  window.
* **Disruption budgets** keep Karpenter's hands off during windows: a ``nodes: "0"`` budget per window
  from placeholder scale-up to the event's end, as a UTC cron from :mod:`prescale.model.schedule` (Karpenter
  has no time zones; in a DST zone the budget starts at the earlier of the two UTC instants and lasts
  long enough for the later one), fitted into the CRD's 50 by :mod:`prescale.model.budgets`, beside its
  standing budgets: empty nodes may all go at once (a window's emptied nodes leave promptly after it), while
  consolidating busy nodes and drift keep Karpenter's default ``nodes: "10%"`` pace.
* **expireAfter** defaults to ``Never``: expiry is forceful and budgets do *not* stop it, so a lifetime
  timer could drain a node mid-event. Event nodes are short-lived anyway (consolidated after each window);
  a finite ``expireAfter`` set in config is passed through as given, and ``terminationGracePeriod`` bounds
  how long a drain may take.

Instances: the pinned AMI alias from config (never an unpinned ``@latest`` default), the node role from the
platform, subnets and security groups found by the ``karpenter.sh/discovery: <cluster>`` tag, IMDSv2 only
with a hop limit of 1 (pods cannot reach the node's credentials), and encrypted gp3 volumes.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import pulumi

from .model.budgets import MAX_BUDGETS, STANDING_BUDGETS, fit_freezes
from .model.config import NodePoolConfig
from .crds import (BlockDeviceMapping, Budget, EC2NodeClass, EC2NodeClassSpec, NodePool, NodePoolSpec,
                   NodeSelectorRequirement, Taint)
from .platform import Platform
from .model.schedule import BudgetSchedule

POOL_LABEL = "prescale.io/node-pool"
DISCOVERY_TAG = "karpenter.sh/discovery"
# Karpenter's own per-family defaults, with a larger disk for event workloads' images.
_DISK_GIB = 50
_BLOCK_DEVICES: dict[str, list[BlockDeviceMapping]] = {
    "al2023": [{"deviceName": "/dev/xvda",
                "ebs": {"volumeSize": f"{_DISK_GIB}Gi", "volumeType": "gp3", "encrypted": True,
                        "deleteOnTermination": True}}],
    # Bottlerocket: a small OS volume and a data volume for images and logs.
    "bottlerocket": [{"deviceName": "/dev/xvda",
                      "ebs": {"volumeSize": "4Gi", "volumeType": "gp3", "encrypted": True,
                              "deleteOnTermination": True}},
                     {"deviceName": "/dev/xvdb",
                      "ebs": {"volumeSize": f"{_DISK_GIB}Gi", "volumeType": "gp3", "encrypted": True,
                              "deleteOnTermination": True}}],
}


def kubernetes_name(pool: NodePoolConfig) -> str:
    """The NodePool's and EC2NodeClass's object name: prefixed, so it cannot collide with a cluster's own pools."""
    return f"prescale-{pool.name}"


class EventNodePool(pulumi.ComponentResource):
    """A pool's EC2NodeClass and NodePool, with its windows' consolidation freezes as disruption budgets."""

    node_class: EC2NodeClass
    node_pool: NodePool

    def __init__(self, name: str, pool: NodePoolConfig, freezes: Sequence[BudgetSchedule], platform: Platform,
                 tags: dict[str, str] | None = None, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:EventNodePool", name, {}, pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(providers=[platform.kubernetes_provider])))
        children = pulumi.ResourceOptions(parent=self, depends_on=list(platform.karpenter_ready))
        object_name = kubernetes_name(pool)
        self.node_class = EC2NodeClass(f"{name}-node-class", {"name": object_name},
                                       node_class_spec(pool, platform, tags or {}), opts=children)
        # After its node class, so that deleting the pool removes its nodes before the class they launch from.
        after_class = pulumi.ResourceOptions.merge(children, pulumi.ResourceOptions(depends_on=[self.node_class]))
        self.node_pool = NodePool(f"{name}-node-pool", {"name": object_name},
                                  node_pool_spec(pool, object_name, budgets_for(pool, freezes)), opts=after_class)
        self.register_outputs({"nodeClassName": object_name, "nodePoolName": object_name})


def node_class_spec(pool: NodePoolConfig, platform: Platform, tags: dict[str, str]) -> EC2NodeClassSpec:
    discovery = [{"tags": {DISCOVERY_TAG: platform.cluster_name}}]
    return {
        "role": platform.node_role_name,
        "amiSelectorTerms": [{"alias": pool.ami_alias}],
        "subnetSelectorTerms": discovery,
        "securityGroupSelectorTerms": discovery,
        "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                            "httpPutResponseHopLimit": 1, "httpTokens": "required"},
        "blockDeviceMappings": _BLOCK_DEVICES[pool.ami_alias.split("@")[0]],
        "tags": {**tags, POOL_LABEL: pool.name},
    }


def node_pool_spec(pool: NodePoolConfig, node_class_name: str, budgets: list[Budget]) -> NodePoolSpec:
    template_spec = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": EC2NodeClass.KIND, "name": node_class_name},
        "requirements": requirements(pool),
        "expireAfter": pool.expire_after,
        "terminationGracePeriod": pool.termination_grace_period,
    }
    if pool.taints:
        template_spec["taints"] = taints(pool)
    limits = {"cpu": pool.limits.cpu, "memory": pool.limits.memory}
    if pool.limits.nodes is not None:
        limits["nodes"] = str(pool.limits.nodes)
    spec: NodePoolSpec = {
        "template": {"metadata": {"labels": {POOL_LABEL: pool.name}}, "spec": template_spec},
        "disruption": {"consolidationPolicy": pool.consolidation_policy,
                       "consolidateAfter": pool.consolidate_after, "budgets": budgets},
        "limits": limits,
    }
    if pool.weight is not None:
        spec["weight"] = pool.weight
    return spec


def requirements(pool: NodePoolConfig) -> list[NodeSelectorRequirement]:
    return [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(pool.capacity_types)},
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": list(pool.instance_categories)},
        {"key": "kubernetes.io/arch", "operator": "In", "values": list(pool.architectures)},
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
    ]


def taints(pool: NodePoolConfig) -> list[Taint]:
    """The pool's taints; a value-less taint omits ``value`` (the NodePool schema refuses ``""``)."""
    return [{"key": t.key, "effect": t.effect, **({"value": t.value} if t.value else {})} for t in pool.taints]


def budgets_for(pool: NodePoolConfig, freezes: Sequence[BudgetSchedule]) -> list[Budget]:
    """``nodes: "0"`` for every freeze, then the standing budgets: at most the CRD's 50 in all."""
    fitted = fit_freezes(freezes)
    if fitted.merged:
        pulumi.log.warn(
            f"node pool {pool.name!r}: its windows need {fitted.requested} consolidation freezes but a NodePool "
            f"holds {MAX_BUDGETS} budgets ({len(STANDING_BUDGETS)} of them standing); they were merged into "
            f"{len(fitted.freezes)} covering ones, so consolidation stays frozen longer than the windows (no "
            "window loses its freeze). Spread windows over more node pools to avoid this.")
    return ([{"nodes": "0", "schedule": f.schedule, "duration": f.duration} for f in fitted.freezes]
            + copy.deepcopy(list(STANDING_BUDGETS)))  # each pool its own copies
