"""Run the real Pulumi program with no cloud and no Pulumi CLI, and record what it registers.

``prescale plan`` and the whole-program tests share this: the stack's ``Pulumi.<stack>.yaml`` is read
the way the Pulumi CLI reads it (:mod:`prescale.stack_file`), ``__main__.py`` runs
under ``pulumi.runtime.set_mocks``, and every registration is captured with its inputs, parent,
provider, dependencies and options. Mocked outputs stand in for what AWS would answer (account,
partition, the EKS cluster's endpoint and OIDC issuer...), so nothing here claims a cloud result.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc
from pulumi.runtime.proto import alias_pb2, resource_pb2

from .stack_file import project_name, read_stack_file

ACCOUNT_ID = "123456789012"
CAPACITY_RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
SECRET = "[secret]"  # how a secret is shown (stack outputs, plans, manifests): its value never leaves the program
# A resource reference on the wire (the SDK has no public name for its signature).
_RESOURCE_REF = {rpc._special_sig_key: rpc._special_resource_sig}


def is_secret(value: Any) -> bool:
    """Whether a registered input is a secret as the engine receives it (wrapped, its value inside)."""
    return rpc.is_rpc_secret(value)


def revealed(value: Any) -> Any:
    """A registered input with its secret wrapper (if any) removed."""
    return rpc.unwrap_rpc_secret(value)


def carries_wire_values(value: Any) -> bool:
    """Whether anything in ``value`` is still in the engine's wire form (a secret or a resource reference):
    a Helm chart or a manifest must only ever get plain values."""
    return rpc._special_sig_key in json.dumps(value)


@dataclass
class Registration:
    """One resource the program registered, as the Pulumi engine would receive it."""

    type: str
    name: str
    urn: str
    parent: str  # the parent's URN ("" for children of the stack)
    inputs: dict[str, Any]
    custom: bool
    provider: str = ""
    dependencies: list[str] = field(default_factory=list)
    ignore_changes: list[str] = field(default_factory=list)
    aliases: list[str | pulumi.Alias] = field(default_factory=list)  # URNs, or specs as the program gave them
    protect: bool = False
    retain_on_delete: bool = False
    remote: bool = False  # a component implemented by a provider plugin (pulumi-eks)
    version: str = ""  # the provider plugin version the SDK asked for
    outputs: dict[str, Any] | None = None  # what a component passed to register_outputs, if it did


@dataclass
class Evaluation:
    """Everything one offline run produced."""

    resources: list[Registration]
    outputs: dict[str, Any]
    warnings: list[str]

    def of_type(self, type_: str) -> list[Registration]:
        return [r for r in self.resources if r.type == type_]

    def named(self, type_: str, name: str) -> Registration:
        return next(r for r in self.resources if r.type == type_ and r.name == name)

    def by_urn(self, urn: str) -> Registration:
        return next(r for r in self.resources if r.urn == urn)


class _RecordingMonitor(pulumi_mocks.MockMonitor):
    """The SDK's mock monitor, plus a record of each request's options and the stack outputs.

    It does not advertise resource references: resource-typed inputs of remote components (pulumi-eks)
    then arrive as URNs/ids instead of being rehydrated on the monitor's thread, which fails under mocks.
    """

    mocks: OfflineMocks

    def __init__(self, mocks: OfflineMocks):
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self._by_urn: dict[str, Registration] = {}

    def GetDeploymentInfo(self, request):
        info = super().GetDeploymentInfo(request)
        features = [f for f in info.supportedFeatures
                    if f != resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES]
        return resource_pb2.DeploymentInfo(supportedFeatures=features)

    def RegisterResource(self, request):
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            args = self.mocks.current.args  # set by new_resource on this same thread
            registration = Registration(
                type=args.typ, name=args.name, urn=response.urn, parent=request.parent,
                inputs=dict(args.inputs), custom=bool(args.custom), provider=args.provider or "",
                dependencies=list(request.dependencies), ignore_changes=list(request.ignoreChanges),
                aliases=[_declared_alias(alias) for alias in request.aliases], protect=bool(request.protect),
                retain_on_delete=bool(request.retainOnDelete),
                remote=bool(request.remote), version=request.version)
            self.registrations.append(registration)
            self._by_urn[registration.urn] = registration
        return response

    def RegisterResourceOutputs(self, request):
        registration = self._by_urn.get(request.urn)  # the stack's own outputs are kept by evaluate()
        if registration is not None:
            registration.outputs = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


def _declared_alias(alias: alias_pb2.Alias) -> str | pulumi.Alias:
    """An alias as the program declared it (the wire leaves a field empty where the program gave none)."""
    if alias.urn:
        return alias.urn
    spec = alias.spec
    parent = None if spec.noParent else (spec.parentUrn or ...)
    # `...` is the SDK's own "not given" for every field (pulumi.Alias's defaults); its stubs do not say so.
    return pulumi.Alias(name=spec.name or ..., type_=spec.type or ..., parent=parent,  # type: ignore[arg-type]
                        stack=spec.stack or ..., project=spec.project or ...)  # type: ignore[arg-type]


# Custom resource definitions an existing cluster has, unless a test says otherwise (its Prometheus Operator's).
EXISTING_CRDS = frozenset({"prometheusrules.monitoring.coreos.com"})
CRD_TYPE = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"


class OfflineMocks(pulumi.runtime.Mocks):
    """Answers the engine like a small fake AWS account and records every registration.

    ``existing_crds``: the CRDs a read (``CustomResourceDefinition.get``) finds in the cluster.
    """

    def __init__(self, region: str = "ap-northeast-2", existing_crds: frozenset[str] = EXISTING_CRDS):
        self.region = region
        self.existing_crds = existing_crds
        self.monitor = _RecordingMonitor(self)
        self.current = threading.local()  # the engine registers from several threads at once

    @property
    def registrations(self) -> list[Registration]:
        return self.monitor.registrations

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        if args.resource_id:  # a read of an existing object (`Resource.get`), never a registration
            return args.resource_id, fake_read(self, args)
        self.current.args = args
        outputs = {**args.inputs, **fake_outputs(self, args)}
        return fake_id(args), outputs

    def call(self, args: pulumi.runtime.MockCallArgs):
        return fake_invoke(self, args.token, args.args)

    def resource_ref(self, parent_type: str, type_: str, name: str, state: dict) -> dict:
        """A resource reference output (e.g. ``eks.Cluster.eks_cluster``) the SDK can rehydrate."""
        urn = f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{parent_type}${type_}::{name}"
        self.monitor.resources[urn] = pulumi_mocks.MockMonitor.ResourceRegistration(urn, f"{name}-id", state)
        return {**_RESOURCE_REF, "urn": urn, "id": f"{name}-id"}


@atexit.register
def _skip_exit_collection() -> None:
    """Spare the process the collections of its exit (docs/performance.md, "The interpreter's exit").

    They would rescan every object the SDKs and the runs left (half a second to a second after a ``prescale plan``,
    more than the run itself) only to free them as the process ends anyway.
    """
    gc.freeze()


def fake_id(args: pulumi.runtime.MockResourceArgs) -> str:
    """The physical id AWS would give: ``<name>-id``, or where its shape is checked downstream (a capacity
    reservation's ``cr-…``, which the EC2NodeClass CRD's id pattern requires) one derived from the name."""
    if args.typ == CAPACITY_RESERVATION:
        return f"cr-{hashlib.sha256(args.name.encode()).hexdigest()[:17]}"
    return f"{args.name}-id"


class ResourceNotFound(LookupError):
    """A read of an object the cluster does not have; its message is the Pulumi engine's for a failed read."""


