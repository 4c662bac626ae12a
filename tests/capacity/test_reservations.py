"""Capacity reservations of one-off windows (``reserve``): the plan, the refusals, and what the program registers."""

import json
from datetime import UTC, datetime, timedelta

import kubernetes_validate
import pulumi_kubernetes as k8s
import pytest
from prescale.capacity import deploy_capacity
from prescale.capacity.reservations import WindowReservations, WindowReservationsArgs
from prescale.contract import AUTO_MODE_NODE_CLASSES, Platform
from prescale.model.config import CONFIG_NAMESPACE
from prescale.model.fleet.instances import instance_type
from prescale.model.fleet.reservations import ZoneShare, next_up, split
from prescale.model.fleet.sizing import pods_per_node
from prescale.model.plan import plan_capacity
from prescale.model.schedule.freezes import Freeze
from prescale.model.validation import ConfigError, load_stack_config
from prescale.model.values.duration import format_duration
from prescale.model.values.quantity import parse_quantity
from prescale.offline import evaluate, run_program

from prescale_cli.cost import estimate_cost
from prescale_cli.main import main
from prescale_cli.timeline import build_timeline
from tests.support import ROOT
from tests.support.capacity import (
    DEPLOYMENT,
    M7I,
    NODE_CLASS,
    NODE_POOL,
    allowed_disruptions,
    as_object,
    pool,
    run,
    stack_config,
    window,
)
from tests.support.cli import make_project
from tests.support.crd_validation import validate

ROOT = ROOT
RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
NODE_CLASS_AUTO = "kubernetes:eks.amazonaws.com/v1:NodeClass"
ZONES = ["ap-northeast-2a", "ap-northeast-2c"]
# 2027-03-02 09:00–12:00 in Seoul, 10 minutes' lead: scale-up 2027-03-01 23:50 UTC, end 03:00 UTC.
SCALE_UP = datetime(2027, 3, 1, 23, 50, tzinfo=UTC)
END = datetime(2027, 3, 2, 3, 0, tzinfo=UTC)
HOLD_FROM = SCALE_UP - timedelta(hours=24)
EARLY, HOLDING = HOLD_FROM - timedelta(minutes=1), HOLD_FROM
RELEASED = datetime(2027, 3, 2, 4, 14, tzinfo=UTC)  # the end date + EC2's hour + two drift re-checks
RESERVED_POOL = pool(capacityTypes=["on-demand", "reserved"])


def launch(reserve: dict | None = None, **amount) -> dict:
    return window("launch", "2027-03-02T09:00", "2027-03-02T12:00", **(amount or {"nodes": 5}),
                  reserve={"instanceType": "m7i.xlarge", "availabilityZones": ZONES, **(reserve or {})})


def config(now: datetime, windows: list[dict] | None = None, pools: list[dict] | None = None):
    return stack_config(pools or [RESERVED_POOL], windows or [launch()], now, tags={"team": "platform"})


@pytest.fixture(scope="module")
def holding():
    return run(config(HOLDING), HOLDING)


@pytest.fixture(scope="module")
def early():
    return run(config(EARLY), EARLY)


# --- the plan ---------------------------------------------------------------------------------------------


def test_a_reservation_is_held_from_hold_from_before_the_scale_up_until_the_end_plus_the_nodes_tail():
    plan = plan_capacity(config(HOLDING), HOLDING)
    (reservation,) = plan.reservations
    assert reservation.held and reservation.instance_type == "m7i.xlarge"
    assert reservation.zones == (ZoneShare("ap-northeast-2a", 3), ZoneShare("ap-northeast-2c", 2))
    assert (reservation.hold_from, reservation.scale_up, reservation.window_end) == (HOLD_FROM, SCALE_UP, END)
    # KEDA's cooldown (1m) + the pool's consolidateAfter (2m) + the drain (1m).
    assert reservation.end == END + timedelta(minutes=4)
    assert plan.window("launch").reservation == reservation


