"""The Karpenter component: the real inputs of every AWS prerequisite and Helm release it registers."""

import json

import pytest
from prescale.model.config import KARPENTER_POLICY_MINORS, ClusterConfig, KarpenterConfig, karpenter_policy_problem
from prescale.offline import evaluate
from prescale.platform.karpenter import Karpenter, KarpenterArgs
from prescale.platform.karpenter_policy import controller_policy, interruption_queue_policy

from tests.support.platform import (
    ACCOUNT,
    REGION,
    RELEASE,
    SYSTEM_PLACEMENT,
    only,
    policy,
    provider_urn,
    stand_in_provider,
    uses_provider,
)

CLUSTER = "prescale-test"
ISSUER = f"oidc.eks.{REGION}.amazonaws.com/id/TEST"
NODE_ROLE = f"{CLUSTER}-karpenter-node"
CONTROLLER_ROLE = f"{CLUSTER}-karpenter-controller"
NODE_POLICIES = {"AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryPullOnly",
                 "AmazonSSMManagedInstanceCore"}


def build(cluster_name: str = CLUSTER, **config) -> object:
    return evaluate(lambda: Karpenter("kp", KarpenterArgs(
        cluster_name=cluster_name, config=KarpenterConfig.model_validate(config), region=REGION,
        kubernetes_provider=stand_in_provider(), placement=SYSTEM_PLACEMENT,
        oidc_provider_arn=f"arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER}", oidc_issuer=ISSUER,
        cluster_ready=[], tags={"team": "platform"})))


@pytest.fixture(scope="module")
def pod_identity():
    return build(version="1.14.0")


@pytest.fixture(scope="module")
def irsa():
    return build(controllerAuth="irsa", createSpotServiceLinkedRole=True)


def role(evaluation, name):
    return evaluation.named("aws:iam/role:Role", name)


def test_roles_that_manifests_name_are_named_after_the_cluster_under_unchanged_logical_names(pod_identity):
    """EC2NodeClass.spec.role names the node role (and an IRSA annotation the controller role): auto-naming
    would add a random suffix, so the manifests `prescale plan --out` writes would name a role that never exists."""
    assert role(pod_identity, "kp-node").inputs["name"] == NODE_ROLE
    assert role(pod_identity, "kp-controller").inputs["name"] == CONTROLLER_ROLE


def test_role_names_fit_iams_64_characters_for_the_longest_cluster_name():
    longest = "c" * 39
    ClusterConfig(name=longest)
    with pytest.raises(ValueError):
        ClusterConfig(name=longest + "c")
    names = {r.inputs["name"] for r in build(cluster_name=longest).of_type("aws:iam/role:Role")}
    assert names == {f"{longest}-karpenter-node", f"{longest}-karpenter-controller"}
    assert max(map(len, names)) <= 64


