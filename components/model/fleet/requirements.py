"""A node pool's requirements: the list its NodePool gets, each with the config key it comes from.

A pool narrows what Karpenter may launch with the shorthands ``capacityTypes``, ``instanceCategories`` and
``architectures`` and with ``requirements`` in Karpenter's own shape (``key``, ``operator``, ``values``,
``minValues``; the keys :mod:`prescale.model.values.labels` allows). A shorthand holds unless its key is written as a
requirement (writing both is refused by :mod:`prescale.model.checks.pools`). Pure: no Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic.alias_generators import to_camel

from ..config import NodePoolConfig, RequirementOperator
from ..values.labels import ARCH, CAPACITY_TYPE, KARPENTER_DOMAIN, OS, table_key


@dataclass(frozen=True)
class PoolRequirement:
    """One requirement of a pool's NodePool, and the config key it comes from (``instanceCategories``,
    ``requirements[2]``...; ``None`` for prescale's own ``kubernetes.io/os``)."""

    source: str | None
    key: str
    operator: RequirementOperator
    values: tuple[str, ...] = ()
    min_values: int | None = None

    @property
    def shorthand(self) -> bool:
        return self.source is not None and not self.source.startswith("requirements[")

    def describe(self) -> str:
        """How the requirement reads in a message: ``instanceCategories ['c']`` or ``requirements[0] (… Gt 3)``."""
        if self.shorthand:
            return f"{self.source} {list(self.values)!r}"
        values = f" {', '.join(self.values)}" if self.values else ""
        more = f", minValues {self.min_values}" if self.min_values is not None else ""
        return f"{self.source or 'prescale'} ({self.key} {self.operator}{values}{more})"

    def allows(self, value: str | None) -> bool:
        """Whether a node whose label ``key`` is ``value`` (``None``: no such label) meets this requirement, with
        Kubernetes' node-selector operators (Gt and Lt compare integers)."""
        if self.operator == "In":
            return value in self.values
        if self.operator == "NotIn":
            return value not in self.values
        if self.operator == "Exists":
            return value is not None
        if self.operator == "DoesNotExist":
            return value is None
        if value is None or not value.isdigit():
            return False
        return int(value) > int(self.values[0]) if self.operator == "Gt" else int(value) < int(self.values[0])


SHORTHANDS = {"capacity_types": CAPACITY_TYPE, "instance_categories": f"{KARPENTER_DOMAIN}/instance-category",
              "architectures": ARCH}  # NodePoolConfig field → the key it renders (category: in the mode's domain)
WRITTEN_AS = {field: to_camel(field) for field in SHORTHANDS}  # each shorthand as the stack file spells it


def shorthand_field(key: str) -> str | None:
    """The shorthand field of NodePoolConfig that writes requirement ``key`` (in either label domain), if any."""
    return next((field for field, rendered in SHORTHANDS.items() if rendered == table_key(key)), None)


def pool_requirements(pool: NodePoolConfig, label_domain: str = KARPENTER_DOMAIN,
                      linux: bool = True) -> tuple[PoolRequirement, ...]:
    """Every requirement of the pool's NodePool: the shorthands whose key the pool does not write itself (the
    category in ``label_domain``), then ``kubernetes.io/os In [linux]`` if ``linux`` and not written, then the
    pool's own ``requirements`` in order."""
    written = {table_key(requirement.key) for requirement in pool.requirements}
    chosen = [PoolRequirement(WRITTEN_AS[field], key.replace(KARPENTER_DOMAIN, label_domain), "In",
                              tuple(getattr(pool, field)))
              for field, key in SHORTHANDS.items() if key not in written]
    if linux and OS not in written:
        chosen.append(PoolRequirement(None, OS, "In", ("linux",)))
    chosen += [PoolRequirement(f"requirements[{index}]", requirement.key, requirement.operator,
                               tuple(requirement.values), requirement.min_values)
               for index, requirement in enumerate(pool.requirements)]
    return tuple(chosen)

