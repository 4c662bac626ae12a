"""Node pool requirements in Karpenter's shape, per-pool placeholder sizes and capacity reservations: what the
config takes and refuses, what the NodePool and node class get (held to the CRDs), and what the pool can launch."""

from __future__ import annotations

import dataclasses
import re

import pytest
from prescale.capacity import deploy_capacity
from prescale.capacity.node_pools import requirements as rendered_requirements
from prescale.contract import AUTO_MODE_NODE_CLASSES
from prescale.model.fleet.instances import instance_types, pool_launchable
from prescale.model.fleet.sizing import plan_placeholders
from prescale.model.plan import plan_capacity
from prescale.model.validation import load_capacity_config, load_stack_config
from prescale.offline import evaluate

from prescale_cli.cost import candidates, cheapest_fleet
from tests.support import load_yaml
from tests.support.capacity import (
    DEPLOYMENT,
    NODE_CLASS,
    NODE_POOL,
    PROJECT,
    as_object,
    run,
    stack_config,
    stand_in_platform,
)
from tests.support.config import NOW, only_problem, problems
from tests.support.crd_validation import validate

AUTO_NODE_CLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"
LUNCH = {"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * *",
         "end": "30 11 * * *", "nodes": 2}


def pool(name: str = "event", **settings) -> dict:
    return {"name": name, "limits": {"cpu": "2000", "memory": "8000Gi"}, **settings}


def req(key: str, operator: str, *values: str, **more) -> dict:
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {}), **more}


def raw(pools: list[dict], windows: list[dict] | None = None, auto_mode: bool = False, **more) -> dict:
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test", "autoMode": auto_mode},
            "prescale:nodePools": pools, "prescale:eventWindows": windows if windows is not None else [LUNCH],
            **{f"prescale:{key}": value for key, value in more.items()}}


def node_pool_requirements(config) -> dict[str, list[dict]]:
    evaluation, _ = run(config)
    return {r.name: as_object(r)["spec"]["template"]["spec"]["requirements"] for r in evaluation.of_type(NODE_POOL)}


# --- the seed's NodePool ----------------------------------------------------------------------------------

def seed_pool_from_the_docs() -> dict:
    text = (PROJECT / "docs" / "capacity.md").read_text()
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL) if "- name: seed" in b)
    return load_yaml(block)["prescale:nodePools"][0]


SEED_REQUIREMENTS = [
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
    {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["t"]},
    {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]},
    {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["3"]},
    {"key": "karpenter.k8s.aws/instance-memory", "operator": "Gt", "values": ["8191"]},
]


def test_the_seeds_node_pool_written_as_in_the_docs_carries_exactly_its_requirements_and_passes_the_crd():
    seed = seed_pool_from_the_docs()
    config = stack_config([seed], [{**LUNCH, "nodePool": "seed"}])
    evaluation, _ = run(config)
    node_pool = as_object(evaluation.named(NODE_POOL, "seed-node-pool"))
    assert node_pool["spec"]["template"]["spec"]["requirements"] == SEED_REQUIREMENTS
    assert validate(node_pool) == []
    assert {t.name for t in pool_launchable(config.node_pool("seed")).types} == {
        "t3.xlarge", "t3.2xlarge", "t3a.xlarge", "t3a.2xlarge"}


def test_pools_without_requirements_render_as_before_and_a_written_key_replaces_its_shorthand():
    config = stack_config([pool("plain"), pool("mine", requirements=[
        req("karpenter.sh/capacity-type", "In", "reserved", "on-demand"),
        req("karpenter.k8s.aws/instance-family", "In", "c7i", "m7i", minValues=2),
        req("topology.kubernetes.io/zone", "NotIn", "ap-northeast-2d"),
        req("example.com/team", "Exists")],
        capacityReservationSelectorTerms=[{"id": "cr-0123456789abcdef0"}])], [])
    found = node_pool_requirements(config)
    assert found["plain-node-pool"] == [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]
    assert found["mine-node-pool"] == [
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved", "on-demand"]},
        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["c7i", "m7i"], "minValues": 2},
        {"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": ["ap-northeast-2d"]},
        {"key": "example.com/team", "operator": "Exists"}]
    evaluation, _ = run(config)
    assert all(validate(as_object(r)) == [] for r in evaluation.of_type(NODE_POOL))


