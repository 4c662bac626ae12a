"""Static pools: a static NodePool per window, of the pool's template, on the pool's node class; none of the pool's own.

Every NodePool here also passes the NodePool CRD's schema and CEL rules (the static ones included), and the rules are
shown to refuse what a static NodePool may not have.
"""

import copy
from dataclasses import replace
from datetime import UTC, datetime

from prescale.capacity import deploy_capacity
from prescale.contract import AUTO_MODE_NODE_CLASSES
from prescale.model.plan import plan_capacity
from prescale.model.strategies.static import static_node_pool_name
from prescale.offline import evaluate

from tests.support.capacity import (
    NATIVE_POOLS,
    NATIVE_WINDOWS,
    NODE_CLASS,
    NODE_POOL,
    NOW,
    as_object,
    native_config,
    run,
    short,
    stack_config,
    stand_in_platform,
    window,
)
from tests.support.crd_validation import validate

LUNCH_POOL = static_node_pool_name("static", "lunch")
STANDING = [{"nodes": "100%", "reasons": ["Empty"]}, {"nodes": "10%", "reasons": ["Underutilized", "Drifted"]}]


def static_node_pools(evaluation) -> dict[str, dict]:
    """metadata.name → the NodePool, for every NodePool with spec.replicas."""
    pools = (as_object(r) for r in evaluation.of_type(NODE_POOL))
    return {p["metadata"]["name"]: p for p in pools if "replicas" in p["spec"]}


def test_each_static_window_gets_its_own_node_pool_and_its_pool_none_of_its_own(native_run):
    evaluation, (deployed,) = native_run
    names = {p["metadata"]["name"] for p in map(as_object, evaluation.of_type(NODE_POOL))}
    assert static_node_pools(evaluation).keys() == {LUNCH_POOL, static_node_pool_name("static-reserved", "launch")}
    assert names == {*static_node_pools(evaluation), "prescale-buffer"}  # none named after a static pool
    assert sorted(deployed.native) == ["flash", "launch", "lunch", "sale"]
    assert deployed.node_pools["static"].node_pool is None
    # The pool's node class stays: every window's NodePool launches from it.
    assert as_object(evaluation.named(NODE_CLASS, "static-node-class"))["metadata"]["name"] == "prescale-static"


def test_a_static_window_node_pool_is_its_pools_template_at_the_windows_count(native_run):
    evaluation, (deployed,) = native_run
    plan = deployed.plan.window("lunch")
    node_pool = as_object(evaluation.named(NODE_POOL, "lunch-static-node-pool"))
    assert node_pool == {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": LUNCH_POOL},
        "spec": {
            "template": {
                "metadata": {"labels": {"prescale.io/node-pool": "static"}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "prescale-static"},
                    "requirements": [
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]},
                        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]},
                    ],
                    "expireAfter": "Never",
                    "terminationGracePeriod": "1h",
                    "taints": [{"key": "prescale.io/event", "value": "true", "effect": "NoSchedule"}],
                },
            },
            # Created at 0 outside the window; only limits.nodes, no weight, consolidation ignored (the CRD's rules).
            "replicas": 0,
            "limits": {"nodes": "4"},  # N and a surge of ceil(N/4): a lost node is replaced at once
            "disruption": {"consolidateAfter": "Never", "budgets": [
                # 11:50-13:00 KST, the scale-up to the end: drift waits, as it does for placeholders.
                {"nodes": "0", "schedule": "50 2 * * *", "duration": "1h10m"}, *STANDING]},
        },
    }
    assert plan.freeze is not None and (plan.freeze.schedule, plan.freeze.duration) == ("50 2 * * *", "1h10m")


def test_pulumi_leaves_the_count_to_the_driver_and_the_node_pool_waits_for_its_pools_node_class(native_run):
    evaluation, _ = native_run
    node_pool = evaluation.named(NODE_POOL, "lunch-static-node-pool")
    assert node_pool.ignore_changes == ["spec.replicas"]
    assert short(node_pool.parent) == "lunch"
    # Its pool's component, whose children (the node class) and address check it waits for; and Karpenter.
    assert {short(d) for d in node_pool.dependencies} >= {"static-node-class", "karpenter"}


def test_a_node_pool_created_mid_window_starts_at_the_windows_count():
    during = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)  # 12:30 KST: lunch is open
    evaluation, _ = run(native_config(during), during)
    assert static_node_pools(evaluation)[LUNCH_POOL]["spec"]["replicas"] == 3


