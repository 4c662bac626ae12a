"""The config is parsed once: the models give what they validated in parsed form, and past validation nothing
parses a config value again.

The values (crons, durations, zones, quantities) are validated as the config models load; checks, the plan and
the CLI read them through the models' properties (``EventWindow.start_cron``, ``NodePoolConfig.consolidation_wait``,
``Limits.amount``, ...), so a value's meaning is decided in one place.
"""

import ast
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from prescale.model.config import EventWindow, Limits, NodePoolConfig, PlaceholderConfig
from prescale.model.config.base import CapacityRequest

from tests.support import ROOT

PARSERS = {"parse_cron", "parse_duration", "parse_quantity", "load_zone"}

# Where a parser may still be called outside the config models and the maths that define the values. Each says why.
ALLOWED = {
    # The rules that decide whether a window's crons are valid over the year read them as written (a value refused
    # has no parsed form to read), and so does the schedule maths they call.
    "components/model/checks/window_times.py": {"parse_cron", "load_zone"},
    # Karpenter's Helm values are a free-form map (the chart's, not a config model): read as the chart gets them.
    "components/model/checks/helm_values.py": {"parse_quantity"},
    # The placeholder plan writes its pods' size as Kubernetes quantities; its `requests` is that size parsed, once.
    "components/model/fleet/sizing.py": {"parse_quantity"},
    # The command's own input (`--days`/`--older-than`), not the config.
    "prescale_cli/main.py": {"parse_duration"},
    # A calendar event no stack takes is read from the raw file it edits: no model holds it.
    "prescale_cli/prune.py": {"load_zone"},
}
# The rooms that define what the values mean, parse them for the config models, or compute with their raw form.
DEFINING = ("components/model/values/", "components/model/config/", "components/model/schedule/",
            "components/calendar", "components/model/calendar.py")


def _parser_calls(path: Path) -> set[str]:
    return {node.func.id for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PARSERS}


def test_past_validation_no_code_parses_a_config_value_again():
    found = {}
    for path in sorted([*(ROOT / "components").rglob("*.py"), *(ROOT / "prescale_cli").rglob("*.py")]):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(DEFINING):
            continue
        extra = _parser_calls(path) - ALLOWED.get(name, set())
        if extra:
            found[name] = sorted(extra)
    assert found == {}, "read the config models' parsed properties instead"


def test_every_allowance_is_still_needed():
    unused = {name: sorted(allowed - _parser_calls(ROOT / name)) for name, allowed in ALLOWED.items()}
    assert {name: calls for name, calls in unused.items() if calls} == {}


def test_the_models_give_their_values_parsed():
    window = EventWindow.model_validate({"name": "sale", "nodePool": "event", "timezone": "Asia/Seoul",
                                         "start": "0 11 * * 1-5", "end": "0 13 * * 1-5", "nodes": 2,
                                         "leadTime": "15m"})
    assert window.zone.key == "Asia/Seoul"
    assert window.start_cron.times == (11 * 60,)
    assert window.lead == timedelta(minutes=15)
    pool = NodePoolConfig.model_validate({"name": "event", "consolidateAfter": "90s", "expireAfter": "720h",
                                          "limits": {"cpu": 64, "memory": "256Gi"}})
    assert pool.consolidation_wait == timedelta(seconds=90)
    assert pool.lifetime(auto_mode=False) == timedelta(hours=720)
    assert pool.termination_grace > timedelta(0)
    assert pool.limits is not None
    assert (pool.limits.amount("cpu"), pool.limits.amount("memory"), pool.limits.amount("nodes")) == (
        Decimal(64), Decimal(256 * 2**30), None)
    assert NodePoolConfig.model_validate({"name": "event", "limits": {"nodes": 3}}).lifetime(auto_mode=False) is None
    assert PlaceholderConfig.model_validate({"failsafeGrace": "1.5h"}).grace == timedelta(minutes=90)
    assert CapacityRequest(cpu="500m", memory="2Gi").requests == (Decimal("0.5"), Decimal(2 * 2**30))
    assert Limits(cpu="1000").amount("cpu") == Decimal(1000)