# --- the shape of one requirement -----------------------------------------------------------------------------

@pytest.mark.parametrize("requirement, message", [
    (req("karpenter.k8s.aws/instance-cpu", "Gt", "3", "4"), "takes exactly one value, a whole number"),
    (req("karpenter.k8s.aws/instance-cpu", "Lt", "four"), "takes exactly one value, a whole number"),
    (req("karpenter.k8s.aws/instance-family", "In"), "needs values (the NodePool CRD)"),
    (req("karpenter.k8s.aws/instance-family", "NotIn"), "needs values"),
    (req("karpenter.k8s.aws/instance-family", "Exists", "c7i"), "takes no values (got ['c7i'])"),
    (req("karpenter.k8s.aws/instance-family", "In", "c7i", minValues=2), "minValues 2 is more than the 1 values"),
    (req("example.com/team", "DoesNotExist", minValues=1), "cannot be met"),
    (req("karpenter.k8s.aws/instance-family", "In", "c7i", "c7i"), "list c7i more than once"),
    (req("karpenter.sh/capacity-type", "In", "ondemand"), "among on-demand, spot, reserved"),
    (req("kubernetes.io/os", "In", "windows"), "prescale's nodes run Linux"),
])
def test_a_requirement_the_crd_or_karpenter_would_refuse_is_refused_with_its_path(requirement, message):
    problem = only_problem(raw([pool(requirements=[req("example.com/ok", "Exists"), requirement])]))
    assert problem.startswith("prescale:nodePools[0].requirements[1]: ") and message in problem, problem


def test_gte_is_not_taken_because_older_karpenter_crds_refuse_it():
    problem = only_problem(raw([pool(requirements=[req("karpenter.k8s.aws/instance-cpu", "Gte", "4")])]))
    assert problem.startswith("prescale:nodePools[0].requirements[0].operator: must be one of In, NotIn, Exists, "
                              "DoesNotExist, Gt, Lt")


@pytest.mark.parametrize("key, message", [
    ("karpenter.sh/nodepool", "karpenter.sh label domain"),
    ("kubernetes.io/hostname", "refused by the NodePool CRD"),
    ("karpenter.k8s.aws/instance-pods", "allowed: karpenter.k8s.aws/instance-tenancy, "),
    ("karpenter.k8s.aws/instance-famly", "did you mean 'karpenter.k8s.aws/instance-family'?"),
    ("topology.kubernetes.io/zones", "did you mean 'topology.kubernetes.io/zone'?"),
    ("beta.kubernetes.io/arch", "allowed: kubernetes.io/arch"),
    ("prescale.io/node-pool", "prescale's own label domain"),
    ("Example.com/team", "a label key like"),
])
def test_keys_outside_what_karpenter_and_prescale_allow_are_refused(key, message):
    problem = only_problem(raw([pool(requirements=[req(key, "Exists")])]))
    assert problem.startswith(f"prescale:nodePools[0].requirements[0].key: '{key}' ") and message in problem, problem


def test_a_key_given_as_a_shorthand_and_as_a_requirement_is_refused_naming_both():
    arch = req("kubernetes.io/arch", "In", "amd64")
    problem = only_problem(raw([pool(architectures=["arm64"], requirements=[arch])]))
    assert problem == ("prescale:nodePools[0].requirements[0].key: 'kubernetes.io/arch' is also given as architectures "
                       "['arm64'], which is an In requirement on the same key; allowed: one of the two")


# --- the mode's label keys -----------------------------------------------------------------------------------

def test_auto_mode_takes_its_own_keys_and_refuses_karpenters_with_the_list():
    auto = pool(requirements=[req("eks.amazonaws.com/instance-cpu", "Gt", "3"),
                              req("karpenter.k8s.aws/instance-cpu", "Gt", "3"),
                              req("topology.k8s.aws/zone-id", "In", "apne2-az1")])
    found = problems(raw([auto], auto_mode=True))
    assert [p.split(": ")[0] for p in found] == ["prescale:nodePools[0].requirements[1].key",
                                                 "prescale:nodePools[0].requirements[2].key"]
    assert found[0].startswith("prescale:nodePools[0].requirements[1].key: 'karpenter.k8s.aws/instance-cpu' is not a "
                               "label EKS Auto Mode supports")
    assert "did you mean 'eks.amazonaws.com/instance-cpu'?" in found[0]
    assert "allowed: topology.kubernetes.io/zone, node.kubernetes.io/instance-type" in found[0]
    assert "eks.amazonaws.com/instance-local-nvme, or a label of your own domain" in found[1]


