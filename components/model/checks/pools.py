"""Node pools that could never launch what they say: refused with the key, its value and what is allowed.

What is refused, and why: docs/capacity.md#requirements; how: docs/internals.md#prescalemodelcheckspools.
"""

from __future__ import annotations

import difflib

from pydantic.alias_generators import to_camel

from ..config import CONFIG_NAMESPACE, CapacityConfig, NodePoolConfig
from ..fleet.instances import InstanceType, instance_types, launchable, narrows
from ..fleet.requirements import PoolRequirement, pool_requirements, shorthand_field
from ..values.labels import CAPACITY_TYPE, CAPACITY_TYPES, mode_key_problem, table_key
from .refused import NOTHING_REFUSED, Refused

MAX_REQUIREMENTS = 100  # requirements and template labels of one NodePool
# The fields the rules here read: they still run on a refused pool that has them (Refused.entries).
POOL_SHAPE = {"name", "existing", "requirements", "capacity_types", "instance_categories", "architectures",
              "node_class_name", "capacity_reservation_selector_terms"}
_TEMPLATE_LABELS = 1  # prescale.io/node-pool
_SHOWN_VALUES = 12


def pool_problems(config: CapacityConfig, refused: Refused = NOTHING_REFUSED,
                  auto_mode: bool | None = None) -> list[str]:
    """Every problem of the pools prescale creates (``refused``: the entries left out of ``config``); ``auto_mode``
    None: the mode is not known here."""
    problems = []
    # Pools a window reserves on (a refused window may be one of them: then none is known not to be).
    reserving = {window.node_pool for window in config.event_windows if window.reserve is not None}
    windows_unknown = bool(refused.event_windows) or "event_windows" in refused.sections
    for index, pool in refused.entries("node_pools", config.node_pools, needs=POOL_SHAPE):
        if pool.owned:
            path = f"{CONFIG_NAMESPACE}:nodePools[{index}]"
            found = (_written_twice(path, pool) + _mode_problems(path, pool, auto_mode)
                     + _reservation_problems(path, pool, windows_unknown or pool.name in reserving)
                     + _count_problems(path, pool, auto_mode))
            problems += found or _launch_problems(path, pool)
    return problems


def _written_twice(path: str, pool: NodePoolConfig) -> list[str]:
    problems = []
    for index, requirement in enumerate(pool.requirements):
        field = shorthand_field(requirement.key)
        if field in pool.model_fields_set:
            problems.append(f"{path}.requirements[{index}].key: {requirement.key!r} is also given as "
                            f"{to_camel(field)} {getattr(pool, field)!r}, which is an In requirement on the same key; "
                            f"allowed: one of the two")
    return problems


def _mode_problems(path: str, pool: NodePoolConfig, auto_mode: bool | None) -> list[str]:
    if auto_mode is None:
        return []
    return [f"{path}.requirements[{index}].key: {requirement.key!r} {problem}"
            for index, requirement in enumerate(pool.requirements)
            if (problem := mode_key_problem(requirement.key, auto_mode))]


