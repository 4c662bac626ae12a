"""The EKS cluster prescale runs on: a new one (pulumi-eks) or an existing one looked up by name.

Either way the component hands out the same things: the cluster's name, a kubeconfig, the Kubernetes provider
every in-cluster resource must use, the OIDC issuer (for IRSA), where controllers are placed
(:class:`~prescale.contract.SystemPlacement`), and the resources in-cluster installs must wait for.

A new cluster is shaped for self-managed Karpenter: API authentication mode, an OIDC provider, no default node
group and no pulumi-eks security groups (every node shares the cluster security group, tagged for discovery), a
small tainted *system* node group for the controllers, CoreDNS created after it, and the pod identity agent when
Karpenter uses Pod Identity. An existing cluster is only read, and what prescale's Karpenter needs from it is checked
at preview (:func:`existing_cluster_problems`). On Auto Mode AWS runs Karpenter, CoreDNS and the add-on nodes.
The why of each choice: docs/platform.md and docs/auto-mode.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from ..contract import AUTO_MODE_SYSTEM_PLACEMENT, SYSTEM_NODE_TAINT, NodeNetwork, SystemPlacement
from ..model.checks.eks_versions import forced_upgrade_notice
from ..model.config import ClusterConfig
from ..names import DISCOVERY_TAG
from ..refusals import PreviewRefusal
from .iam import eks_node_role
from .network import Network, NetworkArgs

SYSTEM_NODE_LABELS = {"prescale.io/system": "true"}
CLUSTER_ADMIN_POLICY = "AmazonEKSClusterAdminPolicy"
# Auto Mode's built-in node pools (both on: `system` runs KEDA, `general-purpose` everything unplaced).
AUTO_MODE_NODE_POOLS = ("general-purpose", "system")


POD_IDENTITY_AGENT = "eks-pod-identity-agent"
ACCESS_ENTRY_MODES = ("API", "API_AND_CONFIG_MAP")


class ClusterPrerequisiteError(PreviewRefusal):
    """The account or an existing cluster is not as prescale needs it (found at preview, before any change)."""


class AutoModeError(PreviewRefusal):
    """An existing cluster cannot serve ``prescale:cluster.autoMode: true`` as it is."""


@dataclass(frozen=True)
class ClusterArgs:
    config: ClusterConfig
    region: str
    tags: Mapping[str, str]
    # Install the eks-pod-identity-agent add-on (a new cluster only; an existing one must already have it;
    # Auto Mode has it built in).
    pod_identity_agent: bool
    # The program's clock (aware): the pinned version's EKS support dates are checked against it.
    now: datetime
    # Whether prescale installs Karpenter here: only then must an existing cluster offer what its controller
    # and nodes need (access entries; the pod identity agent or an OIDC provider).
    karpenter_installed: bool = True


class Cluster(pulumi.ComponentResource):
    """A new EKS cluster with its VPC and system node group, or an existing cluster, read-only."""

    cluster_name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]  # JSON, secret
    provider: k8s.Provider
    oidc_provider_arn: pulumi.Output[str]
    oidc_issuer: pulumi.Output[str]  # without https://, as IAM condition keys spell it
    system_placement: SystemPlacement
    # In-cluster installs wait for these: control plane, system nodes, cluster add-ons (empty when existing).
    ready: list[pulumi.Resource]
    # Auto Mode only (None otherwise): the role of the nodes Auto Mode launches, for prescale's NodeClasses.
    auto_mode_node_role_name: pulumi.Output[str] | None = None
    # What the capacity wing's address check knows of the nodes' subnets (nothing for an existing cluster).
    node_network: NodeNetwork = NodeNetwork()

    def __init__(self, name: str, args: ClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:Cluster", name, {}, opts)
        self._name, self._args = name, args
        self._partition = aws.get_partition_output(opts=pulumi.InvokeOutputOptions(parent=self)).partition
        if args.config.create:
            self._create()
        else:
            self._look_up()
        if args.config.auto_mode:
            self.system_placement = AUTO_MODE_SYSTEM_PLACEMENT
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig,
                                     opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"clusterName": self.cluster_name, "kubeconfig": self.kubeconfig,
                               "oidcProviderArn": self.oidc_provider_arn})

    # --- a new cluster ------------------------------------------------------------------------------

    def _create(self) -> None:
        config, tags = self._args.config, dict(self._args.tags)
        notice = forced_upgrade_notice(config.kubernetes_version, config.support_type, self._args.now)
        if notice:
            pulumi.log.warn(notice, resource=self)
        vpc_id, private_subnet_ids, public_subnet_ids = self._network()
        cluster = eks.Cluster(
            f"{self._name}-eks",
            name=config.name,
            version=config.kubernetes_version,
            authentication_mode=eks.AuthenticationMode.API,
            access_entries=self._admin_access_entries(),
            create_oidc_provider=True,
            skip_default_node_group=True,
            skip_default_security_groups=True,
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type=config.support_type),
            endpoint_public_access=config.endpoint_public_access,
            public_access_cidrs=config.public_access_cidrs if config.endpoint_public_access else None,
            endpoint_private_access=config.endpoint_private_access,
            vpc_id=vpc_id,
            private_subnet_ids=private_subnet_ids,
            public_subnet_ids=public_subnet_ids or None,
            node_associate_public_ip_address=False,
            coredns_addon_options=eks.CoreDnsAddonOptionsArgs(enabled=False),
            auto_mode=eks.AutoModeOptionsArgs(
                enabled=True, create_node_role=True,
                compute_config=eks.ClusterComputeConfigArgs(node_pools=list(AUTO_MODE_NODE_POOLS)),
            ) if config.auto_mode else None,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self))
        self.cluster_name = cluster.eks_cluster.name
        self.kubeconfig = pulumi.Output.secret(cluster.kubeconfig_json)
        self.oidc_provider_arn = cluster.oidc_provider_arn
        self.oidc_issuer = cluster.oidc_issuer
        self.system_placement = SystemPlacement(node_selector=SYSTEM_NODE_LABELS)

        aws.ec2.Tag(f"{self._name}-node-sg-discovery", resource_id=cluster.node_security_group_id,
                    key=DISCOVERY_TAG, value=self.cluster_name, opts=pulumi.ResourceOptions(parent=self))
        if config.auto_mode:
            # Auto Mode brings CoreDNS, the pod identity agent and the nodes for add-ons itself.
            self.auto_mode_node_role_name = cluster.auto_mode_node_role_name
            self.ready = [cluster]
            return
        node_role, node_role_policies = eks_node_role(
            f"{self._name}-system-node", partition=self._partition, tags=tags, parent=self,
            description=f"System node group of EKS cluster {config.name} (Karpenter, KEDA, CoreDNS)")
        add_ons: list[pulumi.Resource] = []
        if self._args.pod_identity_agent:
            add_ons.append(self._add_on("eks-pod-identity-agent"))
        node_group = self._system_node_group(cluster, node_role, node_role_policies, private_subnet_ids)
        add_ons.append(self._add_on("coredns", depends_on=[node_group],
                                    configuration={"nodeSelector": SYSTEM_NODE_LABELS}))
        self.ready = [cluster, node_group, *add_ons]

    def _network(self) -> tuple[pulumi.Input[str], Sequence[pulumi.Input[str]], Sequence[pulumi.Input[str]]]:
        """A new VPC, or the configured one with Karpenter's discovery tag added to its private subnets."""
        config = self._args.config
        cni_defaults = not config.auto_mode  # EKS installs the VPC CNI with its defaults; prescale sets none
        if config.vpc_id is None:
            network = Network(f"{self._name}-vpc", NetworkArgs(
                cluster_name=config.name, cidr=config.vpc_cidr, availability_zones=config.availability_zones,
                nat_gateway_per_zone=config.nat_gateways == "onePerAz", tags=self._args.tags,
                node_instance_types=config.system_node_group.instance_types),
                opts=pulumi.ResourceOptions(parent=self))
            self.node_network = NodeNetwork(cni_defaults, discovery_subnet_cidrs=network.private_subnet_cidrs)
            return network.vpc_id, network.private_subnet_ids, network.public_subnet_ids
        private = config.private_subnet_ids or []  # the config requires them with vpcId
        self.node_network = NodeNetwork(cni_defaults, discovery_subnet_ids=private)
        for subnet_id in private:
            aws.ec2.Tag(f"{self._name}-{subnet_id}-discovery", resource_id=subnet_id, key=DISCOVERY_TAG,
                        value=config.name, opts=pulumi.ResourceOptions(parent=self))
        return config.vpc_id, list(private), list(config.public_subnet_ids or [])

    def _admin_access_entries(self) -> dict[str, eks.AccessEntryArgs]:
        """Cluster-admin access for the configured roles, keyed by role name so reordering changes nothing.

        Each principal ARN waits for :meth:`_creator_checked`, so the cluster is not even registered when one
        of the roles is the one creating it.
        """
        if not self._args.config.admin_role_arns:
            return {}
        checked = self._creator_checked()
        policy_arn = pulumi.Output.concat("arn:", self._partition, ":eks::aws:cluster-access-policy/",
                                          CLUSTER_ADMIN_POLICY)
        return {
            f"admin-{arn.rsplit('/', 1)[-1]}": eks.AccessEntryArgs(
                principal_arn=pulumi.Output.all(checked, arn).apply(lambda checked_arn: str(checked_arn[1])),
                type=eks.AccessEntryType.STANDARD,
                access_policies={"cluster-admin": eks.AccessPolicyAssociationArgs(
                    policy_arn=policy_arn,
                    access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"))})
            for arn in self._args.config.admin_role_arns}

    def _creator_checked(self) -> pulumi.Output[None]:
        """Resolves once no ``adminRoleArns`` entry is the role running this deployment while it creates the
        cluster; fails the run (at preview) with :class:`ClusterPrerequisiteError` otherwise."""
        config, opts = self._args.config, pulumi.InvokeOutputOptions(parent=self)
        caller = aws.get_caller_identity_output(opts=opts)
        # An assumed-role session ARN names the role without its path; the session context gives the role's ARN.
        session = aws.iam.get_session_context_output(arn=caller.arn, opts=opts)
        existing = aws.eks.get_clusters_output(opts=opts)

        def check(found: list[Any]) -> None:
            caller_arn, existing_clusters = found
            problem = creator_problem(config.name, config.admin_role_arns, caller_arn, existing_clusters or [])
            if problem:
                raise ClusterPrerequisiteError(problem)
        return pulumi.Output.all(session.issuer_arn, existing.names).apply(check)

    def _system_node_group(self, cluster: eks.Cluster, node_role: aws.iam.Role,
                           node_role_policies: Sequence[pulumi.Resource],
                           subnet_ids: Sequence[pulumi.Input[str]]) -> eks.ManagedNodeGroup:
        """On-demand AL2023 nodes spread over the private subnets' zones, reserved for controllers."""
        sizes = self._args.config.system_node_group
        return eks.ManagedNodeGroup(
            f"{self._name}-system",
            cluster=cluster,
            # An ARN, not the Role: a resource object passed into a remote component breaks under mocks and
            # buys nothing here.
            node_role_arn=node_role.arn,
            subnet_ids=subnet_ids,
            instance_types=sizes.instance_types,
            capacity_type="ON_DEMAND",
            operating_system=eks.OperatingSystem.AL2023,
            disk_size=sizes.disk_size_gib,
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=sizes.min_size, desired_size=sizes.desired_size, max_size=sizes.max_size),
            labels=SYSTEM_NODE_LABELS,
            taints=[aws.eks.NodeGroupTaintArgs(key=SYSTEM_NODE_TAINT["key"], value=SYSTEM_NODE_TAINT["value"],
                                               effect="NO_SCHEDULE")],
            tags=dict(self._args.tags),
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(node_role_policies)))

    def _add_on(self, add_on: str, depends_on: Sequence[pulumi.Resource] = (),
                configuration: Mapping[str, Any] | None = None) -> aws.eks.Addon:
        """An EKS-managed add-on at the default version for the cluster's Kubernetes version."""
        return aws.eks.Addon(
            f"{self._name}-{add_on}",
            cluster_name=self.cluster_name,
            addon_name=add_on,
            configuration_values=json.dumps(configuration) if configuration else None,
            # Take over what `bootstrapSelfManagedAddons` installed instead of failing on it.
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="OVERWRITE",
            tags=dict(self._args.tags),
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(depends_on)))

    # --- an existing cluster ---------------------------------------------------------------------------

    def _look_up(self) -> None:
        config, region = self._args.config, self._args.region
        found = aws.eks.get_cluster_output(name=config.name, opts=pulumi.InvokeOutputOptions(parent=self))
        account_id = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        if config.auto_mode:
            # Read now, not as an Output: a cluster without Auto Mode stops the run at preview, before anything
            # is registered in it, with this error rather than one buried in every resource that waits for it.
            computes = aws.eks.get_cluster(name=config.name, opts=pulumi.InvokeOptions(parent=self)).compute_configs
            self.auto_mode_node_role_name = pulumi.Output.from_input(auto_mode_node_role_name(config.name, computes))
        # The name (so the kubeconfig, every in-cluster resource and Karpenter's AWS side) waits for the check.
        self.cluster_name = self._prerequisites_checked(found) if self._args.karpenter_installed else found.name
        self.oidc_issuer = found.identities.apply(lambda ids: ids[0].oidcs[0].issuer.removeprefix("https://"))
        self.oidc_provider_arn = pulumi.Output.concat(
            "arn:", self._partition, ":iam::", account_id, ":oidc-provider/", self.oidc_issuer)
        self.kubeconfig = pulumi.Output.secret(pulumi.Output.all(
            self.cluster_name, found.endpoint, found.certificate_authorities[0].data).apply(
                lambda values: json.dumps(exec_kubeconfig(*values, region=region))))
        # Its node groups are the user's: no label to select, only the common controller toleration.
        self.system_placement = SystemPlacement()
        self.ready = []

    def _prerequisites_checked(self, found: pulumi.Output[aws.eks.GetClusterResult]) -> pulumi.Output[str]:
        """The existing cluster's name, once it has what Karpenter needs; else the run fails at preview with
        :class:`ClusterPrerequisiteError` naming what to enable."""
        name, opts = self._args.config.name, pulumi.InvokeOutputOptions(parent=self)
        if self._args.pod_identity_agent:
            credentials = lookup_error(aws.eks.get_addon_output(cluster_name=name, addon_name=POD_IDENTITY_AGENT,
                                                                opts=opts))
        else:
            issuer = found.identities.apply(lambda ids: ids[0].oidcs[0].issuer)
            credentials = lookup_error(aws.iam.get_open_id_connect_provider_output(url=issuer, opts=opts))
        # No access config reported: only the aws-auth ConfigMap authenticates (CONFIG_MAP).
        mode = found.access_configs.apply(lambda configs: configs[0].authentication_mode if configs else "CONFIG_MAP")
        pod_identity = self._args.pod_identity_agent

        def check(values: list[Any]) -> str:
            found_name, authentication_mode, credentials_error = values
            problems = existing_cluster_problems(found_name, authentication_mode, pod_identity, credentials_error)
            if problems:
                raise ClusterPrerequisiteError(
                    f"EKS cluster {found_name!r} (prescale:cluster.create: false) lacks what prescale needs:\n  - "
                    + "\n  - ".join(problems))
            return found_name
        return pulumi.Output.all(found.name, mode, credentials).apply(check)


