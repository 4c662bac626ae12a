"""Every label key prescale reads or writes, and the keys a pool's requirements may use, by the NodePool CRD and by
mode.

The NodePool CRD of Karpenter 1.14.1 restricts ``karpenter.sh`` to ``karpenter.sh/capacity-type`` and
``karpenter.k8s.aws`` to its allow-list, and refuses ``kubernetes.io/hostname``. The mode decides the rest:
self-managed Karpenter spells AWS's labels ``karpenter.k8s.aws/…``; EKS Auto Mode spells them
``eks.amazonaws.com/…`` and supports only the keys its user guide lists. A key of another domain (the pool's own
labels) is free. Keys of the upstream domains that carry none of the known labels are refused, because a typo
there would silently become a custom label that narrows nothing; so is a key without a domain that names a
well-known label (``instance-type``). Pure: no Pulumi.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# prescale's own labels.
POOL_LABEL = "prescale.io/node-pool"  # on a prescale pool's nodes and on every placeholder
WINDOW_LABEL = "prescale.io/window"  # on a window's placeholders and its failsafe
# Pods of `nodes:` windows carry this with their pool's name; required anti-affinity on it puts at most one
# on a node, across all `nodes:` windows of the pool, so overlapping windows add up to distinct nodes.
ONE_PER_NODE_LABEL = "prescale.io/one-per-node"

# Karpenter's, AWS's and Kubernetes' well-known labels.
NODEPOOL_LABEL = "karpenter.sh/nodepool"  # the NodePool a node (and its NodeClaim) belongs to
CAPACITY_TYPE = "karpenter.sh/capacity-type"
ARCH = "kubernetes.io/arch"
OS = "kubernetes.io/os"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
ZONE = "topology.kubernetes.io/zone"
KARPENTER_DOMAIN = "karpenter.k8s.aws"
AUTO_MODE_DOMAIN = "eks.amazonaws.com"
CAPACITY_TYPES = ("on-demand", "spot", "reserved")  # kubernetes-sigs/karpenter labels.go WellKnownValuesForRequirements

# The karpenter.k8s.aws keys the NodePool CRD of Karpenter 1.14.1 allows (its CEL rule on requirement keys).
KARPENTER_AWS_KEYS = tuple(f"{KARPENTER_DOMAIN}/{name}" for name in (
    "instance-tenancy", "capacity-reservation-type", "capacity-reservation-id", "capacity-reservation-interruptible",
    "ec2nodeclass", "instance-encryption-in-transit-supported", "instance-category", "instance-hypervisor",
    "instance-family", "instance-generation", "instance-local-nvme", "instance-size", "instance-cpu",
    "instance-cpu-manufacturer", "instance-cpu-sustained-clock-speed-mhz", "instance-memory", "instance-ebs-bandwidth",
    "instance-network-bandwidth", "instance-gpu-name", "instance-gpu-manufacturer", "instance-gpu-count",
    "instance-gpu-memory", "instance-accelerator-name", "instance-accelerator-manufacturer",
    "instance-accelerator-count", "instance-capability-flex", "placement-group-id", "placement-group-partition"))
# The keys EKS Auto Mode supports (EKS user guide, automode/create-node-pool.adoc, "EKS Auto Mode Supported").
AUTO_MODE_KEYS = (ZONE, INSTANCE_TYPE, ARCH, CAPACITY_TYPE, f"{AUTO_MODE_DOMAIN}/compute-type",
                  *(f"{AUTO_MODE_DOMAIN}/instance-{name}" for name in (
                      "hypervisor", "encryption-in-transit-supported", "category", "generation", "family", "size",
                      "cpu", "cpu-manufacturer", "memory", "ebs-bandwidth", "network-bandwidth", "gpu-name",
                      "gpu-manufacturer", "gpu-count", "gpu-memory", "local-nvme")))
# Every key each upstream label domain carries that a NodePool may select (Karpenter's and AWS's well-known labels,
# kubernetes-sigs/karpenter and aws/karpenter-provider-aws pkg/apis/v1/labels.go; Auto Mode's from its guide).
_KNOWN = {
    "kubernetes.io": (ARCH, OS),
    "node.kubernetes.io": (INSTANCE_TYPE, "node.kubernetes.io/windows-build"),
    "topology.kubernetes.io": (ZONE, "topology.kubernetes.io/region"),
    "topology.k8s.aws": ("topology.k8s.aws/zone-id",),
    KARPENTER_DOMAIN: KARPENTER_AWS_KEYS,
    AUTO_MODE_DOMAIN: tuple(key for key in AUTO_MODE_KEYS if key.startswith(f"{AUTO_MODE_DOMAIN}/")),
}
# Deprecated aliases Karpenter rewrites to the stable keys (kubernetes-sigs/karpenter labels.go NormalizedLabels).
_NORMALIZED = {"failure-domain.beta.kubernetes.io/zone": ZONE, "beta.kubernetes.io/arch": ARCH,
               "beta.kubernetes.io/os": OS, "beta.kubernetes.io/instance-type": INSTANCE_TYPE,
               "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region"}


def _well_known_names() -> dict[str, tuple[str, ...]]:
    """Each well-known key's name without its domain (``instance-type``) → the keys it ends (in domain order)."""
    names: dict[str, tuple[str, ...]] = {}
    for key in (CAPACITY_TYPE, *(key for keys in _KNOWN.values() for key in keys)):
        name = _squashed(key.split("/", 1)[1])
        names[name] = (*names.get(name, ()), key)
    return names