@pytest.mark.parametrize("strategy, tail, drift_held", [
    ("placeholders", timedelta(minutes=4), True),  # KEDA's cooldown 1m + consolidateAfter 2m + the drain 1m
    ("buffer", timedelta(minutes=3), True),  # no KEDA: consolidateAfter and the drain
    # The driver sets the static NodePool to 0 at the end; Karpenter deletes its NodeClaims at once (no
    # consolidateAfter: kubernetes-sigs/karpenter v1.14.1 pkg/controllers/static/deprovisioning/controller.go).
    ("static", timedelta(minutes=1), False),
])
def test_a_reservation_ends_with_the_tail_of_its_pools_strategy_as_the_cost_estimate_prices_it(strategy, tail,
                                                                                                drift_held):
    zone = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ZONES[:1]}  # a static pool's one zone
    raw = {"static": pool(strategy="static", limits={"nodes": 40}, requirements=[*M7I, zone],
                          capacityTypes=["on-demand", "reserved"]),
           "buffer": pool(strategy="buffer", capacityTypes=["on-demand", "reserved"])}.get(strategy, RESERVED_POOL)
    windows = [launch({"availabilityZones": ZONES[:1]})]
    plan = plan_capacity(config(HOLDING, windows, pools=[raw]), HOLDING)
    (reservation,) = plan.reservations
    assert (reservation.end, reservation.holds_drift) == (END + tail, drift_held)
    (warning,) = [w for w in plan.warnings if "capacity reservations" in w]
    assert f"(the end plus {format_duration(tail)} for its nodes to go)" in warning
    (priced,) = estimate_cost(build_timeline(plan, HOLDING, HOLDING + timedelta(days=2))).tails
    assert priced.usual == tail


def test_an_earlier_run_holds_none_and_says_when_to_run_up():
    plan = plan_capacity(config(EARLY), EARLY)
    (reservation,) = plan.reservations
    assert not reservation.held
    assert next_up(plan.reservations) == HOLD_FROM
    (warning,) = [w for w in plan.warnings if "capacity reservations" in w]
    assert "are not created yet" in warning and "run `pulumi up` between then and the scale-up" in warning
    assert "2027-02-28 23:50 UTC" in warning and "2027-03-01 23:50 UTC" in warning


def test_a_held_reservation_warns_what_it_costs_until_when_and_what_happens_to_its_nodes_after():
    (warning,) = [w for w in plan_capacity(config(HOLDING), HOLDING).warnings if "capacity reservations" in w]
    assert warning.startswith("event window 'launch': holds capacity reservations 5 × m7i.xlarge "
                              "(ap-northeast-2a: 3, ap-northeast-2c: 2) until 2027-03-02 12:04 KST")
    assert "bills every reserved instance each hour, used or not" in warning
    assert ("nodes still in them keep running, billed on-demand, and node pool 'event' holds Karpenter's "
            "replacement of them (CapacityReservationDrift) until 2027-03-02 13:14 KST") in warning


def test_a_held_reservation_gives_its_pool_a_drift_hold_from_the_end_until_ec2_has_let_go_of_its_nodes():
    """EC2 ends a limited reservation within an hour after its end date (03:04 UTC); Karpenter re-checks drift every
    5 minutes: the pool holds drift from the window's end (03:00) for 4m + 1h + 10m."""
    plan = plan_capacity(config(HOLDING), HOLDING)
    (reservation,) = plan.reservations
    assert reservation.released == END + timedelta(minutes=4) + timedelta(hours=1, minutes=10) == RELEASED
    assert plan.pools["event"].drift_holds == [Freeze("0 3 2 3 *", "1h14m")] == [reservation.drift_hold]
    assert plan.pools["event"].freezes == [Freeze("50 23 1 3 *", "3h10m")]  # the window's own, unchanged
    assert plan_capacity(config(EARLY), EARLY).pools["event"].drift_holds == []  # nothing reserved yet


def test_once_the_window_has_ended_none_is_held_and_the_drift_hold_stays_until_the_nodes_are_released():
    assert plan_capacity(config(HOLDING), END - timedelta(seconds=1)).reservations[0].held
    for now in (END, RELEASED - timedelta(seconds=1)):
        plan = plan_capacity(config(HOLDING), now)
        (reservation,) = plan.reservations
        assert reservation.ended and not reservation.held and next_up(plan.reservations) is None
        assert plan.pools["event"].drift_holds == [Freeze("0 3 2 3 *", "1h14m")]
        (warning,) = [w for w in plan.warnings if "capacity reservations" in w]
        assert "ended with the window" in warning and "holds Karpenter's replacement of them" in warning
        assert "until 2027-03-02 13:14 KST = 2027-03-02 04:14 UTC" in warning
    released = plan_capacity(config(HOLDING), RELEASED)
    assert released.reservations == () and released.pools["event"].drift_holds == []


