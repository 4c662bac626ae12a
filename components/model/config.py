"""The stack config model: what users write in ``Pulumi.<stack>.yaml``, as typed, immutable models.

Each model checks its own values; :func:`prescale.model.validation.load_stack_config` is the door that
runs them and the cross-key rules together and reports every problem at once.

Models are strict (no ``"5"`` for ``5``, no ``yes`` for ``true``) and forbid unknown keys, so typos fail
loudly instead of silently falling back to defaults.

Every field's ``description`` is written for the user of the stack file: the config reference (docs/config.md)
and the editors' JSON Schema (``prescale schema``, :mod:`.config_schema`) are generated from it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from .fleet.labels import CAPACITY_TYPE, CAPACITY_TYPES, OS, key_problem
from .fleet.quantity import ALLOWED as QUANTITY_ALLOWED
from .fleet.quantity import MEMORY_PATTERN, memory_problem, parse_quantity
from .fleet.quantity import PATTERN as QUANTITY_PATTERN
from .fleet.quota_families import QuotaFamily
from .schedule.cron import CronError, parse_cron
from .schedule.duration import ALLOWED as DURATION_ALLOWED
from .schedule.duration import PATTERN as DURATION_PATTERN
from .schedule.duration import format_duration, parse_duration, shorter_than
from .schedule.keda import Occurrence, one_off_occurrence
from .schedule.time_zones import time_zone_problem

CONFIG_NAMESPACE = "prescale"
# The validation context of a refused map validated again without its refused keys (prescale.model.validation):
# the fields left out. A rule across keys of one map skips when one of its keys is among them.
SALVAGE_CONTEXT = "refused"


def _fail(kind: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(kind, message)


# --- scalar types -----------------------------------------------------------------------------------

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


class _Checked:
    """A check of a value (``check`` returns it or raises the refusal), and what JSON Schema can say of it
    (``facts``, such as a pattern) for the editors' schema (:mod:`.config_schema`). The check stays the validator:
    the facts only let an editor flag what they can express."""

    def __init__(self, check: Callable[[Any], Any], **facts: Any):
        self.check, self.facts = check, facts

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {**handler(schema), **self.facts}


def _dns_label(max_length: int) -> _Checked:
    def check(value: str) -> str:
        if not _DNS_LABEL.match(value) or len(value) > max_length:
            raise _fail("dns_label", f"must be a DNS-1123 label: lowercase letters, digits and '-', starting "
                                     f"and ending with a letter or digit, at most {max_length} characters")
        return value
    return _Checked(check, pattern=_DNS_LABEL.pattern, maxLength=max_length,
                    patternErrorMessage="must be a DNS-1123 label: lowercase letters, digits and '-', starting and "
                                        "ending with a letter or digit")


def _shaped(pattern: str, shape: str) -> _Checked:
    """A string that must match ``pattern`` (whole), refused in words: ``shape`` says what the value looks
    like, with an example, instead of showing the regular expression."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            lowered = value.lower()  # `M7i.xlarge`: what was meant, when that is all that is wrong
            meant = f"; did you mean {lowered!r}?" if lowered != value and compiled.fullmatch(lowered) else ""
            raise _fail("format", f"must be {shape}{meant}")
        return value
    return _Checked(check, pattern=f"^(?:{pattern})$", patternErrorMessage=f"must be {shape}")


_SEMVER_SHAPE = "must be an exact version MAJOR.MINOR.PATCH without 'v' or ranges (e.g. \"1.14.1\")"


def _semver(value: str) -> str:
    if not _SEMVER.match(value):
        raise _fail("semver", _SEMVER_SHAPE)
    return value


def _quantity(value: str) -> str:
    try:
        amount = parse_quantity(value)
    except ValueError:
        raise _fail("quantity", f"is not a Kubernetes quantity; use {QUANTITY_ALLOWED}") from None
    if amount <= 0:
        raise _fail("quantity", "must be greater than zero")
    return value


def _duration(value: str) -> str:
    try:
        parse_duration(value)
    except ValueError as error:
        raise _fail("duration", str(error)) from None
    return value


def _duration_or_never(value: str) -> str:
    return value if value == "Never" else _duration(value)


def _whole_seconds(value: str) -> str:
    """The NodePool CRD's duration fields take whole hours, minutes and seconds (``^([0-9]+(s|m|h))+$``)."""
    if value != "Never" and parse_duration(value) % timedelta(seconds=1):
        raise _fail("duration", "must be whole seconds: the NodePool CRD takes hours, minutes and seconds only")
    return value


def _strategies(info: ValidationInfo) -> dict[str, Any]:
    """The registered strategies by name, as the validation door hands them over (none: names are not checked)."""
    return (info.context or {}).get(STRATEGIES_CONTEXT) or {}


def _left_out(info: ValidationInfo, *fields: str) -> bool:
    """Whether this is a refused map validated again without one of ``fields`` (see :data:`SALVAGE_CONTEXT`)."""
    context = info.context or {}
    return not context.get(SALVAGE_CONTEXT, frozenset()).isdisjoint(fields)


def _list_as_tuple(value: object) -> object:
    """A YAML list, kept as a tuple so that the model stays hashable (windows are dictionary keys)."""
    if not isinstance(value, list | tuple):
        raise _fail("list_type", "must be a list")
    return tuple(value)


_Strings = TypeVar("_Strings", bound=Sequence[str])


def _distinct(values: _Strings) -> _Strings:
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise _fail("unique", f"lists {', '.join(duplicates)} more than once")
    return values


def _number_for_duration(value: object) -> object:
    """YAML reads ``leadTime: 10`` as the number 10: say which duration to write (the unit is what is missing)."""
    if type(value) is int:
        raise _fail("duration", f'is a number, not a duration: write it in quotes with its unit, like "{value}m" '
                                f'or "{value}h" (m for minutes, h for hours)')
    return value


# Window names become parts of Kubernetes object names (`prescale-<window>` ScaledObject → HPA
# `keda-hpa-prescale-<window>` must stay within 63 characters), hence the tighter limit.
WindowName = Annotated[StrictStr, _dns_label(40)]
PoolName = Annotated[StrictStr, _dns_label(40)]
Version = Annotated[StrictStr, _Checked(_semver, pattern=_SEMVER.pattern, patternErrorMessage=_SEMVER_SHAPE)]
# What the editors' schema can say of a quantity: its grammar, above zero (no sign '-', a digit 1-9 before any
# exponent or suffix E); how small a positive one may be stays the checks'.
_ABOVE_ZERO = r"(?!\s*-)(?=[^1-9eE]*[1-9])"
_QUANTITY_FACTS = {"pattern": f"^{_ABOVE_ZERO}{QUANTITY_PATTERN}$",
                   "patternErrorMessage": f"must be a quantity above zero: {QUANTITY_ALLOWED}"}
