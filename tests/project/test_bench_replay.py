"""The benchmark's baselines register exactly what the program did, so the ratio compares like with like."""

import copy
from datetime import datetime, timezone
from functools import partial

import pulumi_kubernetes as k8s
import pytest
from prescale.offline import Evaluation, evaluate, run_program

from bench.replay import differences, replay
from bench.stacks import wire_config
from tests.support import ROOT
from tests.support.stack_traces import StackTraces

ROOT = ROOT
NOW = datetime(2026, 11, 30, 12, tzinfo=timezone.utc)
STACK = "bench"


@pytest.fixture(scope="module")
def recorded() -> Evaluation:
    return run_program(ROOT, STACK, NOW, config=wire_config(6, 2))


@pytest.fixture(scope="module")
def replays(recorded) -> dict[str, tuple[Evaluation, list[str]]]:
    """Each way of replaying the recording, run once: what it registered, and the Deployments it declared
    through pulumi_kubernetes' own class."""
    runs = {}
    original = k8s.apps.v1.Deployment._internal_init
    with pytest.MonkeyPatch.context() as patch:
        for through in ("sdk", "engine"):
            declared: list[str] = []

            def spy(self, resource_name, *args, declared=declared, **kwargs):
                declared.append(resource_name)
                return original(self, resource_name, *args, **kwargs)

            patch.setattr(k8s.apps.v1.Deployment, "_internal_init", spy)
            runs[through] = (evaluate(partial(replay, recorded.resources, recorded.outputs, through), stack=STACK,
                                      config=wire_config(6, 2)), declared)
    return runs


@pytest.mark.parametrize("through", ["sdk", "engine"])
def test_a_replay_registers_the_same_resources_inputs_tree_and_options(recorded, replays, through):
    again, _ = replays[through]
    assert differences(recorded.resources, again.resources) == []
    assert len(again.resources) == len(recorded.resources) > 100
    assert again.outputs == recorded.outputs


def test_the_baseline_declares_each_resource_through_its_sdk_class(recorded, replays):
    """The typed classes' own work is in the baseline: a Deployment goes through pulumi_kubernetes' class."""
    assert sorted(replays["sdk"][1]) == sorted(r.name for r in recorded.of_type("kubernetes:apps/v1:Deployment"))
    assert replays["engine"][1] == []


def test_differences_name_what_a_replay_got_wrong(recorded):
    changed = copy.deepcopy(recorded.resources)
    deployment = next(r for r in changed if r.type == "kubernetes:apps/v1:Deployment")
    deployment.inputs["spec"]["replicas"] = 3
    deployment.ignore_changes = []
    component = next(r for r in changed if r.type == "prescale:index:ScheduledCapacity")
    component.outputs = None
    doubled = next(r for r in changed if r.type == "kubernetes:batch/v1:CronJob")
    doubled.aliases.append(doubled.aliases[-1])  # an SDK class given its own former types again
    extra = copy.deepcopy(deployment)
    extra.urn += "-extra"
    missing = changed.pop()
    assert sorted(differences(recorded.resources, [*changed, extra])) == sorted([
        f"{deployment.urn}: inputs differ", f"{deployment.urn}: ignore_changes differ",
        f"{component.urn}: outputs differ", f"{doubled.urn}: aliases differ",
        f"{extra.urn}: not registered by the program", f"{missing.urn}: not replayed"])


def test_the_recording_keeps_what_each_component_registered_as_outputs(recorded):
    window = recorded.named("prescale:index:ScheduledCapacity", "window-0")
    assert window.outputs == {"deploymentName": "prescale-window-0", "namespace": "prescale", "pods": 1}
    assert recorded.named("kubernetes:apps/v1:Deployment", "window-0-placeholders").outputs is None


def test_dependencies_on_resources_the_run_did_not_register_are_not_compared(recorded):
    registrations = copy.deepcopy(recorded.resources)
    registrations[0].dependencies.append("urn:pulumi:bench::prescale::eks:index:Cluster$aws:eks/cluster:Cluster::x")
    assert differences(registrations, recorded.resources) == []


def test_the_baseline_s_components_are_recorded_where_they_are_created_as_the_program_s_are(recorded):
    """The SDK records a component's creation stack only under a subclass's ``__init__``: the baseline declares its
    components as a program does, so it pays that work too (and the floor, plain resources, does not)."""
    program = StackTraces()
    run_program(ROOT, STACK, NOW, config=wire_config(6, 2), mocks=program)
    components = {key for key in program.frames if key[0].startswith("prescale:index:")}
    assert components and all(program.frames[key] > 0 for key in components)
    for through, recorded_there in (("sdk", True), ("engine", False)):
        again = StackTraces()
        evaluate(partial(replay, recorded.resources, recorded.outputs, through), stack=STACK,
                 config=wire_config(6, 2), mocks=again)
        assert {key: again.frames[key] > 0 for key in components} == dict.fromkeys(components, recorded_there), \
            through
