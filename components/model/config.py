"""The stack config model: what users write in ``Pulumi.<stack>.yaml``, as typed, immutable models.

Each model checks its own values; :func:`prescale.model.validation.load_stack_config` is the door that
runs them and the cross-key rules together and reports every problem at once.

Models are strict (no ``"5"`` for ``5``, no ``yes`` for ``true``) and forbid unknown keys, so typos fail
loudly instead of silently falling back to defaults.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from .fleet.labels import CAPACITY_TYPE, CAPACITY_TYPES, OS, key_problem
from .fleet.quantity import ALLOWED as QUANTITY_ALLOWED
from .fleet.quantity import parse_quantity
from .schedule.cron import CronError, parse_cron
from .schedule.duration import ALLOWED as DURATION_ALLOWED
from .schedule.duration import parse_duration
from .schedule.keda import Occurrence, one_off_occurrence
from .schedule.time_zones import time_zone_problem

CONFIG_NAMESPACE = "prescale"


def _fail(kind: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(kind, message)


# --- scalar types -----------------------------------------------------------------------------------

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def _dns_label(max_length: int) -> AfterValidator:
    def check(value: str) -> str:
        if not _DNS_LABEL.match(value) or len(value) > max_length:
            raise _fail("dns_label", f"must be a DNS-1123 label: lowercase letters, digits and '-', starting "
                                     f"and ending with a letter or digit, at most {max_length} characters")
        return value
    return AfterValidator(check)


def _shaped(pattern: str, shape: str) -> AfterValidator:
    """A string that must match ``pattern`` (whole), refused in words: ``shape`` says what the value looks
    like, with an example, instead of showing the regular expression."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise _fail("format", f"must be {shape}")
        return value
    return AfterValidator(check)


def _semver(value: str) -> str:
    if not _SEMVER.match(value):
        raise _fail("semver", "must be an exact version MAJOR.MINOR.PATCH without 'v' or ranges (e.g. \"1.14.1\")")
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
    except ValueError:
        raise _fail("duration", f"is not a duration; use {DURATION_ALLOWED}") from None
    return value


def _duration_or_never(value: str) -> str:
    return value if value == "Never" else _duration(value)


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
Version = Annotated[StrictStr, AfterValidator(_semver)]
Quantity = Annotated[StrictStr, AfterValidator(_quantity)]
Duration = Annotated[StrictStr, BeforeValidator(_number_for_duration), AfterValidator(_duration)]
DurationOrNever = Annotated[StrictStr, BeforeValidator(_number_for_duration), AfterValidator(_duration_or_never)]


