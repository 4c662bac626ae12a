"""One EC2NodeClass + NodePool per configured pool: instances, requirements, taints, limits and budgets."""

from datetime import datetime, timezone

import pytest
from prescale.capacity.node_pools import EventNodePool, EventNodePoolArgs, block_devices, node_pool_spec
from prescale.model.config import NodePoolConfig
from prescale.model.plan import plan_capacity
from prescale.model.schedule.freezes import MAX_BUDGETS
from prescale.offline import evaluate

from tests.support.capacity import (
    DEPLOYMENT,
    NODE_CLASS,
    NODE_POOL,
    NOW,
    allowed_disruptions,
    as_object,
    pool,
    run,
    short,
    stack_config,
    stand_in_platform,
    window,
)
from tests.support.crd_validation import validate

DISCOVERY = [{"tags": {"karpenter.sh/discovery": "prescale-test"}}]
# Empty nodes may all leave at once; busy ones and drifted ones 10% at a time (a freeze still stops all reasons).
STANDING = [{"nodes": "100%", "reasons": ["Empty"]}, {"nodes": "10%", "reasons": ["Underutilized", "Drifted"]}]
IMDS_V2_ONLY = {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                "httpTokens": "required"}


def test_dev_stack_node_class(dev_run):
    evaluation, _ = dev_run
    assert as_object(evaluation.named(NODE_CLASS, "event-node-class")) == {
        "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
        "metadata": {"name": "prescale-event"},
        "spec": {
            "role": "prescale-test-karpenter-node",
            "amiSelectorTerms": [{"alias": "al2023@v20260828"}],
            "subnetSelectorTerms": DISCOVERY,
            "securityGroupSelectorTerms": DISCOVERY,
            "metadataOptions": IMDS_V2_ONLY,
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                "volumeSize": "50Gi", "volumeType": "gp3", "encrypted": True, "deleteOnTermination": True}}],
            "tags": {"prescale.io/node-pool": "event"},
        },
    }


def test_dev_stack_node_pool(dev_run):
    evaluation, _ = dev_run
    assert as_object(evaluation.named(NODE_POOL, "event-node-pool")) == {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "prescale-event"},
        "spec": {
            "template": {
                "metadata": {"labels": {"prescale.io/node-pool": "event"}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "prescale-event"},
                    "requirements": [
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m"]},
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                    ],
                    "expireAfter": "Never",
                    "terminationGracePeriod": "1h",
                    "taints": [{"key": "prescale.io/event-capacity", "effect": "PreferNoSchedule"}],
                },
            },
            "disruption": {
                "consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "2m",
                "budgets": [
                    # launch-2027: 07:40-14:00 EST on 2 March = 12:40-19:00 UTC.
                    {"nodes": "0", "schedule": "40 12 2 3 *", "duration": "6h20m"},
                    # morning-peak: 07:45-11:00 KST = 22:45 (previous day)-02:00 UTC.
                    {"nodes": "0", "schedule": "45 22 * * *", "duration": "3h15m"},
                    # lunch-rush: 11:05-11:30 KST = 02:05-02:30 UTC.
                    {"nodes": "0", "schedule": "5 2 * * *", "duration": "25m"},
                    *STANDING,
                ],
            },
            "limits": {"cpu": "512", "memory": "2048Gi"},
        },
    }


def test_pools_are_softly_dedicated_by_default_shared_with_no_taints_and_dedicated_with_a_hard_one():
    """The event's pods preempt placeholders without a toleration; other pods use the pool only as a last resort."""
    hard = {"key": "team", "value": "events", "effect": "NoSchedule"}
    evaluation, _ = run(stack_config([pool("soft"), pool("shared", taints=[]), pool("dedicated", taints=[hard])],
                                     [window("a", "0 9 * * *", "0 10 * * *", node_pool="soft"),
                                      window("b", "0 9 * * *", "0 10 * * *", node_pool="shared"),
                                      window("c", "0 9 * * *", "0 10 * * *", node_pool="dedicated")]))
    node_taints = {name: as_object(evaluation.named(NODE_POOL, f"{name}-node-pool"))["spec"]["template"]["spec"]
                   .get("taints") for name in ("soft", "shared", "dedicated")}
    assert node_taints == {"soft": [{"key": "prescale.io/event-capacity", "effect": "PreferNoSchedule"}],
                           "shared": None, "dedicated": [hard]}
    tolerations = {window_name: as_object(evaluation.named(DEPLOYMENT, f"{window_name}-placeholders"))
                   ["spec"]["template"]["spec"]["tolerations"] for window_name in ("a", "b", "c")}
    assert tolerations == {"a": [{"key": "prescale.io/event-capacity", "effect": "PreferNoSchedule",
                                  "operator": "Exists"}],
                           "b": [], "c": [{"key": "team", "effect": "NoSchedule", "operator": "Equal",
                                          "value": "events"}]}


