"""Shared by the capacity tests: stack configs, a stand-in platform, and registrations as Kubernetes objects."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from prescale.capacity import DeployedCapacity, deploy_capacity
from prescale.contract import Platform
from prescale.model.config import StackConfig
from prescale.model.schedule.freezes import Freeze, freeze_active
from prescale.model.validation import decode_config, load_stack_config
from prescale.offline import Evaluation, Registration, evaluate, read_stack_file

from . import ROOT

PROJECT = ROOT
# 2026-12-01: the dev stack's one-off (2027-03-02) is less than a year ahead, so it is armed.
NOW = datetime(2026, 12, 1, tzinfo=UTC)

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
PRIORITY_CLASS = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
NAMESPACE = "kubernetes:core/v1:Namespace"
CAPACITY_BUFFER = "kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer"
POD_TEMPLATE = "kubernetes:core/v1:PodTemplate"
CRON_JOB = "kubernetes:batch/v1:CronJob"
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
CUSTOM_RESOURCES = (NODE_POOL, NODE_CLASS, SCALED_OBJECT)
CORE_RESOURCES = (DEPLOYMENT, PRIORITY_CLASS, NAMESPACE)


def dev_config(now: datetime = NOW) -> StackConfig:
    """``Pulumi.dev.yaml`` as the program reads it."""
    wire = read_stack_file(PROJECT, "dev")
    return load_stack_config(decode_config(wire), now)


def stack_config(node_pools: list[dict], event_windows: list[dict], now: datetime = NOW, **more: Any) -> StackConfig:
    """A valid stack config with these pools and windows (raw, camelCase, as in a stack file)."""
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
           "prescale:nodePools": node_pools, "prescale:eventWindows": event_windows,
           **{f"prescale:{key}": value for key, value in more.items()}}
    return load_stack_config(raw, now)


def pool(name: str = "event", **settings: Any) -> dict:
    return {"name": name, "limits": {"cpu": "1000", "memory": "4000Gi"}, **settings}


def window(name: str, start: str, end: str, node_pool: str = "event", timezone: str = "Asia/Seoul",
           **amount: Any) -> dict:
    return {"name": name, "nodePool": node_pool, "timezone": timezone, "start": start, "end": end,
            **(amount or {"nodes": 2})}


RICH_POOLS = [
    pool("event"),
    pool("spot-arm", capacityTypes=["spot", "on-demand"], architectures=["arm64"], instanceCategories=["c", "m", "r"],
         limits={"cpu": "2000", "memory": "8000Gi", "nodes": 100}, weight=50, amiAlias="bottlerocket@v1.30.0",
         taints=[{"key": "prescale.io/event", "value": "true", "effect": "NoSchedule"},
                 {"key": "dedicated", "effect": "NoExecute"}],
         consolidationPolicy="WhenEmpty", consolidateAfter="30s", expireAfter="720h", terminationGracePeriod="30m"),
]
RICH_WINDOWS = [
    window("weekday-open", "0 9 * * 1-5", "0 17 * * 1-5", "spot-arm", "America/New_York", nodes=3, leadTime="15m"),
    window("night-batch", "0 22 * * *", "0 6 * * *", "spot-arm", "Europe/Berlin",
           capacity={"cpu": "10", "memory": "40Gi"}),
    window("weekend", "0 18 * * 5", "0 6 * * 1", "event", "Europe/London", capacity={"cpu": "2500m", "memory": "3Gi"}),
    window("overlap-a", "0 12 * * *", "0 13 * * *", nodes=2),
    window("overlap-b", "30 12 * * *", "0 14 * * *", nodes=3),
    window("sale", "2027-05-05T10:00", "2027-05-05T18:00", capacity={"cpu": "64", "memory": "256Gi"}, leadTime="30m"),
]


def rich_config(now: datetime = NOW) -> StackConfig:
    return stack_config(RICH_POOLS, RICH_WINDOWS, now, tags={"team": "platform"})


# Rich, plus what only some stacks have: a one-off holding its capacity reservations at NOW, and alerts (which
# go only to an existing cluster). Every kind of resource the capacity wing registers is in it.
EVERY_KIND_POOLS = [*RICH_POOLS, pool("reserved", capacityTypes=["on-demand", "reserved"])]
EVERY_KIND_WINDOWS = [*RICH_WINDOWS, window(
    "launch", "2026-12-01T18:00", "2026-12-01T20:00", "reserved", nodes=4,
    reserve={"instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a", "ap-northeast-2c"]})]


def every_kind_config(now: datetime = NOW) -> StackConfig:
    return stack_config(EVERY_KIND_POOLS, EVERY_KIND_WINDOWS, now, tags={"team": "platform"},
                        cluster={"name": "prescale-test", "create": False}, alerts={"prometheusRule": True})


# Every kind the static and buffer strategies render: a static pool with a recurring window and images to pull, a
# static pool whose one-off holds capacity reservations at NOW, and a Bottlerocket buffer pool (its data volume from a
# snapshot) with a recurring capacity window pulling images and a one-off of whole nodes.
M7I = [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}]
# A static pool is pinned to one zone: Karpenter does not spread a static NodePool over zones.
ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}
NATIVE_POOLS = [
    pool("static", strategy="static", limits={"nodes": 40}, requirements=[*M7I, ZONE_A],
         taints=[{"key": "prescale.io/event", "value": "true", "effect": "NoSchedule"}]),
    pool("static-reserved", strategy="static", limits={"nodes": 10}, requirements=[*M7I, ZONE_A],
         capacityTypes=["on-demand", "reserved"]),
    pool("buffer", strategy="buffer", amiAlias="bottlerocket@v1.30.0",
         dataVolume={"snapshotID": "snap-0123456789abcdef0", "volumeInitializationRate": 200},
         taints=[{"key": "dedicated", "effect": "NoExecute"}]),
]
NATIVE_WINDOWS = [
    window("lunch", "0 12 * * *", "0 13 * * *", "static", nodes=3, prepullImages=["nginx:1.27"]),
    window("launch", "2026-12-01T18:00", "2026-12-01T20:00", "static-reserved", nodes=4,
           reserve={"instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a"]}),
    window("sale", "0 20 * * *", "0 22 * * *", "buffer", capacity={"cpu": "8", "memory": "16Gi"},
           prepullImages=["nginx:1.27", "busybox:1.37"]),
    window("flash", "2027-03-05T10:00", "2027-03-05T12:00", "buffer", nodes=2),
]


def native_config(now: datetime = NOW, windows: list[dict] = NATIVE_WINDOWS) -> StackConfig:
    return stack_config(NATIVE_POOLS, windows, now)


def run(config: StackConfig, now: datetime = NOW) -> tuple[Evaluation, list[DeployedCapacity]]:
    """Evaluate :func:`deploy_capacity` under fresh mocks with a stand-in platform."""
    built: list[DeployedCapacity] = []

    def program() -> None:
        built.append(deploy_capacity(config, stand_in_platform(), now))

    return evaluate(program), built


def stand_in_platform() -> Platform:
    provider = k8s.Provider("k8s", kubeconfig="{}")
    return Platform(cluster_name="prescale-test", node_role_name="prescale-test-karpenter-node",
                    kubernetes_provider=provider,
                    karpenter_ready=[pulumi.CustomResource("test:index:Release", "karpenter")],
                    keda_ready=[pulumi.CustomResource("test:index:Release", "keda")])


def as_object(registration: Registration) -> dict[str, Any]:
    """A registration's inputs as the Kubernetes object JSON the provider would send.

    The engine carries numbers as protobuf doubles (``1.0``); Kubernetes JSON has integers.
    """
    return _integers(registration.inputs)


def _integers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integers(item) for item in value]
    return value


def short(urn: str) -> str:
    """The name part of a URN (for readable assertions on parents and dependencies)."""
    return urn.rsplit("::", 1)[-1]


def resources_of_window(evaluation: Evaluation, window_name: str) -> list[tuple[str, str, dict]]:
    """(type, name, inputs) of a window's component and everything under it, sorted."""
    component = evaluation.named("prescale:index:ScheduledCapacity", window_name)
    mine = [component] + [r for r in evaluation.resources if r.parent == component.urn]
    return sorted((r.type, r.name, as_object(r)) for r in mine)


def allowed_disruptions(budgets: list[dict], nodes: int, reason: str, at: datetime) -> int:
    """Karpenter v1's ``NodePool.GetAllowedDisruptionsByReason``: the least any active budget allows among those
    naming ``reason`` or no reason at all; a percentage of the pool's nodes rounds up."""
    def active(budget: dict) -> bool:
        return "schedule" not in budget or freeze_active(Freeze(budget["schedule"], budget["duration"]), at)
    allowed = [math.ceil(nodes * int(budget["nodes"][:-1]) / 100) if budget["nodes"].endswith("%")
               else int(budget["nodes"]) for budget in budgets
               if reason in budget.get("reasons", [reason]) and active(budget)]
    return min(allowed, default=nodes)
