"""Karpenter's policy documents, statement by statement against upstream (karpenter.md §2.1, CFN v1.14)."""

import json

import pytest
from prescale.platform.karpenter_policy import (
    controller_policy,
    interruption_queue_policy,
    irsa_trust_policy,
    pod_identity_trust_policy,
)

P, R, A, C = "aws", "ap-northeast-2", "123456789012", "prescale-dev"
NODE_ROLE = f"arn:aws:iam::{A}:role/KarpenterNodeRole-{C}"
QUEUE = f"arn:aws:sqs:{R}:{A}:{C}"
EC2 = f"arn:{P}:ec2:{R}"
PROFILES = f"arn:{P}:iam::{A}:instance-profile/*"
CLUSTER_ARN = f"arn:{P}:eks:{R}:{A}:cluster/{C}"
OWNED = f"kubernetes.io/cluster/{C}"
LAUNCHED = [f"{EC2}:*:{t}/*" for t in
            ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")]

# Transcribed from upstream's CloudFormation, independently of the module under test:
# Sid → (actions, resource(s), condition block or None).
UPSTREAM = {
    "AllowScopedEC2InstanceAccessActions": (
        ["ec2:RunInstances", "ec2:CreateFleet"],
        [f"{EC2}::image/*", f"{EC2}::snapshot/*", f"{EC2}:*:security-group/*", f"{EC2}:*:subnet/*",
         f"{EC2}:*:capacity-reservation/*", f"{EC2}:*:placement-group/*"],
        None),
    "AllowScopedEC2LaunchTemplateAccessActions": (
        ["ec2:RunInstances", "ec2:CreateFleet"], f"{EC2}:*:launch-template/*",
        {"StringEquals": {f"aws:ResourceTag/{OWNED}": "owned"},
         "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}}),
    "AllowScopedEC2InstanceActionsWithTags": (
        ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"], LAUNCHED,
        {"StringEquals": {f"aws:RequestTag/{OWNED}": "owned", "aws:RequestTag/eks:eks-cluster-name": C},
         "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}),
    "AllowScopedResourceCreationTagging": (
        ["ec2:CreateTags"], LAUNCHED,
        {"StringEquals": {f"aws:RequestTag/{OWNED}": "owned", "aws:RequestTag/eks:eks-cluster-name": C,
                          "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"]},
         "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}),
    "AllowScopedResourceTagging": (
        ["ec2:CreateTags"], f"{EC2}:*:instance/*",
        {"StringEquals": {f"aws:ResourceTag/{OWNED}": "owned"},
         "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
         "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": C},
         "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]}}),
    "AllowScopedDeletion": (
        ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"], [f"{EC2}:*:instance/*", f"{EC2}:*:launch-template/*"],
        {"StringEquals": {f"aws:ResourceTag/{OWNED}": "owned"},
         "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}}),
    "AllowPassingInstanceRole": (
        ["iam:PassRole"], NODE_ROLE,
        {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}}),
    "AllowScopedInstanceProfileCreationActions": (
        ["iam:CreateInstanceProfile"], PROFILES,
        {"StringEquals": {f"aws:RequestTag/{OWNED}": "owned", "aws:RequestTag/eks:eks-cluster-name": C,
                          "aws:RequestTag/topology.kubernetes.io/region": R},
         "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}}),
    "AllowScopedInstanceProfileTagActions": (
        ["iam:TagInstanceProfile"], PROFILES,
        {"StringEquals": {f"aws:ResourceTag/{OWNED}": "owned", "aws:ResourceTag/topology.kubernetes.io/region": R,
                          f"aws:RequestTag/{OWNED}": "owned", "aws:RequestTag/eks:eks-cluster-name": C,
                          "aws:RequestTag/topology.kubernetes.io/region": R},
         "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                        "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}}),
    "AllowScopedInstanceProfileActions": (
        ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"], PROFILES,
        {"StringEquals": {f"aws:ResourceTag/{OWNED}": "owned", "aws:ResourceTag/topology.kubernetes.io/region": R},
         "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}}),
    "AllowAPIServerEndpointDiscovery": (["eks:DescribeCluster"], CLUSTER_ARN, None),
    "AllowInterruptionQueueActions": (["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"], QUEUE, None),
    "AllowZonalShiftStatusReadOnly": (
        ["arc-zonal-shift:GetManagedResource"], "*",
        {"StringEquals": {"arc-zonal-shift:ResourceIdentifier": CLUSTER_ARN}}),
    "AllowRegionalReadActions": (
        ["ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances",
         "ec2:DescribeInstanceStatus", "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes",
         "ec2:DescribeLaunchTemplates", "ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups",
         "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets"], "*",
        {"StringEquals": {"aws:RequestedRegion": R}}),
    "AllowSSMReadActions": (["ssm:GetParameter"], f"arn:{P}:ssm:{R}::parameter/aws/service/*", None),
    "AllowPricingReadActions": (["pricing:GetProducts"], "*", None),
    "AllowUnscopedInstanceProfileListAction": (["iam:ListInstanceProfiles"], "*", None),
    "AllowInstanceProfileReadActions": (["iam:GetInstanceProfile"], PROFILES, None),
}


def document(**overrides) -> dict:
    args = dict(partition=P, region=R, account_id=A, cluster_name=C, node_role_arn=NODE_ROLE, queue_arn=QUEUE)
    return controller_policy(**{**args, **overrides})


def statements() -> dict[str, dict]:
    return {s["Sid"]: s for s in document()["Statement"]}


def test_the_document_has_exactly_upstreams_statements():
    body = document()
    assert body["Version"] == "2012-10-17"
    assert [s["Sid"] for s in body["Statement"]] == list(UPSTREAM)


@pytest.mark.parametrize("sid", UPSTREAM)
def test_each_statement_matches_upstream(sid):
    actions, resource, condition = UPSTREAM[sid]
    statement = statements()[sid]
    assert statement["Effect"] == "Allow"
    assert statement["Action"] == actions
    assert statement["Resource"] == resource
    assert statement.get("Condition") == condition


def test_no_action_is_a_wildcard():
    for statement in document()["Statement"]:
        assert all("*" not in action for action in statement["Action"]), statement["Sid"]


def test_every_write_is_scoped_to_this_clusters_tags_or_to_exact_arns():
    """Only reads may use Resource "*"; writes name an ARN pattern and (except launch inputs) a tag condition."""
    reads = {"AllowZonalShiftStatusReadOnly", "AllowRegionalReadActions", "AllowPricingReadActions",
             "AllowUnscopedInstanceProfileListAction"}
    for sid, statement in statements().items():
        if statement["Resource"] == "*":
            assert sid in reads
    for sid in ("AllowScopedEC2LaunchTemplateAccessActions", "AllowScopedEC2InstanceActionsWithTags",
                "AllowScopedResourceCreationTagging", "AllowScopedResourceTagging", "AllowScopedDeletion",
                "AllowScopedInstanceProfileCreationActions", "AllowScopedInstanceProfileTagActions",
                "AllowScopedInstanceProfileActions"):
        assert OWNED in json.dumps(statements()[sid]["Condition"]), sid


def test_pass_role_is_limited_to_the_node_role_and_to_ec2():
    passing = [s for s in document()["Statement"] if "iam:PassRole" in s["Action"]]
    assert len(passing) == 1
    assert passing[0]["Resource"] == NODE_ROLE
    assert passing[0]["Condition"] == {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com",
                                                                                  "ec2.amazonaws.com.cn"]}}


def test_partition_region_and_cluster_flow_into_every_arn_and_condition():
    body = json.dumps(document(partition="aws-cn", region="cn-north-1", cluster_name="other",
                               node_role_arn=f"arn:aws-cn:iam::{A}:role/n",
                               queue_arn=f"arn:aws-cn:sqs:cn-north-1:{A}:q"))
    assert "arn:aws:" not in body and f"cluster/{C}" not in body and R not in body
    assert "arn:aws-cn:eks:cn-north-1:123456789012:cluster/other" in body
    assert "aws:ResourceTag/kubernetes.io/cluster/other" in body


def test_the_longest_document_fits_an_inline_role_policy():
    """Inline role policies may have 10,240 characters (managed ones only 6,144, which it exceeds)."""
    longest = document(partition="aws-us-gov", region="ap-southeast-7", cluster_name="c" * 39,
                       node_role_arn=f"arn:aws-us-gov:iam::{A}:role/{'r' * 64}",
                       queue_arn=f"arn:aws-us-gov:sqs:ap-southeast-7:{A}:{'q' * 80}")
    size = len(json.dumps(longest, separators=(",", ":")))
    assert 6144 < size < 10240


def test_queue_policy_lets_only_eventbridge_and_sqs_send_and_denies_plain_http():
    body = interruption_queue_policy(QUEUE)
    assert body["Id"] == "EC2InterruptionPolicy"
    allow, deny = body["Statement"]
    assert allow == {"Sid": "SqsWrite", "Effect": "Allow",
                     "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                     "Action": "sqs:SendMessage", "Resource": QUEUE}
    assert deny == {"Sid": "DenyHTTP", "Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": QUEUE,
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}}}


def test_pod_identity_trust_lets_the_agent_assume_and_tag_sessions():
    (statement,) = pod_identity_trust_policy()["Statement"]
    assert statement == {"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"},
                         "Action": ["sts:AssumeRole", "sts:TagSession"]}


def test_irsa_trust_is_limited_to_karpenters_service_account_and_the_sts_audience():
    issuer = "oidc.eks.ap-northeast-2.amazonaws.com/id/ABC"
    provider = f"arn:aws:iam::{A}:oidc-provider/{issuer}"
    (statement,) = irsa_trust_policy(provider, issuer)["Statement"]
    assert statement == {
        "Effect": "Allow", "Principal": {"Federated": provider}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {f"{issuer}:aud": "sts.amazonaws.com",
                                       f"{issuer}:sub": "system:serviceaccount:kube-system:karpenter"}}}


def test_the_policy_already_allows_what_karpenter_needs_for_capacity_reservations():
    """Karpenter 1.14 discovers reservations with DescribeCapacityReservations and launches into one by naming it in
    CreateFleet/RunInstances, on the `capacity-reservation/*` resource (v1.14 getting-started CloudFormation, the
    same statements as UPSTREAM above): windows' `reserve` needs no new permission for the controller, and none of
    prescale's roles creates reservations (the `pulumi up` credentials do)."""
    by_sid = statements()
    assert "ec2:DescribeCapacityReservations" in by_sid["AllowRegionalReadActions"]["Action"]
    launch = by_sid["AllowScopedEC2InstanceAccessActions"]
    assert {"ec2:RunInstances", "ec2:CreateFleet"} <= set(launch["Action"])
    assert f"{EC2}:*:capacity-reservation/*" in launch["Resource"] and "Condition" not in launch
    every_action = {action for statement in document()["Statement"] for action in statement["Action"]}
    assert not {"ec2:CreateCapacityReservation", "ec2:ModifyCapacityReservation",
                "ec2:CancelCapacityReservation"} & every_action
