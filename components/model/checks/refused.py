"""What failed validation on its own, so that the rules across keys still run on everything else.

:func:`prescale.model.validation.load_stack_config` validates each top-level key (and each list entry) alone,
then runs the cross-key rules (:mod:`prescale.model.checks.stack`, :mod:`prescale.model.checks.limits`) on a
config of the parts that validated, so that one run reports every problem. A refused part is also validated again
without its refused keys (:class:`Partial`): a rule that reads none of those still runs on it (``needs``), so a
refused ``consolidateAfter`` hides no problem of the same pool's requirements. A rule that needs a refused value is
skipped: its problem is reported already, and guessing a value for it would report problems that are not there.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import count
from typing import Any, TypeVar

from pydantic import BaseModel

_Entry = TypeVar("_Entry")
_Config = TypeVar("_Config", bound=BaseModel)


@dataclass(frozen=True)
class Partial:
    """A refused section or list entry validated without its refused keys (their defaults in their place)."""

    value: Any
    refused: frozenset[str]  # the fields left out (snake_case names)

    def serves(self, needs: Collection[str]) -> bool:
        """Whether a rule that reads only the fields ``needs`` can run on it."""
        return not self.refused.intersection(needs)


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
    # What refused parts still are without their refused keys: by (field, list index), the index None for a section.
    partial: Mapping[tuple[str, int | None], Partial] = field(default_factory=dict)

    def entries(self, field: str, items: Iterable[_Entry],
                needs: Collection[str] | None = None) -> Iterator[tuple[int, _Entry]]:
        """``items`` (the entries of list ``field`` that validated) with their indices in the stack config; with
        ``needs``, in index order among them the refused entries that still serve a rule reading only those
        fields."""
        left_out = getattr(self, field)
        valid = zip((index for index in count() if index not in left_out), items, strict=False)  # count() is endless
        if needs is None:
            return valid
        served = [(index, partial.value) for (name, index), partial in self.partial.items()
                  if name == field and index is not None and partial.serves(needs)]
        return iter(sorted([*valid, *served], key=lambda entry: entry[0]))

    def view(self, config: _Config, **needs: Collection[str]) -> _Config | None:
        """``config`` as a rule reading only these fields of these sections (``cluster={"create"}``) can see it:
        a refused section in it as far as it still serves the rule; None if one of them cannot."""
        update = {}
        for section, fields in needs.items():
            if section not in self.sections:
                continue
            partial = self.partial.get((section, None))
            if partial is None or not partial.serves(fields):
                return None
            update[section] = partial.value
        return config.model_copy(update=update) if update else config

    def fields(self, section: str, model: type[BaseModel]) -> frozenset[str]:
        """The fields of ``section`` (a ``model``) that were refused: none, the ones its :class:`Partial` left out,
        or all of them."""
        if section not in self.sections:
            return frozenset()
        partial = self.partial.get((section, None))
        return partial.refused if partial is not None else frozenset(model.model_fields)

    def pool(self, name: str) -> bool:
        """Whether node pool ``name`` may be one that was refused (so nothing about it is known)."""
        return name in self.pool_names or None in self.pool_names or "node_pools" in self.sections


NOTHING_REFUSED = Refused()  # the default of every check: a config that validated whole
