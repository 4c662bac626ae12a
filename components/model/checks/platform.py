"""Rules on the platform a stack asks for: an API endpoint its nodes can reach, Karpenter and its node role in
each adoption mode, EKS Auto Mode's limits, and alerts only where the Prometheus Operator runs."""

from __future__ import annotations

import ipaddress

from pydantic.alias_generators import to_camel

from ..config import (
    AUTO_MODE_EXPIRE_AFTER,
    AUTO_MODE_MAX_NODE_LIFETIME,
    CONFIG_NAMESPACE,
    KARPENTER_INSTALL_KEYS,
    StackConfig,
)
from ..values.duration import format_duration
from .refused import Refused


def endpoint_problems(config: StackConfig) -> list[str]:
    """A new cluster needs an API endpoint its nodes can reach.

    Without one, not even ``pulumi up`` could reach it. Without the private endpoint, nodes in the private
    subnets reach the public one from their NAT gateways' addresses: a limited ``publicAccessCidrs`` would have
    to hold those (AWS, "Cluster API server endpoint"), which prescale cannot promise (a new VPC's NAT
    addresses exist only after `pulumi up`; an existing VPC's are unknown to it), so no node would ever join.
    """
    cluster = config.cluster
    if not cluster.create:
        return []
    if not (cluster.endpoint_public_access or cluster.endpoint_private_access):
        return [f"{CONFIG_NAMESPACE}:cluster.endpointPrivateAccess: false while endpointPublicAccess is false too: the "
                "cluster would have no API endpoint; allowed: true (private, from the VPC), or a public endpoint "
                "limited by publicAccessCidrs"]
    # Open to the nodes' NAT addresses: only 0.0.0.0/0 (the VPC prescale builds is IPv4, so ::/0 does not admit them).
    limited = not any(network.version == 4 and network.prefixlen == 0
                      for network in map(ipaddress.ip_network, cluster.public_access_cidrs))
    if cluster.endpoint_public_access and not cluster.endpoint_private_access and limited:
        return [f"{CONFIG_NAMESPACE}:cluster.endpointPrivateAccess: false while publicAccessCidrs is limited to "
                f"{cluster.public_access_cidrs}: nodes would reach the API only from their NAT gateways' public "
                "addresses, outside that list, so no node could join the cluster; allowed: true (nodes use the "
                "private endpoint, the public one stays limited), or publicAccessCidrs [\"0.0.0.0/0\"]"]
    return []


def karpenter_problems(config: StackConfig) -> list[str]:
    """``karpenter.install: false`` hands the pools to a Karpenter already running in the cluster: a new cluster
    has none, and the keys that shape an install would mean nothing. (On Auto Mode every karpenter key is refused
    on its own.)"""
    karpenter, path = config.karpenter, f"{CONFIG_NAMESPACE}:karpenter"
    if karpenter.install or config.cluster.auto_mode:
        return []
    problems = []
    if config.cluster.create:
        problems.append(f"{path}.install: false with a new cluster (prescale:cluster.create is true): a new cluster "
                        "has no Karpenter of its own, so nothing would launch nodes for its node pools; allowed: "
                        "true (prescale installs Karpenter), prescale:cluster.create: false (an existing cluster "
                        "whose Karpenter runs the pools), or prescale:cluster.autoMode: true (AWS runs Karpenter)")
    problems += [f"{path}.{to_camel(key)}: {getattr(karpenter, key)!r} applies only when install is true (prescale "
                 "installs Karpenter); with install: false the cluster's own Karpenter is used as it is; allowed: "
                 "remove it" for key in KARPENTER_INSTALL_KEYS if key in karpenter.model_fields_set]
    return problems


