"""The series prescale reads from Prometheus, named once for the alerting rules (:mod:`prescale.capacity.
alert_rules`) and ``prescale report`` (:mod:`prescale_cli.report`), exactly as their exporters write them.

kube-state-metrics v2 (kubernetes/kube-state-metrics ``docs/metrics/``): a node's labels, its conditions, a
Deployment's Ready replicas, a pod's scheduling condition. Pure: no Pulumi, nothing else of prescale.
"""

from __future__ import annotations

# kube-state-metrics exports a node label only when --metric-labels-allowlist names it, sanitised to
# label_<name> (kubernetes/kube-state-metrics internal/store/node.go, kube_node_labels): karpenter.sh/nodepool.
NODEPOOL_NODE_LABEL = "label_karpenter_sh_nodepool"
NODE_LABELS = "kube_node_labels"
# A node whose Ready condition is true, one series per node (value 1 while it holds).
READY_NODE = 'kube_node_status_condition{condition="Ready", status="true"}'
DEPLOYMENT_READY = "kube_deployment_status_replicas_ready"  # a Deployment's Ready replicas
POD_SCHEDULED = "kube_pod_status_scheduled"  # a pod's PodScheduled condition, by condition="true|false|unknown"


def nodes_of_pool(selector: str) -> str:
    """``kube_node_labels`` of the nodes whose NodePool matches ``selector`` (``="name"``, ``=~"a|b"``, ``!=""``)."""
    return f"{NODE_LABELS}{{{NODEPOOL_NODE_LABEL}{selector}}}"
