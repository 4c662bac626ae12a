"""The user's Helm values over prescale's: the merge, and the model's tables held to what the platform renders and
to the charts themselves (the rendered result is in test_charts.py)."""

import copy

import pytest
from prescale.contract import AUTO_MODE_SYSTEM_PLACEMENT, SystemPlacement
from prescale.model.checks.helm_values import KARPENTER_VALUES, KEDA_VALUES, ChartValues, unknown_paths
from prescale.platform.helm import merged_values
from prescale.platform.karpenter import controller_values
from prescale.platform.keda import keda_values

from tests.support.platform import SYSTEM_PLACEMENT

CHARTS = (KARPENTER_VALUES, KEDA_VALUES)
PLACEMENTS = {"system-node-group": SYSTEM_PLACEMENT, "existing-cluster": SystemPlacement(),
              "auto-mode": AUTO_MODE_SYSTEM_PLACEMENT}


def leaf_paths(values: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every path to a value that is not a map (a map's leaves are what prescale actually sets)."""
    return [path for key, value in values.items()
            for path in (leaf_paths(value, (*prefix, key)) if isinstance(value, dict) and value else [(*prefix, key)])]


def test_maps_merge_key_by_key_and_anything_else_replaces():
    rendered = {"controller": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}},
                "tolerations": [{"key": "a"}], "logLevel": "info", "replicas": 2}
    overrides = {"controller": {"resources": {"limits": {"memory": "2Gi"}}, "image": {"tag": "x"}},
                 "tolerations": [{"key": "b"}], "logLevel": {"as": "map"}, "podLabels": {"team": "a"}}
    assert merged_values(rendered, overrides) == {
        "controller": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1", "memory": "2Gi"}},
                       "image": {"tag": "x"}},
        "tolerations": [{"key": "b"}], "logLevel": {"as": "map"}, "replicas": 2, "podLabels": {"team": "a"}}


def test_a_scalar_or_a_list_replaces_a_whole_map():
    assert merged_values({"a": {"b": 1}, "c": {"d": 1}}, {"a": "x", "c": []}) == {"a": "x", "c": []}


def test_merging_changes_neither_input():
    rendered, overrides = {"a": {"b": {"c": 1}}}, {"a": {"b": {"d": 2}}}
    before = copy.deepcopy((rendered, overrides))
    merged_values(rendered, overrides)
    assert (rendered, overrides) == before


def rendered(placement: SystemPlacement) -> dict[str, dict]:
    """Chart → the values prescale renders for it (with IRSA, which adds the service account's annotation, and with
    the alerts' monitors)."""
    return {"karpenter": controller_values(cluster_name="c", queue_name="q", placement=placement, irsa_role_arn="arn",
                                           scraped=True),
            "keda": keda_values(placement, scraped=True)}


@pytest.mark.parametrize("placement", PLACEMENTS.values(), ids=list(PLACEMENTS))
@pytest.mark.parametrize("chart", CHARTS, ids=lambda chart: chart.chart)
def test_every_path_prescale_renders_is_owned_or_left_to_the_user_by_name(chart: ChartValues, placement):
    """A value prescale starts to set must be declared either way, so a user can never override it unawares."""
    declared = [tuple(path.split(".")) for path in (*chart.owned, *chart.overridable)]
    assert [path for path in leaf_paths(rendered(placement)[chart.chart])
            if not any(path[:len(prefix)] == prefix for prefix in declared)] == []


@pytest.mark.parametrize("chart", CHARTS, ids=lambda chart: chart.chart)
def test_what_a_user_may_change_is_something_prescale_renders(chart: ChartValues):
    leaves = leaf_paths(rendered(SYSTEM_PLACEMENT)[chart.chart])
    for path in chart.overridable:
        prefix = tuple(path.split("."))
        assert any(leaf[:len(prefix)] == prefix for leaf in leaves), path


@pytest.mark.parametrize("chart", CHARTS, ids=lambda chart: chart.chart)
def test_every_path_the_tables_name_is_a_key_of_its_chart(chart: ChartValues):
    for path in (*chart.owned, *chart.overridable):
        *parents, last = path.split(".")
        values: dict = {last: "x"}
        for key in reversed(parents):
            values = {key: values}
        assert unknown_paths(values, chart.keys) == [], path
