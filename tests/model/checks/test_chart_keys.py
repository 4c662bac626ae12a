"""The values keys of the charts prescale installs (:mod:`prescale.model.checks.chart_keys`), the tree that
``prescale:<chart>.values`` is checked against: it is what the vendored charts declare and read, of the versions
prescale installs; every path prescale's own rules name is in it; and a path templates read whole takes anything
below it while a misspelled key is found."""

from collections.abc import Mapping

import pytest
from prescale.model.checks.chart_keys import KARPENTER_CHART_VERSION, KARPENTER_KEYS, KEDA_CHART_VERSION, KEDA_KEYS
from prescale.model.checks.helm_values import KARPENTER_VALUES, KEDA_VALUES, unknown_paths
from prescale.model.config import GATE_VALUES, KarpenterConfig, KedaConfig

from tools.chart_keys_gen import CHARTS, chart_keys, chart_version

TREES = {"karpenter": (KARPENTER_CHART_VERSION, KARPENTER_KEYS), "keda": (KEDA_CHART_VERSION, KEDA_KEYS)}


def known(tree, path: str) -> bool:
    """Whether the dotted ``path`` is a key of ``tree``, or lies below a key templates read whole."""
    for key in path.split("."):
        if tree is None:
            return True
        if key not in tree:
            return False
        tree = tree[key]
    return True


def shape_problems(tree, at: str = "") -> list[str]:
    """Every node of ``tree`` that is neither a map of text keys nor None (read whole)."""
    if tree is None:
        return []
    if not isinstance(tree, Mapping):
        return [at]
    return [problem for key, below in tree.items()
            for problem in ([f"{at}.{key}"] if not isinstance(key, str) else shape_problems(below, f"{at}.{key}"))]


@pytest.mark.parametrize("chart", sorted(TREES))
def test_the_keys_are_what_the_vendored_chart_declares_and_reads_now(chart):
    version, keys = TREES[chart]
    assert version == chart_version(CHARTS / chart)
    assert keys == chart_keys(CHARTS / chart)
    assert shape_problems(keys) == []


def test_the_charts_are_the_versions_prescale_installs_by_default():
    assert KARPENTER_CHART_VERSION == KarpenterConfig().version
    assert KEDA_CHART_VERSION == KedaConfig().version


@pytest.mark.parametrize("values", [KARPENTER_VALUES, KEDA_VALUES], ids=lambda values: values.chart)
def test_every_path_prescale_owns_overrides_or_reads_is_a_key_of_its_chart(values):
    env_path, set_from = values.env
    paths = [*values.owned, *values.overridable, ".".join(env_path), *set_from.values()]
    assert [path for path in paths if not known(values.keys, path)] == []


def test_the_gates_prescale_turns_on_are_karpenter_chart_settings():
    gates = KARPENTER_KEYS["settings"]["featureGates"]
    assert [value for value in GATE_VALUES.values() if value not in gates] == []


def test_a_map_read_whole_takes_anything_and_a_misspelled_key_is_found():
    assert KARPENTER_KEYS["nodeSelector"] is None and KEDA_KEYS["resources"]["operator"] is None
    assert unknown_paths({"nodeSelector": {"example.com/any": "label"},
                          "controller": {"resources": {"limits": {"memory": "2Gi"}}}}, KARPENTER_KEYS) == []
    assert unknown_paths({"settings": {"featureGate": {"staticCapacity": True}, "batchMaxDuration": "15s"}},
                         KARPENTER_KEYS) == [("settings", "featureGate")]
    assert unknown_paths({"logging": {"operator": {"levle": "debug"}}}, KEDA_KEYS) == [("logging", "operator",
                                                                                         "levle")]
