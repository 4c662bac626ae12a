"""``prescale.model.checks.platform``: the cluster's endpoint, the Karpenter a stack runs, its node role, EKS Auto
Mode's limits and alerts, each refused with the key at fault."""

from prescale.model.checks import platform
from prescale.model.checks.refused import NOTHING_REFUSED

from .conftest import changed


def test_a_valid_stack_has_no_platform_problem(valid):
    assert platform.endpoint_problems(valid) == platform.karpenter_problems(valid) == []
    assert platform.node_role_problems(valid) == platform.alerts_problems(valid) == []
    assert platform.auto_mode_problems(valid, NOTHING_REFUSED, True) == []


def test_a_cluster_without_any_endpoint_is_refused(valid):
    closed = changed(valid, cluster=changed(valid.cluster, endpoint_private_access=False,
                                            endpoint_public_access=False))
    assert platform.endpoint_problems(closed) == [
        "prescale:cluster.endpointPrivateAccess: false while endpointPublicAccess is false too: the cluster would "
        "have no API endpoint; allowed: true (private, from the VPC), or a public endpoint limited by "
        "publicAccessCidrs"]


def test_a_new_cluster_without_karpenter_is_refused(valid):
    (problem,) = platform.karpenter_problems(changed(valid, karpenter=changed(valid.karpenter, install=False)))
    assert problem.startswith("prescale:karpenter.install: false with a new cluster (prescale:cluster.create is "
                              "true): a new cluster has no Karpenter of its own")


def test_alerts_on_a_new_cluster_are_refused(valid):
    (problem,) = platform.alerts_problems(changed(valid, alerts=changed(valid.alerts, prometheus_rule=True)))
    assert problem.startswith("prescale:alerts.prometheusRule: true needs a cluster that already runs the "
                              "Prometheus Operator and kube-state-metrics")


def test_auto_mode_refuses_a_never_expiring_pool(valid):
    auto = changed(valid, cluster=changed(valid.cluster, auto_mode=True),
                   node_pools=[changed(valid.node_pools[0], expire_after="Never")])
    problems = platform.auto_mode_problems(auto, NOTHING_REFUSED, False)
    assert any(problem.startswith("prescale:nodePools[0].expireAfter: 'Never'") for problem in problems)
