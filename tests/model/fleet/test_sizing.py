"""Placeholder sizing: `nodes:` → N node-sized pods; `capacity:` → the fewest pods ≤ maxPodSize that add up."""

import math
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from prescale.model.config import CapacityRequest, EventWindow, PlaceholderConfig
from prescale.model.fleet.sizing import PlaceholderPlan, plan_placeholders
from prescale.model.values.quantity import parse_quantity

DEFAULTS = PlaceholderConfig()


def capacity_window(cpu: str, memory: str) -> EventWindow:
    return EventWindow(name="w", node_pool="event", timezone="UTC", start="0 9 * * *", end="0 17 * * *",
                       capacity=CapacityRequest(cpu=cpu, memory=memory))


def test_nodes_window_is_one_node_sized_pod_per_node():
    window = EventWindow(name="w", node_pool="event", timezone="UTC", start="0 9 * * *", end="0 17 * * *", nodes=5)
    assert plan_placeholders(window, DEFAULTS) == PlaceholderPlan(pods=5, cpu="1", memory="2Gi", one_per_node=True)


def test_capacity_is_split_into_equal_pods_no_bigger_than_the_maximum():
    # The dev stack's launch: 64 CPU / 256 GiB with the default 4 CPU / 16 GiB maximum → 16 full-size pods.
    assert plan_placeholders(capacity_window("64", "256Gi"), DEFAULTS) == \
        PlaceholderPlan(pods=16, cpu="4", memory="16Gi", one_per_node=False)


def test_the_scarcer_dimension_decides_the_pod_count_and_requests_round_up():
    # Memory needs 3 pods (40Gi / 16Gi); CPU is then split 3 ways and rounded up to a millicore.
    plan = plan_placeholders(capacity_window("10", "40Gi"), DEFAULTS)
    assert plan == PlaceholderPlan(pods=3, cpu="3334m", memory="13654Mi", one_per_node=False)


def test_a_small_capacity_is_one_pod_of_exactly_that_size():
    assert plan_placeholders(capacity_window("500m", "512Mi"), DEFAULTS) == \
        PlaceholderPlan(pods=1, cpu="500m", memory="512Mi", one_per_node=False)


def test_a_maximum_that_is_not_whole_mib_is_never_exceeded_after_rounding():
    placeholders = PlaceholderConfig(max_pod_size=CapacityRequest(cpu="4", memory="16G"))  # 16e9 bytes ≈ 15258.8 MiB
    plan = plan_placeholders(capacity_window("4", "16G"), placeholders)
    assert parse_quantity(plan.memory) <= parse_quantity("16G")
    assert plan.pods * parse_quantity(plan.memory) >= parse_quantity("16G")


CPU = st.integers(1, 512_000).map(lambda milli: f"{milli}m")
MEMORY = st.integers(1, 4 * 1024 * 1024).map(lambda mib: f"{mib}Mi")
MAX_CPU = st.sampled_from(["250m", "1", "1500m", "4", "16"])
MAX_MEMORY = st.sampled_from(["256Mi", "1Gi", "8G", "16Gi", "64Gi"])


@settings(max_examples=200, deadline=None)
@given(CPU, MEMORY, MAX_CPU, MAX_MEMORY)
def test_requests_cover_the_capacity_within_the_pod_maximum_with_the_fewest_pods(cpu, memory, max_cpu, max_memory):
    placeholders = PlaceholderConfig(max_pod_size=CapacityRequest(cpu=max_cpu, memory=max_memory))
    plan = plan_placeholders(capacity_window(cpu, memory), placeholders)
    pod_cpu, pod_memory = parse_quantity(plan.cpu), parse_quantity(plan.memory)
    assert pod_cpu <= parse_quantity(max_cpu) and pod_memory <= parse_quantity(max_memory)
    assert plan.pods * pod_cpu >= parse_quantity(cpu) and plan.pods * pod_memory >= parse_quantity(memory)
    # Over-reservation is only the rounding: under a millicore and a MiB per pod.
    assert plan.pods * pod_cpu - parse_quantity(cpu) < plan.pods * Decimal("0.001")
    assert plan.pods * pod_memory - parse_quantity(memory) < plan.pods * 2**20
    # With one pod fewer, some pod would exceed the maximum (both counted in whole millicores and MiB).
    if plan.pods > 1:
        fewer = plan.pods - 1
        milli, mib = parse_quantity(cpu) * 1000, parse_quantity(memory) / 2**20
        assert math.ceil(milli / fewer) > math.floor(parse_quantity(max_cpu) * 1000) or \
            math.ceil(mib / fewer) > math.floor(parse_quantity(max_memory) / 2**20)
