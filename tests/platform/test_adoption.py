"""prescale inside platforms users already run: their own Karpenter or KEDA, their NodePools and EC2NodeClasses.

Each mode runs the whole program (``__main__.py``) under mocks; the tests assert what is created, what is not,
and that every custom resource still passes the upstream CRD schemas and CEL rules.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from prescale.model.validation import ConfigError
from prescale.offline import Evaluation, run_program

from tests.capacity.test_stable_names import changes, owned
from tests.support.capacity import CUSTOM_RESOURCES, DEPLOYMENT, NODE_CLASS, NODE_POOL, SCALED_OBJECT, as_object, short
from tests.support.crd_validation import validate
from tests.support.platform import PROJECT, RELEASE

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
EVENT_POOL = {"name": "event", "limits": {"cpu": "512", "memory": "2048Gi"}}
LUNCH = {"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * *",
         "end": "30 11 * * *", "nodes": 3}
KARPENTER_AWS_TYPES = ("aws:sqs/queue:Queue", "aws:cloudwatch/eventRule:EventRule",
                       "aws:eks/podIdentityAssociation:PodIdentityAssociation", "aws:iam/rolePolicy:RolePolicy",
                       "aws:eks/accessEntry:AccessEntry")


def program(cluster: dict | None = None, **sections: Any) -> Evaluation:
    """The whole program for a stack with these ``prescale:`` sections (camelCase keys, as in a stack file)."""
    sections.setdefault("nodePools", [EVENT_POOL])
    sections.setdefault("eventWindows", [LUNCH])
    wire = {"aws:region": "ap-northeast-2",
            "prescale:cluster": json.dumps({"name": "shop", **(cluster or {})}),
            **{f"prescale:{key}": json.dumps(value) for key, value in sections.items()}}
    return run_program(PROJECT, "adoption", NOW, config=wire)


def refused(**sections: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        program(**sections)
    return caught.value.problems


def releases(evaluation: Evaluation) -> set[str]:
    return {r.inputs["name"] for r in evaluation.of_type(RELEASE)}


def assert_valid_custom_resources(evaluation: Evaluation) -> None:
    for type_ in CUSTOM_RESOURCES:
        for resource in evaluation.of_type(type_):
            assert validate(as_object(resource)) == [], resource.name


# --- bring your own Karpenter -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def own_karpenter() -> Evaluation:
    return program({"create": False}, karpenter={"install": False, "nodeRoleName": "KarpenterNodeRole-shop"})


def test_own_karpenter_gets_no_karpenter_install(own_karpenter):
    assert releases(own_karpenter) == {"keda"}
    for type_ in KARPENTER_AWS_TYPES:
        assert own_karpenter.of_type(type_) == [], type_
    assert own_karpenter.of_type("aws:iam/role:Role") == []
    assert own_karpenter.of_type("prescale:index:Karpenter") == []


def test_own_karpenter_node_class_names_the_given_role(own_karpenter):
    node_class = own_karpenter.of_type(NODE_CLASS)[0]
    assert node_class.inputs["spec"]["role"] == "KarpenterNodeRole-shop"
    assert own_karpenter.outputs["karpenterNodeRoleName"] == "KarpenterNodeRole-shop"
    assert "karpenterVersion" not in own_karpenter.outputs
    assert "karpenterInterruptionQueueName" not in own_karpenter.outputs


def test_own_karpenter_pools_declare_what_every_v1_minor_accepts(own_karpenter):
    """Karpenter 1.0 has no default for consolidateAfter: prescale always sets it."""
    node_pool = own_karpenter.of_type(NODE_POOL)[0]
    assert node_pool.inputs["spec"]["disruption"]["consolidateAfter"] == "2m"
    assert node_pool.dependencies == [own_karpenter.of_type(NODE_CLASS)[0].urn]  # no Helm release to wait for
    assert_valid_custom_resources(own_karpenter)


def test_own_karpenter_needs_the_node_role_name():
    problems = refused(cluster={"create": False}, karpenter={"install": False})
    assert any(p.startswith("prescale:karpenter.nodeRoleName: required key is missing") and "iam:PassRole" in p
               and "'event'" in p for p in problems), problems


def test_own_karpenter_refuses_install_only_keys():
    problems = refused(cluster={"create": False}, karpenter={"install": False, "nodeRoleName": "r", "version": "1.14.1",
                                                             "controllerAuth": "irsa"})
    assert problems == [
        f"prescale:karpenter.{key}: {value!r} applies only when install is true (prescale installs Karpenter); with "
        "install: false the cluster's own Karpenter is used as it is; allowed: remove it"
        for key, value in (("version", "1.14.1"), ("controllerAuth", "irsa"))]


def test_a_new_cluster_cannot_use_its_own_karpenter():
    """A new cluster has no Karpenter of its own: its NodePools would never get a node."""
    problems = refused(karpenter={"install": False, "nodeRoleName": "r"})
    assert problems == [
        "prescale:karpenter.install: false with a new cluster (prescale:cluster.create is true): a new cluster has no "
        "Karpenter of its own, so nothing would launch nodes for its node pools; allowed: true (prescale installs "
        "Karpenter), prescale:cluster.create: false (an existing cluster whose Karpenter runs the pools), or "
        "prescale:cluster.autoMode: true (AWS runs Karpenter)"]


def test_own_karpenter_with_only_existing_pools_needs_no_node_role():
    evaluation = program({"create": False}, karpenter={"install": False},
                         nodePools=[{"name": "event", "existing": True}])
    assert evaluation.of_type(NODE_CLASS) == [] and evaluation.of_type(NODE_POOL) == []
    assert evaluation.of_type(SCALED_OBJECT)


def test_own_karpenter_without_node_role_is_fine_when_no_node_class_is_created():
    evaluation = program({"create": False}, karpenter={"install": False},
                         nodePools=[{**EVENT_POOL, "nodeClassName": "default"}])
    assert evaluation.of_type(NODE_CLASS) == []
    node_pool = evaluation.of_type(NODE_POOL)[0]
    assert node_pool.inputs["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
    assert_valid_custom_resources(evaluation)


def test_reused_node_role_is_passed_but_not_created():
    """nodeRoleName while prescale installs Karpenter: no role or access entry, PassRole on the given role only."""
    evaluation = program({"create": False}, karpenter={"nodeRoleName": "shared-nodes"})
    assert [r.name for r in evaluation.of_type("aws:iam/role:Role")] == ["prescale-karpenter-controller"]
    assert evaluation.of_type("aws:eks/accessEntry:AccessEntry") == []
    policy = json.loads(evaluation.of_type("aws:iam/rolePolicy:RolePolicy")[0].inputs["policy"])
    pass_role = next(s for s in policy["Statement"] if s["Sid"] == "AllowPassingInstanceRole")
    assert pass_role["Resource"] == "arn:aws:iam::123456789012:role/shared-nodes"
    assert evaluation.of_type(NODE_CLASS)[0].inputs["spec"]["role"] == "shared-nodes"


def test_selector_terms_replace_the_discovery_tag():
    evaluation = program(nodePools=[{**EVENT_POOL,
                                     "subnetSelectorTerms": [{"id": "subnet-0a1"}, {"tags": {"tier": "private"}}],
                                     "securityGroupSelectorTerms": [{"name": "eks-nodes"}]}])
    spec = evaluation.of_type(NODE_CLASS)[0].inputs["spec"]
    assert spec["subnetSelectorTerms"] == [{"id": "subnet-0a1"}, {"tags": {"tier": "private"}}]
    assert spec["securityGroupSelectorTerms"] == [{"name": "eks-nodes"}]
    assert_valid_custom_resources(evaluation)


def test_a_selector_term_takes_one_selector():
    problems = refused(nodePools=[{**EVENT_POOL, "subnetSelectorTerms": [{"id": "subnet-0a1", "tags": {"a": "b"}}]}])
    assert any(p.startswith("prescale:nodePools[0].subnetSelectorTerms[0]:") and "exactly one of tags or id" in p
               for p in problems), problems


def test_node_class_name_refuses_node_class_keys():
    problems = refused(nodePools=[{**EVENT_POOL, "nodeClassName": "default", "amiAlias": "al2023@v20260828"}])
    assert any(p.startswith("prescale:nodePools[0]:") and "amiAlias shape the EC2NodeClass" in p
               for p in problems), problems


# --- bring your own KEDA ------------------------------------------------------------------------------------------

def test_own_keda_gets_no_keda_release():
    evaluation = program(keda={"install": False, "version": "2.20.2"})
    assert releases(evaluation) == {"karpenter-crd", "karpenter"}
    assert [r for r in evaluation.of_type("kubernetes:core/v1:Namespace") if r.inputs["metadata"]["name"] == "keda"] \
        == []
    scaled_object = evaluation.of_type(SCALED_OBJECT)[0]
    assert sorted(short(urn) for urn in scaled_object.dependencies) == ["lunch-placeholders", "prescale-namespace"]
    assert evaluation.outputs["kedaVersion"] == "2.20.2"
    assert_valid_custom_resources(evaluation)


@pytest.mark.parametrize("version, refused_", [("2.19.3", True), ("2.20.0", False)])
def test_cron_commas_need_keda_2_20(version, refused_):
    weekdays = {**LUNCH, "start": "15 11 * * 1,3,5", "end": "30 11 * * 1,3,5"}
    if not refused_:
        assert program(keda={"install": False, "version": version}, eventWindows=[weekdays]).of_type(SCALED_OBJECT)
        return
    problems = refused(keda={"install": False, "version": version}, eventWindows=[weekdays])
    # each comma once, under the key that holds it: the scale-up cron's comma is the start's
    assert [p.split(":")[1] for p in problems] == ["eventWindows[0].start", "eventWindows[0].end"]
    assert all("kedacore/keda#7448" in p and "2.19.3" in p for p in problems), problems


# --- windows on a NodePool prescale does not own ------------------------------------------------------------------

@pytest.fixture(scope="module")
def existing_pool() -> Evaluation:
    return program(nodePools=[{"name": "general-purpose", "existing": True,
                               "taints": [{"key": "team", "value": "web", "effect": "NoSchedule"}]}, EVENT_POOL],
                   eventWindows=[{**LUNCH, "nodePool": "general-purpose"}, {**LUNCH, "name": "owned"}])


def test_existing_pool_gets_no_node_pool_or_node_class(existing_pool):
    assert [r.inputs["metadata"]["name"] for r in existing_pool.of_type(NODE_POOL)] == ["prescale-event"]
    assert [r.inputs["metadata"]["name"] for r in existing_pool.of_type(NODE_CLASS)] == ["prescale-event"]
    assert existing_pool.outputs["nodePools"] == ["event"]


def test_placeholders_on_an_existing_pool_select_it_and_ask_not_to_be_disrupted(existing_pool):
    deployment = existing_pool.named(DEPLOYMENT, "lunch-placeholders").inputs["spec"]["template"]
    assert deployment["spec"]["nodeSelector"] == {"karpenter.sh/nodepool": "general-purpose"}
    assert deployment["spec"]["tolerations"] == [
        {"key": "team", "effect": "NoSchedule", "operator": "Equal", "value": "web"}]
    assert deployment["metadata"]["annotations"] == {"karpenter.sh/do-not-disrupt": "true"}


def test_placeholders_on_an_owned_pool_rely_on_its_freezes(existing_pool):
    owned = existing_pool.named(DEPLOYMENT, "owned-placeholders").inputs["spec"]["template"]
    assert owned["spec"]["nodeSelector"] == {"prescale.io/node-pool": "event"}
    assert "annotations" not in owned["metadata"]
    budgets = existing_pool.of_type(NODE_POOL)[0].inputs["spec"]["disruption"]["budgets"]
    assert [b for b in budgets if b["nodes"] == "0"] == [{"nodes": "0", "schedule": "5 2 * * *", "duration": "25m"}]
    assert_valid_custom_resources(existing_pool)


def test_existing_pool_needs_no_freeze_that_fits_one_utc_budget():
    """The freeze rule is for budgets prescale writes; on someone else's pool there is none to write."""
    month_start = {**LUNCH, "start": "0 1 1 * *", "end": "0 3 1 * *"}  # 1st of the month in Seoul = the 30th/31st UTC
    with pytest.raises(ConfigError):
        program(eventWindows=[month_start])
    evaluation = program(nodePools=[{"name": "event", "existing": True}], eventWindows=[month_start])
    assert evaluation.of_type(SCALED_OBJECT) and evaluation.of_type(NODE_POOL) == []


