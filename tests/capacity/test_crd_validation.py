"""Every object the program registers passes the upstream CRDs (schema + CEL) or the Kubernetes schema.

And the validators are shown to fail: bad samples are rejected with Karpenter's and KEDA's own messages.
"""

import copy

import kubernetes_validate
import pytest
from prescale.offline import Evaluation

from tests.support.capacity import (
    CORE_RESOURCES,
    CUSTOM_RESOURCES,
    NODE_CLASS,
    NODE_POOL,
    SCALED_OBJECT,
    as_object,
    pool,
    run,
    stack_config,
    window,
)
from tests.support.crd_validation import CRD_FILES, apply_defaults, schema_of, validate, validate_kubernetes


def many_windows_run():
    """48 windows of every kind over three pools: recurring, DST, cross-midnight, weekday, one-off."""
    pools = [pool("event"), pool("spot", capacityTypes=["spot"], architectures=["arm64"],
                                 taints=[{"key": "spot", "effect": "NoSchedule"}]), pool("night")]
    windows = []
    for i in range(48):
        kind = i % 4
        if kind == 0:
            windows.append(window(f"daily-{i}", f"{i % 60} {8 + i % 10} * * *", f"{i % 60} {19 + i % 4} * * *",
                                  "event", "America/Chicago", nodes=1 + i % 7))
        elif kind == 1:
            windows.append(window(f"weekday-{i}", f"0 {9 + i % 8} * * 1-5", f"30 {17 + i % 6} * * 1-5", "spot",
                                  "Europe/Paris", capacity={"cpu": f"{1 + i}", "memory": f"{2 + i}Gi"}))
        elif kind == 2:
            windows.append(window(f"night-{i}", f"0 {20 + i % 4} * * *", f"0 {4 + i % 3} * * *", "night",
                                  "Australia/Sydney", nodes=2))
        else:
            windows.append(window(f"launch-{i}", f"2027-{1 + i % 11:02d}-{1 + i % 27:02d}T{6 + i % 12:02d}:15",
                                  f"2027-{1 + i % 11:02d}-{1 + i % 27:02d}T{19 + i % 4:02d}:45", "event",
                                  capacity={"cpu": "48", "memory": "96Gi"}))
    return run(stack_config(pools, windows))


@pytest.fixture(scope="module", params=["dev", "rich", pytest.param("48 windows", marks=pytest.mark.slow)])
def evaluation(request):
    if request.param == "48 windows":
        return many_windows_run()[0]
    return request.getfixturevalue({"dev": "dev_run", "rich": "rich_run"}[request.param])[0]


def test_every_custom_resource_passes_its_upstream_crd(evaluation):
    custom = [r for r in evaluation.resources if r.type in CUSTOM_RESOURCES]
    assert {r.type for r in custom} == set(CUSTOM_RESOURCES)
    for resource in custom:
        assert validate(as_object(resource)) == [], resource.name


def keda_webhook_replica_problems(scaled_object: dict) -> list[str]:
    """KEDA's admission webhook on replica counts (``CheckReplicaCountBoundsAreValid``, KEDA 2.18-2.20):
    ``max(1, min) ≤ max`` (default max 100) and ``idle < max(1, min)``; the CRD's CEL rule checks only min ≤ max."""
    spec = scaled_object["spec"]
    minimum = max(1, spec["minReplicaCount"]) if "minReplicaCount" in spec else 0
    maximum, idle = spec.get("maxReplicaCount", 100), spec.get("idleReplicaCount")
    problems = []
    if minimum > maximum:
        problems.append(f"MinReplicaCount={minimum} must be less than MaxReplicaCount={maximum}")
    if idle is not None and idle >= minimum:
        problems.append(f"IdleReplicaCount={idle} must be less than MinReplicaCount={minimum}")
    return problems


