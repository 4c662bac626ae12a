"""Self-managed Karpenter: every AWS prerequisite upstream's install has, then its two Helm charts.

What it creates and why: docs/platform.md#karpenter-its-aws-side-and-its-charts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..contract import SystemPlacement
from ..model.checks.helm_values import (
    KARPENTER_CONTROLLER_REPLICAS,
    KARPENTER_CONTROLLER_RESOURCES,
    KARPENTER_DNS_POLICY,
)
from ..model.config import GATE_VALUES, FeatureGate, KarpenterConfig
from .helm import merged_values, pinned_release
from .iam import cluster_role_name, eks_node_role, policy_json
from .karpenter_policy import (
    SERVICE_ACCOUNT_NAME,
    SERVICE_ACCOUNT_NAMESPACE,
    controller_policy,
    interruption_queue_policy,
    irsa_trust_policy,
    pod_identity_trust_policy,
)

CHART_REPOSITORY = "oci://public.ecr.aws/karpenter"
RELEASE_NAME = "karpenter"
# Role names are `<cluster>-<purpose>`: EC2NodeClass.spec.role names the node role, and the IRSA annotation
# of Karpenter's service account the controller role.
NODE_ROLE_PURPOSE = "karpenter-node"
CONTROLLER_ROLE_PURPOSE = "karpenter-controller"
QUEUE_RETENTION_SECONDS = 300
QUEUE_TARGET_ID = "KarpenterInterruptionQueueTarget"

# rule name suffix → EventBridge event pattern, exactly upstream's `{"source": [...], "detail-type": [...]}`.
INTERRUPTION_EVENT_PATTERNS: Mapping[str, Mapping[str, list[str]]] = {
    "health": {"source": ["aws.health"], "detail-type": ["AWS Health Event"]},
    "spot-interruption": {"source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"]},
    "rebalance": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]},
    "state-change": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"]},
    "capacity-reservation": {"source": ["aws.ec2"],
                             "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"]},
}


@dataclass(frozen=True)
class KarpenterArgs:
    cluster_name: pulumi.Input[str]
    config: KarpenterConfig
    region: str
    kubernetes_provider: k8s.Provider
    placement: SystemPlacement
    # IRSA only: the cluster's IAM OIDC provider and its issuer without https://.
    oidc_provider_arn: pulumi.Input[str]
    oidc_issuer: pulumi.Input[str]
    # What the controller needs running before it can start (system nodes, pod identity agent...).
    cluster_ready: Sequence[pulumi.Resource]
    tags: Mapping[str, str]
    # The gates the stack's pools need (`prescale.model.strategies.feature_gates`), on in the chart's settings.
    feature_gates: Sequence[FeatureGate] = ()
    # Alerts read the controller's metrics: the chart's ServiceMonitor (for the Prometheus Operator) is created.
    scraped: bool = False


class Karpenter(pulumi.ComponentResource):
    """Karpenter's AWS prerequisites and its Helm releases (CRDs, then the controller)."""

    node_role_name: pulumi.Output[str]
    node_role_arn: pulumi.Output[str]
    controller_role_arn: pulumi.Output[str]
    queue_name: pulumi.Output[str]
    crd_release: k8s.helm.v3.Release
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: KarpenterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:Karpenter", name, {},
                         pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(
                             providers={"kubernetes": args.kubernetes_provider})))
        self._name, self._args = name, args
        invoke = pulumi.InvokeOutputOptions(parent=self)
        partition = aws.get_partition_output(opts=invoke).partition
        account_id = aws.get_caller_identity_output(opts=invoke).account_id
        tags = dict(args.tags)

        node_role_name, node_role_arn, node_access = self._node_role(partition, tags)
        queue, interruption = self._interruption_queue(tags)
        controller_role, controller_access = self._controller_role(tags)
        # The controller starts launching nodes as soon as it runs: they must be able to join by then.
        aws_prerequisites: list[pulumi.Resource] = [*node_access, *interruption, *controller_access]
        aws_prerequisites.append(aws.iam.RolePolicy(
            f"{name}-controller",
            role=controller_role.id,
            policy=policy_json(pulumi.Output.all(
                partition=partition, region=args.region, account_id=account_id, cluster_name=args.cluster_name,
                node_role_arn=node_role_arn, queue_arn=queue.arn).apply(lambda v: controller_policy(**v))),
            opts=self._child()))
        if args.config.create_spot_service_linked_role:
            # Account-wide and shared with every other Spot user: kept when this stack is destroyed.
            aws_prerequisites.append(aws.iam.ServiceLinkedRole(
                f"{name}-spot", aws_service_name="spot.amazonaws.com", tags=tags,
                opts=self._child(retain_on_delete=True)))

        self.crd_release = pinned_release(
            f"{name}-crd", chart=f"{CHART_REPOSITORY}/karpenter-crd", version=args.config.version,
            release_name=f"{RELEASE_NAME}-crd", namespace=SERVICE_ACCOUNT_NAMESPACE,
            # Uninstalling it would delete every NodePool and NodeClaim in the cluster, and so every Karpenter
            # node: a switch to `install: false` (or a destroy on an existing cluster) leaves the CRDs in place.
            opts=self._child(depends_on=list(args.cluster_ready), retain_on_delete=True))
        self.release = pinned_release(
            name, chart=f"{CHART_REPOSITORY}/karpenter", version=args.config.version,
            release_name=RELEASE_NAME, namespace=SERVICE_ACCOUNT_NAMESPACE, skip_crds=True,
            values=merged_values(controller_values(
                cluster_name=args.cluster_name, queue_name=queue.name, placement=args.placement,
                irsa_role_arn=controller_role.arn if args.config.controller_auth == "irsa" else None,
                feature_gates=args.feature_gates, scraped=args.scraped),
                args.config.values),
            opts=self._child(depends_on=[self.crd_release, *args.cluster_ready, *aws_prerequisites]))

        self.node_role_name = pulumi.Output.from_input(node_role_name)
        self.node_role_arn = node_role_arn
        self.controller_role_arn = controller_role.arn
        self.queue_name = queue.name
        self.register_outputs({"nodeRoleName": self.node_role_name, "nodeRoleArn": self.node_role_arn,
                               "controllerRoleArn": self.controller_role_arn, "queueName": self.queue_name,
                               "version": args.config.version})

    def _child(self, **options: Any) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, **options)

    def _node_role(self, partition: pulumi.Input[str], tags: dict[str, str]
                   ) -> tuple[pulumi.Input[str], pulumi.Output[str], list[pulumi.Resource]]:
        """The role Karpenter's instances run as (name, ARN) and what must exist before the controller starts.

        ``nodeRoleName`` from config reuses an existing role: its ARN is looked up for the controller's
        ``iam:PassRole`` and nothing is created for it (its instances must already be allowed to join the
        cluster, through an ``EC2_LINUX`` access entry, as they are when that role served a Karpenter here).
        """
        if self._args.config.node_role_name is not None:
            existing = aws.iam.get_role_output(name=self._args.config.node_role_name,
                                               opts=pulumi.InvokeOutputOptions(parent=self))
            return self._args.config.node_role_name, existing.arn, []
        role, policies = eks_node_role(
            f"{self._name}-node", role_name=cluster_role_name(self._args.cluster_name, NODE_ROLE_PURPOSE),
            partition=partition, tags=tags, parent=self, description="Nodes launched by Karpenter")
        access = aws.eks.AccessEntry(f"{self._name}-node", cluster_name=self._args.cluster_name,
                                     principal_arn=role.arn, type="EC2_LINUX", tags=tags, opts=self._child())
        return role.name, role.arn, [access, *policies]

    def _interruption_queue(self, tags: dict[str, str]) -> tuple[aws.sqs.Queue, list[pulumi.Resource]]:
        """The queue Karpenter polls for interruption events, and everything that lets events reach it."""
        queue = aws.sqs.Queue(f"{self._name}-interruption", message_retention_seconds=QUEUE_RETENTION_SECONDS,
                              sqs_managed_sse_enabled=True, tags=tags, opts=self._child())
        delivery: list[pulumi.Resource] = [aws.sqs.QueuePolicy(
            f"{self._name}-interruption", queue_url=queue.url,
            policy=policy_json(queue.arn.apply(interruption_queue_policy)), opts=self._child())]
        for suffix, pattern in INTERRUPTION_EVENT_PATTERNS.items():
            rule = aws.cloudwatch.EventRule(
                f"{self._name}-{suffix}", event_pattern=json.dumps(pattern), tags=tags, opts=self._child(),
                description=f"Karpenter interruption handling: {pattern['detail-type'][0]}")
            delivery.append(aws.cloudwatch.EventTarget(f"{self._name}-{suffix}", rule=rule.name, arn=queue.arn,
                                                       target_id=QUEUE_TARGET_ID, opts=self._child()))
        return queue, delivery

    def _controller_role(self, tags: dict[str, str]) -> tuple[aws.iam.Role, list[pulumi.Resource]]:
        """The controller's role, and what binds it to the ``kube-system/karpenter`` service account."""
        args = self._args
        trust: pulumi.Input[dict[str, Any]]
        if args.config.controller_auth == "irsa":
            trust = pulumi.Output.all(args.oidc_provider_arn, args.oidc_issuer).apply(
                lambda oidc: irsa_trust_policy(*oidc))
        else:
            trust = pod_identity_trust_policy()
        role = aws.iam.Role(f"{self._name}-controller",
                            name=cluster_role_name(args.cluster_name, CONTROLLER_ROLE_PURPOSE),
                            assume_role_policy=policy_json(trust),
                            description="Karpenter controller", tags=tags, opts=self._child())
        if args.config.controller_auth == "irsa":
            return role, []  # the binding is the service-account annotation in the Helm values
        association = aws.eks.PodIdentityAssociation(
            f"{self._name}-controller", cluster_name=args.cluster_name, namespace=SERVICE_ACCOUNT_NAMESPACE,
            service_account=SERVICE_ACCOUNT_NAME, role_arn=role.arn, tags=tags, opts=self._child())
        return role, [association]


