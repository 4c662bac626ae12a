"""The Capacity component's input types: :class:`prescale.model.config.CapacityConfig` as the Pulumi SDK's
schema inference takes it (TypedDicts of plain values, each key as the stack file spells it, described as
docs/config.md describes it). Written by :mod:`tools.plugin_types_gen`: do not edit, regenerate.
Annotations stay evaluated (no ``from __future__ import annotations``): the inference reads them at run
time.
"""

from typing import Any, NotRequired, TypedDict


class Keda(TypedDict):
    '``prescale:keda``: whether prescale installs KEDA, and the version of the KEDA that runs the triggers.'
    install: NotRequired[bool]
    ('false: a KEDA already runs in the cluster (watching namespace prescale) and no release is installed; '
     'then version is required (docs/adoption.md#bring-your-own-keda-kedainstall-false).')
    version: NotRequired[str]
    ('Version of the KEDA chart prescale installs or, with install: false, of the KEDA that runs; exact and '
     '2.18.0 or newer (older cron scalers report 1 replica outside windows, kedacore/keda#6886). Below '
     '2.20.0, crons with commas are refused (kedacore/keda#7448).')
    values: NotRequired[dict[str, Any]]
    ('Helm values for the keda chart prescale installs, deep-merged over the values prescale renders (maps '
     'merge, lists and scalars replace); keys prescale owns (replicas, budgets, spread, priority, the system'
     ' placement...) and keys the chart does not know are refused (docs/platform.md#helm-values).')


class NodeRequirement(TypedDict):
    ("One ``nodePools[].requirements`` entry, in the NodePool's own shape (``karpenter.sh/v1`` "
     '``NodeSelectorRequirementWithMinValues``), held to the rules of the NodePool CRD of Karpenter 1.14.1.')
    key: str
    ("A node label key: one of Karpenter's well-known labels (karpenter.k8s.aws/instance-family, "
     'topology.kubernetes.io/zone, ...; on Auto Mode the eks.amazonaws.com/ ones) or your own, outside the '
     'domains Kubernetes and Karpenter keep (docs/capacity.md#requirements).')
    operator: str
    ('In and NotIn take values; Exists and DoesNotExist take none; Gt and Lt take one whole number in '
     'quotes.')
    values: NotRequired[list[str]]
    'Label values, each once.'
    minValues: NotRequired[int]
    ('Karpenter launches only when the key keeps at least this many distinct values (MIN_VALUES_POLICY '
     'Strict, its default): a floor on instance-type flexibility. At most the number of In values.')


class CapacityRequest(TypedDict):
    'Capacity to hold ready for an event, as pod requests (CPU cores and memory).'
    cpu: str
    'CPU as a Kubernetes quantity above zero, in quotes: "4" cores or "500m".'
    memory: str
    ('Memory as a Kubernetes quantity with its unit, at least 1Mi, like 16Gi or "2048Mi" (a number without a'
     ' unit would be bytes).')


class Limits(TypedDict):
    'The most a NodePool may launch; Karpenter stops provisioning beyond it.'
    cpu: NotRequired[str]
    'Most CPU the pool\'s nodes may have in all: a quantity as a string or an integer (cpu: 1000, "512").'
    memory: NotRequired[str]
    "Most memory the pool's nodes may have in all: a quantity with its unit, at least 1Mi, like 2048Gi."
    nodes: NotRequired[int]
    'Most nodes the pool may have at once.'


class SubnetSelectorTerm(TypedDict):
    'Subnets for an EC2NodeClass: by tags (all must match) or by id.'
    tags: NotRequired[dict[str, str]]
    'Subnets carrying all of these tags; give tags or id, not both.'
    id: NotRequired[str]
    'One subnet by its id.'


class SecurityGroupSelectorTerm(TypedDict):
    'Security groups for an EC2NodeClass: by tags (all must match), by id or by name.'
    tags: NotRequired[dict[str, str]]
    'Security groups carrying all of these tags; give exactly one of tags, id or name.'
    id: NotRequired[str]
    'One security group by its id.'
    name: NotRequired[str]
    'Security groups by their name.'


