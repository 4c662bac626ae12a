"""Per driven window (strategy static or buffer): the CronJobs that set its object's count, with exactly the rights
they need.

``kubectl scale`` of a static window's NodePool or a merge patch of a CapacityBuffer's ``spec.replicas``, in the
failsafe's kubectl pods, with the plan's deadlines; a one-off's scale-down also deletes its scale-up. One
ServiceAccount per window, a ClusterRole for a NodePool and a Role for namespaced objects, each naming its objects
and the verbs kubectl's calls make. What they run and hold: docs/capacity.md#drivers-two-cronjobs-per-window; why:
docs/internals.md#prescalecapacitydrivers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.schedule.drivers import ConvergeRun, DriverRun
from ..model.schedule.instants import utc_iso
from ..model.strategies.base import DrivenKind
from ..model.strategies.driven import driver_account_name
from ..model.values.labels import WINDOW_LABEL
from ..model.windows import ArmedWindow
from ..names import DRIVER_LABELS
from .failsafe import kubectl_cron_job_spec, pod_spec
from .provider import on_cluster

KARPENTER_GROUP = "karpenter.sh"
BUFFER_GROUP = "autoscaling.x-k8s.io"
RBAC_GROUP = "rbac.authorization.k8s.io"
CONVERGE_SINCE = "prescale.io/converge-since"  # the last driver run's fire before the plan's clock (UTC)
CONVERGE_COUNT = "prescale.io/converge-count"
Rule = dict[str, list[str]]


@dataclass(frozen=True)
class CapacityDriverArgs:
    window: ArmedWindow  # a driven window deployed now (`plan_capacity(...).armed`, its capacity with a driver)
    namespace: pulumi.Input[str]  # where its CronJobs, ServiceAccount and Role live (namespace prescale)
    image: str  # a kubectl image (`placeholders.failsafeImage`)
    platform: Platform  # its provider, and where controllers run (`system_placement`)


class CapacityDriver(pulumi.ComponentResource):
    """One window's driver: its ServiceAccount, roles and bindings, and the scale-up, scale-down and failsafe
    CronJobs.

    It names the window's object instead of depending on it, as the failsafe does: it acts only at the window's
    edges, and a Job that finds no object yet retries within its deadline.
    """

    # Attributes are annotated in __init__, not here: docs/performance.md#how-the-program-stays-fast.

    def __init__(self, name: str, args: CapacityDriverArgs, opts: pulumi.ResourceOptions | None = None):
        window, platform, namespace = args.window, args.platform, args.namespace
        super().__init__("prescale:index:CapacityDriver", name, {}, on_cluster(opts, platform))
        child = pulumi.ResourceOptions(parent=self)
        driven, driver, converge = window.capacity.driven, window.capacity.driver, window.capacity.converge
        if driven is None or driver is None:
            raise ValueError(f"event window {window.window.name!r} has no driver: its pool's strategy is "
                             f"{window.strategy.name}")
        labels = {**DRIVER_LABELS, WINDOW_LABEL: window.window.name}
        account_name = driver_account_name(window.window.name)
        metadata = {"name": account_name, "namespace": namespace, "labels": labels}
        account = k8s.core.v1.ServiceAccount(f"{name}-driver-account", metadata=metadata,
                                             automount_service_account_token=False, opts=child)
        subjects = [{"kind": "ServiceAccount", "name": account.metadata.name, "namespace": namespace}]
        cluster_wide, in_namespace = role_rules(driven, driver.down)
        bindings: list[pulumi.Resource] = []
        if cluster_wide:
            cluster_metadata = {"name": f"prescale-{account_name}", "labels": labels}
            cluster_role = k8s.rbac.v1.ClusterRole(f"{name}-driver-cluster-role", metadata=cluster_metadata,
                                                   rules=cluster_wide, opts=child)
            bindings.append(k8s.rbac.v1.ClusterRoleBinding(
                f"{name}-driver-cluster-binding", metadata=cluster_metadata, subjects=subjects,
                role_ref={"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": cluster_role.metadata.name},
                opts=child))
        if in_namespace:
            role = k8s.rbac.v1.Role(f"{name}-driver-role", metadata=metadata, rules=in_namespace, opts=child)
            bindings.append(k8s.rbac.v1.RoleBinding(
                f"{name}-driver-binding", metadata=metadata, subjects=subjects,
                role_ref={"apiGroup": RBAC_GROUP, "kind": "Role", "name": role.metadata.name}, opts=child))
        after_rights = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=bindings))

        def spec(run: DriverRun) -> pulumi.Output[dict[str, Any]]:
            return pulumi.Output.all(namespace, account.metadata.name).apply(lambda names: cron_job_spec(
                run, driven, driver.timezone, names[0], names[1], args.image, platform, labels))

        # by CronJob name: scale-up, scale-down, then the failsafe
        runs = (("scale-up", driver.up), ("scale-down", driver.down), ("failsafe", driver.failsafe))
        self.cron_jobs: dict[str, k8s.batch.v1.CronJob] = {run.name: k8s.batch.v1.CronJob(
            f"{name}-{edge}", metadata={"name": run.name, "namespace": namespace, "labels": labels},
            spec=spec(run), opts=after_rights) for edge, run in runs}
        # A `pulumi up` away from the edges sets the count at once; Pulumi never writes spec.replicas after creation.
        self.converge: k8s.batch.v1.Job | None = None
        if converge is not None:
            self.converge = k8s.batch.v1.Job(
                f"{name}-converge", metadata={"name": converge.name, "namespace": namespace, "labels": labels,
                                              "annotations": {"pulumi.com/skipAwait": "true"}},
                spec=pulumi.Output.all(namespace, account.metadata.name).apply(lambda names: converge_job_spec(
                    converge, driven, names[0], names[1], args.image, platform, labels)),
                # A Job's template cannot change: a new half or count replaces it, under the same name.
                opts=pulumi.ResourceOptions.merge(after_rights, pulumi.ResourceOptions(delete_before_replace=True)))
        self.register_outputs({"timeZone": driver.timezone, "scaleUp": driver.up.schedule,
                               "scaleDown": driver.down.schedule, "failsafe": driver.failsafe.schedule,
                               "cronJobNames": list(self.cron_jobs)})


def cron_job_spec(run: DriverRun, driven: tuple[DrivenKind, str], timezone: str, namespace: str, service_account: str,
                  image: str, platform: Platform, labels: dict[str, str]) -> dict[str, Any]:
    """``run`` as a CronJob in ``timezone``, with the plan's deadlines, retries and policies."""
    pod = pod_spec(commands(run, driven, namespace), service_account, image, platform.system_placement)
    return kubectl_cron_job_spec(run.schedule, timezone, run.starting_deadline_seconds, run.active_deadline_seconds,
                                 run.backoff_limit, labels, {**pod, "restartPolicy": run.restart_policy},
                                 run.concurrency_policy)