def test_the_plans_node_class_names_the_role_pulumi_up_creates(dev_stack):
    evaluation = dev_stack
    node_role = evaluation.named("aws:iam/role:Role", "prescale-karpenter-node").inputs["name"]
    assert node_role == "prescale-dev-karpenter-node"
    node_class = only(evaluation, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
    assert node_class.inputs["spec"]["role"] == node_role


@pytest.mark.parametrize("minor", KARPENTER_POLICY_MINORS)
def test_patch_releases_of_a_minor_whose_policy_prescale_carries_are_accepted(minor):
    assert [karpenter_policy_problem(f"{minor}.{patch}") for patch in (0, 1, 99)] == [None] * 3
    assert KarpenterConfig(version=f"{minor}.0").version == f"{minor}.0"


@pytest.mark.parametrize("version", ["1.13.9", "1.15.0", "2.14.1", "1.140.0", "1.1.4"])
def test_releases_whose_policy_prescale_does_not_carry_are_refused_naming_the_allowed_ones(version):
    assert karpenter_policy_problem(version).startswith('must be "1.14.x" (patch releases of 1.14)')
    with pytest.raises(ValueError, match=r'"1\.14\.x"'):
        KarpenterConfig(version=version)


def test_the_default_version_is_one_whose_policy_prescale_carries():
    assert karpenter_policy_problem(KarpenterConfig().version) is None


def test_node_role_is_assumed_by_ec2_and_has_the_four_node_policies(pod_identity):
    node = role(pod_identity, "kp-node")
    assert policy(node, "assumeRolePolicy")["Statement"] == [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": ["sts:AssumeRole"]}]
    attached = [a.inputs for a in pod_identity.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")]
    assert {a["policyArn"] for a in attached} == {f"arn:aws:iam::aws:policy/{p}" for p in NODE_POLICIES}
    assert {a["role"] for a in attached} == {NODE_ROLE}


def test_node_role_may_join_the_cluster_through_an_ec2_linux_access_entry(pod_identity):
    entry = only(pod_identity, "aws:eks/accessEntry:AccessEntry").inputs
    assert entry == {"clusterName": CLUSTER, "principalArn": f"arn:aws:iam::{ACCOUNT}:role/{NODE_ROLE}",
                     "type": "EC2_LINUX", "tags": {"team": "platform"}}


def test_pod_identity_controller_role_trust_and_association(pod_identity):
    trust = policy(role(pod_identity, "kp-controller"), "assumeRolePolicy")
    assert trust["Statement"] == [{"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"},
                                   "Action": ["sts:AssumeRole", "sts:TagSession"]}]
    association = only(pod_identity, "aws:eks/podIdentityAssociation:PodIdentityAssociation").inputs
    assert (association["clusterName"], association["namespace"], association["serviceAccount"],
            association["roleArn"]) == (CLUSTER, "kube-system", "karpenter",
                                        f"arn:aws:iam::{ACCOUNT}:role/{CONTROLLER_ROLE}")


def test_controller_policy_is_upstreams_document_for_this_cluster_node_role_and_queue(pod_identity):
    inline = only(pod_identity, "aws:iam/rolePolicy:RolePolicy")
    assert inline.inputs["role"] == "kp-controller-id"
    queue = only(pod_identity, "aws:sqs/queue:Queue")
    assert policy(inline) == controller_policy(
        partition="aws", region=REGION, account_id=ACCOUNT, cluster_name=CLUSTER,
        node_role_arn=f"arn:aws:iam::{ACCOUNT}:role/{NODE_ROLE}",
        queue_arn=f"arn:aws:sqs:{REGION}:{ACCOUNT}:{queue.inputs.get('name', queue.name)}")


def test_interruption_queue_is_encrypted_keeps_messages_five_minutes_and_has_its_policy(pod_identity):
    queue = only(pod_identity, "aws:sqs/queue:Queue")
    assert queue.inputs["messageRetentionSeconds"] == 300
    assert queue.inputs["sqsManagedSseEnabled"] is True
    queue_policy = only(pod_identity, "aws:sqs/queuePolicy:QueuePolicy")
    assert queue_policy.inputs["queueUrl"] == f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/kp-interruption"
    assert policy(queue_policy) == interruption_queue_policy(f"arn:aws:sqs:{REGION}:{ACCOUNT}:kp-interruption")


def test_five_eventbridge_rules_with_upstreams_exact_patterns_all_target_the_queue(pod_identity):
    patterns = {r.name: json.loads(r.inputs["eventPattern"])
                for r in pod_identity.of_type("aws:cloudwatch/eventRule:EventRule")}
    assert patterns == {
        "kp-health": {"source": ["aws.health"], "detail-type": ["AWS Health Event"]},
        "kp-spot-interruption": {"source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"]},
        "kp-rebalance": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]},
        "kp-state-change": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"]},
        "kp-capacity-reservation": {"source": ["aws.ec2"],
                                    "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"]},
    }
    targets = {t.name: t.inputs for t in pod_identity.of_type("aws:cloudwatch/eventTarget:EventTarget")}
    assert set(targets) == set(patterns)
    for name, target in targets.items():
        assert target == {"rule": name, "arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:kp-interruption",
                          "targetId": "KarpenterInterruptionQueueTarget"}