def test_a_reserving_one_off_narrows_its_node_pool_to_the_reserved_type_and_zones(native_run):
    evaluation, (deployed,) = native_run
    launch = deployed.plan.window("launch")
    assert launch.reservation is not None and launch.reservation.held
    template = as_object(evaluation.named(NODE_POOL, "launch-static-node-pool"))["spec"]["template"]["spec"]
    assert template["requirements"][-2:] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]},
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}]
    assert [r["key"] for r in template["requirements"]].count("node.kubernetes.io/instance-type") == 1
    assert [r["key"] for r in template["requirements"]].count("topology.kubernetes.io/zone") == 1
    assert {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "reserved"]} in \
        template["requirements"]  # reserved first, on-demand beyond the reservation
    # The pool's node class selects the reservations the window holds.
    node_class = as_object(evaluation.named(NODE_CLASS, "static-reserved-node-class"))["spec"]
    assert len(node_class["capacityReservationSelectorTerms"]) == 1  # one zone, one reservation
    assert all(set(term) == {"id"} for term in node_class["capacityReservationSelectorTerms"])


def test_a_static_pools_reservations_hold_no_drift_and_say_its_node_pool_empties_at_the_end(native_run):
    """Its window's NodePool goes to 0 at the end (the driver), so there is no node to keep from drift."""
    _, (deployed,) = native_run
    reservation = deployed.plan.window("launch").reservation
    assert reservation is not None and reservation.static and not reservation.holds_drift
    assert deployed.plan.pools["static-reserved"].drift_holds == []
    (said,) = reservation.warnings
    assert "static NodePool" in said and "back at 0 nodes from the end" in said and "drift" not in said
    ended = replace(reservation, held=False, ended=True).warnings[0]
    assert "lift the hold" not in ended and "back at 0 nodes" in ended


def test_adding_a_static_window_names_its_node_pool_from_pool_and_window_only(native_run):
    more = [*NATIVE_WINDOWS, window("dinner", "0 18 * * *", "0 19 * * *", "static", nodes=2)]
    after = static_node_pools(run(native_config(windows=more))[0])
    assert after.keys() == {*static_node_pools(native_run[0]), static_node_pool_name("static", "dinner")}
    assert after[LUNCH_POOL] == static_node_pools(native_run[0])[LUNCH_POOL]


def test_every_static_node_pool_passes_the_crd_and_its_static_rules_refuse_what_it_may_not_have(native_run):
    for node_pool in static_node_pools(native_run[0]).values():
        assert validate(node_pool) == [], node_pool["metadata"]["name"]
    node_pool = copy.deepcopy(static_node_pools(native_run[0])[LUNCH_POOL])
    node_pool["spec"]["weight"] = 10
    node_pool["spec"]["limits"]["cpu"] = "100"
    problems = validate(node_pool)
    assert "spec: 'weight' is not supported on static NodePools" in problems
    assert "spec: only 'limits.nodes' is supported on static NodePools" in problems
    del node_pool["spec"]["disruption"]["consolidateAfter"]  # required beside budgets, even when ignored
    assert "spec.disruption: 'consolidateAfter' is a required property" in validate(node_pool)


def test_on_auto_mode_a_static_window_node_pool_uses_auto_modes_node_class_and_labels():
    config = stack_config([NATIVE_POOLS[0]], [NATIVE_WINDOWS[0]], cluster={"name": "prescale-test", "autoMode": True})
    platform_built: list = []

    def program() -> None:
        platform = replace(stand_in_platform(), node_classes=AUTO_MODE_NODE_CLASSES)
        platform_built.append(deploy_capacity(config, platform, NOW))

    evaluation = evaluate(program)
    node_pool = as_object(evaluation.named(NODE_POOL, "lunch-static-node-pool"))
    template = node_pool["spec"]["template"]["spec"]
    assert template["nodeClassRef"] == {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "prescale-static"}
    assert {r["key"] for r in template["requirements"]} == {
        "karpenter.sh/capacity-type", "eks.amazonaws.com/instance-category", "kubernetes.io/arch",
        "node.kubernetes.io/instance-type", "topology.kubernetes.io/zone"}
    assert validate(node_pool) == []
    assert plan_capacity(config, NOW).pools["static"].strategy.name == "static"
