"""A pool's ``topology.kubernetes.io/zone`` In requirement against the stack's region
(:func:`prescale.model.checks.zones.zone_problems`): a zone of another region, or the region itself, is refused by
its value's index, since no node would ever launch there; a zone of the region that AWS does not list, and a NotIn
requirement, are not this rule's to refuse; a refused pool is checked only while its requirements are known."""

from prescale.model.checks.refused import NOTHING_REFUSED, Partial, Refused
from prescale.model.checks.zones import zone_problems
from prescale.model.config import STRATEGIES_CONTEXT, CapacityConfig, NodePoolConfig
from prescale.model.strategies import STRATEGIES

REGION = "ap-northeast-2"
ZONE = "topology.kubernetes.io/zone"


def zone_pool(name: str, *zones: str, operator: str = "In") -> dict:
    return {"name": name, "limits": {"cpu": "100"},
            "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                             {"key": ZONE, "operator": operator, "values": list(zones)}]}


def capacity(*pools: dict) -> CapacityConfig:
    """The pools as their models validate them, without the cross-key rules (so a foreign zone gets through)."""
    return CapacityConfig.model_validate({"nodePools": list(pools)}, context={STRATEGIES_CONTEXT: STRATEGIES})


def foreign(index: int, at: int, value: int, zone: str) -> str:
    return (f"prescale:nodePools[{index}].requirements[{at}].values[{value}]: {zone!r} is not a zone of the stack's "
            f"region 'ap-northeast-2' (aws:region): Karpenter launches only in that region's zones, so no node would "
            f"ever be in {zone}; allowed: a zone of ap-northeast-2, such as ap-northeast-2a")


def test_zones_of_the_region_are_accepted_local_and_unlisted_ones_included():
    """ap-northeast-2z is past the region's four zones: the plan warns of it (accounts differ), this rule does not."""
    config = capacity(zone_pool("event", "ap-northeast-2a", "ap-northeast-2c", "ap-northeast-2-wl1-sel-wlz-1",
                                "ap-northeast-2z"))
    assert zone_problems(config, NOTHING_REFUSED, REGION) == []


def test_a_zone_of_another_region_is_refused_by_its_value_index():
    config = capacity(zone_pool("event", "ap-northeast-2a", "us-east-1a"))
    assert zone_problems(config, NOTHING_REFUSED, REGION) == [foreign(0, 1, 1, "us-east-1a")]


def test_the_region_itself_is_refused_as_no_zone():
    config = capacity(zone_pool("event", REGION))
    assert zone_problems(config, NOTHING_REFUSED, REGION) == [
        "prescale:nodePools[0].requirements[1].values[0]: 'ap-northeast-2' is the region, not one of its zones; "
        "allowed: a zone of ap-northeast-2, such as ap-northeast-2a"]


def test_a_not_in_requirement_and_other_keys_are_not_checked():
    """Leaving out a foreign zone launches nothing there either way; only the zones a pool asks for matter."""
    config = capacity(zone_pool("event", "us-east-1a", operator="NotIn"))
    assert zone_problems(config, NOTHING_REFUSED, REGION) == []
    assert zone_problems(capacity(zone_pool("event", "us-west-2b")), NOTHING_REFUSED, "us-west-2") == []


def test_a_pool_after_a_refused_one_keeps_its_index_and_a_refused_one_is_checked_while_its_requirements_are_known():
    config = capacity(zone_pool("later", "eu-west-1a"))  # nodePools[1]; [0] was refused
    whole = Refused(node_pools=frozenset({0}), pool_names=frozenset({"first"}))
    assert zone_problems(config, whole, REGION) == [foreign(1, 1, 0, "eu-west-1a")]

    first = NodePoolConfig.model_validate(zone_pool("first", "us-east-1b"), context={STRATEGIES_CONTEXT: STRATEGIES})
    known = Refused(node_pools=frozenset({0}), pool_names=frozenset({"first"}),
                    partial={("node_pools", 0): Partial(first, frozenset({"consolidate_after"}))})
    assert zone_problems(config, known, REGION) == [foreign(0, 1, 0, "us-east-1b"), foreign(1, 1, 0, "eu-west-1a")]
    unknown = Refused(node_pools=frozenset({0}), pool_names=frozenset({"first"}),
                      partial={("node_pools", 0): Partial(first, frozenset({"requirements"}))})
    assert zone_problems(config, unknown, REGION) == [foreign(1, 1, 0, "eu-west-1a")]
