"""``prescale:placeholders``: the placeholder pods' shape, image, priority and the failsafe's settings."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, Field, StrictInt, StrictStr

from ..values.duration import parse_duration
from .base import CapacityRequest, Duration, ImageReference, Model, SecretName, _Checked, _distinct, _list_as_tuple


class PlaceholderConfig(Model):
    """``prescale:placeholders``: the pause pods that hold capacity, shared by all windows."""

    image: Annotated[StrictStr, Field(min_length=1)] = Field(default="registry.k8s.io/pause:3.10", description=(
        "The placeholders' pause image, pinned; point it at a mirror for air-gapped clusters."))
    priority: StrictInt = Field(default=-10, lt=0, ge=-1_000_000_000, description=(
        "Priority of the placeholders' PriorityClass, below zero (the default priority) so that every real pod "
        "preempts them."))
    node_size: CapacityRequest = Field(default=CapacityRequest(cpu="1", memory="2Gi"), description=(
        "For windows sized by nodes, what each placeholder requests: the free room each of the N nodes will have. "
        "It must fit the pool's largest instance after its reserved overhead (docs/capacity.md#pod-sizing)."))
    max_pod_size: CapacityRequest = Field(default=CapacityRequest(cpu="4", memory="16Gi"), description=(
        "For windows sized by capacity, the largest single placeholder: the capacity is split into pods no bigger "
        "than this, so that Karpenter can pack them onto the pool's instance types (docs/capacity.md#pod-sizing)."))
    failsafe_grace: Duration = Field(default="15m", description=(
        "The failsafe sets each window's placeholders to zero this long after its end, even if KEDA is down: a Go "
        "duration of whole minutes, 2m to 24h (\"15m\", \"1.5h\"), and never on or after the next scale-up "
        "(docs/guardrails.md#3-the-failsafe-when-keda-fails-at-a-windows-end)."))
    failsafe_image: Annotated[StrictStr, Field(min_length=1)] = Field(
        default="registry.k8s.io/kubectl:v1.34.3", description=(
        "The failsafe's kubectl image: upstream's own (registry.k8s.io, published with every Kubernetes release "
        "since 1.28), pinned to the default cluster version (kubectl supports one minor either way); point it at a "
        "mirror for air-gapped clusters."))
    image_pull_secrets: Annotated[tuple[SecretName, ...], BeforeValidator(_list_as_tuple),
                                  _Checked(_distinct, uniqueItems=True)] = Field(default=(), description=(
        "Secrets (in namespace prescale, created by you) the placeholder pods pull with, for registries the node "
        "role cannot read; ECR in the account needs none."))
    prepull_tool_image: ImageReference = Field(
        default="public.ecr.aws/docker/library/busybox:1.37.0-musl", description=(
        "For windows with prepullImages: the image whose static /bin/true each pulled image runs (busybox's musl "
        "build, from the Docker official image's ECR Public mirror); point it at a mirror for air-gapped clusters."))

    @property
    def grace(self) -> timedelta:
        """``failsafeGrace`` as a duration: how long after a window's end the failsafe scales its placeholders to 0."""
        return parse_duration(self.failsafe_grace)