class CapacityReservationSelectorTerm(TypedDict):
    ("EC2 capacity reservations (On-Demand Capacity Reservations or Capacity Blocks) the pool's node class "
     'may launch into: by ``id``, or by ``tags`` (all must match; ``*`` matches any value) with an optional '
     "``ownerID`` (the account that owns them). Karpenter's ``EC2NodeClass`` shape (v1.14.1); several terms "
     'select the union.')
    id: NotRequired[str]
    'One reservation by its id, alone (no ownerID); give id or tags, not both.'
    tags: NotRequired[dict[str, str]]
    'Reservations carrying all of these tags (* matches any value), at most 20.'
    ownerID: NotRequired[str]
    'With tags: the AWS account that owns the reservations.'


class Taint(TypedDict):
    "A taint of a pool's nodes, which its placeholders tolerate."
    key: str
    "The taint's key."
    value: NotRequired[str]
    "The taint's value."
    effect: NotRequired[str]
    ('PreferNoSchedule keeps other pods off while anything else fits; NoSchedule dedicates the nodes (the '
     "event's pods then need the toleration); NoExecute also evicts pods that do not tolerate it.")


class DataVolume(TypedDict):
    ("``nodePools[].dataVolume``: a Bottlerocket node's data volume (``/dev/xvdb``, where its container "
     "images live) made from an EBS snapshot that already holds the event's images, so that nodes boot with "
     'them (docs/readiness.md).')
    snapshotID: str
    ("The EBS snapshot of a Bottlerocket data volume that holds the images (built with upstream's "
     "bottlerocket-images-cache); the volume's encryption is the snapshot's (docs/readiness.md).")
    size: NotRequired[str]
    ("The data volume's size, at least the snapshot's (EC2 refuses a volume smaller than its snapshot, and "
     "every launch then fails) and at most 16384Gi (gp3). Unset (recommended): the snapshot's own size, as "
     'EC2 takes it when the EC2NodeClass gives none; set it only to give the images more room than the '
     'snapshot.')
    volumeInitializationRate: NotRequired[int]
    ("EBS's provisioned rate for volume initialization, in MiB/s (100 to 300, the EC2NodeClass CRD's range):"
     " the snapshot's blocks arrive at that rate instead of lazily on first read, billed per GiB "
     'initialized. Unset: blocks are fetched from S3 as they are first read.')


