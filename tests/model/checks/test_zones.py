"""``prescale.model.checks.zones``: a pool's zone requirement names zones of the stack's region."""

from prescale.model.checks.refused import NOTHING_REFUSED
from prescale.model.checks.zones import zone_problems

from .conftest import changed


def test_a_zone_of_another_region_is_refused(valid):
    fixed = valid.node_pools[1]
    elsewhere = [changed(requirement, values=["us-east-1a"]) if requirement.key == "topology.kubernetes.io/zone"
                 else requirement for requirement in fixed.requirements]
    config = changed(valid, node_pools=[valid.node_pools[0], changed(fixed, requirements=elsewhere)])
    (problem,) = zone_problems(config, NOTHING_REFUSED, "ap-northeast-2")
    assert problem.startswith("prescale:nodePools[1].requirements[0].values[0]: 'us-east-1a' is not a zone of the "
                              "stack's region 'ap-northeast-2' (aws:region)")
    assert zone_problems(valid, NOTHING_REFUSED, "ap-northeast-2") == []
