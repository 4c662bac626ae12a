"""The KEDA component: namespace, pinned chart, HA values on the system nodes, through the given provider."""

import pytest
from prescale.model.config import KedaConfig
from prescale.offline import evaluate
from prescale.platform.keda import Keda, KedaArgs

from tests.support.platform import RELEASE, SYSTEM_PLACEMENT, only, provider_urn, stand_in_provider, uses_provider

NAMESPACE = "kubernetes:core/v1:Namespace"


@pytest.fixture(scope="module")
def keda():
    return evaluate(lambda: Keda("k", KedaArgs(config=KedaConfig(version="2.19.1"),
                                              kubernetes_provider=stand_in_provider(),
                                              placement=SYSTEM_PLACEMENT, depends_on=[])))


def test_release_is_the_pinned_kedacore_chart_named_keda_in_its_own_namespace(keda):
    release = only(keda, RELEASE).inputs
    assert {k: release[k] for k in ("chart", "version", "name", "namespace", "repositoryOpts")} == {
        "chart": "keda", "version": "2.19.1", "name": "keda", "namespace": "keda",
        "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}}
    assert (release["atomic"], release["timeout"], release["maxHistory"]) == (True, 600, 10)
    assert only(keda, NAMESPACE).inputs["metadata"] == {"name": "keda"}


def test_release_waits_for_its_namespace(keda):
    assert only(keda, NAMESPACE).urn in only(keda, RELEASE).dependencies


def test_operator_metrics_server_and_webhooks_run_two_replicas_with_budgets_and_resources(keda):
    values = only(keda, RELEASE).inputs["values"]
    resources = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "1", "memory": "1000Mi"}}
    assert values["operator"] == values["metricsServer"] == values["webhooks"] == {"replicaCount": 2}
    assert values["podDisruptionBudget"] == {name: {"minAvailable": 1}
                                             for name in ("operator", "metricServer", "webhooks")}
    assert values["resources"] == {name: resources for name in ("operator", "metricServer", "webhooks")}


def test_keda_runs_on_the_system_nodes(keda):
    values = only(keda, RELEASE).inputs["values"]
    assert values["nodeSelector"] == {"prescale.io/system": "true"}
    assert values["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]


def test_every_kubernetes_resource_uses_the_given_provider(keda):
    provider = provider_urn(keda)
    in_cluster = [r for r in keda.resources if r.type.startswith("kubernetes:")]
    assert len(in_cluster) == 2 and all(uses_provider(r, provider) for r in in_cluster)


def test_keda_stays_off_karpenters_nodes_like_karpenters_own_chart(keda):
    """Else a Pending KEDA pod makes Karpenter launch a node, and consolidating that node evicts KEDA."""
    values = only(keda, RELEASE).inputs["values"]
    assert values["affinity"] == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}]}}}


def test_each_components_two_replicas_spread_over_nodes(keda):
    spread = only(keda, RELEASE).inputs["values"]["topologySpreadConstraints"]
    apps = {"operator": "keda-operator", "metricsServer": "keda-operator-metrics-apiserver",
            "webhooks": "keda-admission-webhooks"}
    assert spread == {component: [{
        "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": app}}, "matchLabelKeys": ["pod-template-hash"],
        "nodeTaintsPolicy": "Honor"}] for component, app in apps.items()}


def test_keda_runs_at_system_cluster_critical_priority(keda):
    assert only(keda, RELEASE).inputs["values"]["priorityClassName"] == "system-cluster-critical"
