"""``prescale preflight``: days ahead of an event, what only the AWS account can say about it.

For each window of the coming days (or of the event or window named), asked of AWS with boto3 and the standard
credential chain, in the stack's region:

* **quotas**: the account's On-Demand vCPU quota of each group the window launches in (Service Quotas
  ``ListServiceQuotas`` for ``ec2``, found by the quota's name), against the vCPUs of the On-Demand instances running
  now in that group (EC2 ``DescribeInstances``) plus the window's;
* **offerings**: whether the instance type the estimate takes, and any of the pool's, is offered in the zones the
  pool allows (EC2 ``DescribeInstanceTypeOfferings`` by availability zone);
* **addresses**: the free addresses of the subnets the pool launches into (EC2 ``DescribeSubnets``, by the pool's
  selector terms or the cluster's discovery tag) against what the window's nodes take (the offline estimate's count);
* **reservations**: the capacity reservations a reserving one-off will use, that exist and their state (EC2
  ``DescribeCapacityReservations``).

A blocker (a quota or the addresses short, no allowed type offered in an allowed zone) makes the exit code 1; a
call AWS (or a stand-in such as moto) does not answer is said, with the check it leaves undone, and blocks nothing.
An account that cannot be asked at all (no credentials, an unknown profile, an endpoint that does not answer STS
``GetCallerIdentity``, which needs no permission) stops the command instead: a pre-flight that asked nothing must not
read as one that found no blocker.
Details: docs/fleet.md#preflight.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from prescale.model.config import StackConfig
from prescale.model.fleet.instances import instance_type, pool_launchable
from prescale.model.fleet.reservations import pool_zones
from prescale.model.plan import CapacityPlan
from prescale.model.values.labels import WINDOW_LABEL
from prescale.model.values.quota_families import quota_family
from prescale.model.windows import ArmedWindow, WindowPlan
from prescale.names import CLUSTER_TAG, DISCOVERY_TAG

from .cost import window_fleet

# The quota names Service Quotas gives the On-Demand vCPU groups (AWS docs, "Amazon EC2 service quotas").
QUOTA_NAMES = {"standard": "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
               "f": "Running On-Demand F instances", "g": "Running On-Demand G and VT instances",
               "inf": "Running On-Demand Inf instances", "p": "Running On-Demand P instances",
               "x": "Running On-Demand X instances", "dl": "Running On-Demand DL instances",
               "trn": "Running On-Demand Trn instances", "hpc": "Running On-Demand HPC instances",
               "high-memory": "Running On-Demand High Memory instances"}


Check = Literal["quotas", "offerings", "addresses", "reservations"]


@dataclass
class Finding:
    window: str
    check: Check
    ok: bool | None  # None: not checked (the call was not answered)
    message: str


@dataclass
class Preflight:
    stack: str
    region: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return any(finding.ok is False for finding in self.findings)


class AccountUnreachable(Exception):
    """The credential chain or the endpoint leaves the account unasked; the message says why, without a secret."""


class Aws:
    """The few calls preflight makes, each answered or raising; boto3 clients in the stack's region (an
    ``AWS_ENDPOINT_URL`` reaches a stand-in). Made only once the account answers who is asking:
    :class:`AccountUnreachable` otherwise, so that a check left undone is one call's failure, never all of them."""

    def __init__(self, region: str):
        import boto3  # the command's AWS client, loaded only when preflight runs
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.ec2 = boto3.client("ec2", region_name=region)
            self.quotas = boto3.client("service-quotas", region_name=region)
            boto3.client("sts", region_name=region).get_caller_identity()  # who asks: allowed to every caller
        except (BotoCoreError, ClientError) as error:
            raise AccountUnreachable(f"preflight cannot ask the AWS account in {region}: {type(error).__name__}: "
                                     f"{error}; it reads credentials from the standard chain (environment, profile, "
                                     "SSO, web identity, instance role)") from None

    def on_demand_quotas(self) -> dict[str, float]:
        names = {name: family for family, name in QUOTA_NAMES.items()}
        found = {}
        for page in self.quotas.get_paginator("list_service_quotas").paginate(ServiceCode="ec2"):
            for quota in page["Quotas"]:
                if quota["QuotaName"] in names:
                    found[names[quota["QuotaName"]]] = float(quota["Value"])
        return found

    def running_vcpus(self) -> dict[str, int]:
        vcpus: dict[str, int] = defaultdict(int)
        filters = [{"Name": "instance-state-name", "Values": ["pending", "running"]}]
        for page in self.ec2.get_paginator("describe_instances").paginate(Filters=filters):
            for reservation in page["Reservations"]:
                for instance in reservation["Instances"]:
                    if instance.get("InstanceLifecycle") == "spot":
                        continue
                    known = instance_type(instance["InstanceType"])
                    vcpus[quota_family(instance["InstanceType"])] += known.vcpus if known else 0
        return dict(vcpus)

    def offered(self, types: list[str]) -> dict[str, set[str]]:
        """Zone → the types of ``types`` offered there."""
        zones: dict[str, set[str]] = defaultdict(set)
        for start in range(0, len(types), 100):  # the filter takes a bounded list of values
            chosen = [{"Name": "instance-type", "Values": types[start:start + 100]}]
            pages = self.ec2.get_paginator("describe_instance_type_offerings").paginate(
                LocationType="availability-zone", Filters=chosen)
            for page in pages:
                for offering in page["InstanceTypeOfferings"]:
                    zones[offering["Location"]].add(offering["InstanceType"])
        return dict(zones)

    def free_addresses(self, filters: list[dict[str, Any]], ids: list[str]) -> dict[str, tuple[str, int]]:
        """Subnet id → (zone, free addresses)."""
        answer = self.ec2.describe_subnets(SubnetIds=ids) if ids else self.ec2.describe_subnets(Filters=filters)
        return {subnet["SubnetId"]: (subnet["AvailabilityZone"], subnet["AvailableIpAddressCount"])
                for subnet in answer["Subnets"]}

    def reservations(self, cluster: str, window: str) -> list[dict[str, Any]]:
        """The capacity reservations prescale made for ``window`` of ``cluster`` (tagged with both names)."""
        filters = [{"Name": f"tag:{WINDOW_LABEL}", "Values": [window]},
                   {"Name": f"tag:{CLUSTER_TAG}", "Values": [cluster]}]
        return self.ec2.describe_capacity_reservations(Filters=filters)["CapacityReservations"]


