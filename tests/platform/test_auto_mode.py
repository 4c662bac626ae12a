"""EKS Auto Mode (``prescale:cluster.autoMode: true``): the whole program on a new and on an existing cluster.

AWS runs Karpenter there, so what must be registered is the cluster (new) with Auto Mode, an Auto Mode
``NodeClass`` and a ``NodePool`` with Auto Mode's label keys per pool, KEDA on the built-in ``system`` pool;
and what must not be is everything self-managed Karpenter needs (Helm releases, IAM, queue, rules), a system
node group or a CoreDNS add-on. Every custom resource is held to the upstream NodePool CRD and the recorded
NodeClass schema (tests/crds/eks/).
"""

import copy
import json
import re

import pytest
from prescale.capacity.crds import NodeClass
from prescale.model.config import AUTO_MODE_EXPIRE_AFTER, NodePoolConfig
from prescale.model.validation import ConfigError, load_stack_config
from prescale.offline import ACCOUNT_ID, SECRET, OfflineMocks, fake_invoke, run_program
from prescale.platform.cluster import AutoModeError

from tests.support import ROOT
from tests.support.capacity import NODE_POOL, SCALED_OBJECT, as_object
from tests.support.crd_validation import apply_defaults, schema_of, validate
from tests.support.platform import DEV_NOW, RELEASE, only

ROOT = ROOT
NODE_CLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"
EKS = "eks:index:Cluster"
CLUSTER = "prescale-am"
POOLS = [
    {"name": "event", "limits": {"cpu": "512", "memory": "2048Gi"}},
    {"name": "spot-arm", "capacityTypes": ["spot", "on-demand"], "architectures": ["arm64"],
     "instanceCategories": ["c", "m"], "limits": {"cpu": "256", "memory": "1024Gi", "nodes": 40},
     "taints": [{"key": "prescale.io/event", "value": "true", "effect": "NoSchedule"}],
     "expireAfter": "240h", "terminationGracePeriod": "30m"},
]
WINDOWS = [
    {"name": "lunch-rush", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * *",
     "end": "30 11 * * *", "nodes": 5},
    {"name": "launch", "nodePool": "spot-arm", "timezone": "America/New_York", "start": "2027-03-02T08:00",
     "end": "2027-03-02T14:00", "capacity": {"cpu": "64", "memory": "256Gi"}},
]
# Everything self-managed Karpenter, its system node group or pulumi-eks' own node plumbing would create.
SELF_MANAGED_TYPES = {
    "prescale:index:Karpenter", "eks:index:ManagedNodeGroup", "aws:eks/addon:Addon", "aws:iam/role:Role",
    "aws:iam/rolePolicy:RolePolicy", "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    "aws:iam/serviceLinkedRole:ServiceLinkedRole", "aws:eks/accessEntry:AccessEntry",
    "aws:eks/podIdentityAssociation:PodIdentityAssociation", "aws:sqs/queue:Queue",
    "aws:sqs/queuePolicy:QueuePolicy", "aws:cloudwatch/eventRule:EventRule",
    "aws:cloudwatch/eventTarget:EventTarget", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"}


def wire(cluster: dict | None = None, pools: list | None = None, **more) -> dict[str, str]:
    """A stack file's config as the engine hands it over (objects as JSON)."""
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": CLUSTER, "autoMode": True, **(cluster or {})},
           "prescale:nodePools": POOLS if pools is None else pools, "prescale:eventWindows": WINDOWS,
           **{f"prescale:{key}": value for key, value in more.items()}}
    return {key: value if isinstance(value, str) else json.dumps(value) for key, value in raw.items()}


def run(cluster: dict | None = None, mocks: OfflineMocks | None = None):
    return run_program(ROOT, "automode", DEV_NOW, config=wire(cluster), mocks=mocks)


@pytest.fixture(scope="module")
def new():
    return run()


@pytest.fixture(scope="module")
def existing():
    return run({"create": False})


@pytest.fixture(scope="module", params=["new", "existing"])
def either(request, new, existing):
    return {"new": new, "existing": existing}[request.param]