def fake_read(mocks: OfflineMocks, args: pulumi.runtime.MockResourceArgs) -> dict[str, Any]:
    """The state of an existing object a program reads, or :class:`ResourceNotFound` as the engine fails such a read
    (``Preview failed: resource '<id>' does not exist``, pulumi/pulumi-kubernetes#1050)."""
    if args.typ == CRD_TYPE and args.resource_id in mocks.existing_crds:
        group = args.resource_id.split(".", 1)[1]
        return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": args.resource_id}, "spec": {"group": group, "scope": "Namespaced"}}
    raise ResourceNotFound(f"Preview failed: resource '{args.resource_id}' does not exist")


def fake_outputs(mocks: OfflineMocks, args: pulumi.runtime.MockResourceArgs) -> dict[str, Any]:
    """Outputs AWS (or a remote component) would compute, for the types the program reads them from."""
    arn = f"arn:aws:{{}}:{mocks.region}:{ACCOUNT_ID}:{{}}"
    if args.typ == "aws:iam/role:Role":
        return {"arn": f"arn:aws:iam::{ACCOUNT_ID}:role/{args.inputs.get('name', args.name)}",
                "name": args.inputs.get("name", args.name)}
    if args.typ == "aws:sqs/queue:Queue":
        name = args.inputs.get("name", args.name)
        return {"arn": arn.format("sqs", name), "name": name,
                "url": f"https://sqs.{mocks.region}.amazonaws.com/{ACCOUNT_ID}/{name}"}
    if args.typ == "eks:index:Cluster":
        return _fake_eks_cluster(mocks, args)
    if args.typ == CAPACITY_RESERVATION:
        return {"arn": arn.format("ec2", f"capacity-reservation/{fake_id(args)}"), "ownerId": ACCOUNT_ID}
    if args.typ == "eks:index:ManagedNodeGroup":
        return {"nodeGroup": mocks.resource_ref(args.typ, "aws:eks/nodeGroup:NodeGroup", f"{args.name}-nodeGroup",
                                                {"nodeGroupName": args.name, "status": "ACTIVE"})}
    if args.typ.startswith("aws:"):
        # Auto-named AWS resources (rules, policies...) report their physical name; the mock keeps it plain.
        return {"name": args.inputs.get("name", args.name),
                "arn": args.inputs.get("arn", arn.format(args.typ.split(":")[1].split("/")[0], args.name))}
    return {}


