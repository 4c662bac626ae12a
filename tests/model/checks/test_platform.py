"""The platform rules of :mod:`prescale.model.checks.platform`, called directly on configs whose models validate:
an API endpoint the nodes can reach, ``karpenter.install: false`` only where a Karpenter already runs (and then no
install keys, and a node role for the node classes prescale writes), EKS Auto Mode's limits (no karpenter keys, no
custom AMI, at most 21 days per node), and alerts only on an existing cluster."""

from prescale.model.checks.platform import (
    alerts_problems,
    auto_mode_problems,
    endpoint_problems,
    karpenter_problems,
    node_role_problems,
)
from prescale.model.checks.refused import NOTHING_REFUSED, Partial, Refused
from prescale.model.config import STRATEGIES_CONTEXT, NodePoolConfig, StackConfig
from prescale.model.strategies import STRATEGIES

CONTEXT = {STRATEGIES_CONTEXT: STRATEGIES}
EXISTING = {"create": False}
AUTO_MODE = {"autoMode": True}


def stack(cluster: dict | None = None, **sections) -> StackConfig:
    """A stack as its models validate it, without the cross-key rules (which would refuse what is tested here)."""
    cluster = {"name": "prescale-test", **(cluster or {})}
    return StackConfig.model_validate({"region": "ap-northeast-2", "cluster": cluster, **sections}, context=CONTEXT)


def pool(name: str = "event", **settings) -> dict:
    return {"name": name, "limits": {"cpu": "100"}, **settings}


def test_the_default_stack_passes_every_platform_rule():
    config = stack(nodePools=[pool()])
    assert endpoint_problems(config) == karpenter_problems(config) == node_role_problems(config) == []
    assert auto_mode_problems(config, NOTHING_REFUSED, True) == alerts_problems(config) == []


def test_an_endpoint_the_nodes_cannot_reach_is_refused_and_an_open_or_private_one_is_not():
    assert endpoint_problems(stack({"endpointPublicAccess": False, "endpointPrivateAccess": False})) == [
        "prescale:cluster.endpointPrivateAccess: false while endpointPublicAccess is false too: the cluster would have "
        "no API endpoint; allowed: true (private, from the VPC), or a public endpoint limited by publicAccessCidrs"]
    assert endpoint_problems(stack({"endpointPrivateAccess": False, "publicAccessCidrs": ["203.0.113.0/24"]})) == [
        "prescale:cluster.endpointPrivateAccess: false while publicAccessCidrs is limited to ['203.0.113.0/24']: "
        "nodes would reach the API only from their NAT gateways' public addresses, outside that list, so no node "
        "could join the cluster; allowed: true (nodes use the private endpoint, the public one stays limited), or "
        "publicAccessCidrs [\"0.0.0.0/0\"]"]
    assert endpoint_problems(stack({"endpointPrivateAccess": False,
                                    "publicAccessCidrs": ["203.0.113.0/24", "0.0.0.0/0"]})) == []
    assert endpoint_problems(stack({"publicAccessCidrs": ["203.0.113.0/24"]})) == []  # nodes use the private one
    assert endpoint_problems(stack(EXISTING)) == []  # an existing cluster's endpoints are its own


def test_install_false_is_refused_on_a_new_cluster_and_its_install_keys_anywhere():
    assert karpenter_problems(stack(karpenter={"install": False})) == [
        "prescale:karpenter.install: false with a new cluster (prescale:cluster.create is true): a new cluster has no "
        "Karpenter of its own, so nothing would launch nodes for its node pools; allowed: true (prescale installs "
        "Karpenter), prescale:cluster.create: false (an existing cluster whose Karpenter runs the pools), or "
        "prescale:cluster.autoMode: true (AWS runs Karpenter)"]
    keys = stack(EXISTING, karpenter={"install": False, "controllerAuth": "irsa", "values": {"logLevel": "debug"},
                                      "nodeRoleName": "KarpenterNodeRole-shop"})  # the node role is not an install key
    assert karpenter_problems(keys) == [
        "prescale:karpenter.controllerAuth: 'irsa' applies only when install is true (prescale installs Karpenter); "
        "with install: false the cluster's own Karpenter is used as it is; allowed: remove it",
        "prescale:karpenter.values: {'logLevel': 'debug'} applies only when install is true (prescale installs "
        "Karpenter); with install: false the cluster's own Karpenter is used as it is; allowed: remove it"]
    assert karpenter_problems(stack({**EXISTING, **AUTO_MODE}, karpenter={"install": False})) == []  # its own rule


