"""Everything a run deploys and shows, decided once: :func:`plan_capacity` → :class:`CapacityPlan`.

Pure (no Pulumi, no logging). The capacity components render the plan and ``prescale plan`` / ``prescale
schedule`` read the same object, so a window's triggers, sizes and failsafe, a pool's fitted budgets and every
warning are computed in one place. Warnings are returned, never printed: the program hands them to
``pulumi.log.warn``, the CLI to its report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from .budgets import MAX_BUDGETS, STANDING_BUDGETS, FittedFreezes, fit_freezes
from .config import CapacityConfig, NodePoolConfig
from .reservations import ReservationPlan
from .schedule import BudgetSchedule
from .windows import ArmedWindow, IdleWindow, WindowPlan, plan_windows, requested_freezes


@dataclass(frozen=True)
class PoolPlan:
    """One node pool's consolidation freezes: what its armed windows ask for, and what fits in a NodePool."""

    pool: NodePoolConfig
    requested: tuple[BudgetSchedule, ...]  # one per armed window on the pool (none on a pool prescale does not own)
    fitted: FittedFreezes

    @property
    def freezes(self) -> list[BudgetSchedule]:
        """The ``nodes: "0"`` budgets the NodePool gets, beside its standing ones."""
        return self.fitted.freezes

    @property
    def warnings(self) -> tuple[str, ...]:
        if not self.fitted.merged:
            return ()
        return (f"node pool {self.pool.name!r}: its windows need {self.fitted.requested} consolidation freezes but "
                f"a NodePool holds {MAX_BUDGETS} budgets ({len(STANDING_BUDGETS)} of them standing); they were merged into {len(self.fitted.freezes)} covering ones, so "
                "consolidation stays frozen longer than the windows (no window loses its freeze). Spread windows "
                "over more node pools to avoid this.",)


@dataclass(frozen=True)
class CapacityPlan:
    """What the capacity wing deploys at ``now``, and why anything is left out."""

    config: CapacityConfig
    now: datetime
    windows: tuple[WindowPlan, ...]  # every configured window, in config order
    pools: Mapping[str, PoolPlan]  # every configured pool, by name

    @property
    def armed(self) -> tuple[ArmedWindow, ...]:
        return tuple(plan for plan in self.windows if isinstance(plan, ArmedWindow))

    @property
    def idle(self) -> tuple[IdleWindow, ...]:
        return tuple(plan for plan in self.windows if isinstance(plan, IdleWindow))

    @property
    def reservations(self) -> tuple[ReservationPlan, ...]:
        """The capacity reservations of every one-off window that has not ended, held by this run or not yet."""
        return tuple(plan.reservation for plan in self.windows if plan.reservation is not None)

    def window(self, name: str) -> WindowPlan:
        return next(plan for plan in self.windows if plan.window.name == name)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every warning, windows first (in config order), then pools: what ``pulumi up`` and ``prescale
        schedule`` both say."""
        return (*(warning for plan in self.windows for warning in plan.warnings),
                *(warning for pool in self.pools.values() for warning in pool.warnings))


def plan_capacity(config: CapacityConfig, now: datetime) -> CapacityPlan:
    """Plan every window and pool of a validated ``config`` at ``now`` (an aware datetime)."""
    windows = tuple(plan_windows(config, now))
    asked = requested_freezes(list(windows))
    pools = {pool.name: PoolPlan(pool, tuple(asked.get(pool.name, ())), fit_freezes(asked.get(pool.name, ())))
             for pool in config.node_pools}
    return CapacityPlan(config, now, windows, pools)
