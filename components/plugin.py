"""The component prescale's Pulumi plugin package serves to programs in any language (``provider/``).

:class:`Capacity` is :func:`~prescale.capacity.deploy_capacity` on a cluster the program brings: its inputs are the
cluster's name and kubeconfig, and the capacity stack config keys, each named and shaped like the key it stands for
(``nodePools`` is ``prescale:nodePools``), handed to :func:`~prescale.model.validation.load_capacity_config` as they
are (but for the wire's numbers, :func:`whole_numbers`), so every rule stays in the model. Their types
(:mod:`prescale.plugin_types`, written by :mod:`tools.plugin_types_gen`) are what the SDK's schema inference takes.
Keep the annotations here evaluated too (no ``from __future__ import annotations``): the inference reads them at
run time. How a program adds it, and what the inference allows: docs/library.md#other-languages.
"""

from collections.abc import Sequence
from typing import Any, NotRequired

import pulumi
import pulumi_kubernetes as k8s

from .capacity import deploy_capacity
from .contract import Platform
from .model.config import CONFIG_NAMESPACE
from .model.validation import load_capacity_config
from .plugin_types import CapacityConfigInputs
from .program import evaluation_time


class CapacityArgs(CapacityConfigInputs):
    clusterName: pulumi.Input[str]
    """The cluster's name: node classes select the subnets and security groups tagged
    `karpenter.sh/discovery: <clusterName>` unless a pool gives selector terms."""
    kubeconfig: pulumi.Input[str]
    """The cluster's kubeconfig: every in-cluster object goes through a Kubernetes provider built from it."""
    nodeRoleName: NotRequired[pulumi.Input[str]]
    """The IAM role the node classes prescale creates name; without it every pool must be existing or give
    nodeClassName."""


def stack_config(args: CapacityArgs) -> dict[str, Any]:
    """The config inputs as the stack config keys they stand for, as load_capacity_config reads them."""
    return {f"{CONFIG_NAMESPACE}:{key}": whole_numbers(value) for key, value in args.items()
            if key in CapacityConfigInputs.__annotations__}


def whole_numbers(value: Any) -> Any:
    """``value`` with its whole floats as ints. The wire carries every number as a double, and pulumi 3.272's
    ``ComponentProvider.map_input_properties`` converts an integer input to ``int`` but then stores the float
    anyway; every number these inputs take is an integer, and the model refuses ``3.5`` where it wants one."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def waited_for(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources of a ``dependsOn`` (Construct hands it over as a list)."""
    depends_on = opts.depends_on if opts else None
    given = depends_on if isinstance(depends_on, Sequence) else [depends_on]
    return [resource for resource in given if isinstance(resource, pulumi.Resource)]


class Capacity(pulumi.ComponentResource):
    """prescale's scheduled capacity on a cluster that runs Karpenter and KEDA: node pools, each event window's
    placeholders and ScaledObject, its failsafe. The inputs are validated whole before anything is registered;
    node pools, node classes and ScaledObjects wait for what the component's `dependsOn` names (your Karpenter
    and KEDA installs)."""

    node_pools: list[str]
    """The node pools prescale creates (not the existing ones windows use)."""
    armed_windows: list[str]
    """The placeholder windows deployed now."""
    native_windows: list[str]
    """The windows on static or buffer pools deployed now (their static NodePools or CapacityBuffers)."""
    idle_windows: dict[str, str]
    """Window name → why nothing is deployed for it now."""
    reservations: dict[str, dict[str, Any]]
    """Per one-off window with `reserve`: its capacity reservations, held now or not yet."""
    next_up_for_reservations: str | None
    """When the next `pulumi up` must run to create reservations not held yet (UTC), if any."""

    def __init__(self, name: str, args: CapacityArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        now = evaluation_time()
        config = load_capacity_config(stack_config(args), now)
        super().__init__("prescale:index:Capacity", name, {}, opts)
        provider = k8s.Provider(f"{name}-kubernetes", kubeconfig=pulumi.Output.secret(args["kubeconfig"]),
                                opts=pulumi.ResourceOptions(parent=self))
        # Children do not inherit the component's dependsOn: the platform's `*_ready` are what pools and
        # ScaledObjects wait for.
        ready = waited_for(opts)
        platform = Platform(cluster_name=args["clusterName"], kubernetes_provider=provider,
                            node_role_name=args.get("nodeRoleName"), karpenter_ready=ready, keda_ready=ready)
        capacity = deploy_capacity(config, platform, now, pulumi.ResourceOptions(parent=self))
        self.node_pools = sorted(capacity.node_pools)
        self.armed_windows = sorted(capacity.windows)
        self.native_windows = sorted(capacity.native)
        self.idle_windows = capacity.idle_windows
        self.reservations = capacity.reservation_outputs
        self.next_up_for_reservations = capacity.next_up_for_reservations
        self.register_outputs({"nodePools": self.node_pools, "armedWindows": self.armed_windows,
                               "nativeWindows": self.native_windows,
                               "idleWindows": self.idle_windows, "reservations": self.reservations,
                               "nextUpForReservations": self.next_up_for_reservations})
