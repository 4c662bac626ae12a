"""Strategy ``placeholders`` (the default): each window gets a Deployment of low-priority placeholder pods that a
KEDA ScaledObject scales with two ``cron`` triggers, Karpenter launches nodes for, and real pods preempt; a
KEDA-independent failsafe CronJob sets 0 after the window. The only strategy that serves a NodePool prescale does not
own. Why and when to choose it: docs/strategies.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..config import EventWindow, FeatureGate, NodePoolConfig
from ..fleet.sizing import PlaceholderPlan
from ..schedule.after_end import DRAIN, KEDA_COOLDOWN, failsafe_schedule
from ..schedule.drivers import Edge
from ..schedule.keda import Occurrence, one_off_trigger
from ..schedule.shift import shift_cron
from ..values.duration import format_duration
from .base import NoRulesOfItsOwn


@dataclass(frozen=True)
class PlaceholderPods:
    """KEDA's cron pair for a window, read in its zone (the start moved earlier by the lead time; dated for a
    one-off), and its failsafe's schedule (also in its zone)."""

    trigger_start: str
    trigger_end: str
    failsafe_schedule: str

    driver = None  # KEDA scales it
    converge = None
    prepull = None  # its placeholder pods pull the images
    node_pool_object = None  # on its pool's NodePool
    driven = None


class PlaceholdersStrategy(NoRulesOfItsOwn):
    name: str = "placeholders"
    summary: str = "KEDA-scaled placeholder pods per window that Karpenter launches nodes for"
    gate: FeatureGate | None = None
    gated_objects: str = ""
    on_auto_mode: bool = True
    on_existing_pools: bool = True
    own_node_pools: bool = False
    holds_nodes: bool = False
    keda_scaled: bool = True
    scale_down: Edge | None = None
    counted: str = "pods"
    cost_basis: str | None = None

    def plan(self, window: EventWindow, pool: NodePoolConfig | None, sizing: PlaceholderPlan, grace: timedelta,
             occurrence: Occurrence | None, now: datetime) -> PlaceholderPods:
        start, end = one_off_trigger(occurrence) if occurrence else (shift_cron(window.start, -window.lead), window.end)
        return PlaceholderPods(start, end, failsafe_schedule(window, grace))

    def usual_tail(self, pool: NodePoolConfig) -> timedelta:
        """KEDA's cooldown, then the pool's ``consolidateAfter`` once the nodes are empty, then the drain."""
        return KEDA_COOLDOWN + pool.consolidation_wait + DRAIN

    def latest_tail(self, window: EventWindow, pool: NodePoolConfig, capacity: object | None, grace: timedelta,
                    now: datetime) -> timedelta:
        """The failsafe at the end plus ``failsafeGrace`` when KEDA never scales down, then as usual."""
        return self.usual_tail(pool) - KEDA_COOLDOWN + grace


    def tail_basis(self, grace: str) -> str:
        return (f"Nodes stay after each end for KEDA's cooldown ({format_duration(KEDA_COOLDOWN)}), then the pool's "
                f"consolidateAfter, then about {format_duration(DRAIN)} to drain and terminate them (empty nodes go "
                "all at once; a drain may take up to the pool's terminationGracePeriod). If KEDA never scales the "
                f"placeholders down, the failsafe does at the end + failsafeGrace ({grace}) instead of the cooldown.")


PLACEHOLDERS = PlaceholdersStrategy()