def preflight(stack: str, config: StackConfig, plan: CapacityPlan, aws: Aws, windows: list[WindowPlan]) -> Preflight:
    """Each of ``windows`` (of ``plan``) checked against the account."""
    result = Preflight(stack, config.region)
    quotas = _asked(result, "quotas", aws.on_demand_quotas)
    running = _asked(result, "quotas", aws.running_vcpus) if quotas is not None else None
    for window_plan in windows:
        name, pool = window_plan.window.name, plan.pools[window_plan.window.node_pool].pool
        fleet = window_fleet(plan, window_plan)
        if fleet is None:
            continue
        family = quota_family(fleet.shape.name)
        needed = fleet.nodes * fleet.shape.instance.vcpus
        if quotas is not None and running is not None:
            limit, now = quotas.get(family), running.get(family, 0)
            if limit is None:
                result.findings.append(Finding(name, "quotas", None, f"no {QUOTA_NAMES[family]!r} quota listed"))
            else:
                fits = now + needed <= limit
                result.findings.append(Finding(name, "quotas", fits, (
                    f"{needed} {family} vCPUs ({fleet.nodes} × {fleet.shape.name}) on top of the {now} running now: "
                    f"{now + needed} of the quota of {limit:g}" + ("" if fits else
                    "; request an increase in Service Quotas (ec2, " + QUOTA_NAMES[family] + ") before the event"))))
        _offerings(result, aws, name, pool, fleet.shape.name)
        if pool.owned:
            _addresses(result, aws, config, plan, window_plan)
        if window_plan.reservation is not None:
            _reservations(result, aws, config.cluster.name, window_plan)
    return result


def _asked(result: Preflight, check: Check, call: Any) -> Any:
    """``call()``'s answer, or ``None`` with the check said to be left undone."""
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - any failure of one call leaves one check undone, said below
        result.findings.append(Finding("*", check, None, f"not checked: AWS did not answer ({type(error).__name__}: "
                                                         f"{str(error)[:160]})"))
        return None