def test_every_scaled_object_passes_kedas_webhook_replica_rules(evaluation):
    scaled_objects = [as_object(r) for r in evaluation.resources if r.type == SCALED_OBJECT]
    assert scaled_objects
    for scaled_object in scaled_objects:
        assert keda_webhook_replica_problems(scaled_object) == [], scaled_object["metadata"]["name"]


def test_every_core_resource_passes_the_kubernetes_schema(evaluation):
    core = [r for r in evaluation.resources if r.type in CORE_RESOURCES]
    assert {r.type for r in core} == set(CORE_RESOURCES)
    for resource in core:
        validate_kubernetes(as_object(resource))


def test_every_object_of_static_and_buffer_windows_passes_its_upstream_crd_or_the_kubernetes_schema(native_run):
    kinds = set()
    for resource in native_run[0].resources:
        if not resource.custom or not resource.type.startswith("kubernetes:"):
            continue
        obj = as_object(resource)
        if (obj["apiVersion"], obj["kind"]) in CRD_FILES:
            assert validate(obj) == [], resource.name
        else:
            validate_kubernetes(obj)
        kinds.add(obj["kind"])
    assert kinds == {"Namespace", "PriorityClass", "EC2NodeClass", "NodePool", "CapacityBuffer", "PodTemplate",
                     "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "CronJob", "Job",
                     "DaemonSet"}


# --- the validators can fail -------------------------------------------------------------------------

def generated(rich: Evaluation, type_: str, name: str) -> dict:
    return copy.deepcopy(as_object(rich.named(type_, name)))


def test_bad_node_pools_are_rejected_with_karpenters_messages(rich_run):
    node_pool = generated(rich_run[0], NODE_POOL, "spot-arm-node-pool")
    template = node_pool["spec"]["template"]
    template["metadata"]["labels"]["karpenter.sh/custom"] = "x"
    template["spec"]["requirements"] += [{"key": "kubernetes.io/hostname", "operator": "In", "values": []},
                                         {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt",
                                          "values": ["4", "8"]}]
    template["spec"]["nodeClassRef"]["name"] = ""
    template["spec"]["taints"].append({"key": "empty", "value": "", "effect": "NoSchedule"})
    node_pool["spec"]["disruption"]["budgets"].insert(0, {"nodes": "0", "schedule": "0 9 * * *"})
    node_pool["spec"]["disruption"]["budgets"] += [{"nodes": "0"}] * 50
    node_pool["spec"]["limit"] = {"cpu": "1"}
    problems = validate(node_pool)
    for expected in [
        'spec.template.metadata.labels: label domain "karpenter.sh" is restricted',
        'spec.template.spec.requirements[4].key: label "kubernetes.io/hostname" is restricted',
        "spec.template.spec.requirements: requirements with operator 'In' must have a value defined",
        "spec.template.spec.requirements: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single "
        "positive integer value",
        "spec.template.spec.nodeClassRef.name: name may not be empty",
        "spec.disruption.budgets: 'schedule' must be set with 'duration'",
        "spec: Additional properties are not allowed ('limit' was unexpected)",
    ]:
        assert expected in problems
    assert any(p.startswith("spec.disruption.budgets: ") and "is too long" in p for p in problems)
    assert any(p.startswith("spec.template.spec.taints[2].value: '' does not match") for p in problems)


def test_bad_node_classes_are_rejected_with_karpenters_messages(rich_run):
    node_class = generated(rich_run[0], NODE_CLASS, "event-node-class")
    node_class["spec"]["instanceProfile"] = "also-a-profile"
    node_class["spec"]["amiSelectorTerms"] = [{"alias": "ubuntu@latest"}]
    node_class["spec"]["subnetSelectorTerms"] = [{"tags": {"": "x"}}]
    node_class["spec"]["tags"]["kubernetes.io/cluster/prescale-test"] = "owned"
    node_class["spec"]["metadataOptions"]["httpPutResponseHopLimit"] = 0
    problems = validate(node_class)
    for expected in [
        "spec: must specify exactly one of ['role', 'instanceProfile']",
        "spec.amiSelectorTerms[0].alias: family is not supported, must be one of the following: 'al2', 'al2023', "
        "'bottlerocket', 'windows2019', 'windows2022', 'windows2025'",
        "spec.subnetSelectorTerms[0].tags: empty tag keys or values aren't supported",
        "spec.tags: tag contains a restricted tag matching kubernetes.io/cluster/",
        "spec.metadataOptions.httpPutResponseHopLimit: 0 is less than the minimum of 1",
    ]:
        assert expected in problems