def test_a_hold_from_of_its_own_moves_the_first_up_that_creates_it():
    plan = plan_capacity(config(EARLY, [launch({"holdFrom": "2h"})]), EARLY)
    assert plan.reservations[0].hold_from == SCALE_UP - timedelta(hours=2)


def test_the_count_spreads_over_the_zones_the_first_taking_one_more():
    assert split(7, ["a", "b", "c"]) == (ZoneShare("a", 3), ZoneShare("b", 2), ZoneShare("c", 2))
    assert split(1, ["a", "b"]) == (ZoneShare("a", 1),)  # fewer instances than zones: no empty reservation
    assert split(4, ()) == ()


def test_zones_default_to_the_pools_zone_requirement():
    zoned = pool(capacityTypes=["on-demand", "reserved"], requirements=[
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2b", "ap-northeast-2d"]}])
    (reservation,) = plan_capacity(config(HOLDING, [launch({"availabilityZones": None})], [zoned]),
                                   HOLDING).reservations
    assert reservation.zone_names == ("ap-northeast-2b", "ap-northeast-2d")


def test_an_explicit_count_is_kept():
    (reservation,) = plan_capacity(config(HOLDING, [launch({"count": 2})]), HOLDING).reservations
    assert reservation.count == 2


def test_a_capacity_window_tiles_the_reserved_type_and_reserves_the_instances_it_fills():
    """64 CPU / 256 GiB on m7i.2xlarge (7.71 CPU, ~28.4 GiB beside DaemonSets) with 4 CPU / 16 GiB pods at most: two
    pods per instance, ten instances for the memory."""
    windows = [launch({"instanceType": "m7i.2xlarge"}, capacity={"cpu": "64", "memory": "256Gi"})]
    plan = plan_capacity(config(HOLDING, windows), HOLDING)
    placeholders, (reservation,) = plan.window("launch").placeholders, plan.reservations
    assert pods_per_node(placeholders, instance_type("m7i.2xlarge").room) == 2
    assert (placeholders.pods, reservation.count) == (20, 10)
    assert placeholders.pods * parse_quantity(placeholders.memory) >= 256 * 2 ** 30


def test_the_cost_estimate_puts_a_reserving_window_on_the_reserved_type():
    reserving = config(HOLDING)
    timeline = build_timeline(plan_capacity(reserving, HOLDING), HOLDING, HOLDING + timedelta(days=2))
    (window_cost,) = estimate_cost(timeline).windows
    assert (window_cost.fleet.shape.name, window_cost.fleet.nodes) == ("m7i.xlarge", 5)


# --- what the program registers --------------------------------------------------------------------------


def test_a_run_within_hold_from_registers_targeted_limited_reservations_split_over_the_zones(holding):
    evaluation, _ = holding
    reservations = {r.name: r for r in evaluation.of_type(RESERVATION)}
    assert set(reservations) == {"launch-reservation-ap-northeast-2a", "launch-reservation-ap-northeast-2c"}
    tags = {"team": "platform", "Name": "prescale-launch", "prescale.io/node-pool": "event",
            "prescale.io/window": "launch", "prescale.io/cluster": "prescale-test"}
    for zone, count in (("ap-northeast-2a", 3), ("ap-northeast-2c", 2)):
        assert as_object(reservations[f"launch-reservation-{zone}"]).get("instanceCount") == count
        assert reservations[f"launch-reservation-{zone}"].inputs == {
            "instanceType": "m7i.xlarge", "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
            "instanceCount": count, "instanceMatchCriteria": "targeted", "tenancy": "default",
            "endDateType": "limited", "endDate": "2027-03-02T03:04:00Z", "tags": tags}
    parent = evaluation.named("prescale:index:WindowReservations", "launch")
    assert all(r.parent == parent.urn for r in reservations.values())


def test_the_node_class_selects_each_reservation_by_id_and_passes_the_crd(holding):
    evaluation, built = holding
    node_class = as_object(evaluation.named(NODE_CLASS, "event-node-class"))
    ids = [term["id"] for term in node_class["spec"]["capacityReservationSelectorTerms"]]
    assert len(ids) == 2 and all(i.startswith("cr-") for i in ids)
    assert validate(node_class) == []
    assert validate(as_object(evaluation.named(NODE_POOL, "event-node-pool"))) == []
    outputs = built[0].reservation_outputs["launch"]
    assert outputs["held"] and outputs["zones"] == {"ap-northeast-2a": 3, "ap-northeast-2c": 2}


def test_the_pools_own_terms_come_first():
    own = pool(capacityTypes=["on-demand", "reserved"], capacityReservationSelectorTerms=[{"tags": {"team": "a"}}])
    evaluation, _ = run(config(HOLDING, pools=[own]), HOLDING)
    terms = as_object(evaluation.named(NODE_CLASS, "event-node-class"))["spec"]["capacityReservationSelectorTerms"]
    assert terms[0] == {"tags": {"team": "a"}} and len(terms) == 3 and all("id" in t for t in terms[1:])


def test_placeholders_select_the_reserved_type_and_the_reservations_zones(holding, early):
    for evaluation, _ in (holding, early):  # the same whether the reservations are held or not
        deployment = as_object(evaluation.named(DEPLOYMENT, "launch-placeholders"))
        pod = deployment["spec"]["template"]["spec"]
        assert pod["nodeSelector"] == {"prescale.io/node-pool": "event",
                                       "node.kubernetes.io/instance-type": "m7i.xlarge"}
        assert pod["affinity"]["nodeAffinity"] == {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ZONES}]}]}}
        assert "podAntiAffinity" in pod["affinity"]  # still one per node
        kubernetes_validate.validate(deployment, "1.34", strict=True)
    assert as_object(holding[0].named(DEPLOYMENT, "launch-placeholders")) == \
        as_object(early[0].named(DEPLOYMENT, "launch-placeholders"))


