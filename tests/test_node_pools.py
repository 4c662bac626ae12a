"""One EC2NodeClass + NodePool per configured pool: instances, requirements, taints, limits and budgets."""

from prescale.model.budgets import MAX_BUDGETS
from tests.capacity_support import (DEPLOYMENT, NODE_CLASS, NODE_POOL, as_object, dev_run, pool, rich_run, run, short,
                                    stack_config, window)

DISCOVERY = [{"tags": {"karpenter.sh/discovery": "prescale-test"}}]
IMDS_V2_ONLY = {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                "httpTokens": "required"}


def test_dev_stack_node_class():
    evaluation, _ = dev_run()
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


def test_dev_stack_node_pool():
    evaluation, _ = dev_run()
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
                    {"nodes": "10%"},
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


def test_node_pool_resources_use_the_platform_provider_and_wait_for_karpenter():
    evaluation, _ = dev_run()
    component = evaluation.named("prescale:index:EventNodePool", "event")
    node_class = evaluation.named(NODE_CLASS, "event-node-class")
    node_pool = evaluation.named(NODE_POOL, "event-node-pool")
    for resource in (node_class, node_pool):
        assert resource.parent == component.urn
        assert short(resource.provider) == "k8s-id"
    assert [short(dependency) for dependency in node_class.dependencies] == ["karpenter"]
    assert sorted(short(dependency) for dependency in node_pool.dependencies) == ["event-node-class", "karpenter"]


def test_spot_arm_pool_with_taints_weight_and_its_own_lifetime():
    evaluation, _ = rich_run()
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
        {"nodes": "10%"}]


def test_bottlerocket_gets_an_encrypted_os_and_data_volume_and_the_stack_tags():
    evaluation, _ = rich_run()
    spec = as_object(evaluation.named(NODE_CLASS, "spot-arm-node-class"))["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": "bottlerocket@v1.30.0"}]
    assert [(d["deviceName"], d["ebs"]["volumeSize"], d["ebs"]["encrypted"]) for d in spec["blockDeviceMappings"]] \
        == [("/dev/xvda", "4Gi", True), ("/dev/xvdb", "50Gi", True)]
    assert spec["tags"] == {"team": "platform", "prescale.io/node-pool": "spot-arm"}
    assert spec["metadataOptions"] == IMDS_V2_ONLY


def test_overlapping_windows_each_keep_their_freeze_united_on_the_pool():
    evaluation, _ = rich_run()
    budgets = as_object(evaluation.named(NODE_POOL, "event-node-pool"))["spec"]["disruption"]["budgets"]
    # overlap-a 11:50-13:00 and overlap-b 12:20-14:00 KST touch, so they unite: 02:50-05:00 UTC.
    assert {"nodes": "0", "schedule": "50 2 * * *", "duration": "2h10m"} in budgets


def test_a_pool_without_windows_has_only_the_default_budget():
    evaluation, _ = run(stack_config([pool("event"), pool("idle")], [window("w", "0 9 * * *", "0 10 * * *")]))
    assert as_object(evaluation.named(NODE_POOL, "idle-node-pool"))["spec"]["disruption"]["budgets"] == [
        {"nodes": "10%"}]


def test_many_windows_on_one_pool_fit_the_crds_fifty_budgets_with_a_warning():
    # 81 one-off sales, each on its own day at its own hours: no exact join can fit them into 49 budgets.
    windows = [window(f"sale-{month}-{day}",
                      f"2027-{month:02d}-{day:02d}T{8 + (day + month) % 9:02d}:{day * 7 % 60:02d}",
                      f"2027-{month:02d}-{day:02d}T{18 + day % 5}:00") for month in (1, 2, 3) for day in range(1, 28)]
    evaluation, _ = run(stack_config([pool("event")], windows))
    budgets = as_object(evaluation.named(NODE_POOL, "event-node-pool"))["spec"]["disruption"]["budgets"]
    assert len(budgets) <= MAX_BUDGETS and budgets[-1] == {"nodes": "10%"}
    assert [w for w in evaluation.warnings if "node pool 'event'" in w] == [
        f"node pool 'event': its windows need 81 consolidation freezes but a NodePool holds {MAX_BUDGETS} budgets; "
        f"they were merged into {len(budgets) - 1} covering ones, so consolidation stays frozen longer than the "
        "windows (no window loses its freeze). Spread windows over more node pools to avoid this."]