def test_auto_mode_labels_are_refused_on_self_managed_karpenter():
    problem = only_problem(raw([pool(requirements=[req("eks.amazonaws.com/instance-family", "In", "c7i")])]))
    assert problem.startswith("prescale:nodePools[0].requirements[0].key: 'eks.amazonaws.com/instance-family' is an "
                              "EKS Auto Mode label")
    assert problem.endswith("allowed: karpenter.k8s.aws/instance-family")


def auto_mode_run(config):
    def program() -> None:
        platform = dataclasses.replace(stand_in_platform(), node_classes=AUTO_MODE_NODE_CLASSES)
        deploy_capacity(config, platform, NOW)
    return evaluate(program)


def test_on_auto_mode_the_nodepool_gets_the_auto_mode_keys_and_the_table_reads_them_like_karpenters():
    config = load_stack_config(raw([pool(requirements=[
        req("eks.amazonaws.com/instance-family", "In", "c7i"), req("eks.amazonaws.com/instance-cpu", "Lt", "5")])],
        auto_mode=True), NOW)
    assert {t.name for t in pool_launchable(config.node_pool("event")).types} == {"c7i.large", "c7i.xlarge"}
    node_pool = as_object(auto_mode_run(config).named(NODE_POOL, "event-node-pool"))
    assert [r["key"] for r in node_pool["spec"]["template"]["spec"]["requirements"]] == [
        "karpenter.sh/capacity-type", "eks.amazonaws.com/instance-category", "kubernetes.io/arch",
        "eks.amazonaws.com/instance-family", "eks.amazonaws.com/instance-cpu"]
    assert validate(node_pool) == []


def test_a_library_program_whose_platform_is_auto_mode_cannot_render_karpenters_keys():
    """Without a cluster key the config cannot know the mode; the node pool refuses what its platform cannot use."""
    config = load_capacity_config({"prescale:nodePools": [pool(requirements=[req("karpenter.k8s.aws/instance-cpu",
                                                                                  "Gt", "3")])]}, NOW)
    with pytest.raises(ValueError, match="is not a label EKS Auto Mode supports"):
        rendered_requirements(config.node_pools[0], AUTO_MODE_NODE_CLASSES)


# --- what the pool can launch --------------------------------------------------------------------------------

def test_karpenters_labels_come_from_the_table_and_the_name_as_its_reference_lists_them():
    types = {t.name: t.labels for t in instance_types()}
    assert types["c7i.2xlarge"] == {
        "node.kubernetes.io/instance-type": "c7i.2xlarge", "kubernetes.io/arch": "amd64",
        "karpenter.k8s.aws/instance-category": "c", "karpenter.k8s.aws/instance-family": "c7i",
        "karpenter.k8s.aws/instance-generation": "7", "karpenter.k8s.aws/instance-size": "2xlarge",
        "karpenter.k8s.aws/instance-cpu": "8", "karpenter.k8s.aws/instance-memory": "16384",
        "karpenter.k8s.aws/instance-capability-flex": "false"}
    assert (types["m7i-flex.large"]["karpenter.k8s.aws/instance-generation"],
            types["m7i-flex.large"]["karpenter.k8s.aws/instance-capability-flex"]) == ("7", "true")
    # Karpenter's rule skips a "-<n>tb" part: its reference lists u-6tb1.112xlarge as generation 1.
    assert types["u-6tb1.112xlarge"]["karpenter.k8s.aws/instance-generation"] == "1"


