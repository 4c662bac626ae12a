"""``prescale fleet`` and ``prescale preflight`` as text and as their ``--json`` documents."""

from __future__ import annotations

from . import documents
from .fleet import Fleet, Placement, Region
from .output import Output
from .preflight import Preflight


def fleet_document(fleet: Fleet, quotas: dict) -> documents.FleetDocument:
    return documents.FleetDocument(stacks=fleet.stacks, problems=fleet.problems, events=[documents.FleetEvent(
        event=event, stacks=[documents.FleetWindow(stack=window.stack, window=window.window, nodes=window.nodes,
                                                   vcpus=window.vcpus, scale_up=window.scale_up)
                             for window in windows],
        regions=[_region(region) for region in fleet.regions(windows, quotas)])
        for event, windows in fleet.events().items()])


def _region(region: Region) -> documents.FleetRegion:
    return documents.FleetRegion(account=region.account, region=region.region,
                                 vcpus_by_family=region.vcpus_by_family, quota=region.quota,
                                 launches_per_minute=region.launches_per_minute, instances=[
                                     documents.FleetInstances(instance_type=placement.instance_type,
                                                              zones=list(placement.zones), count=placement.count)
                                     for placement in region.instances])


def _placed(placement: Placement) -> str:
    """``600 m7i.xlarge in us-east-1a``; ``… in any of us-east-1a, us-east-1b``; ``… in any zone``."""
    zones = placement.zones
    where = zones[0] if len(zones) == 1 else f"any of {', '.join(zones)}" if zones else "any zone"
    return f"{placement.count} {placement.instance_type} in {where}"


def show_fleet(fleet: Fleet, quotas: dict, output: Output) -> None:
    output.heading(f"Fleet of {len(fleet.stacks)} stacks: {', '.join(fleet.stacks) or 'none'}")
    for event, windows in fleet.events().items():
        output.table(["Stack", "Window", "Nodes", "vCPUs", "First scale-up (UTC)"],
                     [[window.stack, window.window, str(window.nodes), str(window.vcpus),
                       f"{window.scale_up:%Y-%m-%d %H:%M}" if window.scale_up else "not in range"]
                      for window in windows], title=f"Event {event}")
        output.table(["Account", "Region", "vCPUs by quota group", "Quota", "Launches in one minute",
                      "Instances by zone",
                      "Cost per hour"],
                     [[region.account or "not pinned", region.region,
                       ", ".join(f"{family} {vcpus}" for family, vcpus in sorted(region.vcpus_by_family.items())),
                       ", ".join(f"{family} {limit}" for family, limit in sorted(region.quota.items())) or "-",
                       str(region.launches_per_minute),
                       "; ".join(_placed(placement) for placement in region.instances),
                       f"${region.cost_per_hour:,.2f}"] for region in fleet.regions(windows, quotas)])
    if any(window.account is None for window in fleet.windows):
        output.line("Stacks without aws:allowedAccountIds are added up by region alone: pin each stack's account to "
                    "add them up by account too.")
    for problem in fleet.problems:
        output.line(f"Problem: {problem}")


def preflight_document(result: Preflight) -> documents.PreflightDocument:
    return documents.PreflightDocument(stack=result.stack, region=result.region, blocked=result.blocked, findings=[
        documents.PreflightFinding(window=finding.window, check=finding.check, ok=finding.ok,
                                   message=finding.message) for finding in result.findings])


def show_preflight(result: Preflight, output: Output) -> None:
    marks = {True: "ok", False: "BLOCKER", None: "not checked"}
    output.table(["Window", "Check", "Result", "What AWS says"],
                 [[finding.window, finding.check, marks[finding.ok], finding.message] for finding in result.findings],
                 title=f"Stack {result.stack}: pre-flight against the account in {result.region}")
    output.line("Blocked: fix each BLOCKER before the event." if result.blocked else "No blocker found.")
