"""Typed Karpenter, EKS Auto Mode, KEDA and Prometheus Operator custom resources: ``NodePool``,
``EC2NodeClass``, ``NodeClass``, ``CapacityBuffer``, ``ScaledObject`` and ``PrometheusRule``.

pulumi-kubernetes ships no classes for these CRDs, and a bare ``CustomResource`` accepts any dict, so a misspelt
field would only surface when the API server (or the controller) rejects it. These ``TypedDict``s mirror the
upstream schemas with the CRDs' own camelCase keys, so a type checker catches typos and the dicts go to the wire
unchanged; the tests validate every object against the upstream CRDs (schema and CEL rules; Auto Mode's
``NodeClass`` against the schema recorded in ``tests/crds/eks/``, as AWS publishes no CRD). Only the served
versions (``karpenter.sh/v1``, ``karpenter.k8s.aws/v1``, ``eks.amazonaws.com/v1``, ``autoscaling.x-k8s.io/v1beta1``,
``keda.sh/v1alpha1``, ``monitoring.coreos.com/v1``; Karpenter removed ``v1beta1`` in 1.0) and only the fields
prescale sets are typed.
"""

from __future__ import annotations

from typing import Generic, Literal, NotRequired, TypedDict, TypeVar

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

from .alert_rules import RuleGroup  # its groups' and rules' shapes live with the rules, which load no Pulumi

# --- shared --------------------------------------------------------------------------------------------


class ObjectMeta(TypedDict):
    """The metadata prescale sets: a fixed name (never auto-named), labels, and a namespace when namespaced."""

    name: str
    namespace: NotRequired[pulumi.Input[str]]
    labels: NotRequired[dict[str, str]]


TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class Taint(TypedDict):
    key: str
    effect: TaintEffect
    # Omitted for value-less taints: the NodePool schema's value pattern refuses "".
    value: NotRequired[str]


Spec = TypeVar("Spec")  # a kind's own spec TypedDict, so each kind is built from exactly its shape


class _ClusterScoped(CustomResource, Generic[Spec]):
    """A custom resource of a cluster-scoped kind: its ``API_VERSION``/``KIND`` from the subclass, no namespace."""

    API_VERSION: str
    KIND: str

    def __init__(self, resource_name: str, metadata: ObjectMeta, spec: Spec,
                 opts: pulumi.ResourceOptions | None = None):
        # Refuse a namespace rather than let the provider or the API server guess what was meant.
        if "namespace" in metadata:
            raise ValueError(f"{metadata['name']!r} is cluster-scoped and cannot have a namespace")
        super().__init__(resource_name, api_version=self.API_VERSION, kind=self.KIND,
                         metadata=metadata, spec=spec, opts=opts)


class _Namespaced(CustomResource, Generic[Spec]):
    """A custom resource of a namespaced kind: its ``API_VERSION``/``KIND`` from the subclass, a namespace required."""

    API_VERSION: str
    KIND: str

    def __init__(self, resource_name: str, metadata: ObjectMeta, spec: Spec,
                 opts: pulumi.ResourceOptions | None = None):
        if "namespace" not in metadata:
            raise ValueError(f"{self.KIND} {metadata['name']!r} needs a namespace: it is a namespaced resource")
        super().__init__(resource_name, api_version=self.API_VERSION, kind=self.KIND,
                         metadata=metadata, spec=spec, opts=opts)


# --- karpenter.sh/v1 NodePool --------------------------------------------------------------------------

RequirementOperator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"]


class NodeSelectorRequirement(TypedDict):
    """A constraint on the instances Karpenter may launch (a well-known label and allowed values)."""

    key: str
    operator: RequirementOperator
    values: NotRequired[list[str]]
    minValues: NotRequired[int]


DisruptionReason = Literal["Underutilized", "Empty", "Drifted"]


class Budget(TypedDict):
    """How many nodes Karpenter may disrupt voluntarily; with ``schedule`` only while that (UTC) cron is active."""

    nodes: str  # a count ("0") or a percentage ("10%")
    schedule: NotRequired[str]  # always UTC: Karpenter budgets have no time zone
    duration: NotRequired[str]  # hours and minutes only ("3h15m"), required with schedule
    reasons: NotRequired[list[DisruptionReason]]


