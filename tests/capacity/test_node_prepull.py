"""The images of static and buffer windows: a DaemonSet on the window's nodes pulls them as placeholders would."""

from prescale.capacity.prepull import prepull_pod_fields
from prescale.model.config import PlaceholderConfig
from prescale.model.strategies.static import static_node_pool_name
from prescale.offline import Evaluation

from policy.prescale_policies import restricted_pod_problems
from tests.support.capacity import DAEMON_SET, as_object
from tests.support.crd_validation import validate_kubernetes

TINY = {"cpu": "5m", "memory": "16Mi"}


def daemon_set(evaluation: Evaluation, name: str) -> dict:
    return as_object(evaluation.named(DAEMON_SET, f"{name}-prepull"))


def test_only_windows_with_images_get_a_prepull_daemon_set(native_run):
    evaluation, (deployed,) = native_run
    assert sorted(deployed.prepulls) == ["lunch", "sale"]
    assert sorted(r.name for r in evaluation.of_type(DAEMON_SET)) == ["lunch-prepull", "sale-prepull"]


def test_a_static_windows_images_are_pulled_on_its_own_node_pools_nodes_tolerating_the_pools_taints(native_run):
    lunch = daemon_set(native_run[0], "lunch")
    assert lunch["metadata"]["name"] == "prepull-lunch" and lunch["metadata"]["namespace"] == "prescale"
    assert lunch["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    spec = lunch["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"karpenter.sh/nodepool": static_node_pool_name("static", "lunch")}
    assert spec["tolerations"] == [{"key": "prescale.io/event", "effect": "NoSchedule", "operator": "Equal",
                                    "value": "true"}]
    assert lunch["spec"]["selector"]["matchLabels"] == lunch["spec"]["template"]["metadata"]["labels"]


def test_the_pulls_are_the_placeholders_init_containers_with_tiny_requests(native_run):
    sale = daemon_set(native_run[0], "sale")
    spec = sale["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"prescale.io/node-pool": "buffer"}  # every node of the buffer's pool
    placeholders = PlaceholderConfig()
    (pause,) = spec["containers"]
    container = {"resources": pause["resources"], "securityContext": pause["securityContext"]}
    assert pause["resources"] == {"requests": TINY, "limits": TINY}
    assert {key: spec[key] for key in ("initContainers", "volumes")} == prepull_pod_fields(
        ["nginx:1.27", "busybox:1.37"], placeholders.prepull_tool_image, container)
    assert [c["image"] for c in spec["initContainers"][1:]] == ["nginx:1.27", "busybox:1.37"]


def test_prepull_pods_meet_restricted_and_the_kubernetes_schema(native_run):
    for name in ("lunch", "sale"):
        obj = daemon_set(native_run[0], name)
        assert restricted_pod_problems(obj["spec"]["template"]["spec"]) == []
        validate_kubernetes(obj)
