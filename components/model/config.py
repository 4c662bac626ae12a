"""The stack config model: what users write in ``Pulumi.<stack>.yaml``, as typed, immutable models.

Each model checks its own values; :func:`prescale.model.validation.load_stack_config` is the door that
runs them and the cross-key rules together and reports every problem at once.

Models are strict (no ``"5"`` for ``5``, no ``yes`` for ``true``) and forbid unknown keys, so typos fail
loudly instead of silently falling back to defaults.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
from datetime import datetime, timedelta
from functools import cache
from typing import Annotated, Literal
from zoneinfo import available_timezones

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr,
                      field_validator, model_validator)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from .cron import CronError, parse_cron
from .duration import ALLOWED as DURATION_ALLOWED
from .duration import parse_duration
from .quantity import ALLOWED as QUANTITY_ALLOWED
from .quantity import parse_quantity

NAMESPACE = "prescale"


def _fail(kind: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(kind, message)


# --- scalar types -----------------------------------------------------------------------------------

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def _dns_label(max_length: int):
    def check(value: str) -> str:
        if not _DNS_LABEL.match(value) or len(value) > max_length:
            raise _fail("dns_label", f"must be a DNS-1123 label: lowercase letters, digits and '-', starting "
                                     f"and ending with a letter or digit, at most {max_length} characters")
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


# Window names become parts of Kubernetes object names (`prescale-<window>` ScaledObject → HPA
# `keda-hpa-prescale-<window>` must stay within 63 characters), hence the tighter limit.
WindowName = Annotated[StrictStr, _dns_label(40)]
PoolName = Annotated[StrictStr, _dns_label(40)]
Version = Annotated[StrictStr, AfterValidator(_semver)]
Quantity = Annotated[StrictStr, AfterValidator(_quantity)]
Duration = Annotated[StrictStr, AfterValidator(_duration)]
DurationOrNever = Annotated[StrictStr, AfterValidator(_duration_or_never)]


class Model(BaseModel):
    """Strict, immutable, camelCase-keyed, and closed to unknown keys."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)


# --- cluster, add-ons ---------------------------------------------------------------------------------

class SystemNodeGroupConfig(Model):
    """The small managed node group that runs Karpenter, KEDA and CoreDNS (never Karpenter's own nodes)."""

    instance_types: list[Annotated[StrictStr, Field(pattern=r"^[a-z][a-z0-9-]*\.[a-z0-9]+$")]] = Field(
        default=["m7i.large"], min_length=1)
    min_size: StrictInt = Field(default=2, ge=2)
    desired_size: StrictInt = Field(default=2, ge=2)
    max_size: StrictInt = Field(default=3, ge=2)
    disk_size_gib: StrictInt = Field(default=50, ge=20, le=16384)

    @model_validator(mode="after")
    def _sizes_ordered(self):
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
SubnetId = Annotated[StrictStr, Field(pattern=r"^subnet-[0-9a-f]{8,17}$")]


