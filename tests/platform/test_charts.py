"""The charts prescale installs, rendered by a real ``helm template`` with the values the program really passes.

The values are the inputs of the Helm Releases the whole program registers under mocks (``__main__.py``), so
Output-valued leaves (cluster name, queue name, role ARN) hold the mocks' stand-ins, exactly as the releases
would carry them. Two stacks: the dev stack (a new cluster, EKS Pod Identity) and an existing cluster with
IRSA, where no node label keeps KEDA on the system nodes. Rendering shows what would reach the cluster;
neither chart has a values schema, so every values key is also checked against the chart itself. A third stack
gives both charts values of its own (``prescale:<chart>.values``): every check of the wiring holds there too, and
the user's values reach the rendered objects.
"""

import json
from pathlib import Path

import pytest
from prescale.offline import Evaluation, carries_wire_values, run_program

from tests.support import load_yaml
from tests.support.crd_validation import KUBERNETES_VERSION, validate_kubernetes
from tests.support.helm import CHARTS, helm_binary, render, unknown_values_keys
from tests.support.platform import ACCOUNT, DEV_NOW, PROJECT, REGION, RELEASE, policy

RELEASES = ("prescale-karpenter-crd", "prescale-karpenter", "prescale-keda")
# The kinds the program's values reach (the rest, RBAC and CRDs, the charts render alike for any values).
VALUES_SHAPED_KINDS = {"Deployment", "PodDisruptionBudget", "ServiceAccount"}
KARPENTER_NODES = {"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}
EKS_TAINT_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


# What a user may set: sizing over prescale's own, log levels, annotations (docs/platform.md#helm-values).
KARPENTER_USER_VALUES = {"logLevel": "debug", "podAnnotations": {"example.com/team": "platform"},
                         "controller": {"resources": {"limits": {"memory": "2Gi"}}}}
KEDA_USER_VALUES = {"logging": {"operator": {"level": "debug"}},
                    "podAnnotations": {"keda": {"example.com/team": "platform"}},
                    "resources": {"operator": {"limits": {"memory": "2000Mi"}}}}


def existing_cluster_stack(**more: object) -> Evaluation:
    config = {"aws:region": REGION, "prescale:cluster": json.dumps({"name": "prescale-existing", "create": False}),
              "prescale:karpenter": json.dumps({"controllerAuth": "irsa"}),
              **{f"prescale:{key}": json.dumps(value) for key, value in more.items()}}
    return run_program(PROJECT, "existing", config=config)


@pytest.fixture(scope="module")
def user_values_stack() -> Evaluation:
    """A new cluster whose Karpenter and KEDA get the user's values over prescale's, once: read-only, copy to change."""
    config = {"aws:region": REGION, "prescale:cluster": json.dumps({"name": "prescale-values"}),
              "prescale:karpenter": json.dumps({"values": KARPENTER_USER_VALUES}),
              "prescale:keda": json.dumps({"values": KEDA_USER_VALUES})}
    return run_program(PROJECT, "values", DEV_NOW, config=config)


@pytest.fixture(scope="module", params=["dev", "existing-irsa", "user-values"])
def stack(request) -> Evaluation:
    """The session's ``dev_stack``, an existing cluster with IRSA, and this module's ``user_values_stack``."""
    if request.param == "existing-irsa":
        return existing_cluster_stack()
    return request.getfixturevalue({"dev": "dev_stack", "user-values": "user_values_stack"}[request.param])


@pytest.fixture(scope="session")
def helm(request, tmp_path_factory) -> Path:
    cache = getattr(request.config, "cache", None)  # kept between runs unless the cache plugin is off
    return helm_binary(Path(cache.mkdir("helm")) if cache else tmp_path_factory.mktemp("helm"))


@pytest.fixture(scope="module")
def rendered(stack, helm, tmp_path_factory) -> dict[str, list[dict]]:
    """Release name → the objects its chart renders, as ``pulumi up`` would install them."""
    work_dir = tmp_path_factory.mktemp("render")
    objects = {}
    for name in RELEASES:
        release = stack.named(RELEASE, name).inputs
        chart = release["chart"].rsplit("/", 1)[-1]
        assert release["version"] == chart_version(chart), "the vendored chart is not the version prescale pins"
        assert not carries_wire_values(release["values"])
        objects[name] = render(helm, chart, release=release["name"], namespace=release["namespace"],
                               values=release["values"], kube_version=KUBERNETES_VERSION, work_dir=work_dir,
                               include_crds=not release["skipCrds"])
    return objects


def chart_version(chart: str) -> str:
    return load_yaml((CHARTS / chart / "Chart.yaml").read_text())["version"]


def of_kind(objects: list[dict], kind: str) -> list[dict]:
    return [o for o in objects if o["kind"] == kind]


def single(objects: list[dict], kind: str) -> dict:
    (found,) = of_kind(objects, kind)
    return found


def env(deployment: dict) -> dict[str, str]:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return {variable["name"]: variable.get("value") for variable in container["env"]}


def selects(selector: dict, labels: dict) -> bool:
    return selector["matchLabels"].items() <= labels.items() and "matchExpressions" not in selector


def tolerates(tolerations: list[dict], taint: dict) -> bool:
    """``taint`` as EKS spells it on a node group (``NO_SCHEDULE``) or as Kubernetes does (``NoSchedule``)."""
    effect = EKS_TAINT_EFFECTS.get(taint["effect"], taint["effect"])
    return any(t["key"] == taint["key"] and t.get("effect") in (None, effect)
               and (t["operator"] == "Exists" or t.get("value") == taint["value"]) for t in tolerations)


def system_node_group(stack: Evaluation) -> dict | None:
    groups = stack.of_type("eks:index:ManagedNodeGroup")
    return groups[0].inputs if groups else None


# --- values keys and object validity ---------------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_every_values_key_the_program_sets_is_known_to_its_chart(stack, release):
    inputs = stack.named(RELEASE, release).inputs
    assert unknown_values_keys(inputs["values"], inputs["chart"].rsplit("/", 1)[-1]) == []


def test_the_key_check_names_misspelled_keys_and_accepts_what_templates_read_whole():
    karpenter = {"settings": {"clusterNmae": "c", "interruptionQueue": "q"}, "replica": 2,
                 "nodeSelector": {"prescale.io/system": "true"}, "controller": {"resources": {"limits": {"cpu": "1"}}},
                 "serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn": "arn"}}}
    assert unknown_values_keys(karpenter, "karpenter") == ["settings.clusterNmae", "replica"]
    keda = {"operator": {"replicaCuont": 2}, "podDisruptionBudget": {"operator": {"minAvalable": 1}},
            "topologySpreadConstraints": {"operator": []}, "affinity": {"nodeAffinity": {}},
            "priorityClassname": "system-cluster-critical"}
    assert unknown_values_keys(keda, "keda") == [
        "operator.replicaCuont", "podDisruptionBudget.operator.minAvalable", "priorityClassname"]


