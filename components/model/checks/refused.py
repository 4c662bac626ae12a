"""What failed validation on its own, so that the rules across keys still run on everything else.

:func:`prescale.model.validation.load_stack_config` validates each top-level key (and each list entry) alone,
then runs the cross-key rules (:mod:`prescale.model.checks.stack`, :mod:`prescale.model.checks.limits`) on a
config of the parts that validated, so that one run reports every problem. A rule that needs a refused part is
skipped: its problem is reported already, and guessing a value for it would report problems that are not there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import count
from typing import TypeVar

_Entry = TypeVar("_Entry")


@dataclass(frozen=True)
class Refused:
    """The parts of a stack config that failed validation on their own (and are reported already).

    The config the rules get holds every other part; a refused section keeps its default there, and a refused
    list entry is left out, so the rules skip what needs it and :meth:`entries` restores the entries' indices.
    """

    sections: frozenset[str] = frozenset()  # config fields (``keda``, ``node_pools``...) refused or missing
    node_pools: frozenset[int] = frozenset()  # indices of refused ``nodePools`` entries
    event_windows: frozenset[int] = frozenset()  # indices of refused ``eventWindows`` entries
    # The names of refused ``nodePools`` entries; None: one whose name is refused too (any window may mean it).
    pool_names: frozenset[str | None] = frozenset()

    def entries(self, field: str, items: Iterable[_Entry]) -> Iterator[tuple[int, _Entry]]:
        """``items`` (the entries of list ``field`` that validated) with their indices in the stack config."""
        left_out = getattr(self, field)
        return zip((index for index in count() if index not in left_out), items, strict=False)  # count() is endless

    def pool(self, name: str) -> bool:
        """Whether node pool ``name`` may be one that was refused (so nothing about it is known)."""
        return name in self.pool_names or None in self.pool_names or "node_pools" in self.sections


NOTHING_REFUSED = Refused()  # the default of every check: a config that validated whole
