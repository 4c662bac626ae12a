"""The one preamble every in-cluster component of the capacity wing shares: its children go through the platform's
Kubernetes provider (a cluster prescale built, or the program's own), never the ambient one."""

from __future__ import annotations

import pulumi

from ..contract import Platform


def on_cluster(opts: pulumi.ResourceOptions | None, platform: Platform) -> pulumi.ResourceOptions:
    """``opts`` with ``platform``'s Kubernetes provider for every child of the component."""
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[platform.kubernetes_provider]))