def controller_values(*, cluster_name: pulumi.Input[str], queue_name: pulumi.Input[str],
                      placement: SystemPlacement, irsa_role_arn: pulumi.Input[str] | None,
                      feature_gates: Sequence[FeatureGate] = (), scraped: bool = False) -> dict[str, Any]:
    """Helm values of the ``karpenter`` chart.

    The chart's default affinity is kept on purpose: it keeps the controller off nodes Karpenter launched
    (``karpenter.sh/nodepool DoesNotExist``) and its two replicas on different hosts. ``dnsPolicy: Default``
    lets the controller resolve AWS endpoints even while CoreDNS has nowhere to run (upstream's advice).
    ``feature_gates`` are turned on (``settings.featureGates``, the chart's ``FEATURE_GATES``) and the others left as
    the chart ships them: off, for the alpha gates the strategies need (docs/capacity.md, "Strategies").
    ``scraped``: the chart's ServiceMonitor, so that the alert rules that read Karpenter's metrics have them.
    """
    service_account: dict[str, Any] = {"name": SERVICE_ACCOUNT_NAME}
    if irsa_role_arn is not None:
        service_account["annotations"] = {"eks.amazonaws.com/role-arn": irsa_role_arn}
    settings: dict[str, Any] = {"clusterName": cluster_name, "interruptionQueue": queue_name}
    if feature_gates:
        settings["featureGates"] = {GATE_VALUES[gate]: True for gate in feature_gates}
    return {
        "settings": settings,
        "serviceAccount": service_account,
        "replicas": KARPENTER_CONTROLLER_REPLICAS,
        # Requests equal limits (Guaranteed QoS), as upstream's install sets them.
        "controller": {"resources": {"requests": dict(KARPENTER_CONTROLLER_RESOURCES),
                                     "limits": dict(KARPENTER_CONTROLLER_RESOURCES)}},
        "nodeSelector": {"kubernetes.io/os": "linux", **placement.node_selector},
        "tolerations": [dict(toleration) for toleration in placement.tolerations],
        "dnsPolicy": KARPENTER_DNS_POLICY,
        **({"serviceMonitor": {"enabled": True}} if scraped else {}),
    }
