"""Config and code changes lose nothing: a change touches exactly what it names, and renames carry aliases.

Pulumi identifies a resource by its type and name (and its parent's): a changed name is a delete plus a
create, which for a placeholder Deployment means losing capacity mid-event. So:

* **Config changes.** Adding, removing, reordering or editing one window (or one pool) must leave every
  other resource's type, name, inputs, parent, provider and dependencies exactly as they were. What may
  change is precisely: the window's own resources (its ``ScheduledCapacity`` and ``Failsafe`` components and
  everything under them) and, only in ``spec.disruption.budgets``, the NodePool of its pool, which lists
  every window of the pool. For a pool: the pool's own ``EventNodePool`` and what is under it.
* **Code changes.** ``tests/data/dev_stack_names.json`` is the dev stack's (type, name) set. Renaming a
  component, a child or a resource type in code changes that set; the test then fails unless each new
  (type, name) carries a Pulumi alias naming a (type, name) that vanished (``aliases=[pulumi.Alias(name=...)]``
  or ``pulumi.Alias(type_=...)``, recorded by ``prescale_cli/offline.py``). Adding or removing resources on
  purpose: regenerate the snapshot with ``python -m tests.capacity.test_stable_names`` and review its diff.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pulumi
from prescale.offline import Evaluation, Registration, evaluate

from tests.support import TESTS
from tests.support.capacity import (
    NODE_POOL,
    RICH_POOLS,
    RICH_WINDOWS,
    as_object,
    pool,
    rich_run,
    run,
    stack_config,
    window,
)
from tests.support.platform import dev_stack

SNAPSHOT = TESTS / "data" / "dev_stack_names.json"
WINDOW_COMPONENTS = ("prescale:index:ScheduledCapacity", "prescale:index:Failsafe")
POOL_COMPONENT = "prescale:index:EventNodePool"
Key = tuple[str, str]  # (type, name)


# --- config changes ------------------------------------------------------------------------------------

def state(evaluation: Evaluation) -> dict[Key, tuple]:
    """Per (type, name): everything the engine would diff or wire (URNs shown as the (type, name) they name)."""
    keys = {r.urn: (r.type, r.name) for r in evaluation.resources}
    return {(r.type, r.name): (keys.get(r.parent), as_object(r), r.provider.rsplit("::", 1)[-1],
                               sorted(keys[d] for d in r.dependencies), r.ignore_changes)
            for r in evaluation.resources}


def owned(evaluation: Evaluation, name: str, component_types: Iterable[str]) -> set[Key]:
    """The named components of these types and everything under them."""
    urns = {r.urn for r in evaluation.resources if r.name == name and r.type in component_types}
    grown = True
    while grown:
        more = {r.urn for r in evaluation.resources if r.parent in urns} - urns
        urns |= more
        grown = bool(more)
    return {(r.type, r.name) for r in evaluation.resources if r.urn in urns}


def changes(before: Evaluation, after: Evaluation) -> tuple[set[Key], set[Key], set[Key]]:
    """(added, removed, changed) between two evaluations."""
    old, new = state(before), state(after)
    return new.keys() - old.keys(), old.keys() - new.keys(), {k for k in old.keys() & new.keys() if old[k] != new[k]}


def without_budgets(evaluation: Evaluation, key: Key) -> dict[str, Any]:
    node_pool = as_object(evaluation.named(*key))
    del node_pool["spec"]["disruption"]["budgets"]
    return node_pool


def assert_only_budgets_changed(before: Evaluation, after: Evaluation, changed: set[Key], pool_name: str) -> None:
    assert changed <= {(NODE_POOL, f"{pool_name}-node-pool")}, changed
    for key in changed:
        assert without_budgets(before, key) == without_budgets(after, key)


def rich(windows: list[dict] = RICH_WINDOWS, pools: list[dict] = RICH_POOLS) -> Evaluation:
    return run(stack_config(pools, windows, tags={"team": "platform"}))[0]


def test_adding_or_removing_a_window_touches_only_its_resources_and_its_pools_budgets():
    before = rich_run()[0]
    after = rich(RICH_WINDOWS + [window("flash-sale", "0 20 * * 3", "0 21 * * 3", "spot-arm", nodes=4)])
    added, removed, changed = changes(before, after)
    assert added == owned(after, "flash-sale", WINDOW_COMPONENTS) and len(added) == 8 and removed == set()
    assert changed == {(NODE_POOL, "spot-arm-node-pool")}
    assert_only_budgets_changed(before, after, changed, "spot-arm")
    # Removing it again is the exact inverse.
    assert changes(after, before) == (set(), added, changed)


def test_editing_a_window_changes_only_that_window_and_its_pools_budgets():
    before = rich_run()[0]
    after = rich([dict(w, nodes=9, end="30 13 * * *") if w["name"] == "overlap-a" else w for w in RICH_WINDOWS])
    added, removed, changed = changes(before, after)
    window_changed = changed - {(NODE_POOL, "event-node-pool")}
    assert (added, removed) == (set(), set())
    # The trigger (count, end), the failsafe (its schedule); the placeholder pods themselves are unchanged.
    assert window_changed == {("kubernetes:keda.sh/v1alpha1:ScaledObject", "overlap-a-scaler"),
                              ("kubernetes:batch/v1:CronJob", "overlap-a-failsafe-job")}
    assert window_changed <= owned(before, "overlap-a", WINDOW_COMPONENTS)
    assert_only_budgets_changed(before, after, changed - window_changed, "event")


def test_reordering_windows_and_pools_changes_nothing_at_all():
    assert changes(rich_run()[0], rich(RICH_WINDOWS[::-1], RICH_POOLS[::-1])) == (set(), set(), set())


def test_adding_a_pool_adds_only_its_node_pool_and_class():
    before = rich_run()[0]
    after = rich(pools=RICH_POOLS + [pool("extra")])
    assert changes(before, after) == (owned(after, "extra", [POOL_COMPONENT]), set(), set())
    assert len(owned(after, "extra", [POOL_COMPONENT])) == 3  # component, EC2NodeClass, NodePool
    # ...and removing it again is the exact inverse.
    assert changes(after, before) == (set(), owned(after, "extra", [POOL_COMPONENT]), set())


def test_editing_a_pools_limits_changes_only_its_node_pool():
    edited = [dict(p, limits={"cpu": "3000", "memory": "9000Gi", "nodes": 120}) if p["name"] == "spot-arm" else p
              for p in RICH_POOLS]
    assert changes(rich_run()[0], rich(pools=edited)) == (set(), set(), {(NODE_POOL, "spot-arm-node-pool")})


# --- code changes: the dev stack's names and their aliases ------------------------------------------------

def old_identities(registration: Registration) -> set[Key]:
    """The (type, name)s a registration's aliases point back to: URNs, alias specs, or bare old names."""
    identities = set()
    for alias in registration.aliases:
        if isinstance(alias, str) and alias.startswith("urn:pulumi:"):
            qualified_type, name = alias.split("::", 3)[2:]
            identities.add((qualified_type.rsplit("$", 1)[-1], name))
        elif isinstance(alias, str) and alias:
            identities.add((registration.type, alias))
        elif isinstance(alias, pulumi.Alias):
            identities.add((alias.type_ if isinstance(alias.type_, str) else registration.type,
                            alias.name if isinstance(alias.name, str) else registration.name))
    return identities


