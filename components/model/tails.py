"""How long a window's nodes outlive its end: KEDA's cooldown, then the pool's ``consolidateAfter``, then the drain.

``prescale schedule`` shows what this tail costs (``prescale_cli.cost.window_tails``), and a window's capacity
reservations last until its end plus this tail (:mod:`prescale.model.reservations`). Pure: no Pulumi.
"""

from __future__ import annotations

from datetime import timedelta

from .config import NodePoolConfig
from .duration import parse_duration
from .keda_timing import COOLDOWN_SECONDS

KEDA_COOLDOWN = timedelta(seconds=COOLDOWN_SECONDS)  # the placeholders outlive the end by this much
DRAIN = timedelta(minutes=1)  # an emptied node's drain and termination: nothing to evict (an assumption)


def usual_tail(pool: NodePoolConfig) -> timedelta:
    """How long the nodes of a window on ``pool`` stay after its end when KEDA scales the placeholders down."""
    return KEDA_COOLDOWN + parse_duration(pool.consolidate_after) + DRAIN
