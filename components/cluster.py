"""The EKS cluster prescale runs on: a new one (pulumi-eks) or an existing one looked up by name.

Either way the component hands out the same things: the cluster's name, a kubeconfig, the Kubernetes
provider every in-cluster resource must use, the OIDC issuer (for IRSA), where controllers are placed,
and the resources in-cluster installs must wait for.

A new cluster is shaped for self-managed Karpenter:

- API authentication mode (access entries, no aws-auth ConfigMap), an IAM OIDC provider, standard (not
  extended, which costs extra) support, the version pinned from config;
- no default node group and no pulumi-eks security groups: every node, the system node group's and
  Karpenter's alike, shares the security group EKS creates for the cluster, which already allows all
  traffic between its members and from the control plane. (Managed node groups without a custom launch
  template only get that group, so a separate "node" group would cut Karpenter's nodes off from CoreDNS.)
  That one group carries ``karpenter.sh/discovery=<cluster>``, as in Karpenter's getting-started guide;
- a small managed *system* node group (≥2 nodes across the private subnets' zones), labelled
  ``prescale.io/system=true`` and tainted ``CriticalAddonsOnly=true:NoSchedule`` so only controllers that
  tolerate it (Karpenter, KEDA, CoreDNS) run there, and never on the nodes Karpenter itself launches;
- CoreDNS as an EKS add-on created *after* that node group (pulumi-eks would create it with the cluster,
  before any node exists, and time out waiting for it: pulumi/pulumi-eks#1819), pinned to system nodes;
- the ``eks-pod-identity-agent`` add-on when Karpenter authenticates with EKS Pod Identity.

An existing cluster is only read (``aws.eks.get_cluster``): nothing is created, and the provider uses an
``aws eks get-token`` kubeconfig built from its endpoint and CA.

With ``autoMode`` (EKS Auto Mode) AWS runs Karpenter, CoreDNS, the pod identity agent and the nodes for
add-ons, so a new cluster gets none of the above but the cluster itself (pulumi-eks ``auto_mode`` with both
built-in node pools and the node role pulumi-eks creates, whose EC2 access entry EKS adds itself) and the
discovery tag on its security group. pulumi-eks would still add the CoreDNS add-on (pulumi/pulumi-eks#1726)
and an unused instance role unless told not to, so both are switched off explicitly. An existing cluster must
already run Auto Mode with the built-in ``system`` pool: that is checked at preview. Controllers go to that
``system`` pool, as AWS advises for critical add-ons. Details: docs/auto-mode.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from .model.config import ClusterConfig
from .iam import eks_node_role
from .network import DISCOVERY_TAG, Network, NetworkArgs

SYSTEM_NODE_LABELS = {"prescale.io/system": "true"}
SYSTEM_NODE_TAINT = {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}
CLUSTER_ADMIN_POLICY = "AmazonEKSClusterAdminPolicy"
# Auto Mode's built-in node pools (both on: `system` runs KEDA, `general-purpose` everything unplaced).
AUTO_MODE_NODE_POOLS = ("general-purpose", "system")


# Every node Karpenter launches carries this label. A controller pod there would be evicted whenever Karpenter
# consolidates the node, and while Pending it would make Karpenter launch a node for it; with this affinity
# Karpenter knows no NodePool of its can host the pod and launches nothing (Karpenter's own chart does the same).
NOT_ON_KARPENTER_NODES = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}]}}}


@dataclass(frozen=True)
class SystemPlacement:
    """Where cluster controllers (Karpenter, KEDA, the failsafe) run: ``nodeSelector``, ``tolerations`` and
    ``affinity`` for their pods (and Helm values)."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: Sequence[Mapping[str, str]] = (
        {"key": SYSTEM_NODE_TAINT["key"], "operator": "Exists", "effect": SYSTEM_NODE_TAINT["effect"]},)
    # Never on a node Karpenter launched. Off where every node is Karpenter's (EKS Auto Mode): there the node
    # selector names the pool to run on instead.
    avoid_karpenter_nodes: bool = True

    @property
    def affinity(self) -> Mapping[str, Any] | None:
        return NOT_ON_KARPENTER_NODES if self.avoid_karpenter_nodes else None


# Auto Mode's `system` pool: selected by its name, its CriticalAddonsOnly taint tolerated whatever the effect
# (the EKS user guide's "Run critical add-ons on dedicated instances").
AUTO_MODE_SYSTEM_PLACEMENT = SystemPlacement(node_selector={"karpenter.sh/nodepool": "system"},
                                             tolerations=({"key": "CriticalAddonsOnly", "operator": "Exists"},),
                                             avoid_karpenter_nodes=False)


class AutoModeError(ValueError):
    """An existing cluster cannot serve ``prescale:cluster.autoMode: true`` as it is."""


@dataclass(frozen=True)
class ClusterArgs:
    config: ClusterConfig
    region: str
    tags: Mapping[str, str]
    # Install the eks-pod-identity-agent add-on (a new cluster only; an existing one must already have it;
    # Auto Mode has it built in).
    pod_identity_agent: bool


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
        if not (config.endpoint_public_access or config.endpoint_private_access):
            raise ValueError("the cluster needs a public or a private API endpoint (or both)")
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
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type="STANDARD"),
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
        if config.vpc_id is None:
            network = Network(f"{self._name}-vpc", NetworkArgs(
                cluster_name=config.name, cidr=config.vpc_cidr, availability_zones=config.availability_zones,
                nat_gateway_per_zone=config.nat_gateways == "onePerAz", tags=self._args.tags),
                opts=pulumi.ResourceOptions(parent=self))
            return network.vpc_id, network.private_subnet_ids, network.public_subnet_ids
        for subnet_id in config.private_subnet_ids:
            aws.ec2.Tag(f"{self._name}-{subnet_id}-discovery", resource_id=subnet_id, key=DISCOVERY_TAG,
                        value=config.name, opts=pulumi.ResourceOptions(parent=self))
        return config.vpc_id, config.private_subnet_ids, config.public_subnet_ids or []

    def _admin_access_entries(self) -> dict[str, eks.AccessEntryArgs]:
        """Cluster-admin access for the configured roles, keyed by role name so reordering changes nothing."""
        policy_arn = pulumi.Output.concat("arn:", self._partition, ":eks::aws:cluster-access-policy/",
                                          CLUSTER_ADMIN_POLICY)
        return {
            f"admin-{arn.rsplit('/', 1)[-1]}": eks.AccessEntryArgs(
                principal_arn=arn,
                type=eks.AccessEntryType.STANDARD,
                access_policies={"cluster-admin": eks.AccessPolicyAssociationArgs(
                    policy_arn=policy_arn,
                    access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"))})
            for arn in self._args.config.admin_role_arns}

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
        self.cluster_name = found.name
        self.oidc_issuer = found.identities.apply(lambda ids: ids[0].oidcs[0].issuer.removeprefix("https://"))
        self.oidc_provider_arn = pulumi.Output.concat(
            "arn:", self._partition, ":iam::", account_id, ":oidc-provider/", self.oidc_issuer)
        self.kubeconfig = pulumi.Output.secret(pulumi.Output.all(
            found.name, found.endpoint, found.certificate_authorities[0].data).apply(
                lambda values: json.dumps(exec_kubeconfig(*values, region=region))))
        # Its node groups are the user's: no label to select, only the common controller toleration.
        self.system_placement = SystemPlacement()
        self.ready = []


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
