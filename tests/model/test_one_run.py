"""Every problem in one run: a stack file with a dozen independent mistakes is refused with all of them at once.

A refused value hides only the rules that need it: the rest of its section or list entry is checked as far as
its own values go (prescale.model.checks.refused), and nothing refused is described as missing. The file runs
through the whole program under mocks, as ``pulumi up`` and ``prescale plan`` run it.
"""

import importlib.util
import re
from pathlib import Path

import pytest
from prescale.model.validation import AWS_PROVIDER_KEYS, ConfigError, load_stack_config
from prescale.offline import OfflineMocks, run_program
from prescale.stack_file import read_config_file

from tests.support import ROOT, TESTS
from tests.support.config import NOW

# Each mistake of tests/data/many_mistakes.yaml: the key the problem names, and what it says.
MISTAKES = {
    "aws:regoin": "did you mean 'aws:region'?",
    "prescale:alerts.prometheusRule": "to set prometheusRule inside prescale:alerts, nest it",
    "prescale:cluster.vpcCidr": "'10.0.0.1/16' has host bits set",
    # The rest of the cluster is still checked: the endpoint needs none of vpcCidr.
    "prescale:cluster.endpointPrivateAccess": "nodes would reach the API only from their NAT gateways",
    "prescale:keda.version": "'2.17.0' must be 2.18.0 or newer",
    "prescale:placeholders.nodeSize.memory": 'like "2Gi" (2048Mi)',
    # The rest of the placeholders too: the grace needs none of nodeSize.
    "prescale:placeholders.failsafeGrace": "'1m' must be at least 2m",
    "prescale:nodePools[0].consolidateAfter": "'Never' would keep a window's nodes after its end",
    # The rest of the pool: its requirements need none of consolidateAfter.
    "prescale:nodePools[0].requirements[0]": "all have kubernetes.io/arch arm64, which architectures ['amd64']",
    "prescale:nodePools[1].weight": "must be at least 1 (got 0)",
    "prescale:nodePools[1].requirements[0].values[0]": "'us-east-1a' is not a zone of the stack's region",
    "prescale:eventWindows[0].nodes": "must be at least 1 (got 0)",
    # The rest of the window: its times need none of nodes.
    "prescale:eventWindows[0].end": "equals start",
    # A pool that was refused is still a pool: the unknown name is answered with both.
    "prescale:eventWindows[1].nodePool": "'evnt' is not a node pool; allowed: 'event', 'batch'",
    "prescale:eventWindows[2].leadTime": "'90s' must be whole minutes",
    # A rule across the window's keys, which pydantic runs only once every value is valid.
    "prescale:eventWindows[2]": "give exactly one of nodes (a node count) or capacity",
}


@pytest.fixture(scope="module")
def problems() -> list[str]:
    mocks = OfflineMocks()
    with pytest.raises(ConfigError) as caught:
        run_program(ROOT, "mistakes", NOW, config=read_config_file(TESTS / "data" / "many_mistakes.yaml"),
                    mocks=mocks)
    assert mocks.registrations == []
    return caught.value.problems


def test_every_independent_mistake_is_reported_in_one_run(problems):
    assert len(MISTAKES) >= 10
    unreported = {key: text for key, text in MISTAKES.items()
                  if not any(problem.startswith(f"{key}:") and text in problem for problem in problems)}
    assert unreported == {}, problems


def test_nothing_but_the_mistakes_is_reported(problems):
    assert len(problems) == len(MISTAKES), problems


def test_nothing_refused_is_described_as_missing_or_empty(problems):
    assert not [problem for problem in problems if "missing" in problem or "is empty" in problem]


POOL = {"name": "event", "limits": {"cpu": "64"}}
WINDOW = {"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * *", "end": "30 11 * * *",
          "nodes": 3}
STACK = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "shop-prod"}, "prescale:nodePools": [POOL],
         "prescale:eventWindows": [WINDOW]}


@pytest.mark.parametrize("written, meant", [
    ("prescale:nodepools", "prescale:nodePools"), ("prescale:clusters", "prescale:cluster"),
    ("aws:regoin", "aws:region"), ("prescale:nodePools.event", "prescale:nodePools"),
])
def test_a_misspelled_key_is_the_only_problem_and_the_key_meant_is_not_missing(written, meant):
    raw = {key: value for key, value in STACK.items() if key != meant} | {written: STACK[meant]}
    (problem,) = refused_with(raw)
    assert problem.startswith(f"{written}: "), problem


def refused_with(raw: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_stack_config(raw, NOW)
    return caught.value.problems


def test_the_aws_keys_named_are_the_aws_providers_own():
    # The SDK's config module reads each key the provider takes (pulumi_aws/config/vars.py), without importing it.
    vars_py = Path(importlib.util.find_spec("pulumi_aws").origin).parent / "config" / "vars.py"
    assert AWS_PROVIDER_KEYS == set(re.findall(r"__config__\.get\w*\('(\w+)'\)", vars_py.read_text()))


# Each mistake of tests/data/eleven_mistakes.yaml, one per area of the config: the key the problem names, and what
# it says. The last trial's file needed 5 runs; the reserve's zone of another region needs only aws:region, and a
# window alone above its pool's limits only its size and the pool's limits.
ELEVEN = {
    "prescale:cluster.vpcCidr": "has host bits set",
    "prescale:alerts.prometheusRule": "needs a cluster that already runs the Prometheus Operator",
    "prescale:tags.costCenter": "must be text",
    "prescale:keda.values.operator.replicaCuont": "did you mean 'replicaCount'?",
    "prescale:placeholders.failsafeGrace": "must be at least 2m",
    "prescale:nodePools[0].weight": "must be at least 1 (got 0)",
    "prescale:eventWindows[0].timezone": "did you mean 'Asia/Seoul'?",
    "prescale:eventWindows[0].nodes": "6 is above the limit of 4 nodes of node pool 'event'",
    "prescale:eventWindows[1].end": "is not after start",
    "prescale:eventWindows[1].reserve.availabilityZones[0]": "'us-east-1a' is not a zone of the stack's region",
    "prescale:eventWindows[2].capacity": "cannot go on static node pool 'fixed'",
}


def test_ten_of_eleven_mistakes_in_as_many_areas_are_reported_in_the_first_run():
    mocks = OfflineMocks()
    with pytest.raises(ConfigError) as caught:
        run_program(ROOT, "eleven", NOW, config=read_config_file(TESTS / "data" / "eleven_mistakes.yaml"),
                    mocks=mocks)
    found = caught.value.problems
    reported = {key for key, text in ELEVEN.items()
                if any(problem.startswith(f"{key}:") and text in problem for problem in found)}
    assert len(ELEVEN) == 11 and len(reported) >= 10, (set(ELEVEN) - reported, found)
    assert len(found) == len(reported), found  # nothing else: no consequence of one mistake reported as another