def test_an_earlier_run_registers_no_reservation_and_the_node_class_selects_none(early):
    evaluation, built = early
    assert evaluation.of_type(RESERVATION) == []
    assert "capacityReservationSelectorTerms" not in as_object(evaluation.named(NODE_CLASS, "event-node-class"))["spec"]
    assert any("are not created yet" in warning for warning in evaluation.warnings)
    assert built[0].next_up_for_reservations == "2027-02-28T23:50:00Z"
    assert built[0].reservation_outputs["launch"]["held"] is False


def budgets_at(now: datetime) -> list[dict]:
    """The event pool's registered disruption budgets, from a whole run at ``now``."""
    evaluation, _ = run(config(HOLDING), now)
    node_pool = as_object(evaluation.named(NODE_POOL, "event-node-pool"))
    assert validate(node_pool) == []  # the hold's `reasons` pass the CRD beside its schedule
    return node_pool["spec"]["disruption"]["budgets"]


def test_the_pool_stops_drift_not_emptiness_from_the_window_end_until_the_reserved_nodes_are_released(holding):
    """Karpenter drops a reservation from its view at its end date (03:04 UTC) and drifts the nodes EC2 still counts in
    it (up to an hour more): between the window's end and 04:14 no drifted node may go, while emptied ones leave
    at once as after any window."""
    evaluation, _ = holding
    budgets = as_object(evaluation.named(NODE_POOL, "event-node-pool"))["spec"]["disruption"]["budgets"]
    assert budgets == [{"nodes": "0", "schedule": "50 23 1 3 *", "duration": "3h10m"},
                       {"nodes": "0", "schedule": "0 3 2 3 *", "duration": "1h14m", "reasons": ["Drifted"]},
                       {"nodes": "100%", "reasons": ["Empty"]},
                       {"nodes": "10%", "reasons": ["Underutilized", "Drifted"]}]
    reasons = ("Empty", "Underutilized", "Drifted")
    during, after_end_date, just_before, after = (END - timedelta(minutes=1), END + timedelta(minutes=5),
                                                  RELEASED - timedelta(minutes=1), RELEASED)
    assert [allowed_disruptions(budgets, 5, reason, during) for reason in reasons] == [0, 0, 0]
    for moment in (END, after_end_date, just_before):
        assert [allowed_disruptions(budgets, 5, reason, moment) for reason in reasons] == [5, 1, 0], moment
    assert [allowed_disruptions(budgets, 5, reason, after) for reason in reasons] == [5, 1, 1]