def lookup_error(lookup: pulumi.Output[Any]) -> pulumi.Output[str | None]:
    """None once a data-source lookup succeeds, else its error (the add-on or provider does not exist, or the
    caller may not read it), so a check can say what to enable instead of passing on the provider's error."""
    async def error() -> str | None:
        try:
            await lookup.future()
        except Exception as failure:  # noqa: BLE001 - any failed lookup is reported, with its own message
            return str(failure)
        return None
    return pulumi.Output.from_input(error())


def creator_problem(cluster_name: str, admin_role_arns: Sequence[str], caller_arn: str,
                    existing_clusters: Sequence[str]) -> str | None:
    """Why an ``adminRoleArns`` entry would fail, if it would: it is the role creating the cluster.

    pulumi-eks creates the cluster with ``accessConfig.bootstrapClusterCreatorAdminPermissions: true``
    (pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts), so EKS gives the creating identity an admin access
    entry itself, and pulumi-eks's own entry for the same role then fails with 409 ResourceInUseException.
    Only a cluster that does not exist yet is checked: once it does, its creator is whoever made it.
    Roles are compared by account and name (role names are unique per account; ARNs may differ in path).
    """
    if cluster_name in existing_clusters:
        return None
    caller = _role_identity(caller_arn)
    for index, arn in enumerate(admin_role_arns):
        if caller is not None and _role_identity(arn) == caller:
            return (f"prescale:cluster.adminRoleArns[{index}]: {arn!r} is the role running this deployment "
                    f"({caller_arn}), which creates cluster {cluster_name!r}; EKS makes the cluster's creator "
                    "admin itself (pulumi-eks sets bootstrapClusterCreatorAdminPermissions), so a second access "
                    "entry for it would fail with 409 ResourceInUseException. Remove it from adminRoleArns (it "
                    "stays admin as the creator), or run the first `pulumi up` as another role")
    return None


