"""``prescale.model.checks.strategies``: what each pool's strategy refuses, its driver's two runs kept apart, and
the strategies the stack's Karpenter can run."""

from prescale.model.checks.refused import NOTHING_REFUSED
from prescale.model.checks.strategies import driver_problems, platform_strategy_problems, strategy_problems

from tests.support.capacity import NOW

from .conftest import changed


def test_a_valid_stack_has_no_strategy_problem(valid):
    assert strategy_problems(valid, NOTHING_REFUSED) == platform_strategy_problems(valid, NOTHING_REFUSED) == []


def test_a_capacity_window_on_a_static_pool_is_refused_by_its_strategy(valid):
    batch = changed(valid.event_windows[1], nodes=None, capacity=valid.placeholders.node_size)
    (problem,) = strategy_problems(changed(valid, event_windows=[valid.event_windows[0], batch]), NOTHING_REFUSED)
    assert problem.startswith("prescale:eventWindows[1].capacity: {cpu: '1', memory: '2Gi'} cannot go on static "
                              "node pool 'fixed'")


def test_a_buffer_pool_on_auto_mode_is_refused(valid):
    buffer = changed(valid.node_pools[0], strategy="buffer")
    auto = changed(valid, node_pools=[buffer, valid.node_pools[1]], cluster=changed(valid.cluster, auto_mode=True))
    (problem,) = platform_strategy_problems(auto, NOTHING_REFUSED)
    assert problem == ("prescale:nodePools[0].strategy: 'buffer' is not available on EKS Auto Mode "
                       "(prescale:cluster.autoMode: true): AWS's Karpenter there runs no CapacityBuffers; allowed: "
                       "placeholders, or static")


def test_a_driver_whose_half_is_too_short_names_the_key_to_change(valid):
    batch, fixed = valid.event_windows[1], valid.node_pools[1]
    assert driver_problems("w", batch, fixed, "end", NOW) == []
    (problem,) = driver_problems("w", changed(batch, lead_time="1m"), fixed, "start", NOW)
    assert problem.startswith("w.leadTime: '1m': on static node pool 'fixed', ")
