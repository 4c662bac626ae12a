"""Per window: the placeholder Deployment and its KEDA ScaledObject; shared: the namespace and PriorityClass."""

from datetime import UTC, datetime

import pytest
from prescale.offline import Evaluation

from tests.capacity.test_failsafe import CRON_JOB
from tests.support.capacity import (
    DEPLOYMENT,
    NAMESPACE,
    PRIORITY_CLASS,
    RICH_POOLS,
    RICH_WINDOWS,
    SCALED_OBJECT,
    as_object,
    dev_config,
    pool,
    resources_of_window,
    run,
    short,
    stack_config,
    window,
)

LABELS = {"app.kubernetes.io/name": "prescale-placeholder", "app.kubernetes.io/managed-by": "prescale",
          "prescale.io/window": "lunch-rush", "prescale.io/node-pool": "event"}


def test_dev_stack_lunch_rush_placeholders_one_node_sized_pod_per_node(dev_run):
    evaluation, _ = dev_run
    assert as_object(evaluation.named(DEPLOYMENT, "lunch-rush-placeholders")) == {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "prescale-lunch-rush", "namespace": "prescale", "labels": LABELS,
                     "annotations": {"pulumi.com/skipAwait": "true"}},
        "spec": {
            "replicas": 0,
            "strategy": {"type": "Recreate"},
            "selector": {"matchLabels": {"prescale.io/window": "lunch-rush"}},
            "template": {
                "metadata": {"labels": {**LABELS, "prescale.io/one-per-node": "event"}},
                "spec": {
                    "priorityClassName": "prescale-placeholder",
                    "automountServiceAccountToken": False,
                    "enableServiceLinks": False,
                    "terminationGracePeriodSeconds": 0,
                    "nodeSelector": {"prescale.io/node-pool": "event"},
                    "tolerations": [{"key": "prescale.io/event-capacity", "effect": "PreferNoSchedule",
                                     "operator": "Exists"}],
                    "topologySpreadConstraints": [{
                        "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "ScheduleAnyway",
                        "labelSelector": {"matchLabels": {"prescale.io/window": "lunch-rush"}}}],
                    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                        "labelSelector": {"matchLabels": {"prescale.io/one-per-node": "event"}},
                        "topologyKey": "kubernetes.io/hostname"}]}},
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65535, "runAsGroup": 65535,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": "pause",
                        "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": "1", "memory": "2Gi"},
                                      "limits": {"cpu": "1", "memory": "2Gi"}},
                        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                            "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}},
                    }],
                },
            },
        },
    }


def test_dev_stack_lunch_rush_scaler_reaches_five_pods_ten_minutes_early_in_seoul(dev_run):
    evaluation, _ = dev_run
    assert as_object(evaluation.named(SCALED_OBJECT, "lunch-rush-scaler")) == {
        "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
        "metadata": {"name": "prescale-lunch-rush", "namespace": "prescale", "labels": LABELS},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "prescale-lunch-rush"},
            "idleReplicaCount": 0,
            "minReplicaCount": 5,
            "maxReplicaCount": 5,
            "pollingInterval": 15,
            "cooldownPeriod": 60,
            "initialCooldownPeriod": 0,
            "triggers": [{"type": "cron", "metadata": {"timezone": "Asia/Seoul", "start": "5 11 * * *",
                                                       "end": "30 11 * * *", "desiredReplicas": "5"}}],
        },
    }


def keda_writes(spec: dict, *, active: bool, replicas: int, last_active_seconds_ago: float | None) -> int | None:
    """The replica count KEDA's executor writes itself on one poll, or None (leaving it to the HPA).

    KEDA 2.18-2.20 ``RequestScale`` for a ScaledObject, ``pkg/scaling/executor/scale_scaledobjects.go``
    (no pause annotations, no fallback, no trigger errors). ``last_active_seconds_ago`` None = never active:
    the creation time, just now, and ``initialCooldownPeriod`` count instead.
    """
    idle, minimum = spec.get("idleReplicaCount"), spec.get("minReplicaCount", 0)
    if active:
        if (idle is not None and replicas < minimum) or replicas == 0:
            return max(minimum, 1)
        return None
    if (idle is not None and replicas > idle) or (replicas > 0 and minimum == 0):
        waited, cooldown = ((0, spec.get("initialCooldownPeriod", 0)) if last_active_seconds_ago is None
                            else (last_active_seconds_ago, spec.get("cooldownPeriod", 300)))
        return (idle if idle is not None else minimum) if waited >= cooldown else None
    return None


@pytest.fixture
def evaluation(request) -> Evaluation:
    """The dev or the rich stack's capacity, by indirect parameter: the session's ``dev_run`` or ``rich_run``."""
    return request.getfixturevalue({"dev": "dev_run", "rich": "rich_run"}[request.param])[0]


