"""The strategies: how a pool's windows get their nodes (``nodePools[].strategy``), one module each, and the
registry that names them.

Everything that differs between strategies is asked of a window's :class:`~.base.Strategy` (what a window of it
plans, its checks, how long its nodes stay after the end, its driver's edge, what it counts); outside this package no
code compares a strategy's name. A new strategy is a module here and a line in :data:`STRATEGIES` (its components
register in :mod:`prescale.capacity.strategies`). Why each exists and when to choose it: docs/strategies.md.
"""

from __future__ import annotations

from ..config import CapacityConfig, FeatureGate, NodePoolConfig
from .base import Capacity, Strategy
from .buffer import BUFFER
from .placeholders import PLACEHOLDERS
from .static import STATIC

# By name, in the order the docs and the JSON Schema list them.
STRATEGIES: dict[str, Strategy] = {strategy.name: strategy for strategy in (PLACEHOLDERS, STATIC, BUFFER)}
# A pool's strategy when it names none; reports name a window's strategy only when some pool has another.
DEFAULT: Strategy = PLACEHOLDERS


def register(strategy: Strategy) -> None:
    """Add ``strategy`` to the registry (a program's own, or a test's): config then accepts its name."""
    STRATEGIES[strategy.name] = strategy


def strategy_of(pool: NodePoolConfig) -> Strategy:
    """``pool``'s strategy (validation refused any name not registered)."""
    return STRATEGIES[pool.strategy]


def feature_gates(config: CapacityConfig) -> tuple[FeatureGate, ...]:
    """The Karpenter feature gates the pools' strategies need on a self-managed Karpenter (Auto Mode runs its own),
    in registry order."""
    used = {pool.strategy for pool in config.node_pools}
    return tuple(dict.fromkeys(strategy.gate for name, strategy in STRATEGIES.items()
                               if name in used and strategy.gate is not None))


__all__ = ["DEFAULT", "STRATEGIES", "Capacity", "Strategy", "feature_gates", "register", "strategy_of"]