def test_a_run_after_the_window_cancels_the_reservations_but_keeps_the_drift_hold_until_the_nodes_are_released():
    evaluation, built = run(config(HOLDING), END)
    assert evaluation.of_type(RESERVATION) == [] and built[0].reservations == {}
    assert "capacityReservationSelectorTerms" not in as_object(evaluation.named(NODE_CLASS, "event-node-class"))["spec"]
    assert {"nodes": "0", "schedule": "0 3 2 3 *", "duration": "1h14m", "reasons": ["Drifted"]} in budgets_at(END)
    assert any("ended with the window" in warning for warning in evaluation.warnings)
    assert built[0].reservation_outputs["launch"]["ended"] and built[0].next_up_for_reservations is None
    assert [budget for budget in budgets_at(RELEASED) if "schedule" in budget] == []  # released: the hold is lifted


def test_the_program_exports_the_reservations_and_when_the_next_up_must_run():
    wire = {key: value if isinstance(value, str) else json.dumps(value) for key, value in {
        "aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
        "prescale:nodePools": [RESERVED_POOL], "prescale:eventWindows": [launch()]}.items()}
    before, within = (run_program(ROOT, "reserve", now, config=wire).outputs for now in (EARLY, HOLDING))
    expected = {"instanceType": "m7i.xlarge", "zones": {"ap-northeast-2a": 3, "ap-northeast-2c": 2},
                "holdFrom": "2027-02-28T23:50:00Z", "scaleUp": "2027-03-01T23:50:00Z",
                "endDate": "2027-03-02T03:04:00Z", "driftHeldUntil": "2027-03-02T04:14:00Z"}
    assert before["reservations"] == {"launch": {**expected, "held": False, "ids": [], "ended": False}}
    assert before["nextUpForReservations"] == "2027-02-28T23:50:00Z"
    (held,) = within["reservations"].values()
    assert held["held"] and len(held["ids"]) == 2 and within["nextUpForReservations"] is None


def test_on_auto_mode_the_node_class_selects_the_reservations_by_id_too():
    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        deploy_capacity(config(HOLDING), Platform(cluster_name="prescale-test", node_role_name="auto-node",
                                                  kubernetes_provider=provider,
                                                  node_classes=AUTO_MODE_NODE_CLASSES), HOLDING)
    evaluation = evaluate(program)
    node_class = as_object(evaluation.named(NODE_CLASS_AUTO, "event-node-class"))
    assert [set(term) for term in node_class["spec"]["capacityReservationSelectorTerms"]] == [{"id"}, {"id"}]
    assert validate(node_class) == []
    assert len(evaluation.of_type(RESERVATION)) == 2


def test_an_unheld_plan_cannot_be_rendered():
    (reservation,) = plan_capacity(config(EARLY), EARLY).reservations
    with pytest.raises(ValueError, match="not held"):
        evaluate(lambda: WindowReservations("launch", WindowReservationsArgs(reservation, "prescale-test")))


# --- refusals ----------------------------------------------------------------------------------------------


