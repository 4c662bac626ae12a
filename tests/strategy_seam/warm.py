"""A toy fourth strategy, ``warm`` (an ASG-like warm pool: N whole nodes per window), written the way a real one
would be: its model (what a window of it plans, its checks, its tails) and its components (one ConfigMap per
window standing in for its objects). It touches nothing of prescale's but the two registries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import pulumi
import pulumi_kubernetes as k8s
from prescale.capacity.strategies import WindowParts, WindowSite
from prescale.model.config import CapacityConfig, EventWindow, FeatureGate, NodePoolConfig
from prescale.model.fleet.sizing import PlaceholderPlan
from prescale.model.schedule.drivers import Edge
from prescale.model.schedule.keda import Occurrence
from prescale.model.windows import ArmedWindow

NAME = "warm"
TAIL = timedelta(minutes=3)


@dataclass(frozen=True)
class WarmNodes:
    """What a warm window holds: ``nodes`` whole nodes, kept by its ConfigMap-shaped stand-in."""

    config_map_name: str
    nodes: int

    driver = None
    converge = None
    prepull = None
    node_pool_object = None
    driven = None


class WarmStrategy:
    name: str = NAME
    summary: str = "N warm nodes per window"
    gate: FeatureGate | None = None
    gated_objects: str = ""
    on_auto_mode: bool = True
    on_existing_pools: bool = False
    own_node_pools: bool = False
    holds_nodes: bool = True
    keda_scaled: bool = False
    scale_down: Edge | None = None
    counted: str = "warm nodes"
    cost_basis: str | None = "Warm windows: their nodes, from scale-up to the end."

    def plan(self, window: EventWindow, pool: NodePoolConfig | None, sizing: PlaceholderPlan, grace: timedelta,
             occurrence: Occurrence | None, now: datetime) -> WarmNodes:
        assert window.nodes is not None  # window_problems refuses capacity windows
        return WarmNodes(f"warm-{window.name}", window.nodes)

    def pool_key_problem(self, existing: bool, given: set[str]) -> str | None:
        return "a warm pool needs a pool prescale creates; allowed: existing: false" if existing else None

    def window_problems(self, path: str, window: EventWindow, pool: NodePoolConfig,
                        config: CapacityConfig) -> list[str]:
        return [f"{path}.capacity: a warm pool holds whole nodes; allowed: nodes"] if window.capacity else []

    def pool_problems(self, path: str, pool: NodePoolConfig, config: CapacityConfig, has_windows: bool,
                      sized: bool) -> list[str]:
        return []

    def usual_tail(self, pool: NodePoolConfig) -> timedelta:
        return TAIL

    def latest_tail(self, window: EventWindow, pool: NodePoolConfig, capacity: object | None, grace: timedelta,
                    now: datetime) -> timedelta:
        return TAIL + grace

    def tail_basis(self, grace: str) -> str:
        return f"Warm nodes go {TAIL} after the end."


WARM = WarmStrategy()


def deploy(armed: ArmedWindow, site: WindowSite) -> WindowParts:
    """The warm window's stand-in object: a ConfigMap with its count, in namespace prescale."""
    capacity = armed.capacity
    assert isinstance(capacity, WarmNodes)
    component = pulumi.ComponentResource("test:index:WarmWindow", armed.window.name, {}, site.added)
    k8s.core.v1.ConfigMap(f"{armed.window.name}-warm", metadata={"name": capacity.config_map_name,
                                                                   "namespace": site.namespace},
                          data={"nodes": str(capacity.nodes)},
                          opts=pulumi.ResourceOptions(parent=component, provider=site.platform.kubernetes_provider))
    return WindowParts(native=component)
