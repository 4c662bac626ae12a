"""Go durations as stack config takes them (Go's time.ParseDuration), and the narrower form the NodePool CRD takes."""

import re
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prescale.capacity.node_pools import node_pool_spec
from prescale.model.config import NodePoolConfig
from prescale.model.values.duration import nodepool_duration, parse_duration

from tests.support import TESTS, load_yaml
from tests.support.config import only_problem
from tests.support.crd_validation import validate

NODEPOOL_CRD = load_yaml((TESTS / "crds" / "karpenter" / "karpenter.sh_nodepools.yaml").read_text())
_SPEC = NODEPOOL_CRD["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
# The CRD's own patterns for the three durations prescale writes.
POOL = {"name": "event", "limits": {"cpu": "64"}}
PATTERNS = {"consolidateAfter": _SPEC["disruption"]["properties"]["consolidateAfter"]["pattern"],
            "expireAfter": _SPEC["template"]["properties"]["spec"]["properties"]["expireAfter"]["pattern"],
            "terminationGracePeriod":
                _SPEC["template"]["properties"]["spec"]["properties"]["terminationGracePeriod"]["pattern"]}


@pytest.mark.parametrize("text, length", [
    ("10m", timedelta(minutes=10)), ("1h30m", timedelta(hours=1, minutes=30)), ("1.5h", timedelta(hours=1.5)),
    (".5h", timedelta(minutes=30)), ("90s", timedelta(seconds=90)), ("500ms", timedelta(milliseconds=500)),
    ("1500us", timedelta(microseconds=1500)), ("2µs", timedelta(microseconds=2)), ("1000ns", timedelta(microseconds=1)),
    ("30m1h", timedelta(minutes=90)), ("1h0.5m", timedelta(hours=1, seconds=30)), ("0", timedelta(0)),
])
def test_go_durations_are_read_as_go_reads_them(text, length):
    assert parse_duration(text) == length


@pytest.mark.parametrize("text, reason", [
    ("-10m", "is negative"), ("10", 'has no unit: write one, like "10m"'), ("1.5", 'like "1.5m"'),
    ("ten minutes", "is not a duration"), ("", "is not a duration"), ("1d", "is not a duration"),
    ("00", "has no unit"), ("2m1ns", "finer than a microsecond"), ("3000000h", "longer than a Go duration"),
])
def test_what_go_refuses_or_no_setting_needs_is_refused_with_why(text, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        parse_duration(text)


@given(st.integers(min_value=0, max_value=10**7))
def test_a_normalised_duration_matches_every_nodepool_pattern_and_keeps_its_length(seconds):
    text = nodepool_duration(f"{seconds * 1000}ms")  # a form the CRD does not take
    assert all(re.fullmatch(pattern, text) for pattern in PATTERNS.values()), text
    assert parse_duration(text) == timedelta(seconds=seconds)


def test_a_value_the_crd_takes_already_is_written_as_given():
    # A deployed NodePool keeps its value (no diff on the next `pulumi up` for a stack that wrote "90s").
    assert [nodepool_duration(text) for text in ("90s", "30m1h", "Never")] == ["90s", "30m1h", "Never"]


def test_decimal_nodepool_durations_are_written_in_the_crds_form_and_pass_it():
    pool = NodePoolConfig.model_validate({**POOL, "consolidateAfter": "1.5m", "expireAfter": "1000.5h",
                                          "terminationGracePeriod": "0.25h"})
    spec = node_pool_spec(pool, "event", [])
    template = spec["template"]["spec"]
    assert (spec["disruption"]["consolidateAfter"], template["expireAfter"], template["terminationGracePeriod"]) == \
        ("1m30s", "1000h30m", "15m")
    node_pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "prescale-event"},
                 "spec": spec}
    assert validate(node_pool) == []


@pytest.mark.parametrize("key, value, message", [
    ("consolidateAfter", "1.5s", "must be whole seconds: the NodePool CRD takes hours, minutes and seconds only"),
    ("terminationGracePeriod", "250ms", "must be whole seconds"),
    ("expireAfter", "720.0001h", "must be whole seconds"),
])
def test_a_nodepool_duration_the_crd_cannot_take_is_refused(key, value, message):
    found = only_problem(stack([{**POOL, key: value}]))
    assert found.startswith(f"prescale:nodePools[0].{key}: {value!r} {message}"), found


def test_lead_times_stay_whole_minutes_in_any_form():
    found = only_problem(stack([POOL], [{"name": "lunch", "nodePool": "event", "timezone": "UTC", "start": "0 12 * * *",
                                         "end": "0 13 * * *", "nodes": 1, "leadTime": "0.25m"}]))
    assert found.startswith("prescale:eventWindows[0].leadTime: '0.25m' must be whole minutes"), found


def stack(pools: list[dict], windows: list[dict] | None = None) -> dict:
    return {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "corpus"}, "prescale:nodePools": pools,
            "prescale:eventWindows": windows or []}