def _fake_eks_cluster(mocks: OfflineMocks, args: pulumi.runtime.MockResourceArgs) -> dict[str, Any]:
    """The pulumi-eks Cluster's outputs (a remote component: the mock sees it, none of its children).

    With ``skipDefaultSecurityGroups`` both security group outputs are the group EKS itself creates. With
    ``autoMode.enabled`` pulumi-eks creates the Auto Mode node role (``createNodeRole`` defaults to true) and
    reports its name; otherwise that output is "".
    """
    name = args.inputs.get("name") or f"{args.name}-eksCluster"
    issuer = f"oidc.eks.{mocks.region}.amazonaws.com/id/OFFLINE"
    endpoint = f"https://OFFLINE.gr7.{mocks.region}.eks.amazonaws.com"
    kubeconfig = _kubeconfig(name, endpoint)
    eks_cluster = mocks.resource_ref(args.typ, "aws:eks/cluster:Cluster", f"{args.name}-eksCluster", {
        "name": name, "arn": f"arn:aws:eks:{mocks.region}:{ACCOUNT_ID}:cluster/{name}", "endpoint": endpoint,
        "version": args.inputs.get("version", ""), "certificateAuthority": {"data": "T0ZGTElORQ=="},
        "vpcConfig": {"clusterSecurityGroupId": "sg-0eks0cluster"}})
    return {"eksCluster": eks_cluster, "kubeconfig": kubeconfig, "kubeconfigJson": json.dumps(kubeconfig),
            "oidcProviderArn": f"arn:aws:iam::{ACCOUNT_ID}:oidc-provider/{issuer}",
            "oidcProviderUrl": f"https://{issuer}", "oidcIssuer": issuer,
            "clusterSecurityGroupId": "sg-0eks0cluster", "nodeSecurityGroupId": "sg-0eks0cluster",
            "instanceRoles": [], "autoModeNodeRoleName": _auto_mode_node_role_name(args)}


def _auto_mode_node_role_name(args: pulumi.runtime.MockResourceArgs) -> str:
    auto_mode = args.inputs.get("autoMode") or {}
    return f"{args.name}-autoModeNodeRole" if auto_mode.get("enabled") and auto_mode.get("createNodeRole", True) else ""


def _kubeconfig(cluster_name: str, endpoint: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Config", "current-context": cluster_name,
            "clusters": [{"name": cluster_name, "cluster": {"server": endpoint}}],
            "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
            "users": [{"name": cluster_name, "user": {"exec": {"command": "aws"}}}]}


