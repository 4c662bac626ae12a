"""``prescale fleet`` as text (a table per event, its regions' totals) and as its ``--json`` document."""

from __future__ import annotations

from . import documents
from .fleet import Fleet, Region
from .output import Output


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
                                 launches_per_minute=region.launches_per_minute)


def show_fleet(fleet: Fleet, quotas: dict, output: Output) -> None:
    output.heading(f"Fleet of {len(fleet.stacks)} stacks: {', '.join(fleet.stacks) or 'none'}")
    for event, windows in fleet.events().items():
        output.table(["Stack", "Window", "Nodes", "vCPUs", "First scale-up (UTC)"],
                     [[window.stack, window.window, str(window.nodes), str(window.vcpus),
                       f"{window.scale_up:%Y-%m-%d %H:%M}" if window.scale_up else "not in range"]
                      for window in windows], title=f"Event {event}")
        output.table(["Account", "Region", "vCPUs by quota group", "Quota", "Launches in one minute"],
                     [[region.account or "not pinned", region.region,
                       ", ".join(f"{family} {vcpus}" for family, vcpus in sorted(region.vcpus_by_family.items())),
                       ", ".join(f"{family} {limit}" for family, limit in sorted(region.quota.items())) or "-",
                       str(region.launches_per_minute)] for region in fleet.regions(windows, quotas)])
    if any(window.account is None for window in fleet.windows):
        output.line("Stacks without aws:allowedAccountIds are added up by region alone: pin each stack's account to "
                    "add them up by account too.")
    for problem in fleet.problems:
        output.line(f"Problem: {problem}")
