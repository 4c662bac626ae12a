"""Karpenter's IAM and SQS policy documents as pure data, statement by statement as upstream writes them.

Karpenter v1.14's getting-started CloudFormation, its six managed policies merged into one document; every write
scoped by the tags Karpenter puts on what it creates, no wildcard action, PassRole only on the node role and to
EC2. Sources and why: docs/internals.md#prescaleplatformkarpenter_policy.
"""

from __future__ import annotations

from typing import Any

from .iam import policy_document

# Karpenter's service account; the Pod Identity association and the IRSA `sub` condition both name it, and
# the Helm release is pinned to it (`serviceAccount.name`), because the chart would otherwise derive it
# from the release name.
SERVICE_ACCOUNT_NAMESPACE = "kube-system"
SERVICE_ACCOUNT_NAME = "karpenter"

# Every EC2 resource type Karpenter creates and tags while launching a node.
_LAUNCHED_TYPES = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")


def controller_policy(*, partition: str, region: str, account_id: str, cluster_name: str,
                      node_role_arn: str, queue_arn: str) -> dict[str, Any]:
    """The controller's IAM policy document (Karpenter v1.14 CloudFormation, one document)."""
    ec2 = f"arn:{partition}:ec2:{region}"
    instance_profiles = f"arn:{partition}:iam::{account_id}:instance-profile/*"
    cluster_arn = f"arn:{partition}:eks:{region}:{account_id}:cluster/{cluster_name}"
    owned = f"kubernetes.io/cluster/{cluster_name}"
    launched = [f"{ec2}:*:{kind}/*" for kind in _LAUNCHED_TYPES]

    return policy_document(
        # --- NodeLifecycle
        _allow("AllowScopedEC2InstanceAccessActions", ["ec2:RunInstances", "ec2:CreateFleet"],
              [f"{ec2}::image/*", f"{ec2}::snapshot/*", f"{ec2}:*:security-group/*", f"{ec2}:*:subnet/*",
               f"{ec2}:*:capacity-reservation/*", f"{ec2}:*:placement-group/*"]),
        _allow("AllowScopedEC2LaunchTemplateAccessActions", ["ec2:RunInstances", "ec2:CreateFleet"],
              f"{ec2}:*:launch-template/*",
              StringEquals={f"aws:ResourceTag/{owned}": "owned"},
              StringLike={"aws:ResourceTag/karpenter.sh/nodepool": "*"}),
        _allow("AllowScopedEC2InstanceActionsWithTags",
              ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"], launched,
              StringEquals={f"aws:RequestTag/{owned}": "owned",
                            "aws:RequestTag/eks:eks-cluster-name": cluster_name},
              StringLike={"aws:RequestTag/karpenter.sh/nodepool": "*"}),
        _allow("AllowScopedResourceCreationTagging", ["ec2:CreateTags"], launched,
              StringEquals={f"aws:RequestTag/{owned}": "owned",
                            "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                            "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"]},
              StringLike={"aws:RequestTag/karpenter.sh/nodepool": "*"}),
        _allow("AllowScopedResourceTagging", ["ec2:CreateTags"], f"{ec2}:*:instance/*",
              StringEquals={f"aws:ResourceTag/{owned}": "owned"},
              StringLike={"aws:ResourceTag/karpenter.sh/nodepool": "*"},
              StringEqualsIfExists={"aws:RequestTag/eks:eks-cluster-name": cluster_name},
              ForAllValues_StringEquals={
                  "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]}),
        _allow("AllowScopedDeletion", ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
              [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
              StringEquals={f"aws:ResourceTag/{owned}": "owned"},
              StringLike={"aws:ResourceTag/karpenter.sh/nodepool": "*"}),
        # --- IAMIntegration
        _allow("AllowPassingInstanceRole", ["iam:PassRole"], node_role_arn,
              StringEquals={"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}),
        _allow("AllowScopedInstanceProfileCreationActions", ["iam:CreateInstanceProfile"], instance_profiles,
              StringEquals={f"aws:RequestTag/{owned}": "owned",
                            "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                            "aws:RequestTag/topology.kubernetes.io/region": region},
              StringLike={"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}),
        _allow("AllowScopedInstanceProfileTagActions", ["iam:TagInstanceProfile"], instance_profiles,
              StringEquals={f"aws:ResourceTag/{owned}": "owned",
                            "aws:ResourceTag/topology.kubernetes.io/region": region,
                            f"aws:RequestTag/{owned}": "owned",
                            "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                            "aws:RequestTag/topology.kubernetes.io/region": region},
              StringLike={"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                          "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}),
        _allow("AllowScopedInstanceProfileActions",
              ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
              instance_profiles,
              StringEquals={f"aws:ResourceTag/{owned}": "owned",
                            "aws:ResourceTag/topology.kubernetes.io/region": region},
              StringLike={"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}),
        # --- EKSIntegration
        _allow("AllowAPIServerEndpointDiscovery", ["eks:DescribeCluster"], cluster_arn),
        # --- Interruption
        _allow("AllowInterruptionQueueActions", ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
              queue_arn),
        # --- ZonalShift
        _allow("AllowZonalShiftStatusReadOnly", ["arc-zonal-shift:GetManagedResource"], "*",
              StringEquals={"arc-zonal-shift:ResourceIdentifier": cluster_arn}),
        # --- ResourceDiscovery
        _allow("AllowRegionalReadActions",
              ["ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances",
               "ec2:DescribeInstanceStatus", "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes",
               "ec2:DescribeLaunchTemplates", "ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups",
               "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets"],
              "*", StringEquals={"aws:RequestedRegion": region}),
        _allow("AllowSSMReadActions", ["ssm:GetParameter"], f"arn:{partition}:ssm:{region}::parameter/aws/service/*"),
        _allow("AllowPricingReadActions", ["pricing:GetProducts"], "*"),
        _allow("AllowUnscopedInstanceProfileListAction", ["iam:ListInstanceProfiles"], "*"),
        _allow("AllowInstanceProfileReadActions", ["iam:GetInstanceProfile"], instance_profiles),
    )


def _allow(sid: str, actions: list[str], resource: str | list[str], **condition: dict[str, Any]) -> dict[str, Any]:
    """An Allow statement; each keyword is a condition operator, ``ForAllValues_X`` spelling ``ForAllValues:X``."""
    statement: dict[str, Any] = {"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": resource}
    if condition:
        statement["Condition"] = {operator.replace("_", ":"): keys for operator, keys in condition.items()}
    return statement


def interruption_queue_policy(queue_arn: str) -> dict[str, Any]:
    """Who may write to the interruption queue: EventBridge (and SQS) only, and never over plain HTTP."""
    return policy_document(
        {"Sid": "SqsWrite", "Effect": "Allow",
         "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
         "Action": "sqs:SendMessage", "Resource": queue_arn},
        {"Sid": "DenyHTTP", "Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": queue_arn,
         "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
        Id="EC2InterruptionPolicy")


def pod_identity_trust_policy() -> dict[str, Any]:
    """EKS Pod Identity: the agent assumes the role and tags the session with the pod's identity."""
    return policy_document({"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"},
                            "Action": ["sts:AssumeRole", "sts:TagSession"]})


def irsa_trust_policy(oidc_provider_arn: str, oidc_issuer: str) -> dict[str, Any]:
    """IRSA: only Karpenter's service account, with an STS audience, may assume the role via the OIDC provider.

    ``oidc_issuer`` is the issuer without ``https://`` (``oidc.eks.<region>.amazonaws.com/id/<id>``), as IAM
    condition keys spell it.
    """
    return policy_document({
        "Effect": "Allow",
        "Principal": {"Federated": oidc_provider_arn},
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {
            f"{oidc_issuer}:aud": "sts.amazonaws.com",
            f"{oidc_issuer}:sub": f"system:serviceaccount:{SERVICE_ACCOUNT_NAMESPACE}:{SERVICE_ACCOUNT_NAME}",
        }}})
