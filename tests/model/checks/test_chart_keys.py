"""``prescale.model.checks.chart_keys``: the Helm values keys the charts prescale installs read, generated from the
charts themselves (tools/chart_keys_gen.py), which the values hatch is checked against."""

from prescale.model.checks.chart_keys import KARPENTER_KEYS, KEDA_KEYS


def test_the_keys_prescale_sets_are_keys_the_charts_read():
    assert "featureGates" in KARPENTER_KEYS["settings"] and "clusterName" in KARPENTER_KEYS["settings"]
    assert "serviceMonitor" in KARPENTER_KEYS and "prometheus" in KEDA_KEYS
    assert "notAKey" not in KARPENTER_KEYS