def node_role_problems(config: StackConfig) -> list[str]:
    """EC2NodeClasses that prescale creates name a node role; without its own Karpenter, prescale has none."""
    karpenter, cluster = config.karpenter, config.cluster
    if karpenter.install or karpenter.node_role_name is not None or cluster.create or cluster.auto_mode:
        return []  # (a new cluster or Auto Mode with install: false is refused by its own rule)
    needing = [pool.name for pool in config.node_pools if pool.owned and pool.node_class_name is None]
    if not needing:
        return []
    return [f"{CONFIG_NAMESPACE}:karpenter.nodeRoleName: required key is missing: with karpenter.install false, the "
            f"EC2NodeClasses prescale creates (node pools {', '.join(map(repr, needing))}) need the IAM role name "
            "of your Karpenter's nodes. Upstream's controller policy lets Karpenter pass only its own node role "
            "(iam:PassRole on KarpenterNodeRole), so name that role; or give those pools nodeClassName (an "
            "existing EC2NodeClass) or existing: true (an existing NodePool)"]


def auto_mode_problems(config: StackConfig, refused: Refused, karpenter: bool) -> list[str]:
    """With ``cluster.autoMode`` AWS runs Karpenter: self-managed settings would be silently ignored, and
    Auto Mode's own limits (no custom AMI, at most 21 days per node) apply to every pool. ``karpenter``: whether
    ``prescale:karpenter`` validated (else its keys are not looked at)."""
    if not config.cluster.auto_mode:
        return []
    why = f"does not apply with {CONFIG_NAMESPACE}:cluster.autoMode: true"
    problems = [f"{CONFIG_NAMESPACE}:karpenter.{to_camel(key)}: {getattr(config.karpenter, key)!r} {why}: AWS runs "
                "Karpenter (its version, credentials and service-linked roles are AWS's); allowed: remove it"
                for key in sorted(config.karpenter.model_fields_set)] if karpenter else []
    lifetime = f"{format_duration(AUTO_MODE_MAX_NODE_LIFETIME)} (21 days)"
    lifetimes = {"existing", "ami_alias", "expire_after", "termination_grace_period"}
    for index, pool in refused.entries("node_pools", config.node_pools, needs=lifetimes):
        path = f"{CONFIG_NAMESPACE}:nodePools[{index}]"
        if not pool.owned:  # a built-in pool (system, general-purpose) or another owner's: used as it is
            continue
        if "ami_alias" in pool.model_fields_set:
            problems.append(f"{path}.amiAlias: {pool.ami_alias!r} {why}: Auto Mode runs only its own AMIs; "
                            "allowed: remove it")
        expire_after, grace = pool.deployed_expire_after(auto_mode=True), pool.termination_grace_period
        expiry = pool.lifetime(auto_mode=True)
        if expiry is None:
            problems.append(f"{path}.expireAfter: 'Never' {why}: Auto Mode ends every node after at most "
                            f"{lifetime}; allowed: a duration with expireAfter + terminationGracePeriod <= "
                            f"{lifetime}, or no expireAfter (then {AUTO_MODE_EXPIRE_AFTER!r})")
        elif expiry + pool.termination_grace > AUTO_MODE_MAX_NODE_LIFETIME:
            problems.append(f"{path}.expireAfter: {expire_after!r} plus terminationGracePeriod {grace!r} is "
                            f"longer than Auto Mode lets a node live, {lifetime}; allowed: expireAfter + "
                            f"terminationGracePeriod <= {lifetime}")
    return problems


def alerts_problems(config: StackConfig) -> list[str]:
    """Alerts need the Prometheus Operator (its PrometheusRule CRD) and kube-state-metrics, which a cluster
    prescale creates does not run: the rule could not even be applied there (docs/alerts.md)."""
    if not (config.alerts.prometheus_rule and config.cluster.create):
        return []
    return [f"{CONFIG_NAMESPACE}:alerts.prometheusRule: true needs a cluster that already runs the Prometheus Operator "
            f"and kube-state-metrics, and a cluster prescale creates ({CONFIG_NAMESPACE}:cluster.create: true) runs "
            "neither, so there would be no PrometheusRule CRD to apply it to and nothing to evaluate it; allowed: "
            f"false here, or true with {CONFIG_NAMESPACE}:cluster.create: false on a cluster that runs both"]