def _reservation_problems(path: str, pool: NodePoolConfig, reserving: bool) -> list[str]:
    """Reservations selected that the pool never launches into (its capacity types leave out ``reserved``), or
    ``reserved`` asked for (an In requirement listing it) with no reservation selected by prescale's node class, now
    or by a window's ``reserve`` (``reserving``)."""
    terms = pool.capacity_reservation_selector_terms
    refusing = next((r for r in pool_requirements(pool) if r.key == CAPACITY_TYPE and not r.allows("reserved")), None)
    if terms and refusing is not None:
        shown = [term.model_dump(by_alias=True, exclude_none=True) for term in terms]
        return [f"{path}.capacityReservationSelectorTerms: {shown!r} select reservations that node pool {pool.name!r} "
                f"never launches into: its {refusing.describe()} leaves out reserved, and Karpenter launches into a "
                "capacity reservation only for a NodePool whose karpenter.sh/capacity-type allows reserved; allowed: "
                "add reserved (e.g. capacityTypes [on-demand, reserved]: the reservations first, on-demand beyond "
                "them), or no capacityReservationSelectorTerms"]
    if pool.node_class_name is not None or terms or reserving:
        return []  # an existing node class may select reservations itself
    return [f"{path}.{requirement.source}{'' if requirement.shorthand else '.values'}: {list(requirement.values)!r} "
            f"asks for reserved capacity, but node pool {pool.name!r} has no capacityReservationSelectorTerms, so its "
            "EC2NodeClass selects no reservation and Karpenter never launches reserved capacity (it does not use "
            "open On-Demand Capacity Reservations unselected); allowed: capacityReservationSelectorTerms (an id, or "
            "tags with an optional ownerID) beside it, a one-off window on the pool with reserve, or only "
            "on-demand and spot"
            for requirement in pool_requirements(pool)
            if requirement.key == CAPACITY_TYPE and requirement.operator == "In" and "reserved" in requirement.values
    ] + _only_reserved_left(path, pool)


def _only_reserved_left(path: str, pool: NodePoolConfig) -> list[str]:
    """A NotIn requirement that leaves the pool only reserved capacity, with no reservation selected: the pool would
    launch nothing (the rule above reads In requirements, which name reserved themselves)."""
    types = [requirement for requirement in pool_requirements(pool) if requirement.key == CAPACITY_TYPE]
    left = {value for value in CAPACITY_TYPES if all(requirement.allows(value) for requirement in types)}
    excluding = [requirement for requirement in types if requirement.operator == "NotIn"]
    if left != {"reserved"} or not excluding or any(requirement.operator == "In" for requirement in types):
        return []
    requirement = excluding[0]
    return [f"{path}.{requirement.source}: {requirement.describe()} leaves node pool {pool.name!r} only reserved "
            "capacity, but it has no capacityReservationSelectorTerms, so its EC2NodeClass selects no reservation "
            "and the pool would launch nothing; allowed: capacityReservationSelectorTerms beside it, a one-off "
            "window on the pool with reserve, or a requirement that leaves on-demand or spot"]


def _count_problems(path: str, pool: NodePoolConfig, auto_mode: bool | None) -> list[str]:
    total = len(pool_requirements(pool, linux=auto_mode is not True)) + _TEMPLATE_LABELS
    if total <= MAX_REQUIREMENTS:
        return []
    room = MAX_REQUIREMENTS - (total - len(pool.requirements))
    return [f"{path}.requirements: {len(pool.requirements)} requirements give the NodePool {total} requirements and "
            f"template labels, more than the {MAX_REQUIREMENTS} Karpenter allows together (its shorthands, "
            f"kubernetes.io/os and the label prescale.io/node-pool count too); allowed: at most {room} requirements"]


def _launch_problems(path: str, pool: NodePoolConfig) -> list[str]:
    requirements = pool_requirements(pool)
    found = launchable(requirements)
    if found.emptied_by is not None:
        return [_emptied(path, pool, requirements, found.emptied_by, found.before)]
    problems = [_min_values_problem(path, pool, requirement,
                                    {instance.labels[table_key(requirement.key)] for instance in found.types},
                                    "instance types")
                for requirement in requirements if requirement.min_values is not None and narrows(requirement)]
    left = set(CAPACITY_TYPES)
    for requirement in (r for r in requirements if r.key == CAPACITY_TYPE):
        left = {kind for kind in left if requirement.allows(kind)}
        if not left:
            problems.append(f"{path}.{requirement.source}: {_shown(requirement)} leaves node pool {pool.name!r} no "
                            f"capacity type after the requirements before it, so it would launch nothing; allowed: "
                            f"requirements on {CAPACITY_TYPE} that together keep one of {', '.join(CAPACITY_TYPES)}")
            break
        if requirement.min_values is not None:
            problems.append(_min_values_problem(path, pool, requirement, left, "capacity types"))
    return [problem for problem in problems if problem]


