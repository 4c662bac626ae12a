"""What the whole test session shares, and how it ends.

Session fixtures: the evaluations several wings read are here; those only one wing reads are in its folder's
conftest.py (tests/capacity/conftest.py). Each is evaluated once per session (once per worker under xdist) by the
plain builders of tests/support, and is read-only: a test that changes one works on a copy.
"""

import gc

import pytest
from prescale.capacity import DeployedCapacity
from prescale.offline import Evaluation

from tests.support.capacity import native_config, run
from tests.support.platform import dev_program


@pytest.fixture(scope="session")
def dev_stack() -> Evaluation:
    """The whole dev stack, ``dev_program()``, evaluated once per session: read-only, copy to change."""
    return dev_program()


@pytest.fixture(scope="session")
def native_run() -> tuple[Evaluation, list[DeployedCapacity]]:
    """Static and buffer pools, ``run(native_config())``, evaluated once per session: read-only, copy to change."""
    return run(native_config())


def pytest_unconfigure(config):
    """The session is over: without this, the interpreter's exit would rescan every object the SDKs and the
    session's evaluations hold (2-4 s on this repository's 2-core machine) only to free them as the process ends,
    and print asyncio's "exception was never retrieved" for the refused runs' futures the SDK still holds."""
    gc.freeze()