Quantity = Annotated[StrictStr, _Checked(_quantity, **_QUANTITY_FACTS)]


def _number_for_memory(value: object) -> object:
    """YAML reads ``memory: 2048`` as a number, which Kubernetes would read as bytes: say which unit to write."""
    if type(value) is int:
        raise _fail("quantity", str(memory_problem(str(value))))
    return value


def _memory(value: str) -> str:
    problem = memory_problem(value)
    if problem:
        raise _fail("quantity", problem)
    return value


Memory = Annotated[StrictStr, BeforeValidator(_number_for_memory),
                   _Checked(_quantity, pattern=f"^{_ABOVE_ZERO}{MEMORY_PATTERN}$",
                            patternErrorMessage='must be a quantity above zero with its unit, like "16Gi" or '
                                                '"2048Mi"'),
                   AfterValidator(_memory)]
_DURATION_FACTS = {"minLength": 1, "patternErrorMessage": f"must be {DURATION_ALLOWED}"}
Duration = Annotated[StrictStr, BeforeValidator(_number_for_duration),
                     _Checked(_duration, pattern=f"^{DURATION_PATTERN}$", **_DURATION_FACTS)]
DurationOrNever = Annotated[StrictStr, BeforeValidator(_number_for_duration),
                            _Checked(_duration_or_never, pattern=f"^(?:Never|{DURATION_PATTERN})$", **_DURATION_FACTS)]
# A NodePool's own durations, written in the CRD's form when deployed (prescale.model.schedule.duration).
NodePoolDuration = Annotated[Duration, AfterValidator(_whole_seconds)]
NodePoolDurationOrNever = Annotated[DurationOrNever, AfterValidator(_whole_seconds)]


class Model(BaseModel):
    """Strict, immutable, camelCase-keyed, and closed to unknown keys."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)


# --- cluster, add-ons ---------------------------------------------------------------------------------

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
            given = sorted(new_only & {to_camel(f) for f in self.model_fields_set})
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


class CapacityRequest(Model):
    """Capacity to hold ready for an event, as pod requests (CPU cores and memory)."""

    cpu: Quantity = Field(description='CPU as a Kubernetes quantity above zero, in quotes: "4" cores or "500m".')
    memory: Memory = Field(description=(
        'Memory as a Kubernetes quantity with its unit, at least 1Mi, like 16Gi or "2048Mi" (a number without a unit '
        "would be bytes)."))


# --- node pools ---------------------------------------------------------------------------------------

def _integer_as_quantity(value: object) -> object:
    """Karpenter, like Kubernetes, reads ``cpu: 1000`` as the quantity ``"1000"``: an integer becomes that text."""
    if type(value) is int:  # not bool: `true` is no quantity
        return str(value)
    if not isinstance(value, str):
        raise _fail("quantity", f"is not a Kubernetes quantity; use an integer or a string of {QUANTITY_ALLOWED}")
    return value


# A NodePool limit: a quantity string or an integer (Karpenter's own getting-started pool has `cpu: 1000`).
LimitQuantity = Annotated[StrictStr, BeforeValidator(_integer_as_quantity), AfterValidator(_quantity),
                          WithJsonSchema({"anyOf": [{"type": "integer", "minimum": 1},
                                                    {"type": "string", **_QUANTITY_FACTS}]})]


class Limits(Model):
    """The most a NodePool may launch; Karpenter stops provisioning beyond it.

    Like Karpenter, any of cpu, memory and nodes may be given; the capacity checks use the ones that are. At least
    one is required: a pool prescale creates is bounded (an empty map would let it launch without end).
    """

    cpu: LimitQuantity | None = Field(default=None, description=(
        'Most CPU the pool\'s nodes may have in all: a quantity as a string or an integer (cpu: 1000, "512").'))
    memory: Memory | None = Field(default=None, description=(
        "Most memory the pool's nodes may have in all: a quantity with its unit, at least 1Mi, like 2048Gi."))
    nodes: StrictInt | None = Field(default=None, ge=1, description="Most nodes the pool may have at once.")

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        if self.cpu is None and self.memory is None and self.nodes is None:
            raise _fail("model", "{} (no cpu, memory or nodes) bounds nothing, so the pool could launch without "
                                 "end; allowed: at least one of cpu, memory or nodes, e.g. {cpu: 1000}")
        return self


class TaintConfig(Model):
    """A taint of a pool's nodes, which its placeholders tolerate."""

    key: Annotated[StrictStr, Field(max_length=316),
                   _shaped(r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?",
                           'a taint key like "dedicated" or "example.com/dedicated": letters, digits, \'-\', '
                           "'_' and '.', starting and ending with a letter or digit, after an optional "
                           "lowercase DNS prefix and '/'")] = Field(description="The taint's key.")
    value: Annotated[StrictStr, Field(max_length=63),
                     _shaped(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?",
                             'empty or a taint value like "event": letters, digits, \'-\', \'_\' and \'.\', starting '
                             "and ending with a letter or digit")] = Field(default="", description="The taint's value.")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = Field(default="NoSchedule", description=(
        "PreferNoSchedule keeps other pods off while anything else fits; NoSchedule dedicates the nodes (the "
        "event's pods then need the toleration); NoExecute also evicts pods that do not tolerate it."))


# The default taint (PreferNoSchedule) dedicates event pools softly; why:
# docs/capacity.md#who-else-lands-on-a-pool-softly-dedicated-by-default.
EVENT_CAPACITY_TAINT_KEY = "prescale.io/event-capacity"


class SubnetSelectorTerm(Model):
    """Subnets for an EC2NodeClass: by tags (all must match) or by id."""

    tags: dict[StrictStr, StrictStr] | None = Field(default=None, min_length=1, description=(
        "Subnets carrying all of these tags; give tags or id, not both."))
    id: Annotated[StrictStr, _shaped(r"subnet-[0-9a-z]+", 'a subnet id like "subnet-0a1b2c3d"')] | None = Field(
        default=None, description="One subnet by its id.")

    @model_validator(mode="after")
    def _one_selector(self) -> Self:
        return _exactly_one_selector(self)


class SecurityGroupSelectorTerm(Model):
    """Security groups for an EC2NodeClass: by tags (all must match), by id or by name."""

    tags: dict[StrictStr, StrictStr] | None = Field(default=None, min_length=1, description=(
        "Security groups carrying all of these tags; give exactly one of tags, id or name."))
    id: Annotated[StrictStr, _shaped(r"sg-[0-9a-z]+", 'a security group id like "sg-0a1b2c3d"')] | None = Field(
        default=None, description="One security group by its id.")
    name: StrictStr | None = Field(default=None, description="Security groups by their name.")

    @model_validator(mode="after")
    def _one_selector(self) -> Self:
        return _exactly_one_selector(self)


_Term = TypeVar("_Term", bound=Model)