@pytest.mark.parametrize("evaluation", ["dev", "rich"], indirect=True, ids=["dev", "rich"])
def test_keda_itself_sets_every_window_to_its_full_count_and_back_to_zero(evaluation):
    """Idle-replica mode: no step of a window is left to the HPA and the external metrics API."""
    for scaler in evaluation.of_type(SCALED_OBJECT):
        spec = as_object(scaler)["spec"]
        pods = int(spec["triggers"][0]["metadata"]["desiredReplicas"])
        assert spec["idleReplicaCount"] == 0 and spec["minReplicaCount"] == spec["maxReplicaCount"] == pods
        assert "advanced" not in spec  # an HPA pinned to N..N decides nothing: no behavior to tune
        # Opening: 0 → N in one write, and N restored if anything lowered it mid-window.
        assert keda_writes(spec, active=True, replicas=0, last_active_seconds_ago=None) == pods
        assert keda_writes(spec, active=True, replicas=max(pods - 1, 0), last_active_seconds_ago=0) == pods
        assert keda_writes(spec, active=True, replicas=pods, last_active_seconds_ago=0) is None
        # Closing: 0 once the cooldown since the last active poll is over, not before.
        assert keda_writes(spec, active=False, replicas=pods, last_active_seconds_ago=59) is None
        assert keda_writes(spec, active=False, replicas=pods, last_active_seconds_ago=60) == 0
        # Created outside its window with the API server's default of 1 (a GitOps apply without replicas),
        # or raised to N by the N..N HPA before KEDA's first poll: 0 at that first poll.
        for replicas in (1, pods):
            assert keda_writes(spec, active=False, replicas=replicas, last_active_seconds_ago=None) == 0


def test_the_executor_model_shows_what_plain_min_zero_left_to_the_hpa():
    # The former spec (min 0, max N): KEDA wrote only 0 → 1, the rest waited for the HPA and the metrics API.
    spec = {"minReplicaCount": 0, "maxReplicaCount": 5, "cooldownPeriod": 60}
    assert keda_writes(spec, active=True, replicas=0, last_active_seconds_ago=None) == 1
    assert keda_writes(spec, active=True, replicas=1, last_active_seconds_ago=0) is None


def test_dev_stack_windows_triggers_and_sizes(dev_run):
    evaluation, _ = dev_run
    triggers = {r.name: as_object(r)["spec"]["triggers"][0]["metadata"] for r in evaluation.of_type(SCALED_OBJECT)}
    assert triggers == {
        "lunch-rush-scaler": {"timezone": "Asia/Seoul", "start": "5 11 * * *", "end": "30 11 * * *",
                              "desiredReplicas": "5"},
        "morning-peak-scaler": {"timezone": "Asia/Seoul", "start": "45 7 * * *", "end": "0 11 * * *",
                                "desiredReplicas": "10"},
        # The launch's 64 CPU / 256 GiB as 16 pods of 4 CPU / 16 GiB, 20 minutes early, on 2 March only.
        "launch-2027-scaler": {"timezone": "America/New_York", "start": "40 7 2 3 *", "end": "0 14 2 3 *",
                               "desiredReplicas": "16"},
    }
    launch = as_object(evaluation.named(DEPLOYMENT, "launch-2027-placeholders"))["spec"]["template"]["spec"]
    assert launch["containers"][0]["resources"]["requests"] == {"cpu": "4", "memory": "16Gi"}
    assert "affinity" not in launch  # capacity pods may share nodes; they only spread over zones


def test_shared_namespace_enforces_restricted_and_priority_class_is_negative_and_never_preempts(dev_run):
    evaluation, _ = dev_run
    assert as_object(evaluation.named(NAMESPACE, "prescale-namespace"))["metadata"] == {
        "name": "prescale",
        "labels": {"app.kubernetes.io/name": "prescale-placeholder", "app.kubernetes.io/managed-by": "prescale",
                   "pod-security.kubernetes.io/enforce": "restricted",
                   "pod-security.kubernetes.io/enforce-version": "latest"}}
    priority = as_object(evaluation.named(PRIORITY_CLASS, "prescale-placeholder-priority"))
    assert {key: priority[key] for key in ("value", "preemptionPolicy", "globalDefault")} == \
        {"value": -10, "preemptionPolicy": "Never", "globalDefault": False}
    assert priority["metadata"]["name"] == "prescale-placeholder"
    for shared in (NAMESPACE, PRIORITY_CLASS):
        assert short(evaluation.of_type(shared)[0].provider) == "k8s-id"


