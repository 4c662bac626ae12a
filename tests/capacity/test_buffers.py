"""Buffer pools: a CapacityBuffer per window, of the window's placeholder pod, on the pool's own NodePool.

The buffer passes the chart's CapacityBuffer CRD (schema and CEL), and the CRD is shown to refuse a bad one.
"""

import copy
from datetime import UTC, datetime

from tests.support.capacity import (
    CAPACITY_BUFFER,
    DEPLOYMENT,
    NATIVE_POOLS,
    NATIVE_WINDOWS,
    NODE_POOL,
    POD_TEMPLATE,
    as_object,
    native_config,
    run,
    short,
    stack_config,
)
from tests.support.crd_validation import validate, validate_kubernetes

BUFFER_LABELS = {"app.kubernetes.io/name": "prescale-buffer", "app.kubernetes.io/managed-by": "prescale",
                 "prescale.io/window": "sale", "prescale.io/node-pool": "buffer"}


def test_a_buffer_window_gets_a_capacity_buffer_of_its_placeholders_at_zero(native_run):
    evaluation, (deployed,) = native_run
    sale = deployed.plan.window("sale")
    buffer = evaluation.named(CAPACITY_BUFFER, "sale-buffer")
    assert as_object(buffer) == {
        "apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
        "metadata": {"name": "prescale-sale", "namespace": "prescale", "labels": BUFFER_LABELS},
        "spec": {"podTemplateRef": {"name": "prescale-sale"}, "replicas": 0},
    }
    assert sale.placeholders.pods == 2  # 8 CPU / 16Gi in pods of at most maxPodSize: what the driver sets at scale-up
    assert sale.capacity.driver.up.replicas == 2
    assert buffer.ignore_changes == ["spec.replicas"]
    assert {short(d) for d in buffer.dependencies} >= {"karpenter", "sale-pod-template"}


def test_the_buffers_pod_template_is_the_windows_placeholder_pod_without_its_pulls(native_run):
    """Same window on a placeholders pool: its Deployment's pod, but for the labels and the prepull init containers
    (a DaemonSet pulls the images of a buffer window)."""
    evaluation, _ = native_run
    template = as_object(evaluation.named(POD_TEMPLATE, "sale-pod-template"))
    assert template["metadata"] == {"name": "prescale-sale", "namespace": "prescale", "labels": BUFFER_LABELS}
    placeholders_pool = [dict(NATIVE_POOLS[2], strategy="placeholders")]
    placeholder = as_object(run(stack_config(placeholders_pool, [NATIVE_WINDOWS[2]]))[0].named(
        DEPLOYMENT, "sale-placeholders"))["spec"]["template"]
    for field in ("initContainers", "volumes"):
        del placeholder["spec"][field]
    assert template["template"]["spec"] == placeholder["spec"]
    assert template["template"]["metadata"]["labels"] == BUFFER_LABELS
    spec = template["template"]["spec"]
    assert spec["nodeSelector"] == {"prescale.io/node-pool": "buffer"}
    assert spec["tolerations"] == [{"key": "dedicated", "effect": "NoExecute", "operator": "Exists"}]
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "4", "memory": "8Gi"}
    validate_kubernetes(template)


def test_a_nodes_window_buffer_keeps_one_virtual_pod_per_node(native_run):
    evaluation, _ = native_run
    spec = as_object(evaluation.named(POD_TEMPLATE, "flash-pod-template"))["template"]
    assert spec["metadata"]["labels"]["prescale.io/one-per-node"] == "buffer"
    (term,) = spec["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term == {"labelSelector": {"matchLabels": {"prescale.io/one-per-node": "buffer"}},
                    "topologyKey": "kubernetes.io/hostname"}


def test_the_pools_own_node_pool_holds_the_buffers_freezes(native_run):
    evaluation, (deployed,) = native_run
    budgets = as_object(evaluation.named(NODE_POOL, "buffer-node-pool"))["spec"]["disruption"]["budgets"]
    freezes = [deployed.plan.window(name).freeze for name in ("flash", "sale")]
    assert [{"nodes": "0", "schedule": f.schedule, "duration": f.duration} for f in freezes if f] == budgets[:2]


def test_a_buffer_created_just_before_its_scale_up_starts_at_its_count_and_after_the_start_at_zero():
    before = datetime(2026, 12, 1, 10, 45, tzinfo=UTC)  # 19:45 KST, five minutes before the 19:50 scale-up
    after = datetime(2026, 12, 1, 11, 30, tzinfo=UTC)  # 20:30 KST: the event has started, the buffer is back to 0
    for now, replicas in ((before, 2), (after, 0)):
        buffer = as_object(run(native_config(now), now)[0].named(CAPACITY_BUFFER, "sale-buffer"))
        assert buffer["spec"]["replicas"] == replicas, now


def test_every_buffer_passes_the_charts_crd_which_refuses_a_bad_one(native_run):
    evaluation, _ = native_run
    buffers = [as_object(r) for r in evaluation.of_type(CAPACITY_BUFFER)]
    assert len(buffers) == 2
    assert [validate(buffer) for buffer in buffers] == [[], []]
    bad = copy.deepcopy(buffers[0])
    del bad["spec"]["replicas"]
    bad["spec"]["scalableRef"] = {"kind": "Deployment", "name": "x"}
    problems = validate(bad)
    assert "spec: If podTemplateRef is set, replicas or limits must also be set" in problems
    assert "spec: You must define either PodTemplateRef or ScalableRef, but not both" in problems
    bad = copy.deepcopy(buffers[0])
    bad["spec"]["replicas"] = -1
    assert "spec.replicas: -1 is less than the minimum of 0" in validate(bad)
