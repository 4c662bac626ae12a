"""Secure by default, asserted in one place on the whole dev stack (``__main__.py`` + ``Pulumi.dev.yaml``).

Each guarantee is checked twice: by the policy pack's own rule (:mod:`policy.prescale_policies`) over the
stack's registrations, and by direct assertions on the exact inputs, so neither can drift alone.
"""

import json

import pytest
from prescale.contract import NOT_ON_KARPENTER_NODES
from prescale.offline import read_stack_file, run_program

from policy.prescale_policies import (
    node_class_problems,
    pass_role_problems,
    placeholder_priority_problems,
    policy_documents,
    public_endpoint_problem,
    restricted_pod_problems,
    untagged_delete_problems,
    wildcard_action_problems,
)
from tests.support.capacity import DAEMON_SET, POD_TEMPLATE, as_object
from tests.support.platform import ACCOUNT, DEV_NOW, K8S_PROVIDER, PROJECT, is_secret, only

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
CRON_JOB = "kubernetes:batch/v1:CronJob"


def test_every_pod_prescale_declares_meets_restricted_as_the_namespace_enforces(dev_stack):
    evaluation = dev_stack
    pods = [as_object(d)["spec"]["template"]["spec"] for d in evaluation.of_type(DEPLOYMENT)] + \
           [as_object(c)["spec"]["jobTemplate"]["spec"]["template"]["spec"] for c in evaluation.of_type(CRON_JOB)]
    assert len(pods) == 6  # 3 windows × (placeholders + failsafe)
    assert [restricted_pod_problems(spec) for spec in pods] == [[]] * 6
    for spec in pods:
        assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] > 0
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in spec["containers"]:
            assert container["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                    "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}
    namespace = as_object(evaluation.named("kubernetes:core/v1:Namespace", "prescale-namespace"))
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_every_pod_of_static_and_buffer_windows_meets_restricted_and_their_drivers_run_on_the_system_nodes(native_run):
    evaluation, _ = native_run
    jobs = [as_object(c)["spec"]["jobTemplate"]["spec"]["template"]["spec"] for c in evaluation.of_type(CRON_JOB)] + \
           [as_object(j)["spec"]["template"]["spec"] for j in evaluation.of_type("kubernetes:batch/v1:Job")]
    others = [as_object(d)["spec"]["template"]["spec"] for d in evaluation.of_type(DAEMON_SET)] + \
             [as_object(t)["template"]["spec"] for t in evaluation.of_type(POD_TEMPLATE)]
    # 4 windows × 3 driver runs (up, down, failsafe) and a converge Job; 2 prepulls, 2 buffers' templates
    assert (len(jobs), len(others)) == (16, 4)
    for spec in jobs + others:
        assert restricted_pod_problems(spec) == []
        assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] > 0
        assert spec["automountServiceAccountToken"] is (spec in jobs)  # only kubectl needs the API
        for container in spec["containers"] + spec.get("initContainers", []):
            assert container["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                    "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}
            assert container["resources"]["limits"]["memory"]
    for spec in jobs:  # never on a node Karpenter launched, which the driver may be about to empty
        assert spec["affinity"] == NOT_ON_KARPENTER_NODES
    for obj in map(as_object, evaluation.of_type(DAEMON_SET) + evaluation.of_type(POD_TEMPLATE)):
        assert obj["metadata"]["namespace"] == "prescale"  # where "restricted" is enforced


def test_placeholders_run_below_every_real_pod_and_preempt_nothing(dev_stack):
    evaluation = dev_stack
    assert placeholder_priority_problems([(r.type, r.name, as_object(r)) for r in evaluation.resources]) == []
    priority = as_object(evaluation.named("kubernetes:scheduling.k8s.io/v1:PriorityClass",
                                          "prescale-placeholder-priority"))
    assert (priority["value"], priority["preemptionPolicy"], priority["globalDefault"]) == (-10, "Never", False)
    for deployment in evaluation.of_type(DEPLOYMENT):
        assert as_object(deployment)["spec"]["template"]["spec"]["priorityClassName"] == "prescale-placeholder"