class NodePool(TypedDict):
    ('One ``prescale:nodePools`` entry: a Karpenter NodePool (and EC2NodeClass) prescale creates, or with '
     '``existing: true`` a NodePool that already runs in the cluster and that windows may use as it is.')
    name: str
    ("Unique; windows name their pool by it, and it names the pool's Kubernetes objects (NodePool and "
     "EC2NodeClass prescale-<name>). For an existing pool: its NodePool's exact name.")
    existing: NotRequired[bool]
    ('true: a NodePool that already runs in the cluster. prescale creates nothing for it and never touches '
     'its disruption budgets (its placeholders carry karpenter.sh/do-not-disrupt instead), and it takes only'
     ' name, taints (to tolerate; none by default), limits (for the checks), nodeSize, maxPodSize and '
     'strategy placeholders (docs/adoption.md#windows-on-a-nodepool-you-own-nodepoolsexisting-true).')
    strategy: NotRequired[str]
    ("How the pool's windows get their nodes: placeholders (KEDA-scaled pause pods that Karpenter launches "
     "nodes for), static (one static NodePool of exactly nodes: N per window, needs Karpenter's "
     'StaticCapacity gate; windows take nodes, not capacity) or buffer (one CapacityBuffer per window, '
     'virtual pods that real pods bind in place of, needs the CapacityBuffer gate; not on Auto Mode). An '
     'existing pool takes placeholders only (docs/capacity.md#strategies).')
    capacityTypes: NotRequired[list[str]]
    ('Karpenter capacity types the pool may launch; reserved needs capacityReservationSelectorTerms or a '
     "window's reserve (docs/capacity.md#capacity-reservations-odcrs-and-capacity-blocks).")
    instanceCategories: NotRequired[list[str]]
    'EC2 instance categories the pool may launch (c compute, m general purpose, r memory, ...).'
    architectures: NotRequired[list[str]]
    'CPU architectures the pool may launch.'
    requirements: NotRequired[list[NodeRequirement]]
    ("More NodePool requirements in Karpenter's own shape, on its well-known labels or your own; a key "
     "written here replaces its shorthand's default (capacityTypes, instanceCategories, architectures). "
     'Requirements the NodePool CRD would refuse, or that leave no instance type, are refused '
     '(docs/capacity.md#requirements).')
    nodeSize: NotRequired[CapacityRequest]
    ('For the windows on this pool sized by nodes, what each placeholder requests instead of '
     "placeholders.nodeSize; checked against the pool's instance types (docs/capacity.md#pod-sizing).")
    maxPodSize: NotRequired[CapacityRequest]
    ('For the windows on this pool sized by capacity, the largest placeholder instead of '
     'placeholders.maxPodSize (docs/capacity.md#pod-sizing).')
    limits: NotRequired[Limits]
    ("The most the pool may launch, as Karpenter's NodePool limits: any of cpu, memory and nodes, at least "
     'one. Required for a pool prescale creates (without limits it could launch without bound); optional for'
     ' an existing pool, where it only feeds the checks. Windows must fit them, alone and where they overlap'
     ' (docs/capacity.md#overlapping-windows-the-sum).')
    nodeClassName: NotRequired[str]
    ('An existing EC2NodeClass (by name) for this pool instead of one prescale creates; then amiAlias and '
     'the selector terms do not apply.')
    amiAlias: NotRequired[str]
    ('The pinned AMI alias of the EC2NodeClass. @latest rolls every node whenever AWS publishes an AMI '
     "(Karpenter's docs advise against it; warned at pulumi up and prescale plan); a pinned release must "
     "exist for the cluster's Kubernetes version (docs/platform.md#upgrading-kubernetes).")
    subnetSelectorTerms: NotRequired[list[SubnetSelectorTerm]]
    ('Where the EC2NodeClass launches nodes, for clusters tagged differently; several terms select the '
     'union. Unset: the subnets tagged karpenter.sh/discovery: <cluster>.')
    securityGroupSelectorTerms: NotRequired[list[SecurityGroupSelectorTerm]]
    ("The security groups of the pool's nodes; several terms select the union. Unset: the security group "
     'tagged karpenter.sh/discovery: <cluster>.')
    capacityReservationSelectorTerms: NotRequired[list[CapacityReservationSelectorTerm]]
    ("EC2 capacity reservations (On-Demand Capacity Reservations, Capacity Blocks) the pool's nodes may "
     'launch into as reserved capacity, which Karpenter prefers; none unless given '
     '(docs/capacity.md#capacity-reservations-odcrs-and-capacity-blocks).')
    taints: NotRequired[list[Taint]]
    ("Taints of the pool's nodes; placeholders tolerate them. The default keeps other pods off while "
     "anything else fits; [] shares the pool; a NoSchedule taint dedicates it (the event's pods then need "
     'the toleration). A list replaces the default; an existing pool has none unless given '
     '(docs/capacity.md#who-else-lands-on-a-pool-softly-dedicated-by-default).')
    consolidationPolicy: NotRequired[str]
    ('Which nodes Karpenter may consolidate: only empty ones, or also underutilized ones (outside the '
     "windows' freezes, docs/capacity.md#consolidation-freezes-disruption-budgets).")
    consolidateAfter: NotRequired[str]
    ('How long a node stays empty or underutilized before Karpenter consolidates it: how fast nodes go after'
     ' a window. A Go duration of whole seconds ("2m", "1.5m", "90s"); Never is refused, since the nodes '
     'must go after each window (docs/capacity.md#consolidation-freezes-disruption-budgets).')
    expireAfter: NotRequired[str]
    ('Node lifetime: Never, or a Go duration of whole seconds ("720h"). Budgets do not stop expiry, so a '
     'lifetime could end a node mid-event: Never by default (event nodes are consolidated after each window '
     'anyway). A duration must outlast every window on the pool, scale-up to end; on Auto Mode, where Never '
     'is refused, unset means 480h (docs/capacity.md#node-lifetime-expireafter-never-by-default).')
    terminationGracePeriod: NotRequired[str]
    'The longest a node\'s drain may take: a Go duration of whole seconds ("1h", "90s").'
    weight: NotRequired[int]
    ('NodePool weight (1 to 100): Karpenter tries pools of higher weight first; a static pool has none (the '
     'NodePool CRD).')
    dataVolume: NotRequired[DataVolume]
    ("Bottlerocket pools only: the nodes' data volume made from an EBS snapshot that holds the event's "
     'images, so they are there at boot (docs/readiness.md).')


