"""``prescale.model.checks.pools``: a pool that can launch nothing, or nothing its windows need, is refused."""

from prescale.model.checks.pools import pool_problems

from .conftest import changed


def test_a_valid_stack_has_no_pool_problem(valid):
    assert pool_problems(valid) == []


def test_a_pool_whose_requirements_leave_no_instance_type_is_refused(valid):
    nothing = changed(valid.node_pools[0], instance_categories=["zz"])
    problems = pool_problems(changed(valid, node_pools=[nothing, valid.node_pools[1]]))
    assert problems and problems[0].startswith("prescale:nodePools[0]")
