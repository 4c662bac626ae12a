"""The failsafe scale-down: one CronJob per armed window, independent of KEDA, with just enough RBAC.

Asserted on what the program registers under mocks (schedule, time zone, commands, RBAC, pod security,
names), validated against the Kubernetes schema of the default cluster version, and, for the timing, against
KEDA's own activity rule: a failsafe run never lands while its window is open.
"""

from datetime import datetime, timedelta

import pytest
from prescale.model.config import EventWindow, PlaceholderConfig
from prescale.model.schedule.after_end import failsafe_problem, failsafe_schedule
from prescale.model.schedule.keda import cron_window_active
from prescale.model.values.cron import epoch_seconds, fire_timestamps, parse_cron
from prescale.model.values.time_zones import load_zone

from policy.prescale_policies import restricted_pod_problems
from tests.support.capacity import NOW, as_object, short
from tests.support.crd_validation import validate_kubernetes

CRON_JOB = "kubernetes:batch/v1:CronJob"
SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount"
ROLE = "kubernetes:rbac.authorization.k8s.io/v1:Role"
ROLE_BINDING = "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"
FAILSAFE_TYPES = (SERVICE_ACCOUNT, ROLE, ROLE_BINDING, CRON_JOB)
GRACE = timedelta(minutes=15)  # placeholders.failsafeGrace's default


def cron_job(evaluation, window: str) -> dict:
    return as_object(evaluation.named(CRON_JOB, f"{window}-failsafe-job"))


