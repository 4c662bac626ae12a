"""prescale's guardrails as CrossGuard policies: what the program guarantees, enforced on any stack.

They judge every resource a ``pulumi preview``/``up`` would register, prescale's and the user's, from the inputs the
engine hands the pack (``args.props``: camelCase, secrets unwrapped; an unknown value raises
``UnknownValueError`` during preview, which the framework reports as "can't run during preview"). Nothing here
imports the prescale program, so a stack built some other way is judged by the same rules. Each rule is a plain
function returning its violations, so tests call it on the program's registrations without the Pulumi CLI, and
:data:`POLICIES` wraps them for ``policy/__main__.py``. Every rule, and why the public endpoint's is advisory:
docs/guardrails.md#5-the-policy-pack-crossguard.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

PLACEHOLDER_NAMESPACE = "prescale"
PLACEHOLDER_APP = "prescale-placeholder"  # the app.kubernetes.io/name label of prescale's placeholder pods

# --- shapes ----------------------------------------------------------------------------------------------


def _items(value: Any) -> list[Any]:
    """A list from a list, a single value, or nothing (IAM's ``Action``/``Resource``/``Statement`` may be either)."""
    if value is None:
        return []
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return [value]


def _get(value: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


# --- pods: the "restricted" pod security standard -----------------------------------------------------

# Pod templates, by resource type: where the pod spec sits inside the object.
POD_SPEC_PATHS: Mapping[str, tuple[str, ...]] = {
    "kubernetes:core/v1:Pod": ("spec",),
    "kubernetes:apps/v1:Deployment": ("spec", "template", "spec"),
    "kubernetes:apps/v1:StatefulSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:DaemonSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:ReplicaSet": ("spec", "template", "spec"),
    "kubernetes:batch/v1:Job": ("spec", "template", "spec"),
    "kubernetes:batch/v1:CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    # A CapacityBuffer's template: Karpenter provisions for virtual pods of this shape, which real pods then take.
    "kubernetes:core/v1:PodTemplate": ("template", "spec"),
}
# Volume types the restricted standard allows (Kubernetes pod security standards, "Volume Types").
_RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                       "projected", "secret"}
_SAFE_SECCOMP = {"RuntimeDefault", "Localhost"}


def restricted_pod_problems(pod: Mapping[str, Any]) -> list[str]:
    """Where a pod spec breaks the "restricted" pod security standard, or ``[]``.

    Checked: host namespaces and ports, privileged containers, volume types, privilege escalation, root
    users, seccomp, capabilities. Not checked here (rarely set by hand, and the namespace's admission still
    refuses them): sysctls, SELinux options, AppArmor profiles, ``procMount``, Windows host processes.
    """
    problems = [f"{field}: true shares the node's namespaces" for field in ("hostNetwork", "hostPID", "hostIPC")
                if pod.get(field)]
    for volume in _items(pod.get("volumes")):
        kinds = set(volume) - {"name"}
        if not kinds <= _RESTRICTED_VOLUMES:
            problems.append(f"volume {volume.get('name')!r}: {', '.join(sorted(kinds))} is not allowed "
                            f"(allowed: {', '.join(sorted(_RESTRICTED_VOLUMES))})")
    pod_context = pod.get("securityContext") or {}
    if _get(pod_context, "runAsUser") == 0:
        problems.append("securityContext.runAsUser: 0 runs as root")
    containers = [*_items(pod.get("initContainers")), *_items(pod.get("containers")),
                  *_items(pod.get("ephemeralContainers"))]
    for container in containers:
        problems += [f"container {container.get('name')!r}: {problem}"
                     for problem in _container_problems(container.get("securityContext") or {}, pod_context,
                                                        container)]
    return problems


def _container_problems(context: Mapping[str, Any], pod_context: Mapping[str, Any],
                        container: Mapping[str, Any]) -> Iterator[str]:
    if context.get("privileged"):
        yield "privileged: true"
    if context.get("allowPrivilegeEscalation") is not False:
        yield "allowPrivilegeEscalation must be false"
    if context.get("runAsUser") == 0:
        yield "runAsUser: 0 runs as root"
    if not context.get("runAsNonRoot", pod_context.get("runAsNonRoot")):
        yield "runAsNonRoot must be true (on the container or the pod)"
    seccomp = _get(context, "seccompProfile", "type") or _get(pod_context, "seccompProfile", "type")
    if seccomp not in _SAFE_SECCOMP:
        yield f"seccompProfile.type must be RuntimeDefault or Localhost (got {seccomp!r})"
    capabilities = context.get("capabilities") or {}
    if "ALL" not in _items(capabilities.get("drop")):
        yield "capabilities.drop must include ALL"
    added = [cap for cap in _items(capabilities.get("add")) if cap != "NET_BIND_SERVICE"]
    if added:
        yield f"capabilities.add may only hold NET_BIND_SERVICE (got {', '.join(added)})"
    if any(_get(port, "hostPort") for port in _items(container.get("ports"))):
        yield "hostPort binds the node's network"


def pods_restricted(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Every pod template in the placeholders' namespace meets "restricted" (the namespace enforces it too,
    but only when the pod is created: this catches it at preview, on the resource that declares it)."""
    path = POD_SPEC_PATHS.get(args.resource_type)
    if path is None or _get(args.props, "metadata", "namespace") != PLACEHOLDER_NAMESPACE:
        return
    for problem in restricted_pod_problems(_get(args.props, *path) or {}):
        report_violation(f"{args.resource_type} {args.name}: {problem}", None)


# --- placeholders below every real pod ---------------------------------------------------------------

PRIORITY_CLASS = "kubernetes:scheduling.k8s.io/v1:PriorityClass"


def placeholder_priority_problems(resources: Sequence[tuple[str, str, Mapping[str, Any]]]) -> list[str]:
    """Placeholders must name a PriorityClass of this stack that is negative, preempts nothing and is not the
    default: real pods then preempt them, and they never evict anything. ``resources``: (type, name, props)."""
    classes = {_get(props, "metadata", "name"): props for type_, _, props in resources if type_ == PRIORITY_CLASS}
    problems = []
    for type_, name, props in resources:
        if type_ != "kubernetes:apps/v1:Deployment" or \
                _get(props, "metadata", "labels", "app.kubernetes.io/name") != PLACEHOLDER_APP:
            continue
        class_name = _get(props, "spec", "template", "spec", "priorityClassName")
        priority = classes.get(class_name)
        if priority is None:
            problems.append(f"{name}: priorityClassName {class_name!r} is not a PriorityClass of this stack")
        elif not (priority.get("value", 0) < 0 and priority.get("preemptionPolicy") == "Never"
                  and not priority.get("globalDefault")):
            problems.append(f"{name}: PriorityClass {class_name!r} must have a negative value, preemptionPolicy "
                            f"Never and globalDefault false (got value {priority.get('value')!r}, "
                            f"preemptionPolicy {priority.get('preemptionPolicy')!r}, "
                            f"globalDefault {priority.get('globalDefault')!r})")
    return problems


def placeholders_negative_priority(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = [(r.resource_type, r.name, r.props) for r in args.resources]
    for problem in placeholder_priority_problems(resources):
        report_violation(problem, None)


# --- placeholders on a NodePool prescale does not own --------------------------------------------------

NODEPOOL_LABEL = "karpenter.sh/nodepool"  # Karpenter's own node label: how a pool someone else owns is selected
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"


def foreign_pool_problems(props: Mapping[str, Any]) -> list[str]:
    """Placeholders that select a NodePool by Karpenter's own label (one prescale does not own, and so cannot
    freeze with disruption budgets) must carry ``karpenter.sh/do-not-disrupt: "true"``: nothing else keeps
    Karpenter from consolidating the nodes they hold before the event. Only ``"true"``: a duration is ignored
    by Karpenter before 1.12, which would leave the nodes unprotected without a word."""
    if _get(props, "metadata", "labels", "app.kubernetes.io/name") != PLACEHOLDER_APP:
        return []
    template = _get(props, "spec", "template") or {}
    pool = _get(template, "spec", "nodeSelector", NODEPOOL_LABEL)
    if pool is None:
        return []
    value = _get(template, "metadata", "annotations", DO_NOT_DISRUPT)
    if value == "true":
        return []
    return [f"placeholders on NodePool {pool!r} (not prescale's: no consolidation freeze) need the pod annotation "
            f"{DO_NOT_DISRUPT}: \"true\", got {value!r}"]


def foreign_pools_protected(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type == "kubernetes:apps/v1:Deployment":
        for problem in foreign_pool_problems(args.props):
            report_violation(f"{args.name}: {problem}", None)


# --- Karpenter nodes: IMDSv2 with hop limit 1, encrypted volumes -------------------------------------

EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
# The CRD's defaults for fields left out of metadataOptions (karpenter.k8s.aws_ec2nodeclasses.yaml).
_METADATA_DEFAULTS = {"httpEndpoint": "enabled", "httpPutResponseHopLimit": 1, "httpTokens": "required"}


def node_class_problems(spec: Mapping[str, Any]) -> list[str]:
    """Pods must not reach the node's credentials (IMDSv2 tokens, one hop), and every EBS volume is encrypted.

    Block devices must be listed: without them Karpenter falls back to the AMI family's defaults, which for
    a ``Custom`` AMI are whatever the image says. A volume made from a snapshot (``snapshotID``) cannot say
    ``encrypted`` (EC2 refuses it there): it is as encrypted as its snapshot, which the snapshot's owner encrypts.
    """
    metadata = {**_METADATA_DEFAULTS, **(spec.get("metadataOptions") or {})}
    problems = []
    if metadata["httpEndpoint"] != "disabled":
        if metadata["httpTokens"] != "required":
            problems.append(f"metadataOptions.httpTokens must be 'required' (IMDSv2), got {metadata['httpTokens']!r}")
        if metadata["httpPutResponseHopLimit"] != 1:
            problems.append("metadataOptions.httpPutResponseHopLimit must be 1 (pods cannot reach IMDS), got "
                            f"{metadata['httpPutResponseHopLimit']!r}")
    devices = _items(spec.get("blockDeviceMappings"))
    if not devices:
        problems.append("blockDeviceMappings must list every volume with ebs.encrypted: true")
    problems += [f"blockDeviceMappings[{index}] ({device.get('deviceName')}): ebs.encrypted must be true"
                 for index, device in enumerate(devices)
                 if _get(device, "ebs", "encrypted") is not True and not _get(device, "ebs", "snapshotID")]
    return problems


def node_classes_hardened(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type == EC2_NODE_CLASS:
        for problem in node_class_problems(args.props.get("spec") or {}):
            report_violation(f"{args.name}: {problem}", None)


# --- counts a driver sets: never Pulumi's --------------------------------------------------------------

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
CAPACITY_BUFFER = "kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer"


def driven_count_problem(resource_type: str, props: Mapping[str, Any], ignore_changes: Sequence[str]) -> str | None:
    """A static NodePool (``spec.replicas`` set) or a CapacityBuffer whose count ``pulumi up`` would set back: a
    CronJob (or any other driver) owns ``spec.replicas``, so the resource must ignore changes to it, or every
    ``pulumi up`` during a window would reset the count it was created with and take the event's capacity away."""
    static = resource_type == NODE_POOL and _get(props, "spec", "replicas") is not None
    if (static or resource_type == CAPACITY_BUFFER) and "spec.replicas" not in ignore_changes:
        return ("spec.replicas is set by its driver, not by pulumi up: add ignore_changes=[\"spec.replicas\"] so an "
                "update mid-window does not reset the count")
    return None