class Reserve(TypedDict):
    ('``eventWindows[].reserve``: targeted On-Demand Capacity Reservations that hold EC2 capacity for a one-'
     'off window, created only by a ``pulumi up`` within ``holdFrom`` of its scale-up '
     '(:mod:`prescale.model.fleet.reservations`; docs/capacity.md#capacity-reservations-for-one-off-events).')
    instanceType: str
    ("The instance type to reserve: one the pool can launch, that holds the window's placeholders and that "
     "the pool's limits can fill.")
    count: NotRequired[int]
    ('Instances to reserve in all (1 to 1000), split over the zones as evenly as it goes. Unset: the nodes '
     'the window needs (nodes: N gives N; a capacity window, the instances that hold its placeholders).')
    availabilityZones: NotRequired[list[str]]
    ("Zones to reserve in, each once. Unset: the zones of the pool's topology.kubernetes.io/zone requirement"
     ' (a pool without one is refused).')
    holdFrom: NotRequired[str]
    ("How long before the window's scale-up the reservations may be created: a Go duration of whole minutes "
     '("24h", "1.5h"), at most 168h: a pulumi up within that time creates them, and they are billed from '
     'then (docs/capacity.md#when-it-exists-and-what-it-costs).')


class EventWindow(TypedDict):
    'One ``prescale:eventWindows`` entry: when capacity must be ready, where, and how much.'
    name: str
    "Unique (at most 40 characters); names the window's Kubernetes objects (prescale-<name>)."
    nodePool: str
    'The prescale:nodePools entry, by name, whose nodes the window holds.'
    timezone: str
    ('IANA time zone that start and end are read in, naming a place or UTC: Asia/Seoul, America/New_York, '
     'UTC. Abbreviations (KST) and legacy or fixed-offset names (EST, CET, Etc/GMT+5) are refused with the '
     'zone to write.')
    start: str
    ('When the event starts: a 5-field cron in KEDA\'s dialect for a recurring window ("15 11 * * *": minute '
     'hour day-of-month month day-of-week, day-of-week 0-6; no @daily, CRON_TZ= or L/W/#), or a local date-'
     'time YYYY-MM-DDTHH:MM for a one-off event ("2027-03-02T08:00", no seconds or offset). start and end '
     'are both crons or both date-times; prescale plan and schedule check how they fit over the coming year '
     '(a start or end in a DST gap or overlap, starts and ends that do not alternate).')
    end: str
    'When the event ends, in the same form as start; a one-off end must be after its start.'
    event: NotRequired[str]
    ('An event of prescale:calendar, by name: the window takes its timezone, start and end (and gives none '
     'of its own), so every stack that names it moves with the calendar (docs/fleet.md#one-calendar).')
    nodes: NotRequired[int]
    ("Nodes to hold ready (1 to 1000): one placeholder of the pool's nodeSize on each. Give exactly one of "
     'nodes or capacity (docs/capacity.md#pod-sizing).')
    capacity: NotRequired[CapacityRequest]
    ('Pod requests to hold ready, split into the fewest equal placeholders no bigger than maxPodSize; give '
     'exactly one of nodes or capacity (docs/capacity.md#pod-sizing).')
    leadTime: NotRequired[str]
    ('Placeholders scale up this long before start: a Go duration of whole minutes ("10m", "1.5h"); below 2m'
     ' is warned: nodes need about that to be Ready (docs/capacity.md#how-long-a-lead-time).')
    prepullImages: NotRequired[list[str]]
    ("Images the window's placeholders pull onto their nodes during the lead time (a placeholder is Ready "
     "once its images are there), so the event's pods start without a pull; any image, distroless included "
     '(docs/capacity.md#event-images-prepullimages).')
    reserve: NotRequired[Reserve]
    ('One-off windows only: targeted On-Demand Capacity Reservations that hold EC2 capacity for the event, '
     'created by a pulumi up from holdFrom before the scale-up; the pool must be one prescale creates, '
     'without nodeClassName, whose capacityTypes allow reserved (docs/capacity.md#capacity-reservations-for-'
     'one-off-events).')


class CalendarEvent(TypedDict):
    "One event of ``prescale:calendar``: when it happens, in the form a window's times take."
    name: str
    'Unique in the calendar; windows name it in their event key.'
    timezone: str
    "IANA time zone its start and end are read in, as a window's timezone."
    start: str
    "When the event starts, as a window's start: a cron or a local date-time."
    end: str
    'When the event ends, in the same form as start.'
    tags: NotRequired[list[str]]
    'Free labels (a team, a region), for people and fleet.'