def test_existing_pool_takes_only_its_own_keys():
    problems = refused(nodePools=[{"name": "event", "existing": True, "amiAlias": "al2023@v20260828",
                                   "weight": 10}])
    assert any(p.startswith("prescale:nodePools[0]:") and "amiAlias, weight" in p for p in problems), problems


def test_existing_pool_limits_still_feed_the_capacity_checks():
    problems = refused(nodePools=[{"name": "event", "existing": True, "limits": {"cpu": "512", "memory": "1Gi",
                                                                                 "nodes": 2}}])
    assert any(p.startswith("prescale:eventWindows[0].nodes:") for p in problems), problems


# --- switching modes: exactly the switched layer changes (docs/adoption.md, "Switching modes") -------------------

@pytest.fixture(scope="module")
def before() -> Evaluation:
    """An existing cluster with prescale's Karpenter, KEDA and pool: what each switch starts from."""
    return program({"create": False})


def test_switching_to_own_karpenter_removes_only_prescales_karpenter(before):
    after = program({"create": False}, karpenter={"install": False, "nodeRoleName": "prescale-karpenter-node"})
    added, removed, changed = changes(before, after)
    assert added == set()
    assert removed == owned(before, "prescale-karpenter", ["prescale:index:Karpenter"])
    # What waited for prescale's Karpenter no longer does; the node class names the given role.
    assert {name for _, name in changed} == {"event-node-class", "event-node-pool", "prescale-keda-namespace",
                                             "prescale-keda"}