def _exactly_one_selector(term: _Term) -> _Term:
    given = sorted(to_camel(f) for f in term.model_fields_set)
    if len(given) != 1:
        allowed = " or ".join(to_camel(f) for f in type(term).model_fields)
        raise _fail("model", f"give exactly one of {allowed} per selector term (got {', '.join(given) or 'none'}); "
                             "several terms select the union")
    return term


def _label_key(key: str) -> str:
    """A requirement key as Kubernetes and the NodePool CRD accept it: a qualified name (an optional DNS prefix of
    at most 253 characters and '/', then a name of at most 63), outside the domains prescale or Karpenter keep."""
    prefix, _, name = key.rpartition("/")
    if len(prefix) > 253 or len(name) > 63:
        raise _fail("format", "must be a label key with a prefix of at most 253 and a name of at most 63 characters")
    problem = key_problem(key)
    if problem:
        raise _fail("format", problem)
    return key


RequirementKey = Annotated[StrictStr, _shaped(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?",
    'a label key like "karpenter.k8s.aws/instance-family" or "example.com/team": letters, digits, \'-\', \'_\' '
    "and '.', starting and ending with a letter or digit, after an optional lowercase DNS prefix and '/'"),
    AfterValidator(_label_key)]
LabelValue = Annotated[StrictStr, Field(max_length=63), _shaped(
    r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?",
    'a label value like "c7i" or "3": letters, digits, \'-\', \'_\' and \'.\', starting and ending with a letter '
    "or digit, at most 63 characters")]


RequirementOperator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]


class NodeRequirement(Model):
    """One ``nodePools[].requirements`` entry, in the NodePool's own shape (``karpenter.sh/v1``
    ``NodeSelectorRequirementWithMinValues``), held to the rules of the NodePool CRD of Karpenter 1.14.1.

    ``Gte``/``Lte`` are left out: the CRDs of Karpenter before 1.9 (which a cluster's own Karpenter may be)
    refuse them; ``Gt`` with one less says the same.
    """

    key: RequirementKey = Field(description=(
        "A node label key: one of Karpenter's well-known labels (karpenter.k8s.aws/instance-family, "
        "topology.kubernetes.io/zone, ...; on Auto Mode the eks.amazonaws.com/ ones) or your own, outside the "
        "domains Kubernetes and Karpenter keep (docs/capacity.md#requirements)."))
    operator: RequirementOperator = Field(description=(
        "In and NotIn take values; Exists and DoesNotExist take none; Gt and Lt take one whole number in quotes."))
    values: list[LabelValue] = Field(default=[], description="Label values, each once.")
    min_values: StrictInt | None = Field(default=None, ge=1, le=50, description=(
        "Karpenter launches only when the key keeps at least this many distinct values (MIN_VALUES_POLICY Strict, "
        "its default): a floor on instance-type flexibility. At most the number of In values."))

    @model_validator(mode="after")
    def _values_fit_the_operator(self) -> Self:
        shown = f"operator {self.operator} on {self.key}"
        duplicates = sorted({v for v in self.values if self.values.count(v) > 1})
        if duplicates:
            raise _fail("model", f"values {self.values!r} list {', '.join(duplicates)} more than once; allowed: "
                                 "each value once")
        if self.operator in ("In", "NotIn") and not self.values:
            raise _fail("model", f"{shown} needs values (the NodePool CRD); allowed: at least one value, or "
                                 "operator Exists")
        if self.operator in ("Exists", "DoesNotExist") and self.values:
            raise _fail("model", f"{shown} takes no values (got {self.values!r}); allowed: no values key, or "
                                 "operator In or NotIn")
        if self.operator in ("Gt", "Lt") and (len(self.values) != 1 or not self.values[0].isdigit()):
            raise _fail("model", f"{shown} takes exactly one value, a whole number of 0 or more in quotes like "
                                 f"[\"3\"] (the NodePool CRD); got {self.values!r}")
        if self.min_values is not None:
            if self.operator == "DoesNotExist":
                raise _fail("model", f"minValues {self.min_values} cannot be met by {shown}: a node without the "
                                     "label offers no values; allowed: no minValues")
            if self.operator == "In" and len(self.values) < self.min_values:
                raise _fail("model", f"minValues {self.min_values} is more than the {len(self.values)} values "
                                     f"{self.values!r} of {shown} (the NodePool CRD); allowed: at most "
                                     f"{len(self.values)}, or more values")
        if self.key == CAPACITY_TYPE and self.operator in ("In", "NotIn", "Gt", "Lt"):
            unknown = [v for v in self.values if v not in CAPACITY_TYPES]
            if unknown or self.operator in ("Gt", "Lt"):
                raise _fail("model", f"{shown} with values {self.values!r}: capacity types are names; allowed: "
                                     f"operator In or NotIn with values among {', '.join(CAPACITY_TYPES)}")
        if self.key == OS and (self.operator, self.values) != ("In", ["linux"]):
            raise _fail("model", f"{shown} with values {self.values!r}: prescale's nodes run Linux (amiAlias is al2023 "
                                 "or bottlerocket) and their NodePool says so itself; allowed: operator In with "
                                 "values [linux], or no kubernetes.io/os requirement")
        return self


class CapacityReservationSelectorTerm(Model):
    """EC2 capacity reservations (On-Demand Capacity Reservations or Capacity Blocks) the pool's node class may
    launch into: by ``id``, or by ``tags`` (all must match; ``*`` matches any value) with an optional ``ownerID``
    (the account that owns them). Karpenter's ``EC2NodeClass`` shape (v1.14.1); several terms select the union."""

    id: Annotated[StrictStr, _shaped(r"cr-[0-9a-z]+", 'a capacity reservation id like "cr-0123456789abcdef0"')] | None \
        = Field(default=None, description="One reservation by its id, alone (no ownerID); give id or tags, not both.")
    tags: dict[Annotated[StrictStr, Field(min_length=1)], Annotated[StrictStr, Field(min_length=1)]] | None = Field(
        default=None, min_length=1, max_length=20, description=(
            "Reservations carrying all of these tags (* matches any value), at most 20."))
    owner_id: Annotated[StrictStr, _shaped(r"[0-9]{12}", 'an AWS account id of 12 digits like "123456789012"')] | None \
        = Field(default=None, alias="ownerID", description=(
            "With tags: the AWS account that owns the reservations."))

    @model_validator(mode="after")
    def _id_or_tags(self) -> Self:
        if (self.id is None) == (self.tags is None):
            given = "both" if self.id is not None else "neither"
            raise _fail("model", f"give exactly one of id or tags per capacity reservation selector term (got "
                                 f"{given}); several terms select the union")
        if self.id is not None and self.owner_id is not None:
            raise _fail("model", f"ownerID {self.owner_id!r} goes with tags only: an id selects exactly one "
                                 f"reservation (the EC2NodeClass CRD refuses id with other fields); allowed: id "
                                 "alone, or tags with ownerID")
        return self


