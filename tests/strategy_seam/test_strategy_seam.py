"""The strategy is a seam: a fourth strategy, registered from the test tree (:mod:`tests.strategy_seam.warm`),
goes through validation, the plan, the components under mocks and ``prescale schedule --json`` without a line of
prescale changed; and outside the strategy modules and the registries no code compares a strategy's name."""

from __future__ import annotations

import json
import re

import pytest
from prescale.capacity import deploy_capacity
from prescale.capacity import strategies as capacity_strategies
from prescale.capacity.alert_rules import RULES
from prescale.model import strategies
from prescale.model.plan import plan_capacity
from prescale.model.validation import ConfigError
from prescale.model.windows import ArmedWindow
from prescale.offline import evaluate

from prescale_cli.main import main
from tests.strategy_seam import warm
from tests.support import ROOT
from tests.support.capacity import NOW, stack_config, stand_in_platform
from tests.support.cli import make_project

POOLS = [{"name": "spare", "strategy": "warm", "limits": {"cpu": "64", "memory": "256Gi"}},
         {"name": "event", "limits": {"cpu": "64", "memory": "256Gi"}}]
WINDOWS = [{"name": "lunch", "nodePool": "spare", "timezone": "Asia/Seoul", "start": "0 12 * * *",
            "end": "0 13 * * *", "nodes": 3},
           {"name": "dinner", "nodePool": "event", "timezone": "Asia/Seoul", "start": "0 18 * * *",
            "end": "0 19 * * *", "nodes": 2}]


@pytest.fixture
def registered(monkeypatch):
    """The warm strategy in both registries, for this test only."""
    monkeypatch.setitem(strategies.STRATEGIES, warm.NAME, warm.WARM)
    monkeypatch.setitem(capacity_strategies.DEPLOYERS, warm.NAME, warm.deploy)


def test_an_unregistered_strategy_is_refused_with_the_registered_ones():
    with pytest.raises(ConfigError) as refused:
        stack_config(POOLS, WINDOWS)
    assert refused.value.problems == ["prescale:nodePools[0].strategy: must be one of placeholders, static, buffer "
                                      "(got 'warm')"]


def test_a_registered_strategy_is_validated_planned_and_deployed(registered):
    config = stack_config(POOLS, WINDOWS)
    plan = plan_capacity(config, NOW)
    lunch = plan.window("lunch")
    assert isinstance(lunch, ArmedWindow) and lunch.strategy is warm.WARM
    assert lunch.capacity == warm.WarmNodes("warm-lunch", 3)
    assert lunch.freeze is not None and plan.pools["spare"].freezes == [lunch.freeze]  # on the pool's NodePool

    evaluation = evaluate(lambda: deploy_capacity(config, stand_in_platform(), NOW))
    config_maps = {r.name: r.inputs for r in evaluation.of_type("kubernetes:core/v1:ConfigMap")}
    assert config_maps["lunch-warm"]["data"] == {"nodes": "3"}
    assert [r.name for r in evaluation.of_type("kubernetes:apps/v1:Deployment")] == ["dinner-placeholders"]


def test_its_own_checks_refuse_what_it_cannot_hold(registered):
    capacity = [{key: value for key, value in WINDOWS[0].items() if key != "nodes"} | {
        "capacity": {"cpu": "4", "memory": "8Gi"}}]
    with pytest.raises(ConfigError) as refused:
        stack_config(POOLS, capacity)
    assert refused.value.problems == ["prescale:eventWindows[0].capacity: a warm pool holds whole nodes; "
                                      "allowed: nodes"]
    with pytest.raises(ConfigError) as refused:
        stack_config([{"name": "spare", "strategy": "warm", "existing": True}], [])
    assert any("a warm pool needs a pool prescale creates" in problem for problem in refused.value.problems)


def test_schedule_json_shows_its_windows_and_asks_it_for_their_cost(registered, tmp_path, capsys):
    stack = json.dumps({"config": {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "shop"},
                                   "prescale:nodePools": POOLS, "prescale:eventWindows": WINDOWS}})
    project = make_project(tmp_path, program="", stacks={"test": stack})
    assert main(["schedule", "--project", str(project), "--stack", "test", "--at", "2026-12-01T00:00Z",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    lunch = [occurrence for occurrence in document["occurrences"] if occurrence["window"] == "lunch"]
    assert lunch and {occurrence["strategy"] for occurrence in lunch} == {"warm"}
    assert {tail["window"]: tail["nodesStayAfterEnd"] for tail in document["cost"]["tails"]}["lunch"] == "3m"
    assert not RULES.get(warm.NAME)  # a strategy without alert rules of its own gets none, and nothing breaks


# A strategy's name written out, outside the strategy packages: each is allowed for the reason given.
_NAME = re.compile(r"""["'](placeholders|static|buffer)["']""")
_ALLOWED = {
    "components/model/config/pools.py": "default=\"placeholders\"",  # the default a pool gets when it names none
    "components/capacity/alert_rules.py": "\"placeholders\": pool_rules",  # the alert rules' registry
    "prescale_cli/main.py": "\"scaledObject\", \"placeholders\", \"static\"",  # JSON keys in --help
    "components/model/checks/reservations.py": "\"placeholders\" not in refused.sections",  # the config section
    "components/model/checks/strategies.py": "\"placeholders\" not in refused.sections",
    "prescale_cli/picture.py": "else \"placeholders\"",  # a label: what the lead time holds
}


def test_no_code_outside_the_strategies_compares_a_strategy_name():
    offenders = [f"{where}:{number}: {line.strip()}"
                 for folder in ("components", "prescale_cli") for path in sorted((ROOT / folder).rglob("*.py"))
                 if "strategies" not in path.parts and path.name != "ec2_instance_types.py"
                 and (where := str(path.relative_to(ROOT)))
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if _NAME.search(line) and _ALLOWED.get(where, "\0") not in line]
    assert offenders == []


def test_a_strategy_without_components_is_refused_by_name(monkeypatch):
    monkeypatch.setitem(strategies.STRATEGIES, warm.NAME, warm.WARM)
    config = stack_config(POOLS, WINDOWS)
    with pytest.raises(ValueError, match="strategy 'warm' has no components: register its deployer"):
        evaluate(lambda: deploy_capacity(config, stand_in_platform(), NOW))
