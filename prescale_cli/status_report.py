"""``prescale status``: each window's readiness as a table and its reasons for people, as JSON for tools.

Instants are shown in the window's own zone (as the stack config writes them). The JSON is
:class:`prescale_cli.documents.StatusDocument`: a window's instants with its zone's offset, ``now`` in UTC, as
``prescale schedule --json`` prints them.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from prescale.model.strategies import DEFAULT
from prescale.model.values.duration import format_duration

from . import documents
from .output import Output
from .schedule_report import local_times
from .status import (
    LEAD,
    PROVISIONING,
    READY_FOR_PROVISIONING,
    RUNNING,
    UPCOMING,
    LaunchFailure,
    ObjectState,
    WindowStatus,
)

_STATES = {LEAD: "in its lead time", RUNNING: "running", UPCOMING: "upcoming"}


def status_document(stack: str, now: datetime, within: timedelta,
                    statuses: list[WindowStatus]) -> documents.StatusDocument:
    """``--json``: one record per window, and whether every window in its lead time or running is ready."""
    return documents.StatusDocument(stack=stack, now=now, within=format_duration(within), ready=all_ready(statuses),
                                    windows=[_window(status) for status in statuses])


def all_ready(statuses: list[WindowStatus]) -> bool:
    """What the exit code says: every window in its lead time or running is ready (upcoming ones don't count)."""
    return all(status.ready for status in statuses if status.counts)


def _window(status: WindowStatus) -> documents.WindowReadiness:
    entry, so, held, nodes, claims = (status.entry, status.scaled_object, status.placeholders, status.nodes,
                                      status.node_claims)
    static, buffer = status.static, status.buffer
    return documents.WindowReadiness(
        window=entry.window.name, node_pool=entry.window.node_pool, strategy=status.strategy.name, state=status.state,
        scale_up=entry.occurrence.scale_up, start=entry.occurrence.start, end=entry.occurrence.end,
        ready=status.ready, not_ready=status.blockers,
        scaled_object=documents.ScaledObject(
            name=so.name, found=so.found, ready=so.holds("Ready"), active=so.holds("Active"),
            paused=so.holds("Paused"), fallback=so.holds("Fallback"), conditions=_conditions(so)) if so else None,
        placeholders=documents.PlaceholderReadiness(
            desired=held.desired, ready=held.ready, pending=held.pending,
            reasons=[documents.Waiting(pod=waiting.pod, reason=waiting.reason, message=waiting.message)
                     for waiting in held.waiting]) if held else None,
        static=documents.StaticReadiness(desired=static.desired, replicas=static.replicas, nodes=static.nodes)
        if static else None,
        buffer=documents.BufferReadiness(
            name=buffer.buffer.name, found=buffer.buffer.found, desired=buffer.desired, replicas=buffer.replicas,
            provisioned=buffer.provisioned, ready_for_provisioning=buffer.buffer.holds(READY_FOR_PROVISIONING),
            provisioning=buffer.buffer.holds(PROVISIONING), conditions=_conditions(buffer.buffer)) if buffer else None,
        driver=[documents.CronJobReadiness(
            name=cron_job.name, sets=cron_job.sets, found=cron_job.found, suspended=cron_job.suspended,
            last_schedule_time=cron_job.last_schedule, last_successful_time=cron_job.last_success,
            last_job=documents.DriverJob(name=job.name, state=job.state, reason=job.reason, message=job.message,
                                         started=job.started) if (job := cron_job.last_job) else None)
            for cron_job in status.driver],
        nodes=documents.Nodes(total=nodes.total, ready=nodes.ready, reserved=nodes.reserved,
                              reservations=list(nodes.reservations)),
        node_claims=documents.NodeClaims(total=claims.total, ready=claims.ready, launch_failures=[
            documents.LaunchFailure(node_claim=failure.node_claim, reason=failure.reason, message=failure.message,
                                    deleted=failure.deleted, condition=failure.condition, since=failure.since)
            for failure in claims.launch_failures]),
        karpenter=documents.Karpenter(node_pool=_karpenter_object(status.pool.node_pool),
                                      node_class=_karpenter_object(status.pool.node_class)
                                      if status.pool.node_class else None),
        freeze=documents.Budget(schedule=status.freeze.schedule, duration=status.freeze.duration)
        if status.freeze else None)


def _karpenter_object(state: ObjectState) -> documents.KarpenterObject:
    return documents.KarpenterObject(kind=state.kind, name=state.name, found=state.found, ready=state.holds("Ready"),
                                     conditions=_conditions(state))


def _conditions(state: ObjectState) -> list[documents.Condition]:
    return [documents.Condition(**{key: str(condition.get(key, "")) for key in ("type", "status", "reason", "message")})
            for condition in state.conditions.values()]


def show_status(stack: str, now: datetime, within: timedelta, statuses: list[WindowStatus], output: Output) -> None:
    output.heading(f"Status of stack {stack} at {now.astimezone(UTC):%Y-%m-%d %H:%M} UTC: windows running or "
                   f"starting within {format_duration(within)}")
    output.line()
    if not statuses:
        output.line(f"No window is running or starts within {format_duration(within)}: nothing to be ready for.")
        return
    if any(status.strategy is not DEFAULT for status in statuses):
        output.table(["Window", "Pool", "Strategy", "State", "Local: scale-up → start – end", "Trigger", "Capacity",
                      "Nodes", "Frozen now (UTC)", "Ready"],
                     [_row(status, now, strategy=True) for status in statuses])
    else:
        output.table(["Window", "Pool", "State", "Local: scale-up → start – end", "ScaledObject", "Placeholders",
                      "Nodes", "Pool frozen now (UTC)", "Ready"], [_row(status, now) for status in statuses])
    for status in statuses:
        _show_reasons(status, output)
    first_per_pool: dict[str, WindowStatus] = {}
    for status in statuses:  # windows in their lead time or running come first: their launch failures since scale-up
        first_per_pool.setdefault(status.pool.node_pool.name, status)
    for status in first_per_pool.values():
        _show_pool(status, now, output)
    waiting = [status.entry.window.name for status in statuses if status.counts and not status.ready]
    if waiting:
        output.line(f"NOT READY: {', '.join(waiting)}.")
    elif any(status.counts for status in statuses):
        output.line("Ready: every window in its lead time or running is ready.")
    else:
        output.line("Nothing is in its lead time or running yet; upcoming windows do not decide readiness.")


def _row(status: WindowStatus, now: datetime, strategy: bool = False) -> list[str]:
    """A window's row; ``strategy``: some window's strategy is not the default, so the row says which, and its trigger
    and capacity columns hold a ScaledObject and placeholders, or a driver and its NodePool or CapacityBuffer."""
    entry, nodes = status.entry, status.nodes
    occurrence = entry.occurrence
    state = {LEAD: f"lead, starts in {_until(occurrence.start_utc, now)}",
             RUNNING: f"running, ends in {_until(occurrence.end_utc, now)}",
             UPCOMING: f"upcoming, in {_until(occurrence.scale_up_utc, now)}"}[status.state]
    local = local_times(occurrence)
    node_cell = f"{nodes.ready}/{nodes.total} Ready" + (f", {nodes.reserved} reserved" if nodes.reserved else "")
    frozen = ("do-not-disrupt pods" if entry.existing_pool else
              f"{status.freeze.schedule} for {status.freeze.duration}" if status.freeze else "no")
    return [entry.window.name, entry.window.node_pool, *([status.strategy.name] if strategy else []), state, local,
            _trigger(status), _capacity(status), node_cell, frozen, _verdict(status)]


def _trigger(status: WindowStatus) -> str:
    """Its ScaledObject's Ready and Active, or whether its driver's CronJobs can run."""
    so = status.scaled_object
    if so is None:
        if not status.driver:
            return "not armed"
        problems = [f"{cron_job.name} {cron_job.problem}" for cron_job in status.driver if cron_job.problem]
        return ", ".join(problems) or "CronJobs ok"
    scaler = "not found" if not so.found else ", ".join(
        kind if so.holds(kind) else f"not {kind}" for kind in ("Ready", "Active"))
    return scaler + (", Paused" if so.holds("Paused") else "")


def _capacity(status: WindowStatus) -> str:
    """Its placeholders Ready, its static NodePool's nodes Ready (and its count where the driver left another), or
    its CapacityBuffer's count and Provisioning."""
    if status.static is not None:
        static = status.static
        count = "" if static.replicas == static.desired else f", NodePool at {_count(static.replicas)}"
        return f"{status.nodes.ready}/{static.desired} nodes Ready{count}"
    if status.buffer is not None:
        buffer = status.buffer
        if not buffer.buffer.found:
            return "buffer not found"
        provisioning = "Provisioning" if buffer.buffer.holds(PROVISIONING) else "not Provisioning"
        return f"buffer at {_count(buffer.replicas)}/{buffer.desired}, {provisioning}"
    held = status.placeholders
    if held is None:
        return "not armed"
    if status.counts or held.ready:
        return f"{held.ready}/{held.desired} Ready" + (f", {held.pending} Pending" if held.pending else "")
    return f"{held.desired} at scale-up"


def _count(replicas: int | None) -> str:
    return "-" if replicas is None else str(replicas)


def _verdict(status: WindowStatus) -> str:
    if status.counts:
        return "yes" if status.ready else "NO"
    return "armed" if status.ready else "NOT ARMED"


def _show_reasons(status: WindowStatus, output: Output) -> None:
    """Why a window is not ready, with each waiting placeholder's reason grouped; nothing when it is ready."""
    if status.ready:
        return
    verdict = "NOT READY" if status.counts else "NOT ARMED"
    output.line(f"{status.entry.window.name} ({_STATES[status.state]}): {verdict}")
    for blocker in status.blockers:
        output.line(f"  {blocker}")
    if status.counts and status.placeholders:  # leftovers of an earlier occurrence say nothing about an upcoming one
        groups = Counter((waiting.reason, waiting.message) for waiting in status.placeholders.waiting)
        for (reason, message), count in groups.items():
            output.line(f"    {count} × {reason}" + (f": {message}" if message else ""))
    output.line()


def _show_pool(status: WindowStatus, now: datetime, output: Output) -> None:
    """A NodePool's launch failures (Karpenter's reasons), its registration health and capacity reservations in
    use, once per NodePool (a static pool has one per window)."""
    nodes, failures = status.nodes, status.node_claims.launch_failures
    unhealthy = status.pool.registration_unhealthy
    if not (failures or nodes.reservations or unhealthy):
        return
    claims = status.node_claims
    pool = status.entry.window.node_pool + (f", NodePool {status.pool.node_pool.name}" if status.static else "")
    output.line(f"Pool {pool}: {nodes.ready}/{nodes.total} nodes Ready, {claims.ready}/{claims.total} NodeClaims Ready")
    if nodes.reservations:
        output.line(f"  Capacity reservations in use: {', '.join(nodes.reservations)} "
                    f"({nodes.reserved} node{'s' * (nodes.reserved != 1)})")
    if unhealthy:
        output.line(f"  NodePool {status.pool.node_pool.name} not NodeRegistrationHealthy: half of its last NodeClaims "
                    f"failed to launch or register ({unhealthy.get('reason')}: {unhealthy.get('message')})")
    if failures:
        output.line("  NodeClaims failing to launch or register (Karpenter's reason):")
    for failure in failures:
        output.line(f"    {failure.node_claim}{_failure_state(failure, now)}: {failure.reason}"
                    + (f": {failure.message}" if failure.message else ""))
    output.line()


def _failure_state(failure: LaunchFailure, now: datetime) -> str:
    if failure.deleted:
        return " (deleted, Karpenter retries)"
    if failure.condition == "Registered":
        return f" (launched, no node for {_minutes(now - failure.since)})"
    return ""


def _until(moment: datetime, now: datetime) -> str:
    return _minutes(moment - now)


def _minutes(span: timedelta) -> str:
    """``span`` in whole minutes, at least 0: ``1h5m``."""
    return format_duration(timedelta(minutes=max(0, int(span.total_seconds() // 60))))