def test_karpenter_nodes_require_imdsv2_with_one_hop_and_encrypt_every_volume(dev_stack):
    node_class = as_object(only(dev_stack, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"))["spec"]
    assert node_class_problems(node_class) == []
    assert node_class["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                             "httpPutResponseHopLimit": 1, "httpTokens": "required"}
    assert [device["ebs"]["encrypted"] for device in node_class["blockDeviceMappings"]] == [True]


def test_the_interruption_queue_is_encrypted_and_refuses_plain_http(dev_stack):
    evaluation = dev_stack
    assert only(evaluation, "aws:sqs/queue:Queue").inputs["sqsManagedSseEnabled"] is True
    queue_policy = json.loads(only(evaluation, "aws:sqs/queuePolicy:QueuePolicy").inputs["policy"])
    assert {"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}.items() <= \
        next(s for s in queue_policy["Statement"] if s["Sid"] == "DenyHTTP").items()


def test_no_iam_document_has_wildcard_actions_unscoped_passrole_or_untagged_deletes(dev_stack):
    evaluation = dev_stack
    documents = [document for r in evaluation.resources for document in policy_documents(r.type, as_object(r))]
    assert len(documents) == 5  # 3 roles' trust policies, the controller policy, the interruption queue policy
    for check in (wildcard_action_problems, pass_role_problems, untagged_delete_problems):
        assert [check(document) for document in documents] == [[]] * len(documents)
    controller = json.loads(evaluation.named("aws:iam/rolePolicy:RolePolicy", "prescale-karpenter-controller")
                            .inputs["policy"])
    statements = {s["Sid"]: s for s in controller["Statement"]}
    assert statements["AllowPassingInstanceRole"]["Resource"] == \
        f"arn:aws:iam::{ACCOUNT}:role/prescale-dev-karpenter-node"
    assert statements["AllowPassingInstanceRole"]["Condition"] == \
        {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}}
    assert statements["AllowScopedDeletion"]["Condition"] == {
        "StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/prescale-dev": "owned"},
        "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}}
    # Only reads run on every resource ("*"), and only read verbs.
    unscoped = {sid: s["Action"] for sid, s in statements.items() if s["Resource"] == "*"}
    assert sorted(unscoped) == ["AllowPricingReadActions", "AllowRegionalReadActions",
                                "AllowUnscopedInstanceProfileListAction", "AllowZonalShiftStatusReadOnly"]
    assert all(action.split(":")[1].startswith(("Describe", "Get", "List"))
               for actions in unscoped.values() for action in actions)
    attached = sorted(r.inputs["policyArn"] for r in evaluation.of_type(
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment"))
    assert {arn.split("/")[-1] for arn in attached} == {"AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy",
                                                        "AmazonEC2ContainerRegistryPullOnly",
                                                        "AmazonSSMManagedInstanceCore"}
    assert all(arn.startswith("arn:aws:iam::aws:policy/") for arn in attached)  # AWS-managed, read-mostly


def eks_inputs(cluster: dict) -> dict:
    """The eks Cluster's endpoint inputs when the dev stack's ``prescale:cluster`` is amended with ``cluster``."""
    wire = read_stack_file(PROJECT, "dev")
    wire["prescale:cluster"] = json.dumps({**json.loads(wire["prescale:cluster"]), **cluster})
    inputs = only(run_program(PROJECT, "dev", DEV_NOW, config=wire), "eks:index:Cluster").inputs
    return {key: inputs.get(key) for key in ("endpointPublicAccess", "publicAccessCidrs", "endpointPrivateAccess")}


@pytest.mark.parametrize("cluster, expected", [
    ({}, {"endpointPublicAccess": True, "publicAccessCidrs": ["0.0.0.0/0"], "endpointPrivateAccess": True}),
    ({"publicAccessCidrs": ["203.0.113.0/24"]},
     {"endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"], "endpointPrivateAccess": True}),
    ({"endpointPublicAccess": False}, {"endpointPublicAccess": False, "publicAccessCidrs": None,
                                       "endpointPrivateAccess": True}),
], ids=["default: open, advisory", "limited", "private only"])
def test_the_public_endpoint_is_limited_or_turned_off_from_config(dev_stack, cluster, expected):
    inputs = eks_inputs(cluster) if cluster else {key: only(dev_stack, "eks:index:Cluster").inputs.get(key)
                                                  for key in expected}
    assert inputs == expected
    problem = public_endpoint_problem(inputs["endpointPublicAccess"], inputs["publicAccessCidrs"])
    assert (problem is None) == bool(cluster)


def test_the_kubeconfig_is_a_secret_output_and_a_secret_provider_input(dev_stack):
    evaluation = dev_stack
    assert evaluation.outputs["kubeconfig"] == "[secret]"
    assert is_secret(only(evaluation, K8S_PROVIDER).inputs["kubeconfig"])
