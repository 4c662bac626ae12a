"""URNs and aliases as the Pulumi engine computes them, to prove that a code change replaces nothing.

The mock monitor names resources its own way (``pulumi.runtime.mocks.MockMonitor.make_urn``: only the parent's
last type, and ``pulumi:pulumi:Stack$`` before top-level resources). The engine's URN carries the parent's whole
qualified type and nothing for the stack (``Deployment.generateURN`` in pulumi/pulumi
``pkg/resource/deploy/deployment.go``, ``urn.New`` in ``sdk/go/common/resource/urn/urn.go``). :func:`engine_urns`
rebuilds the engine's URNs from the recorded parents.

:func:`migrate` then matches a new run against the URNs an existing stack holds the way the engine's step
generator does (``getOldResource``, ``generateAliases``, ``collapseAliasToUrn`` and ``inheritedChildAlias`` in
``pkg/resource/deploy/step_generator.go``): a resource takes over the old resource with its own URN, or else the
first of its aliases that names one; a child's aliases include its parent's matched old URN combined with its own
name. The SDK sends alias specs unresolved (``prepare_aliases`` in ``pulumi/runtime/resource.py``, since the
monitor supports ``aliasSpecs``), so that inheritance happens only in the engine, and only here offline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from prescale.offline import Evaluation, Registration

ROOT_STACK_TYPE = "pulumi:pulumi:Stack"


def qualified_type(urn: str) -> str:
    return urn.split("::")[2]


def urn_name(urn: str) -> str:
    return urn.split("::", 3)[3]


def urn_type(urn: str) -> str:
    return qualified_type(urn).rsplit("$", 1)[-1]


def create_urn(name: str, type_: str, parent: str, project: str, stack: str) -> str:
    """``resource.CreateURN``: under ``parent``'s qualified type, or at the top when ``parent`` is empty."""
    prefix = f"urn:pulumi:{stack}::{project}::" if not parent else parent[:parent.rfind("::")] + "$"
    return f"{prefix}{type_}::{name}"


def engine_urns(evaluation: Evaluation) -> dict[str, str]:
    """Each recorded resource's mock URN → the URN the engine gives it."""
    by_urn = {r.urn: r for r in evaluation.resources}
    found: dict[str, str] = {}

    def urn_of(registration: Registration) -> str:
        if registration.urn not in found:
            stack, project = registration.urn.removeprefix("urn:pulumi:").split("::")[:2]
            parent = by_urn.get(registration.parent)  # None: the stack (never recorded) or no parent
            found[registration.urn] = create_urn(registration.name, registration.type,
                                                 urn_of(parent) if parent else "", project, stack)
        return found[registration.urn]

    for registration in evaluation.resources:
        urn_of(registration)
    return found


@dataclass
class Migration:
    """What a run does to a stack that holds ``old``: the old URNs each new resource takes over, the rest."""

    taken: dict[str, str] = field(default_factory=dict)  # old URN → the new URN that takes it over
    created: list[str] = field(default_factory=list)  # new URNs that match no old resource
    problems: list[str] = field(default_factory=list)  # what the engine would refuse (two claims on one URN)
    old: frozenset[str] = frozenset()

    @property
    def deleted(self) -> list[str]:
        """Old URNs nothing takes over: the engine deletes them (a replacement, if something new stands in)."""
        return sorted(self.old - self.taken.keys())


def migrate(old: frozenset[str], evaluation: Evaluation) -> Migration:
    """Match ``evaluation``'s resources against a stack holding the ``old`` URNs, as the engine's step generator.

    Registrations are taken in order: a child is always registered after its parent (it needs the parent's URN).
    """
    urns = engine_urns(evaluation)
    migration = Migration(old=old)
    matched_alias: dict[str, str] = {}  # the step generator's `sg.aliases`: new URN → the old URN it matched
    seen: set[str] = set()
    for registration in evaluation.resources:
        urn = urns[registration.urn]
        parent = urns.get(registration.parent, "")
        stack, project = urn.removeprefix("urn:pulumi:").split("::")[:2]
        specs = [_spec(alias, urns) for alias in registration.aliases]
        candidates = [urn, *aliases(registration.name, registration.type, parent, specs, matched_alias,
                                    project, stack)]
        seen.add(urn)
        match = next((candidate for candidate in candidates if candidate in old), None)
        if match is None:
            migration.created.append(urn)
            continue
        if match != urn:
            if match in seen:
                migration.problems.append(f"{urn} claims {match} through an alias, but that URN is registered too")
            matched_alias[urn] = match
        if match in migration.taken:
            migration.problems.append(f"{urn} and {migration.taken[match]} both claim {match}")
        migration.taken[match] = urn
    return migration


@dataclass(frozen=True)
class AliasSpec:
    """``resource.Alias`` as the engine receives it: empty fields take the resource's own."""

    urn: str = ""
    name: str = ""
    type: str = ""
    parent: str = ""  # an engine URN
    no_parent: bool = False
    project: str = ""
    stack: str = ""


def _spec(alias: str | pulumi.Alias, urns: dict[str, str]) -> AliasSpec:
    """A recorded alias (a URN, or a spec whose parent is a mock URN) in the engine's terms."""
    if isinstance(alias, str):
        return AliasSpec(urn=alias)

    def given(value: object) -> str:
        return value if isinstance(value, str) else ""  # `...`: not given

    parent = alias.parent
    return AliasSpec(name=given(alias.name), type=given(alias.type_),
                     parent=urns.get(parent, parent) if isinstance(parent, str) else "",
                     no_parent=parent is None, project=given(alias.project), stack=given(alias.stack))


def aliases(name: str, type_: str, parent: str, specs: list[AliasSpec], matched_alias: dict[str, str],
            project: str, stack: str) -> list[str]:
    """``generateAliases``: the resource's own aliases, then each combined with its parent's matched old URN."""
    result: list[str] = []

    def add(urn: str) -> None:
        if urn not in result:
            result.append(urn)

    own = [_collapse(name, type_, parent, spec, matched_alias, project, stack) for spec in specs]
    for urn in own:
        add(urn)
    parent_alias = matched_alias.get(parent) if parent else None
    if parent_alias is not None:
        add(_inherited(type_, name, urn_name(parent), parent_alias, project, stack))
        for urn in own:
            add(_inherited(urn_type(urn), urn_name(urn), urn_name(parent), parent_alias, project, stack))
    return result


def _collapse(name: str, type_: str, parent: str, spec: AliasSpec, matched_alias: dict[str, str],
              project: str, stack: str) -> str:
    """``collapseAliasToUrn``: a spec's empty fields from the resource; a given parent by its own old URN."""
    if spec.urn:
        return spec.urn
    alias_parent = matched_alias.get(spec.parent, spec.parent) if spec.parent else parent
    if spec.no_parent or (alias_parent and qualified_type(alias_parent) == ROOT_STACK_TYPE):
        alias_parent = ""
    return create_urn(spec.name or name, spec.type or type_, alias_parent, spec.project or project,
                      spec.stack or stack)


def _inherited(child_type: str, child_name: str, parent_name: str, parent_alias: str, project: str,
               stack: str) -> str:
    """``inheritedChildAlias``: the child under its parent's old URN; a name built on the parent's name follows it."""
    if child_name.startswith(parent_name):
        child_name = urn_name(parent_alias) + child_name[len(parent_name):]
    return f"urn:pulumi:{stack}::{project}::{qualified_type(parent_alias)}${child_type}::{child_name}"