def test_without_its_own_karpenter_prescale_needs_a_node_role_only_for_the_node_classes_it_writes():
    pools = [pool(), pool("own-class", nodeClassName="default"), pool("theirs", existing=True)]
    assert node_role_problems(stack(EXISTING, karpenter={"install": False}, nodePools=pools)) == [
        "prescale:karpenter.nodeRoleName: required key is missing: with karpenter.install false, the EC2NodeClasses "
        "prescale creates (node pools 'event') need the IAM role name of your Karpenter's nodes. Upstream's controller "
        "policy lets Karpenter pass only its own node role (iam:PassRole on KarpenterNodeRole), so name that role; or "
        "give those pools nodeClassName (an existing EC2NodeClass) or existing: true (an existing NodePool)"]
    assert node_role_problems(stack(EXISTING, karpenter={"install": False}, nodePools=pools[1:])) == []
    assert node_role_problems(stack(EXISTING, karpenter={"install": False, "nodeRoleName": "KarpenterNodeRole-shop"},
                                    nodePools=pools)) == []


def test_auto_mode_refuses_karpenter_keys_custom_amis_and_nodes_living_past_21_days():
    config = stack(AUTO_MODE, karpenter={"controllerAuth": "irsa"},
                   nodePools=[pool(amiAlias="al2023@latest", expireAfter="Never"),
                              pool("long", expireAfter="480h", terminationGracePeriod="25h"),
                              pool("exactly", expireAfter="480h", terminationGracePeriod="24h"),  # 504h: the limit
                              pool("default"),  # Auto Mode's expireAfter default, 480h, and 1h to drain
                              pool("theirs", existing=True)])  # a built-in or another owner's pool: as it is
    why = "does not apply with prescale:cluster.autoMode: true"
    pools = [f"prescale:nodePools[0].amiAlias: 'al2023@latest' {why}: Auto Mode runs only its own AMIs; allowed: "
             "remove it",
             f"prescale:nodePools[0].expireAfter: 'Never' {why}: Auto Mode ends every node after at most 504h (21 "
             "days); allowed: a duration with expireAfter + terminationGracePeriod <= 504h (21 days), or no "
             "expireAfter (then '480h')",
             "prescale:nodePools[1].expireAfter: '480h' plus terminationGracePeriod '25h' is longer than Auto Mode "
             "lets a node live, 504h (21 days); allowed: expireAfter + terminationGracePeriod <= 504h (21 days)"]
    assert auto_mode_problems(config, NOTHING_REFUSED, True) == [
        f"prescale:karpenter.controllerAuth: 'irsa' {why}: AWS runs Karpenter (its version, credentials and "
        "service-linked roles are AWS's); allowed: remove it", *pools]
    assert auto_mode_problems(config, NOTHING_REFUSED, False) == pools  # a refused karpenter: its keys not read
    assert auto_mode_problems(stack(karpenter={"controllerAuth": "irsa"}, nodePools=[pool(expireAfter="Never")]),
                              NOTHING_REFUSED, True) == []  # self-managed Karpenter: none of this applies


def test_on_auto_mode_a_refused_pool_is_checked_only_while_its_lifetime_keys_are_known():
    never = NodePoolConfig.model_validate(pool("refused", expireAfter="Never"), context=CONTEXT)
    config = stack(AUTO_MODE, nodePools=[pool("later", expireAfter="Never")])  # nodePools[1]; [0] was refused

    def refused(keys: set[str]) -> Refused:
        return Refused(node_pools=frozenset({0}), pool_names=frozenset({"refused"}),
                       partial={("node_pools", 0): Partial(never, frozenset(keys))})

    assert [problem.split(":")[1] for problem in auto_mode_problems(config, refused({"consolidate_after"}), True)] \
        == ["nodePools[0].expireAfter", "nodePools[1].expireAfter"]
    assert [problem.split(":")[1] for problem in auto_mode_problems(config, refused({"expire_after"}), True)] \
        == ["nodePools[1].expireAfter"]


def test_alerts_are_refused_only_on_a_cluster_prescale_creates():
    assert alerts_problems(stack(alerts={"prometheusRule": True})) == [
        "prescale:alerts.prometheusRule: true needs a cluster that already runs the Prometheus Operator and "
        "kube-state-metrics, and a cluster prescale creates (prescale:cluster.create: true) runs neither, so there "
        "would be no PrometheusRule CRD to apply it to and nothing to evaluate it; allowed: false here, or true with "
        "prescale:cluster.create: false on a cluster that runs both"]
    assert alerts_problems(stack(EXISTING, alerts={"prometheusRule": True})) == []


def test_an_ipv6_open_range_does_not_admit_the_nodes_nat_addresses():
    (problem,) = endpoint_problems(stack({"endpointPrivateAccess": False, "publicAccessCidrs": ["::/0"]}))
    assert problem.startswith("prescale:cluster.endpointPrivateAccess: false while publicAccessCidrs is limited to "
                              "['::/0']")