def converge_job_spec(run: ConvergeRun, driven: tuple[DrivenKind, str], namespace: str, service_account: str,
                      image: str, platform: Platform, labels: dict[str, str]) -> dict[str, Any]:
    """``run`` as a Job: the runs' pod setting ``run.replicas`` once, its half and count in the template (so that a
    new one replaces it), retried until its deadline, which ends before the driver's next run."""
    pod = pod_spec({"set-count": set_count(driven, run.replicas, namespace)}, service_account, image,
                   platform.system_placement)
    since = "none" if run.since is None else utc_iso(datetime.fromtimestamp(run.since, UTC))
    return {"backoffLimit": run.backoff_limit, "activeDeadlineSeconds": run.active_deadline_seconds,
            "template": {"metadata": {"labels": dict(labels), "annotations": {
                CONVERGE_SINCE: since, CONVERGE_COUNT: str(run.replicas)}}, "spec": pod}}


def commands(run: DriverRun, driven: tuple[DrivenKind, str], namespace: str) -> dict[str, list[str]]:
    """Container name → kubectl arguments: set the count; for a one-off's scale-down and failsafe, also delete the
    scale-up CronJob (independent containers, so one failing never stops the other)."""
    calls = {"set-count": set_count(driven, run.replicas, namespace)}
    if run.disarms is not None:
        calls["disarm-scale-up"] = ["delete", f"cronjobs.batch/{run.disarms}", f"--namespace={namespace}",
                                    "--ignore-not-found", "--wait=false"]
    return calls


def set_count(driven: tuple[DrivenKind, str], replicas: int, namespace: str) -> list[str]:
    """kubectl's arguments that set ``spec.replicas`` of the window's object (``driven``: its kind and name) to
    ``replicas``: a NodePool through its scale subresource, a CapacityBuffer (which has none) by a merge patch."""
    kind, name = driven
    if kind == "NodePool":
        return ["scale", f"nodepools.{KARPENTER_GROUP}/{name}", f"--replicas={replicas}"]
    patch = json.dumps({"spec": {"replicas": replicas}}, separators=(",", ":"))
    return ["patch", f"capacitybuffers.{BUFFER_GROUP}/{name}", f"--namespace={namespace}", "--type=merge",
            f"--patch={patch}"]


def role_rules(driven: tuple[DrivenKind, str], down: DriverRun) -> tuple[list[Rule], list[Rule]]:
    """The rules of the ClusterRole and of the Role (either may be empty): exactly the requests kubectl 1.34 makes
    for :func:`commands` (kubernetes/kubectl ``pkg/cmd/scale``, ``pkg/cmd/patch``, ``pkg/cmd/delete``; cli-runtime's
    builder GETs an object named by type/name before scaling or patching it, but not before deleting it with
    ``--wait=false``), on exactly the window's objects."""
    cluster_wide: list[Rule] = []
    in_namespace: list[Rule] = []
    kind, object_name = driven
    if kind == "NodePool":  # cluster-scoped
        name = [object_name]
        cluster_wide += [{"apiGroups": [KARPENTER_GROUP], "resources": ["nodepools"], "resourceNames": name,
                          "verbs": ["get"]},
                         {"apiGroups": [KARPENTER_GROUP], "resources": ["nodepools/scale"], "resourceNames": name,
                          "verbs": ["patch"]}]
    else:
        in_namespace.append({"apiGroups": [BUFFER_GROUP], "resources": ["capacitybuffers"],
                             "resourceNames": [object_name], "verbs": ["get", "patch"]})
    if down.disarms is not None:
        in_namespace.append({"apiGroups": ["batch"], "resources": ["cronjobs"], "resourceNames": [down.disarms],
                             "verbs": ["delete"]})
    return cluster_wide, in_namespace
