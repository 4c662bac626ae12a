"""``prescale:alerts``: the alerting rules' switch."""

from __future__ import annotations

from pydantic import Field, StrictBool

from .base import Model


class AlertsConfig(Model):
    """``prescale:alerts``: alerting rules for the windows, for a cluster that already runs the Prometheus Operator
    and kube-state-metrics (docs/alerts.md). Off by default."""

    prometheus_rule: StrictBool = Field(default=False, description=(
        "A monitoring.coreos.com/v1 PrometheusRule prescale/prescale-alerts that alerts when a window's capacity "
        "is late; for existing clusters that run the Prometheus Operator and kube-state-metrics (docs/alerts.md)."))