# --- the cluster -------------------------------------------------------------------------------------------

def test_a_new_cluster_runs_auto_mode_with_its_built_in_pools_and_no_coredns_add_on(new):
    inputs = only(new, EKS).inputs
    assert inputs["autoMode"] == {"enabled": True, "createNodeRole": True,
                                  "computeConfig": {"nodePools": ["general-purpose", "system"]}}
    assert (inputs["authenticationMode"], inputs["skipDefaultNodeGroup"]) == ("API", True)
    assert inputs["corednsAddonOptions"]["enabled"] is False  # pulumi-eks would add it (pulumi/pulumi-eks#1726)


def test_the_clusters_security_group_still_carries_the_discovery_tag(new):
    tag = only(new, "aws:ec2/tag:Tag").inputs
    assert tag == {"resourceId": "sg-0eks0cluster", "key": "karpenter.sh/discovery", "value": CLUSTER}


def test_nothing_self_managed_is_created(either):
    assert not SELF_MANAGED_TYPES & {r.type for r in either.resources}
    assert [r.name for r in either.of_type(RELEASE)] == ["prescale-keda"]  # no karpenter, no karpenter-crd


def test_an_existing_cluster_is_only_read(existing):
    assert not {EKS, "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/tag:Tag"} & {
        r.type for r in existing.resources}


def test_stack_outputs_name_the_auto_mode_node_role(new, existing):
    common = {"clusterName": CLUSTER, "kubeconfig": SECRET, "kedaVersion": "2.20.2",
              "nodePools": ["event", "spot-arm"], "armedWindows": ["launch", "lunch-rush"], "idleWindows": {}}
    assert new.outputs == {**common, "autoModeNodeRoleName": "prescale-cluster-eks-autoModeNodeRole"}
    assert existing.outputs == {**common, "autoModeNodeRoleName": f"{CLUSTER}-AutoModeNodeRole"}


# --- node classes and pools ----------------------------------------------------------------------------------

def test_each_pool_gets_a_node_class_with_the_auto_mode_node_role_and_no_tags(new, existing):
    for evaluation, role in ((new, "prescale-cluster-eks-autoModeNodeRole"), (existing, f"{CLUSTER}-AutoModeNodeRole")):
        classes = {r.name: as_object(r) for r in evaluation.of_type(NODE_CLASS)}
        assert set(classes) == {"event-node-class", "spot-arm-node-class"}
        discovery = [{"tags": {"karpenter.sh/discovery": CLUSTER}}]
        assert classes["event-node-class"] == {
            "apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": {"name": "prescale-event"},
            "spec": {"role": role, "subnetSelectorTerms": discovery, "securityGroupSelectorTerms": discovery}}


def test_node_pools_use_auto_mode_labels_and_reference_their_node_class(either):
    for pool in either.of_type(NODE_POOL):
        spec = as_object(pool)["spec"]["template"]["spec"]
        assert spec["nodeClassRef"] == {"group": "eks.amazonaws.com", "kind": "NodeClass",
                                        "name": as_object(pool)["metadata"]["name"]}
        assert [r["key"] for r in spec["requirements"]] == [
            "karpenter.sh/capacity-type", "eks.amazonaws.com/instance-category", "kubernetes.io/arch"]
    spot = as_object(either.named(NODE_POOL, "spot-arm-node-pool"))["spec"]["template"]["spec"]
    assert spot["requirements"][1]["values"] == ["c", "m"]


def test_expire_after_is_never_never_on_auto_mode(new):
    lifetimes = {r.name: as_object(r)["spec"]["template"]["spec"]["expireAfter"] for r in new.of_type(NODE_POOL)}
    assert lifetimes == {"event-node-pool": AUTO_MODE_EXPIRE_AFTER, "spot-arm-node-pool": "240h"}
    assert AUTO_MODE_EXPIRE_AFTER == "480h"


