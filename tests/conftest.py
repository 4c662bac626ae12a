"""What the whole test session shares, and how it ends.

Session fixtures: the evaluations several wings read are here; those only one wing reads are in its folder's
conftest.py (tests/capacity/conftest.py). Each is evaluated once per session (once per worker under xdist) by the
plain builders of tests/support, and is read-only: a test that changes one works on a copy.
"""

import gc
import logging

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


def pytest_configure(config):
    """asyncio's log is off for the session. A refused run leaves futures holding its error, which the test has read
    from the error the run raised; when the collector frees them, asyncio logs each error with its traceback, and Python
    3.11 formats a traceback by parsing source (its error carets). A collection may start inside any other parse,
    a test's ``ast.parse`` or pytest's own, and CPython's converter of parse trees keeps one depth counter per
    interpreter, which the nested parse resets: the outer one then fails with "SystemError: AST constructor recursion
    depth mismatch" (seen in tests/model/test_parsed_values.py). Nothing else in the session logs to asyncio.

    The collector's youngest generation is collected every 20,000 net allocations rather than Python's 700. A
    session holds millions of long-lived objects (the SDKs' modules, the session fixtures' evaluations), and the
    runs' short-lived ones, surviving the frequent young collections, were promoted until a full collection
    rescanned the whole heap: 17 to 20 of them per worker, 2.7 to 4.6 s of a worker's session. With the larger
    threshold most die young; a worker peaks about 100 MiB higher (docs/performance.md, "The test suite")."""
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    gc.set_threshold(20_000, *gc.get_threshold()[1:])


def pytest_unconfigure(config):
    """The session is over: without this, the interpreter's exit would rescan every object the SDKs and the
    session's evaluations hold (2-4 s on this repository's 2-core machine) only to free them as the process ends,
    and print asyncio's "exception was never retrieved" for the refused runs' futures the SDK still holds."""
    gc.freeze()