class DataVolumeConfig(Model):
    """``nodePools[].dataVolume``: a Bottlerocket node's data volume (``/dev/xvdb``, where its container images live)
    made from an EBS snapshot that already holds the event's images, so that nodes boot with them
    (docs/readiness.md)."""

    snapshot_id: Annotated[StrictStr, _shaped(r"snap-([0-9a-f]{8}|[0-9a-f]{17})",
                                              'an EBS snapshot id like "snap-0123456789abcdef0"')] = Field(
        alias="snapshotID", description=(
            "The EBS snapshot of a Bottlerocket data volume that holds the images (built with upstream's "
            "bottlerocket-images-cache); the volume's encryption is the snapshot's (docs/readiness.md)."))
    size: Annotated[StrictStr, _shaped(
        r"(?:[1-9][0-9]{0,3}|1[0-5][0-9]{3}|16[0-2][0-9]{2}|163[0-7][0-9]|1638[0-4])Gi",
        'a whole number of GiB from 1Gi to 16384Gi (gp3\'s range), like "80Gi"')] | None = Field(
        default=None, description=(
            "The data volume's size, at least the snapshot's (EC2 refuses a volume smaller than its snapshot, and "
            "every launch then fails) and at most 16384Gi (gp3). Unset (recommended): the snapshot's own size, as EC2 "
            "takes it when the EC2NodeClass gives none; set it only to give the images more room than the snapshot."))
    volume_initialization_rate: StrictInt | None = Field(default=None, ge=100, le=300, description=(
        "EBS's provisioned rate for volume initialization, in MiB/s (100 to 300, the EC2NodeClass CRD's range): the "
        "snapshot's blocks arrive at that rate instead of lazily on first read, billed per GiB initialized. Unset: "
        "blocks are fetched from S3 as they are first read."))


# How a pool's windows get their nodes (docs/strategies.md): the name of a strategy prescale.model.strategies
# registers. Config cannot import the strategies (they plan from it), so the validation door hands their registry
# over in pydantic's context (STRATEGIES_CONTEXT), and the strategy's own rules on the pool's keys run from there.
StrategyName = str
STRATEGIES_CONTEXT = "strategies"
# Keys a pool that prescale does not own (``existing: true``) may take: its NodePool belongs to someone else (the
# placeholder sizes are its windows', not the pool's).
EXISTING_POOL_KEYS = frozenset({"name", "existing", "strategy", "taints", "limits", "nodeSize", "maxPodSize"})
# Keys that shape the EC2NodeClass prescale creates, so they cannot go with ``nodeClassName``.
NODE_CLASS_KEYS = frozenset({"amiAlias", "subnetSelectorTerms", "securityGroupSelectorTerms",
                             "capacityReservationSelectorTerms", "dataVolume"})

# EKS Auto Mode ends every node after at most 21 days, so expireAfter + terminationGracePeriod must fit in
# that. Its default is as late as possible (fewest forced replacements, each of which could fall inside an
# event) while leaving a day for terminationGracePeriod, Auto Mode's own 24h default included.
AUTO_MODE_MAX_NODE_LIFETIME = timedelta(days=21)
AUTO_MODE_EXPIRE_AFTER = "480h"


