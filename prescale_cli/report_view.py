"""``prescale report`` and ``prescale tune`` as text (a table per window, a line per occurrence) and as their
``--json`` documents."""

from __future__ import annotations

from datetime import datetime, timedelta

from prescale.model.values.duration import format_duration

from . import documents
from .output import Output
from .report import NEEDS_JOBS, NEEDS_KEDA, Measured, Report
from .schedule_report import local_times
from .tune import Sizing, Tuned


def report_document(report: Report) -> documents.ReportDocument:
    # `from` is a keyword: the key goes in by its alias.
    return documents.ReportDocument.model_validate({
        "stack": report.stack, "from": report.since, "to": report.until,
        "occurrences": [_occurrence(measured) for measured in report.occurrences]})


def _occurrence(measured: Measured) -> documents.MeasuredOccurrence:
    occurrence, spread = measured.occurrence, measured.node_ready_seconds
    return documents.MeasuredOccurrence(
        window=measured.window, strategy=measured.strategy.name, scale_up=occurrence.scale_up_utc,
        start=occurrence.start_utc, end=occurrence.end_utc, planned=measured.planned,
        ready_at_start=measured.ready_at_start, complete_at=measured.complete_at,
        margin_seconds=measured.margin_seconds,
        node_ready_seconds=documents.NodeReadySeconds(p50=spread.p50, p95=spread.p95, max=spread.max)
        if spread else None,
        unschedulable_pod_minutes=_round(measured.unschedulable_pod_minutes),
        unschedulable_pods=measured.unschedulable_pods, nodes_gone_at=measured.nodes_gone_at,
        node_claim_launch_failures=measured.launch_failures, placeholders_replaced=measured.placeholders_replaced,
        scale_up_measured=measured.measured_scale_up, scale_up_delay_seconds=measured.scale_up_delay_seconds,
        node_hours=_round(measured.node_hours), ideal_node_hours=_round(measured.ideal_node_hours),
        cost=_round(measured.cost), verdict=measured.verdict, missing=measured.missing)


def show_report(report: Report, output: Output) -> None:
    output.heading(f"Stack {report.stack}: events from {_utc(report.since)} to {_utc(report.until)}")
    if not report.occurrences:
        output.line("No window had an occurrence in the range.")
        return
    for window in dict.fromkeys(measured.window for measured in report.occurrences):
        rows = [measured for measured in report.occurrences if measured.window == window]
        output.table(["Local: scale-up → start – end", "Scaled up", "Planned", "Ready at start", "Complete",
                      "Node launch → Ready", "Unschedulable", "Launch failures", "Replaced", "Node-hours (ideal)",
                      "Verdict"],
                     [_row(measured) for measured in rows],
                     title=f"Window {window} (pool {rows[0].node_pool}, {rows[0].strategy.name})")
    missing = dict.fromkeys(need for measured in report.occurrences for need in measured.missing)
    for need in missing:
        output.line(f"No data: {need}.")
    served = sum(measured.verdict == "served" for measured in report.occurrences)
    output.line(f"{served} of {len(report.occurrences)} occurrences served; docs/report.md explains each figure.")


def _row(measured: Measured) -> list[str]:
    spread = measured.node_ready_seconds
    nodes = f"p50 {spread.p50:.0f}s, p95 {spread.p95:.0f}s, max {spread.max:.0f}s" if spread else "no data"
    pods = measured.unschedulable_pod_minutes
    hours, ideal = measured.node_hours, measured.ideal_node_hours
    return [local_times(measured.occurrence), _scaled_up(measured), f"{measured.planned} {measured.counted}",
            "no data" if measured.ready_at_start is None else str(measured.ready_at_start), _complete(measured),
            nodes, "no data" if pods is None else f"{measured.unschedulable_pods} pods, {pods:.1f} pod-min",
            _failures(measured.launch_failures),
            _replaced(measured),
            "no data" if hours is None else f"{hours:.2f}" + ("" if ideal is None else f" ({ideal:.2f})"),
            measured.verdict]


def _complete(measured: Measured) -> str:
    """When all of it was Ready, and how long before (or after) the start."""
    if measured.ready_at_start is None:
        return "no data"
    margin = measured.margin_seconds
    if measured.complete_at is None or margin is None:
        return "never"
    gap = format_duration(timedelta(seconds=abs(margin))) if margin else "0s"
    return f"{measured.complete_at:%H:%M:%S} UTC, {gap} {'before' if margin >= 0 else 'after'} the start"


def _failures(failures: dict[str, int] | None) -> str:
    """NodeClaims that failed to launch, by Karpenter's reason."""
    if failures is None:
        return "no data"
    return ", ".join(f"{count} {reason}" for reason, count in failures.items()) or "none"


def _scaled_up(measured: Measured) -> str:
    """When the scale-up happened against the plan: ``+30s``, ``never``, or ``no data``."""
    delay = measured.scale_up_delay_seconds
    if delay is None:
        return "no data" if {NEEDS_KEDA, NEEDS_JOBS} & set(measured.missing) else "never"
    return f"{'+' if delay >= 0 else '-'}{format_duration(timedelta(seconds=abs(delay))) if delay else '0s'}"


def _replaced(measured: Measured) -> str:
    """Placeholders replaced during the occurrence; "-" where the strategy runs none."""
    if measured.placeholders_replaced is not None:
        return str(measured.placeholders_replaced)
    return "no data" if measured.strategy.keda_scaled else "-"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _utc(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def tune_document(tuned: list[Tuned]) -> documents.TuneDocument:
    return documents.TuneDocument(windows=[_tuned(item) for item in tuned])


def _tuned(item: Tuned) -> documents.TunedNodesWindow | documents.TunedCapacityWindow:
    lead = documents.SuggestedLeadTime(current=item.lead_time, suggested=item.suggested_lead_time)
    current, suggested = item.sizing, item.suggested_sizing
    if current.nodes is not None:
        return documents.TunedNodesWindow(window=item.window.name, occurrences=item.occurrences, lead_time=lead,
                                          nodes=documents.SuggestedNodes(current=current.nodes, suggested=(
                                              suggested.nodes if suggested else None)))
    return documents.TunedCapacityWindow(
        window=item.window.name, occurrences=item.occurrences, lead_time=lead,
        capacity=documents.SuggestedCapacity(current=_capacity(current), suggested=_capacity(suggested)
                                             if suggested else None))


def _capacity(sizing: Sizing) -> documents.Capacity:
    return documents.Capacity(cpu=sizing.cpu or "", memory=sizing.memory or "")


def show_tune(stack: str, tuned: list[Tuned], output: Output) -> None:
    output.table(["Window", "Occurrences", "leadTime", "Suggested", "Size", "Suggested", "Evidence"],
                 [[item.window.name, str(item.occurrences), item.lead_time, item.suggested_lead_time or "-",
                   _size(item.sizing), _size(item.suggested_sizing) if item.suggested_sizing else "-", item.evidence]
                  for item in tuned],
                 title=f"Stack {stack}: the next occurrences sized from the last measured ones")


def _size(sizing: Sizing) -> str:
    return f"nodes: {sizing.nodes}" if sizing.nodes is not None else f"{sizing.cpu} CPU, {sizing.memory}"