def _role_identity(arn: str) -> tuple[str, str] | None:
    """(account, role name) of an IAM role ARN; None for users and other principals."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[2] != "iam" or not parts[5].startswith("role/"):
        return None
    return parts[4], parts[5].rsplit("/", 1)[-1]


def existing_cluster_problems(cluster_name: str, authentication_mode: str, pod_identity: bool,
                              credentials_error: str | None) -> list[str]:
    """What an existing cluster lacks for Karpenter: access entries (its nodes join through one) and the way
    its controller gets AWS credentials (the pod identity agent add-on, or an IAM OIDC provider for IRSA)."""
    problems = []
    if authentication_mode not in ACCESS_ENTRY_MODES:
        problems.append(
            f"authentication mode {authentication_mode}: Karpenter's nodes join through an access entry, which "
            f"needs {' or '.join(ACCESS_ENTRY_MODES)}; enable it with `aws eks update-cluster-config --name "
            f"{cluster_name} --access-config authenticationMode=API_AND_CONFIG_MAP`")
    if credentials_error is not None and pod_identity:
        problems.append(
            f"the {POD_IDENTITY_AGENT} add-on was not found ({credentials_error}): Karpenter's controller gets "
            f"its AWS credentials through EKS Pod Identity (prescale:karpenter.controllerAuth: podIdentity); add it "
            f"with `aws eks create-addon --cluster-name {cluster_name} --addon-name {POD_IDENTITY_AGENT}`, or use "
            "controllerAuth: irsa")
    elif credentials_error is not None:
        problems.append(
            f"the IAM OIDC provider for the cluster's issuer was not found ({credentials_error}): Karpenter's "
            f"controller gets its AWS credentials through IRSA (prescale:karpenter.controllerAuth: irsa); create it "
            f"with `eksctl utils associate-iam-oidc-provider --cluster {cluster_name} --approve`, or use "
            "controllerAuth: podIdentity")
    return problems


def auto_mode_node_role_name(cluster_name: str, computes: Sequence[Any] | None) -> str:
    """The role Auto Mode's built-in pools run as (``get_cluster``'s compute config), which prescale's NodeClasses
    reuse: EKS gave it its access entry. Refuses a cluster without Auto Mode or without the ``system`` pool."""
    compute = computes[0] if computes else None
    if compute is None or not compute.enabled:
        raise AutoModeError(
            f"prescale:cluster.autoMode is true but EKS cluster {cluster_name!r} does not run EKS Auto Mode "
            "(its computeConfig is not enabled); enable Auto Mode on it (docs/auto-mode.md) or set autoMode: false")
    if "system" not in (compute.node_pools or []) or not compute.node_role_arn:
        raise AutoModeError(
            f"EKS cluster {cluster_name!r} runs Auto Mode without its built-in 'system' node pool (node pools: "
            f"{list(compute.node_pools or [])}); prescale runs KEDA there and reuses the pools' node role, so "
            "enable the built-in pools (docs/auto-mode.md)")
    return compute.node_role_arn.rsplit("/", 1)[-1]


def exec_kubeconfig(cluster_name: str, endpoint: str, certificate_authority: str, *, region: str) -> dict[str, Any]:
    """A kubeconfig authenticating with ``aws eks get-token``, as ``aws eks update-kubeconfig`` writes it."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name,
                      "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "users": [{"name": cluster_name, "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "aws",
            "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
        }}}],
    }