@pytest.mark.parametrize("evaluation, count", [("dev", 3), ("rich", 6)], indirect=["evaluation"], ids=["dev", "rich"])
def test_every_placeholder_meets_the_restricted_pod_security_standard(evaluation, count):
    assert len(evaluation.of_type(DEPLOYMENT)) == count
    for deployment in evaluation.of_type(DEPLOYMENT):
        pod = as_object(deployment)["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] > 0
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        assert not {"hostNetwork", "hostPID", "hostIPC", "volumes"} & set(pod)
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False and context["readOnlyRootFilesystem"] is True
            assert context["capabilities"] == {"drop": ["ALL"]} and "privileged" not in context
            assert "ports" not in container


def test_replicas_are_created_at_zero_and_then_left_to_keda(dev_run):
    evaluation, _ = dev_run
    assert sorted(d.name for d in evaluation.of_type(DEPLOYMENT)) == [
        "launch-2027-placeholders", "lunch-rush-placeholders", "morning-peak-placeholders"]
    for deployment in evaluation.of_type(DEPLOYMENT):
        assert as_object(deployment)["spec"]["replicas"] == 0
        assert deployment.ignore_changes == ["spec.replicas"]
        assert deployment.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}


def test_a_pulumi_up_in_the_middle_of_a_window_declares_exactly_what_it_declares_outside():
    # 02:20 UTC = 11:20 in Seoul: lunch-rush is active and KEDA holds 5 placeholders. The program's inputs
    # must not depend on the clock (a changed input would make pulumi update the Deployment).
    inside, outside = datetime(2026, 12, 1, 2, 20, tzinfo=UTC), datetime(2026, 12, 1, 6, tzinfo=UTC)
    during, _ = run(dev_config(inside), inside)
    after, _ = run(dev_config(outside), outside)
    for name in ("lunch-rush", "morning-peak", "launch-2027"):
        assert resources_of_window(during, name) == resources_of_window(after, name)


def test_window_resources_hang_off_their_component_with_the_platform_provider_and_wait_for_keda(dev_run):
    evaluation, _ = dev_run
    component = evaluation.named("prescale:index:ScheduledCapacity", "lunch-rush")
    deployment = evaluation.named(DEPLOYMENT, "lunch-rush-placeholders")
    scaler = evaluation.named(SCALED_OBJECT, "lunch-rush-scaler")
    assert deployment.parent == scaler.parent == component.urn
    assert short(deployment.provider) == short(scaler.provider) == "k8s-id"
    assert sorted(map(short, deployment.dependencies)) == ["prescale-namespace", "prescale-placeholder-priority"]
    assert sorted(map(short, scaler.dependencies)) == ["keda", "lunch-rush-placeholders", "prescale-namespace"]


def test_every_failsafe_job_is_created_after_its_role_binding(dev_run):
    # A run before its RoleBinding exists would be forbidden to scale the placeholders down.
    evaluation, _ = dev_run
    jobs = {job.name.removesuffix("-failsafe-job"): job for job in evaluation.of_type(CRON_JOB)}
    assert sorted(jobs) == ["launch-2027", "lunch-rush", "morning-peak"]
    for name, job in jobs.items():
        assert sorted(map(short, job.dependencies)) == \
            [f"{name}-failsafe-account", f"{name}-failsafe-binding", "prescale-namespace"]


def test_overlapping_windows_on_one_pool_add_up_each_on_distinct_nodes(rich_run):
    evaluation, _ = rich_run
    specs = {name: as_object(evaluation.named(DEPLOYMENT, f"{name}-placeholders"))["spec"]["template"]
             for name in ("overlap-a", "overlap-b")}
    scalers = {name: as_object(evaluation.named(SCALED_OBJECT, f"{name}-scaler"))["spec"]
               for name in ("overlap-a", "overlap-b")}
    # Each window keeps its own count (2 + 3 = 5 placeholders while both are active)...
    assert [scalers[name]["triggers"][0]["metadata"]["desiredReplicas"] for name in ("overlap-a", "overlap-b")] \
        == ["2", "3"]
    # ...and one anti-affinity label per pool keeps all five on different nodes.
    for template in specs.values():
        assert template["metadata"]["labels"]["prescale.io/one-per-node"] == "event"
        assert template["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] \
            == [{"labelSelector": {"matchLabels": {"prescale.io/one-per-node": "event"}},
                 "topologyKey": "kubernetes.io/hostname"}]


