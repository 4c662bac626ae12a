"""``prescale:alerts.prometheusRule``: the PrometheusRule the program applies, where it may, and where it refuses.

The whole program runs under mocks on an existing cluster (the only kind alerts may go to); its rule passes the
Prometheus Operator's CRD. What the rules do is tested by promtool (tests/capacity/test_alert_rules.py).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from prescale.capacity.alert_rules import rule_groups
from prescale.model.config import AlertsConfig
from prescale.model.plan import plan_capacity
from prescale.model.validation import ConfigError, load_capacity_config
from prescale.offline import CRD_TYPE, Evaluation, OfflineMocks, ResourceNotFound, run_program

from tests.support.capacity import as_object, pool, stack_config, window
from tests.support.crd_validation import validate
from tests.support.platform import K8S_PROVIDER, PROJECT, only

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
COMPONENT = "prescale:index:EventAlerts"
POOLS = [{"name": "event", "limits": {"cpu": "512", "memory": "2048Gi"}}, {"name": "shared", "existing": True}]
WINDOWS = [{"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * *",
            "end": "30 11 * * *", "nodes": 3},
           {"name": "sale", "nodePool": "shared", "timezone": "Asia/Seoul", "start": "2027-03-02T10:00",
            "end": "2027-03-02T18:00", "nodes": 2, "leadTime": "30m"},
           {"name": "last-year", "nodePool": "event", "timezone": "Asia/Seoul", "start": "2025-03-02T10:00",
            "end": "2025-03-02T18:00", "nodes": 2}]  # over: not armed, so not watched


def wire(alerts: dict | None, create: bool = False) -> dict[str, str]:
    sections: dict[str, Any] = {"nodePools": POOLS, "eventWindows": WINDOWS}
    if alerts is not None:
        sections["alerts"] = alerts
    return {"aws:region": "ap-northeast-2", "prescale:cluster": json.dumps({"name": "shop", "create": create}),
            **{f"prescale:{key}": json.dumps(value) for key, value in sections.items()}}


@pytest.fixture(scope="module")
def with_alerts() -> Evaluation:
    return run_program(PROJECT, "alerts", NOW, config=wire({"prometheusRule": True}))


def test_the_rule_watches_the_armed_windows_beside_them_in_namespace_prescale(with_alerts):
    rule = as_object(only(with_alerts, RULE))
    assert rule["metadata"] == {"name": "prescale-alerts", "namespace": "prescale", "labels": {
        "app.kubernetes.io/name": "prescale-alerts", "app.kubernetes.io/managed-by": "prescale"}}
    config = stack_config(POOLS, WINDOWS, NOW, cluster={"name": "shop", "create": False})
    assert rule["spec"] == {"groups": rule_groups(plan_capacity(config, NOW))}
    assert [group["name"] for group in rule["spec"]["groups"]] == ["prescale-pool-event", "prescale-pool-shared"]
    assert "last-year" not in json.dumps(rule["spec"])


def test_the_rule_passes_the_prometheus_operator_crd(with_alerts):
    assert validate(as_object(only(with_alerts, RULE))) == []


def test_the_crd_validation_refuses_a_broken_rule(with_alerts):
    rule = as_object(only(with_alerts, RULE))
    group = rule["spec"]["groups"][0]
    rule["spec"]["groups"] = [group, group]  # group names are the list's map key
    group["rules"][0]["for"] = "10 minutes"
    problems = validate(rule)
    assert any("duplicate entries for key {'name': 'prescale-pool-event'}" in p for p in problems), problems
    assert any(p.startswith("spec.groups[0].rules[0].for: '10 minutes' does not match") for p in problems), problems


def test_the_rule_waits_for_the_crd_read_and_the_namespace_through_the_clusters_provider(with_alerts):
    rule = only(with_alerts, RULE)
    assert rule.parent == only(with_alerts, COMPONENT).urn
    assert rule.provider.startswith(only(with_alerts, K8S_PROVIDER).urn)
    read = f"{COMPONENT}${CRD_TYPE}::alerts-need-prometheus-operator"
    assert any(dependency.endswith(read) for dependency in rule.dependencies), rule.dependencies
    assert any(dependency.endswith("::prescale-namespace") for dependency in rule.dependencies)


def test_without_the_prometheusrule_crd_the_run_fails_and_no_rule_is_applied():
    mocks = OfflineMocks(existing_crds=frozenset())
    with pytest.raises(ResourceNotFound) as caught:
        run_program(PROJECT, "alerts", NOW, config=wire({"prometheusRule": True}), mocks=mocks)
    message = str(caught.value)
    assert message == "Preview failed: resource 'prometheusrules.monitoring.coreos.com' does not exist"
    assert not [r for r in mocks.registrations if r.type == RULE]


def test_off_nothing_is_added():
    evaluation = run_program(PROJECT, "alerts", NOW, config=wire({"prometheusRule": False}))
    assert not [r for r in evaluation.resources if r.type in (RULE, COMPONENT)]


def test_off_by_default(dev_run):
    assert AlertsConfig().prometheus_rule is False
    assert not [r for r in dev_run[0].resources if r.type in (RULE, COMPONENT)]  # the dev stack has no alerts key


def test_a_cluster_prescale_creates_is_refused_with_the_reason():
    with pytest.raises(ConfigError) as caught:
        run_program(PROJECT, "alerts", NOW, config=wire({"prometheusRule": True}, create=True))
    assert caught.value.problems == [
        "prescale:alerts.prometheusRule: true needs a cluster that already runs the Prometheus Operator and "
        "kube-state-metrics, and a cluster prescale creates (prescale:cluster.create: true) runs neither, so there "
        "would be no PrometheusRule CRD to apply it to and nothing to evaluate it; allowed: false here, or true "
        "with prescale:cluster.create: false on a cluster that runs both"]


@pytest.mark.parametrize("value, problem", [
    ({"prometheusRule": "true"}, "prescale:alerts.prometheusRule: must be true or false, without quotes (got 'true')"),
    ({"prometheusrule": True}, "prescale:alerts.prometheusrule: unknown key (value True); did you mean "
                               "'prometheusRule'? allowed keys: prometheusRule"),
])
def test_the_key_is_strict(value, problem):
    with pytest.raises(ConfigError) as caught:
        run_program(PROJECT, "alerts", NOW, config=wire(value))
    assert caught.value.problems == [problem]


def test_a_library_program_may_ask_for_alerts():
    config = load_capacity_config({"prescale:nodePools": [pool()], "prescale:eventWindows": [
        window("lunch", "15 11 * * *", "30 11 * * *")], "prescale:alerts": {"prometheusRule": True}}, NOW)
    assert config.alerts.prometheus_rule is True