def fake_invoke(mocks: OfflineMocks, token: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Answers to data-source calls (``aws.get_caller_identity()``...)."""
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {"accountId": ACCOUNT_ID, "arn": f"arn:aws:iam::{ACCOUNT_ID}:user/offline", "userId": "offline"}
    if token == "aws:index/getPartition:getPartition":
        return {"partition": "aws", "dnsSuffix": "amazonaws.com", "reverseDnsPrefix": "com.amazonaws"}
    if token == "aws:index/getRegion:getRegion":
        return {"name": mocks.region, "region": mocks.region}
    if token == "aws:iam/getPolicyDocument:getPolicyDocument":
        return {"json": json.dumps({"Version": "2012-10-17", "Statement": args.get("statements", [])})}
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        zones = _zone_names(mocks)
        return {"names": zones, "zoneIds": [f"zone-{i}" for i in range(len(zones))], "state": "available"}
    if token == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
        return _every_zone_offers(mocks, args)
    if token == "aws:eks/getCluster:getCluster":
        return _fake_existing_cluster(mocks, args["name"])
    if token == "aws:iam/getRole:getRole":  # an existing role (karpenter.nodeRoleName)
        return {"id": args["name"], "name": args["name"], "arn": f"arn:aws:iam::{ACCOUNT_ID}:role/{args['name']}"}
    if token == "aws:eks/getClusters:getClusters":
        return {"id": mocks.region, "names": []}  # no cluster exists yet: a new one is created by its caller
    if token == "aws:iam/getSessionContext:getSessionContext":
        return _session_context(args["arn"])
    if token == "aws:eks/getAddon:getAddon":  # the existing cluster has every add-on asked for
        return {"id": f"{args['clusterName']}:{args['addonName']}", "clusterName": args["clusterName"],
                "addonName": args["addonName"], "addonVersion": "v1.3.10-eksbuild.1"}
    if token == "aws:ec2/getSubnets:getSubnets":
        return _subnets_matching(mocks, args)
    if token == "aws:ec2/getSubnet:getSubnet":
        return _subnet(mocks, args["id"])
    if token == "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider":  # and its issuer's OIDC provider
        url = args["url"].removeprefix("https://")
        return {"id": url, "url": url, "arn": f"arn:aws:iam::{ACCOUNT_ID}:oidc-provider/{url}",
                "clientIdLists": ["sts.amazonaws.com"], "thumbprintLists": []}
    return {}


def _zone_names(mocks: OfflineMocks) -> list[str]:
    return [f"{mocks.region}{letter}" for letter in "abcd"]


def _every_zone_offers(mocks: OfflineMocks, args: Mapping[str, Any]) -> dict[str, Any]:
    """``aws.ec2.get_instance_type_offerings`` by zone: each filtered instance type in every zone."""
    types = [value for f in args.get("filters", []) if f["name"] == "instance-type" for value in f["values"]]
    pairs = [(type_, zone) for type_ in types for zone in _zone_names(mocks)]
    return {"id": mocks.region, "instanceTypes": [type_ for type_, _ in pairs],
            "locations": [zone for _, zone in pairs], "locationTypes": ["availability-zone"] * len(pairs)}


# Free addresses in each subnet the fake account has: most of a /20 (4091 usable), some taken by running nodes.
SUBNET_FREE_ADDRESSES = 4000


def _subnets_matching(mocks: OfflineMocks, args: Mapping[str, Any]) -> dict[str, Any]:
    """``aws.ec2.get_subnets``: the ids a ``subnet-id`` filter names; for tag filters, one private subnet per zone."""
    filters = args.get("filters", [])
    named = [value for f in filters if f["name"] == "subnet-id" for value in f["values"]]
    ids = named or [f"subnet-0offline{zone[-1]}" for zone in _zone_names(mocks)[:3]]
    return {"id": mocks.region, "ids": ids, "filters": filters}


def _subnet(mocks: OfflineMocks, subnet_id: str) -> dict[str, Any]:
    """``aws.ec2.get_subnet``: a private /20 of the existing VPC, in a zone chosen by its id."""
    zones = _zone_names(mocks)[:3]
    index = sum(map(ord, subnet_id)) % len(zones)
    return {"id": subnet_id, "arn": f"arn:aws:ec2:{mocks.region}:{ACCOUNT_ID}:subnet/{subnet_id}",
            "availabilityZone": zones[index], "availabilityZoneId": f"zone-{index}", "vpcId": "vpc-0existing",
            "cidrBlock": f"10.0.{16 * index}.0/20", "availableIpAddressCount": SUBNET_FREE_ADDRESSES,
            "mapPublicIpOnLaunch": False, "state": "available", "tags": {}}


def _session_context(arn: str) -> dict[str, Any]:
    """``aws.iam.get_session_context``: an assumed-role session's role (path unknown here), else the ARN itself."""
    partition, account, resource = arn.split(":")[1], arn.split(":")[4], arn.split(":", 5)[5]
    if resource.startswith("assumed-role/"):
        _, role, session = resource.split("/", 2)
        return {"arn": arn, "issuerArn": f"arn:{partition}:iam::{account}:role/{role}", "issuerId": "AROAOFFLINE",
                "issuerName": role, "sessionName": session, "id": arn}
    return {"arn": arn, "issuerArn": arn, "issuerId": "", "issuerName": "", "sessionName": "", "id": arn}


def _fake_existing_cluster(mocks: OfflineMocks, name: str) -> dict[str, Any]:
    """``aws.eks.get_cluster`` for a cluster that already exists (existing-cluster mode).

    It runs EKS Auto Mode with both built-in node pools, so it serves either mode: without ``autoMode`` the
    program reads none of those settings.
    """
    return {
        "id": name, "name": name, "arn": f"arn:aws:eks:{mocks.region}:{ACCOUNT_ID}:cluster/{name}",
        "endpoint": f"https://EXISTING.gr7.{mocks.region}.eks.amazonaws.com", "version": "1.34",
        "status": "ACTIVE", "certificateAuthorities": [{"data": "RVhJU1RJTkc="}],
        "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{mocks.region}.amazonaws.com/id/EXISTING"}]}],
        "accessConfigs": [{"authenticationMode": "API_AND_CONFIG_MAP",
                           "bootstrapClusterCreatorAdminPermissions": True}],
        "vpcConfig": {"clusterSecurityGroupId": "sg-0existing", "vpcId": "vpc-0existing",
                      "subnetIds": ["subnet-0existing1", "subnet-0existing2"], "securityGroupIds": [],
                      "endpointPrivateAccess": True, "endpointPublicAccess": True,
                      "publicAccessCidrs": ["0.0.0.0/0"], "controlPlaneEgressMode": "AWS_MANAGED"},
        "computeConfigs": [{"enabled": True, "nodePools": ["general-purpose", "system"],
                            "nodeRoleArn": f"arn:aws:iam::{ACCOUNT_ID}:role/{name}-AutoModeNodeRole"}],
        "storageConfigs": [{"blockStorages": [{"enabled": True}]}],
        "kubernetesNetworkConfigs": [{"elasticLoadBalancings": [{"enabled": True}], "ipFamily": "ipv4",
                                      "serviceIpv4Cidr": "172.20.0.0/16", "serviceIpv6Cidr": ""}],
    }


