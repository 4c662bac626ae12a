"""Config and code changes lose nothing: a change touches exactly what it names, and renames carry aliases.

Pulumi identifies a resource by its type and name (and its parent's): a changed name is a delete plus a
create, which for a placeholder Deployment means losing capacity mid-event. So:

* **Config changes.** Adding, removing, reordering or editing one window (or one pool) must leave every
  other resource's type, name, inputs, parent, provider and dependencies exactly as they were. What may
  change is precisely: the window's own resources (its ``ScheduledCapacity`` and ``Failsafe`` components and
  everything under them) and, only in ``spec.disruption.budgets``, the NodePool of its pool, which lists
  every window of the pool. For a pool: the pool's own ``EventNodePool`` and what is under it.
* **Code changes.** ``tests/data/stack_urns.json`` holds the URN of every resource three stacks hold (its note
  says which and when). Each must be taken over by the code's run, by its URN or by an alias, as the engine
  matches them (:func:`tests.support.urns.migrate`): a renamed, retyped or re-parented resource without the
  alias naming its old URN is a delete plus a create. Resources added on purpose are listed by type in
  ``ADDED_SINCE_THE_SNAPSHOT``; one removed on purpose leaves the snapshot with it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import pulumi
import pytest
from prescale.offline import Evaluation, Registration, evaluate

from tests.support import TESTS
from tests.support.capacity import (
    NAMESPACE,
    NATIVE_POOLS,
    NATIVE_WINDOWS,
    NODE_POOL,
    PRIORITY_CLASS,
    RICH_POOLS,
    RICH_WINDOWS,
    as_object,
    every_kind_config,
    pool,
    rich_config,
    run,
    stack_config,
    window,
)
from tests.support.platform import dev_program
from tests.support.urns import engine_urns, migrate, urn_type

SNAPSHOT = TESTS / "data" / "stack_urns.json"
CAPACITY_COMPONENT = "prescale:index:PrescaleCapacity"
WINDOW_COMPONENTS = ("prescale:index:ScheduledCapacity", "prescale:index:Failsafe")
NATIVE_COMPONENTS = ("prescale:index:StaticNodePool", "prescale:index:WindowBuffer", "prescale:index:CapacityDriver",
                     "prescale:index:NodePrepull")
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


def test_adding_or_removing_a_window_touches_only_its_resources_and_its_pools_budgets(rich_run):
    before = rich_run[0]
    after = rich(RICH_WINDOWS + [window("flash-sale", "0 20 * * 3", "0 21 * * 3", "spot-arm", nodes=4)])
    added, removed, changed = changes(before, after)
    assert added == owned(after, "flash-sale", WINDOW_COMPONENTS) and len(added) == 8 and removed == set()
    assert changed == {(NODE_POOL, "spot-arm-node-pool")}
    assert_only_budgets_changed(before, after, changed, "spot-arm")
    # Removing it again is the exact inverse.
    assert changes(after, before) == (set(), added, changed)


def test_editing_a_window_changes_only_that_window_and_its_pools_budgets(rich_run):
    before = rich_run[0]
    after = rich([dict(w, nodes=9, end="30 13 * * *") if w["name"] == "overlap-a" else w for w in RICH_WINDOWS])
    added, removed, changed = changes(before, after)
    window_changed = changed - {(NODE_POOL, "event-node-pool")}
    assert (added, removed) == (set(), set())
    # The trigger (count, end), the failsafe (its schedule); the placeholder pods themselves are unchanged.
    assert window_changed == {("kubernetes:keda.sh/v1alpha1:ScaledObject", "overlap-a-scaler"),
                              ("kubernetes:batch/v1:CronJob", "overlap-a-failsafe-job")}
    assert window_changed <= owned(before, "overlap-a", WINDOW_COMPONENTS)
    assert_only_budgets_changed(before, after, changed - window_changed, "event")


def test_reordering_windows_and_pools_changes_nothing_at_all(rich_run):
    assert changes(rich_run[0], rich(RICH_WINDOWS[::-1], RICH_POOLS[::-1])) == (set(), set(), set())


def test_adding_a_pool_adds_only_its_node_pool_and_class(rich_run):
    before = rich_run[0]
    after = rich(pools=RICH_POOLS + [pool("extra")])
    assert changes(before, after) == (owned(after, "extra", [POOL_COMPONENT]), set(), set())
    assert len(owned(after, "extra", [POOL_COMPONENT])) == 3  # component, EC2NodeClass, NodePool
    # ...and removing it again is the exact inverse.
    assert changes(after, before) == (set(), owned(after, "extra", [POOL_COMPONENT]), set())


def test_editing_a_pools_limits_changes_only_its_node_pool(rich_run):
    edited = [dict(p, limits={"cpu": "3000", "memory": "9000Gi", "nodes": 120}) if p["name"] == "spot-arm" else p
              for p in RICH_POOLS]
    assert changes(rich_run[0], rich(pools=edited)) == (set(), set(), {(NODE_POOL, "spot-arm-node-pool")})


def native(windows: list[dict] = NATIVE_WINDOWS, pools: list[dict] = NATIVE_POOLS) -> Evaluation:
    return run(stack_config(pools, windows))[0]


def test_adding_a_static_window_touches_no_other_resource_at_all(native_run):
    before = native_run[0]
    after = native([*NATIVE_WINDOWS, window("dinner", "0 18 * * *", "0 19 * * *", "static", nodes=2,
                                            prepullImages=["nginx:1.27"])])
    added, removed, changed = changes(before, after)
    # Its own NodePool (the pool has none to list its freeze), driver and prepull: nothing else.
    assert added == owned(after, "dinner", NATIVE_COMPONENTS) and removed == set() and changed == set()
    assert {key[0] for key in added} >= {NODE_POOL, "kubernetes:batch/v1:CronJob", "kubernetes:apps/v1:DaemonSet"}
    assert changes(after, before) == (set(), added, set())


def test_adding_a_buffer_window_touches_only_its_resources_and_its_pools_budgets(native_run):
    before = native_run[0]
    after = native([*NATIVE_WINDOWS, window("brunch", "0 10 * * 6", "0 11 * * 6", "buffer", nodes=1)])
    added, removed, changed = changes(before, after)
    assert added == owned(after, "brunch", NATIVE_COMPONENTS) and removed == set()
    assert_only_budgets_changed(before, after, changed, "buffer")


def test_a_pool_that_changes_strategy_gets_new_node_pools_under_new_names(native_run):
    """A NodePool cannot switch between static and dynamic (the CRD's transition rule): every NodePool's name is
    either always static or always dynamic, so the switch is a delete and a create, never an update."""
    dynamic = [dict(p, strategy="placeholders") if p["name"] == "static" else p for p in NATIVE_POOLS]
    static, placeholders = native_run[0], native(pools=dynamic)

    def node_pools(evaluation: Evaluation) -> dict[str, bool]:
        return {o["metadata"]["name"]: "replicas" in o["spec"] for o in map(as_object, evaluation.of_type(NODE_POOL))}

    before, after = node_pools(static), node_pools(placeholders)
    assert "prescale-static" in after and "prescale-static" not in before
    assert all(before[name] == after[name] for name in before.keys() & after.keys())  # never static and dynamic
    added, removed, _ = changes(static, placeholders)
    assert (NODE_POOL, "lunch-static-node-pool") in removed and (NODE_POOL, "static-node-pool") in added


# --- code changes: every URN an existing stack holds is taken over ------------------------------------------

# Each recorded stack, evaluated as the snapshot's note says (afresh by `record`; the tests take the same evaluations
# from the session fixtures dev_stack, rich_run and every_kind_run).
SNAPSHOT_STACKS: dict[str, Callable[[], Evaluation]] = {
    "dev": dev_program, "rich": lambda: run(rich_config())[0], "every-kind": lambda: run(every_kind_config())[0]}
# The types the code registers that no recorded stack held: each is a create on the next `pulumi up`, by design.
ADDED_SINCE_THE_SNAPSHOT = [CAPACITY_COMPONENT]


NOTE = ("The URN (as the Pulumi engine forms it: tests/support/urns.py) of every resource each stack registered with "
        "the code at commit {commit}; ADDED_SINCE_THE_SNAPSHOT in tests/capacity/test_stable_names.py lists the types "
        "the code registered since. dev: __main__.py with Pulumi.dev.yaml at 2026-11-30T12:00Z "
        "(tests.support.platform.dev_program); rich and every-kind: deploy_capacity on a stand-in platform "
        "(tests.support.capacity.rich_config, every_kind_config). Written by python -m "
        "tests.capacity.test_stable_names; record again only once no deployed stack may still hold these URNs: the "
        "aliases they prove stay until then.")


def recorded(stack: str) -> frozenset[str]:
    return frozenset(json.loads(SNAPSHOT.read_text())["stacks"][stack])


@pytest.mark.parametrize("stack", SNAPSHOT_STACKS)
def test_every_urn_an_existing_stack_holds_is_taken_over_by_its_urn_or_an_alias(
        stack, dev_stack, rich_run, every_kind_run):
    held = {"dev": dev_stack, "rich": rich_run[0], "every-kind": every_kind_run[0]}  # SNAPSHOT_STACKS, once a session
    migration = migrate(recorded(stack), held[stack])
    assert (migration.deleted, migration.problems) == ([], [])
    assert sorted(urn_type(urn) for urn in migration.created) == ADDED_SINCE_THE_SNAPSHOT


def test_dropping_any_one_alias_deletes_its_resource_and_everything_under_it(every_kind_run):
    evaluation, old = every_kind_run[0], recorded("every-kind")
    urns = engine_urns(evaluation)
    old_urn = {new: previous for previous, new in migrate(old, evaluation).taken.items()}
    (component,) = evaluation.of_type(CAPACITY_COMPONENT)
    moved = [r for r in evaluation.resources if r.parent == component.urn]
    assert {r.type for r in moved} == {NAMESPACE, PRIORITY_CLASS, POOL_COMPONENT, *WINDOW_COMPONENTS,
                                       "prescale:index:WindowReservations", "prescale:index:EventAlerts"}
    for registration in moved:
        kept = [a for a in registration.aliases if not (isinstance(a, pulumi.Alias) and a.parent is None)]
        assert len(kept) == len(registration.aliases) - 1  # the one naming the stack's top
        without = replace(evaluation, resources=[replace(r, aliases=kept) if r is registration else r
                                                 for r in evaluation.resources])
        lost = [registration, *(r for r in evaluation.resources if under(evaluation, r, registration))]
        assert migrate(old, without).deleted == sorted(old_urn[urns[r.urn]] for r in lost), registration.name


def under(evaluation: Evaluation, registration: Registration, ancestor: Registration) -> bool:
    parent = next((r for r in evaluation.resources if r.urn == registration.parent), None)
    return parent is not None and (parent is ancestor or under(evaluation, parent, ancestor))


class Versioned(pulumi.ComponentResource):
    """One component as two versions of the code declare it: first, then with a new type and a new child suffix."""

    def __init__(self, name: str, renamed: bool = False, aliased: bool = False):
        type_alias = [pulumi.Alias(type_="prescale:index:Original")] if aliased else []
        super().__init__("prescale:index:Renamed" if renamed else "prescale:index:Original", name, {},
                         pulumi.ResourceOptions(aliases=type_alias))
        child_alias = [pulumi.Alias(name=f"{name}-old")] if aliased else []
        pulumi.CustomResource("test:index:Thing", f"{name}-new" if renamed else f"{name}-old", {},
                              pulumi.ResourceOptions(parent=self, aliases=child_alias))
        self.register_outputs({})


def test_a_rename_without_aliases_deletes_the_old_resources_and_one_with_aliases_takes_them_over():
    old = frozenset(engine_urns(evaluate(lambda: Versioned("lunch"))).values())
    assert old == {"urn:pulumi:dev::prescale::prescale:index:Original::lunch",
                   "urn:pulumi:dev::prescale::prescale:index:Original$test:index:Thing::lunch-old"}
    bare = migrate(old, evaluate(lambda: Versioned("lunch", renamed=True)))
    assert bare.deleted == sorted(old) and len(bare.created) == 2
    aliased = migrate(old, evaluate(lambda: Versioned("lunch", renamed=True, aliased=True)))
    assert (aliased.deleted, aliased.created, aliased.problems) == ([], [], [])


def record() -> None:
    """Write the snapshot: the engine's URN of every resource each stack registers with the code as it is."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                            cwd=TESTS).stdout.strip()
    stacks = {name: sorted(engine_urns(evaluation()).values()) for name, evaluation in SNAPSHOT_STACKS.items()}
    SNAPSHOT.write_text(json.dumps({"note": NOTE.format(commit=commit), "stacks": stacks}, indent=1) + "\n")


if __name__ == "__main__":
    record()
    print(f"wrote {SNAPSHOT}")
