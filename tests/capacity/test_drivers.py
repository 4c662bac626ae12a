"""The drivers of static and buffer windows: two CronJobs each, bounded as the plan says, running kubectl with
exactly the rights its calls need (derived from kubectl's source, :mod:`tests.support.kubectl_requests`), in the
failsafe's restricted pods on the system nodes. The failsafes' rights are held to the same derivation."""

import copy
import json

import pytest
from prescale.capacity.failsafe import pod_spec
from prescale.contract import SystemPlacement
from prescale.model.config import PlaceholderConfig
from prescale.model.strategies.static import static_node_pool_name

from policy.prescale_policies import restricted_pod_problems
from tests.support.capacity import CRON_JOB, as_object
from tests.support.crd_validation import validate_kubernetes
from tests.support.kubectl_requests import Request, granted, requests

DRIVER = "prescale:index:CapacityDriver"
JOB = "kubernetes:batch/v1:Job"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1"
# The kinds whose objects a kubectl call names, as RBAC names their resources.
RESOURCES = {"NodePool": "nodepools", "CapacityBuffer": "capacitybuffers", "CronJob": "cronjobs",
             "Deployment": "deployments", "ScaledObject": "scaledobjects"}


def cron_job(evaluation, name: str) -> dict:
    return as_object(evaluation.named(CRON_JOB, name))


