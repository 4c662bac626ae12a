"""PrescaleCapacity: one component parents every capacity resource, offers the capacity's stack outputs, and hands
the caller's options on: its parent (which the aliases name as the old one), providers and ``depends_on``."""

import pulumi
import pulumi_aws as aws
from prescale.capacity import deploy_capacity
from prescale.offline import CAPACITY_RESERVATION, evaluate

from tests.support.capacity import NAMESPACE, NOW, PRIORITY_CLASS, every_kind_config, stand_in_platform
from tests.support.platform import only, uses_provider
from tests.support.urns import engine_urns, migrate, urn_type

CAPACITY = "prescale:index:PrescaleCapacity"


def test_one_component_parents_every_capacity_resource_and_nothing_else(every_kind_run):
    evaluation, (deployed,) = every_kind_run
    component = only(evaluation, CAPACITY)
    children = {(r.type, r.name) for r in evaluation.resources if r.parent == component.urn}
    assert children == {
        (NAMESPACE, "prescale-namespace"), (PRIORITY_CLASS, "prescale-placeholder-priority"),
        *(("prescale:index:EventNodePool", name) for name in ("event", "spot-arm", "reserved")),
        *(("prescale:index:ScheduledCapacity", name) for name in deployed.windows),
        *(("prescale:index:Failsafe", name) for name in deployed.failsafes),
        ("prescale:index:WindowReservations", "launch"), ("prescale:index:EventAlerts", "alerts")}
    # The stand-in platform's provider and releases are the caller's: they stay where it put them.
    assert not {r.type for r in evaluation.resources if r.parent == component.parent} - {
        CAPACITY, "pulumi:providers:kubernetes", "test:index:Release"}


def test_its_registered_outputs_are_the_capacity_stack_outputs(every_kind_run):
    evaluation, (deployed,) = every_kind_run
    outputs = dict(only(evaluation, CAPACITY).outputs or {})
    assert outputs.pop("reservations")["launch"]["held"] is True
    # nextUpForReservations is None (every reservation is held): the SDK sends no property that is None.
    assert outputs == {"nodePools": ["event", "reserved", "spot-arm"], "armedWindows": sorted(deployed.windows),
                       "idleWindows": {}}


def test_the_callers_parent_providers_and_dependencies_reach_what_it_declares():
    def program():
        shop = pulumi.ComponentResource("shop:index:Platform", "shop")
        gate = pulumi.CustomResource("test:index:Gate", "gate")
        deploy_capacity(every_kind_config(), stand_in_platform(), NOW, pulumi.ResourceOptions(
            parent=shop, depends_on=[gate], providers=[aws.Provider("seoul", region="ap-northeast-2")]))

    evaluation = evaluate(program)
    component = only(evaluation, CAPACITY)
    assert component.parent == only(evaluation, "shop:index:Platform").urn
    gate, seoul = only(evaluation, "test:index:Gate").urn, only(evaluation, "pulumi:providers:aws").urn
    assert all(gate in r.dependencies for r in evaluation.resources if r.parent == component.urn)
    reservations = evaluation.of_type(CAPACITY_RESERVATION)
    assert len(reservations) == 2 and all(uses_provider(r, seoul) for r in reservations)
    # A stack where the same resources sat directly under `shop` (what deploy_capacity declared before this
    # component existed) keeps every one of them: the aliases name `shop` as their old parent.
    new = engine_urns(evaluation).values()
    old = frozenset(urn.replace(f"{CAPACITY}$", "") for urn in new if urn_type(urn) != CAPACITY)
    migration = migrate(old, evaluation)
    assert (migration.deleted, migration.problems) == ([], [])
    assert [urn_type(urn) for urn in migration.created] == [CAPACITY]
