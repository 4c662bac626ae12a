"""The zones a pool's ``topology.kubernetes.io/zone`` requirements leave, as Karpenter reads them: every requirement
on the key holds, so fleet's instances by zone, reservations and preflight's offerings agree with what launches."""

import pytest
from prescale.model.config import NodePoolConfig
from prescale.model.fleet.reservations import pool_zones

ZONE = "topology.kubernetes.io/zone"


def zoned(*requirements: tuple[str, list[str]]) -> NodePoolConfig:
    return NodePoolConfig.model_validate({
        "name": "event", "limits": {"cpu": "1000"},
        "requirements": [{"key": ZONE, "operator": operator, "values": values} for operator, values in requirements]})


@pytest.mark.parametrize("requirements, zones", [
    ([], ()),
    ([("In", ["ap-northeast-2a", "ap-northeast-2c"])], ("ap-northeast-2a", "ap-northeast-2c")),
    # Two In lists: a node must meet both.
    ([("In", ["ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c"]),
      ("In", ["ap-northeast-2c", "ap-northeast-2b"])], ("ap-northeast-2b", "ap-northeast-2c")),
    # A NotIn takes its zones out of the In's.
    ([("In", ["ap-northeast-2a", "ap-northeast-2c"]), ("NotIn", ["ap-northeast-2a"])], ("ap-northeast-2c",)),
    # A NotIn alone pins nothing: any zone of the region but its own.
    ([("NotIn", ["ap-northeast-2a"])], ()),
])
def test_every_zone_requirement_of_the_pool_holds(requirements, zones):
    assert pool_zones(zoned(*requirements)) == zones