def test_richer_windows_cross_midnight_weekdays_dst_zones_and_tainted_pools(rich_run):
    evaluation, _ = rich_run
    triggers = {r.name: as_object(r)["spec"]["triggers"][0]["metadata"] for r in evaluation.of_type(SCALED_OBJECT)}
    assert triggers["weekday-open-scaler"] == {"timezone": "America/New_York", "start": "45 8 * * 1-5",
                                               "end": "0 17 * * 1-5", "desiredReplicas": "3"}
    assert triggers["night-batch-scaler"] == {"timezone": "Europe/Berlin", "start": "50 21 * * *",
                                              "end": "0 6 * * *", "desiredReplicas": "3"}
    assert triggers["weekend-scaler"] == {"timezone": "Europe/London", "start": "50 17 * * 5",
                                          "end": "0 6 * * 1", "desiredReplicas": "1"}
    night = as_object(evaluation.named(DEPLOYMENT, "night-batch-placeholders"))["spec"]["template"]["spec"]
    assert night["nodeSelector"] == {"prescale.io/node-pool": "spot-arm"}
    assert night["tolerations"] == [
        {"key": "prescale.io/event", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}]
    assert night["containers"][0]["resources"]["requests"] == {"cpu": "3334m", "memory": "13654Mi"}


def test_an_ended_one_off_deploys_nothing_and_warns():
    after = datetime(2027, 3, 3, tzinfo=UTC)
    evaluation, built = run(dev_config(after), after)
    assert not [r for r in evaluation.resources if "launch-2027" in r.name]
    assert set(built[0].windows) == {"lunch-rush", "morning-peak"}
    ended = "event window 'launch-2027': one-off event ended at 2027-03-02 14:00 EST (America/New_York)"
    assert any(w.startswith(ended)
               for w in evaluation.warnings)


def test_an_armed_one_off_warns_that_its_freeze_repeats_until_the_next_pulumi_up(dev_run):
    evaluation, _ = dev_run
    assert [w for w in evaluation.warnings if w.startswith("event window 'launch-2027'")] == [
        "event window 'launch-2027': one-off event: its consolidation freeze on node pool 'event' (UTC budget "
        "'40 12 2 3 *' for 6h20m) has no year, so it freezes the pool again on the same date every year until a "
        "`pulumi up` after the event removes it; run `pulumi up` after 2027-03-02 14:00 EST (America/New_York)"]


def test_a_one_off_more_than_a_year_ahead_is_deployed_only_once_it_cannot_fire_early():
    config = stack_config([pool()], [window("launch", "2028-06-01T09:00", "2028-06-01T12:00")])
    evaluation, built = run(config)
    assert [r.type for r in evaluation.resources if "launch" in r.name] == []
    assert "event window 'launch': one-off event is not armed yet" in evaluation.warnings[0]
    assert built[0].idle_windows.keys() == {"launch"}
    later = datetime(2027, 6, 2, tzinfo=UTC)
    evaluation, _ = run(stack_config([pool()], [window("launch", "2028-06-01T09:00", "2028-06-01T12:00")], later),
                        later)
    assert evaluation.named(SCALED_OBJECT, "launch-scaler").inputs["spec"]["triggers"][0]["metadata"]["start"] \
        == "50 8 1 6 *"


def test_adding_removing_and_editing_windows_leaves_the_others_untouched(rich_run):
    before, _ = rich_run
    edited = [dict(w, nodes=9) if w["name"] == "overlap-a" else w for w in RICH_WINDOWS if w["name"] != "weekend"]
    added = [window("flash-sale", "0 20 * * 3", "0 21 * * 3", nodes=4)]
    after, _ = run(stack_config(RICH_POOLS, added + list(reversed(edited)), tags={"team": "platform"}))
    for name in ("weekday-open", "night-batch", "overlap-b", "sale"):
        assert resources_of_window(after, name) == resources_of_window(before, name)
    assert resources_of_window(after, "overlap-a") != resources_of_window(before, "overlap-a")
    names = {r.name for r in after.resources}
    assert {"flash-sale", "flash-sale-placeholders", "flash-sale-scaler"} <= names
    assert not {n for n in names if n.startswith("weekend")}


def test_a_lead_time_shorter_than_nodes_need_to_be_ready_is_deployed_with_a_warning():
    windows = [window("late", "0 9 * * *", "0 10 * * *", nodes=2, leadTime="1m"),
               window("on-time", "0 9 * * *", "0 10 * * *", nodes=2, leadTime="2m")]
    evaluation, built = run(stack_config([pool()], windows))
    assert set(built[0].windows) == {"late", "on-time"}
    assert evaluation.warnings == [
        "event window 'late': leadTime '1m' is shorter than a node needs to become Ready: KEDA scales up within 15 s, "
        "Karpenter batches pending pods for up to 10 s, and a new node takes about 30-80 s from launch to Ready "
        "before the event's images are even pulled (docs/capacity.md, \"How long a lead time\"); give it at least 2m "
        "(the default is 10m)"]
