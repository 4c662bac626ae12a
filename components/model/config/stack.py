"""The whole config: :class:`CapacityConfig` (what a library program gives) and :class:`StackConfig` (that and the
platform).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field, StrictStr

from ..values.quota_families import QuotaFamily
from .alerts import AlertsConfig
from .base import Model, _shaped
from .calendar import CalendarConfig, CalendarPath, _calendar_content
from .placeholders import PlaceholderConfig
from .platform import ClusterConfig, KarpenterConfig, KedaConfig
from .pools import NodePoolConfig
from .pricing import PricingConfig
from .windows import EventWindow


class CapacityConfig(Model):
    """The scheduled capacity alone: node pools, event windows and their placeholders.

    What :func:`prescale.capacity.deploy_capacity` needs, and all a program that brings its own cluster,
    Karpenter and KEDA gives when it uses prescale as a library
    (:func:`prescale.model.validation.load_capacity_config`).
    """

    keda: KedaConfig = Field(default=KedaConfig(), description=(
        "Whether prescale installs KEDA, and the version of the KEDA that runs the windows' triggers."))
    node_pools: list[NodePoolConfig] = Field(default=[], description=(
        "The node pools windows take nodes from: each a Karpenter NodePool and EC2NodeClass prescale creates, or "
        "a NodePool that already runs (docs/capacity.md#node-pools)."))
    event_windows: list[EventWindow] = Field(default=[], description=(
        "When capacity must be ready, on which pool, and how much: recurring (crons) or one-off (date-times) "
        "windows (docs/capacity.md#a-windows-timeline)."))
    # Editors are told of the path too: the program and the CLI read the file it names before validation.
    calendar: Annotated[CalendarConfig | None, BeforeValidator(
        _calendar_content, json_schema_input_type=CalendarConfig | CalendarPath | None)] = Field(
        default=None, description=(
        "Events several stacks share, which windows name by their event key: the path of a calendar file "
        "(YAML with events:), relative to the project directory, or the calendar itself, e.g. from a Pulumi ESC "
        "environment's pulumiConfig (docs/fleet.md#one-calendar)."))

    placeholders: PlaceholderConfig = Field(default=PlaceholderConfig(), description=(
        "The pause pods that hold the capacity, shared by all windows."))
    pricing: PricingConfig = Field(default=PricingConfig(), description=(
        "On-demand prices for prescale schedule's cost estimate (docs/cli.md#the-cost-estimate)."))
    tags: dict[StrictStr, StrictStr] = Field(default={}, description="Tags on every AWS resource prescale creates.")
    quotas: dict[QuotaFamily, Annotated[int, Field(ge=0, strict=True)]] = Field(default={}, description=(
        "The account's On-Demand vCPU quotas in the stack's region, by family group (standard, f, g, inf, p, x, dl, "
        "trn, hpc, high-memory), that prescale fleet holds the fleet's events against (docs/fleet.md#the-fleet)."))
    alerts: AlertsConfig = Field(default=AlertsConfig(), description="Alerting rules for the windows; off by default.")

    def node_pool(self, name: str) -> NodePoolConfig:
        """The valid node pool ``name``; KeyError if none (a refused pool is not in :attr:`node_pools`: the checks
        hold it themselves, and pass it, not its name)."""
        for pool in self.node_pools:
            if pool.name == name:
                return pool
        raise KeyError(name)

    def placeholders_for(self, pool: str | NodePoolConfig) -> PlaceholderConfig:
        """The placeholder settings of windows on node pool ``pool`` (a valid pool's name, or the pool itself, which
        may be what is left of a refused one): its own ``nodeSize``/``maxPodSize`` where it gives them, the
        stack-wide ones otherwise."""
        if isinstance(pool, str):
            pool = self.node_pool(pool)
        own = {key: size for key in ("node_size", "max_pod_size") if (size := getattr(pool, key)) is not None}
        return self.placeholders.model_copy(update=own) if own else self.placeholders


class StackConfig(CapacityConfig):
    """Everything the program needs, validated together: the capacity plus the platform it runs on."""

    region: Annotated[StrictStr, _shaped(r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]",
                                         'an AWS region code like "ap-northeast-2" or "us-east-1"')] = Field(
        description=("The AWS region of the cluster: the AWS provider's own key, which prescale reads too (the "
                     "controller policy is scoped to it)."))
    cluster: ClusterConfig = Field(description=(
        "The EKS cluster: a new one (create: true, the default) or an existing one looked up by name."))
    karpenter: KarpenterConfig = Field(default=KarpenterConfig(), description=(
        "Whether prescale installs Karpenter, its version, how its controller gets AWS credentials, and the node "
        "role of the EC2NodeClasses; refused with cluster.autoMode, where AWS runs Karpenter."))