def test_a_pool_no_type_satisfies_is_refused_naming_the_requirement_that_left_none():
    problem = only_problem(raw([pool(instanceCategories=["c"], requirements=[
        req("karpenter.k8s.aws/instance-generation", "Gt", "6"), req("karpenter.k8s.aws/instance-cpu", "Gt", "400")])],
        windows=[]))
    assert problem.startswith("prescale:nodePools[0].requirements[1]: {key: karpenter.k8s.aws/instance-cpu, operator: "
                              "Gt, values: ['400']} leaves node pool 'event' no instance type to launch: none of the ")
    assert ("types of Karpenter's list left after instanceCategories ['c'], architectures ['amd64'], requirements[0] "
            "(karpenter.k8s.aws/instance-generation Gt 6) meets it") in problem
    assert "those types have karpenter.k8s.aws/instance-cpu from 1 to 384" in problem


def test_a_pool_after_a_refused_one_is_still_checked_under_its_own_index():
    empty = pool("second", requirements=[req("karpenter.k8s.aws/instance-cpu", "Gt", "400")])
    found = problems(raw([pool("Bad_Name"), empty], windows=[]))
    assert [problem.split(": ")[0] for problem in found] == ["prescale:nodePools[0].name",
                                                            "prescale:nodePools[1].requirements[0]"]


def test_a_type_outside_the_default_categories_needs_them_widened():
    problem = only_problem(raw([pool(requirements=[req("node.kubernetes.io/instance-type", "In", "t3.large")])]))
    assert problem.startswith("prescale:nodePools[0].requirements[0]: ")
    assert "left after instanceCategories ['c', 'm', 'r'], architectures ['amd64'] meets it" in problem
    accepted = load_stack_config(raw([pool(instanceCategories=["t"], requirements=[
        req("node.kubernetes.io/instance-type", "In", "t3.large")])]), NOW)
    assert [t.name for t in pool_launchable(accepted.node_pools[0]).types] == ["t3.large"]


def test_a_type_karpenters_list_does_not_know_is_said_to_be_unknown_here():
    problem = only_problem(raw([pool(requirements=[req("node.kubernetes.io/instance-type", "In", "c9z.large")])]))
    assert "(Karpenter 1.14's list has no node.kubernetes.io/instance-type c9z.large: a type EC2 added later" in problem


def test_min_values_the_types_left_cannot_meet_is_refused():
    problem = only_problem(raw([pool(requirements=[
        req("node.kubernetes.io/instance-type", "In", "c7i.2xlarge", "c7i.4xlarge"),
        req("karpenter.k8s.aws/instance-family", "Exists", minValues=2)])]))
    assert problem.startswith("prescale:nodePools[0].requirements[1].minValues: 2 is more than the 1 "
                              "karpenter.k8s.aws/instance-family values node pool 'event' can launch (c7i, ")


def test_requirements_that_leave_no_capacity_type_are_refused():
    problem = only_problem(raw([pool(requirements=[req("karpenter.sh/capacity-type", "In", "spot"),
                                                   req("karpenter.sh/capacity-type", "NotIn", "spot")])]))
    assert problem.startswith("prescale:nodePools[0].requirements[1]: {key: karpenter.sh/capacity-type, operator: "
                              "NotIn, values: ['spot']} leaves node pool 'event' no capacity type")


def test_more_requirements_than_a_nodepool_holds_are_refused():
    # With the three shorthands, kubernetes.io/os and the pool's label, 95 requirements make exactly 100.
    keys = [req(f"example.com/k{n}", "Exists") for n in range(96)]
    evaluation, _ = run(load_stack_config(raw([pool(requirements=keys[:95])]), NOW))
    assert validate(as_object(evaluation.named(NODE_POOL, "event-node-pool"))) == []
    problem = only_problem(raw([pool(requirements=keys)]))
    assert problem.startswith("prescale:nodePools[0].requirements: 96 requirements give the NodePool 101 requirements "
                              "and template labels, more than the 100 Karpenter allows together")
    assert problem.endswith("allowed: at most 95 requirements")


# --- placeholder sizes per pool --------------------------------------------------------------------------------

def requests(evaluation, window: str) -> dict:
    deployment = as_object(evaluation.named(DEPLOYMENT, f"{window}-placeholders"))
    return deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]


FLASH = pool("flash", requirements=[req("node.kubernetes.io/instance-type", "In", "c7i.2xlarge")],
             nodeSize={"cpu": "7", "memory": "12Gi"}, maxPodSize={"cpu": "7", "memory": "13Gi"})