def refusal(windows: list[dict], pools: list[dict] | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        config(HOLDING, windows, pools)
    (problem,) = caught.value.problems
    return problem


PATH = f"{CONFIG_NAMESPACE}:eventWindows[0].reserve"


@pytest.mark.parametrize("windows, pools, starts, says", [
    ([window("daily", "0 9 * * *", "0 12 * * *", nodes=2,
             reserve={"instanceType": "m7i.xlarge", "availabilityZones": ZONES})],
     None, PATH, "on a recurring window"),
    ([launch()], [pool(existing=True, limits=None)], PATH, "an existing pool"),
    ([launch()], [pool(capacityTypes=["on-demand", "reserved"], nodeClassName="default")], PATH,
     "uses the existing EC2NodeClass 'default'"),
    ([launch({"instanceType": "m7i.xlarg"})], None, f"{PATH}.instanceType", "did you mean 'm7i.xlarge'"),
    ([launch({"instanceType": "m7g.xlarge"})], None, f"{PATH}.instanceType", "is not a type node pool 'event' can"),
    ([launch()], [pool()], f"{CONFIG_NAMESPACE}:nodePools[0].capacityTypes", "['on-demand'] leaves out reserved"),
    ([launch({"availabilityZones": None})], None, PATH, "no availabilityZones"),
    ([launch({"availabilityZones": ["us-east-1a"]})], None, f"{PATH}.availabilityZones[0]",
     "not a zone of the stack's region 'ap-northeast-2'"),
    ([launch()], [pool(capacityTypes=["on-demand", "reserved"], requirements=[
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}])],
     f"{PATH}.availabilityZones[1]", "'ap-northeast-2c' is outside the zones node pool 'event' launches in"),
    ([launch({"instanceType": "m7i.large"}, nodes=2)], None, None, None),  # fits: 1 CPU / 2Gi on a large
    ([launch({"instanceType": "c7i.large"}, nodes=2)], [pool(capacityTypes=["on-demand", "reserved"],
                                                              nodeSize={"cpu": "1", "memory": "8Gi"})],
     f"{PATH}.instanceType", "cannot hold a placeholder of the window's nodeSize"),
    ([launch({"instanceType": "t3.nano"}, capacity={"cpu": "1", "memory": "1Gi"})],
     [pool(capacityTypes=["on-demand", "reserved"], instanceCategories=["t"])], f"{PATH}.instanceType",
     "leaves no room for placeholders beside a node's DaemonSets"),
    ([launch({"count": 300})], [pool(capacityTypes=["on-demand", "reserved"], limits={"cpu": "1000", "nodes": 100})],
     f"{PATH}.count", "300 × m7i.xlarge (300 nodes) is above the limit nodes 100 of node pool 'event'"),
    ([launch({"count": 300})], None, f"{PATH}.count",
     "(1200 vCPUs) is above the limit cpu '1000' of node pool 'event'"),
])
def test_a_reservation_that_could_not_work_is_refused_with_its_key(windows, pools, starts, says):
    if starts is None:
        config(HOLDING, windows, pools)
        return
    problem = refusal(windows, pools)
    assert problem.startswith(f"{starts}: ") and says in problem, problem


@pytest.mark.parametrize("limits", [{"cpu": "1000", "nodes": 100}, {"cpu": "400"}])
def test_a_count_exactly_at_the_pools_limit_is_accepted(limits):
    """100 × m7i.xlarge is 100 nodes and 400 vCPUs: Karpenter launches into all of them, none is paid unused."""
    at_limit = config(HOLDING, [launch({"count": 100})], [pool(capacityTypes=["on-demand", "reserved"],
                                                                limits={**limits, "memory": "4000Gi"})])
    assert plan_capacity(at_limit, HOLDING).reservations[0].count == 100


def test_selector_terms_on_a_pool_whose_capacity_types_leave_out_reserved_are_refused():
    terms = [{"id": "cr-0123456789abcdef0"}]
    problem = refusal([window("plain", "2027-03-02T09:00", "2027-03-02T12:00")],
                      [pool(capacityReservationSelectorTerms=terms)])
    assert problem.startswith(f"{CONFIG_NAMESPACE}:nodePools[0].capacityReservationSelectorTerms: "
                              "[{'id': 'cr-0123456789abcdef0'}] select reservations that node pool 'event' never "
                              "launches into: its capacityTypes ['on-demand'] leaves out reserved"), problem
    assert "allowed: add reserved" in problem
    config(HOLDING, [window("plain", "2027-03-02T09:00", "2027-03-02T12:00")],
           [pool(capacityTypes=["reserved", "on-demand"], capacityReservationSelectorTerms=terms)])


def test_a_reservation_id_that_cannot_be_ec2s_is_warned_and_kept():
    terms = [{"id": "cr-0123456789abcdef0"}, {"id": "cr-launch"}, {"tags": {"event": "launch"}}]
    plain = [window("plain", "2027-03-02T09:00", "2027-03-02T12:00")]
    plan = plan_capacity(config(HOLDING, plain, [pool(capacityTypes=["reserved", "on-demand"],
                                                      capacityReservationSelectorTerms=terms)]), HOLDING)
    assert [w for w in plan.warnings if "reservation id" in w] == [
        "node pool 'event': capacityReservationSelectorTerms[1].id 'cr-launch' cannot be an EC2 capacity reservation "
        "id (cr- and 17 hexadecimal digits, like cr-0123456789abcdef0), so Karpenter would find no reservation by it "
        "and launch no reserved capacity for that term; copy the id from `aws ec2 describe-capacity-reservations`"]


