"""The typed custom resources register as the v1 / v1alpha1 kinds, and refuse misplaced namespaces and long names."""

import pytest
from prescale.capacity.crds import EC2NodeClass, NodePool, ScaledObject
from prescale.names import placeholder_name as object_name
from prescale.offline import evaluate

SPEC = {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "x"},
                              "requirements": []}}}


def test_each_kind_registers_with_its_served_api_version():
    def program():
        NodePool("pool", {"name": "p"}, SPEC)
        EC2NodeClass("class", {"name": "c"}, {"role": "r", "amiSelectorTerms": [], "subnetSelectorTerms": [],
                                              "securityGroupSelectorTerms": [], "metadataOptions": {},
                                              "blockDeviceMappings": []})
        ScaledObject("scaler", {"name": "s", "namespace": "n"}, {"scaleTargetRef": {"name": "d"}, "triggers": []})

    evaluation = evaluate(program)
    registered = {(r.type, r.inputs["apiVersion"], r.inputs["kind"]) for r in evaluation.resources}
    assert registered == {("kubernetes:karpenter.sh/v1:NodePool", "karpenter.sh/v1", "NodePool"),
                          ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "karpenter.k8s.aws/v1", "EC2NodeClass"),
                          ("kubernetes:keda.sh/v1alpha1:ScaledObject", "keda.sh/v1alpha1", "ScaledObject")}
    assert "namespace" not in evaluation.named("kubernetes:karpenter.sh/v1:NodePool", "pool").inputs["metadata"]


@pytest.mark.parametrize("kind", [NodePool, EC2NodeClass])
def test_cluster_scoped_kinds_refuse_a_namespace(kind):
    with pytest.raises(ValueError, match="'p' is cluster-scoped and cannot have a namespace"):
        evaluate(lambda: kind("x", {"name": "p", "namespace": "default"}, SPEC))


def test_a_scaled_object_needs_a_namespace():
    with pytest.raises(ValueError, match="needs a namespace"):
        evaluate(lambda: ScaledObject("x", {"name": "s"}, {}))


def test_a_scaled_object_name_leaves_room_for_kedas_hpa_name():
    evaluate(lambda: ScaledObject("ok", {"name": "s" * 54, "namespace": "n"}, {}))
    with pytest.raises(ValueError, match="longer than 54 characters; KEDA's HPA name keda-hpa-<name> would exceed 63"):
        evaluate(lambda: ScaledObject("long", {"name": "s" * 55, "namespace": "n"}, {}))


def test_the_longest_window_name_fits():
    # Window names are at most 40 characters (config); the ScaledObject adds "prescale-".
    assert len(object_name("w" * 40)) <= ScaledObject.MAX_NAME_LENGTH
