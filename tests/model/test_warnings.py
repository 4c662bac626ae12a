"""What the plan warns about without refusing it: settings that work, but not as their author most likely meant."""

from prescale.model.plan import plan_capacity
from prescale.model.validation import load_stack_config

from tests.support.config import NOW

POOL = {"name": "event", "limits": {"cpu": "512"}}
LUNCH = {"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * *",
         "end": "30 11 * * *", "nodes": 2}


def warnings(pool: dict = POOL, window: dict = LUNCH, **more: object) -> tuple[str, ...]:
    config = load_stack_config({"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "corpus"},
                                "prescale:nodePools": [pool], "prescale:eventWindows": [window],
                                **{f"prescale:{key}": value for key, value in more.items()}}, NOW)
    return plan_capacity(config, NOW).warnings


def zones(*names: str) -> dict:
    return {**POOL, "requirements": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(names)}]}


def test_a_valid_stack_is_warned_about_nothing():
    assert warnings() == ()


def test_a_zone_letter_the_region_has_no_zone_for_is_warned():
    # Seoul has four zones (AWS lists apne2-az1 to apne2-az4): a to d.
    assert warnings(zones("ap-northeast-2a", "ap-northeast-2d")) == ()
    (warning,) = warnings(zones("ap-northeast-2a", "ap-northeast-2e"))
    assert warning.startswith("node pool 'event': topology.kubernetes.io/zone requirement: 'ap-northeast-2e' is not a "
                              "zone of ap-northeast-2: AWS lists 4 zones there (ap-northeast-2a to ap-northeast-2d;")


def test_a_local_zone_of_the_region_is_taken_as_it_is():
    assert warnings(zones("ap-northeast-2-wl1-cjj-wlz-1")) == ()


def test_a_price_for_an_instance_type_karpenter_does_not_know_is_warned_with_the_type_meant():
    (warning,) = warnings(pricing={"instanceTypes": {"c7i.xlarge": 0.1785, "c7i.xlarg": 0.1785}})
    assert warning == ("prescale:pricing.instanceTypes: 'c7i.xlarg' is not in Karpenter's instance-type list (v1.14), "
                       "so prescale schedule's cost estimate never uses its price; did you mean 'c7i.xlarge'?")


def test_more_prepulled_images_than_the_lead_time_can_pull_are_warned():
    images = [f"registry.example.com/shop/service-{index}:v1" for index in range(10)]
    assert warnings(window={**LUNCH, "leadTime": "10m", "prepullImages": images}) == ()
    (warning,) = warnings(window={**LUNCH, "leadTime": "4m", "prepullImages": images})
    assert warning.startswith("event window 'lunch': leadTime '4m' leaves 2m after the node is Ready (about 2m) to "
                              "pull its 10 prepullImages, which the kubelet pulls one at a time: even at 20 s per "
                              "image")
    assert warning.endswith("give it at least 6m, or fewer images")


def test_a_reservation_in_a_zone_the_region_does_not_have_is_warned():
    launch = {**LUNCH, "name": "launch", "start": "2027-03-02T08:00", "end": "2027-03-02T14:00",
              "reserve": {"instanceType": "c7i.xlarge", "availabilityZones": ["ap-northeast-2e"]}}
    pool = {**POOL, "capacityTypes": ["on-demand", "reserved"]}
    found = [warning for warning in warnings(pool, launch) if "reserve:" in warning]
    assert found == ["event window 'launch': reserve: 'ap-northeast-2e' is not a zone of ap-northeast-2: AWS lists 4 "
                     "zones there (ap-northeast-2a to ap-northeast-2d; some accounts see fewer: `aws ec2 "
                     "describe-availability-zones --region ap-northeast-2`), so no node would ever be in "
                     "ap-northeast-2e; EC2 refuses a reservation there"]
    assert not [warning for warning in warnings(pool, {**launch, "reserve": {
        "instanceType": "c7i.xlarge", "availabilityZones": ["ap-northeast-2d"]}}) if "reserve:" in warning]


def test_a_kubectl_image_more_than_one_minor_from_the_new_clusters_version_is_warned():
    def skew(version: str, image: str = "registry.k8s.io/kubectl:v1.34.3") -> list[str]:
        config = load_stack_config({"aws:region": "ap-northeast-2", "prescale:cluster": {
            "name": "corpus", "kubernetesVersion": version},
            "prescale:nodePools": [POOL], "prescale:eventWindows": [LUNCH],
            "prescale:placeholders": {"failsafeImage": image}}, NOW)
        return [warning for warning in plan_capacity(config, NOW).warnings if "failsafeImage" in warning]

    assert skew("1.33") == skew("1.35") == []  # kubectl 1.34: one minor either way
    (warning,) = skew("1.36")
    assert warning.startswith("prescale:placeholders.failsafeImage 'registry.k8s.io/kubectl:v1.34.3': kubectl 1.34 is "
                              "more than one minor version from the cluster's Kubernetes 1.36")
    assert warning.endswith("use a kubectl image of 1.36 (e.g. registry.k8s.io/kubectl:v1.36.0)")
    assert len(skew("1.32")) == 1
    assert skew("1.36", "registry.k8s.io/kubectl:v1.36.0") == skew("1.30", "mirror.example.com/kubectl:1.31") == []
    assert skew("1.36", "mirror.example.com/tools/kubectl:stable") == []  # its version is unknown here
    assert len(skew("1.36", "registry.k8s.io/kubectl:v1.34.3@sha256:" + "0" * 64)) == 1
