"""``prescale:karpenter.values`` and ``prescale:keda.values``: what a user may set, what prescale owns, and what
would silently do nothing (a key the chart does not know, a null), each refused by its key path and value."""

import re

import pytest
from prescale.model.checks.helm_values import KARPENTER_VALUES, KEDA_VALUES, unknown_paths
from prescale.model.validation import load_capacity_config, load_stack_config

from tests.support import ROOT, load_yaml
from tests.support.config import NOW, only_problem, problems

CHARTS = {"karpenter": KARPENTER_VALUES, "keda": KEDA_VALUES}
OWNED = [(section, path) for section, chart in CHARTS.items() for path in chart.owned]
# Keys prescale leaves to the user: sizing over prescale's own, logging, annotations, an image mirror, settings it
# does not set, and what lies inside maps and lists the charts hand on whole.
ALLOWED = {
    "karpenter": {"logLevel": "debug", "podAnnotations": {"example.com/team": "platform"},
                  "controller": {"resources": {"limits": {"memory": "2Gi"}},
                                 "image": {"repository": "mirror.example.com/karpenter/controller"}},
                  "settings": {"batchMaxDuration": "15s", "featureGates": {"spotToSpotConsolidation": True}},
                  "extraVolumes": [{"name": "scratch", "emptyDir": {}}]},
    "keda": {"logging": {"operator": {"level": "debug"}}, "resources": {"operator": {"limits": {"memory": "2000Mi"}}},
             "global": {"image": {"registry": "mirror.example.com"}},
             "podAnnotations": {"keda": {"example.com/team": "platform"}}},
}


def stack(**sections) -> dict:
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
            **{f"prescale:{section}": value for section, value in sections.items()}}


def nested(path: str, value) -> dict:
    """``{"a": {"b": value}}`` for ``"a.b"``."""
    for key in reversed(path.split(".")):
        value = {key: value}
    return value


def test_keys_prescale_leaves_to_the_user_are_accepted_as_given():
    config = load_stack_config(stack(karpenter={"values": ALLOWED["karpenter"]}, keda={"values": ALLOWED["keda"]}),
                               NOW)
    assert (config.karpenter.values, config.keda.values) == (ALLOWED["karpenter"], ALLOWED["keda"])


def test_the_example_in_the_docs_is_accepted():
    section = (ROOT / "docs" / "platform.md").read_text().split("### Helm values\n", 1)[1]
    example = load_yaml(re.search(r"```yaml\n(.*?)```", section, re.DOTALL)[1])
    config = load_stack_config(stack(karpenter=example["prescale:karpenter"], keda=example["prescale:keda"]), NOW)
    assert config.karpenter.values["controller"] == {"resources": {"limits": {"memory": "2Gi"}}}
    assert config.keda.values["image"] == {"keda": {"registry": "mirror.example.com"}}


@pytest.mark.parametrize("section, path", OWNED, ids=[f"{section}-{path}" for section, path in OWNED])
def test_each_path_prescale_owns_is_refused_with_the_value_and_why(section, path):
    problem = only_problem(stack(**{section: {"values": nested(path, "mine")}}))
    assert problem == (f"prescale:{section}.values.{path}: 'mine' is prescale's to set: {CHARTS[section].owned[path]}; "
                       "allowed: remove it (docs/platform.md#helm-values)")


def test_a_value_below_an_owned_path_is_refused_at_that_path():
    found = problems(stack(karpenter={"values": {"serviceAccount": {"annotations": {"example.com/a": "b"}}}},
                           keda={"values": {"podDisruptionBudget": {"operator": {"maxUnavailable": 1}}}}))
    assert [problem.split(": ")[0] for problem in found] == ["prescale:karpenter.values.serviceAccount",
                                                             "prescale:keda.values.podDisruptionBudget"]


def test_a_value_that_replaces_a_map_names_every_owned_path_inside_once():
    found = problems(stack(karpenter={"values": {"settings": "clusterName=other"}}, keda={"values": {"webhooks": []}}))
    assert len(found) == 2
    assert found[0].startswith("prescale:karpenter.values.settings: 'clusterName=other' would replace "
                               "settings.clusterName and settings.interruptionQueue, which prescale sets: "
                               "settings.clusterName: it names this stack's cluster")
    assert found[0].endswith("allowed: a map that leaves them out (docs/platform.md#helm-values)")
    assert found[1].startswith("prescale:keda.values.webhooks: [] would replace webhooks.replicaCount and "
                               "webhooks.name and webhooks.nodeSelector and webhooks.tolerations and "
                               "webhooks.affinity, which prescale sets")


