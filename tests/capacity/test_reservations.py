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
from prescale.model.fleet.quantity import parse_quantity
from prescale.model.fleet.reservations import ZoneShare, next_up, split
from prescale.model.fleet.sizing import pods_per_node
from prescale.model.plan import plan_capacity
from prescale.model.validation import ConfigError, load_stack_config
from prescale.offline import evaluate, run_program

from prescale_cli.cost import estimate_cost
from prescale_cli.main import main
from prescale_cli.timeline import build_timeline
from tests.support import ROOT
from tests.support.capacity import DEPLOYMENT, NODE_CLASS, NODE_POOL, as_object, pool, run, stack_config, window
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


def test_an_earlier_run_holds_none_and_says_when_to_run_up():
    plan = plan_capacity(config(EARLY), EARLY)
    (reservation,) = plan.reservations
    assert not reservation.held
    assert next_up(plan.reservations) == HOLD_FROM
    (warning,) = [w for w in plan.warnings if "capacity reservations" in w]
    assert "are not created yet" in warning and "run `pulumi up` between then and the scale-up" in warning
    assert "2027-02-28 23:50 UTC" in warning and "2027-03-01 23:50 UTC" in warning


def test_a_held_reservation_warns_what_it_costs_until_when():
    (warning,) = [w for w in plan_capacity(config(HOLDING), HOLDING).warnings if "capacity reservations" in w]
    assert warning.startswith("event window 'launch': holds capacity reservations 5 × m7i.xlarge "
                              "(ap-northeast-2a: 3, ap-northeast-2c: 2) until 2027-03-02 12:04 KST")
    assert "bills every reserved instance each hour, used or not" in warning


def test_once_the_window_has_ended_no_reservation_is_planned():
    assert plan_capacity(config(HOLDING), END).reservations == ()
    assert plan_capacity(config(HOLDING), END - timedelta(seconds=1)).reservations[0].held


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
            "prescale.io/window": "launch"}
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


def test_a_run_after_the_window_registers_no_reservation():
    evaluation, built = run(config(HOLDING), END)
    assert evaluation.of_type(RESERVATION) == [] and built[0].plan.reservations == ()
    assert "capacityReservationSelectorTerms" not in as_object(evaluation.named(NODE_CLASS, "event-node-class"))["spec"]


def test_the_program_exports_the_reservations_and_when_the_next_up_must_run():
    wire = {key: value if isinstance(value, str) else json.dumps(value) for key, value in {
        "aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
        "prescale:nodePools": [RESERVED_POOL], "prescale:eventWindows": [launch()]}.items()}
    before, within = (run_program(ROOT, "reserve", now, config=wire).outputs for now in (EARLY, HOLDING))
    expected = {"instanceType": "m7i.xlarge", "zones": {"ap-northeast-2a": 3, "ap-northeast-2c": 2},
                "holdFrom": "2027-02-28T23:50:00Z", "scaleUp": "2027-03-01T23:50:00Z",
                "endDate": "2027-03-02T03:04:00Z"}
    assert before["reservations"] == {"launch": {**expected, "held": False, "ids": []}}
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
        evaluate(lambda: WindowReservations("launch", WindowReservationsArgs(reservation)))


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
     f"{PATH}.count", "300 × m7i.xlarge (300 nodes) is above node pool 'event''s limit nodes 100"),
    ([launch({"count": 300})], None, f"{PATH}.count", "(1200 vCPUs) is above node pool 'event''s limit cpu '1000'"),
])
def test_a_reservation_that_could_not_work_is_refused_with_its_key(windows, pools, starts, says):
    if starts is None:
        config(HOLDING, windows, pools)
        return
    problem = refusal(windows, pools)
    assert problem.startswith(f"{starts}: ") and says in problem, problem


def test_reserved_without_selector_terms_is_accepted_beside_a_reserving_window_only():
    config(HOLDING)  # the window's reservations are the pool's
    with pytest.raises(ConfigError, match="asks for reserved capacity"):
        config(HOLDING, [window("plain", "2027-03-02T09:00", "2027-03-02T12:00")])


@pytest.mark.parametrize("reserve, says", [
    ({"holdFrom": "0m"}, "more than zero"),
    ({"holdFrom": "90s"}, "whole minutes"),
    ({"count": 0}, "at least 1"),
    ({"availabilityZones": ["ap-northeast-2a", "ap-northeast-2a"]}, "more than once"),
    ({"availabilityZones": "ap-northeast-2a"}, "must be a list"),
    ({"instanceType": "M7i.xlarge"}, "lowercase"),
])
def test_reserve_values_are_refused_on_their_own(reserve, says):
    problem = refusal([launch(reserve)])
    assert problem.startswith(PATH) and says in problem, problem


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


@pytest.mark.parametrize("at, state, next_up_line", [
    ("2027-02-27T00:00Z", "not created yet", True), ("2027-03-01T12:00Z", "held", False)])
def test_schedule_lists_each_reservation_with_its_cost_from_the_earliest_up_that_creates_it(
        tmp_path, capsys, at, state, next_up_line):
    project = make_project(tmp_path, program="", stacks={"test": RESERVING_STACK})
    assert main(["schedule", "--project", str(project), "--stack", "test", "--at", at, "--days", "3"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("Capacity reservations"):]
    # 5 × $0.2016 from Sun 2027-02-28 23:50 to Tue 2027-03-02 03:04 UTC: 27.23 hours.
    row = next(line for line in section.splitlines() if line.startswith("launch "))
    assert row.split()[1:3] == ["5", "×"] and "Sun 2027-02-28 23:50" in row and "Tue 2027-03-02 03:04" in row
    assert state in row and "27.2" in row and "$1.01" in row and f"${5 * 0.2016 * (27 + 14 / 60):.2f}" in row
    assert ("Run `pulumi up` from Sun 2027-02-28 23:50 UTC" in section) == next_up_line


def test_a_refused_window_leaves_a_pools_reserved_capacity_type_unjudged():
    """The refused window may be the one that reserves on the pool: no problem is made up for the pool."""
    bad = {**launch(), "timezone": "Asia/Seol"}
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
           "prescale:nodePools": [RESERVED_POOL], "prescale:eventWindows": [bad]}
    with pytest.raises(ConfigError) as caught:
        load_stack_config(raw, HOLDING)
    assert [problem.split(":")[1] for problem in caught.value.problems] == ["eventWindows[0].timezone"]