def pod(evaluation, window: str) -> dict:
    return cron_job(evaluation, window)["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def test_every_armed_window_has_exactly_one_guard_with_stable_names(dev_run):
    evaluation, built = dev_run
    windows = sorted(built[0].windows)
    assert sorted(built[0].failsafes) == windows == ["launch-2027", "lunch-rush", "morning-peak"]
    for type_, suffix in zip(FAILSAFE_TYPES, ("account", "role", "binding", "job")):
        registered = evaluation.of_type(type_)
        assert sorted(r.name for r in registered) == [f"{w}-failsafe-{suffix}" for w in windows]
        assert sorted(r.inputs["metadata"]["name"] for r in registered) == [f"failsafe-{w}" for w in windows]
        for resource in registered:
            component = evaluation.by_urn(resource.parent)
            assert (component.type, resource.name) == ("prescale:index:Failsafe", f"{component.name}-failsafe-{suffix}")
            assert resource.inputs["metadata"]["namespace"] == "prescale"
            assert short(resource.provider) == "k8s-id"


def test_the_guard_runs_at_the_end_plus_grace_in_the_windows_own_zone(dev_run):
    evaluation, _ = dev_run
    schedules = {w: {k: cron_job(evaluation, w)["spec"][k] for k in ("schedule", "timeZone", "startingDeadlineSeconds")}
                 for w in ("lunch-rush", "morning-peak", "launch-2027")}
    assert schedules == {
        "lunch-rush": {"schedule": "45 11 * * *", "timeZone": "Asia/Seoul", "startingDeadlineSeconds": 300},
        "morning-peak": {"schedule": "15 11 * * *", "timeZone": "Asia/Seoul", "startingDeadlineSeconds": 300},
        # One-off: dated like its trigger; a week to start late, its next fire is a year away.
        "launch-2027": {"schedule": "15 14 2 3 *", "timeZone": "America/New_York", "startingDeadlineSeconds": 604800},
    }


def test_runs_never_overlap_are_bounded_in_time_and_leave_little_history(dev_run):
    spec = cron_job(dev_run[0], "lunch-rush")["spec"]
    assert {k: spec[k] for k in ("concurrencyPolicy", "successfulJobsHistoryLimit", "failedJobsHistoryLimit")} == \
        {"concurrencyPolicy": "Forbid", "successfulJobsHistoryLimit": 1, "failedJobsHistoryLimit": 3}
    job = spec["jobTemplate"]["spec"]
    assert (job["activeDeadlineSeconds"], job["backoffLimit"]) == (300, 3)
    assert job["template"]["spec"]["restartPolicy"] == "OnFailure"


def test_a_recurring_guard_scales_its_deployment_to_zero_and_nothing_else(dev_run):
    containers = pod(dev_run[0], "lunch-rush")["containers"]
    assert [(c["name"], c["image"], c["command"], c["args"]) for c in containers] == [
        ("scale-to-zero", PlaceholderConfig().failsafe_image, ["kubectl"],
         ["scale", "--namespace=prescale", "--replicas=0", "deployment/prescale-lunch-rush"])]


def test_a_one_off_guard_also_deletes_its_trigger_so_it_cannot_fire_next_year(dev_run):
    containers = pod(dev_run[0], "launch-2027")["containers"]
    assert {c["name"]: c["args"] for c in containers} == {
        "scale-to-zero": ["scale", "--namespace=prescale", "--replicas=0", "deployment/prescale-launch-2027"],
        # --wait=false: KEDA's finalizer completes whenever KEDA runs; the job does not wait for it.
        "disarm-trigger": ["delete", "--namespace=prescale", "scaledobjects.keda.sh/prescale-launch-2027",
                           "--ignore-not-found", "--wait=false"],
    }


def test_the_role_allows_only_scaling_its_own_deployment_and_for_a_one_off_deleting_its_own_trigger(dev_run):
    evaluation, _ = dev_run
    scale = [{"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["prescale-lunch-rush"],
              "verbs": ["get"]},
             {"apiGroups": ["apps"], "resources": ["deployments/scale"], "resourceNames": ["prescale-lunch-rush"],
              "verbs": ["patch"]}]
    assert as_object(evaluation.named(ROLE, "lunch-rush-failsafe-role"))["rules"] == scale
    one_off = as_object(evaluation.named(ROLE, "launch-2027-failsafe-role"))["rules"]
    assert one_off[-1] == {"apiGroups": ["keda.sh"], "resources": ["scaledobjects"],
                           "resourceNames": ["prescale-launch-2027"], "verbs": ["delete"]}
    assert all(rule["resourceNames"] for rule in one_off) and len(one_off) == 3
    binding = as_object(evaluation.named(ROLE_BINDING, "lunch-rush-failsafe-binding"))
    assert (binding["roleRef"], binding["subjects"]) == (
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "failsafe-lunch-rush"},
        [{"kind": "ServiceAccount", "name": "failsafe-lunch-rush", "namespace": "prescale"}])
    account = as_object(evaluation.named(SERVICE_ACCOUNT, "lunch-rush-failsafe-account"))
    assert account["automountServiceAccountToken"] is False  # only the failsafe pod mounts the token
    assert pod(evaluation, "lunch-rush")["serviceAccountName"] == "failsafe-lunch-rush"