def test_node_classes_and_pools_wait_for_the_cluster(new):
    cluster = only(new, EKS).urn
    for resource in new.of_type(NODE_CLASS) + new.of_type(NODE_POOL):
        assert cluster in resource.dependencies, resource.name
    node_class = new.named(NODE_CLASS, "event-node-class").urn
    assert node_class in new.named(NODE_POOL, "event-node-pool").dependencies


def test_every_custom_resource_passes_the_upstream_crd_or_the_recorded_node_class_schema(either):
    custom = [r for r in either.resources if r.type in (NODE_POOL, NODE_CLASS, SCALED_OBJECT)]
    assert {r.type for r in custom} == {NODE_POOL, NODE_CLASS, SCALED_OBJECT}
    for resource in custom:
        assert validate(as_object(resource)) == [], resource.name


def test_a_bad_node_class_is_rejected_by_the_recorded_schema(new):
    node_class = copy.deepcopy(as_object(new.named(NODE_CLASS, "event-node-class")))
    node_class["metadata"]["name"] = "default"
    node_class["spec"]["role"] = "r" * 65
    node_class["spec"]["subnetSelectorTerms"] = []
    node_class["spec"]["securityGroupSelectorTerms"] = [{"id": "sg-1", "name": "both"}]
    node_class["spec"]["tags"] = {"eks.amazonaws.com/nodeclass": "x"}
    node_class["spec"]["amiSelectorTerms"] = [{"alias": "al2023@latest"}]  # an EC2NodeClass field
    node_class["spec"]["ephemeralStorage"] = {"size": "80GB", "iops": 100}
    problems = validate(node_class)
    for expected in [
        "<root>: the name 'default' is Auto Mode's built-in NodeClass; do not name a custom NodeClass 'default'",
        "spec.subnetSelectorTerms: subnetSelectorTerms cannot be empty",
        "spec.securityGroupSelectorTerms: 'id' is mutually exclusive, cannot be set with a combination of other "
        "fields in securityGroupSelectorTerms",
        "spec.tags: tag contains a restricted tag matching eks.amazonaws.com/nodeclass",
        "spec: Additional properties are not allowed ('amiSelectorTerms' was unexpected)",
        "spec.ephemeralStorage.iops: 100 is less than the minimum of 3000",
    ]:
        assert expected in problems
    assert any(p.startswith("spec.role: ") and "is too long" in p for p in problems)
    assert any(p.startswith("spec.ephemeralStorage.size: '80GB' does not match") for p in problems)
    node_class["spec"] = {"role": ""}
    assert "spec: 'subnetSelectorTerms' is a required property" in validate(node_class)
    assert "spec.role: role cannot be empty" in validate(node_class)


def test_the_built_in_node_class_name_cannot_be_declared():
    spec = {"role": "r", "subnetSelectorTerms": [{"tags": {"a": "b"}}], "securityGroupSelectorTerms": [{"id": "sg-1"}]}
    with pytest.raises(ValueError, match="NodeClass 'default' is EKS Auto Mode's built-in one"):
        NodeClass("default-node-class", {"name": "default"}, spec)


def test_the_recorded_node_class_defaults_are_applied_before_validation(new):
    node_class = as_object(new.named(NODE_CLASS, "event-node-class"))
    defaulted = apply_defaults(schema_of("eks.amazonaws.com/v1", "NodeClass"), copy.deepcopy(node_class))
    assert {key: defaulted["spec"][key] for key in set(defaulted["spec"]) - set(node_class["spec"])} == {
        "ephemeralStorage": {"size": "80Gi", "iops": 3000, "throughput": 125}, "snatPolicy": "Random",
        "networkPolicy": "DefaultAllow", "networkPolicyEventLogs": "Disabled"}


# --- KEDA ------------------------------------------------------------------------------------------------

