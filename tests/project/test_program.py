"""The whole program (`__main__.py`) under mocks: the dev stack evaluates; a bad stack registers nothing."""

import json
import os
from datetime import datetime, timezone

import pulumi
import pytest
from prescale.model.validation import ConfigError
from prescale.offline import SECRET, OfflineMocks, evaluate, is_secret, read_stack_file, revealed, run_program

from tests.support import ROOT
from tests.support.stack_traces import StackTraces

ROOT = ROOT
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def test_dev_stack_evaluates_offline(dev_stack):
    evaluation = dev_stack  # run_program(ROOT, "dev", NOW), evaluated once per session
    assert evaluation.outputs["clusterName"] == "prescale-dev"
    assert evaluation.outputs["kubeconfig"] == "[secret]"
    assert (evaluation.outputs["karpenterVersion"], evaluation.outputs["kedaVersion"]) == ("1.14.1", "2.20.2")
    assert len(evaluation.of_type("eks:index:Cluster")) == 1


def test_bad_stack_is_refused_before_any_resource_is_registered():
    config = read_stack_file(ROOT, "dev")
    windows = json.loads(config["prescale:eventWindows"])
    windows[0]["timezone"] = "Asia/Seol"
    config["prescale:eventWindows"] = json.dumps(windows)
    mocks = OfflineMocks()
    with pytest.raises(ConfigError, match=r"prescale:eventWindows\[0\]\.timezone: 'Asia/Seol'.*'Asia/Seoul'"):
        run_program(ROOT, "dev", NOW, config=config, mocks=mocks)
    assert mocks.registrations == []


def test_dev_stack_registers_capacity_after_the_platform(dev_stack):
    evaluation = dev_stack  # run_program(ROOT, "dev", NOW), evaluated once per session
    assert evaluation.outputs["armedWindows"] == ["launch-2027", "lunch-rush", "morning-peak"]
    assert evaluation.outputs["nodePools"] == ["event"]
    karpenter = evaluation.named("kubernetes:helm.sh/v3:Release", "prescale-karpenter")
    keda = evaluation.named("kubernetes:helm.sh/v3:Release", "prescale-keda")
    for node_pool in evaluation.of_type("kubernetes:karpenter.sh/v1:NodePool"):
        assert karpenter.urn in node_pool.dependencies
    scaled_objects = evaluation.of_type("kubernetes:keda.sh/v1alpha1:ScaledObject")
    assert len(scaled_objects) == 3
    for scaled_object in scaled_objects:
        assert keda.urn in scaled_object.dependencies


def test_the_stack_holds_two_components_and_exports_what_they_offer(dev_stack):
    evaluation = dev_stack
    recorded = {r.urn for r in evaluation.resources}
    top = [r for r in evaluation.resources if r.parent not in recorded]
    assert sorted(r.type for r in top) == ["prescale:index:PlatformStack", "prescale:index:PrescaleCapacity"]
    offered = {name: SECRET if is_secret(value) else revealed(value)
               for component in top for name, value in (component.outputs or {}).items()}
    assert offered == evaluation.outputs


def _called_from_depth(depth: int, call):
    return call() if depth == 0 else _called_from_depth(depth - 1, call)


def test_a_run_records_only_its_own_frames_whatever_its_caller_s_depth():
    """The SDK records the call stack of every registration; a caller's frames (a test runner's, a notebook's) would
    be paid for at every resource of the run."""
    def program():
        pulumi.ComponentResource("test:index:Thing", "thing")

    shallow, deep = StackTraces(), StackTraces()
    evaluate(program, mocks=shallow)
    _called_from_depth(50, lambda: evaluate(program, mocks=deep))
    assert shallow.frames and deep.frames == shallow.frames


def test_a_run_leaves_the_callers_pulumi_context_as_it_found_it():
    before = pulumi.runtime.settings.ROOT.get()
    first = evaluate(lambda: pulumi.export("n", 1))
    second = evaluate(lambda: pulumi.export("m", 2))
    assert (first.outputs, second.outputs) == ({"n": 1}, {"m": 2})  # each run exports from a root of its own
    assert pulumi.runtime.settings.ROOT.get() is before


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts the process's descriptors in /proc")
def test_runs_leave_no_file_descriptor_open():
    # The SDK's mock monitor gives each thread answering a registration an event loop it never closes: a process
    # that runs many programs (this suite, a library caller) ran out of descriptors.
    def program():
        for name in ("a", "b", "c"):
            pulumi.CustomResource("test:index:Thing", name)

    evaluate(program)  # the SDK's own first-use descriptors, if any
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        evaluate(program)
    assert len(os.listdir("/proc/self/fd")) == before