def test_a_pools_own_sizes_replace_the_stack_wide_ones_for_its_windows_only():
    config = stack_config([FLASH, pool("batch")], [
        {**LUNCH, "name": "sale", "nodePool": "flash", "nodes": 3},
        {**LUNCH, "name": "sale-capacity", "nodePool": "flash", "nodes": None,
         "capacity": {"cpu": "20", "memory": "8Gi"}},
        {**LUNCH, "name": "nightly", "nodePool": "batch"}])
    evaluation, _ = run(config)
    assert requests(evaluation, "sale") == {"cpu": "7", "memory": "12Gi"}
    assert requests(evaluation, "nightly") == {"cpu": "1", "memory": "2Gi"}  # placeholders.nodeSize's default
    sale_capacity = plan_capacity(config, NOW).window("sale-capacity").placeholders
    assert (sale_capacity.pods, sale_capacity.cpu) == (3, "6667m")  # 20 CPU in pods of at most 7, not of 4
    # The estimate prices the type the pool launches, with its own placeholders.
    fleet = cheapest_fleet(plan_placeholders(config.event_windows[0], config.placeholders_for("flash")),
                           candidates(config.node_pool("flash"), config.pricing))
    assert (fleet.shape.name, fleet.nodes, fleet.shape.price_per_hour) == ("c7i.2xlarge", 3, 8 * 0.05)


def test_a_pools_own_node_size_is_checked_against_its_own_instance_types_under_its_own_key():
    too_big = {**FLASH, "nodeSize": {"cpu": "8", "memory": "12Gi"}}
    problem = only_problem(raw([too_big, pool("batch")], windows=[{**LUNCH, "nodePool": "flash"}]))
    assert problem.startswith("prescale:nodePools[0].nodeSize: {cpu: '8', memory: '12Gi'} fits no instance type the "
                              "pool allows: the closest, c7i.2xlarge (8 vCPU, 16Gi; 7910m CPU and 14162Mi allocatable)")
    assert "requirements[0] (node.kubernetes.io/instance-type In c7i.2xlarge)" in problem
    # The stack-wide size is not measured against this pool: 8 CPU fits the batch pool's larger types.
    assert load_stack_config(raw([FLASH, pool("batch")], windows=[LUNCH | {"nodePool": "batch"}],
                                 placeholders={"nodeSize": {"cpu": "8", "memory": "12Gi"}}), NOW)


def test_a_pools_own_node_size_counts_against_its_limits_under_its_own_key():
    problem = only_problem(raw([{**FLASH, "limits": {"cpu": "20"}}],
                               windows=[{**LUNCH, "nodePool": "flash", "nodes": 3}]))
    assert problem.startswith("prescale:eventWindows[0].nodes: 3 nodes holding nodePools[0].nodeSize.cpu '7' count at "
                              "least 24 CPU, above the cpu limit '20' of node pool 'flash'")
    assert problem.endswith("is 8 CPU (c7i.2xlarge); allowed: at most 2 nodes, a smaller nodeSize, or a cpu limit of "
                            "at least 24")


def test_a_pools_own_max_pod_size_too_small_to_split_a_capacity_is_refused_under_its_own_key():
    capacity = {**LUNCH, "nodes": None, "capacity": {"cpu": "8", "memory": "16Gi"}}
    problem = only_problem(raw([pool(maxPodSize={"cpu": "0.5m", "memory": "1Gi"})], windows=[capacity]))
    assert problem == ("prescale:nodePools[0].maxPodSize: {cpu: '0.5m', memory: '1Gi'} must be at least 1m CPU and 1Mi "
                       "memory to split a capacity into pods")


def test_an_existing_pool_takes_its_own_sizes():
    config = load_stack_config(raw([{"name": "general", "existing": True, "nodeSize": {"cpu": "3", "memory": "6Gi"}}],
                                   windows=[{**LUNCH, "nodePool": "general"}]), NOW)
    assert plan_capacity(config, NOW).window("lunch").placeholders.cpu == "3"


