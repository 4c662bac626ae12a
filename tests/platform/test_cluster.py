"""The Cluster component: a new EKS cluster (its VPC, system nodes, add-ons) or an existing one, read-only."""

import ipaddress
import json
from datetime import datetime

import pulumi
import pytest
from hypothesis import given
from hypothesis import strategies as st
from prescale.contract import NodeNetwork
from prescale.model.fleet.addresses import plan_subnets
from prescale.offline import OfflineMocks, evaluate
from prescale.platform.cluster import Cluster, ClusterArgs

from tests.support.platform import ACCOUNT, DEV_NOW, K8S_PROVIDER, REGION, is_secret, only, revealed, stack_config

EKS = "eks:index:Cluster"
NODE_GROUP = "eks:index:ManagedNodeGroup"
SUBNET = "aws:ec2/subnet:Subnet"
ADDON = "aws:eks/addon:Addon"
TAG = "aws:ec2/tag:Tag"
ADMIN = f"arn:aws:iam::{ACCOUNT}:role/platform/Admin"
CALLER = "aws:index/getCallerIdentity:getCallerIdentity"
CLUSTERS = "aws:eks/getClusters:getClusters"
GET_CLUSTER = "aws:eks/getCluster:getCluster"
ADDON_LOOKUP = "aws:eks/getAddon:getAddon"
OIDC_LOOKUP = "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider"
ZONES = "aws:index/getAvailabilityZones:getAvailabilityZones"
OFFERINGS = "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings"
NEW_ONLY_TYPES = {EKS, NODE_GROUP, ADDON, SUBNET, TAG, "aws:ec2/vpc:Vpc", "aws:ec2/natGateway:NatGateway",
                  "prescale:index:Network", "aws:iam/role:Role"}


class Answering(OfflineMocks):
    """The offline mocks, with some invokes answered otherwise, and a record of every invoke.

    ``answers`` maps an invoke token to a replacement answer, a function of the usual answer, or a string:
    a failure with that reason, as AWS answers a lookup of something that does not exist.
    """

    def __init__(self, answers: dict):
        super().__init__(REGION)
        self.answers, self.calls = answers, []

    def call(self, args):
        usual = super().call(args)
        self.calls.append((args.token, args.args))
        answer = self.answers.get(args.token, usual)
        if isinstance(answer, str):
            return {}, [("", answer)]
        return answer(usual) if callable(answer) else answer


def build(cluster: dict | None = None, pod_identity_agent: bool = True, now: datetime = DEV_NOW,
          mocks: OfflineMocks | None = None):
    config = stack_config(cluster, tags={"team": "platform"})
    captured = {}

    def program():
        cluster = Cluster("c", ClusterArgs(config=config.cluster, region=config.region, tags=config.tags,
                                           pod_identity_agent=pod_identity_agent, now=now))
        captured["cluster"] = cluster
        for key in ("cluster_name", "oidc_issuer", "oidc_provider_arn"):
            pulumi.export(key, getattr(cluster, key))
    evaluation = evaluate(program, mocks=mocks)
    return evaluation, captured["cluster"]


@pytest.fixture(scope="module")
def new():
    return build({"adminRoleArns": [ADMIN], "publicAccessCidrs": ["203.0.113.0/24"]})


@pytest.fixture(scope="module")
def new_in_given_vpc():
    return build({"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": ["subnet-0aaaaaaaaaaaaaaa1",
                                                                         "subnet-0aaaaaaaaaaaaaaa2"],
                  "natGateways": "onePerAz", "systemNodeGroup": {"instanceTypes": ["m7g.large"], "minSize": 3,
                                                                 "desiredSize": 3, "maxSize": 4}},
                 pod_identity_agent=False)


@pytest.fixture(scope="module")
def existing():
    return build({"create": False}, pod_identity_agent=False)