def _squashed(name: str) -> str:
    """A name as it reads whatever its case and separators (``instanceType``, ``instance_type``: instancetype)."""
    return name.lower().replace("-", "").replace("_", "").replace(".", "")


def _domain(key: str) -> str:
    return key.split("/", 1)[0] if "/" in key else ""


def key_problem(key: str) -> str | None:
    """Why no NodePool prescale writes may have a requirement on ``key`` (a qualified name), whatever the mode."""
    meant = _WELL_KNOWN_NAMES.get(_squashed(key)) if "/" not in key else None
    if meant:
        others = f" ({' or '.join(meant[1:])} on EKS Auto Mode)" if len(meant) > 1 else ""
        return (f"has no domain and is no label Kubernetes, Karpenter or EKS sets: did you mean {meant[0]!r}{others}? "
                "Karpenter would take it for a label of your own, set it on the nodes and narrow nothing; allowed: "
                f"{meant[0]}, or a label of your own under your domain (example.com/{key})")
    head = key.split("/", 1)[0]  # the NodePool CRD tests the text before the first '/' with endsWith
    if head.endswith("karpenter.sh") and key != CAPACITY_TYPE:
        return (f"is in the karpenter.sh label domain, which the NodePool CRD keeps for Karpenter itself; allowed: "
                f"{CAPACITY_TYPE}")
    if key == "kubernetes.io/hostname":
        return ("is refused by the NodePool CRD (a node's name is not an instance property); allowed: a well-known "
                "label such as topology.kubernetes.io/zone, or a label of your own")
    if key in _NORMALIZED:
        return f"is a deprecated alias Karpenter rewrites to {_NORMALIZED[key]}; allowed: {_NORMALIZED[key]}"
    if _domain(key) == "prescale.io" or _domain(key).endswith(".prescale.io"):
        return ("is in prescale's own label domain (prescale sets prescale.io/node-pool on the pool's nodes itself); "
                "allowed: a label of your own domain, or a well-known label")
    if head.endswith(KARPENTER_DOMAIN) and key not in KARPENTER_AWS_KEYS:
        return (f"is not a {KARPENTER_DOMAIN} label the NodePool CRD allows{_suggestion(key, KARPENTER_AWS_KEYS)}; "
                f"allowed: {', '.join(KARPENTER_AWS_KEYS)}")
    known = _KNOWN.get(_domain(key))
    if known is not None and key not in known:
        return (f"is not a label Karpenter or EKS sets in {_domain(key)}{_suggestion(key, known)}, so a requirement "
                f"on it would narrow nothing; allowed there: {', '.join(known)}")
    return None


_WELL_KNOWN_NAMES = _well_known_names()


def mode_key_problem(key: str, auto_mode: bool) -> str | None:
    """Why ``key`` does not fit the pool's mode: EKS Auto Mode's own labels, or self-managed Karpenter's."""
    if not auto_mode:
        if _domain(key) != AUTO_MODE_DOMAIN:
            return None
        karpenter_key = f"{KARPENTER_DOMAIN}/{key.split('/', 1)[1]}"
        instead = f"; allowed: {karpenter_key}" if karpenter_key in KARPENTER_AWS_KEYS else ""
        return (f"is an EKS Auto Mode label, and this cluster runs its own Karpenter, which would take it for a "
                f"label of your own and narrow nothing{instead}")
    if key in AUTO_MODE_KEYS or _domain(key) not in _KNOWN:
        return None
    auto_key = f"{AUTO_MODE_DOMAIN}/{key.split('/', 1)[1]}"
    hint = f" (did you mean {auto_key!r}?)" if auto_key in AUTO_MODE_KEYS else _suggestion(key, AUTO_MODE_KEYS)
    return (f"is not a label EKS Auto Mode supports{hint}: Auto Mode spells AWS's labels {AUTO_MODE_DOMAIN}/… and "
            "runs only Linux (EKS user guide, \"Create a Node Pool for EKS Auto Mode\"); allowed: "
            f"{', '.join(AUTO_MODE_KEYS)}, or a label of your own domain")


def _suggestion(key: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def table_key(key: str) -> str:
    """The key an instance label is looked up by: Auto Mode's ``eks.amazonaws.com/instance-…`` labels mean what
    Karpenter's ``karpenter.k8s.aws/instance-…`` labels mean."""
    if key.startswith(f"{AUTO_MODE_DOMAIN}/instance-"):
        return f"{KARPENTER_DOMAIN}/{key.split('/', 1)[1]}"
    return key
