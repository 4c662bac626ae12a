"""The platform wiring: cluster → Karpenter → KEDA, one provider for everything in-cluster, the stack outputs."""

import pulumi
import pytest
from prescale.offline import SECRET, evaluate
from prescale.platform import PrescalePlatform, PrescalePlatformArgs

from tests.support.platform import DEV_NOW, K8S_PROVIDER, RELEASE, only, stack_config, uses_provider

NEW_ONLY_TYPES = {"eks:index:Cluster", "eks:index:ManagedNodeGroup", "aws:eks/addon:Addon", "aws:ec2/vpc:Vpc",
                  "aws:ec2/subnet:Subnet", "aws:ec2/natGateway:NatGateway", "prescale:index:Network"}


def build(**sections):
    def program():
        component = PrescalePlatform("prescale", PrescalePlatformArgs.from_config(stack_config(**sections), DEV_NOW))
        platform = component.platform
        for key, value in component.stack_outputs.items():
            pulumi.export(key, value)
        # What the handle points at, as URNs (kept apart from the real stack outputs by the prefix).
        pulumi.export("handle.karpenterReady", [r.urn for r in platform.karpenter_ready])
        pulumi.export("handle.kedaReady", [r.urn for r in platform.keda_ready])
        pulumi.export("handle.provider", platform.kubernetes_provider.urn)
        pulumi.export("handle.nodeRoleName", platform.node_role_name)
    return evaluate(program)


def stack_outputs(evaluation) -> dict:
    return {k: v for k, v in evaluation.outputs.items() if not k.startswith("handle.")}


@pytest.fixture(scope="module")
def new_cluster():
    return build()


@pytest.fixture(scope="module")
def existing_cluster():
    return build(cluster={"create": False}, karpenter={"controllerAuth": "irsa"})


def urns(evaluation, type_):
    return {r.urn for r in evaluation.of_type(type_)}


def test_karpenter_charts_wait_for_the_control_plane_system_nodes_and_add_ons(new_cluster):
    evaluation = new_cluster
    cluster_ready = urns(evaluation, "eks:index:Cluster") | urns(evaluation, "eks:index:ManagedNodeGroup") | \
        urns(evaluation, "aws:eks/addon:Addon")
    assert len(cluster_ready) == 4  # cluster, node group, pod identity agent, CoreDNS
    for release in ("prescale-karpenter-crd", "prescale-karpenter"):
        assert cluster_ready <= set(evaluation.named(RELEASE, release).dependencies)


def test_crds_before_the_controller_and_karpenter_before_keda(new_cluster):
    evaluation = new_cluster
    crd, controller, keda = (evaluation.named(RELEASE, n).urn
                             for n in ("prescale-karpenter-crd", "prescale-karpenter", "prescale-keda"))
    assert crd in evaluation.by_urn(controller).dependencies
    assert {crd, controller} <= set(evaluation.by_urn(keda).dependencies)


def test_every_kubernetes_resource_goes_through_the_clusters_provider(new_cluster, existing_cluster):
    for evaluation in (new_cluster, existing_cluster):
        provider = only(evaluation, K8S_PROVIDER)
        assert provider.parent == only(evaluation, "prescale:index:Cluster").urn
        in_cluster = [r for r in evaluation.resources if r.type.startswith("kubernetes:")]
        assert len(in_cluster) == 4  # karpenter-crd, karpenter, keda namespace, keda
        assert all(uses_provider(r, provider.urn) for r in in_cluster)


def test_platform_handle_is_what_the_capacity_components_need(new_cluster):
    evaluation = new_cluster
    assert evaluation.outputs["handle.karpenterReady"] == [
        evaluation.named(RELEASE, "prescale-karpenter-crd").urn, evaluation.named(RELEASE, "prescale-karpenter").urn]
    assert evaluation.outputs["handle.kedaReady"] == [evaluation.named(RELEASE, "prescale-keda").urn]
    assert evaluation.outputs["handle.provider"] == only(evaluation, K8S_PROVIDER).urn
    assert evaluation.outputs["handle.nodeRoleName"] == "prescale-test-karpenter-node"


def test_stack_outputs_with_the_kubeconfig_secret(new_cluster):
    assert stack_outputs(new_cluster) == {
        "clusterName": "prescale-test", "kubeconfig": SECRET,
        "karpenterNodeRoleName": "prescale-test-karpenter-node",
        "karpenterInterruptionQueueName": "prescale-karpenter-interruption",
        "karpenterVersion": "1.14.1", "kedaVersion": "2.20.2"}


def test_components_nest_under_one_platform_component(new_cluster):
    evaluation = new_cluster
    root = only(evaluation, "prescale:index:PlatformStack")
    children = {r.type for r in evaluation.resources if r.parent == root.urn}
    assert children == {"prescale:index:Cluster", "prescale:index:Karpenter", "prescale:index:Keda"}


def test_existing_cluster_registers_no_cluster_vpc_or_node_group_yet_installs_everything_else(existing_cluster):
    evaluation = existing_cluster
    types = {r.type for r in evaluation.resources}
    assert not NEW_ONLY_TYPES & types
    assert {"aws:eks/accessEntry:AccessEntry", "aws:sqs/queue:Queue", RELEASE} <= types
    assert stack_outputs(evaluation)["clusterName"] == "prescale-test"
    assert stack_outputs(evaluation)["kubeconfig"] == SECRET
    karpenter_values = evaluation.named(RELEASE, "prescale-karpenter").inputs["values"]
    assert karpenter_values["nodeSelector"] == {"kubernetes.io/os": "linux"}  # the user's nodes carry no label of ours
