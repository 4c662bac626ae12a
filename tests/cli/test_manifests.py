"""``prescale plan --out`` for static and buffer windows: their counts stay in the manifests, which pass the CRDs."""

import yaml

from prescale_cli.manifests import write_manifests
from tests.support.crd_validation import CRD_FILES, validate


def test_static_node_pools_and_buffers_keep_the_count_their_crds_need_and_the_readme_says_to_ignore_it(
        native_run, tmp_path):
    written = write_manifests(native_run[0], tmp_path, "native")
    documents = [yaml.safe_load(path.read_text()) for path in written.files]
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