def test_node_pool_resources_use_the_platform_provider_and_wait_for_karpenter(dev_run):
    evaluation, _ = dev_run
    component = evaluation.named("prescale:index:EventNodePool", "event")
    node_class = evaluation.named(NODE_CLASS, "event-node-class")
    node_pool = evaluation.named(NODE_POOL, "event-node-pool")
    for resource in (node_class, node_pool):
        assert resource.parent == component.urn
        assert short(resource.provider) == "k8s-id"
    assert [short(dependency) for dependency in node_class.dependencies] == ["karpenter"]
    assert sorted(short(dependency) for dependency in node_pool.dependencies) == ["event-node-class", "karpenter"]


def test_spot_arm_pool_with_taints_weight_and_its_own_lifetime(rich_run):
    evaluation, _ = rich_run
    spec = as_object(evaluation.named(NODE_POOL, "spot-arm-node-pool"))["spec"]
    template = spec["template"]["spec"]
    assert template["requirements"][:3] == [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]
    # A value-less taint has no "value" (the CRD's pattern refuses an empty one).
    assert template["taints"] == [{"key": "prescale.io/event", "value": "true", "effect": "NoSchedule"},
                                  {"key": "dedicated", "effect": "NoExecute"}]
    assert (template["expireAfter"], template["terminationGracePeriod"]) == ("720h", "30m")
    assert spec["weight"] == 50
    assert spec["limits"] == {"cpu": "2000", "memory": "8000Gi", "nodes": "100"}
    assert (spec["disruption"]["consolidationPolicy"], spec["disruption"]["consolidateAfter"]) == ("WhenEmpty", "30s")
    # weekday-open (New York, both offsets in one budget) and night-batch (Berlin, across midnight).
    assert spec["disruption"]["budgets"] == [
        {"nodes": "0", "schedule": "45 12 * * 1-5", "duration": "9h15m"},
        {"nodes": "0", "schedule": "50 19 * * *", "duration": "9h10m"},
        *STANDING]


def test_emptied_nodes_leave_together_after_a_window_while_the_window_itself_stays_frozen_for_every_reason(dev_run):
    evaluation, _ = dev_run
    budgets = as_object(evaluation.named(NODE_POOL, "event-node-pool"))["spec"]["disruption"]["budgets"]
    during, after = datetime(2026, 12, 1, 2, 20, tzinfo=timezone.utc), datetime(2026, 12, 1, 3, 0, tzinfo=timezone.utc)
    reasons = ("Empty", "Underutilized", "Drifted")
    # lunch-rush's 10 nodes (02:05-02:30 UTC): none may go during it; after it all empty ones at once, others 1 by 1.
    assert [allowed_disruptions(budgets, 10, reason, during) for reason in reasons] == [0, 0, 0]
    assert [allowed_disruptions(budgets, 10, reason, after) for reason in reasons] == [10, 1, 1]


def test_the_standing_budgets_pass_the_crd_which_would_refuse_an_unknown_reason(dev_run):
    evaluation, _ = dev_run
    node_pool = as_object(evaluation.named(NODE_POOL, "event-node-pool"))
    assert validate(node_pool) == []
    node_pool["spec"]["disruption"]["budgets"][-2]["reasons"] = ["Emptiness"]
    assert validate(node_pool) == [
        "spec.disruption.budgets[3].reasons[0]: 'Emptiness' is not one of ['Underutilized', 'Empty', 'Drifted']"]


