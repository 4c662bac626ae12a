"""The address check at preview: each pool's subnets, read as Karpenter selects them, against its busiest moment.

Pools that select the same subnets are checked together, their subnets looked up as Karpenter looks them up (or, for
a VPC this run creates or subnets it tags, known from the plan and :class:`~prescale.contract.NodeNetwork`), against
the armed windows' addresses (:meth:`~prescale.model.plan.CapacityPlan.address_demand`). A certain shortfall raises
:class:`SubnetAddressError`, so the preview fails before the pools' node classes are registered (each waits for its
check); a tight fit is a warning. What is counted, with the sources: docs/capacity.md#addresses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_aws as aws

from ..contract import Platform
from ..model.fleet.addresses import Subnets, planned_subnets, selector_groups
from ..model.plan import CapacityPlan
from ..model.shortfall import address_shortfall
from ..names import DISCOVERY_TAG
from ..refusals import PreviewRefusal


class SubnetAddressError(PreviewRefusal):
    """A pool's windows hold more addresses at once than its subnets have free (found at preview)."""


def address_checks(plan: CapacityPlan, platform: Platform) -> dict[str, pulumi.Output[None]]:
    """Pool name → its subnets' address check, for each pool prescale creates a node class for and that has armed
    windows. The check fails (preview included) when the windows certainly cannot fit, and warns when they barely do.
    """
    network, prefixes = platform.node_network, platform.node_classes.auto_mode
    checks = {}
    for key, pools in selector_groups(pool_plan.pool for pool_plan in plan.pools.values()).items():
        names = [pool.name for pool in pools]
        windows = plan.address_demand(names, prefixes, armed_only=True)
        if not windows:
            continue
        if key is not None:
            terms = [term.model_dump(exclude_none=True) for term in pools[0].subnet_selector_terms or ()]
            found = _looked_up(terms, pulumi.Output.from_input(f"selected by subnetSelectorTerms {key}"))
        elif network.discovery_subnet_cidrs:
            found = pulumi.Output.from_input(planned_subnets(network.discovery_subnet_cidrs))
        elif network.discovery_subnet_ids:
            found = _looked_up([{"id": subnet} for subnet in network.discovery_subnet_ids],
                               pulumi.Output.from_input(f"tagged {DISCOVERY_TAG} by this run"))
        else:
            found = _looked_up([{"tags": {DISCOVERY_TAG: platform.cluster_name}}],
                               pulumi.Output.concat("tagged ", DISCOVERY_TAG, ": ", platform.cluster_name))

        def check(subnets: Subnets, names: Sequence[str] = names, windows=windows) -> None:
            if not subnets.free:
                pulumi.log.warn(f"node pool{'s' * (len(names) != 1)} {', '.join(map(repr, names))}: no subnet is "
                                f"{subnets.selected_by} yet, so their nodes cannot launch until one is; their "
                                "addresses were not checked")
                return
            shortfall = address_shortfall(names, subnets, windows, plan.now, defaults_certain=network.cni_defaults,
                                          prefixes=prefixes)
            if shortfall is not None and shortfall.refused:
                raise SubnetAddressError(f"{shortfall.message}; allowed: fewer nodes at once, or subnets with at "
                                         f"least {shortfall.needed} free addresses (docs/capacity.md#addresses)")
            if shortfall is not None:
                pulumi.log.warn(shortfall.message)
        checked = found.apply(check)
        checks.update(dict.fromkeys(names, checked))
    return checks


def _looked_up(terms: Sequence[Mapping[str, Any]], selected_by: pulumi.Output[str]) -> pulumi.Output[Subnets]:
    """The subnets Karpenter's selector ``terms`` select (its ``getFilterSets``: each term's tags, ``*`` for any
    value, and all ids in one filter), with the addresses free in each."""
    ids = [term["id"] for term in terms if "id" in term]
    filter_sets = [[aws.ec2.GetSubnetsFilterArgs(name="tag-key", values=[key]) if value == "*" else
                    aws.ec2.GetSubnetsFilterArgs(name=f"tag:{key}", values=[value])
                    for key, value in term["tags"].items()] for term in terms if "tags" in term]
    if ids:
        filter_sets.append([aws.ec2.GetSubnetsFilterArgs(name="subnet-id", values=ids)])
    found = pulumi.Output.all(*(aws.ec2.get_subnets_output(filters=filters).ids for filters in filter_sets))
    free: pulumi.Output[list[tuple[str, int]]] = found.apply(
        lambda lists: pulumi.Output.all(*(_free(subnet) for subnet in sorted(set().union(*lists)))))
    return pulumi.Output.all(selected_by, free).apply(lambda both: Subnets(both[0], tuple(both[1])))


def _free(subnet_id: str) -> pulumi.Output[tuple[str, int]]:
    subnet = aws.ec2.get_subnet_output(id=subnet_id)
    return pulumi.Output.all(subnet.availability_zone, subnet.available_ip_address_count).apply(
        lambda found: (f"{subnet_id} in {found[0]}", found[1]))