class NodePoolConfig(Model):
    """One ``prescale:nodePools`` entry: a Karpenter NodePool (and EC2NodeClass) prescale creates, or with
    ``existing: true`` a NodePool that already runs in the cluster and that windows may use as it is."""

    name: PoolName = Field(description=(
        "Unique; windows name their pool by it, and it names the pool's Kubernetes objects (NodePool and "
        "EC2NodeClass prescale-<name>). For an existing pool: its NodePool's exact name."))
    existing: StrictBool = Field(default=False, description=(
        "true: a NodePool that already runs in the cluster. prescale creates nothing for it and never touches its "
        "disruption budgets (its placeholders carry karpenter.sh/do-not-disrupt instead), and it takes only name, "
        "taints (to tolerate; none by default), limits (for the checks), nodeSize, maxPodSize and strategy "
        "placeholders "
        "(docs/adoption.md#windows-on-a-nodepool-you-own-nodepoolsexisting-true)."))
    strategy: StrategyName = Field(default="placeholders", description=(
        "How the pool's windows get their nodes: placeholders (KEDA-scaled pause pods that Karpenter launches nodes "
        "for), static (one static NodePool of exactly nodes: N per window, needs Karpenter's StaticCapacity gate; "
        "windows take nodes, not capacity) or buffer (one CapacityBuffer per window, virtual pods that real pods "
        "bind in place of, needs the CapacityBuffer gate; not on Auto Mode). An existing pool takes placeholders "
        "only (docs/capacity.md#strategies)."))
    capacity_types: list[Literal["on-demand", "spot", "reserved"]] = Field(
        default=["on-demand"], min_length=1, json_schema_extra={"uniqueItems": True}, description=(
            "Karpenter capacity types the pool may launch; reserved needs capacityReservationSelectorTerms or a "
            "window's reserve (docs/capacity.md#capacity-reservations-odcrs-and-capacity-blocks)."))
    instance_categories: list[Annotated[StrictStr, _shaped(r"[a-z]+", 'an EC2 instance category: lowercase '
                                                           'letters like "c", "m" or "r"')]] = Field(
        default=["c", "m", "r"], min_length=1, json_schema_extra={"uniqueItems": True}, description=(
            "EC2 instance categories the pool may launch (c compute, m general purpose, r memory, ...)."))
    architectures: list[Literal["amd64", "arm64"]] = Field(
        default=["amd64"], min_length=1, json_schema_extra={"uniqueItems": True},
        description="CPU architectures the pool may launch.")
    requirements: list[NodeRequirement] = Field(default=[], description=(
        "More NodePool requirements in Karpenter's own shape, on its well-known labels or your own; a key written "
        "here replaces its shorthand's default (capacityTypes, instanceCategories, architectures). Requirements "
        "the NodePool CRD would refuse, or that leave no instance type, are refused (docs/capacity.md#requirements)."))
    node_size: CapacityRequest | None = Field(default=None, description=(
        "For the windows on this pool sized by nodes, what each placeholder requests instead of "
        "placeholders.nodeSize; checked against the pool's instance types (docs/capacity.md#pod-sizing)."))
    max_pod_size: CapacityRequest | None = Field(default=None, description=(
        "For the windows on this pool sized by capacity, the largest placeholder instead of "
        "placeholders.maxPodSize (docs/capacity.md#pod-sizing)."))
    limits: Limits | None = Field(default=None, validate_default=True, description=(
        "The most the pool may launch, as Karpenter's NodePool limits: any of cpu, memory and nodes, at least one. "
        "Required for a pool prescale creates (without limits it could launch without bound); optional for an "
        "existing pool, where it only feeds the checks. Windows must fit them, alone and where they overlap "
        "(docs/capacity.md#overlapping-windows-the-sum)."))
    node_class_name: Annotated[StrictStr, _shaped(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", 'a Kubernetes object name like '
                                                   '"default": lowercase letters, digits, "-" and "."'),
                               Field(max_length=253)] | None = Field(default=None, description=(
        "An existing EC2NodeClass (by name) for this pool instead of one prescale creates; then amiAlias and the "
        "selector terms do not apply."))
    ami_alias: Annotated[StrictStr, _shaped(r"(al2023|bottlerocket)@(latest|v[0-9][0-9A-Za-z.\-]*)",
                                            'an AMI alias like "al2023@v20260828" or "bottlerocket@v1.30.0" '
                                            "(al2023 or bottlerocket, '@', and a version or latest)")] = Field(
        default="al2023@v20260828", description=(
            "The pinned AMI alias of the EC2NodeClass. @latest rolls every node whenever AWS publishes an AMI "
            "(Karpenter's docs advise against it; warned at pulumi up and prescale plan); a pinned release must "
            "exist for the cluster's Kubernetes version (docs/platform.md#upgrading-kubernetes)."))
    subnet_selector_terms: list[SubnetSelectorTerm] | None = Field(default=None, min_length=1, max_length=30,
                                                                   description=(
        "Where the EC2NodeClass launches nodes, for clusters tagged differently; several terms select the union. "
        "Unset: the subnets tagged karpenter.sh/discovery: <cluster>."))
    security_group_selector_terms: list[SecurityGroupSelectorTerm] | None = Field(
        default=None, min_length=1, max_length=30, description=(
            "The security groups of the pool's nodes; several terms select the union. Unset: the security group "
            "tagged karpenter.sh/discovery: <cluster>."))
    capacity_reservation_selector_terms: list[CapacityReservationSelectorTerm] | None = Field(
        default=None, min_length=1, max_length=30, description=(
            "EC2 capacity reservations (On-Demand Capacity Reservations, Capacity Blocks) the pool's nodes may "
            "launch into as reserved capacity, which Karpenter prefers; none unless given "
            "(docs/capacity.md#capacity-reservations-odcrs-and-capacity-blocks)."))
    taints: list[TaintConfig] = Field(default=[TaintConfig(key=EVENT_CAPACITY_TAINT_KEY, effect="PreferNoSchedule")],
                                      description=(
        "Taints of the pool's nodes; placeholders tolerate them. The default keeps other pods off while anything "
        "else fits; [] shares the pool; a NoSchedule taint dedicates it (the event's pods then need the "
        "toleration). A list replaces the default; an existing pool has none unless given "
        "(docs/capacity.md#who-else-lands-on-a-pool-softly-dedicated-by-default)."))
    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized"] = Field(
        default="WhenEmptyOrUnderutilized", description=(
            "Which nodes Karpenter may consolidate: only empty ones, or also underutilized ones (outside the "
            "windows' freezes, docs/capacity.md#consolidation-freezes-disruption-budgets)."))
    consolidate_after: NodePoolDuration = Field(default="2m", description=(
        "How long a node stays empty or underutilized before Karpenter consolidates it: how fast nodes go after "
        "a window. A Go duration of whole seconds (\"2m\", \"1.5m\", \"90s\"); Never is refused, since the nodes "
        "must go after each window (docs/capacity.md#consolidation-freezes-disruption-budgets)."))
    expire_after: NodePoolDurationOrNever = Field(default="Never", description=(
        "Node lifetime: Never, or a Go duration of whole seconds (\"720h\"). Budgets do not stop expiry, so a "
        "lifetime could end a node mid-event: Never by default (event nodes are consolidated after each window "
        "anyway). A duration must outlast every window on the pool, scale-up to end; on Auto Mode, where Never is "
        f"refused, unset means {AUTO_MODE_EXPIRE_AFTER} "
        "(docs/capacity.md#node-lifetime-expireafter-never-by-default)."))
    termination_grace_period: NodePoolDuration = Field(default="1h", description=(
        "The longest a node's drain may take: a Go duration of whole seconds (\"1h\", \"90s\")."))
    weight: StrictInt | None = Field(default=None, ge=1, le=100, description=(
        "NodePool weight (1 to 100): Karpenter tries pools of higher weight first; a static pool has none (the "
        "NodePool CRD)."))
    data_volume: DataVolumeConfig | None = Field(default=None, description=(
        "Bottlerocket pools only: the nodes' data volume made from an EBS snapshot that holds the event's images, "
        "so they are there at boot (docs/readiness.md)."))

    @property
    def owned(self) -> bool:
        """Whether prescale creates (and so may freeze) this pool's NodePool."""
        return not self.existing

    @model_validator(mode="before")
    @classmethod
    def _existing_pools_default_to_no_taint(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("existing") is True and "taints" not in data:
            return {**data, "taints": []}
        return data

    @field_validator("consolidate_after", mode="before")
    @classmethod
    def _consolidation_ends(cls, value: object) -> object:
        if value == "Never":
            raise _fail("duration", "would keep a window's nodes after its end: its placeholders go, but Karpenter "
                                    "would never consolidate the emptied nodes, so they would run and be paid until "
                                    "expireAfter (Never by default). prescale needs a finite value: its freezes, the "
                                    "failsafe's timing and prescale schedule's cost count on the nodes going that long "
                                    "after each end; allowed: a duration like \"2m\" (the default)")
        return value

    @field_validator("limits")
    @classmethod
    def _owned_pools_need_limits(cls, value: Limits | None, info: ValidationInfo) -> Limits | None:
        if value is None and not info.data.get("existing", False) and not _left_out(info, "limits", "existing"):
            raise _fail("model", "required key is missing: a node pool prescale creates needs limits "
                                 "(e.g. {cpu: \"512\", memory: 2048Gi}), or it could launch without bound")
        return value

    @field_validator("strategy", mode="before")
    @classmethod
    def _registered_strategy(cls, value: Any, info: ValidationInfo) -> Any:
        known = _strategies(info)
        if known and (not isinstance(value, str) or value not in known):
            raise PydanticCustomError("literal_error", "Input should be {expected}",
                                      {"expected": ", ".join(repr(name) for name in known)})
        return value

    @model_validator(mode="after")
    def _keys_fit_the_kind_of_pool(self, info: ValidationInfo) -> Self:
        given = {to_camel(f) for f in self.model_fields_set}
        if self.existing and given - EXISTING_POOL_KEYS:
            raise _fail("model", f"an existing pool (existing: true) is used as it is, so it takes only "
                                 f"{', '.join(sorted(EXISTING_POOL_KEYS))}; these keys only shape pools prescale "
                                 f"creates: {', '.join(sorted(given - EXISTING_POOL_KEYS))}")
        rules = _strategies(info).get(self.strategy)
        problem = rules.pool_key_problem(self.existing, given) if rules is not None else None
        if problem:
            raise _fail("model", problem)
        if self.node_class_name is not None and given & NODE_CLASS_KEYS:
            raise _fail("model", f"{', '.join(sorted(given & NODE_CLASS_KEYS))} shape the EC2NodeClass prescale "
                                 f"creates; with nodeClassName {self.node_class_name!r} the pool uses that existing "
                                 "EC2NodeClass as it is")
        return self

    def deployed_expire_after(self, auto_mode: bool) -> str:
        """``expireAfter`` as deployed: on Auto Mode, where ``Never`` is impossible, unset means
        :data:`AUTO_MODE_EXPIRE_AFTER`."""
        if auto_mode and "expire_after" not in self.model_fields_set:
            return AUTO_MODE_EXPIRE_AFTER
        return self.expire_after

    @field_validator("capacity_types", "instance_categories", "architectures")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        return _distinct(values)


# --- images -------------------------------------------------------------------------------------------

# distribution/reference's grammar (reference.go): [host[:port]/]path[:tag][@digest], path components in
# lowercase; a registry given by an IPv6 address is not accepted.
_HOST_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_PATH_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE_REFERENCE = (rf"(?:{_HOST_PART}(?:\.{_HOST_PART})*(?::[0-9]+)?/)?{_PATH_PART}(?:/{_PATH_PART})*"
                    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
                    r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?")
ImageReference = Annotated[StrictStr, Field(max_length=512), _shaped(
    _IMAGE_REFERENCE, 'an image reference like "123456789012.dkr.ecr.ap-northeast-2.amazonaws.com/shop/api:v1.4.2": '
                      "an optional registry host, a lowercase path, then a :tag and/or an @sha256: digest")]
SecretName = Annotated[StrictStr, Field(max_length=253), _shaped(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
    'a Secret name like "registry-credentials" (DNS-1123): lowercase letters, digits, \'-\' and \'.\', starting '
    "and ending with a letter or digit")]


# --- event windows ------------------------------------------------------------------------------------

LOCAL_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$")


def _time_zone(value: str) -> str:
    problem = time_zone_problem(value)
    if problem:
        raise _fail("timezone", problem)
    return value


AvailabilityZone = Annotated[StrictStr, _shaped(r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9][a-z]",
                                                'an availability zone name like "ap-northeast-2a" (the region and a '
                                                "letter)")]


# The longest reserve.holdFrom: every hour of it bills the whole reservation unused. A week still lets a team create
# it on the last working day before a weekend or a holiday week and retry if EC2 cannot reserve; more only bills.
MAX_HOLD = timedelta(days=7)
_MINUTE = timedelta(minutes=1)  # the least hold: whole minutes, more than zero


class ReserveConfig(Model):
    """``eventWindows[].reserve``: targeted On-Demand Capacity Reservations that hold EC2 capacity for a one-off
    window, created only by a ``pulumi up`` within ``holdFrom`` of its scale-up
    (:mod:`prescale.model.fleet.reservations`; docs/capacity.md#capacity-reservations-for-one-off-events)."""

    instance_type: Annotated[StrictStr, _shaped(r"[a-z][a-z0-9-]*\.[a-z0-9]+",
                                                'an EC2 instance type like "m7i.xlarge" (lowercase)')] = Field(
        description=("The instance type to reserve: one the pool can launch, that holds the window's placeholders "
                     "and that the pool's limits can fill."))
    count: StrictInt | None = Field(default=None, ge=1, le=1000, description=(
        "Instances to reserve in all (1 to 1000), split over the zones as evenly as it goes. Unset: the nodes the "
        "window needs (nodes: N gives N; a capacity window, the instances that hold its placeholders)."))
    availability_zones: Annotated[tuple[AvailabilityZone, ...], BeforeValidator(_list_as_tuple),
                                  _Checked(_distinct, uniqueItems=True), Field(min_length=1)] | None = Field(
        default=None, description=("Zones to reserve in, each once. Unset: the zones of the pool's "
                                   "topology.kubernetes.io/zone requirement (a pool without one is refused)."))
    hold_from: Duration = Field(default="24h", json_schema_extra={"not": {"pattern": shorter_than(_MINUTE)}},
                                description=(
        "How long before the window's scale-up the reservations may be created: a Go duration of whole minutes "
        f"(\"24h\", \"1.5h\"), at most {format_duration(MAX_HOLD)}: a pulumi up within that time creates them, "
        "and they are billed from then (docs/capacity.md#when-it-exists-and-what-it-costs)."))

    @field_validator("hold_from")
    @classmethod
    def _positive_whole_minutes(cls, value: str) -> str:
        hold = parse_duration(value)
        if not hold or hold.total_seconds() % 60:
            raise _fail("lead", "must be whole minutes and more than zero: the reservation is created by a "
                                "`pulumi up` that long before the scale-up or later")
        if hold > MAX_HOLD:
            raise _fail("lead", f"is more than {format_duration(MAX_HOLD)} (a week): the reservation is billed "
                                "every hour from the `pulumi up` that creates it, used or not, so a longer hold bills "
                                "the idle reservation for weeks; the hold only has to leave time to react if EC2 "
                                "cannot reserve (run `pulumi up` again, try another zone or type); allowed: 1m to "
                                f"{format_duration(MAX_HOLD)}, e.g. 24h (the default) or 72h over a weekend")
        return value

    @property
    def hold(self) -> timedelta:
        return parse_duration(self.hold_from)


class EventWindow(Model):
    """One ``prescale:eventWindows`` entry: when capacity must be ready, where, and how much.

    ``start``/``end`` are either both 5-field crons in KEDA's dialect (a recurring window) or both local
    date-times ``YYYY-MM-DDTHH:MM`` (a one-off event), always read in ``timezone``. How the two fit together
    over time is checked by :mod:`prescale.model.checks.stack`, which can name the exact key at fault.
    """

    name: WindowName = Field(description=(
        "Unique (at most 40 characters); names the window's Kubernetes objects (prescale-<name>)."))
    node_pool: StrictStr = Field(description="The prescale:nodePools entry, by name, whose nodes the window holds.")
    timezone: Annotated[StrictStr, AfterValidator(_time_zone)] = Field(description=(
        "IANA time zone that start and end are read in, naming a place or UTC: Asia/Seoul, America/New_York, UTC. "
        "Abbreviations (KST) and legacy or fixed-offset names (EST, CET, Etc/GMT+5) are refused with the zone to "
        "write."))
    start: StrictStr = Field(description=(
        'When the event starts: a 5-field cron in KEDA\'s dialect for a recurring window ("15 11 * * *": minute '
        "hour day-of-month month day-of-week, day-of-week 0-6; no @daily, CRON_TZ= or L/W/#), or a local date-time "
        'YYYY-MM-DDTHH:MM for a one-off event ("2027-03-02T08:00", no seconds or offset). start and end are both '
        "crons or both date-times; prescale plan and schedule check how they fit over the coming year (a start or "
        "end in a DST gap or overlap, starts and ends that do not alternate)."))
    end: StrictStr = Field(description=(
        "When the event ends, in the same form as start; a one-off end must be after its start."))
    event: WindowName | None = Field(default=None, description=(
        "An event of prescale:calendar, by name: the window takes its timezone, start and end (and gives none of "
        "its own), so every stack that names it moves with the calendar (docs/fleet.md#one-calendar)."))
    nodes: StrictInt | None = Field(default=None, ge=1, le=1000, description=(
        "Nodes to hold ready (1 to 1000): one placeholder of the pool's nodeSize on each. Give exactly one of "
        "nodes or capacity (docs/capacity.md#pod-sizing)."))
    capacity: CapacityRequest | None = Field(default=None, description=(
        "Pod requests to hold ready, split into the fewest equal placeholders no bigger than maxPodSize; give "
        "exactly one of nodes or capacity (docs/capacity.md#pod-sizing)."))
    lead_time: Duration = Field(default="10m", description=(
        "Placeholders scale up this long before start: a Go duration of whole minutes (\"10m\", \"1.5h\"); below 2m "
        "is warned: nodes need about that to be Ready (docs/capacity.md#how-long-a-lead-time)."))
    prepull_images: Annotated[tuple[ImageReference, ...], BeforeValidator(_list_as_tuple),
                              _Checked(_distinct, uniqueItems=True)] = Field(default=(), description=(
        "Images the window's placeholders pull onto their nodes during the lead time (a placeholder is Ready once "
        "its images are there), so the event's pods start without a pull; any image, distroless included "
        "(docs/capacity.md#event-images-prepullimages)."))
    reserve: ReserveConfig | None = Field(default=None, description=(
        "One-off windows only: targeted On-Demand Capacity Reservations that hold EC2 capacity for the event, "
        "created by a pulumi up from holdFrom before the scale-up; the pool must be one prescale creates, without "
        "nodeClassName, whose capacityTypes allow reserved "
        "(docs/capacity.md#capacity-reservations-for-one-off-events)."))

    @property
    def is_one_off(self) -> bool:
        return bool(LOCAL_DATETIME.match(self.start))

    @property
    def lead(self) -> timedelta:
        return parse_duration(self.lead_time)

    @property
    def local_start(self) -> datetime:
        """The one-off start as a naive local date-time (only for one-off windows)."""
        return datetime.fromisoformat(self.start)

    @property
    def local_end(self) -> datetime:
        return datetime.fromisoformat(self.end)

    def one_off_occurrence(self) -> Occurrence:
        """A one-off window's only occurrence: scale-up, start and end in its zone."""
        return one_off_occurrence(self.local_start, self.local_end, self.timezone, self.lead)

    @field_validator("lead_time")
    @classmethod
    def _whole_minutes(cls, value: str) -> str:
        if parse_duration(value).total_seconds() % 60:
            raise _fail("lead", "must be whole minutes: KEDA's cron has no seconds field")
        return value

    @field_validator("start", "end")
    @classmethod
    def _cron_or_local_datetime(cls, value: str) -> str:
        if LOCAL_DATETIME.match(value):
            try:
                datetime.fromisoformat(value)
            except ValueError as error:
                raise _fail("datetime", f"is not a real date-time ({error})") from None
            return value
        if re.match(r"^\d{4}-\d{2}-\d{2}", value):
            raise _fail("datetime", "a one-off date-time must be local and exactly YYYY-MM-DDTHH:MM "
                                    "(no seconds, no offset: the window's timezone gives the zone)")
        try:
            parse_cron(value)
        except CronError as error:
            raise _fail("cron", f"is not a cron in KEDA's dialect ({error}); use 5 fields "
                                "'minute hour day-of-month month day-of-week' (day-of-week 0-6), or a local "
                                "date-time YYYY-MM-DDTHH:MM") from None
        return value

    @model_validator(mode="after")
    def _one_amount(self, info: ValidationInfo) -> Self:
        if (self.nodes is None) == (self.capacity is None) and not _left_out(info, "nodes", "capacity"):
            given = "both" if self.nodes is not None else "neither"
            raise _fail("model", f"give exactly one of nodes (a node count) or capacity ({{cpu, memory}}); "
                                 f"got {given}")
        return self


class PlaceholderConfig(Model):
    """``prescale:placeholders``: the pause pods that hold capacity, shared by all windows."""

    image: Annotated[StrictStr, Field(min_length=1)] = Field(default="registry.k8s.io/pause:3.10", description=(
        "The placeholders' pause image, pinned; point it at a mirror for air-gapped clusters."))
    priority: StrictInt = Field(default=-10, lt=0, ge=-1_000_000_000, description=(
        "Priority of the placeholders' PriorityClass, below zero (the default priority) so that every real pod "
        "preempts them."))
    node_size: CapacityRequest = Field(default=CapacityRequest(cpu="1", memory="2Gi"), description=(
        "For windows sized by nodes, what each placeholder requests: the free room each of the N nodes will have. "
        "It must fit the pool's largest instance after its reserved overhead (docs/capacity.md#pod-sizing)."))
    max_pod_size: CapacityRequest = Field(default=CapacityRequest(cpu="4", memory="16Gi"), description=(
        "For windows sized by capacity, the largest single placeholder: the capacity is split into pods no bigger "
        "than this, so that Karpenter can pack them onto the pool's instance types (docs/capacity.md#pod-sizing)."))
    failsafe_grace: Duration = Field(default="15m", description=(
        "The failsafe sets each window's placeholders to zero this long after its end, even if KEDA is down: a Go "
        "duration of whole minutes, 2m to 24h (\"15m\", \"1.5h\"), and never on or after the next scale-up "
        "(docs/guardrails.md#3-the-failsafe-when-keda-fails-at-a-windows-end)."))
    failsafe_image: Annotated[StrictStr, Field(min_length=1)] = Field(
        default="registry.k8s.io/kubectl:v1.34.3", description=(
        "The failsafe's kubectl image: upstream's own (registry.k8s.io, published with every Kubernetes release "
        "since 1.28), pinned to the default cluster version (kubectl supports one minor either way); point it at a "
        "mirror for air-gapped clusters."))
    image_pull_secrets: Annotated[tuple[SecretName, ...], BeforeValidator(_list_as_tuple),
                                  _Checked(_distinct, uniqueItems=True)] = Field(default=(), description=(
        "Secrets (in namespace prescale, created by you) the placeholder pods pull with, for registries the node "
        "role cannot read; ECR in the account needs none."))
    prepull_tool_image: ImageReference = Field(
        default="public.ecr.aws/docker/library/busybox:1.37.0-musl", description=(
        "For windows with prepullImages: the image whose static /bin/true each pulled image runs (busybox's musl "
        "build, from the Docker official image's ECR Public mirror); point it at a mirror for air-gapped clusters."))


class PricingConfig(Model):
    """``prescale:pricing``: on-demand prices for the cost estimate of ``prescale schedule``."""

    vcpu_hour: Annotated[float, Field(gt=0, strict=False)] = Field(default=0.05, description=(
        "USD per vCPU-hour, for instance types without their own price."))
    instance_types: dict[StrictStr, Annotated[float, Field(gt=0, strict=False)]] = Field(default={}, description=(
        'USD per hour of given instance types, like {"c7i.xlarge": 0.1785}.'))


class AlertsConfig(Model):
    """``prescale:alerts``: alerting rules for the windows, for a cluster that already runs the Prometheus Operator
    and kube-state-metrics (docs/alerts.md). Off by default."""

    prometheus_rule: StrictBool = Field(default=False, description=(
        "A monitoring.coreos.com/v1 PrometheusRule prescale/prescale-alerts that alerts when a window's capacity "
        "is late; for existing clusters that run the Prometheus Operator and kube-state-metrics (docs/alerts.md)."))


# --- the calendar --------------------------------------------------------------------------------------

class CalendarEvent(Model):
    """One event of ``prescale:calendar``: when it happens, in the form a window's times take."""

    name: WindowName = Field(description="Unique in the calendar; windows name it in their event key.")
    timezone: Annotated[StrictStr, AfterValidator(_time_zone)] = Field(description=(
        "IANA time zone its start and end are read in, as a window's timezone."))
    start: StrictStr = Field(description="When the event starts, as a window's start: a cron or a local date-time.")
    end: StrictStr = Field(description="When the event ends, in the same form as start.")
    tags: list[StrictStr] = Field(default=[], description="Free labels (a team, a region), for people and fleet.")


class CalendarConfig(Model):
    """Events several stacks share (``prescale:calendar``), read from the file its path names or given inline."""

    events: list[CalendarEvent] = Field(default=[], description="The events windows may name.")


# A calendar file's path, relative to the project directory: prescale's program and CLI read it (prescale.calendar_
# file), so the model only ever sees the calendar's content.
CalendarPath = StrictStr


def _calendar_read(value: CalendarConfig | str | None) -> CalendarConfig | None:
    if isinstance(value, str):
        raise _fail("value", f"a calendar file ({value!r}) is read by prescale's program and CLI, which hand its "
                             "content over; a program that validates config itself passes the content, read with "
                             "prescale.calendar_file.read_calendar")
    return value


# --- the whole stack ----------------------------------------------------------------------------------

class CapacityConfig(Model):
    """The scheduled capacity alone: node pools, event windows and their placeholders.

    What :func:`prescale.capacity.deploy_capacity` needs, and all a program that brings its own cluster,
    Karpenter and KEDA gives when it uses prescale as a library
    (:func:`prescale.model.validation.load_capacity_config`).
    """

    keda: KedaConfig = Field(default=KedaConfig(), description=(
        "Whether prescale installs KEDA, and the version of the KEDA that runs the windows' triggers."))
    node_pools: list[NodePoolConfig] = Field(default=[], description=(
        "The node pools windows take nodes from: each a Karpenter NodePool and EC2NodeClass prescale creates, or "
        "a NodePool that already runs (docs/capacity.md#node-pools)."))
    event_windows: list[EventWindow] = Field(default=[], description=(
        "When capacity must be ready, on which pool, and how much: recurring (crons) or one-off (date-times) "
        "windows (docs/capacity.md#a-windows-timeline)."))
    calendar: Annotated[CalendarConfig | CalendarPath | None, AfterValidator(_calendar_read)] = Field(
        default=None, description=(
        "Events several stacks share, which windows name by their event key: the path of a calendar file "
        "(YAML with events:), relative to the project directory, or the calendar itself, e.g. from a Pulumi ESC "
        "environment's pulumiConfig (docs/fleet.md#one-calendar)."))

    placeholders: PlaceholderConfig = Field(default=PlaceholderConfig(), description=(
        "The pause pods that hold the capacity, shared by all windows."))
    pricing: PricingConfig = Field(default=PricingConfig(), description=(
        "On-demand prices for prescale schedule's cost estimate (docs/cli.md#the-cost-estimate)."))
    tags: dict[StrictStr, StrictStr] = Field(default={}, description="Tags on every AWS resource prescale creates.")
    quotas: dict[QuotaFamily, Annotated[int, Field(ge=0, strict=True)]] = Field(default={}, description=(
        "The account's On-Demand vCPU quotas in the stack's region, by family group (standard, f, g, inf, p, x, dl, "
        "trn, hpc, high-memory), that prescale fleet holds the fleet's events against (docs/fleet.md#the-fleet)."))
    alerts: AlertsConfig = Field(default=AlertsConfig(), description="Alerting rules for the windows; off by default.")

    def node_pool(self, name: str) -> NodePoolConfig:
        """The valid node pool ``name``; KeyError if none (a refused pool is not in :attr:`node_pools`: the checks
        hold it themselves, and pass it, not its name)."""
        for pool in self.node_pools:
            if pool.name == name:
                return pool
        raise KeyError(name)

    def placeholders_for(self, pool: str | NodePoolConfig) -> PlaceholderConfig:
        """The placeholder settings of windows on node pool ``pool`` (a valid pool's name, or the pool itself, which
        may be what is left of a refused one): its own ``nodeSize``/``maxPodSize`` where it gives them, the
        stack-wide ones otherwise."""
        if isinstance(pool, str):
            pool = self.node_pool(pool)
        own = {key: size for key in ("node_size", "max_pod_size") if (size := getattr(pool, key)) is not None}
        return self.placeholders.model_copy(update=own) if own else self.placeholders


class StackConfig(CapacityConfig):
    """Everything the program needs, validated together: the capacity plus the platform it runs on."""

    region: Annotated[StrictStr, _shaped(r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]",
                                         'an AWS region code like "ap-northeast-2" or "us-east-1"')] = Field(
        description=("The AWS region of the cluster: the AWS provider's own key, which prescale reads too (the "
                     "controller policy is scoped to it)."))
    cluster: ClusterConfig = Field(description=(
        "The EKS cluster: a new one (create: true, the default) or an existing one looked up by name."))
    karpenter: KarpenterConfig = Field(default=KarpenterConfig(), description=(
        "Whether prescale installs Karpenter, its version, how its controller gets AWS credentials, and the node "
        "role of the EC2NodeClasses; refused with cluster.autoMode, where AWS runs Karpenter."))
