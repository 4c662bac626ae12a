"""Per armed window: a CronJob that forces the placeholders to zero after the window, whatever KEDA does.

If the KEDA operator is down when a window ends, nobody scales the placeholders down and their nodes stay for
days. This guard runs ``kubectl scale --replicas=0`` at the window's end + ``placeholders.failsafeGrace`` in the
window's own zone (kube-controller-manager runs a CronJob, not KEDA), and for a one-off also deletes the window's
ScaledObject so its yearless trigger cannot fire next year, with one ServiceAccount and Role per window on exactly
its objects. Why each choice: docs/guardrails.md#3-the-failsafe-when-keda-fails-at-a-windows-end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform, SystemPlacement
from ..model.config import EventWindow
from ..model.schedule.after_end import starting_deadline
from ..model.values.labels import WINDOW_LABEL
from ..names import FAILSAFE_LABELS, failsafe_name, placeholder_name
from .provider import on_cluster
from .scheduled_capacity import ScheduledCapacity, keda_trigger

KUBECTL_USER = 65532  # any non-root uid: kubectl only needs the service-account token and a scratch HOME
HOME = "/home/kubectl"
JOB_DEADLINE_SECONDS = 300  # a kubectl call takes seconds; a stuck one must not hold the run (Forbid) forever
JOB_RETRIES = 3
KEDA_GROUP = "keda.sh"


@dataclass(frozen=True)
class FailsafeArgs:
    window: ScheduledCapacity  # the window it guards: its plan (failsafe schedule), namespace and Deployment
    image: str  # a kubectl image (`placeholders.failsafeImage`)
    platform: Platform  # its provider, and where controllers run (`system_placement`)


class Failsafe(pulumi.ComponentResource):
    """One window's failsafe: ServiceAccount, Role, RoleBinding and the CronJob that scales to zero.

    It names the window's objects instead of depending on them: it only acts at the window's end, so the
    order in which ``pulumi up`` creates or deletes it next to them does not matter.
    """

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: FailsafeArgs, opts: pulumi.ResourceOptions | None = None):
        window, platform = args.window, args.platform
        super().__init__("prescale:index:Failsafe", name, {}, on_cluster(opts, platform))
        event = window.armed.window
        child = pulumi.ResourceOptions(parent=self)
        # One name for the account, its Role and binding, and the job; each object depends on those it names.
        named = failsafe_name(event.name)
        metadata = {"name": named, "namespace": window.namespace,
                    "labels": {**FAILSAFE_LABELS, WINDOW_LABEL: event.name}}
        account = k8s.core.v1.ServiceAccount(f"{name}-failsafe-account", metadata=metadata,
                                             automount_service_account_token=False, opts=child)
        role = k8s.rbac.v1.Role(f"{name}-failsafe-role", metadata=metadata,
                                rules=role_rules(event, window.deployment_name), opts=child)
        binding = k8s.rbac.v1.RoleBinding(
            f"{name}-failsafe-binding", metadata=metadata,
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": named},
            subjects=[{"kind": "ServiceAccount", "name": named, "namespace": window.namespace}],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[role, account]))
        schedule = keda_trigger(window.armed).failsafe_schedule
        self.cron_job: k8s.batch.v1.CronJob = k8s.batch.v1.CronJob(
            f"{name}-failsafe-job", metadata=metadata,
            spec=cron_job_spec(event, schedule, window.namespace, window.deployment_name, named,
                               args.image, platform.system_placement),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[account, binding]))
        self.register_outputs({"schedule": schedule, "timeZone": event.timezone,
                               "cronJobName": named})


def role_rules(window: EventWindow, deployment: str) -> list[dict[str, Any]]:
    """Exactly the requests kubectl makes for :func:`commands` (``kubectl scale`` reads the Deployment, then
    patches its scale; ``delete --wait=false`` only deletes: :func:`prescale.capacity.drivers.role_rules` says where
    in kubectl's source), on exactly this window's objects."""
    rules = [
        {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": [deployment], "verbs": ["get"]},
        {"apiGroups": ["apps"], "resources": ["deployments/scale"], "resourceNames": [deployment],
         "verbs": ["patch"]},
    ]
    if window.is_one_off:
        rules.append({"apiGroups": [KEDA_GROUP], "resources": ["scaledobjects"],
                      "resourceNames": [placeholder_name(window.name)], "verbs": ["delete"]})
    return rules


def commands(window: EventWindow, namespace: str, deployment: str) -> dict[str, list[str]]:
    """Container name → kubectl arguments; independent containers, so one failing never stops the other."""
    calls = {"scale-to-zero": ["scale", f"--namespace={namespace}", "--replicas=0", f"deployment/{deployment}"]}
    if window.is_one_off:
        calls["disarm-trigger"] = ["delete", f"--namespace={namespace}",
                                   f"scaledobjects.{KEDA_GROUP}/{placeholder_name(window.name)}",
                                   "--ignore-not-found", "--wait=false"]
    return calls


def cron_job_spec(window: EventWindow, schedule: str, namespace: pulumi.Input[str], deployment: str,
                  service_account: str, image: str, placement: SystemPlacement) -> pulumi.Output[dict[str, Any]]:
    """A run at ``schedule`` in the window's zone, never two at once, abandoned if it cannot start in time."""
    labels = {**FAILSAFE_LABELS, WINDOW_LABEL: window.name}
    return pulumi.Output.from_input(namespace).apply(lambda namespace_name: kubectl_cron_job_spec(
        schedule, window.timezone, int(starting_deadline(window).total_seconds()), JOB_DEADLINE_SECONDS,
        JOB_RETRIES, labels, pod_spec(commands(window, namespace_name, deployment), service_account, image, placement)))


def kubectl_cron_job_spec(schedule: str, timezone: str, starting_deadline_seconds: int,
                          active_deadline_seconds: int, backoff_limit: int, labels: Mapping[str, str],
                          pod: dict[str, Any], concurrency_policy: str = "Forbid") -> dict[str, Any]:
    """A CronJob of kubectl calls (``pod``) at ``schedule`` in ``timezone``: by default never two runs at once,
    started at most ``starting_deadline_seconds`` late, each Job retried for at most ``active_deadline_seconds``,
    little history."""
    return {
        "schedule": schedule,
        "timeZone": timezone,
        "concurrencyPolicy": concurrency_policy,
        "startingDeadlineSeconds": starting_deadline_seconds,
        "successfulJobsHistoryLimit": 1,
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {"metadata": {"labels": dict(labels)}, "spec": {
            "backoffLimit": backoff_limit,
            "activeDeadlineSeconds": active_deadline_seconds,
            "template": {"metadata": {"labels": dict(labels)}, "spec": pod},
        }},
    }


def pod_spec(calls: dict[str, list[str]], service_account: str, image: str,
             placement: SystemPlacement) -> dict[str, Any]:
    """kubectl containers that meet the "restricted" standard, placed like the cluster's controllers."""
    return {
        "serviceAccountName": service_account,
        "automountServiceAccountToken": True,  # kubectl's in-cluster credentials
        "restartPolicy": "OnFailure",
        "enableServiceLinks": False,
        "securityContext": {"runAsNonRoot": True, "runAsUser": KUBECTL_USER, "runAsGroup": KUBECTL_USER,
                            "seccompProfile": {"type": "RuntimeDefault"}},
        # Where the cluster's controllers run (the system nodes, an existing cluster's own nodes, Auto Mode's
        # system pool): never a node Karpenter may be about to empty, and never a reason to launch one.
        "nodeSelector": dict(placement.node_selector),
        "tolerations": [dict(toleration) for toleration in placement.tolerations],
        **({"affinity": placement.affinity} if placement.affinity else {}),
        "containers": [_kubectl(name, args, image) for name, args in calls.items()],
        # kubectl caches API discovery under $HOME; the root filesystem is read-only.
        "volumes": [{"name": "home", "emptyDir": {"sizeLimit": "16Mi"}}],
    }


def _kubectl(name: str, args: list[str], image: str) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "command": ["kubectl"],
        "args": args,
        "env": [{"name": "HOME", "value": f"{HOME}/{name}"}],
        "volumeMounts": [{"name": "home", "mountPath": HOME}],
        "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}},
    }
