"""What every strategy answers: the small protocol the plan, the checks, the components and the CLI ask a window's
strategy through, so that none of them compares a strategy's name (docs/strategies.md says why each exists).

A *strategy* is how a pool's windows get their nodes (``nodePools[].strategy``). Each one lives in its own module of
this package and registers itself in :mod:`prescale.model.strategies`; what it plans for a window is its
*capacity* (:class:`Capacity`), carried by the plan's :class:`prescale.model.windows.ArmedWindow`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from ..config import CapacityConfig, EventWindow, FeatureGate, NodePoolConfig
    from ..fleet.sizing import PlaceholderPlan
    from ..schedule.drivers import ConvergeRun, DriverSchedule, Edge
    from ..schedule.keda import Occurrence

DrivenKind = Literal["NodePool", "CapacityBuffer"]  # the kinds a driver's CronJobs set the count of


def window_object_name(window_name: str) -> str:
    """A window's own objects in namespace prescale: its placeholder Deployment and ScaledObject, or its
    CapacityBuffer and PodTemplate (one name per window, whatever its strategy)."""
    return f"prescale-{window_name}"


@dataclass(frozen=True)
class Prepull:
    """A DaemonSet on the nodes labelled ``node_label`` whose init containers pull ``images`` as placeholders do
    (for strategies without placeholder pods of their own to pull them)."""

    name: str
    node_label: tuple[str, str]  # (key, value)
    images: tuple[str, ...]


class Capacity(Protocol):
    """What a window's strategy deploys for it, as the plan carries it."""

    @property
    def driver(self) -> DriverSchedule | None:
        """The CronJobs that set the count (``None``: KEDA scales it)."""

    @property
    def converge(self) -> ConvergeRun | None:
        """The Job a `pulumi up` registers to set the count at once."""

    @property
    def prepull(self) -> Prepull | None:
        """What pulls the window's ``prepullImages`` onto its nodes, when its own pods do not."""

    @property
    def node_pool_object(self) -> str | None:
        """The window's own NodePool (its nodes and its freeze are there); ``None``: its pool's NodePool."""

    @property
    def driven(self) -> tuple[DrivenKind, str] | None:
        """The kind and name of the object its driver sets; ``None`` without a driver."""


class Strategy(Protocol):
    """One way of getting a window's nodes, and everything about it that differs from the others."""

    name: str  # as nodePools[].strategy spells it
    summary: str  # what a window of it holds, for the docs and `prescale schedule`
    gate: FeatureGate | None  # the Karpenter feature gate its objects need (None: they need none)
    gated_objects: str  # what Karpenter ignores with its gate off, for the refusal that names the gate
    on_auto_mode: bool  # whether EKS Auto Mode's Karpenter runs it
    on_existing_pools: bool  # whether it serves a NodePool prescale does not own
    own_node_pools: bool  # each window gets its own NodePool (none for the pool; freezes unfitted; no drift to hold)
    holds_nodes: bool  # a window's count is whole nodes of its pool's nodeSize, not pod requests
    keda_scaled: bool  # its windows run placeholder pods that KEDA's ScaledObject scales (and a failsafe)
    scale_down: Edge | None  # where its driver sets 0 (None: no driver)
    counted: str  # what a window's count counts, in words ("pods", "nodes", "virtual pods")
    cost_basis: str | None  # how the cost estimate counts its windows' nodes, where that differs from placeholders'

    def plan(self, window: EventWindow, pool: NodePoolConfig | None, sizing: PlaceholderPlan, grace: timedelta,
             occurrence: Occurrence | None, now: datetime) -> Capacity:
        """What ``window`` (valid) on ``pool`` deploys at ``now``: ``sizing`` its pods' shape, ``grace`` the
        failsafe grace (placeholders.failsafeGrace), ``occurrence`` a one-off's only one. ``pool`` is ``None`` only
        for a window planned on its own (:func:`prescale.model.windows.plan_window`), which holds placeholders."""

    def pool_key_problem(self, existing: bool, given: set[str]) -> str | None:
        """Why a pool of this strategy cannot take the keys ``given`` (camelCase), or be ``existing``."""

    def window_problems(self, path: str, window: EventWindow, pool: NodePoolConfig,
                        config: CapacityConfig) -> list[str]:
        """What a window on a pool of this strategy cannot ask for (``path``: its prescale:eventWindows[i])."""

    def pool_problems(self, path: str, pool: NodePoolConfig, config: CapacityConfig, has_windows: bool,
                      sized: bool) -> list[str]:
        """What a pool of this strategy cannot be (``sized``: its placeholder sizes are valid)."""

    def usual_tail(self, pool: NodePoolConfig) -> timedelta:
        """How long a window's nodes stay after its end when its scale-down happens on time."""

    def latest_tail(self, window: EventWindow, pool: NodePoolConfig, capacity: Capacity | None, grace: timedelta,
                    now: datetime) -> timedelta:
        """How long they stay when the scale-down is as late as it can be (``capacity`` ``None``: not armed)."""

    def tail_basis(self, grace: str) -> str:
        """Why its windows' nodes stay that long after the end, usually and at the latest (``grace``: the stack's
        failsafeGrace)."""


class NoRulesOfItsOwn:
    """The rule methods of :class:`Strategy` for a strategy whose pools and windows take every key the config model
    allows: it refuses nothing of its own."""

    def pool_key_problem(self, existing: bool, given: set[str]) -> str | None:
        return None

    def window_problems(self, path: str, window: EventWindow, pool: NodePoolConfig,
                        config: CapacityConfig) -> list[str]:
        return []

    def pool_problems(self, path: str, pool: NodePoolConfig, config: CapacityConfig, has_windows: bool,
                      sized: bool) -> list[str]:
        return []
