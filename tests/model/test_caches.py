"""The model's function caches stay bounded in a long-lived process that re-plans with a moving ``now``.

A controller, a notebook or a CI runner may call ``plan_capacity`` every minute for days; caches keyed by ``now``
(a window's year of occurrences, its consolidation freeze) would otherwise keep one entry per run.
"""

import importlib
import inspect
import pkgutil
from datetime import timedelta

import prescale.model
from prescale.model.plan import plan_capacity

from tests.support.capacity import NOW, pool, stack_config, window


def _caches() -> dict[str, object]:
    """Every ``functools`` cache of a function in ``prescale.model``, by its qualified name."""
    found = {}
    for info in pkgutil.walk_packages(prescale.model.__path__, "prescale.model."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if hasattr(value, "cache_info") and getattr(value, "__module__", None) == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def _entries(caches: dict[str, object]) -> int:
    return sum(cache.cache_info().currsize for cache in caches.values())


def test_every_cache_that_takes_arguments_has_a_bound():
    caches = _caches()
    assert len(caches) >= 15  # the walk finds them (a renamed package would otherwise pass this vacuously)
    unbounded = [name for name, cache in caches.items()
                 if cache.cache_info().maxsize is None and inspect.signature(cache).parameters]
    assert unbounded == []


def test_re_planning_every_minute_for_a_week_keeps_the_caches_bounded():
    # A yearly window: the caches keyed by `now` are asked as for a daily one, for a fraction of the year's walk.
    config = stack_config([pool("event")],
                          [window("yearly", "0 9 15 6 *", "0 17 15 6 *", timezone="Europe/Berlin", leadTime="15m",
                                  nodes=2),
                           window("sale", "2027-05-05T10:00", "2027-05-05T18:00", nodes=3)])
    caches = _caches()
    for minute in range(2_000):
        plan_capacity(config, NOW + timedelta(minutes=minute))
    settled = _entries(caches)
    for minute in range(2_000, 10_000):
        plan_capacity(config, NOW + timedelta(minutes=minute))
    # A cache keyed by `now` that never empties gains an entry per run: 8,000 more here. Bounded caches have
    # filled by now; caches keyed by day or month gain a few for the days the moving year reaches.
    assert _entries(caches) - settled < 500
