"""What the direct tests of the rule modules share: a valid stack, and a copy of a model with some fields changed
without validation (the rule modules are what refuses them)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from tests.support.capacity import pool, stack_config, window

ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}
M7I = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}


def changed(model: BaseModel, **fields: Any) -> Any:
    """``model`` with ``fields`` set as given: a value its own validators would accept, that a rule across keys
    refuses."""
    return model.model_copy(update=fields)


@pytest.fixture(scope="module")
def valid():
    """A valid stack: a placeholders pool and a static pool pinned to one zone and type, a window on each."""
    return stack_config([pool(), pool("fixed", strategy="static", requirements=[ZONE_A, M7I])],
                        [window("lunch", "0 12 * * *", "0 13 * * *"),
                         window("batch", "0 9 * * *", "0 10 * * *", node_pool="fixed", nodes=3)])
