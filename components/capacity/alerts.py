"""``prescale:alerts.prometheusRule``: the windows' alerting rules as a PrometheusRule, for the cluster's Prometheus.

The rules themselves (what each alert watches, and why) are :mod:`prescale.capacity.alert_rules`. This component
only puts them in the cluster, and only where they can work: the Prometheus Operator's PrometheusRule CRD is read
first (``CustomResourceDefinition.get``), and the rule waits for that read. On a cluster without the CRD the read
fails at preview, before anything is applied: Pulumi reports ``resource 'prometheusrules.monitoring.coreos.com'
does not exist`` on the read named ``<name>-need-prometheus-operator`` (docs/alerts.md). A program cannot catch a
failed read (pulumi/pulumi#3364), so that message is the refusal.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.plan import CapacityPlan
from .alert_rules import rule_groups
from .crds import PrometheusRule

PROMETHEUS_RULE_CRD = "prometheusrules.monitoring.coreos.com"
RULE_NAME = "prescale-alerts"
RULE_LABELS = {"app.kubernetes.io/name": "prescale-alerts", "app.kubernetes.io/managed-by": "prescale"}


@dataclass(frozen=True)
class EventAlertsArgs:
    plan: CapacityPlan  # the windows armed now are the ones watched
    namespace: pulumi.Input[str]  # the placeholders' namespace (`prescale`): the rule lives beside them
    platform: Platform  # its Kubernetes provider


class EventAlerts(pulumi.ComponentResource):
    """The PrometheusRule watching every armed window, applied only once the PrometheusRule CRD has been read."""

    rule: PrometheusRule

    def __init__(self, name: str, args: EventAlertsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:EventAlerts", name, {}, opts)
        in_cluster = pulumi.ResourceOptions(parent=self, provider=args.platform.kubernetes_provider)
        crd = k8s.apiextensions.v1.CustomResourceDefinition.get(f"{name}-need-prometheus-operator",
                                                                PROMETHEUS_RULE_CRD, opts=in_cluster)
        self.rule = PrometheusRule(
            f"{name}-rule", {"name": RULE_NAME, "namespace": args.namespace, "labels": RULE_LABELS},
            {"groups": rule_groups(args.plan)},
            opts=pulumi.ResourceOptions.merge(in_cluster, pulumi.ResourceOptions(depends_on=[crd])))
        self.register_outputs({"ruleName": RULE_NAME})