def refusal(cluster: dict, **build_args) -> str:
    """The message a run refused at preview fails with.

    The failed registrations leave futures holding the error in reference cycles. No collection here (a full one
    costs about half a second with the session's evaluations alive): asyncio logs "exception was never retrieved"
    when a later collection frees them, into the captured output of whichever test that is.
    """
    with pytest.raises(ValueError) as caught:
        build(cluster, **build_args)
    return str(caught.value)


def eks_inputs(evaluation):
    return only(evaluation, EKS).inputs


def test_new_cluster_is_shaped_for_self_managed_karpenter(new):
    inputs = eks_inputs(new[0])
    assert {k: inputs[k] for k in ("name", "version", "authenticationMode", "createOidcProvider",
                                   "skipDefaultNodeGroup", "skipDefaultSecurityGroups", "upgradePolicy",
                                   "nodeAssociatePublicIpAddress")} == {
        "name": "prescale-test", "version": "1.35", "authenticationMode": "API", "createOidcProvider": True,
        "skipDefaultNodeGroup": True, "skipDefaultSecurityGroups": True, "upgradePolicy": {"supportType": "STANDARD"},
        "nodeAssociatePublicIpAddress": False}
    assert inputs["corednsAddonOptions"]["enabled"] is False  # created after the node group instead
    assert inputs["tags"] == {"team": "platform"}


def test_endpoint_access_comes_from_config(new):
    inputs = eks_inputs(new[0])
    assert (inputs["endpointPublicAccess"], inputs["endpointPrivateAccess"], inputs["publicAccessCidrs"]) == (
        True, True, ["203.0.113.0/24"])


def test_admin_roles_get_cluster_admin_access_entries(new):
    assert eks_inputs(new[0])["accessEntries"] == {"admin-Admin": {
        "principalArn": ADMIN, "type": "STANDARD",
        "accessPolicies": {"cluster-admin": {
            "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
            "accessScope": {"type": "cluster"}}}}}


def test_new_vpc_has_private_and_public_subnets_in_three_zones_and_one_nat(new):
    evaluation = new[0]
    subnets = {r.name: r.inputs for r in evaluation.of_type(SUBNET)}
    private = [subnets[f"c-vpc-private-{i}"] for i in range(3)]
    public = [subnets[f"c-vpc-public-{i}"] for i in range(3)]
    assert len(subnets) == 6
    assert [s["availabilityZone"] for s in private] == [f"{REGION}{z}" for z in "abc"]
    assert [s["cidrBlock"] for s in private] == plan_subnets("10.0.0.0/16", 3).private
    for i, subnet in enumerate(private):
        assert subnet["tags"] == {"Name": f"prescale-test-private-{i}", "team": "platform",
                                  "karpenter.sh/discovery": "prescale-test", "kubernetes.io/role/internal-elb": "1"}
    assert all("karpenter.sh/discovery" not in s["tags"] for s in public)
    assert len(evaluation.of_type("aws:ec2/natGateway:NatGateway")) == 1
    assert eks_inputs(evaluation)["privateSubnetIds"] == [f"c-vpc-private-{i}-id" for i in range(3)]
    assert eks_inputs(evaluation)["vpcId"] == "c-vpc-id"


def test_private_subnets_route_to_nat_and_public_to_the_internet_gateway(new):
    evaluation = new[0]
    tables = {r.name: r.inputs["routes"] for r in evaluation.of_type("aws:ec2/routeTable:RouteTable")}
    assert tables["c-vpc-public"] == [{"cidrBlock": "0.0.0.0/0", "gatewayId": "c-vpc-igw-id"}]
    for i in range(3):
        assert tables[f"c-vpc-private-{i}"] == [{"cidrBlock": "0.0.0.0/0", "natGatewayId": "c-vpc-nat-0-id"}]


def test_the_clusters_security_group_carries_the_discovery_tag(new):
    (tag,) = [r.inputs for r in new[0].of_type(TAG)]
    assert tag == {"resourceId": "sg-0eks0cluster", "key": "karpenter.sh/discovery", "value": "prescale-test"}