class Model(BaseModel):
    """Strict, immutable, camelCase-keyed, and closed to unknown keys."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)


# --- cluster, add-ons ---------------------------------------------------------------------------------

class SystemNodeGroupConfig(Model):
    """The small managed node group that runs Karpenter, KEDA and CoreDNS (never Karpenter's own nodes)."""

    instance_types: list[Annotated[StrictStr, _shaped(r"[a-z][a-z0-9-]*\.[a-z0-9]+",
                                                      'an EC2 instance type like "m7i.large" (lowercase)')]] = Field(
        default=["m7i.large"], min_length=1)
    min_size: StrictInt = Field(default=2, ge=2)
    desired_size: StrictInt = Field(default=2, ge=2)
    max_size: StrictInt = Field(default=3, ge=2)
    disk_size_gib: StrictInt = Field(default=50, ge=20, le=16384)

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
        raise _fail("cidr", "must be an IPv4 or IPv6 CIDR block like \"10.0.0.0/16\"") from None
    return value


Cidr = Annotated[StrictStr, AfterValidator(_cidr)]
SubnetId = Annotated[StrictStr, _shaped(r"subnet-[0-9a-f]{8,17}",
                                        'a subnet id like "subnet-0123456789abcdef0" (8 to 17 hex digits)')]


class ClusterConfig(Model):
    """``prescale:cluster``: a new EKS cluster (``create: true``) or an existing one looked up by name."""

    name: Annotated[StrictStr, _shaped(r"[A-Za-z][A-Za-z0-9-]{0,37}[A-Za-z0-9]",
                                       'a cluster name like "prescale-prod": 2 to 39 letters, digits and \'-\', '
                                       "starting with a letter and ending with a letter or digit")]
    create: StrictBool = True
    # The default: the newest version KEDA 2.20 is tested on (1.33-1.35) and the default failsafe kubectl 1.34
    # supports (one minor either way); in EKS standard support until 2027-03-27 (prescale.model.checks.eks_versions).
    kubernetes_version: Annotated[StrictStr, _shaped(r"1\.3[0-6]", 'a Kubernetes version that Karpenter 1.14 '
                                                     'supports, "1.30" to "1.36", in quotes (e.g. "1.35")')] = "1.35"
    # EKS upgradePolicy: STANDARD lets AWS upgrade the control plane when standard support ends; EXTENDED
    # keeps the version 12 months longer at extra cost per cluster hour.
    support_type: Literal["STANDARD", "EXTENDED"] = "STANDARD"
    vpc_id: Annotated[StrictStr, _shaped(r"vpc-[0-9a-f]{8,17}",
                                         'a VPC id like "vpc-0123456789abcdef0" (8 to 17 hex digits)')] | None = None
    private_subnet_ids: list[SubnetId] | None = Field(default=None, min_length=2)
    public_subnet_ids: list[SubnetId] | None = None
    vpc_cidr: Cidr = "10.0.0.0/16"
    availability_zones: StrictInt = Field(default=3, ge=2, le=6)
    nat_gateways: Literal["single", "onePerAz"] = "single"
    endpoint_public_access: StrictBool = True
    public_access_cidrs: list[Cidr] = Field(default=["0.0.0.0/0"], min_length=1)
    endpoint_private_access: StrictBool = True
    system_node_group: SystemNodeGroupConfig = SystemNodeGroupConfig()
    admin_role_arns: list[Annotated[StrictStr, _shaped(
        r"arn:aws[a-z-]*:iam::[0-9]{12}:role/.+",
        'an IAM role ARN like "arn:aws:iam::123456789012:role/platform-admin"')]] = []
    # EKS Auto Mode: AWS runs Karpenter and the add-ons' nodes; prescale only adds NodeClasses and NodePools.
    auto_mode: StrictBool = False

    @model_validator(mode="after")
    def _network_fields_consistent(self) -> Self:
        if (self.vpc_id is None) != (self.private_subnet_ids is None):
            raise _fail("model", "vpcId and privateSubnetIds go together: give both to use an existing VPC, "
                               "or neither to create one")
        if self.public_subnet_ids is not None and self.vpc_id is None:
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


# Karpenter minor releases whose controller IAM policy prescale carries (prescale.karpenter_policy, written
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


class KarpenterConfig(Model):
    """``prescale:karpenter``: whether prescale installs Karpenter, its version, how the controller gets AWS
    credentials, and the node role EC2NodeClasses name.

    ``install: false`` means a Karpenter (v1 API, ≥ 1.0) already runs in the cluster: prescale then adds only
    NodePools/EC2NodeClasses and needs ``nodeRoleName``, the role that Karpenter may pass to its instances.
    """

    install: StrictBool = True
    version: Version = "1.14.1"
    controller_auth: Literal["podIdentity", "irsa"] = "podIdentity"
    create_spot_service_linked_role: StrictBool = False
    # An existing IAM role (name, not ARN) for the nodes of the EC2NodeClasses prescale creates.
    node_role_name: IamRoleName | None = None
    values: dict[StrictStr, Any] = Field(default={}, description=(
        "Helm values for the karpenter chart prescale installs, deep-merged over the values prescale renders (maps "
        "merge, lists and scalars replace); keys prescale owns (settings.clusterName, serviceAccount, the system "
        "placement...) and keys the chart does not know are refused (docs/platform.md#helm-values)."))

    @field_validator("version")
    @classmethod
    def _v1_api(cls, value: str) -> str:
        if int(value.split(".")[0]) < 1:
            raise _fail("version", "must be 1.0.0 or newer: prescale declares karpenter.sh/v1 resources")
        return value

    @field_validator("version")
    @classmethod
    def _policy_carried(cls, value: str, info: ValidationInfo) -> str:
        problem = karpenter_policy_problem(value) if info.data.get("install", True) else None
        if problem:
            raise _fail("version", problem)
        return value


class KedaConfig(Model):
    """``prescale:keda``: whether prescale installs KEDA, and the version of the KEDA that runs the triggers.

    With ``install: true`` the version is the chart prescale installs; with ``install: false`` it is the version
    of the KEDA already in the cluster, so the checks that depend on it (cron commas before 2.20) hold.
    """

    install: StrictBool = True
    version: Version = "2.20.2"
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

    cpu: Quantity
    memory: Quantity


# --- node pools ---------------------------------------------------------------------------------------

def _integer_as_quantity(value: object) -> object:
    """Karpenter, like Kubernetes, reads ``cpu: 1000`` as the quantity ``"1000"``: an integer becomes that text."""
    if type(value) is int:  # not bool: `true` is no quantity
        return str(value)
    if not isinstance(value, str):
        raise _fail("quantity", f"is not a Kubernetes quantity; use an integer or a string of {QUANTITY_ALLOWED}")
    return value


# A NodePool limit: a quantity string or an integer (Karpenter's own getting-started pool has `cpu: 1000`).
LimitQuantity = Annotated[StrictStr, BeforeValidator(_integer_as_quantity), AfterValidator(_quantity)]


class Limits(Model):
    """The most a NodePool may launch; Karpenter stops provisioning beyond it.

    Like Karpenter, any of cpu, memory and nodes may be given; the capacity checks use the ones that are. At least
    one is required: a pool prescale creates is bounded (an empty map would let it launch without end).
    """

    cpu: LimitQuantity | None = None
    memory: LimitQuantity | None = None
    nodes: StrictInt | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        if self.cpu is None and self.memory is None and self.nodes is None:
            raise _fail("model", "{} (no cpu, memory or nodes) bounds nothing, so the pool could launch without "
                                 "end; allowed: at least one of cpu, memory or nodes, e.g. {cpu: 1000}")
        return self


class TaintConfig(Model):
    key: Annotated[StrictStr, Field(max_length=316),
                   _shaped(r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?",
                           'a taint key like "dedicated" or "example.com/dedicated": letters, digits, \'-\', '
                           "'_' and '.', starting and ending with a letter or digit, after an optional "
                           "lowercase DNS prefix and '/'")]
    value: Annotated[StrictStr, Field(max_length=63),
                     _shaped(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?",
                             'empty or a taint value like "event": letters, digits, \'-\', \'_\' and \'.\', starting '
                             "and ending with a letter or digit")] = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"


# The default taint (PreferNoSchedule) dedicates event pools softly; why: prescale.node_pools, docs/capacity.md.
EVENT_CAPACITY_TAINT_KEY = "prescale.io/event-capacity"


class SubnetSelectorTerm(Model):
    """Subnets for an EC2NodeClass: by tags (all must match) or by id."""

    tags: dict[StrictStr, StrictStr] | None = Field(default=None, min_length=1)
    id: Annotated[StrictStr, _shaped(r"subnet-[0-9a-z]+", 'a subnet id like "subnet-0a1b2c3d"')] | None = None

    @model_validator(mode="after")
    def _one_selector(self) -> Self:
        return _exactly_one_selector(self)


class SecurityGroupSelectorTerm(Model):
    """Security groups for an EC2NodeClass: by tags (all must match), by id or by name."""

    tags: dict[StrictStr, StrictStr] | None = Field(default=None, min_length=1)
    id: Annotated[StrictStr, _shaped(r"sg-[0-9a-z]+", 'a security group id like "sg-0a1b2c3d"')] | None = None
    name: StrictStr | None = None

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

    key: RequirementKey
    operator: RequirementOperator
    values: list[LabelValue] = []
    # Karpenter (MIN_VALUES_POLICY Strict, its default) launches only when the key keeps this many distinct values.
    min_values: StrictInt | None = Field(default=None, ge=1, le=50)

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
        = None
    tags: dict[Annotated[StrictStr, Field(min_length=1)], Annotated[StrictStr, Field(min_length=1)]] | None = Field(
        default=None, min_length=1, max_length=20)
    owner_id: Annotated[StrictStr, _shaped(r"[0-9]{12}", 'an AWS account id of 12 digits like "123456789012"')] | None \
        = Field(default=None, alias="ownerID")

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


# Keys a pool that prescale does not own (``existing: true``) may take: its NodePool belongs to someone else (the
# placeholder sizes are its windows', not the pool's).
EXISTING_POOL_KEYS = frozenset({"name", "existing", "taints", "limits", "nodeSize", "maxPodSize"})
# Keys that shape the EC2NodeClass prescale creates, so they cannot go with ``nodeClassName``.
NODE_CLASS_KEYS = frozenset({"amiAlias", "subnetSelectorTerms", "securityGroupSelectorTerms",
                             "capacityReservationSelectorTerms"})

# EKS Auto Mode ends every node after at most 21 days, so expireAfter + terminationGracePeriod must fit in
# that. Its default is as late as possible (fewest forced replacements, each of which could fall inside an
# event) while leaving a day for terminationGracePeriod, Auto Mode's own 24h default included.
AUTO_MODE_MAX_NODE_LIFETIME = timedelta(days=21)
AUTO_MODE_EXPIRE_AFTER = "480h"


class NodePoolConfig(Model):
    """One ``prescale:nodePools`` entry: a Karpenter NodePool (and EC2NodeClass) prescale creates, or with
    ``existing: true`` a NodePool that already runs in the cluster and that windows may use as it is."""

    name: PoolName
    # A NodePool of the cluster's own (by its exact name): prescale creates nothing for it and never
    # touches its disruption budgets; its placeholders carry `karpenter.sh/do-not-disrupt` instead.
    existing: StrictBool = False
    capacity_types: list[Literal["on-demand", "spot", "reserved"]] = Field(default=["on-demand"], min_length=1)
    instance_categories: list[Annotated[StrictStr, _shaped(r"[a-z]+", 'an EC2 instance category: lowercase '
                                                           'letters like "c", "m" or "r"')]] = Field(
        default=["c", "m", "r"], min_length=1)
    architectures: list[Literal["amd64", "arm64"]] = Field(default=["amd64"], min_length=1)
    # More of the NodePool's requirements, in Karpenter's shape; a key written here replaces its shorthand's default.
    requirements: list[NodeRequirement] = []
    # For windows on this pool, instead of placeholders.nodeSize / placeholders.maxPodSize.
    node_size: CapacityRequest | None = None
    max_pod_size: CapacityRequest | None = None
    # Required for pools prescale creates (a pool without limits could launch without bound); optional for an
    # existing pool, where it only feeds prescale's capacity checks.
    limits: Limits | None = Field(default=None, validate_default=True)
    # An existing EC2NodeClass (by name) for this pool instead of one prescale creates.
    node_class_name: Annotated[StrictStr, _shaped(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", 'a Kubernetes object name like '
                                                   '"default": lowercase letters, digits, "-" and "."'),
                               Field(max_length=253)] | None = None
    # Pinned: `@latest` rolls every node whenever AWS publishes an AMI (Karpenter docs advise against it).
    ami_alias: Annotated[StrictStr, _shaped(r"(al2023|bottlerocket)@(latest|v[0-9][0-9A-Za-z.\-]*)",
                                            'an AMI alias like "al2023@v20260828" or "bottlerocket@v1.30.0" '
                                            "(al2023 or bottlerocket, '@', and a version or latest)")] = \
        "al2023@v20260828"
    # Unset: the subnets and security groups tagged `karpenter.sh/discovery: <cluster>`.
    subnet_selector_terms: list[SubnetSelectorTerm] | None = Field(default=None, min_length=1, max_length=30)
    security_group_selector_terms: list[SecurityGroupSelectorTerm] | None = Field(
        default=None, min_length=1, max_length=30)
    # Reservations the pool may launch into (`reserved` capacity, which Karpenter prefers); none unless given.
    capacity_reservation_selector_terms: list[CapacityReservationSelectorTerm] | None = Field(
        default=None, min_length=1, max_length=30)
    # A list set in config replaces this default: `[]` shares the pool, a NoSchedule taint dedicates it. An
    # existing pool has no taint unless given: the placeholders tolerate what its owner set, nothing more.
    taints: list[TaintConfig] = [TaintConfig(key=EVENT_CAPACITY_TAINT_KEY, effect="PreferNoSchedule")]
    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized"] = "WhenEmptyOrUnderutilized"
    consolidate_after: Duration = "2m"
    # Budgets do not stop expiry, so a lifetime timer could end a node mid-event: off by default; event
    # nodes are short-lived anyway because consolidation removes them after each window.
    expire_after: DurationOrNever = "Never"
    termination_grace_period: Duration = "1h"
    weight: StrictInt | None = Field(default=None, ge=1, le=100)

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

    @field_validator("limits")
    @classmethod
    def _owned_pools_need_limits(cls, value: Limits | None, info: ValidationInfo) -> Limits | None:
        if value is None and not info.data.get("existing", False):
            raise _fail("model", "required key is missing: a node pool prescale creates needs limits "
                                 "(e.g. {cpu: \"512\", memory: 2048Gi}), or it could launch without bound")
        return value

    @model_validator(mode="after")
    def _keys_fit_the_kind_of_pool(self) -> Self:
        given = {to_camel(f) for f in self.model_fields_set}
        if self.existing and given - EXISTING_POOL_KEYS:
            raise _fail("model", f"an existing pool (existing: true) is used as it is, so it takes only "
                                 f"{', '.join(sorted(EXISTING_POOL_KEYS))}; these keys only shape pools prescale "
                                 f"creates: {', '.join(sorted(given - EXISTING_POOL_KEYS))}")
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


class ReserveConfig(Model):
    """``eventWindows[].reserve``: targeted On-Demand Capacity Reservations that hold EC2 capacity for a one-off
    window, created only by a ``pulumi up`` within ``holdFrom`` of its scale-up
    (:mod:`prescale.model.fleet.reservations`; docs/capacity.md, "Capacity reservations for one-off events")."""

    instance_type: Annotated[StrictStr, _shaped(r"[a-z][a-z0-9-]*\.[a-z0-9]+",
                                                'an EC2 instance type like "m7i.xlarge" (lowercase)')]
    # Unset: the nodes the window needs (nodes: N → N; capacity → its placeholders over what one node holds).
    count: StrictInt | None = Field(default=None, ge=1, le=1000)
    # Unset: the zones of the pool's topology.kubernetes.io/zone requirement.
    availability_zones: Annotated[tuple[AvailabilityZone, ...], BeforeValidator(_list_as_tuple),
                                  AfterValidator(_distinct), Field(min_length=1)] | None = None
    hold_from: Duration = "24h"

    @field_validator("hold_from")
    @classmethod
    def _positive_whole_minutes(cls, value: str) -> str:
        hold = parse_duration(value)
        if not hold or hold.total_seconds() % 60:
            raise _fail("lead", "must be whole minutes and more than zero: the reservation is created by a "
                                "`pulumi up` that long before the scale-up or later")
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

    name: WindowName
    node_pool: StrictStr
    timezone: Annotated[StrictStr, AfterValidator(_time_zone)]
    start: StrictStr
    end: StrictStr
    nodes: StrictInt | None = Field(default=None, ge=1, le=1000)
    capacity: CapacityRequest | None = None
    lead_time: Duration = "10m"
    # Images the window's placeholders pull onto their nodes during the lead time (prescale.capacity.prepull).
    prepull_images: Annotated[tuple[ImageReference, ...], BeforeValidator(_list_as_tuple),
                              AfterValidator(_distinct)] = ()
    # One-off windows only: EC2 capacity reserved for the event (targeted On-Demand Capacity Reservations).
    reserve: ReserveConfig | None = None

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
    def _one_amount(self) -> Self:
        if (self.nodes is None) == (self.capacity is None):
            given = "both" if self.nodes is not None else "neither"
            raise _fail("model", f"give exactly one of nodes (a node count) or capacity ({{cpu, memory}}); "
                                 f"got {given}")
        return self


class PlaceholderConfig(Model):
    """``prescale:placeholders``: the pause pods that hold capacity, shared by all windows."""

    image: Annotated[StrictStr, Field(min_length=1)] = "registry.k8s.io/pause:3.10"
    # Below the default priority (0) so that every real pod preempts placeholders.
    priority: StrictInt = Field(default=-10, lt=0, ge=-1_000_000_000)
    # `nodes: N` windows: what each placeholder requests, i.e. the free room each of the N nodes will have.
    node_size: CapacityRequest = CapacityRequest(cpu="1", memory="2Gi")
    # `capacity:` windows: the largest single placeholder; capacity is split into pods no bigger than this
    # so that Karpenter can pack them onto the pool's instance types.
    max_pod_size: CapacityRequest = CapacityRequest(cpu="4", memory="16Gi")
    # Failsafe: placeholders are forced to zero this long after a window's end, even if KEDA is down.
    failsafe_grace: Duration = "15m"
    # The failsafe's kubectl: upstream's own image (registry.k8s.io, published with every Kubernetes release
    # since 1.28), pinned to the default cluster version; point it at a mirror for air-gapped clusters.
    failsafe_image: Annotated[StrictStr, Field(min_length=1)] = "registry.k8s.io/kubectl:v1.34.3"
    # Secrets (in namespace `prescale`, created by you) the placeholder pods pull with, for registries the
    # node role cannot read; ECR in the account needs none.
    image_pull_secrets: Annotated[tuple[SecretName, ...], BeforeValidator(_list_as_tuple),
                                  AfterValidator(_distinct)] = ()
    # Windows with prepullImages: the image whose static `/bin/true` each pulled image runs (busybox's musl build,
    # from the Docker official image's ECR Public mirror); point it at a mirror for air-gapped clusters.
    prepull_tool_image: ImageReference = "public.ecr.aws/docker/library/busybox:1.37.0-musl"


class PricingConfig(Model):
    """``prescale:pricing``: on-demand prices for the cost estimate of ``prescale schedule``."""

    # USD per vCPU-hour, used for instance types without their own price.
    vcpu_hour: Annotated[float, Field(gt=0, strict=False)] = 0.05
    # USD per hour for given instance types, e.g. {"c7i.xlarge": 0.1785}.
    instance_types: dict[StrictStr, Annotated[float, Field(gt=0, strict=False)]] = {}


class AlertsConfig(Model):
    """``prescale:alerts``: alerting rules for the windows, for a cluster that already runs the Prometheus Operator
    and kube-state-metrics (docs/alerts.md). Off by default."""

    # A `monitoring.coreos.com/v1` PrometheusRule in namespace `prescale` watching every armed window.
    prometheus_rule: StrictBool = False


# --- the whole stack ----------------------------------------------------------------------------------

class CapacityConfig(Model):
    """The scheduled capacity alone: node pools, event windows and their placeholders.

    What :func:`prescale.capacity.deploy_capacity` needs, and all a program that brings its own cluster,
    Karpenter and KEDA gives when it uses prescale as a library
    (:func:`prescale.model.validation.load_capacity_config`).
    """

    keda: KedaConfig = KedaConfig()
    node_pools: list[NodePoolConfig] = []
    event_windows: list[EventWindow] = []
    placeholders: PlaceholderConfig = PlaceholderConfig()
    pricing: PricingConfig = PricingConfig()
    tags: dict[StrictStr, StrictStr] = {}
    alerts: AlertsConfig = AlertsConfig()

    def node_pool(self, name: str) -> NodePoolConfig:
        return next(pool for pool in self.node_pools if pool.name == name)

    def placeholders_for(self, pool_name: str) -> PlaceholderConfig:
        """The placeholder settings of windows on node pool ``pool_name``: its own ``nodeSize``/``maxPodSize``
        where it gives them, the stack-wide ones otherwise."""
        pool = self.node_pool(pool_name)
        own = {key: size for key in ("node_size", "max_pod_size") if (size := getattr(pool, key)) is not None}
        return self.placeholders.model_copy(update=own) if own else self.placeholders


class StackConfig(CapacityConfig):
    """Everything the program needs, validated together: the capacity plus the platform it runs on."""

    region: Annotated[StrictStr, _shaped(r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]",
                                         'an AWS region code like "ap-northeast-2" or "us-east-1"')]
    cluster: ClusterConfig
    karpenter: KarpenterConfig = KarpenterConfig()