def _offerings(result: Preflight, aws: Aws, window: str, pool: Any, estimated: str) -> None:
    types = [instance.name for instance in pool_launchable(pool).types]
    zones_allowed = set(pool_zones(pool))
    offered = _asked(result, "offerings", lambda: aws.offered(sorted(set(types) | {estimated})))
    if offered is None:
        return
    zones = {zone: found for zone, found in offered.items() if not zones_allowed or zone in zones_allowed}
    anywhere = set().union(*zones.values()) if zones else set()
    if not anywhere & set(types):
        where = ", ".join(sorted(zones_allowed)) or f"any zone of {result.region}"
        result.findings.append(Finding(window, "offerings", False, (
            f"none of the {len(types)} instance types node pool {pool.name!r} allows is offered in {where}: allow "
            "other types or zones")))
        return
    estimated_in = sorted(zone for zone, found in zones.items() if estimated in found)
    result.findings.append(Finding(window, "offerings", True, (
        f"{estimated} (the estimate's type) offered in {', '.join(estimated_in) or 'no allowed zone'}; "
        f"{len(anywhere & set(types))} of the pool's {len(types)} types are offered in an allowed zone")))


def _addresses(result: Preflight, aws: Aws, config: StackConfig, plan: CapacityPlan, window_plan: WindowPlan) -> None:
    pool = plan.pools[window_plan.window.node_pool].pool
    terms = pool.subnet_selector_terms or []
    ids = [term.id for term in terms if term.id]
    filters = [{"Name": f"tag:{key}", "Values": [value]} for term in terms if term.tags
               for key, value in term.tags.items()] or [
        {"Name": f"tag:{DISCOVERY_TAG}", "Values": [config.cluster.name]}]
    subnets = _asked(result, "addresses", lambda: aws.free_addresses(filters, ids))
    if subnets is None:
        return
    demand = [held for held in plan.address_demand([pool.name], config.cluster.auto_mode)
              if held.window.name == window_plan.window.name]
    free = sum(count for _, count in subnets.values())
    if not demand:
        return
    held = demand[0]
    fits = held.least <= free
    result.findings.append(Finding(window_plan.window.name, "addresses", fits, (
        f"{free} free addresses in {len(subnets)} subnets; the window's nodes take at least {held.least} "
        f"({held.expected} under the networking's defaults)" + ("" if fits else
        ": fewer than it needs; add subnets or free addresses before the event"))))


def _reservations(result: Preflight, aws: Aws, cluster: str, window_plan: WindowPlan) -> None:
    """A reserving one-off's reservations: held now (then they must exist and be active), or to be made by the
    `pulumi up` from their holdFrom."""
    plan = window_plan.reservation
    assert plan is not None
    name = window_plan.window.name
    if not plan.held:
        result.findings.append(Finding(name, "reservations", True, (
            f"not held yet: the first `pulumi up` from {plan.hold_from:%Y-%m-%d %H:%M} UTC creates them "
            f"({sum(share.count for share in plan.zones)} × {plan.instance_type})")))
        return
    found = _asked(result, "reservations", lambda: aws.reservations(cluster, name))
    if found is None:
        return
    active = [item for item in found if item.get("State") == "active"]
    wanted = sum(share.count for share in plan.zones)
    held = sum(item.get("TotalInstanceCount", 0) for item in active)
    fits = held >= wanted
    result.findings.append(Finding(name, "reservations", fits, (
        f"{held} of {wanted} reserved {plan.instance_type} instances active" + ("" if fits else
        ": run `pulumi up` to create the rest, or check why EC2 refused them"))))


def windows_ahead(plan: CapacityPlan, now: datetime, days: int, event: str | None, window: str | None,
                  timeline_entries: list[Any]) -> list[WindowPlan]:
    """The windows checked: the one named, those of the event named, or those with a scale-up in the coming
    ``days``."""
    if window is not None:
        return [plan.window(window)]
    if event is not None:
        return [window_plan for window_plan in plan.windows if window_plan.window.event == event]
    until = now + timedelta(days=days)
    soon = {entry.window.name for entry in timeline_entries if entry.occurrence.scale_up_utc < until}
    return [window_plan for window_plan in plan.windows if window_plan.window.name in soon
            and isinstance(window_plan, ArmedWindow)]