class ClusterConfig(Model):
    """``prescale:cluster``: a new EKS cluster (``create: true``) or an existing one looked up by name."""

    name: Annotated[StrictStr, Field(pattern=r"^[A-Za-z][A-Za-z0-9-]{0,37}[A-Za-z0-9]$")]
    create: StrictBool = True
    # The default: the newest version KEDA 2.20 is tested on (1.33-1.35) and the default failsafe kubectl 1.34
    # supports (one minor either way); in EKS standard support until 2027-03-27 (prescale.model.eks_versions).
    kubernetes_version: Annotated[StrictStr, Field(pattern=r"^1\.(3[0-6])$")] = "1.35"
    # EKS upgradePolicy: STANDARD lets AWS upgrade the control plane when standard support ends; EXTENDED
    # keeps the version 12 months longer at extra cost per cluster hour.
    support_type: Literal["STANDARD", "EXTENDED"] = "STANDARD"
    vpc_id: Annotated[StrictStr, Field(pattern=r"^vpc-[0-9a-f]{8,17}$")] | None = None
    private_subnet_ids: list[SubnetId] | None = Field(default=None, min_length=2)
    public_subnet_ids: list[SubnetId] | None = None
    vpc_cidr: Cidr = "10.0.0.0/16"
    availability_zones: StrictInt = Field(default=3, ge=2, le=6)
    nat_gateways: Literal["single", "onePerAz"] = "single"
    endpoint_public_access: StrictBool = True
    public_access_cidrs: list[Cidr] = Field(default=["0.0.0.0/0"], min_length=1)
    endpoint_private_access: StrictBool = True
    system_node_group: SystemNodeGroupConfig = SystemNodeGroupConfig()
    admin_role_arns: list[Annotated[StrictStr, Field(pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$")]] = []

    @model_validator(mode="after")
    def _network_fields_consistent(self):
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
                raise _fail("model", f"{', '.join(given)} only apply when create is true; an existing "
                                        "cluster is used as it is")
        return self


class KarpenterConfig(Model):
    """``prescale:karpenter``: chart version and how the controller gets AWS credentials."""

    version: Version = "1.14.1"
    controller_auth: Literal["podIdentity", "irsa"] = "podIdentity"
    create_spot_service_linked_role: StrictBool = False

    @field_validator("version")
    @classmethod
    def _v1_api(cls, value: str) -> str:
        if int(value.split(".")[0]) < 1:
            raise _fail("version", "must be 1.0.0 or newer: prescale declares karpenter.sh/v1 resources")
        return value


class KedaConfig(Model):
    """``prescale:keda``: chart version (the cron scaler semantics are KEDA ≥ 2.18's)."""

    version: Version = "2.20.2"

    @field_validator("version")
    @classmethod
    def _metric_zero_when_inactive(cls, value: str) -> str:
        major, minor, _ = (int(p) for p in value.split("."))
        if (major, minor) < (2, 18):
            raise _fail("version", "must be 2.18.0 or newer: older cron scalers report 1 replica outside "
                                   "windows (kedacore/keda#6886), so placeholders would never reach zero")
        return value


# --- node pools ---------------------------------------------------------------------------------------

class Limits(Model):
    """The most a NodePool may launch; Karpenter stops provisioning beyond it."""

    cpu: Quantity
    memory: Quantity
    nodes: StrictInt | None = Field(default=None, ge=1)


class Taint(Model):
    key: Annotated[StrictStr, Field(pattern=r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
                                    max_length=316)]
    value: Annotated[StrictStr, Field(pattern=r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$", max_length=63)] = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"


class NodePoolConfig(Model):
    """One ``prescale:nodePools`` entry → one Karpenter NodePool and EC2NodeClass."""

    name: PoolName
    capacity_types: list[Literal["on-demand", "spot", "reserved"]] = Field(default=["on-demand"], min_length=1)
    instance_categories: list[Annotated[StrictStr, Field(pattern=r"^[a-z]+$")]] = Field(
        default=["c", "m", "r"], min_length=1)
    architectures: list[Literal["amd64", "arm64"]] = Field(default=["amd64"], min_length=1)
    limits: Limits
    # Pinned: `@latest` rolls every node whenever AWS publishes an AMI (Karpenter docs advise against it).
    ami_alias: Annotated[StrictStr, Field(pattern=r"^(al2023|bottlerocket)@(latest|v[0-9][0-9A-Za-z.\-]*)$")] = \
        "al2023@v20260828"
    taints: list[Taint] = []
    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized"] = "WhenEmptyOrUnderutilized"
    consolidate_after: Duration = "2m"
    # Budgets do not stop expiry, so a lifetime timer could end a node mid-event: off by default; event
    # nodes are short-lived anyway because consolidation removes them after each window.
    expire_after: DurationOrNever = "Never"
    termination_grace_period: Duration = "1h"
    weight: StrictInt | None = Field(default=None, ge=1, le=100)

    @field_validator("capacity_types", "instance_categories", "architectures")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        duplicates = sorted({v for v in values if values.count(v) > 1})
        if duplicates:
            raise _fail("unique", f"lists {', '.join(duplicates)} more than once")
        return values


# --- event windows ------------------------------------------------------------------------------------

class Capacity(Model):
    """Capacity to hold ready for an event, as pod requests (CPU cores and memory)."""

    cpu: Quantity
    memory: Quantity


LOCAL_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$")


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _time_zone(value: str) -> str:
    if value not in _time_zones():
        close = difflib.get_close_matches(value, sorted(_time_zones()), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise _fail("timezone", f"is not an IANA time zone like \"Asia/Seoul\" or \"UTC\"{hint}")
    return value


class EventWindow(Model):
    """One ``prescale:eventWindows`` entry: when capacity must be ready, where, and how much.

    ``start``/``end`` are either both 5-field crons in KEDA's dialect (a recurring window) or both local
    date-times ``YYYY-MM-DDTHH:MM`` (a one-off event), always read in ``timezone``. How the two fit together
    over time is checked by :mod:`prescale.model.config_checks`, which can name the exact key at fault.
    """

    name: WindowName
    node_pool: StrictStr
    timezone: Annotated[StrictStr, AfterValidator(_time_zone)]
    start: StrictStr
    end: StrictStr
    nodes: StrictInt | None = Field(default=None, ge=1, le=1000)
    capacity: Capacity | None = None
    lead_time: Duration = "10m"

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
    def _one_amount(self):
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
    node_size: Capacity = Capacity(cpu="1", memory="2Gi")
    # `capacity:` windows: the largest single placeholder; capacity is split into pods no bigger than this
    # so that Karpenter can pack them onto the pool's instance types.
    max_pod_size: Capacity = Capacity(cpu="4", memory="16Gi")
    # Failsafe: placeholders are forced to zero this long after a window's end, even if KEDA is down.
    failsafe_grace: Duration = "15m"
    # The failsafe's kubectl: upstream's own image (registry.k8s.io, published with every Kubernetes release
    # since 1.28), pinned to the default cluster version; point it at a mirror for air-gapped clusters.
    failsafe_image: Annotated[StrictStr, Field(min_length=1)] = "registry.k8s.io/kubectl:v1.34.3"


class PricingConfig(Model):
    """``prescale:pricing``: on-demand prices for the cost estimate of ``prescale schedule``."""

    # USD per vCPU-hour, used for instance types without their own price.
    vcpu_hour: Annotated[float, Field(gt=0, strict=False)] = 0.05
    # USD per hour for given instance types, e.g. {"c7i.xlarge": 0.1785}.
    instance_types: dict[StrictStr, Annotated[float, Field(gt=0, strict=False)]] = {}


# --- the whole stack ----------------------------------------------------------------------------------

class StackConfig(Model):
    """Everything the program needs, validated together."""

    region: Annotated[StrictStr, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$")]
    cluster: ClusterConfig
    karpenter: KarpenterConfig = KarpenterConfig()
    keda: KedaConfig = KedaConfig()
    node_pools: list[NodePoolConfig] = []
    event_windows: list[EventWindow] = []
    placeholders: PlaceholderConfig = PlaceholderConfig()
    pricing: PricingConfig = PricingConfig()
    tags: dict[StrictStr, StrictStr] = {}

    def node_pool(self, name: str) -> NodePoolConfig:
        return next(pool for pool in self.node_pools if pool.name == name)
