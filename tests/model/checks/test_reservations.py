"""``prescale.model.checks.reservations``: a one-off's reservations, against what its pool and strategy launch."""

from prescale.model.checks.refused import NOTHING_REFUSED
from prescale.model.checks.reservations import reservation_problems

from tests.support.capacity import pool, stack_config, window

from .conftest import M7I, ZONE_A, changed

ONE_OFF = {"instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a"]}


def test_more_reservations_than_a_static_windows_nodes_are_refused():
    config = stack_config([pool("fixed", strategy="static", requirements=[ZONE_A, M7I],
                                capacityTypes=["on-demand", "reserved"])],
                          [window("launch", "2027-03-02T08:00", "2027-03-02T12:00", node_pool="fixed", nodes=3,
                                  reserve=ONE_OFF)])
    assert reservation_problems(config, NOTHING_REFUSED, "ap-northeast-2") == []
    launch = config.event_windows[0]
    more = changed(launch, reserve=changed(launch.reserve, count=5))
    (problem,) = reservation_problems(changed(config, event_windows=[more]), NOTHING_REFUSED, "ap-northeast-2")
    assert problem.startswith("prescale:eventWindows[0].reserve.count: 5 reservations on static node pool 'fixed', "
                              "whose window holds 3 nodes")