class Disruption(TypedDict):
    # Both ignored on a static NodePool (replicas set); consolidateAfter is still required beside budgets.
    consolidationPolicy: NotRequired[Literal["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]]
    consolidateAfter: str
    budgets: list[Budget]  # at most 50


class NodeClassReference(TypedDict):
    group: str
    kind: str
    name: str


class NodeClaimTemplateSpec(TypedDict):
    nodeClassRef: NodeClassReference
    requirements: list[NodeSelectorRequirement]
    taints: NotRequired[list[Taint]]
    expireAfter: NotRequired[str]  # a duration or "Never"
    terminationGracePeriod: NotRequired[str]


class NodeClaimTemplateMetadata(TypedDict):
    labels: NotRequired[dict[str, str]]


class NodeClaimTemplate(TypedDict):
    metadata: NotRequired[NodeClaimTemplateMetadata]
    spec: NodeClaimTemplateSpec


class NodePoolSpec(TypedDict):
    template: NodeClaimTemplate
    disruption: NotRequired[Disruption]
    limits: NotRequired[dict[str, str]]  # resource name → quantity ("cpu": "512", "memory": "2048Gi")
    weight: NotRequired[int]  # not on a static NodePool (CEL)
    # Set: a static NodePool of exactly this many nodes, with only `limits.nodes` (CEL); never added or removed later.
    replicas: NotRequired[int]


class NodePool(_ClusterScoped[NodePoolSpec]):
    """A ``karpenter.sh/v1`` NodePool: which nodes Karpenter may launch for pending pods, and when it may remove them.

    Cluster-scoped, so it never carries a namespace.
    """

    API_VERSION = "karpenter.sh/v1"
    KIND = "NodePool"


# --- karpenter.k8s.aws/v1 EC2NodeClass -----------------------------------------------------------------


class AmiSelectorTerm(TypedDict):
    alias: str  # "family@version", e.g. "al2023@v20260828"; must be the only term


class SelectorTerm(TypedDict, total=False):
    """Subnets or security groups by ``tags`` (all must match), ``id`` or (security groups only) ``name``: one of
    them per term; terms are ORed."""

    tags: dict[str, pulumi.Input[str]]  # the discovery tag's value is the cluster's name, maybe an output
    id: str
    name: str


class MetadataOptions(TypedDict):
    httpEndpoint: Literal["enabled", "disabled"]
    httpProtocolIPv6: Literal["enabled", "disabled"]
    httpPutResponseHopLimit: int
    httpTokens: Literal["required", "optional"]


class EbsVolume(TypedDict):
    # "20Gi"; the CRD wants it or snapshotID: from a snapshot, unset takes the snapshot's size (never too small)
    volumeSize: NotRequired[str]
    volumeType: Literal["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"]
    encrypted: NotRequired[bool]  # not with snapshotID: a volume made from a snapshot has the snapshot's encryption
    deleteOnTermination: bool
    snapshotID: NotRequired[str]
    volumeInitializationRate: NotRequired[int]  # MiB/s, 100 to 300, only with snapshotID


class BlockDeviceMapping(TypedDict):
    deviceName: str
    ebs: EbsVolume
    rootVolume: NotRequired[bool]


class CapacityReservationSelectorTerm(TypedDict, total=False):
    """Reservations by ``id`` alone, or by ``tags`` (``*``: any value) and the owning account ``ownerID``
    (``owner`` in an Auto Mode NodeClass); terms are ORed."""

    id: pulumi.Input[str]  # "cr-…" (a reservation the program creates: its output)
    tags: dict[str, str]
    ownerID: str  # 12 digits
    owner: str


class EC2NodeClassSpec(TypedDict):
    role: pulumi.Input[str]  # the node IAM role's name; Karpenter manages the instance profile
    amiSelectorTerms: list[AmiSelectorTerm]
    subnetSelectorTerms: list[SelectorTerm]
    securityGroupSelectorTerms: list[SelectorTerm]
    metadataOptions: MetadataOptions
    blockDeviceMappings: list[BlockDeviceMapping]
    tags: NotRequired[dict[str, str]]
    # At most 30; Karpenter launches `reserved` capacity only into these (never open-matches a reservation).
    capacityReservationSelectorTerms: NotRequired[list[CapacityReservationSelectorTerm]]


class EC2NodeClass(_ClusterScoped[EC2NodeClassSpec]):
    """A ``karpenter.k8s.aws/v1`` EC2NodeClass: the AMI, IAM role, network and disks of a NodePool's instances.

    Cluster-scoped, so it never carries a namespace.
    """

    API_VERSION = "karpenter.k8s.aws/v1"
    KIND = "EC2NodeClass"


# --- eks.amazonaws.com/v1 NodeClass (EKS Auto Mode) ----------------------------------------------------


class NodeClassSpec(TypedDict):
    """What prescale sets of an Auto Mode NodeClass: no AMI, disks or metadata options (AWS owns those), and
    no ``tags`` (Auto Mode's managed policies do not allow user-defined tags on the instances it launches)."""

    role: pulumi.Input[str]  # the node IAM role's name (not ARN), at most 64 characters
    subnetSelectorTerms: list[SelectorTerm]
    securityGroupSelectorTerms: list[SelectorTerm]
    capacityReservationSelectorTerms: NotRequired[list[CapacityReservationSelectorTerm]]  # `owner`, not `ownerID`


class NodeClass(_ClusterScoped[NodeClassSpec]):
    """An ``eks.amazonaws.com/v1`` NodeClass: the IAM role and network of the nodes EKS Auto Mode launches.

    Cluster-scoped, so it never carries a namespace; AWS reserves the name ``default`` for its built-in one.
    """

    API_VERSION = "eks.amazonaws.com/v1"
    KIND = "NodeClass"

    def __init__(self, resource_name: str, metadata: ObjectMeta, spec: NodeClassSpec,
                 opts: pulumi.ResourceOptions | None = None):
        if metadata["name"] == "default":
            raise ValueError("NodeClass 'default' is EKS Auto Mode's built-in one and cannot be declared")
        super().__init__(resource_name, metadata, spec, opts)


# --- autoscaling.x-k8s.io/v1beta1 CapacityBuffer ------------------------------------------------------


class LocalObjectReference(TypedDict):
    name: str


class CapacityBufferSpec(TypedDict):
    """A buffer of ``replicas`` chunks, each shaped like the pod of the PodTemplate ``podTemplateRef`` names (in the
    buffer's namespace); with a template the CRD's CEL needs ``replicas`` or ``limits``."""

    podTemplateRef: LocalObjectReference
    replicas: int


class CapacityBuffer(_Namespaced[CapacityBufferSpec]):
    """An ``autoscaling.x-k8s.io/v1beta1`` CapacityBuffer: Karpenter (gate ``CapacityBuffer``) provisions room for
    ``replicas`` virtual pods of its template, which real pods then take.

    Namespaced; it has no scale subresource (only status), so a driver patches ``spec.replicas`` itself.
    """

    API_VERSION = "autoscaling.x-k8s.io/v1beta1"
    KIND = "CapacityBuffer"


# --- keda.sh/v1alpha1 ScaledObject ---------------------------------------------------------------------


class ScaleTargetRef(TypedDict):
    apiVersion: str
    kind: str
    name: str


class CronTriggerMetadata(TypedDict):
    """KEDA's cron scaler: ``desiredReplicas`` from ``start`` (inclusive) to ``end`` (exclusive) in ``timezone``."""

    timezone: str  # IANA zone
    start: str  # 5-field cron, robfig dialect
    end: str
    desiredReplicas: str  # KEDA reads every trigger metadata value as a string


class CronTrigger(TypedDict):
    # No metricType: the cron scaler must keep its AverageValue target (kedacore/keda#3591).
    type: Literal["cron"]
    name: NotRequired[str]
    metadata: CronTriggerMetadata


class ScaledObjectSpec(TypedDict):
    scaleTargetRef: ScaleTargetRef
    idleReplicaCount: int  # KEDA's webhook: idle < min ≤ max
    minReplicaCount: int
    maxReplicaCount: int
    pollingInterval: int
    cooldownPeriod: int
    initialCooldownPeriod: int
    triggers: list[CronTrigger]


class ScaledObject(_Namespaced[ScaledObjectSpec]):
    """A ``keda.sh/v1alpha1`` ScaledObject: KEDA scales ``scaleTargetRef`` from its triggers through an HPA.

    Its name must stay within 54 characters: KEDA names the HPA ``keda-hpa-<name>`` (a 63-character limit),
    and its admission webhook refuses longer names.
    """

    API_VERSION = "keda.sh/v1alpha1"
    KIND = "ScaledObject"
    MAX_NAME_LENGTH = 54

    def __init__(self, resource_name: str, metadata: ObjectMeta, spec: ScaledObjectSpec,
                 opts: pulumi.ResourceOptions | None = None):
        if len(metadata["name"]) > self.MAX_NAME_LENGTH:
            raise ValueError(f"ScaledObject name {metadata['name']!r} is longer than {self.MAX_NAME_LENGTH} "
                             "characters; KEDA's HPA name keda-hpa-<name> would exceed 63")
        super().__init__(resource_name, metadata, spec, opts)


# --- monitoring.coreos.com/v1 PrometheusRule -----------------------------------------------------------


class PrometheusRuleSpec(TypedDict):
    groups: list[RuleGroup]


class PrometheusRule(_Namespaced[PrometheusRuleSpec]):
    """A ``monitoring.coreos.com/v1`` PrometheusRule: rule groups the Prometheus Operator loads into each Prometheus
    whose ``ruleSelector`` and ``ruleNamespaceSelector`` select it."""

    API_VERSION = "monitoring.coreos.com/v1"
    KIND = "PrometheusRule"