def _emptied(path: str, pool: NodePoolConfig, requirements: tuple[PoolRequirement, ...], culprit: PoolRequirement,
             before: tuple[InstanceType, ...]) -> str:
    key = table_key(culprit.key)
    earlier = [r for r in requirements[:requirements.index(culprit)] if narrows(r)]
    after = f" left after {', '.join(r.describe() for r in earlier)}" if earlier else ""
    meeting = [t for t in instance_types() if culprit.allows(t.labels.get(key))]  # in the whole list
    unknown = ""
    if culprit.operator == "In" and not meeting:
        unknown = (f" (Karpenter 1.14's list has no {key} {', '.join(culprit.values)}: a type EC2 added later is not "
                   "known here until prescale's table is regenerated)")
    return (f"{path}.{culprit.source}: {_shown(culprit)} leaves node pool {pool.name!r} no instance type to launch: "
            f"none of the {len(before)} types of Karpenter's list{after} meets it{unknown}"
            f"{_excluded_by(earlier, meeting)}, so its windows would never get a node; those types have {key} "
            f"{_summary({t.labels.get(key, '') for t in before})}; allowed: "
            f"{_meant(key, culprit.values) if unknown else ''}a requirement some of them meet")


def _meant(key: str, values: tuple[str, ...]) -> str:
    """The values of ``key`` in Karpenter's list that ``values`` most likely misspell (``M7i.xlarge``), as the first
    thing allowed."""
    known = sorted({label for instance in instance_types() if (label := instance.labels.get(key)) is not None})
    lowered = {label.lower(): label for label in known}
    meant = [lowered.get(value.lower()) or next(iter(difflib.get_close_matches(value, known, n=1)), None)
             for value in values]
    return f"values [{', '.join(label for label in meant if label)}] (did you mean them?), or " if any(meant) else ""


def _excluded_by(earlier: list[PoolRequirement], meeting: list[InstanceType]) -> str:
    """Which earlier requirement leaves out every type that meets the culprit alone, in words (or nothing)."""
    for requirement in earlier if meeting else ():
        key = table_key(requirement.key)
        if not any(requirement.allows(t.labels.get(key)) for t in meeting):
            values = _summary({t.labels.get(key, "none") for t in meeting})
            return (f": the {len(meeting)} types that meet it all have {requirement.key} {values}, which "
                    f"{requirement.describe()} leaves out")
    return ""


def _min_values_problem(path: str, pool: NodePoolConfig, requirement: PoolRequirement, values: set[str],
                        kind: str) -> str | None:
    if requirement.min_values is None or len(values) >= requirement.min_values:
        return None
    return (f"{path}.{requirement.source}.minValues: {requirement.min_values} is more than the {len(values)} "
            f"{requirement.key} values node pool {pool.name!r} can launch ({_summary(values)}, over all its "
            f"requirements), so Karpenter (MIN_VALUES_POLICY Strict, its default) would launch nothing; allowed: at "
            f"most {len(values)}, or requirements that leave more {kind}")


def _shown(requirement: PoolRequirement) -> str:
    if requirement.shorthand:
        return repr(list(requirement.values))
    return f"{{key: {requirement.key}, operator: {requirement.operator}, values: {list(requirement.values)!r}}}"


def _summary(values: set[str]) -> str:
    """Label values in words: a range of numbers, or the first few names."""
    if all(value.isdigit() for value in values):
        numbers = sorted(int(value) for value in values)
        return f"from {numbers[0]} to {numbers[-1]}" if len(numbers) > 1 else str(numbers[0])
    names = sorted(values)
    more = f", … ({len(names)} values)" if len(names) > _SHOWN_VALUES else ""
    return ", ".join(names[:_SHOWN_VALUES]) + more
