"""``prescale plan --out`` for static and buffer windows: their counts stay in the manifests (at 0, whatever the
plan's clock), which pass the CRDs."""

from datetime import UTC, datetime

from prescale_cli.manifests import write_manifests
from tests.support import load_yaml
from tests.support.capacity import native_config, run
from tests.support.crd_validation import CRD_FILES, validate


def test_static_node_pools_and_buffers_keep_the_count_their_crds_need_and_the_readme_says_to_ignore_it(
        native_run, tmp_path):
    written = write_manifests(native_run[0], tmp_path, "native")
    documents = [load_yaml(path.read_text()) for path in written.files]
    counted = [d for d in documents if d["kind"] in ("NodePool", "CapacityBuffer") and "replicas" in d["spec"]]
    assert sorted((d["kind"], d["spec"]["replicas"]) for d in counted) == [
        ("CapacityBuffer", 0), ("CapacityBuffer", 0), ("NodePool", 0), ("NodePool", 0)]
    for document in documents:
        if (document["apiVersion"], document["kind"]) in CRD_FILES:
            assert validate(document) == [], document["metadata"]["name"]
    # Without it, a static NodePool would be dynamic for good, and a buffer refused.
    static = next(d for d in counted if d["kind"] == "NodePool")
    assert validate({**static, "spec": {k: v for k, v in static["spec"].items() if k != "replicas"}}) == []
    buffer = next(d for d in counted if d["kind"] == "CapacityBuffer")
    assert "spec: If podTemplateRef is set, replicas or limits must also be set" in validate(
        {**buffer, "spec": {"podTemplateRef": buffer["spec"]["podTemplateRef"]}})
    # A converge Job applied later (GitOps) would write the count of the plan's clock: never written.
    assert native_run[0].of_type("kubernetes:batch/v1:Job") and not [d for d in documents if d["kind"] == "Job"]
    readme = written.readme.read_text()
    assert "Static NodePools and CapacityBuffers" in readme and "ignore `/spec/replicas` on them" in readme


def test_files_written_inside_a_window_still_hold_the_count_between_windows_and_say_so(tmp_path):
    """At 12:30 KST `lunch` is on, so `pulumi up` would create its NodePool at 3; a file applied later must not carry
    that count: 0, and the README says how to start the scale-up and what the cluster must run."""
    inside = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)
    evaluation, _ = run(native_config(inside), inside)
    registered = [r.inputs["spec"]["replicas"] for r in evaluation.of_type("kubernetes:karpenter.sh/v1:NodePool")
                  if "replicas" in r.inputs["spec"]]
    assert 3 in registered
    written = write_manifests(evaluation, tmp_path, "native")
    documents = [load_yaml(path.read_text()) for path in written.files]
    assert {d["spec"]["replicas"] for d in documents if d["kind"] in ("NodePool", "CapacityBuffer")
            and "replicas" in d["spec"]} == {0}
    assert len(written.driven) == 4
    assert all(name.startswith(("NodePool ", "CapacityBuffer ")) for name in written.driven)
    readme = written.readme.read_text()
    assert "create job --from=cronjob/scale-up-<window>" in readme
    assert "`StaticCapacity` feature gate" in readme and "`CapacityBuffer` feature gate" in readme
    assert "capacitybuffers.autoscaling.x-k8s.io" in readme
