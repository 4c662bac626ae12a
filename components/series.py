"""The series prescale reads from Prometheus, named once for the alerting rules (:mod:`prescale.capacity.
alert_rules`) and ``prescale report`` (:mod:`prescale_cli.report`), exactly as their exporters write them.

kube-state-metrics v2 (kubernetes/kube-state-metrics ``docs/metrics/``): a node's labels, its conditions, a
Deployment's Ready replicas, a pod's scheduling condition and creation time. Karpenter (kubernetes-sigs/karpenter
v1.14.1): the NodeClaims it deleted because they never became nodes, and its build info, which tells its series are
scraped at all.
Pure: no Pulumi, nothing else of prescale.
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
# A pod's creation time in Unix seconds, one series per pod (namespace, pod, uid) while it exists
# (kubernetes/kube-state-metrics internal/store/pod.go).
POD_CREATED = "kube_pod_created"
# 1 while a ScaledObject's trigger is active, 0 otherwise, labelled type="scaledobject" and scaledObject among others
# (kedacore/keda v2.20 pkg/metricscollector/prommetrics.go; KEDA updates it at each poll).
SCALER_ACTIVE = "keda_scaler_active"
# A Job's start time (Unix seconds), and the object that owns it: a driver's runs are Jobs of its CronJobs
# (kube-state-metrics internal/store/job.go).
JOB_START = "kube_job_status_start_time"
JOB_OWNER = "kube_job_owner"
# A CapacityBuffer's status conditions, 1 while True, labelled namespace, name, type and reason: kube-state-metrics
# writes it only with the CustomResourceStateMetrics config docs/report.md gives (pkg/customresourcestate: a Gauge
# over [status, conditions], `kube_customresource_` + the metric's name; a condition's "True" is 1).
BUFFER_CONDITION = "kube_customresource_capacitybuffer_condition"

# NodeClaims Karpenter deleted, a counter labelled reason, nodepool and capacity_type (karpenter pkg/metrics/
# metrics.go, v1.14.1); like every Karpenter counter, a series is created at its first count.
NODECLAIMS_DISRUPTED = "karpenter_nodeclaims_disrupted_total"
# Why Karpenter deletes a NodeClaim that never became a node (karpenter pkg/controllers/nodeclaim/lifecycle, v1.14.1:
# launch.go's insufficient_capacity and nodeclass_not_ready, liveness.go's launch_timeout and registration_timeout).
LAUNCH_FAILURE_REASONS = ("insufficient_capacity", "launch_timeout", "nodeclass_not_ready", "registration_timeout")
# Karpenter's constant 1, labelled by its version (karpenter pkg/operator/operator.go, v1.14.1): present whenever
# Karpenter's series are scraped.
KARPENTER_BUILD_INFO = "karpenter_build_info"


def launch_failures(nodepools: str) -> str:
    """The NodeClaims of the NodePools ``nodepools`` (``="name"``, ``=~"a|b"``) deleted before becoming nodes."""
    return f'{NODECLAIMS_DISRUPTED}{{nodepool{nodepools}, reason=~"{"|".join(LAUNCH_FAILURE_REASONS)}"}}'


def nodes_of_pool(selector: str) -> str:
    """``kube_node_labels`` of the nodes whose NodePool matches ``selector`` (``="name"``, ``=~"a|b"``, ``!=""``)."""
    return f"{NODE_LABELS}{{{NODEPOOL_NODE_LABEL}{selector}}}"
