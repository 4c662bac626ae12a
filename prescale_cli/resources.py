"""``prescale plan``: what ``pulumi up`` would create, as a resource tree like ``pulumi preview`` shows.

Works on whatever the program registered (:class:`prescale.offline.Evaluation`), never on a list of
expected types, so it stays true as components are added. The engine registers from several threads, so
registration order changes from run to run; resources are listed in tree order instead (each parent before
its children, siblings by type and name), which makes the output and ``--json`` reproducible. The stack
resource Pulumi adds itself is the root.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from prescale.offline import Evaluation, Registration

from .output import Output
from .wire import plain

if TYPE_CHECKING:
    from .documents import PlanDocument

STACK_TYPE = "pulumi:pulumi:Stack"


def resources_document(evaluation: Evaluation) -> PlanDocument:
    """``--json``: every registered resource with its parent's URN and its inputs (secrets hidden)."""
    # The documents' models (and the status and schedule modules they name) load only for --json.
    from .documents import PlanDocument, PlannedResource

    return PlanDocument(resources=[PlannedResource(type=resource.type, name=resource.name, parent=resource.parent,
                                                   inputs=plain(resource.inputs))
                                   for resource, _ in tree_order(evaluation.resources)])


def tree_order(resources: list[Registration]) -> list[tuple[Registration, str]]:
    """Each resource with its tree branches (``"│  ├─ "``), parents first, siblings by type and name."""
    urns = {resource.urn for resource in resources}
    children: dict[str, list[Registration]] = defaultdict(list)
    for resource in sorted(resources, key=lambda resource: (resource.type, resource.name)):
        children[resource.parent if resource.parent in urns else STACK_TYPE].append(resource)
    ordered: list[tuple[Registration, str]] = []

    def add(parent: str, indent: str) -> None:
        siblings = children[parent]
        for index, resource in enumerate(siblings):
            last = index == len(siblings) - 1
            ordered.append((resource, f"{indent}{'└─ ' if last else '├─ '}"))
            add(resource.urn, indent + ("   " if last else "│  "))

    add(STACK_TYPE, "")
    return ordered


def type_counts(resources: list[Registration]) -> list[tuple[str, int]]:
    """Resources per type, most frequent first."""
    return sorted(Counter(resource.type for resource in resources).items(), key=lambda item: (-item[1], item[0]))


def show_resources(evaluation: Evaluation, stack_name: str, output: Output) -> None:
    resources = evaluation.resources
    rows = [(STACK_TYPE, stack_name)] + [(branches + resource.type, resource.name)
                                         for resource, branches in tree_order(resources)]
    output.table(["Type", "Name"], rows, title=f"Resources of {stack_name}")
    output.table(["Type", "Count"], [(type_, str(count)) for type_, count in type_counts(resources)],
                 title="Resources per type")
    output.line(f"{len(resources)} resources would be created (offline plan: no cloud was contacted).")