class Calendar(TypedDict):
    ('Events several stacks share (``prescale:calendar``), read from the file its path names or given '
     'inline.')
    events: NotRequired[list[CalendarEvent]]
    'The events windows may name.'


class Placeholder(TypedDict):
    '``prescale:placeholders``: the pause pods that hold capacity, shared by all windows.'
    image: NotRequired[str]
    "The placeholders' pause image, pinned; point it at a mirror for air-gapped clusters."
    priority: NotRequired[int]
    ("Priority of the placeholders' PriorityClass, below zero (the default priority) so that every real pod "
     'preempts them.')
    nodeSize: NotRequired[CapacityRequest]
    ('For windows sized by nodes, what each placeholder requests: the free room each of the N nodes will '
     "have. It must fit the pool's largest instance after its reserved overhead (docs/capacity.md#pod-"
     'sizing).')
    maxPodSize: NotRequired[CapacityRequest]
    ('For windows sized by capacity, the largest single placeholder: the capacity is split into pods no '
     "bigger than this, so that Karpenter can pack them onto the pool's instance types "
     '(docs/capacity.md#pod-sizing).')
    failsafeGrace: NotRequired[str]
    ("The failsafe sets each window's placeholders to zero this long after its end, even if KEDA is down: a "
     'Go duration of whole minutes, 2m to 24h ("15m", "1.5h"), and never on or after the next scale-up '
     '(docs/guardrails.md#3-the-failsafe-when-keda-fails-at-a-windows-end).')
    failsafeImage: NotRequired[str]
    ("The failsafe's kubectl image: upstream's own (registry.k8s.io, published with every Kubernetes release"
     ' since 1.28), pinned to the default cluster version (kubectl supports one minor either way); point it '
     'at a mirror for air-gapped clusters.')
    imagePullSecrets: NotRequired[list[str]]
    ('Secrets (in namespace prescale, created by you) the placeholder pods pull with, for registries the '
     'node role cannot read; ECR in the account needs none.')
    prepullToolImage: NotRequired[str]
    ("For windows with prepullImages: the image whose static /bin/true each pulled image runs (busybox's "
     "musl build, from the Docker official image's ECR Public mirror); point it at a mirror for air-gapped "
     'clusters.')


class Alerts(TypedDict):
    ('``prescale:alerts``: alerting rules for the windows, for a cluster that already runs the Prometheus '
     'Operator and kube-state-metrics (docs/alerts.md). Off by default.')
    prometheusRule: NotRequired[bool]
    ("A monitoring.coreos.com/v1 PrometheusRule prescale/prescale-alerts that alerts when a window's "
     'capacity is late; for existing clusters that run the Prometheus Operator and kube-state-metrics '
     '(docs/alerts.md).')


class CapacityConfigInputs(TypedDict):
    'The scheduled capacity alone: node pools, event windows and their placeholders.'
    keda: NotRequired[Keda]
    "Whether prescale installs KEDA, and the version of the KEDA that runs the windows' triggers."
    nodePools: NotRequired[list[NodePool]]
    ('The node pools windows take nodes from: each a Karpenter NodePool and EC2NodeClass prescale creates, '
     'or a NodePool that already runs (docs/capacity.md#node-pools).')
    eventWindows: NotRequired[list[EventWindow]]
    ('When capacity must be ready, on which pool, and how much: recurring (crons) or one-off (date-times) '
     'windows (docs/capacity.md#a-windows-timeline).')
    calendar: NotRequired[Calendar]
    ('Events several stacks share, which windows name by their event key: the path of a calendar file (YAML '
     'with events:), relative to the project directory, or the calendar itself, e.g. from a Pulumi ESC '
     "environment's pulumiConfig (docs/fleet.md#one-calendar).")
    placeholders: NotRequired[Placeholder]
    'The pause pods that hold the capacity, shared by all windows.'
    tags: NotRequired[dict[str, str]]
    'Tags on every AWS resource prescale creates.'
    quotas: NotRequired[dict[str, int]]
    ("The account's On-Demand vCPU quotas in the stack's region, by family group (standard, f, g, inf, p, x,"
     " dl, trn, hpc, high-memory), that prescale fleet holds the fleet's events against (docs/fleet.md#the-"
     'fleet).')
    alerts: NotRequired[Alerts]
    'Alerting rules for the windows; off by default.'