def test_bad_scaled_objects_are_rejected(rich_run):
    scaled_object = generated(rich_run[0], SCALED_OBJECT, "overlap-b-scaler")
    scaled_object["spec"]["minReplicaCount"] = 5
    scaled_object["spec"]["maxReplicaCount"] = 3
    scaled_object["spec"]["pollingInterval"] = 0
    scaled_object["spec"]["triggers"][0]["metadata"]["desiredReplicas"] = 3
    problems = validate(scaled_object)
    assert "spec: minReplicaCount must be less than or equal to maxReplicaCount" in problems
    assert "spec.pollingInterval: 0 is less than the minimum of 1" in problems
    assert "spec.triggers[0].metadata.desiredReplicas: 3 is not of type 'string'" in problems
    scaled_object["spec"]["triggers"] = []
    assert "spec.triggers: [] should be non-empty" in validate(scaled_object)
    scaled_object["spec"]["idleReplicaCount"] = -1
    assert "spec.idleReplicaCount: -1 is less than the minimum of 0" in validate(scaled_object)


def test_kedas_webhook_refuses_an_idle_count_not_below_the_minimum(rich_run):
    scaled_object = generated(rich_run[0], SCALED_OBJECT, "overlap-b-scaler")
    scaled_object["spec"]["idleReplicaCount"] = scaled_object["spec"]["minReplicaCount"]
    assert validate(scaled_object) == []  # the CRD alone would take it...
    assert keda_webhook_replica_problems(scaled_object) == ["IdleReplicaCount=3 must be less than MinReplicaCount=3"]
    scaled_object["spec"]["minReplicaCount"] = 4
    assert keda_webhook_replica_problems(scaled_object)[0] == "MinReplicaCount=4 must be less than MaxReplicaCount=3"


def test_a_bad_deployment_is_rejected_by_the_kubernetes_schema(dev_run):
    deployment = copy.deepcopy(as_object(dev_run[0].named("kubernetes:apps/v1:Deployment", "lunch-rush-placeholders")))
    deployment["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError, match="imagePullPolicyy"):
        validate_kubernetes(deployment)


def test_crd_defaults_are_applied_before_validation():
    minimal = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "x"},
               "spec": {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                        "subnetSelectorTerms": [{"id": "subnet-1"}], "securityGroupSelectorTerms": [{"id": "sg-1"}]}}
    defaulted = apply_defaults(schema_of("karpenter.k8s.aws/v1", "EC2NodeClass"), copy.deepcopy(minimal))
    assert defaulted["spec"]["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                                    "httpPutResponseHopLimit": 1, "httpTokens": "required"}
    # NodePool's default budget ({nodes: 10%}) is what the budgets CEL rule then sees.
    node_pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "x"},
                 "spec": {"template": {"spec": {"nodeClassRef": {"group": "g", "kind": "k", "name": "n"},
                                                "requirements": []}}}}
    defaulted = apply_defaults(schema_of("karpenter.sh/v1", "NodePool"), copy.deepcopy(node_pool))
    assert defaulted["spec"]["disruption"] == {"consolidateAfter": "0s", "consolidationPolicy":
                                               "WhenEmptyOrUnderutilized", "budgets": [{"nodes": "10%"}]}
    assert validate(minimal) == [] and validate(node_pool) == []