def test_switching_to_own_keda_removes_only_prescales_keda(before):
    after = program({"create": False}, keda={"install": False, "version": "2.20.2"})
    added, removed, changed = changes(before, after)
    assert added == set()
    assert removed == owned(before, "prescale-keda", ["prescale:index:Keda"])
    assert {name for _, name in changed} == {"lunch-scaler"}  # it no longer waits for the KEDA release


def test_switching_a_pool_to_existing_removes_only_that_pool(before):
    after = program({"create": False}, nodePools=[{"name": "event", "existing": True}])
    added, removed, changed = changes(before, after)
    assert added == set()
    assert removed == owned(before, "event", ["prescale:index:EventNodePool"])
    assert {name for _, name in changed} == {"lunch-placeholders"}  # it now selects the existing pool


def test_crd_bearing_releases_survive_a_switch():
    """Uninstalling karpenter-crd or keda would delete every NodePool or ScaledObject in the cluster."""
    evaluation = program()
    retained = {r.inputs["name"]: r.retain_on_delete for r in evaluation.of_type(RELEASE)}
    assert retained == {"karpenter-crd": True, "karpenter": False, "keda": True}


def test_existing_pool_placeholders_are_not_measured_against_prescales_instance_defaults():
    """An existing pool's instance types are its owner's: a size that fits none of prescale's default categories
    (c, m, r) is not prescale's to refuse there, while on a pool prescale creates it is."""
    huge = {"nodeSize": {"cpu": "900", "memory": "2000Gi"}}
    evaluation = program(nodePools=[{"name": "event", "existing": True}], placeholders=huge,
                         eventWindows=[{**LUNCH, "nodes": 1}])
    assert evaluation.of_type(SCALED_OBJECT)
    problems = refused(placeholders=huge, eventWindows=[{**LUNCH, "nodes": 1}],
                       nodePools=[{"name": "event", "limits": {"cpu": "1000"}}])
    assert any(p.startswith("prescale:placeholders.nodeSize:") for p in problems), problems