def test_a_placeholder_of_exactly_what_the_refusal_allows_fits():
    """The refusal's advice (the largest type's allocatable room) must itself be accepted."""
    config = raw([pool(instanceCategories=["c"], architectures=["arm64"])], placeholders={
        "nodeSize": {"cpu": "200", "memory": "8Gi"}})
    advice = re.search(r"allowed: at most (\S+) CPU and (\S+) on", only_problem(config))
    config["prescale:placeholders"]["nodeSize"] = {"cpu": advice[1], "memory": advice[2]}
    assert load_stack_config(config, NOW).placeholders.node_size.cpu == advice[1] == "191450m"


# --- capacity reservations ---------------------------------------------------------------------------------

TERMS = [{"id": "cr-0123456789abcdef0"}, {"tags": {"event": "launch", "team": "*"}, "ownerID": "123456789012"}]


def test_reservation_terms_reach_the_ec2nodeclass_and_pass_its_crd():
    config = stack_config([pool(capacityTypes=["reserved", "on-demand"], capacityReservationSelectorTerms=TERMS),
                           pool("plain")], [])
    evaluation, _ = run(config)
    node_class = as_object(evaluation.named(NODE_CLASS, "event-node-class"))
    assert node_class["spec"]["capacityReservationSelectorTerms"] == TERMS
    assert validate(node_class) == []
    assert "capacityReservationSelectorTerms" not in as_object(evaluation.named(NODE_CLASS, "plain-node-class"))["spec"]


def test_on_auto_mode_the_owner_is_spelled_as_its_node_class_wants():
    config = load_stack_config(raw([pool(capacityTypes=["reserved"], capacityReservationSelectorTerms=TERMS)],
                                   auto_mode=True), NOW)
    node_class = as_object(auto_mode_run(config).named(AUTO_NODE_CLASS, "event-node-class"))
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [
        {"id": "cr-0123456789abcdef0"}, {"tags": {"event": "launch", "team": "*"}, "owner": "123456789012"}]
    assert validate(node_class) == []


@pytest.mark.parametrize("settings, path", [
    ({"capacityTypes": ["reserved", "on-demand"]}, "prescale:nodePools[0].capacityTypes"),
    ({"requirements": [req("karpenter.sh/capacity-type", "In", "spot", "reserved")]},
     "prescale:nodePools[0].requirements[0].values"),
])
def test_reserved_capacity_without_reservations_to_launch_into_is_refused(settings, path):
    problem = only_problem(raw([pool(**settings)]))
    assert problem.startswith(f"{path}: ") and "asks for reserved capacity, but node pool 'event' has no " \
        "capacityReservationSelectorTerms" in problem
    # An existing EC2NodeClass may select reservations itself.
    assert load_stack_config(raw([pool(**settings, nodeClassName="reserved-class")]), NOW)


@pytest.mark.parametrize("settings, message", [
    ({"nodeClassName": "mine", "capacityReservationSelectorTerms": TERMS}, "capacityReservationSelectorTerms shape "
                                                                            "the EC2NodeClass prescale creates"),
    ({"existing": True, "capacityReservationSelectorTerms": TERMS}, "capacityReservationSelectorTerms"),
])
def test_reservation_terms_are_refused_where_prescale_writes_no_node_class(settings, message):
    settings = {"limits": {"cpu": "10"}, **settings} if not settings.get("existing") else settings
    problem = only_problem(raw([{"name": "event", **settings}]))
    assert problem.startswith("prescale:nodePools[0]: ") and message in problem


@pytest.mark.parametrize("term, message", [
    ({"id": "cr-0123456789abcdef0", "tags": {"a": "b"}}, "give exactly one of id or tags"),
    ({"id": "cr-0123456789abcdef0", "ownerID": "123456789012"}, "ownerID '123456789012' goes with tags only"),
    ({"ownerID": "123456789012"}, "give exactly one of id or tags"),
    ({"id": "odcr-1"}, "a capacity reservation id like"),
    ({"tags": {"event": ""}}, "must not be empty"),
    ({"tags": {"a": "b"}, "ownerId": "123456789012"}, "did you mean 'ownerID'?"),
])
def test_a_reservation_term_karpenter_would_refuse_is_refused(term, message):
    problem = only_problem(raw([pool(capacityReservationSelectorTerms=[term])]))
    assert problem.startswith("prescale:nodePools[0].capacityReservationSelectorTerms[0]"), problem
    assert message in problem, problem
