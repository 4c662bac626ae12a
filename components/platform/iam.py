"""IAM building blocks shared by the platform components: policy JSON from Outputs, trust policies, node roles.

Policy documents here are plain dicts whose leaves may be Outputs (ARNs, OIDC issuers); :func:`policy_json`
is the one place that turns such a document into the JSON string IAM expects, so no component hand-rolls
``Output.all(...).apply(json.dumps)`` twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_aws as aws

POLICY_VERSION = "2012-10-17"

# What every EC2 node of an EKS cluster needs (Karpenter's getting-started CloudFormation `KarpenterNodeRole`;
# the system node group uses the same set): join the cluster, run the VPC CNI, pull images, be reachable by
# SSM Session Manager instead of SSH.
EKS_NODE_MANAGED_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)


def policy_json(document: pulumi.Input[Mapping[str, Any]]) -> pulumi.Output[str]:
    """A policy document (leaves may be Outputs, even inside condition keys) as compact JSON.

    Compact because managed policies count characters against a 6,144-character quota.
    """
    return pulumi.Output.from_input(document).apply(
        lambda resolved: json.dumps(resolved, separators=(",", ":")))


def policy_document(*statements: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """A version-2012-10-17 document of ``statements`` (``extra`` adds top-level keys such as ``Id``)."""
    return {"Version": POLICY_VERSION, **extra, "Statement": list(statements)}


def service_trust_policy(service: str, actions: Sequence[str] = ("sts:AssumeRole",)) -> dict[str, Any]:
    """Trust policy letting an AWS service principal (``ec2.amazonaws.com``...) assume the role."""
    return policy_document({"Effect": "Allow", "Principal": {"Service": service}, "Action": list(actions)})


def managed_policy_arn(partition: pulumi.Input[str], policy_name: str) -> pulumi.Output[str]:
    """ARN of an AWS-managed policy in the caller's partition (``aws``, ``aws-cn``, ``aws-us-gov``)."""
    return pulumi.Output.concat("arn:", partition, ":iam::aws:policy/", policy_name)


def cluster_role_name(cluster_name: pulumi.Input[str], purpose: str) -> pulumi.Output[str]:
    """``<cluster>-<purpose>``: the name of a role that manifests name (EC2NodeClass ``spec.role``...).

    Such a role is named, not auto-named, so what ``prescale plan --out`` writes is the role ``pulumi up``
    makes (auto-naming appends a random suffix nobody can know in advance). IAM allows 64 characters; cluster
    names have at most 39, which leaves 24 for ``purpose``. IAM names are per account, not per region: two
    same-named clusters of one account cannot both have them (the second ``pulumi up`` fails, nothing is shared).
    """
    if len(purpose) > 24:
        raise ValueError(f"role purpose {purpose!r} is longer than 24 characters")
    return pulumi.Output.concat(cluster_name, "-", purpose)


def eks_node_role(resource_name: str, *, partition: pulumi.Input[str], description: str,
                  tags: Mapping[str, str], parent: pulumi.Resource, role_name: pulumi.Input[str] | None = None
                  ) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    """An EC2-assumable role with :data:`EKS_NODE_MANAGED_POLICIES` attached, auto-named unless ``role_name``.

    The attachments are returned so that whatever launches nodes can wait for them: a node that boots
    before its role may join the cluster never becomes Ready.
    """
    role = aws.iam.Role(
        resource_name,
        name=role_name,
        assume_role_policy=policy_json(service_trust_policy("ec2.amazonaws.com")),
        description=description,
        tags=dict(tags),
        opts=pulumi.ResourceOptions(parent=parent))
    attachments = [
        aws.iam.RolePolicyAttachment(
            f"{resource_name}-{policy}",
            role=role.name,
            policy_arn=managed_policy_arn(partition, policy),
            opts=pulumi.ResourceOptions(parent=parent))
        for policy in EKS_NODE_MANAGED_POLICIES]
    return role, attachments