def drift_problems(snapshot: set[Key], registrations: list[Registration]) -> list[str]:
    """Every (type, name) that appeared without an alias to one that vanished, and every unexplained vanishing."""
    vanished = snapshot - {(r.type, r.name) for r in registrations}
    problems, covered = [], set()
    for registration in registrations:
        key = (registration.type, registration.name)
        if key in snapshot:
            continue
        previous = old_identities(registration) & vanished
        covered |= previous
        if not previous:
            problems.append(f"{key} is new: if it was renamed, give it aliases=[pulumi.Alias(...)] naming its old name "
                            "or type; if it is really new, regenerate the snapshot "
                            "(python -m tests.capacity.test_stable_names)")
    problems += [f"{key} vanished: if it was renamed, alias it from its new name; if it was removed on purpose, "
                 "regenerate the snapshot (python -m tests.capacity.test_stable_names)"
                 for key in sorted(vanished - covered)]
    return problems


def snapshot_names(registrations: list[Registration]) -> list[list[str]]:
    return sorted([r.type, r.name] for r in registrations)


def test_the_dev_stacks_names_match_the_snapshot_or_carry_aliases():
    snapshot = {tuple(key) for key in json.loads(SNAPSHOT.read_text())}
    assert drift_problems(snapshot, dev_stack().resources) == []
    assert len(snapshot) == len(dev_stack().resources)


class Renamed(pulumi.ComponentResource):
    """A component as a later version of the code might declare it: new type, new child suffix."""

    def __init__(self, name: str, aliased: bool):
        type_alias = [pulumi.Alias(type_="prescale:index:Original")] if aliased else []
        super().__init__("prescale:index:Renamed", name, {}, pulumi.ResourceOptions(aliases=type_alias))
        child_alias = [pulumi.Alias(name=f"{name}-old")] if aliased else []
        pulumi.CustomResource("test:index:Thing", f"{name}-new", {},
                              pulumi.ResourceOptions(parent=self, aliases=child_alias))
        self.register_outputs({})


def test_a_rename_without_an_alias_is_caught_and_one_with_aliases_passes():
    snapshot = {("prescale:index:Original", "lunch"), ("test:index:Thing", "lunch-old")}
    bare = evaluate(lambda: Renamed("lunch", aliased=False)).resources
    assert [p.split(" ", 2)[:2] for p in drift_problems(snapshot, bare)] == [
        ["('prescale:index:Renamed',", "'lunch')"], ["('test:index:Thing',", "'lunch-new')"],
        ["('prescale:index:Original',", "'lunch')"], ["('test:index:Thing',", "'lunch-old')"]]
    assert drift_problems(snapshot, evaluate(lambda: Renamed("lunch", aliased=True)).resources) == []


if __name__ == "__main__":
    SNAPSHOT.parent.mkdir(exist_ok=True)
    SNAPSHOT.write_text("[\n" + ",\n".join(json.dumps(key) for key in snapshot_names(dev_stack().resources)) + "\n]\n")
    print(f"wrote {SNAPSHOT}")