def test_the_pod_meets_restricted_and_stays_off_karpenter_nodes(dev_run):
    for window in ("lunch-rush", "launch-2027"):
        spec = pod(dev_run[0], window)
        assert restricted_pod_problems(spec) == []
        assert spec["securityContext"] == {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                           "seccompProfile": {"type": "RuntimeDefault"}}
        for container in spec["containers"]:
            assert container["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                    "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}
        assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}]}
        assert spec["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
        assert spec["volumes"] == [{"name": "home", "emptyDir": {"sizeLimit": "16Mi"}}]


def test_every_guard_object_passes_the_kubernetes_schema(dev_run):
    evaluation, _ = dev_run  # a recurring and a one-off guard
    guards = [r for r in evaluation.resources if r.type in FAILSAFE_TYPES]
    assert len(guards) == 4 * 3
    for resource in guards:
        validate_kubernetes(as_object(resource))


def test_no_guard_run_lands_while_its_window_is_open_even_when_it_starts_late(rich_run):
    """Over two months of fires of every rich-config guard (the registered CronJob's schedule and zone), KEDA's
    own activity rule says the window is closed at the run and at the latest moment it may still start."""
    evaluation, built = rich_run
    checked = 0
    for name, capacity in built[0].windows.items():
        armed = capacity.armed
        spec = cron_job(evaluation, name)["spec"]
        zone = load_zone(spec["timeZone"])
        for fire in fire_timestamps(parse_cron(spec["schedule"]), zone, epoch_seconds(NOW),
                                    epoch_seconds(NOW + timedelta(days=61))):
            for moment in (fire, fire + spec["startingDeadlineSeconds"]):
                at = datetime.fromtimestamp(moment, zone)
                trigger = armed.capacity
                assert not cron_window_active(trigger.trigger_start, trigger.trigger_end, spec["timeZone"], at), (
                    name, at)
                checked += 1
    assert checked > 100


def window(**fields) -> EventWindow:
    base = {"name": "w", "node_pool": "event", "timezone": "Asia/Seoul", "nodes": 1}
    return EventWindow(**{**base, **fields})


@pytest.mark.parametrize("fields, expected", [
    # Across midnight the day-of-week moves with it.
    ({"start": "0 22 * * 5", "end": "50 23 * * 5"}, "5 0 * * 6"),
    ({"start": "0 9 * * 1-5", "end": "0 17 * * 1-5"}, "15 17 * * 1-5"),
    ({"start": "2027-05-05T20:00", "end": "2027-05-05T23:50"}, "5 0 6 5 *"),
])
def test_the_schedule_is_the_end_shifted_by_the_grace(fields, expected):
    assert failsafe_schedule(window(**fields), GRACE) == expected


@pytest.mark.parametrize("fields, grace, fragment", [
    # Hourly windows with a 10-minute gap: a 15-minute grace lands in the next window.
    ({"start": "0 * * * *", "end": "45 * * * *", "lead_time": "5m"}, GRACE,
     "not before the next scale-up at Tue 2026-12-01 09:55 KST"),
    ({"start": "0 9 31 * *", "end": "50 23 31 * *"}, GRACE, "is not one cron"),
    ({"start": "0 22 * * *", "end": "45 1 * * *", "timezone": "America/New_York"}, timedelta(minutes=30),
     "where clocks jump from 02:00 to 03:00"),
    ({"start": "2027-03-14T00:00", "end": "2027-03-14T01:50", "timezone": "America/New_York"}, GRACE,
     "2027-03-14 02:05 does not exist in America/New_York"),
])
def test_a_guard_that_would_misfire_is_refused(fields, grace, fragment):
    assert fragment in failsafe_problem(window(**fields), grace, NOW)


def test_a_tight_but_safe_grace_is_accepted():
    hourly = window(start="0 * * * *", end="45 * * * *", lead_time="5m")
    assert failsafe_problem(hourly, timedelta(minutes=4), NOW) is None  # 09:49 + 5m start deadline < 09:55


def test_a_guard_whose_latest_start_lands_exactly_on_the_next_scale_up_is_refused():
    hourly = window(start="0 * * * *", end="45 * * * *", lead_time="5m")
    problem = failsafe_problem(hourly, timedelta(minutes=5), NOW)  # 09:50 + 5m start deadline = 09:55: too late
    assert "(or up to 5m later), not before the next scale-up at Tue 2026-12-01 09:55 KST" in problem, problem
    assert problem.endswith("allowed: a failsafeGrace from 2m to 4m"), problem


def test_a_gap_too_short_for_any_guard_says_how_far_apart_occurrences_must_be():
    problem = failsafe_problem(window(start="0 * * * *", end="50 * * * *", lead_time="5m"), timedelta(minutes=2), NOW)
    assert problem.endswith("allowed: a next scale-up more than 7m after each end"), problem


def test_a_run_across_a_clock_change_is_at_its_wall_time():
    """The night clocks spring forward (2027-03-14 in New York), 23:00 + 4h is 03:00, three real hours later:
    5 minutes late it still comes before the 03:30 scale-up. Four real hours would land at 04:00."""
    overnight = window(start="30 3 * * *", end="0 23 * * *", timezone="America/New_York")
    assert failsafe_problem(overnight, timedelta(hours=4), NOW) is None
    problem = failsafe_problem(overnight, timedelta(hours=4, minutes=30), NOW)  # 03:30 + 5m: every night
    assert "not before the next scale-up at" in problem, problem