def pod(job: dict) -> dict:
    return job["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def calls(job: dict) -> dict[str, list[str]]:
    return {container["name"]: container["args"] for container in pod(job)["containers"]}


def test_each_window_has_a_scale_up_a_scale_down_and_a_failsafe_bounded_as_its_plan_says(native_run):
    evaluation, (deployed,) = native_run
    assert sorted(deployed.drivers) == ["flash", "launch", "lunch", "sale"]
    for plan in deployed.plan.armed:
        driver = plan.capacity.driver
        for edge, run in (("scale-up", driver.up), ("scale-down", driver.down), ("failsafe", driver.failsafe)):
            job = cron_job(evaluation, f"{plan.window.name}-{edge}")
            assert job["metadata"] == {"name": run.name, "namespace": "prescale", "labels": {
                "app.kubernetes.io/name": "prescale-driver", "app.kubernetes.io/managed-by": "prescale",
                "prescale.io/window": plan.window.name}}
            spec = job["spec"]
            assert (spec["schedule"], spec["timeZone"], spec["concurrencyPolicy"], spec["startingDeadlineSeconds"]) \
                == (run.schedule, driver.timezone, "Forbid", run.starting_deadline_seconds)
            job_spec = spec["jobTemplate"]["spec"]
            assert (job_spec["activeDeadlineSeconds"], job_spec["backoffLimit"], pod(job)["restartPolicy"]) == \
                (run.active_deadline_seconds, run.backoff_limit, "OnFailure")
    lunch = deployed.plan.window("lunch").capacity.driver
    assert (lunch.timezone, lunch.up.schedule, lunch.down.schedule, lunch.failsafe.schedule) == (
        "Asia/Seoul", "50 11 * * *", "0 13 * * *", "15 13 * * *")  # the failsafe: the end + failsafeGrace (15m)


def test_a_static_window_scales_its_node_pool_and_a_buffer_patches_its_count(native_run):
    evaluation, _ = native_run
    lunch = static_node_pool_name("static", "lunch")
    assert calls(cron_job(evaluation, "lunch-scale-up")) == {
        "set-count": ["scale", f"nodepools.karpenter.sh/{lunch}", "--replicas=3"]}
    assert calls(cron_job(evaluation, "lunch-scale-down")) == {
        "set-count": ["scale", f"nodepools.karpenter.sh/{lunch}", "--replicas=0"]}
    (patch,) = calls(cron_job(evaluation, "sale-scale-up")).values()
    assert patch[:4] == ["patch", "capacitybuffers.autoscaling.x-k8s.io/prescale-sale", "--namespace=prescale",
                         "--type=merge"]
    assert json.loads(patch[4].removeprefix("--patch=")) == {"spec": {"replicas": 2}}


def test_a_one_offs_scale_down_also_deletes_its_scale_up_which_would_fire_again_next_year(native_run):
    evaluation, _ = native_run
    assert calls(cron_job(evaluation, "flash-scale-down"))["disarm-scale-up"] == [
        "delete", "cronjobs.batch/scale-up-flash", "--namespace=prescale", "--ignore-not-found", "--wait=false"]
    assert list(calls(cron_job(evaluation, "flash-scale-up"))) == ["set-count"]
    assert list(calls(cron_job(evaluation, "sale-scale-down"))) == ["set-count"]  # recurring: nothing to disarm


def test_the_failsafe_sets_zero_again_and_a_one_offs_disarms_its_scale_up_too(native_run):
    """Even when the scale-down never ran (its CronJob created after its edge, its Job failed), the failsafe
    sets 0 and a one-off's scale-up cannot fire next year."""
    evaluation, _ = native_run
    lunch = static_node_pool_name("static", "lunch")
    assert calls(cron_job(evaluation, "lunch-failsafe")) == {
        "set-count": ["scale", f"nodepools.karpenter.sh/{lunch}", "--replicas=0"]}
    flash = calls(cron_job(evaluation, "flash-failsafe"))
    assert flash["disarm-scale-up"] == [
        "delete", "cronjobs.batch/scale-up-flash", "--namespace=prescale", "--ignore-not-found", "--wait=false"]
    assert cron_job(evaluation, "flash-failsafe")["metadata"]["name"] == "failsafe-flash"
    (patch,) = calls(cron_job(evaluation, "sale-failsafe")).values()
    assert json.loads(patch[4].removeprefix("--patch=")) == {"spec": {"replicas": 0}}


def held_by(evaluation, account: str, namespace: str, roles: list[dict] | None = None) -> set[Request]:
    """What ServiceAccount ``namespace/account`` holds through the stack's bindings (``roles``: the stack's Roles
    and ClusterRoles, or changed copies of them)."""
    objects = [as_object(r) for r in evaluation.resources if r.type.startswith(RBAC)]
    roles = roles if roles is not None else [o for o in objects if o["kind"] in ("Role", "ClusterRole")]
    subject = {"kind": "ServiceAccount", "name": account, "namespace": namespace}
    held: set[Request] = set()
    for binding in (o for o in objects if o["kind"] in ("RoleBinding", "ClusterRoleBinding")):
        if subject not in binding["subjects"]:
            continue
        scope = binding["metadata"].get("namespace")
        (role,) = [r for r in roles if r["kind"] == binding["roleRef"]["kind"]
                   and r["metadata"]["name"] == binding["roleRef"]["name"] and r["metadata"].get("namespace") == scope]
        held |= granted(role["rules"], scope)
    return held


def needed_by(evaluation) -> dict[tuple[str, str], set[Request]]:
    """(namespace, ServiceAccount) → every request the kubectl calls of its CronJobs and converge Jobs make."""
    needed: dict[tuple[str, str], set[Request]] = {}
    cron_jobs = [(job["metadata"]["namespace"], pod(job)) for job in map(as_object, evaluation.of_type(CRON_JOB))]
    jobs = [(job["metadata"]["namespace"], job["spec"]["template"]["spec"])
            for job in map(as_object, evaluation.of_type(JOB))]
    for namespace, spec in cron_jobs + jobs:
        for args in (container["args"] for container in spec["containers"]):
            needed.setdefault((namespace, spec["serviceAccountName"]), set()).update(requests(args, namespace))
    return needed


@pytest.fixture(params=["static and buffer", "placeholders"])
def evaluation(request):
    fixture = {"static and buffer": "native_run", "placeholders": "every_kind_run"}[request.param]
    return request.getfixturevalue(fixture)[0]


def test_every_kubectl_pod_holds_exactly_the_rights_its_calls_need_on_objects_of_the_stack(evaluation):
    needed = needed_by(evaluation)
    accounts = {(o["metadata"]["namespace"], o["metadata"]["name"])
                for o in map(as_object, evaluation.of_type("kubernetes:core/v1:ServiceAccount"))}
    assert needed.keys() == accounts  # each account serves its jobs, and each job has one
    for (namespace, account), wanted in needed.items():
        assert held_by(evaluation, account, namespace) == wanted, account
    # Every object named is one the stack declares, where it declares it.
    declared = {(RESOURCES.get(o["kind"]), o["metadata"]["name"], o["metadata"].get("namespace"))
                for o in map(as_object, evaluation.resources) if "metadata" in o}
    for request in set().union(*needed.values()):
        assert (request.resource.split("/")[0], request.name, request.namespace) in declared, request


def test_the_comparison_fails_on_a_right_too_few_or_too_many(native_run):
    evaluation, _ = native_run
    wanted = needed_by(evaluation)["prescale", "driver-lunch"]
    roles = [as_object(evaluation.named(f"{RBAC}:ClusterRole", "lunch-driver-cluster-role"))]
    fewer = copy.deepcopy(roles)
    fewer[0]["rules"] = fewer[0]["rules"][1:]  # no `get` on the NodePool: kubectl's builder could not read it
    assert held_by(evaluation, "driver-lunch", "prescale", fewer) < wanted
    more = copy.deepcopy(roles)
    more[0]["rules"][1]["verbs"].append("update")
    assert held_by(evaluation, "driver-lunch", "prescale", more) > wanted
    wild = copy.deepcopy(roles)
    del wild[0]["rules"][0]["resourceNames"]
    with pytest.raises(ValueError, match="by wildcard"):
        held_by(evaluation, "driver-lunch", "prescale", wild)


def test_driver_pods_are_the_failsafes_restricted_kubectl_pods_on_the_system_nodes(native_run):
    evaluation, _ = native_run
    for job in map(as_object, evaluation.of_type(CRON_JOB)):
        spec = pod(job)
        assert spec == pod_spec(calls(job), spec["serviceAccountName"], PlaceholderConfig().failsafe_image,
                                SystemPlacement())
        assert restricted_pod_problems(spec) == []
    drivers = {r.urn for r in evaluation.of_type(DRIVER)}
    for resource in (r for r in evaluation.resources if r.parent in drivers):
        validate_kubernetes(as_object(resource))


def test_a_pulumi_up_away_from_the_edges_sets_the_count_at_once_with_a_converge_job(native_run):
    """The Job sets the count the plan expects now with the driver's account and pod; its half and count are in its
    template, so a new half or a changed count replaces it (deleted first: same name), and Pulumi does not wait."""
    evaluation, (deployed,) = native_run
    lunch = deployed.plan.window("lunch").capacity
    assert lunch.converge is not None
    resource = evaluation.named(JOB, "lunch-converge")
    job = as_object(resource)
    assert job["metadata"] == {"name": "converge-lunch", "namespace": "prescale", "labels": {
        "app.kubernetes.io/name": "prescale-driver", "app.kubernetes.io/managed-by": "prescale",
        "prescale.io/window": "lunch"}, "annotations": {"pulumi.com/skipAwait": "true"}}
    template = job["spec"]["template"]
    assert template["metadata"]["annotations"] == {"prescale.io/converge-since": "2026-11-30T04:00:00Z",
                                                   "prescale.io/converge-count": "0"}
    assert [container["args"] for container in template["spec"]["containers"]] == [
        ["scale", f"nodepools.karpenter.sh/{static_node_pool_name('static', 'lunch')}", "--replicas=0"]]
    assert template["spec"]["serviceAccountName"] == "driver-lunch"
    assert (job["spec"]["activeDeadlineSeconds"], job["spec"]["backoffLimit"]) == (
        lunch.converge.active_deadline_seconds, lunch.converge.backoff_limit)
    assert restricted_pod_problems(template["spec"]) == []


def test_no_driver_service_account_mounts_its_token(native_run):
    """Only the kubectl pods mount a token (their own `automountServiceAccountToken`); the accounts never do."""
    evaluation, _ = native_run
    accounts = [as_object(a) for a in evaluation.of_type("kubernetes:core/v1:ServiceAccount")
                if a.name.endswith("-driver-account")]
    assert len(accounts) == 4
    assert all(account["automountServiceAccountToken"] is False for account in accounts)
