"""``prescale:cluster``, ``prescale:karpenter`` and ``prescale:keda``: the cluster and the add-ons prescale installs or
finds.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BeforeValidator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .base import Model, Version, _Checked, _distinct, _fail, _left_out, _list_as_tuple, _shaped


class SystemNodeGroupConfig(Model):
    """The small managed node group that runs Karpenter, KEDA and CoreDNS (never Karpenter's own nodes)."""

    instance_types: list[Annotated[StrictStr, _shaped(r"[a-z][a-z0-9-]*\.[a-z0-9]+",
                                                      'an EC2 instance type like "m7i.large" (lowercase)')]] = Field(
        default=["m7i.large"], min_length=1, description=(
            "EC2 instance types of the system node group, the managed node group that runs Karpenter, KEDA and "
            "CoreDNS (never event capacity); a new VPC only uses zones that offer one of them "
            "(docs/platform.md#what-gets-created-prescaleclustercreate-true-the-default)."))
    min_size: StrictInt = Field(default=2, ge=2, description=(
        "Fewest system nodes, at least 2: Karpenter's and KEDA's two replicas each need two nodes; minSize <= "
        "desiredSize <= maxSize."))
    desired_size: StrictInt = Field(default=2, ge=2, description="System nodes to start with, from minSize to maxSize.")
    max_size: StrictInt = Field(default=3, ge=2, description="Most system nodes, at least desiredSize.")
    disk_size_gib: StrictInt = Field(default=50, ge=20, le=16384, description=(
        "Root volume of each system node, in GiB (20 to 16384)."))

    @model_validator(mode="after")
    def _sizes_ordered(self) -> Self:
        if not self.min_size <= self.desired_size <= self.max_size:
            raise _fail("model", f"sizes must satisfy minSize ({self.min_size}) <= desiredSize "
                                 f"({self.desired_size}) <= maxSize ({self.max_size})")
        return self


def _cidr(value: str) -> str:
    try:
        ipaddress.ip_network(value)
    except ValueError:
        try:
            block = ipaddress.ip_network(value, strict=False)
        except ValueError:
            raise _fail("cidr", "must be an IPv4 or IPv6 CIDR block like \"10.0.0.0/16\"") from None
        raise _fail("cidr", f"has host bits set: a CIDR block starts at its network address; allowed: "
                            f"\"{block}\", the block {value} is in") from None
    return value


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
# What the editors' schema can say of a CIDR block: an IPv4 one with a prefix up to 32, or an IPv6 one (its address
# loosely) up to 128; host bits stay the check's.
_CIDR_PATTERN = (rf"^(?:(?:{_OCTET}\.){{3}}{_OCTET}/(?:3[0-2]|[12]?\d)"
                 r"|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*/(?:12[0-8]|1[01]\d|[1-9]?\d))$")
Cidr = Annotated[StrictStr, _Checked(_cidr, pattern=_CIDR_PATTERN,
                                     patternErrorMessage='must be an IPv4 or IPv6 CIDR block like "10.0.0.0/16": '
                                                         "a prefix of at most 32 bits (IPv4) or 128 (IPv6)")]
SubnetId = Annotated[StrictStr, _shaped(r"subnet-[0-9a-f]{8,17}",
                                        'a subnet id like "subnet-0123456789abcdef0" (8 to 17 hex digits)')]


class ClusterConfig(Model):
    """``prescale:cluster``: a new EKS cluster (``create: true``) or an existing one looked up by name."""

    name: Annotated[StrictStr, _shaped(r"[A-Za-z][A-Za-z0-9-]{0,37}[A-Za-z0-9]",
                                       'a cluster name like "prescale-prod": 2 to 39 letters, digits and \'-\', '
                                       "starting with a letter and ending with a letter or digit")] = Field(
        description="The EKS cluster's name: the cluster prescale creates, or with create: false the existing one it "
                    "looks up in the stack's region.")
    create: StrictBool = Field(default=True, description=(
        "true: prescale creates the cluster, its VPC (unless vpcId is given) and its system node group. false: an "
        "existing cluster is looked up by name and used as it is, and the keys that only shape a new cluster are "
        "refused (docs/platform.md#using-an-existing-cluster-prescaleclustercreate-false)."))
    kubernetes_version: Annotated[StrictStr, _shaped(r"1\.3[0-6]", 'a Kubernetes version that Karpenter 1.14 '
                                                     'supports, "1.30" to "1.36", in quotes (e.g. "1.35")')] = Field(
        default="1.35", description=(
            'Kubernetes version of a new cluster, in quotes: "1.30" to "1.36", the versions Karpenter 1.14 supports. '
            "The default is the newest version KEDA 2.20 is tested on (1.33 to 1.35) and the default failsafe "
            "kubectl 1.34 supports (one minor either way), in EKS standard support until 2027-03-27. prescale warns "
            "from 90 days before AWS would upgrade it (docs/platform.md#upgrading-kubernetes)."))
    support_type: Literal["STANDARD", "EXTENDED"] = Field(default="STANDARD", description=(
        "EKS upgrade policy of a new cluster: STANDARD lets AWS upgrade the control plane when standard support "
        "ends; EXTENDED keeps the version 12 months longer at extra cost per cluster hour "
        "(docs/platform.md#upgrading-kubernetes)."))
    vpc_id: Annotated[StrictStr, _shaped(r"vpc-[0-9a-f]{8,17}",
                                         'a VPC id like "vpc-0123456789abcdef0" (8 to 17 hex digits)')] | None = Field(
        default=None, description=("An existing VPC for a new cluster, given together with privateSubnetIds. "
                                   "Unset: prescale creates a VPC from vpcCidr."))
    private_subnet_ids: list[SubnetId] | None = Field(default=None, min_length=2, description=(
        "The existing VPC's private subnets, at least 2 over at least 2 zones: the cluster, the system node group "
        "and Karpenter's nodes use them, and they get the karpenter.sh/discovery tag. Goes with vpcId."))
    public_subnet_ids: list[SubnetId] | None = Field(default=None, description=(
        "The existing VPC's public subnets, handed to the cluster beside the private ones (no node runs there); "
        "needs vpcId and privateSubnetIds."))
    vpc_cidr: Cidr = Field(default="10.0.0.0/16", description=(
        'IPv4 or IPv6 CIDR block of a new VPC, like "10.0.0.0/16": split into one private and one public subnet '
        "per zone; its private subnets must hold the addresses of the windows' nodes (docs/capacity.md#addresses)."))
    availability_zones: StrictInt = Field(default=3, ge=2, le=6, description=(
        "Zones of a new VPC (2 to 6), taken in name order among those where EKS places control planes and that "
        "offer a systemNodeGroup instance type."))
    nat_gateways: Literal["single", "onePerAz"] = Field(default="single", description=(
        "NAT gateways of a new VPC: single (cheaper) or onePerAz (each zone keeps its way out if another zone "
        "fails; docs/platform.md#what-it-costs-to-run)."))
    endpoint_public_access: StrictBool = Field(default=True, description=(
        "Whether the EKS API endpoint is reachable from the internet (from publicAccessCidrs); turn it off or limit "
        "publicAccessCidrs in production."))
    public_access_cidrs: list[Cidr] = Field(default=["0.0.0.0/0"], min_length=1, description=(
        "CIDR blocks that may reach the public API endpoint. A list without 0.0.0.0/0 needs "
        "endpointPrivateAccess: true, or the nodes could not reach the API."))
    endpoint_private_access: StrictBool = Field(default=True, description=(
        "Whether the EKS API endpoint is reachable from inside the VPC (the nodes use it)."))
    system_node_group: SystemNodeGroupConfig = Field(default=SystemNodeGroupConfig(), description=(
        "The managed node group for Karpenter, KEDA and CoreDNS (at least 2 nodes, tainted CriticalAddonsOnly); "
        "refused with autoMode: true, where Auto Mode's own system pool runs them."))
    admin_role_arns: list[Annotated[StrictStr, _shaped(
        r"arn:aws[a-z-]*:iam::[0-9]{12}:role/.+",
        'an IAM role ARN like "arn:aws:iam::123456789012:role/platform-admin"')]] = Field(default=[], description=(
            "IAM roles granted cluster-admin access entries. Not the role that creates the cluster: it is admin "
            "already, and a second entry would fail (refused at preview)."))
    auto_mode: StrictBool = Field(default=False, description=(
        "EKS Auto Mode, for a new or an existing cluster: AWS runs Karpenter and the add-ons' nodes, so prescale "
        "installs no Karpenter and its pools become Auto Mode NodePools on a NodeClass; refuses prescale:karpenter, "
        "amiAlias, systemNodeGroup and expireAfter: Never (docs/auto-mode.md)."))

    @model_validator(mode="after")
    def _network_fields_consistent(self, info: ValidationInfo) -> Self:
        network_known = not _left_out(info, "vpc_id", "private_subnet_ids")
        if network_known and (self.vpc_id is None) != (self.private_subnet_ids is None):
            raise _fail("model", "vpcId and privateSubnetIds go together: give both to use an existing VPC, "
                               "or neither to create one")
        if network_known and self.public_subnet_ids is not None and self.vpc_id is None:
            raise _fail("model", "publicSubnetIds needs vpcId and privateSubnetIds")
        if not self.create:
            # An existing cluster brings its own network and node groups; settings that only shape a new
            # cluster would be silently ignored, so they are refused instead.
            new_only = {"vpcId", "privateSubnetIds", "publicSubnetIds", "vpcCidr", "availabilityZones",
                        "natGateways", "systemNodeGroup", "kubernetesVersion", "supportType", "endpointPublicAccess",
                        "publicAccessCidrs", "endpointPrivateAccess", "adminRoleArns"}
            given = sorted(new_only & self.written_keys())
            if given:
                raise _fail("model", f"{', '.join(given)} appl{'y' if len(given) > 1 else 'ies'} only when create is "
                                     "true; an existing cluster is used as it is")
        if self.auto_mode and "system_node_group" in self.model_fields_set:
            raise _fail("model", "systemNodeGroup does not apply with autoMode: true; Auto Mode's built-in "
                                 "system node pool runs the add-ons, KEDA and CoreDNS (docs/auto-mode.md)")
        return self


IamRoleName = Annotated[StrictStr, _shaped(r"[\w+=,.@-]{1,64}", 'an IAM role name (not an ARN) of at most 64 '
                                                               'characters like "KarpenterNodeRole-shop"')]


# Karpenter minor releases whose controller IAM policy prescale carries (prescale.platform.karpenter_policy, written
# from that release's CloudFormation). A patch release keeps its minor's policy; another minor may need
# permissions this one lacks, and a controller missing one fails at run time, mid-launch. Add a minor here
# only together with its policy.
KARPENTER_POLICY_MINORS = ("1.14",)


def karpenter_policy_problem(version: str) -> str | None:
    """Why prescale cannot install Karpenter ``version`` with a controller policy it carries; None if it can.

    Only for a Karpenter that prescale installs: one already running brings its own policy.
    """
    if ".".join(version.split(".")[:2]) in KARPENTER_POLICY_MINORS:
        return None
    allowed = " or ".join(f'"{minor}.x" (patch releases of {minor})' for minor in KARPENTER_POLICY_MINORS)
    return (f"must be {allowed}: prescale carries Karpenter's controller IAM policy for those releases only, "
            "and another release may need permissions that policy lacks")


# Keys that only shape a Karpenter prescale installs (refused beside install: false, prescale.model.checks.stack).
KARPENTER_INSTALL_KEYS = ("version", "controller_auth", "create_spot_service_linked_role", "values")

# Karpenter's feature gates (kubernetes-sigs/karpenter v1.14.1, pkg/operator/options/options.go `FeatureGates`); the
# two some strategies need (`Strategy.gate`), and the chart values that turn them on (settings.featureGates.<key>).
FeatureGate = Literal["NodeRepair", "ReservedCapacity", "SpotToSpotConsolidation", "NodeOverlay", "StaticCapacity",
                      "CapacityBuffer"]
GATE_VALUES: dict[FeatureGate, str] = {"StaticCapacity": "staticCapacity", "CapacityBuffer": "capacityBuffer"}


class KarpenterConfig(Model):
    """``prescale:karpenter``: whether prescale installs Karpenter, its version, how the controller gets AWS
    credentials, and the node role EC2NodeClasses name.

    ``install: false`` means a Karpenter (v1 API, ≥ 1.0) already runs in the cluster: prescale then adds only
    NodePools/EC2NodeClasses and needs ``nodeRoleName``, the role that Karpenter may pass to its instances.
    """

    install: StrictBool = Field(default=True, description=(
        "false: a Karpenter of the v1 API (1.0 or newer) already runs in the existing cluster (create: false; a "
        "new cluster has none), and prescale installs none of it: no chart, IAM, queue or rules, only the "
        "NodePools and EC2NodeClasses (docs/adoption.md#bring-your-own-karpenter-karpenterinstall-false)."))
    version: Version = Field(default="1.14.1", description=(
        "Version of the Karpenter chart and controller prescale installs, exact: a 1.14.x release, the ones whose "
        "controller IAM policy prescale carries (another release may need permissions that policy lacks)."))
    controller_auth: Literal["podIdentity", "irsa"] = Field(default="podIdentity", description=(
        "How Karpenter's controller gets AWS credentials: EKS Pod Identity (an existing cluster needs the "
        "eks-pod-identity-agent add-on) or IRSA (it needs an IAM OIDC provider)."))
    create_spot_service_linked_role: StrictBool = Field(default=False, description=(
        "Create the account's AWSServiceRoleForEC2Spot, which Karpenter needs to launch spot instances; creating "
        "it fails where the account already has it (docs/platform.md)."))
    node_role_name: IamRoleName | None = Field(default=None, description=(
        "An existing IAM role (its name, not its ARN) for the nodes of the EC2NodeClasses prescale creates. "
        "Required with install: false while a pool needs an EC2NodeClass (your Karpenter's node role: upstream's "
        "controller policy passes only that one); with install: true it replaces the node role prescale creates."))
    values: dict[StrictStr, Any] = Field(default={}, description=(
        "Helm values for the karpenter chart prescale installs, deep-merged over the values prescale renders (maps "
        "merge, lists and scalars replace); keys prescale owns (settings.clusterName, serviceAccount, the system "
        "placement...) and keys the chart does not know are refused (docs/platform.md#helm-values)."))
    feature_gates: Annotated[tuple[FeatureGate, ...], BeforeValidator(_list_as_tuple),
                             _Checked(_distinct, uniqueItems=True)] = Field(default=(), description=(
        "With install: false, the feature gates your Karpenter runs with turned on (its FEATURE_GATES, e.g. "
        "[StaticCapacity, CapacityBuffer]): a pool with strategy static needs StaticCapacity, one with buffer "
        "CapacityBuffer. With install: true prescale turns on the gates its pools need itself, so the key is "
        "refused there (docs/capacity.md#strategies)."))

    @field_validator("version")
    @classmethod
    def _v1_api(cls, value: str) -> str:
        if int(value.split(".")[0]) < 1:
            raise _fail("version", "must be 1.0.0 or newer: prescale declares karpenter.sh/v1 resources")
        return value

    @field_validator("version")
    @classmethod
    def _policy_carried(cls, value: str, info: ValidationInfo) -> str:
        installed = info.data.get("install", True) and not _left_out(info, "install")
        problem = karpenter_policy_problem(value) if installed else None
        if problem:
            raise _fail("version", problem)
        return value


class KedaConfig(Model):
    """``prescale:keda``: whether prescale installs KEDA, and the version of the KEDA that runs the triggers.

    With ``install: true`` the version is the chart prescale installs; with ``install: false`` it is the version
    of the KEDA already in the cluster, so the checks that depend on it (cron commas before 2.20) hold.
    """

    install: StrictBool = Field(default=True, description=(
        "false: a KEDA already runs in the cluster (watching namespace prescale) and no release is installed; "
        "then version is required (docs/adoption.md#bring-your-own-keda-kedainstall-false)."))
    version: Version = Field(default="2.20.2", description=(
        "Version of the KEDA chart prescale installs or, with install: false, of the KEDA that runs; exact and "
        "2.18.0 or newer (older cron scalers report 1 replica outside windows, kedacore/keda#6886). Below 2.20.0, "
        "crons with commas are refused (kedacore/keda#7448)."))
    values: dict[StrictStr, Any] = Field(default={}, description=(
        "Helm values for the keda chart prescale installs, deep-merged over the values prescale renders (maps "
        "merge, lists and scalars replace); keys prescale owns (replicas, budgets, spread, priority, the system "
        "placement...) and keys the chart does not know are refused (docs/platform.md#helm-values)."))

    @field_validator("version")
    @classmethod
    def _metric_zero_when_inactive(cls, value: str) -> str:
        major, minor, _ = (int(p) for p in value.split("."))
        if (major, minor) < (2, 18):
            raise _fail("version", "must be 2.18.0 or newer: older cron scalers report 1 replica outside "
                                   "windows (kedacore/keda#6886), so placeholders would never reach zero")
        return value

    @property
    def cron_commas_work(self) -> bool:
        """KEDA before 2.20.0 builds an invalid metric name from a comma in a cron (kedacore/keda#7448)."""
        major, minor, _ = (int(p) for p in self.version.split("."))
        return (major, minor) >= (2, 20)