def test_bottlerocket_gets_an_encrypted_os_and_data_volume_and_the_stack_tags(rich_run):
    evaluation, _ = rich_run
    spec = as_object(evaluation.named(NODE_CLASS, "spot-arm-node-class"))["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": "bottlerocket@v1.30.0"}]
    assert [(d["deviceName"], d["ebs"]["volumeSize"], d["ebs"]["encrypted"]) for d in spec["blockDeviceMappings"]] \
        == [("/dev/xvda", "4Gi", True), ("/dev/xvdb", "50Gi", True)]
    assert spec["tags"] == {"team": "platform", "prescale.io/node-pool": "spot-arm"}
    assert spec["metadataOptions"] == IMDS_V2_ONLY


def test_overlapping_windows_each_keep_their_freeze_united_on_the_pool(rich_run):
    evaluation, _ = rich_run
    budgets = as_object(evaluation.named(NODE_POOL, "event-node-pool"))["spec"]["disruption"]["budgets"]
    # overlap-a 11:50-13:00 and overlap-b 12:20-14:00 KST touch, so they unite: 02:50-05:00 UTC.
    assert {"nodes": "0", "schedule": "50 2 * * *", "duration": "2h10m"} in budgets


def test_a_pool_without_windows_has_only_the_default_budget():
    evaluation, _ = run(stack_config([pool("event"), pool("idle")], [window("w", "0 9 * * *", "0 10 * * *")]))
    assert as_object(evaluation.named(NODE_POOL, "idle-node-pool"))["spec"]["disruption"]["budgets"] == STANDING


def one_off_sales(count: int) -> list[dict]:
    """``count`` one-off sales, each on its own day at its own hours: no exact join can fit many into one budget."""
    days = [(month, day) for month in (1, 2, 3) for day in range(1, 28)][:count]
    return [window(f"sale-{month}-{day}", f"2027-{month:02d}-{day:02d}T{8 + (day + month) % 9:02d}:{day * 7 % 60:02d}",
                   f"2027-{month:02d}-{day:02d}T{18 + day % 5}:00") for month, day in days]


def budgets_and_warnings(windows: list[dict]) -> tuple[list[dict], list[str]]:
    """The event pool's registered budgets and the pool's warnings, from a whole capacity deployment."""
    evaluation, _ = run(stack_config([pool("event")], windows))
    pool_warnings = [warning for warning in evaluation.warnings if warning.startswith("node pool 'event'")]
    return valid_budgets(evaluation), pool_warnings


def pool_budgets_and_warnings(windows: list[dict]) -> tuple[list[dict], list[str]]:
    """The same, registering only the pool from its plan: a boundary case needs its NodePool, not its windows'
    eight resources each (:func:`budgets_and_warnings` proves the whole deployment renders the same plan)."""
    pool_plan = plan_capacity(stack_config([pool("event")], windows), NOW).pools["event"]
    evaluation = evaluate(lambda: EventNodePool("event", EventNodePoolArgs(pool_plan.pool, pool_plan.freezes,
                                                                           stand_in_platform())))
    return valid_budgets(evaluation), list(pool_plan.warnings)


def valid_budgets(evaluation) -> list[dict]:
    node_pool = as_object(evaluation.named(NODE_POOL, "event-node-pool"))
    assert validate(node_pool) == []  # the CRD's maxItems: 50 and its CEL rules
    return node_pool["spec"]["disruption"]["budgets"]


@pytest.mark.slow
def test_many_windows_on_one_pool_fit_the_crds_fifty_budgets_with_a_warning():
    budgets, warnings = budgets_and_warnings(one_off_sales(81))
    assert len(budgets) <= MAX_BUDGETS and budgets[-2:] == STANDING
    assert warnings == [
        f"node pool 'event': its windows need 81 consolidation freezes but a NodePool holds {MAX_BUDGETS} budgets "
        f"(2 of them standing); they were merged into {len(budgets) - 2} covering ones, so consolidation stays "
        "frozen longer than the windows (no window loses its freeze). Spread windows over more node pools to avoid "
        "this."]