def test_reserved_without_selector_terms_is_accepted_beside_a_reserving_window_only():
    config(HOLDING)  # the window's reservations are the pool's
    with pytest.raises(ConfigError, match="asks for reserved capacity"):
        config(HOLDING, [window("plain", "2027-03-02T09:00", "2027-03-02T12:00")])


@pytest.mark.parametrize("reserve, says", [
    ({"holdFrom": "0m"}, "more than zero"),
    ({"holdFrom": "90s"}, "whole minutes"),
    ({"holdFrom": "169h"}, "'169h' is more than 168h (a week): the reservation is billed every hour"),
    ({"count": 0}, "at least 1"),
    ({"availabilityZones": ["ap-northeast-2a", "ap-northeast-2a"]}, "more than once"),
    ({"availabilityZones": "ap-northeast-2a"}, "must be a list"),
    ({"instanceType": "M7i.xlarge"}, "lowercase"),
])
def test_reserve_values_are_refused_on_their_own(reserve, says):
    problem = refusal([launch(reserve)])
    assert problem.startswith(PATH) and says in problem, problem


def test_a_hold_of_a_week_is_the_longest_accepted():
    (reservation,) = plan_capacity(config(EARLY, [launch({"holdFrom": "168h"})]), EARLY).reservations
    assert reservation.hold_from == SCALE_UP - timedelta(days=7)


# --- prescale schedule ---------------------------------------------------------------------------------------

RESERVING_STACK = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: prescale-test}
  prescale:nodePools: [{name: event, capacityTypes: [on-demand, reserved], limits: {cpu: "1000", memory: 4000Gi}}]
  prescale:pricing: {instanceTypes: {"m7i.xlarge": 0.2016}}
  prescale:eventWindows:
    - {name: launch, nodePool: event, timezone: Asia/Seoul, start: "2027-03-02T09:00", end: "2027-03-02T12:00",
       nodes: 5, reserve: {instanceType: m7i.xlarge, availabilityZones: [ap-northeast-2a, ap-northeast-2c]}}
"""


@pytest.mark.parametrize("at, state, next_up_line, hours", [
    ("2027-02-27T00:00Z", "not created yet", True, 27 + 14 / 60),  # from Sun 23:50 (the hold's start) to Tue 03:04
    ("2027-03-01T12:00Z", "held", False, 15 + 4 / 60)])  # from now: the hours before it are spent
def test_schedule_lists_each_reservation_with_its_cost_from_the_earliest_up_that_creates_it_or_from_now(
        tmp_path, capsys, at, state, next_up_line, hours):
    project = make_project(tmp_path, program="", stacks={"test": RESERVING_STACK})
    assert main(["schedule", "--project", str(project), "--stack", "test", "--at", at, "--days", "3"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("Capacity reservations"):]
    row = next(line for line in section.splitlines() if line.startswith("launch "))
    assert row.split()[1:3] == ["5", "×"] and "Sun 2027-02-28 23:50" in row and "Tue 2027-03-02 03:04" in row
    assert state in row and f"{hours:.1f}" in row and "$1.01" in row and f"${5 * 0.2016 * hours:.2f}" in row
    assert ("Run `pulumi up` from Sun 2027-02-28 23:50 UTC" in section) == next_up_line
    assert "Event pods still on reserved nodes at the end stay where they are" in section


def test_a_refused_window_leaves_a_pools_reserved_capacity_type_unjudged():
    """The refused window may be the one that reserves on the pool: no problem is made up for the pool."""
    bad = {**launch(), "timezone": "Asia/Seol"}
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
           "prescale:nodePools": [RESERVED_POOL], "prescale:eventWindows": [bad]}
    with pytest.raises(ConfigError) as caught:
        load_stack_config(raw, HOLDING)
    assert [problem.split(":")[1] for problem in caught.value.problems] == ["eventWindows[0].timezone"]