def test_keda_runs_on_the_built_in_system_pool(either):
    values = only(either, RELEASE).inputs["values"]
    assert values["nodeSelector"] == {"karpenter.sh/nodepool": "system"}
    assert values["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    # Every Auto Mode node is Karpenter's: the "not on Karpenter nodes" affinity would leave KEDA Pending.
    assert "affinity" not in values


def test_the_failsafe_runs_on_the_built_in_system_pool_too(either):
    cron_jobs = either.of_type("kubernetes:batch/v1:CronJob")
    assert cron_jobs
    for cron_job in cron_jobs:
        pod = cron_job.inputs["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        assert pod["nodeSelector"] == {"karpenter.sh/nodepool": "system"}
        assert pod["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
        assert "affinity" not in pod


def test_keda_waits_for_the_new_cluster(new):
    assert only(new, EKS).urn in only(new, RELEASE).dependencies


# --- an existing cluster that cannot serve Auto Mode ------------------------------------------------------------

class ClusterAnswer(OfflineMocks):
    """The fake account, with its existing cluster's compute config replaced."""

    def __init__(self, compute: dict):
        super().__init__()
        self.compute = compute

    def call(self, args):
        answer = super().call(args)
        return {**answer, "computeConfigs": [self.compute]} if args.token == "aws:eks/getCluster:getCluster" else answer


@pytest.mark.parametrize("compute, message", [
    ({"enabled": False, "nodePools": [], "nodeRoleArn": ""},
     f"prescale:cluster.autoMode is true but EKS cluster '{CLUSTER}' does not run EKS Auto Mode"),
    ({"enabled": True, "nodePools": [], "nodeRoleArn": ""},
     f"EKS cluster '{CLUSTER}' runs Auto Mode without its built-in 'system' node pool"),
    # A node role is not enough: KEDA and the failsafe run on the `system` pool (their nodeSelector), so without it
    # they would stay Pending and no window would ever scale, up or down.
    ({"enabled": True, "nodePools": ["general-purpose"], "nodeRoleArn": "arn:aws:iam::123456789012:role/AutoNodes"},
     f"EKS cluster '{CLUSTER}' runs Auto Mode without its built-in 'system' node pool (node pools: "
     "['general-purpose'])"),
], ids=["not-auto-mode", "no-built-in-pools", "node-role-without-system-pool"])
def test_an_existing_cluster_that_cannot_serve_auto_mode_stops_the_run_before_anything_in_it(compute, message):
    mocks = ClusterAnswer(compute)
    with pytest.raises(AutoModeError, match=re.escape(message)):
        run({"create": False}, mocks=mocks)
    registered = {r.type for r in mocks.registrations}
    assert not any(t.startswith("kubernetes:") or t == "pulumi:providers:kubernetes" for t in registered), registered


class WithoutPodIdentityAgentOrOidcProvider(OfflineMocks):
    """The fake account, where looking up the pod identity agent add-on or the cluster's OIDC provider fails."""

    LOOKUPS = ("aws:eks/getAddon:getAddon", "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider")

    def call(self, args):
        if args.token in self.LOOKUPS:
            return {}, [("", "couldn't find resource")]
        return super().call(args)


def test_an_existing_auto_mode_cluster_needs_no_pod_identity_add_on_or_oidc_provider():
    """Auto Mode has pod identity built in, and prescale installs no Karpenter that would need either."""
    evaluation = run({"create": False}, mocks=WithoutPodIdentityAgentOrOidcProvider())
    assert evaluation.of_type(NODE_POOL) and evaluation.of_type(SCALED_OBJECT)


def test_the_fake_account_answers_with_an_auto_mode_cluster():
    """What the existing-cluster runs above rely on: the mock's answer, read as AWS would give it."""
    answer = fake_invoke(OfflineMocks(), "aws:eks/getCluster:getCluster", {"name": CLUSTER})
    assert answer["computeConfigs"] == [{"enabled": True, "nodePools": ["general-purpose", "system"],
                                         "nodeRoleArn": f"arn:aws:iam::{ACCOUNT_ID}:role/{CLUSTER}-AutoModeNodeRole"}]


# --- config ------------------------------------------------------------------------------------------------

def problems(cluster: dict | None = None, pools: list | None = None, **more) -> list[str]:
    raw = {key: json.loads(value) if key != "aws:region" else value
           for key, value in wire(cluster, pools, **more).items()}
    try:
        load_stack_config(raw, DEV_NOW)
    except ConfigError as error:
        return error.problems
    return []


def test_the_auto_mode_stack_is_valid_and_auto_mode_is_off_by_default():
    assert problems() == []
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": CLUSTER}}
    assert load_stack_config(raw, DEV_NOW).cluster.auto_mode is False


def test_auto_mode_is_a_strict_bool():
    assert any(p.startswith("prescale:cluster.autoMode: ") for p in problems({"autoMode": "true"}))


def test_karpenter_settings_are_refused_with_auto_mode():
    found = problems(karpenter={"version": "1.14.1", "controllerAuth": "irsa", "createSpotServiceLinkedRole": True})
    assert [p.split(":")[1] for p in found] == [
        "karpenter.controllerAuth", "karpenter.createSpotServiceLinkedRole", "karpenter.version"]
    assert found[0] == ("prescale:karpenter.controllerAuth: 'irsa' does not apply with prescale:cluster.autoMode: "
                        "true: AWS runs Karpenter (its version, credentials and service-linked roles are AWS's); "
                        "allowed: remove it")
    assert problems(karpenter={}) == []


def test_a_system_node_group_is_refused_with_auto_mode():
    (found,) = problems({"systemNodeGroup": {"minSize": 3, "desiredSize": 3}})
    assert found.startswith("prescale:cluster: systemNodeGroup does not apply with autoMode: true")


def test_an_ami_alias_is_refused_with_auto_mode_only():
    pools = [{**POOLS[0], "amiAlias": "al2023@v20260828"}, POOLS[1]]
    assert problems(pools=pools) == [
        "prescale:nodePools[0].amiAlias: 'al2023@v20260828' does not apply with prescale:cluster.autoMode: true: "
        "Auto Mode runs only its own AMIs; allowed: remove it"]
    assert problems({"autoMode": False}, pools=pools) == []


@pytest.mark.parametrize("lifetime, refused", [
    ({"expireAfter": "Never"}, "prescale:nodePools[0].expireAfter: 'Never' does not apply"),
    ({"expireAfter": "504h"}, "prescale:nodePools[0].expireAfter: '504h' plus terminationGracePeriod '1h' is longer"),
    ({"expireAfter": "480h", "terminationGracePeriod": "25h"}, "prescale:nodePools[0].expireAfter: '480h' plus "
                                                                "terminationGracePeriod '25h' is longer"),
    ({"terminationGracePeriod": "25h"}, "prescale:nodePools[0].expireAfter: '480h' plus"),  # the default counts too
    ({"expireAfter": "503h"}, None),  # exactly 21 days with the 1h grace period
    ({"expireAfter": "480h", "terminationGracePeriod": "24h"}, None),
    ({"terminationGracePeriod": "24h"}, None),
])
def test_node_lifetime_fits_auto_modes_21_days(lifetime, refused):
    found = problems(pools=[{**POOLS[0], **lifetime}, POOLS[1]])
    if refused is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(refused), found
        assert found[0].endswith("<= 504h (21 days)") or "or no expireAfter (then '480h')" in found[0]
    assert problems({"autoMode": False}, pools=[{**POOLS[0], **lifetime}, POOLS[1]]) == []


def test_the_deployed_expire_after():
    pool = NodePoolConfig.model_validate(POOLS[0])
    assert (pool.deployed_expire_after(False), pool.deployed_expire_after(True)) == ("Never", "480h")
    explicit = NodePoolConfig.model_validate({**POOLS[0], "expireAfter": "72h"})
    assert (explicit.deployed_expire_after(False), explicit.deployed_expire_after(True)) == ("72h", "72h")


def test_an_expire_after_shorter_than_a_window_is_refused_without_offering_never():
    (found,) = problems(pools=[POOLS[0], {**POOLS[1], "expireAfter": "6h"}])
    assert found == ("prescale:nodePools[1].expireAfter: '6h' is shorter than the 6h10m window 'launch' "
                     "(eventWindows[1]) holds its nodes, from scale-up to end: disruption budgets do not stop expiry, "
                     "so nodes launched at scale-up would be replaced mid-event; allowed: at least 6h10m")