def test_freezes_that_exactly_fill_the_budgets_left_beside_the_standing_ones_are_kept_as_they_are():
    budgets, warnings = pool_budgets_and_warnings(one_off_sales(MAX_BUDGETS - 2))
    assert len(budgets) == MAX_BUDGETS and budgets[-2:] == STANDING and warnings == []


def test_one_freeze_more_than_fits_is_merged_so_the_standing_budgets_keep_their_slots():
    # 49 freezes + 2 standing budgets would be 51: over the CRD's 50, and `pulumi up` would fail.
    budgets, warnings = pool_budgets_and_warnings(one_off_sales(MAX_BUDGETS - 1))
    assert len(budgets) == MAX_BUDGETS and budgets[-2:] == STANDING
    assert len(warnings) == 1 and "need 49 consolidation freezes" in warnings[0]


def test_an_unpinned_ami_alias_is_deployed_with_a_warning_that_every_release_rolls_the_pool():
    evaluation, _ = run(stack_config([pool("event", amiAlias="al2023@latest"), pool("pinned")],
                                     [window("w", "0 9 * * *", "0 10 * * *")]))
    assert as_object(evaluation.named(NODE_CLASS, "event-node-class"))["spec"]["amiSelectorTerms"] == [
        {"alias": "al2023@latest"}]
    assert [w for w in evaluation.warnings if w.startswith("node pool")] == [
        "node pool 'event': amiAlias 'al2023@latest' follows every AMI release: each one drifts all of the pool's "
        "nodes, which Karpenter then replaces wherever no window's freeze holds, and nodes launched during an event "
        "(for preempted placeholders) boot the newest AMI, possibly one released mid-event that nothing ran on yet. "
        "Pin a release (al2023@vYYYYMMDD or bottlerocket@vX.Y.Z) to roll nodes only when you change it."]


def test_no_node_pool_spec_is_rendered_for_a_pool_without_limits():
    # Only an existing pool goes without limits; prescale never writes its NodePool, let alone an unbounded one.
    theirs = NodePoolConfig.model_validate({"name": "theirs", "existing": True})
    with pytest.raises(ValueError, match="'theirs' has no limits"):
        node_pool_spec(theirs, "default", [])


def test_a_data_volume_from_a_snapshot_takes_the_snapshots_size_unless_given_more():
    """EC2 refuses a volume smaller than its snapshot, so a fixed 50Gi failed every launch from a larger snapshot;
    with no size EC2 takes the snapshot's (aws/karpenter-provider-aws v1.14.1 launchtemplate.go sends none)."""
    snapshot = {"snapshotID": "snap-0123456789abcdef0"}
    for data, size in (({**snapshot}, None), ({**snapshot, "size": "120Gi"}, "120Gi")):
        pool = NodePoolConfig(name="cache", amiAlias="bottlerocket@v1.30.0", limits={"cpu": "64"}, dataVolume=data)
        os_volume, data_volume = block_devices(pool)
        assert data_volume["deviceName"] == "/dev/xvdb" and data_volume["ebs"].get("volumeSize") == size
        assert data_volume["ebs"]["snapshotID"] == "snap-0123456789abcdef0" and "encrypted" not in data_volume["ebs"]
        assert os_volume["ebs"]["volumeSize"] == "4Gi"
        node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "cache"},
                      "spec": {"role": "node", "amiSelectorTerms": [{"alias": "bottlerocket@v1.30.0"}],
                               "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                               "securityGroupSelectorTerms": [{"tags": {"k": "v"}}],
                               "blockDeviceMappings": [os_volume, data_volume]}}
        assert validate(node_class) == []  # the CRD's rule: snapshotID or volumeSize


@pytest.mark.parametrize("size", ["0Gi", "16385Gi", "50G", "50", "1.5Gi"])
def test_a_data_volume_size_outside_gp3s_whole_gib_is_refused(size):
    with pytest.raises(ValueError, match="from 1Gi to 16384Gi"):
        NodePoolConfig(name="cache", amiAlias="bottlerocket@v1.30.0", limits={"cpu": "64"},
                       dataVolume={"snapshotID": "snap-0123456789abcdef0", "size": size})