def test_a_key_the_chart_does_not_know_is_refused_with_the_closest_key_and_those_known_there():
    problem = only_problem(stack(karpenter={"values": {"settings": {"featureGates": {"spotToSpot": True}}}}))
    assert problem == (
        "prescale:karpenter.values.settings.featureGates.spotToSpot: True is not a key of the karpenter chart 1.14.1, "
        "so Helm would silently ignore it; did you mean 'spotToSpotConsolidation'? the chart's keys there: "
        "capacityBuffer, nodeOverlay, nodeRepair, reservedCapacity, spotToSpotConsolidation, staticCapacity")


def test_only_the_first_unknown_key_of_a_branch_is_named():
    problem = only_problem(stack(keda={"values": {"opertor": {"replicaCount": 3, "name": "x"}}}))
    assert problem.startswith("prescale:keda.values.opertor: {'replicaCount': 3, 'name': 'x'} is not a key of the "
                              "keda chart 2.20.2, so Helm would silently ignore it; did you mean 'operator'?")


def test_maps_and_lists_a_chart_hands_on_whole_take_any_content():
    keys = {"podAnnotations": None, "extraVolumes": None, "settings": {"clusterName": None}}
    values = {"podAnnotations": {"any.domain/key": "v"}, "extraVolumes": [{"any": {"thing": 1}}],
              "settings": {"clusterName": "c", "clusterNmae": "c"}}
    assert unknown_paths(values, keys) == [("settings", "clusterNmae")]


def test_a_null_is_refused_once_where_nothing_else_refuses_its_key():
    found = problems(stack(karpenter={"values": {"topologySpreadConstraints": None, "replicas": None,
                                                 "logLevle": None}}))
    assert [problem.split(": ")[0] for problem in found] == [
        "prescale:karpenter.values.replicas", "prescale:karpenter.values.logLevle",
        "prescale:karpenter.values.topologySpreadConstraints"]
    assert "null would not reach Helm: Pulumi drops the null map values of a Python program" in found[2]


def test_values_are_refused_where_prescale_installs_no_chart():
    own_karpenter = {"install": False, "nodeRoleName": "KarpenterNodeRole-shop", "values": {"logLevel": "debug"}}
    found = problems({**stack(karpenter=own_karpenter, keda={"install": False, "version": "2.20.2",
                                                             "values": {"replicaCuont": 1}}),
                      "prescale:cluster": {"name": "prescale-test", "create": False}})
    assert found == [
        "prescale:karpenter.values: {'logLevel': 'debug'} applies only when install is true (prescale installs "
        "Karpenter); with install: false the cluster's own Karpenter is used as it is; allowed: remove it",
        "prescale:keda.values: {'replicaCuont': 1} applies only when install is true (prescale installs KEDA); with "
        "install: false the cluster's own KEDA is used as it is; allowed: remove it"]


def test_values_must_be_a_map():
    assert only_problem(stack(keda={"values": ["logging.operator.level=debug"]})).startswith(
        "prescale:keda.values: must be a map of keys")


def test_a_library_programs_keda_values_are_checked_alike():
    with pytest.raises(ValueError, match=r"prescale:keda.values.watchNamespace: 'shop' is prescale's to set"):
        load_capacity_config({"prescale:keda": {"values": {"watchNamespace": "shop"}}}, NOW)


def test_an_owned_key_set_to_exactly_what_prescale_renders_is_accepted():
    """Values pasted from an install that already runs as prescale needs are not refused for agreeing with it."""
    same = {"settings": {"clusterName": "prescale-test"}, "replicas": 2, "dnsPolicy": "Default"}
    keda = {"operator": {"replicaCount": 2}, "priorityClassName": "system-cluster-critical", "watchNamespace": ""}
    config = load_stack_config(stack(karpenter={"values": same}, keda={"values": keda}), NOW)
    assert config.karpenter.values == same
    found = problems(stack(karpenter={"values": {**same, "replicas": 3}}, keda={"values": {"watchNamespace": "shop"}}))
    assert [problem.split(": ")[0] for problem in found] == ["prescale:karpenter.values.replicas",
                                                             "prescale:keda.values.watchNamespace"]