def evaluate(program: Callable[[], Any], *, stack: str = "dev", config: Mapping[str, str] | None = None,
             region: str = "ap-northeast-2", mocks: OfflineMocks | None = None,
             project: str = "prescale") -> Evaluation:
    """Run ``program`` under fresh mocks with ``config`` (Pulumi's wire form) and record what it registers.

    Pass your own ``mocks`` to inspect what was registered even when the program raises.
    """
    mocks = mocks or OfflineMocks(region)
    return _on_a_stack_of_its_own(partial(_evaluate, program, stack, config, mocks, project))


def _evaluate(program: Callable[[], Any], stack: str, config: Mapping[str, str] | None, mocks: OfflineMocks,
              project: str) -> Evaluation:
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=False, monitor=mocks.monitor)
    pulumi.runtime.set_all_config(dict(config or {}))
    warnings: list[str] = []
    outputs: dict[str, Any] = {}
    with _capturing_warnings(warnings), _registration_gc():
        pulumi.runtime.test(lambda: _with_stack_outputs(program, outputs))()
    return Evaluation(resources=list(mocks.registrations), outputs=outputs, warnings=warnings)


def _on_a_stack_of_its_own(run: Callable[[], Evaluation]) -> Evaluation:
    """``run()`` on a thread of its own, its result or exception returned or raised here.

    The SDK records the call stack of every registration (``pulumi.runtime.resource._get_stack_trace``, about
    10 µs a frame): run where it is called, a program pays for every frame of its caller's, some 50 of a test
    runner's for each resource. On its own thread the stack starts at the run. The thread starts with an empty
    context too, so each run gets the SDK's settings and root Stack (context variables) fresh, and its own event
    loop, closed when the run ends, as are the loops of the threads that answer the engine's calls
    (:func:`_answering_threads`). A daemon: Ctrl-C stops the command without waiting for the run.
    """
    outcome: Future[Evaluation] = Future()

    def on_its_own_loop() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            with _answering_threads(loop):
                outcome.set_result(run())
        except BaseException as error:  # noqa: BLE001 - handed to the caller, who raises it
            outcome.set_exception(error)
        finally:
            loop.close()

    thread = threading.Thread(target=on_its_own_loop, name="prescale-program", daemon=True)
    thread.start()
    thread.join()
    return outcome.result()