def driven_counts_ignored(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    problem = driven_count_problem(args.resource_type, args.props, args.opts.ignore_changes or [])
    if problem:
        report_violation(f"{args.name}: {problem}", None)


# --- RBAC: prescale's roles name their objects ---------------------------------------------------------

ROLE_TYPES = ("kubernetes:rbac.authorization.k8s.io/v1:Role", "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")


def role_rule_problems(rules: Sequence[Mapping[str, Any]]) -> list[str]:
    """Rules of a role prescale's CronJobs run as must each name the objects they allow (``resourceNames``) and
    hold no wildcard: a failsafe or a driver acts on its own window's objects, never on a kind as a whole."""
    problems = []
    for index, rule in enumerate(rules):
        if not _items(rule.get("resourceNames")):
            problems.append(f"rules[{index}]: no resourceNames, so it allows every object of its resources")
        wild = [field for field in ("apiGroups", "resources", "verbs", "resourceNames")
                if "*" in _items(rule.get(field))]
        if wild or rule.get("nonResourceURLs"):
            problems.append(f"rules[{index}]: a wildcard in {', '.join(wild) or 'nonResourceURLs'}")
    return problems


def prescale_roles_named(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type not in ROLE_TYPES or \
            _get(args.props, "metadata", "labels", "app.kubernetes.io/managed-by") != "prescale":
        return
    for problem in role_rule_problems(_items(args.props.get("rules"))):
        report_violation(f"{args.name}: {problem}", None)


# --- SQS: encrypted at rest ----------------------------------------------------------------------------


def queues_encrypted(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Every SQS queue is encrypted at rest, with SQS-managed keys or a KMS key (declared, not assumed)."""
    if args.resource_type != "aws:sqs/queue:Queue":
        return
    if not (args.props.get("sqsManagedSseEnabled") or args.props.get("kmsMasterKeyId")):
        report_violation(f"{args.name}: set sqsManagedSseEnabled: true or a kmsMasterKeyId", None)


# --- IAM: no wildcard actions, scoped PassRole, tag-scoped deletes ------------------------------------

# Where policy documents sit, by resource type: top-level keys holding one document each.
POLICY_DOCUMENT_KEYS: Mapping[str, tuple[str, ...]] = {
    "aws:iam/policy:Policy": ("policy",),
    "aws:iam/rolePolicy:RolePolicy": ("policy",),
    "aws:iam/userPolicy:UserPolicy": ("policy",),
    "aws:iam/groupPolicy:GroupPolicy": ("policy",),
    "aws:iam/role:Role": ("assumeRolePolicy",),
    "aws:sqs/queuePolicy:QueuePolicy": ("policy",),
}


def policy_documents(resource_type: str, props: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every IAM policy document a resource declares (JSON text or an object), inline role policies included."""
    documents = [props.get(key) for key in POLICY_DOCUMENT_KEYS.get(resource_type, ())]
    if resource_type == "aws:iam/role:Role":
        documents += [_get(inline, "policy") for inline in _items(props.get("inlinePolicies"))]
    for document in documents:
        if isinstance(document, str) and document:
            yield json.loads(document)
        elif isinstance(document, Mapping):
            yield document


def _allow_statements(document: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    return (s for s in _items(document.get("Statement")) if isinstance(s, Mapping) and s.get("Effect") == "Allow")


def wildcard_action_problems(document: Mapping[str, Any]) -> list[str]:
    """Allow statements granting every action (``*``), every action of a service (``ec2:*``), or ``NotAction``."""
    problems = []
    for statement in _allow_statements(document):
        label = statement.get("Sid") or "a statement"
        if statement.get("NotAction") is not None:
            problems.append(f"{label}: Allow with NotAction grants every other action")
        problems += [f"{label}: action {action!r} is a wildcard" for action in _items(statement.get("Action"))
                     if action == "*" or str(action).endswith(":*")]
    return problems


def pass_role_problems(document: Mapping[str, Any]) -> list[str]:
    """iam:PassRole only on named roles: a wildcard would let the holder hand any role to a service."""
    problems = []
    for statement in _allow_statements(document):
        if "iam:passrole" in {str(a).lower() for a in _items(statement.get("Action"))}:
            wild = [r for r in _items(statement.get("Resource")) if "*" in str(r)]
            if wild or statement.get("NotResource") is not None:
                problems.append(f"{statement.get('Sid') or 'a statement'}: iam:PassRole on "
                                f"{', '.join(map(str, wild)) or 'NotResource'}; name the roles")
    return problems


def untagged_delete_problems(document: Mapping[str, Any]) -> list[str]:
    """Deletes and terminations on wildcard resources must be limited by a ``aws:ResourceTag/...`` condition,
    so the holder can only destroy what it created (Karpenter tags everything it launches)."""
    problems = []
    for statement in _allow_statements(document):
        destructive = [a for a in _items(statement.get("Action"))
                       if str(a).split(":")[-1].lower().startswith(("delete", "terminate"))]
        wildcard = any("*" in str(r) for r in _items(statement.get("Resource")))
        condition_keys = {key for operator in (statement.get("Condition") or {}).values()
                          if isinstance(operator, Mapping) for key in operator}
        tag_scoped = any(str(key).startswith("aws:ResourceTag/") for key in condition_keys)
        if destructive and wildcard and not tag_scoped:
            problems.append(f"{statement.get('Sid') or 'a statement'}: {', '.join(destructive)} on a wildcard "
                            "resource without an aws:ResourceTag/ condition")
    return problems


def _document_policy(check: Callable[[Mapping[str, Any]], list[str]]) -> Callable[..., None]:
    """A resource validation running ``check`` on each policy document of a resource."""
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        for document in policy_documents(args.resource_type, args.props):
            for problem in check(document):
                report_violation(f"{args.name}: {problem}", None)
    validate.__doc__ = check.__doc__
    return validate


# --- EKS: the public API endpoint ------------------------------------------------------------------------

_EVERYWHERE = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))


def public_endpoint_problem(public: Any, cidrs: Any) -> str | None:
    """A public endpoint is fine only when limited to given networks (EKS defaults both to open)."""
    if public is False:
        return None
    open_to = [cidr for cidr in _items(cidrs) if ipaddress.ip_network(cidr, strict=False) in _EVERYWHERE]
    if cidrs is None or open_to:
        return (f"the public API endpoint is open to {', '.join(open_to) or '0.0.0.0/0 (the default)'}; set "
                "prescale:cluster.publicAccessCidrs to your networks or endpointPublicAccess: false")
    return None


def eks_endpoint_limited(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Both shapes: pulumi-eks's component (top-level inputs) and the ``aws.eks.Cluster`` it creates (vpcConfig)."""
    if args.resource_type == "eks:index:Cluster":
        problem = public_endpoint_problem(args.props.get("endpointPublicAccess"), args.props.get("publicAccessCidrs"))
    elif args.resource_type == "aws:eks/cluster:Cluster":
        vpc = args.props.get("vpcConfig") or {}
        problem = public_endpoint_problem(vpc.get("endpointPublicAccess"), vpc.get("publicAccessCidrs"))
    else:
        return
    if problem:
        report_violation(f"{args.name}: {problem}", None)


# --- the pack ------------------------------------------------------------------------------------------

MANDATORY, ADVISORY = EnforcementLevel.MANDATORY, EnforcementLevel.ADVISORY

POLICIES: list[ResourceValidationPolicy | StackValidationPolicy] = [
    ResourceValidationPolicy(
        name="prescale-pods-restricted", enforcement_level=MANDATORY, validate=pods_restricted,
        description=f"Pods in the {PLACEHOLDER_NAMESPACE!r} namespace meet the restricted pod security standard."),
    StackValidationPolicy(
        name="placeholders-negative-priority", enforcement_level=MANDATORY, validate=placeholders_negative_priority,
        description="Placeholder pods run at a negative, non-preempting, non-default priority."),
    ResourceValidationPolicy(
        name="placeholders-on-foreign-pools-do-not-disrupt", enforcement_level=MANDATORY,
        validate=foreign_pools_protected,
        description="Placeholders on a NodePool prescale does not own carry karpenter.sh/do-not-disrupt: \"true\"."),
    ResourceValidationPolicy(
        name="ec2nodeclass-imdsv2-encrypted", enforcement_level=MANDATORY, validate=node_classes_hardened,
        description="Karpenter EC2NodeClasses require IMDSv2 with a hop limit of 1 and encrypt every EBS volume "
                    "(one made from a snapshot is as encrypted as its snapshot)."),
    ResourceValidationPolicy(
        name="driven-counts-ignored", enforcement_level=MANDATORY, validate=driven_counts_ignored,
        description="Static NodePools and CapacityBuffers ignore changes to spec.replicas, which their driver sets."),
    ResourceValidationPolicy(
        name="prescale-roles-name-their-objects", enforcement_level=MANDATORY, validate=prescale_roles_named,
        description="prescale's Roles and ClusterRoles name the objects each rule allows, without wildcards."),
    ResourceValidationPolicy(
        name="sqs-encrypted", enforcement_level=MANDATORY, validate=queues_encrypted,
        description="SQS queues are encrypted at rest."),
    ResourceValidationPolicy(
        name="iam-no-wildcard-actions", enforcement_level=MANDATORY,
        validate=_document_policy(wildcard_action_problems),
        description="IAM policies allow no '*' or 'service:*' actions and no NotAction."),
    ResourceValidationPolicy(
        name="iam-scoped-passrole", enforcement_level=MANDATORY, validate=_document_policy(pass_role_problems),
        description="iam:PassRole is allowed on named roles only."),
    ResourceValidationPolicy(
        name="iam-tag-scoped-deletes", enforcement_level=MANDATORY,
        validate=_document_policy(untagged_delete_problems),
        description="Deletes and terminations on wildcard resources are limited by resource tags."),
    ResourceValidationPolicy(
        name="eks-public-endpoint-limited", enforcement_level=ADVISORY, validate=eks_endpoint_limited,
        description="The EKS public API endpoint is off or limited to given CIDRs."),
]