def test_an_env_entry_the_chart_sets_from_a_value_is_refused_with_the_value_to_set():
    env = [{"name": "AWS_STS_REGIONAL_ENDPOINTS", "value": "regional"}, {"name": "FEATURE_GATES", "value": "x=true"},
           {"name": "CLUSTER_NAME", "value": "other"}, {"name": "BATCH_MAX_DURATION", "value": "20s"}]
    found = problems(stack(karpenter={"values": {"controller": {"env": env}}},
                           keda={"values": {"env": [{"name": "WATCH_NAMESPACE", "value": "shop"}]}}))
    assert found == [
        "prescale:karpenter.values.controller.env[1]: {'name': 'FEATURE_GATES', 'value': 'x=true'} overrides "
        "FEATURE_GATES, which the karpenter chart sets from settings.featureGates and then appends controller.env "
        "after, so the kubelet keeps this one; allowed: remove it and set settings.featureGates instead",
        "prescale:karpenter.values.controller.env[2]: {'name': 'CLUSTER_NAME', 'value': 'other'} overrides "
        "CLUSTER_NAME, which the karpenter chart sets from settings.clusterName and then appends controller.env "
        "after, so the kubelet keeps this one; allowed: remove it (prescale sets it: docs/platform.md#helm-values)",
        "prescale:karpenter.values.controller.env[3]: {'name': 'BATCH_MAX_DURATION', 'value': '20s'} overrides "
        "BATCH_MAX_DURATION, which the karpenter chart sets from settings.batchMaxDuration and then appends "
        "controller.env after, so the kubelet keeps this one; allowed: remove it and set settings.batchMaxDuration "
        "instead",
        "prescale:keda.values.env[0]: {'name': 'WATCH_NAMESPACE', 'value': 'shop'} overrides WATCH_NAMESPACE, which "
        "the keda chart sets from watchNamespace and then appends env after, so the kubelet keeps this one; allowed: "
        "remove it (prescale sets it: docs/platform.md#helm-values)"]


def test_the_reserved_capacity_gate_turned_off_is_refused_while_a_pool_launches_reserved_capacity():
    gate_off = {"values": {"settings": {"featureGates": {"reservedCapacity": False}}}}
    reserved = {"name": "event", "limits": {"cpu": "64"}, "capacityTypes": ["reserved", "on-demand"],
                "capacityReservationSelectorTerms": [{"id": "cr-0123456789abcdef0"}]}
    problem = only_problem({**stack(karpenter=gate_off), "prescale:nodePools": [reserved]})
    assert problem.startswith("prescale:karpenter.values.settings.featureGates.reservedCapacity: False turns off the "
                              "ReservedCapacity gate that node pools 'event' need")
    assert problem.endswith("allowed: remove it (the chart turns it on)")
    on_demand = {key: value for key, value in reserved.items() if key != "capacityReservationSelectorTerms"}
    on_demand["capacityTypes"] = ["on-demand"]
    load_stack_config({**stack(karpenter=gate_off), "prescale:nodePools": [on_demand]}, NOW)


def test_controller_requests_above_the_limit_it_runs_with_are_refused():
    """The API server refuses a container whose request exceeds its limit: the controller would never start."""
    problem = only_problem(stack(karpenter={"values": {"controller": {"resources": {"requests": {"memory": "2Gi"}}}}}))
    assert problem == ("prescale:karpenter.values.controller.resources.requests.memory: '2Gi' is above the limit '1Gi' "
                       "the controller runs with, and the API server refuses a pod whose request exceeds its limit; "
                       "allowed: at most '1Gi', or controller.resources.limits.memory as high")
    raised = {"requests": {"memory": "2Gi", "cpu": "500m"}, "limits": {"memory": "2Gi"}}
    load_stack_config(stack(karpenter={"values": {"controller": {"resources": raised}}}), NOW)


def test_a_dotted_key_is_told_to_nest():
    problem = only_problem(stack(karpenter={"values": {"settings.batchMaxDuration": "15s"}}))
    assert problem == ("prescale:karpenter.values.settings.batchMaxDuration: '15s' is one key with dots in its name, "
                       "which the karpenter chart does not read (Helm values are nested maps); allowed: nest it, "
                       "{settings: {batchMaxDuration: '15s'}}")
    load_stack_config(stack(karpenter={"values": {"settings": {"batchMaxDuration": "15s"}}}), NOW)
