"""The API requests kubectl makes for the commands prescale's CronJobs run, and the RBAC rules that grant them.

Read from kubectl's source, so a test can compare what a ServiceAccount holds with exactly what its pods' kubectl
calls need (kubernetes/kubectl and kubernetes/cli-runtime v0.34.3, the release of the default kubectl image,
``placeholders.failsafeImage``):

* every command maps its ``TYPE/NAME`` argument through discovery, which the ``system:discovery`` ClusterRole allows
  every authenticated user: not counted here;
* the resource builder (cli-runtime ``pkg/resource/builder.go``, ``Do``) GETs each object named by ``TYPE/NAME``
  before the command acts on it (``RetrieveLazy`` in ``visitor.go``), unless the command asks
  ``RequireObject(false)``;
* ``scale`` (``pkg/cmd/scale/scale.go``; ``pkg/scale/scale.go`` ``ScaleSimple``): without ``--current-replicas`` or
  ``--resource-version`` one merge PATCH of the ``scale`` subresource (no GET of it), and without ``--timeout`` no
  wait; ``--record`` is not given, so no second patch;
* ``patch`` (``pkg/cmd/patch/patch.go``): one PATCH of the object (of ``--subresource``, not used here);
* ``delete`` (``pkg/cmd/delete/delete.go``): ``RequireObject(false)``, so no GET; one DELETE; ``--wait=false``:
  no watch for the deletion.

Anything else (another verb, a flag that changes the requests) raises, rather than being guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# `TYPE` as prescale's commands spell it → (API group, resource, namespaced).
RESOURCE_TYPES = {
    "deployment": ("apps", "deployments", True),
    "scaledobjects.keda.sh": ("keda.sh", "scaledobjects", True),
    "nodepools.karpenter.sh": ("karpenter.sh", "nodepools", False),
    "capacitybuffers.autoscaling.x-k8s.io": ("autoscaling.x-k8s.io", "capacitybuffers", True),
    "cronjobs.batch": ("batch", "cronjobs", True),
}
_NAMESPACED = {(group, resource): namespaced for group, resource, namespaced in RESOURCE_TYPES.values()}
_CHANGING_FLAGS = ("--current-replicas", "--resource-version", "--timeout", "--subresource", "--record",
                   "--all", "--selector", "--filename", "--dry-run")


@dataclass(frozen=True, order=True)
class Request:
    """One API request, as RBAC sees it."""

    verb: str
    group: str
    resource: str  # with its subresource: "nodepools/scale"
    name: str
    namespace: str | None  # None: a cluster-scoped object


def requests(args: Sequence[str], pod_namespace: str) -> list[Request]:
    """What ``kubectl <args>`` asks the API server, run in a pod of ``pod_namespace`` (kubectl's default namespace
    in a pod is its ServiceAccount's)."""
    command, *rest = args
    (target,) = [arg for arg in rest if not arg.startswith("-")]  # one TYPE/NAME, anywhere among the flags
    flags = [arg for arg in rest if arg.startswith("-")]
    if any(flag.startswith(_CHANGING_FLAGS) for flag in flags):
        raise ValueError(f"kubectl {' '.join(args)}: a flag this model does not cover")
    kind, name = target.split("/")
    group, resource, namespaced = RESOURCE_TYPES[kind]
    given = [flag.removeprefix("--namespace=") for flag in flags if flag.startswith("--namespace=")]
    namespace = (given[0] if given else pod_namespace) if namespaced else None

    def request(verb: str, subresource: str = "") -> Request:
        return Request(verb, group, f"{resource}/{subresource}" if subresource else resource, name, namespace)

    if command == "scale":
        return [request("get"), request("patch", "scale")]
    if command == "patch":
        return [request("get"), request("patch")]
    if command == "delete" and "--wait=false" in flags:
        return [request("delete")]
    raise ValueError(f"kubectl {' '.join(args)}: not a command this model covers")


def granted(rules: Iterable[Mapping[str, Any]], namespace: str | None) -> set[Request]:
    """Every request the rules of a Role in ``namespace`` (or, with ``None``, of a ClusterRole bound cluster-wide)
    allow; a rule without ``resourceNames`` (any object) or with a ``*`` raises, as it cannot be exactly enough."""
    allowed = set()
    for rule in rules:
        fields = [*rule["apiGroups"], *rule["resources"], *rule["verbs"], *rule.get("resourceNames", ())]
        if not rule.get("resourceNames") or "*" in fields:
            raise ValueError(f"rule {dict(rule)} grants objects by wildcard")
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                if _NAMESPACED[group, resource.split("/")[0]] != (namespace is not None):
                    raise ValueError(f"rule {dict(rule)}: a Role grants only namespaced objects, and a ClusterRole "
                                     "bound cluster-wide would grant namespaced ones in every namespace")
                allowed |= {Request(verb, group, resource, name, namespace)
                            for verb in rule["verbs"] for name in rule["resourceNames"]}
    return allowed