@contextmanager
def _answering_threads(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """``loop``'s executor, whose threads answer the SDK's calls to the mocks, each with an event loop closed when
    the run ends.

    The SDK's mock monitor gives each such thread an event loop of its own and never closes it
    (``pulumi.runtime.mocks.MockMonitor.RegisterResource``): an epoll and a socket pair per thread, 18 descriptors
    a run, held until a full garbage collection. A process that runs many programs (the tests, a library caller)
    ran out of them (``select()`` takes none above 1,023). Here each thread gets its loop when it starts, the
    monitor finds and uses it, and the run closes them all once the threads are done.
    """
    thread_loops: list[asyncio.AbstractEventLoop] = []

    def with_a_loop() -> None:
        thread_loop = asyncio.new_event_loop()
        asyncio.set_event_loop(thread_loop)
        thread_loops.append(thread_loop)

    executor = ThreadPoolExecutor(thread_name_prefix="prescale-engine", initializer=with_a_loop)
    loop.set_default_executor(executor)
    try:
        yield
    finally:
        executor.shutdown(wait=True)
        for thread_loop in thread_loops:
            thread_loop.close()


def _with_stack_outputs(program: Callable[[], Any], sink: dict[str, Any]) -> pulumi.Output:
    """Run the program, then resolve its ``pulumi.export``s into ``sink`` (secrets stay marked)."""
    program()
    root = pulumi.runtime.settings.get_root_resource()
    exported = dict(getattr(root, "outputs", {}))  # the Stack resource keeps its exports here

    def keep(name: str, output: pulumi.Output) -> pulumi.Output:
        return pulumi.Output.all(output, output.is_secret()).apply(
            lambda pair: sink.__setitem__(name, SECRET if pair[1] else pair[0]))

    return pulumi.Output.all(*(keep(name, pulumi.Output.from_input(v)) for name, v in exported.items()))


@contextmanager
def _registration_gc() -> Iterator[None]:
    """No garbage collection while the program runs; what it leaves then joins the oldest generation at once.

    Every resource leaves hundreds of long-lived objects (futures, outputs, protobuf messages). The collector would
    scan each of them as it ages through the generations, and all of them again in each full collection the
    growing heap sets off: a third of a 500-window run (docs/performance.md). The run's few reference cycles wait for
    a later full collection (about 10 % more peak memory); a command-line process ends before one.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # every generation, the run's objects included, into the permanent one...
        gc.unfreeze()  # ...and from there into the oldest, which only full collections scan
        if enabled:
            gc.enable()


@contextmanager
def _capturing_warnings(sink: list[str]) -> Iterator[None]:
    """The program's ``pulumi.log.warn`` messages, kept as data (:attr:`Evaluation.warnings`) for the caller to
    say; under mocks the SDK would only hand them to Python's root logger."""
    original = pulumi.log.warn

    def record(msg: str, resource: pulumi.Resource | None = None, stream_id: int | None = None,
               ephemeral: bool | None = None) -> None:
        sink.append(msg)

    pulumi.log.warn = record
    try:
        yield
    finally:
        pulumi.log.warn = original


def run_program(project_dir: Path, stack: str, now: datetime | None = None,
                config: Mapping[str, str] | None = None, mocks: OfflineMocks | None = None) -> Evaluation:
    """Evaluate ``project_dir/__main__.py`` for ``stack`` offline (``config`` overrides the stack file).

    The file is run by ``exec`` rather than ``runpy``: the SDK records the call stack of every registration
    (``pulumi.runtime.resource._get_stack_trace``, about 10 µs a frame), and runpy's three frames under the program
    cost a few hundredths of a second per thousand resources (docs/performance.md).
    """
    wire = config if config is not None else read_stack_file(project_dir, stack)
    main = project_dir / "__main__.py"
    code = compile(main.read_bytes(), str(main), "exec")  # bytes: the source's own encoding (PEP 263), not the locale's
    region = wire.get("aws:region", "ap-northeast-2")
    previous = os.environ.get("PRESCALE_NOW")
    if now is not None:
        os.environ["PRESCALE_NOW"] = now.isoformat()
    try:
        return evaluate(partial(exec, code, {"__name__": "__main__", "__file__": str(main)}),
                        stack=stack, config=wire, region=region, mocks=mocks, project=project_name(project_dir))
    finally:
        if previous is None:
            os.environ.pop("PRESCALE_NOW", None)
        else:
            os.environ["PRESCALE_NOW"] = previous