def test_system_node_group_is_labelled_tainted_and_spread_over_private_subnets(new):
    evaluation = new[0]
    group = only(evaluation, NODE_GROUP)
    assert group.inputs["nodeRoleArn"] == f"arn:aws:iam::{ACCOUNT}:role/c-system-node"  # an ARN, not a resource
    assert group.inputs["cluster"] == only(evaluation, EKS).urn
    assert group.inputs["labels"] == {"prescale.io/system": "true"}
    assert group.inputs["taints"] == [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NO_SCHEDULE"}]
    assert group.inputs["scalingConfig"] == {"minSize": 2, "desiredSize": 2, "maxSize": 3}
    assert (group.inputs["instanceTypes"], group.inputs["capacityType"], group.inputs["operatingSystem"],
            group.inputs["diskSize"]) == (["m7i.large"], "ON_DEMAND", "AL2023", 50)
    assert group.inputs["subnetIds"] == [f"c-vpc-private-{i}-id" for i in range(3)]
    attachments = {r.urn for r in evaluation.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    assert len(attachments) == 4 and attachments <= set(group.dependencies)


def test_coredns_is_installed_after_the_node_group_on_system_nodes(new):
    evaluation = new[0]
    coredns = evaluation.named(ADDON, "c-coredns")
    assert only(evaluation, NODE_GROUP).urn in coredns.dependencies
    assert json.loads(coredns.inputs["configurationValues"]) == {"nodeSelector": {"prescale.io/system": "true"}}
    assert (coredns.inputs["clusterName"], coredns.inputs["resolveConflictsOnCreate"]) == ("prescale-test", "OVERWRITE")


def test_the_address_check_learns_the_subnets_the_nodes_will_use(new, new_in_given_vpc, existing):
    """A new VPC's planned private subnets, or the given ones (tagged by this run), with EKS's default VPC CNI; an
    existing cluster's are looked up by their tag (prescale.capacity.addresses)."""
    assert new[1].node_network == NodeNetwork(cni_defaults=True,
                                              discovery_subnet_cidrs=plan_subnets("10.0.0.0/16", 3).private)
    assert new_in_given_vpc[1].node_network == NodeNetwork(
        cni_defaults=True, discovery_subnet_ids=["subnet-0aaaaaaaaaaaaaaa1", "subnet-0aaaaaaaaaaaaaaa2"])
    assert existing[1].node_network == NodeNetwork()
    _, auto_mode = build({"autoMode": True}, pod_identity_agent=False)
    assert auto_mode.node_network.cni_defaults is False  # Auto Mode's networking is AWS's own
    assert auto_mode.node_network.discovery_subnet_cidrs == plan_subnets("10.0.0.0/16", 3).private


def test_pod_identity_agent_add_on_only_when_asked(new, new_in_given_vpc):
    assert new[0].named(ADDON, "c-eks-pod-identity-agent").inputs["addonName"] == "eks-pod-identity-agent"
    assert [r.inputs["addonName"] for r in new_in_given_vpc[0].of_type(ADDON)] == ["coredns"]


def test_provider_uses_the_clusters_kubeconfig_as_a_secret(new):
    evaluation = new[0]
    kubeconfig = only(evaluation, K8S_PROVIDER).inputs["kubeconfig"]
    assert is_secret(kubeconfig)
    assert json.loads(revealed(kubeconfig))["current-context"] == "prescale-test"


def test_given_vpc_is_used_as_is_and_its_private_subnets_get_the_discovery_tag(new_in_given_vpc):
    evaluation = new_in_given_vpc[0]
    assert evaluation.of_type("aws:ec2/vpc:Vpc") == [] and evaluation.of_type(SUBNET) == []
    inputs = eks_inputs(evaluation)
    assert (inputs["vpcId"], inputs["privateSubnetIds"]) == (
        "vpc-0123456789abcdef0", ["subnet-0aaaaaaaaaaaaaaa1", "subnet-0aaaaaaaaaaaaaaa2"])
    assert "publicSubnetIds" not in inputs
    tagged = {r.inputs["resourceId"] for r in evaluation.of_type(TAG)
              if r.inputs["key"] == "karpenter.sh/discovery"}
    assert tagged == {"subnet-0aaaaaaaaaaaaaaa1", "subnet-0aaaaaaaaaaaaaaa2", "sg-0eks0cluster"}
    group = only(evaluation, NODE_GROUP).inputs
    assert (group["instanceTypes"], group["scalingConfig"]) == (["m7g.large"],
                                                                {"minSize": 3, "desiredSize": 3, "maxSize": 4})


def test_one_nat_gateway_per_zone_when_asked():
    evaluation, _ = build({"natGateways": "onePerAz", "availabilityZones": 2})
    assert len(evaluation.of_type("aws:ec2/natGateway:NatGateway")) == 2
    routes = {r.name: r.inputs["routes"][0]["natGatewayId"] for r in evaluation.of_type("aws:ec2/routeTable:RouteTable")
              if "private" in r.name}
    assert routes == {"c-vpc-private-0": "c-vpc-nat-0-id", "c-vpc-private-1": "c-vpc-nat-1-id"}


def test_existing_cluster_registers_no_cluster_vpc_node_group_or_add_on(existing):
    evaluation = existing[0]
    assert {r.type for r in evaluation.resources} == {"prescale:index:Cluster", K8S_PROVIDER}
    assert not NEW_ONLY_TYPES & {r.type for r in evaluation.resources}


def test_existing_cluster_provider_authenticates_with_aws_eks_get_token(existing):
    kubeconfig = only(existing[0], K8S_PROVIDER).inputs["kubeconfig"]
    assert is_secret(kubeconfig)
    document = json.loads(revealed(kubeconfig))
    assert document["clusters"][0]["cluster"] == {
        "server": f"https://EXISTING.gr7.{REGION}.eks.amazonaws.com", "certificate-authority-data": "RVhJU1RJTkc="}
    assert document["users"][0]["user"]["exec"]["command"] == "aws"
    assert document["users"][0]["user"]["exec"]["args"] == [
        "eks", "get-token", "--cluster-name", "prescale-test", "--region", REGION, "--output", "json"]


def test_new_cluster_exposes_its_name_and_oidc_provider_and_pins_controllers_to_system_nodes(new):
    evaluation, cluster = new
    issuer = f"oidc.eks.{REGION}.amazonaws.com/id/OFFLINE"
    assert evaluation.outputs == {"cluster_name": "prescale-test", "oidc_issuer": issuer,
                                  "oidc_provider_arn": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{issuer}"}
    assert cluster.system_placement.node_selector == {"prescale.io/system": "true"}
    assert [type(r).__name__ for r in cluster.ready] == ["Cluster", "ManagedNodeGroup", "Addon", "Addon"]


def test_existing_cluster_exposes_its_oidc_provider_for_irsa_and_selects_no_nodes(existing):
    evaluation, cluster = existing
    issuer = f"oidc.eks.{REGION}.amazonaws.com/id/EXISTING"  # get_cluster's issuer without https://
    assert evaluation.outputs == {"cluster_name": "prescale-test", "oidc_issuer": issuer,
                                  "oidc_provider_arn": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{issuer}"}
    assert cluster.system_placement.node_selector == {}
    assert cluster.ready == []


@given(cidr=st.sampled_from(["10.0.0.0/16", "172.16.0.0/12", "192.168.0.0/20", "10.10.0.0/22"]),
       zones=st.integers(min_value=2, max_value=6))
def test_subnet_plan_is_disjoint_inside_the_vpc_with_private_subnets_largest(cidr, zones):
    plan = plan_subnets(cidr, zones)
    blocks = [ipaddress.ip_network(b) for b in plan.private + plan.public]
    assert len(plan.private) == len(plan.public) == zones
    assert all(b.subnet_of(ipaddress.ip_network(cidr)) for b in blocks)
    assert all(not a.overlaps(b) for i, a in enumerate(blocks) for b in blocks[i + 1:])
    assert min(ipaddress.ip_network(b).num_addresses for b in plan.private) > \
        max(ipaddress.ip_network(b).num_addresses for b in plan.public)


@pytest.mark.parametrize("cidr, zones, problem", [("fd00::/56", 3, "IPv4"), ("10.0.0.0/26", 6, "too small")])
def test_subnet_plan_refuses_what_aws_would(cidr, zones, problem):
    with pytest.raises(ValueError, match=problem):
        plan_subnets(cidr, zones)


# --- the role creating the cluster must not be in adminRoleArns --------------------------------------------

ADMIN_SESSION = f"arn:aws:sts::{ACCOUNT}:assumed-role/Admin/ci-run"  # ADMIN's session: no path in the ARN


def running_as(arn: str) -> dict:
    return {"accountId": ACCOUNT, "arn": arn, "userId": "AROAOFFLINE:ci-run"}


def test_an_admin_role_that_creates_the_cluster_is_refused_before_the_cluster_is_registered():
    mocks = Answering({CALLER: running_as(ADMIN_SESSION)})
    message = refusal({"adminRoleArns": [f"arn:aws:iam::{ACCOUNT}:role/Viewer", ADMIN]}, mocks=mocks)
    role = f"arn:aws:iam::{ACCOUNT}:role/Admin"  # the session's role as get_session_context names it
    assert f"prescale:cluster.adminRoleArns[1]: '{ADMIN}' is the role running this deployment ({role})" in message
    assert "409 ResourceInUseException" in message
    assert EKS not in {r.type for r in mocks.registrations}


def test_an_admin_role_running_the_deployment_is_kept_once_the_cluster_exists():
    mocks = Answering({CALLER: running_as(ADMIN_SESSION), CLUSTERS: {"id": REGION, "names": ["prescale-test"]}})
    evaluation, _ = build({"adminRoleArns": [ADMIN]}, mocks=mocks)
    assert eks_inputs(evaluation)["accessEntries"]["admin-Admin"]["principalArn"] == ADMIN


def test_without_admin_roles_nobody_is_looked_up():
    mocks = Answering({})
    build(mocks=mocks)
    assert not {CLUSTERS, "aws:iam/getSessionContext:getSessionContext"} & {token for token, _ in mocks.calls}


# --- an existing cluster must have what Karpenter needs, checked at preview --------------------------------

def in_config_map_mode(found: dict) -> dict:
    return {**found, "accessConfigs": [{"authenticationMode": "CONFIG_MAP",
                                        "bootstrapClusterCreatorAdminPermissions": True}]}


def test_an_existing_cluster_without_access_entries_or_pod_identity_agent_stops_the_run_saying_what_to_enable():
    mocks = Answering({GET_CLUSTER: in_config_map_mode, ADDON_LOOKUP: "couldn't find resource"})
    message = refusal({"create": False}, pod_identity_agent=True, mocks=mocks)
    assert "EKS cluster 'prescale-test' (prescale:cluster.create: false) lacks what prescale needs" in message
    assert "authentication mode CONFIG_MAP" in message
    assert "aws eks update-cluster-config --name prescale-test --access-config authenticationMode=API_AND_CONFIG_MAP" \
        in message
    assert "the eks-pod-identity-agent add-on was not found (invoke of aws:eks/getAddon:getAddon failed: couldn't " \
        "find resource" in message
    assert "aws eks create-addon --cluster-name prescale-test --addon-name eks-pod-identity-agent" in message
    assert K8S_PROVIDER not in {r.type for r in mocks.registrations}  # nothing in the cluster is even planned


def test_an_existing_cluster_without_an_oidc_provider_stops_an_irsa_run():
    mocks = Answering({OIDC_LOOKUP: "OpenIDConnect Provider not found"})
    message = refusal({"create": False}, pod_identity_agent=False, mocks=mocks)
    assert "the IAM OIDC provider for the cluster's issuer was not found" in message
    assert "authentication mode" not in message
    assert "eksctl utils associate-iam-oidc-provider --cluster prescale-test --approve" in message
    assert (OIDC_LOOKUP, {"url": f"https://oidc.eks.{REGION}.amazonaws.com/id/EXISTING"}) in mocks.calls


def test_an_existing_cluster_with_its_pod_identity_agent_is_used():
    mocks = Answering({})
    evaluation, _ = build({"create": False}, pod_identity_agent=True, mocks=mocks)
    assert only(evaluation, K8S_PROVIDER)
    assert (ADDON_LOOKUP, {"clusterName": "prescale-test", "addonName": "eks-pod-identity-agent"}) in mocks.calls


# --- zones a cluster and its system nodes can use -----------------------------------------------------------

US_EAST_1 = {"us-east-1a": "use1-az1", "us-east-1b": "use1-az3", "us-east-1c": "use1-az5", "us-east-1d": "use1-az2",
             "us-east-1e": "use1-az6"}


def offered_in(*zones: str):
    def answer(usual: dict) -> dict:
        return {**usual, "instanceTypes": ["m7i.large"] * len(zones), "locations": list(zones),
                "locationTypes": ["availability-zone"] * len(zones)}
    return answer


def us_east_1(*offering_zones: str) -> Answering:
    return Answering({ZONES: {"names": list(US_EAST_1), "zoneIds": list(US_EAST_1.values()), "state": "available"},
                      OFFERINGS: offered_in(*offering_zones)})


def test_new_vpc_zones_skip_zones_without_eks_control_planes_or_the_system_instance_type():
    mocks = us_east_1("us-east-1a", "us-east-1b", "us-east-1d", "us-east-1e")  # 1c lacks it; 1b is use1-az3
    evaluation, _ = build(mocks=mocks)
    subnets = {r.name: r.inputs["availabilityZone"] for r in evaluation.of_type(SUBNET)}
    for kind in ("private", "public"):
        assert [subnets[f"c-vpc-{kind}-{i}"] for i in range(3)] == ["us-east-1a", "us-east-1d", "us-east-1e"]
    (offerings,) = [args for token, args in mocks.calls if token == OFFERINGS]
    assert offerings == {"locationType": "availability-zone",
                         "filters": [{"name": "instance-type", "values": ["m7i.large"]}]}


# --- the EKS upgrade policy -------------------------------------------------------------------------------

def test_support_type_comes_from_config():
    assert eks_inputs(build({"supportType": "EXTENDED"})[0])["upgradePolicy"] == {"supportType": "EXTENDED"}


def test_a_version_about_to_be_upgraded_by_aws_warns_and_the_default_does_not(new):
    evaluation, _ = build({"kubernetesVersion": "1.34"})  # standard support ends 2026-12-02, two days after DEV_NOW
    assert [w for w in evaluation.warnings if "kubernetesVersion" in w] == [
        "prescale:cluster.kubernetesVersion '1.34': EKS standard support ends on 2026-12-02 (in 2 days). From then "
        "on AWS upgrades the control plane on its own, and the next `pulumi up` would try to set 1.34 back, which "
        "EKS refuses (it cannot downgrade). Upgrade first: raise kubernetesVersion one minor version at a time "
        "(docs/platform.md, 'Upgrading Kubernetes'), or set prescale:cluster.supportType: EXTENDED to keep 1.34 "
        "until 2027-12-02 at extra cost per cluster hour."]
    assert build({"kubernetesVersion": "1.34", "supportType": "EXTENDED"})[0].warnings == []
    assert new[0].warnings == []
