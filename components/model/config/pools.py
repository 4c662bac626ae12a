"""``prescale:nodePools``: each pool's NodePool and node class, or an existing NodePool, and the keys its strategy
takes (the strategy's own rules run from :mod:`prescale.model.strategies`, handed over in the validation context).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ..values.duration import parse_duration
from ..values.labels import CAPACITY_TYPE, CAPACITY_TYPES, OS, key_problem
from ..values.quantity import ALLOWED as QUANTITY_ALLOWED
from ..values.quantity import parse_quantity
from .base import (
    _QUANTITY_FACTS,
    CapacityRequest,
    Memory,
    Model,
    NodePoolDuration,
    NodePoolDurationOrNever,
    PoolName,
    _distinct,
    _fail,
    _left_out,
    _quantity,
    _shaped,
)


def _strategies(info: ValidationInfo) -> dict[str, Any]:
    """The registered strategies by name, as the validation door hands them over (none: names are not checked)."""
    return (info.context or {}).get(STRATEGIES_CONTEXT) or {}




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

    def amount(self, resource: str) -> Decimal | None:
        """The limit on ``resource`` (cpu cores, memory bytes or nodes) as an exact decimal; None where unset."""
        limit = getattr(self, resource)
        return None if limit is None else parse_quantity(str(limit))


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
    given = sorted(term.written_keys())
    if len(given) != 1:
        allowed = " or ".join(field.alias or name for name, field in type(term).model_fields.items())
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
        given = self.written_keys()
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

    @property
    def consolidation_wait(self) -> timedelta:
        """``consolidateAfter`` as a duration: how long an emptied node stays before Karpenter removes it."""
        return parse_duration(self.consolidate_after)

    @property
    def termination_grace(self) -> timedelta:
        """``terminationGracePeriod`` as a duration: the longest a node's drain may take."""
        return parse_duration(self.termination_grace_period)

    def lifetime(self, auto_mode: bool) -> timedelta | None:
        """The deployed ``expireAfter`` as a duration (None: ``Never``)."""
        expire_after = self.deployed_expire_after(auto_mode)
        return None if expire_after == "Never" else parse_duration(expire_after)

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