def test_the_objects_the_values_shape_are_valid_kubernetes_objects(rendered):
    """Strict: what the values put inside maps templates pass whole (affinity, spread...) is checked here."""
    shaped = [obj for objects in rendered.values() for obj in objects if obj["kind"] in VALUES_SHAPED_KINDS]
    assert len(shaped) == 12  # Karpenter: 1 of each; KEDA: 3 of each
    for obj in shaped:
        validate_kubernetes(obj)


def test_crds_come_from_the_crd_chart_only(rendered):
    assert len(of_kind(rendered["prescale-karpenter-crd"], "CustomResourceDefinition")) == 5
    assert of_kind(rendered["prescale-karpenter"], "CustomResourceDefinition") == []


# --- Karpenter -------------------------------------------------------------------------------------------

def test_karpenter_runs_as_the_service_account_its_aws_identity_trusts(stack, rendered):
    objects = rendered["prescale-karpenter"]
    account = single(objects, "ServiceAccount")["metadata"]
    subject = (account["namespace"], account["name"])
    assert single(objects, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"] == account["name"]
    controller_role = stack.named("aws:iam/role:Role", "prescale-karpenter-controller")
    role_arn = f"arn:aws:iam::{ACCOUNT}:role/{controller_role.inputs['name']}"
    associations = stack.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
    if associations:  # EKS Pod Identity
        (association,) = associations
        assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == subject
        assert association.inputs["roleArn"] == role_arn
        assert "annotations" not in account
    else:  # IRSA: the role trusts exactly this subject, and the account names the role
        (statement,) = policy(controller_role, "assumeRolePolicy")["Statement"]
        (sub,) = [value for key, value in statement["Condition"]["StringEquals"].items() if key.endswith(":sub")]
        assert sub == "system:serviceaccount:{}:{}".format(*subject)
        assert account["annotations"] == {"eks.amazonaws.com/role-arn": role_arn}


def test_karpenter_settings_name_the_stacks_cluster_and_interruption_queue(stack, rendered):
    settings = env(single(rendered["prescale-karpenter"], "Deployment"))
    assert settings["CLUSTER_NAME"] == stack.outputs["clusterName"]
    assert settings["INTERRUPTION_QUEUE"] == stack.outputs["karpenterInterruptionQueueName"]


def test_karpenter_runs_on_the_system_nodes_and_never_on_its_own(stack, rendered):
    pod = single(rendered["prescale-karpenter"], "Deployment")["spec"]["template"]["spec"]
    assert pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [KARPENTER_NODES]}]}
    assert tolerates(pod["tolerations"], {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"})
    assert pod["dnsPolicy"] == "Default"
    group = system_node_group(stack)
    if group:  # a new cluster: exactly the system node group's labels and taints
        assert group["labels"].items() <= pod["nodeSelector"].items()
        assert all(tolerates(pod["tolerations"], taint) for taint in group["taints"])


def test_karpenters_replicas_fit_its_one_per_node_anti_affinity_on_the_system_nodes(stack, rendered):
    deployment = single(rendered["prescale-karpenter"], "Deployment")
    template = deployment["spec"]["template"]
    (term,) = template["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert selects(term["labelSelector"], template["metadata"]["labels"])
    assert deployment["spec"]["replicas"] == 2
    # One replica per node, so an update may only replace pods in place, one at a time.
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 1
    assert single(rendered["prescale-karpenter"], "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1
    group = system_node_group(stack)
    if group:
        assert deployment["spec"]["replicas"] <= group["scalingConfig"]["minSize"]


@pytest.fixture(scope="module")
def native_stack() -> Evaluation:
    """A new cluster with a static and a buffer pool: prescale's Karpenter needs both alpha gates (read-only)."""
    m7i = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}
    pools = [{"name": "static", "strategy": "static", "limits": {"nodes": 10}, "requirements": [
                  m7i, {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}]},
             {"name": "buffer", "strategy": "buffer", "limits": {"cpu": "100"}}]
    windows = [{"name": "lunch", "nodePool": "static", "timezone": "Asia/Seoul", "start": "0 12 * * *",
                "end": "0 13 * * *", "nodes": 2},
               {"name": "sale", "nodePool": "buffer", "timezone": "Asia/Seoul", "start": "0 20 * * *",
                "end": "0 22 * * *", "nodes": 2}]
    config = {"aws:region": REGION, "prescale:cluster": json.dumps({"name": "prescale-native"}),
              "prescale:nodePools": json.dumps(pools), "prescale:eventWindows": json.dumps(windows)}
    return run_program(PROJECT, "native", DEV_NOW, config=config)


def feature_gates(stack: Evaluation, helm: Path, work_dir: Path) -> dict[str, str]:
    release = stack.named(RELEASE, "prescale-karpenter").inputs
    objects = render(helm, "karpenter", release=release["name"], namespace=release["namespace"],
                     values=release["values"], kube_version=KUBERNETES_VERSION, work_dir=work_dir, include_crds=False)
    gates = env(single(objects, "Deployment"))["FEATURE_GATES"]
    return dict(gate.split("=") for gate in gates.split(","))


def test_the_gates_static_and_buffer_pools_need_reach_karpenters_feature_gates_and_only_then(
        native_stack, dev_stack, helm, tmp_path):
    native = feature_gates(native_stack, helm, tmp_path)
    assert (native["StaticCapacity"], native["CapacityBuffer"]) == ("true", "true")
    assert native_stack.named(RELEASE, "prescale-karpenter").inputs["values"]["settings"]["featureGates"] == \
        {"staticCapacity": True, "capacityBuffer": True}
    # A stack of placeholder pools keeps the chart's defaults: every alpha gate off, as upstream ships them.
    dev = feature_gates(dev_stack, helm, tmp_path)
    assert (dev["StaticCapacity"], dev["CapacityBuffer"]) == ("false", "false")
    assert {gate for gate, on in native.items() if on != dev[gate]} == {"StaticCapacity", "CapacityBuffer"}
    # The program registers the windows' static NodePool and CapacityBuffer on that Karpenter.
    kinds = {r.type.rsplit(":", 1)[-1] for r in native_stack.resources if r.type.startswith("kubernetes:")}
    assert {"NodePool", "CapacityBuffer", "PodTemplate", "CronJob"} <= kinds


def test_a_controller_env_entry_of_a_variable_the_chart_sets_comes_after_the_charts_own(native_stack, helm,
                                                                                           tmp_path):
    """Why prescale:karpenter.values.controller.env may not name FEATURE_GATES, CLUSTER_NAME or INTERRUPTION_QUEUE
    (prescale.model.checks.helm_values): the chart appends controller.env after the variables it renders from
    settings, so the container gets both, and the kubelet keeps the last."""
    release = native_stack.named(RELEASE, "prescale-karpenter").inputs
    values = {**release["values"], "controller": {**release["values"]["controller"],
                                                  "env": [{"name": "FEATURE_GATES", "value": "StaticCapacity=false"}]}}
    objects = render(helm, "karpenter", release=release["name"], namespace=release["namespace"], values=values,
                     kube_version=KUBERNETES_VERSION, work_dir=tmp_path, include_crds=False)
    (container,) = single(objects, "Deployment")["spec"]["template"]["spec"]["containers"]
    gates = [variable.get("value") for variable in container["env"] if variable["name"] == "FEATURE_GATES"]
    assert len(gates) == 2 and "StaticCapacity=true" in gates[0] and gates[-1] == "StaticCapacity=false"


def test_with_alerts_on_the_charts_have_what_the_rules_read_scraped(dev_stack, helm, tmp_path):
    """The rules read Karpenter's and KEDA's own series (docs/alerts.md): with prescale:alerts.prometheusRule the
    charts create their ServiceMonitors (and KEDA exposes its operator's metrics), rendered as `pulumi up` installs
    them on a cluster that runs the Prometheus Operator (which the alerts require); without it, as they ship."""
    alerted = existing_cluster_stack(alerts={"prometheusRule": True})
    rendered = {}
    for name in ("prescale-karpenter", "prescale-keda"):
        release = alerted.named(RELEASE, name).inputs
        rendered[name] = render(helm, release["chart"].rsplit("/", 1)[-1], release=release["name"],
                                namespace=release["namespace"], values=release["values"],
                                kube_version=KUBERNETES_VERSION, work_dir=tmp_path, include_crds=False,
                                api_versions=("monitoring.coreos.com/v1",))
    assert {name: sorted(o["metadata"]["name"] for o in objects if o["kind"] in ("ServiceMonitor", "PodMonitor"))
            for name, objects in rendered.items()} == {"prescale-karpenter": ["karpenter"],
                                                       "prescale-keda": ["keda-operator"]}
    operator = keda_deployments(rendered)["keda-operator"]
    assert "--enable-prometheus-metrics=true" in operator["spec"]["template"]["spec"]["containers"][0]["args"]
    # Without alerts the monitor values stay the charts' defaults (off).
    values = {name: dev_stack.named(RELEASE, name).inputs["values"] for name in rendered}
    assert "serviceMonitor" not in values["prescale-karpenter"] and "prometheus" not in values["prescale-keda"]


# --- KEDA ------------------------------------------------------------------------------------------------

def keda_deployments(rendered) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in of_kind(rendered["prescale-keda"], "Deployment")}


def test_keda_has_its_three_deployments(rendered):
    assert set(keda_deployments(rendered)) == {"keda-operator", "keda-operator-metrics-apiserver",
                                               "keda-admission-webhooks"}


def test_every_keda_pod_stays_off_karpenters_nodes_at_system_priority(stack, rendered):
    """Else on an existing cluster KEDA can land on a Karpenter node, and consolidating it evicts KEDA."""
    pod_specs = [o["spec"]["template"]["spec"] for o in rendered["prescale-keda"] if "template" in o.get("spec", {})]
    assert len(pod_specs) == 3
    group = system_node_group(stack)
    for pod in pod_specs:
        assert pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
            "nodeSelectorTerms": [{"matchExpressions": [KARPENTER_NODES]}]}
        assert pod["priorityClassName"] == "system-cluster-critical"
        assert tolerates(pod["tolerations"], {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"})
        if group:
            assert group["labels"].items() <= pod["nodeSelector"].items()
            assert all(tolerates(pod["tolerations"], taint) for taint in group["taints"])


def test_each_keda_components_two_replicas_spread_over_nodes_with_a_budget(rendered):
    budgets = of_kind(rendered["prescale-keda"], "PodDisruptionBudget")
    for name, deployment in keda_deployments(rendered).items():
        template = deployment["spec"]["template"]
        assert deployment["spec"]["replicas"] == 2, name
        (spread,) = template["spec"]["topologySpreadConstraints"]
        assert (spread["topologyKey"], spread["maxSkew"], spread["whenUnsatisfiable"]) == \
            ("kubernetes.io/hostname", 1, "DoNotSchedule"), name
        assert selects(spread["labelSelector"], template["metadata"]["labels"]), name
        (budget,) = [b for b in budgets if selects(b["spec"]["selector"], template["metadata"]["labels"])]
        assert budget["spec"]["minAvailable"] == 1, name


# --- the user's values -----------------------------------------------------------------------------------

@pytest.mark.parametrize("stack", ["user-values"], indirect=True)
def test_the_users_karpenter_values_reach_the_controller_merged_into_prescales(rendered):
    deployment = single(rendered["prescale-karpenter"], "Deployment")
    template = deployment["spec"]["template"]
    (container,) = template["spec"]["containers"]
    assert env(deployment)["LOG_LEVEL"] == "debug"  # the chart's default is info
    assert template["metadata"]["annotations"] == {"example.com/team": "platform"}
    # The user's memory limit over prescale's Guaranteed 1 CPU / 1 GiB: the rest of prescale's resources stays.
    assert container["resources"] == {"requests": {"cpu": "1", "memory": "1Gi"},
                                      "limits": {"cpu": "1", "memory": "2Gi"}}


@pytest.mark.parametrize("stack", ["user-values"], indirect=True)
def test_the_users_keda_values_reach_the_operator_merged_into_prescales(rendered):
    deployments = keda_deployments(rendered)
    operator = deployments["keda-operator"]["spec"]["template"]
    (container,) = operator["spec"]["containers"]
    assert "--zap-log-level=debug" in container["args"]  # the chart's default is info
    assert operator["metadata"]["annotations"] == {"example.com/team": "platform"}
    assert container["resources"] == {"requests": {"cpu": "100m", "memory": "100Mi"},
                                      "limits": {"cpu": "1", "memory": "2000Mi"}}
    # The other components keep prescale's resources: the user's map merged into the operator's only.
    (webhooks,) = deployments["keda-admission-webhooks"]["spec"]["template"]["spec"]["containers"]
    assert webhooks["resources"]["limits"] == {"cpu": "1", "memory": "1000Mi"}