def test_crd_chart_then_controller_chart_pinned_from_config(pod_identity):
    crd, controller = pod_identity.named(RELEASE, "kp-crd"), pod_identity.named(RELEASE, "kp")
    assert {k: crd.inputs[k] for k in ("chart", "version", "name", "namespace")} == {
        "chart": "oci://public.ecr.aws/karpenter/karpenter-crd", "version": "1.14.0", "name": "karpenter-crd",
        "namespace": "kube-system"}
    assert {k: controller.inputs[k] for k in ("chart", "version", "name", "namespace", "skipCrds")} == {
        "chart": "oci://public.ecr.aws/karpenter/karpenter", "version": "1.14.0", "name": "karpenter",
        "namespace": "kube-system", "skipCrds": True}
    for release in (crd, controller):
        assert (release.inputs["atomic"], release.inputs["timeout"], release.inputs["maxHistory"]) == (True, 600, 10)


def test_controller_values(pod_identity):
    values = pod_identity.named(RELEASE, "kp").inputs["values"]
    assert values == {
        "settings": {"clusterName": CLUSTER, "interruptionQueue": "kp-interruption"},
        "serviceAccount": {"name": "karpenter"},
        "replicas": 2,
        "controller": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                     "limits": {"cpu": "1", "memory": "1Gi"}}},
        "nodeSelector": {"kubernetes.io/os": "linux", "prescale.io/system": "true"},
        "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}],
        "dnsPolicy": "Default",
    }
    assert "affinity" not in values  # the chart's default keeps it off Karpenter's own nodes


def test_controller_release_waits_for_its_crds_and_every_aws_prerequisite(pod_identity):
    controller = pod_identity.named(RELEASE, "kp")
    waited_for = {pod_identity.by_urn(urn).type for urn in controller.dependencies}
    assert pod_identity.named(RELEASE, "kp-crd").urn in controller.dependencies
    assert {"aws:iam/rolePolicy:RolePolicy", "aws:eks/podIdentityAssociation:PodIdentityAssociation",
            "aws:eks/accessEntry:AccessEntry", "aws:sqs/queuePolicy:QueuePolicy",
            "aws:cloudwatch/eventTarget:EventTarget", "aws:iam/rolePolicyAttachment:RolePolicyAttachment"} <= waited_for
    targets = {r.urn for r in pod_identity.of_type("aws:cloudwatch/eventTarget:EventTarget")}
    assert len(targets) == 5 and targets <= set(controller.dependencies)


def test_every_kubernetes_resource_uses_the_given_provider(pod_identity):
    provider = provider_urn(pod_identity)
    in_cluster = [r for r in pod_identity.resources if r.type.startswith("kubernetes:")]
    assert len(in_cluster) == 2 and all(uses_provider(r, provider) for r in in_cluster)


def test_no_spot_service_linked_role_unless_asked(pod_identity, irsa):
    assert pod_identity.of_type("aws:iam/serviceLinkedRole:ServiceLinkedRole") == []
    assert only(irsa, "aws:iam/serviceLinkedRole:ServiceLinkedRole").inputs["awsServiceName"] == "spot.amazonaws.com"


def test_irsa_trusts_the_oidc_provider_for_karpenters_service_account_only(irsa):
    (statement,) = policy(role(irsa, "kp-controller"), "assumeRolePolicy")["Statement"]
    assert statement["Principal"] == {"Federated": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER}"}
    assert statement["Condition"] == {"StringEquals": {
        f"{ISSUER}:aud": "sts.amazonaws.com", f"{ISSUER}:sub": "system:serviceaccount:kube-system:karpenter"}}
    assert irsa.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation") == []


def test_irsa_annotates_the_service_account_with_the_controller_role(irsa):
    service_account = irsa.named(RELEASE, "kp").inputs["values"]["serviceAccount"]
    role_arn = f"arn:aws:iam::{ACCOUNT}:role/{CONTROLLER_ROLE}"
    assert service_account == {"name": "karpenter", "annotations": {"eks.amazonaws.com/role-arn": role_arn}}
    assert irsa.named(RELEASE, "kp").inputs["version"] == "1.14.1"
