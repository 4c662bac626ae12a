"""Strategy ``buffer``: each window gets a ``CapacityBuffer`` (``autoscaling.x-k8s.io/v1beta1``, gate
CapacityBuffer) and the ``PodTemplate`` it refers to, with the window's placeholder pod shape.

Karpenter provisions for N virtual pods on the pool's own NodePool from scale-up to the event's start, where the
driver (:mod:`.driven`) sets the buffer back to 0 (it would refill as real pods take its room) and the window's
freeze keeps the nodes. EKS Auto Mode's Karpenter has no CapacityBuffer. Why and when to choose it:
docs/strategies.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..config import EventWindow, FeatureGate, NodePoolConfig
from ..fleet.sizing import PlaceholderPlan
from ..schedule.after_end import DRAIN
from ..schedule.drivers import ConvergeRun, DriverSchedule, Edge
from ..schedule.keda import Occurrence
from ..values.duration import format_duration
from ..values.labels import POOL_LABEL
from .base import DrivenKind, NoRulesOfItsOwn, Prepull, window_object_name
from .driven import existing_pool_refusal, plan_driven


@dataclass(frozen=True)
class BufferedCapacity:
    """A window's CapacityBuffer, referring to its PodTemplate (the window's placeholder pod shape)."""

    buffer_name: str
    pod_template_name: str
    pods: int  # spec.replicas at scale-up: the window's placeholders, as virtual pods
    driver: DriverSchedule
    created_replicas: int  # spec.replicas a `pulumi up` at the plan's `now` creates it with (then ignored)
    converge: ConvergeRun | None = None  # the Job that sets the count at the plan's `now`, away from the edges
    prepull: Prepull | None = None

    node_pool_object = None  # its nodes are its pool's NodePool's

    @property
    def driven(self) -> tuple[DrivenKind, str]:
        return "CapacityBuffer", self.buffer_name


class BufferStrategy(NoRulesOfItsOwn):
    name: str = "buffer"
    summary: str = "a CapacityBuffer of N virtual pods per window on its pool's NodePool, set by a driver"
    gate: FeatureGate | None = "CapacityBuffer"
    gated_objects: str = "CapacityBuffers"
    on_auto_mode: bool = False  # AWS's Karpenter there has no CapacityBuffer
    on_existing_pools: bool = False
    own_node_pools: bool = False
    holds_nodes: bool = False
    keda_scaled: bool = False
    scale_down: Edge | None = "start"
    counted: str = "virtual pods"
    cost_basis: str | None = (
        "Buffer windows: the buffer's virtual pods packed as placeholders are, from the scale-up run; the window's "
        "freeze keeps the nodes from the event's start, where the buffer goes to 0, to its end.")

    def plan(self, window: EventWindow, pool: NodePoolConfig | None, sizing: PlaceholderPlan, grace: timedelta,
             occurrence: Occurrence | None, now: datetime) -> BufferedCapacity:
        assert pool is not None
        driven = plan_driven(window, sizing.pods, "start", grace, now, (POOL_LABEL, pool.name))
        name = window_object_name(window.name)
        return BufferedCapacity(name, name, sizing.pods, driven.driver, driven.created_replicas, driven.converge,
                                driven.prepull)

    def pool_key_problem(self, existing: bool, given: set[str]) -> str | None:
        return existing_pool_refusal(self.name) if existing else None

    def usual_tail(self, pool: NodePoolConfig) -> timedelta:
        """``consolidateAfter`` and the drain once the freeze ends, as placeholder nodes without KEDA (its driver
        acted at the event's start)."""
        return pool.consolidation_wait + DRAIN

    def latest_tail(self, window: EventWindow, pool: NodePoolConfig, capacity: object | None, grace: timedelta,
                    now: datetime) -> timedelta:
        """As usual: the buffer went to 0 at the start, and the freeze, not the driver, keeps the nodes to the end."""
        return self.usual_tail(pool)

    def tail_basis(self, grace: str) -> str:
        return ("A buffer's nodes stay frozen to the end (the buffer went to 0 at the event's start), then the pool's "
                f"consolidateAfter and about {format_duration(DRAIN)} to drain: as placeholder nodes, without KEDA's "
                "cooldown; nothing of prescale's scales down at the end, so nothing can be late.")


BUFFER = BufferStrategy()
