"""``prescale status``: each window's readiness as a table and its reasons for people, as JSON for tools.

Instants are shown in the window's own zone (as the stack config writes them). The JSON is
:class:`prescale_cli.documents.StatusDocument`: a window's instants with its zone's offset, ``now`` in UTC, as
``prescale schedule --json`` prints them.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from prescale.model.schedule.duration import format_duration

from . import documents
from .output import Output
from .schedule_report import local_times
from .status import LEAD, RUNNING, UPCOMING, LaunchFailure, ObjectState, WindowStatus

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
    return documents.WindowReadiness(
        window=entry.window.name, node_pool=entry.window.node_pool, state=status.state,
        scale_up=entry.occurrence.scale_up, start=entry.occurrence.start, end=entry.occurrence.end,
        ready=status.ready, not_ready=status.blockers,
        scaled_object=documents.ScaledObject(
            name=so.name, found=so.found, ready=so.holds("Ready"), active=so.holds("Active"),
            paused=so.holds("Paused"), fallback=so.holds("Fallback"), conditions=_conditions(so)),
        placeholders=documents.PlaceholderReadiness(
            desired=held.desired, ready=held.ready, pending=held.pending,
            reasons=[documents.Waiting(pod=waiting.pod, reason=waiting.reason, message=waiting.message)
                     for waiting in held.waiting]),
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
    output.table(["Window", "Pool", "State", "Local: scale-up → start – end", "ScaledObject", "Placeholders",
                  "Nodes", "Pool frozen now (UTC)", "Ready"], [_row(status, now) for status in statuses])
    for status in statuses:
        _show_reasons(status, output)
    first_per_pool: dict[str, WindowStatus] = {}
    for status in statuses:  # windows in their lead time or running come first: their launch failures since scale-up
        first_per_pool.setdefault(status.entry.window.node_pool, status)
    for pool, status in first_per_pool.items():
        _show_pool(pool, status, now, output)
    waiting = [status.entry.window.name for status in statuses if status.counts and not status.ready]
    if waiting:
        output.line(f"NOT READY: {', '.join(waiting)}.")
    elif any(status.counts for status in statuses):
        output.line("Ready: every window in its lead time or running is ready.")
    else:
        output.line("Nothing is in its lead time or running yet; upcoming windows do not decide readiness.")


def _row(status: WindowStatus, now: datetime) -> list[str]:
    entry, so, held, nodes = status.entry, status.scaled_object, status.placeholders, status.nodes
    occurrence = entry.occurrence
    state = {LEAD: f"lead, starts in {_until(occurrence.start_utc, now)}",
             RUNNING: f"running, ends in {_until(occurrence.end_utc, now)}",
             UPCOMING: f"upcoming, in {_until(occurrence.scale_up_utc, now)}"}[status.state]
    local = local_times(occurrence)
    scaler = "not found" if not so.found else ", ".join(
        kind if so.holds(kind) else f"not {kind}" for kind in ("Ready", "Active"))
    if so.holds("Paused"):
        scaler += ", Paused"
    if status.counts or held.ready:
        placeholders = f"{held.ready}/{held.desired} Ready" + (f", {held.pending} Pending" if held.pending else "")
    else:
        placeholders = f"{held.desired} at scale-up"
    node_cell = f"{nodes.ready}/{nodes.total} Ready" + (f", {nodes.reserved} reserved" if nodes.reserved else "")
    frozen = ("do-not-disrupt pods" if entry.existing_pool else
              f"{status.freeze.schedule} for {status.freeze.duration}" if status.freeze else "no")
    return [entry.window.name, entry.window.node_pool, state, local, scaler, placeholders, node_cell, frozen,
            _verdict(status)]


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
    if status.counts:  # placeholders left over from an earlier occurrence say nothing about an upcoming one
        groups = Counter((waiting.reason, waiting.message) for waiting in status.placeholders.waiting)
        for (reason, message), count in groups.items():
            output.line(f"    {count} × {reason}" + (f": {message}" if message else ""))
    output.line()


def _show_pool(pool: str, status: WindowStatus, now: datetime, output: Output) -> None:
    """A pool's launch failures (Karpenter's reasons), its NodePool's registration health and capacity
    reservations in use, once per pool."""
    nodes, failures = status.nodes, status.node_claims.launch_failures
    unhealthy = status.pool.registration_unhealthy
    if not (failures or nodes.reservations or unhealthy):
        return
    claims = status.node_claims
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
