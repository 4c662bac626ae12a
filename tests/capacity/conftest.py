"""The capacity wing's session fixtures: ``deploy_capacity`` on a stand-in platform for the stack configs only this
wing reads (those other wings read too, ``native_run`` and ``dev_stack``, are in tests/conftest.py)."""

import pytest
from prescale.capacity import DeployedCapacity
from prescale.offline import Evaluation

from tests.support.capacity import dev_config, every_kind_config, rich_config, run

Run = tuple[Evaluation, list[DeployedCapacity]]


@pytest.fixture(scope="session")
def dev_run() -> Run:
    """The dev stack's capacity, ``run(dev_config())``, evaluated once per session: read-only, copy to change."""
    return run(dev_config())


@pytest.fixture(scope="session")
def rich_run() -> Run:
    """Two pools, six windows, ``run(rich_config())``, evaluated once per session: read-only, copy to change."""
    return run(rich_config())


@pytest.fixture(scope="session")
def every_kind_run() -> Run:
    """Every kind capacity registers, ``run(every_kind_config())``, once per session: read-only, copy to change."""
    return run(every_kind_config())
