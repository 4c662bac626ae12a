"""``prescale:pricing``: the prices of ``prescale schedule``'s cost estimate."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictStr

from .base import Model


class PricingConfig(Model):
    """``prescale:pricing``: on-demand prices for the cost estimate of ``prescale schedule``."""

    vcpu_hour: Annotated[float, Field(gt=0, strict=False)] = Field(default=0.05, description=(
        "USD per vCPU-hour, for instance types without their own price."))
    instance_types: dict[StrictStr, Annotated[float, Field(gt=0, strict=False)]] = Field(default={}, description=(
        'USD per hour of given instance types, like {"c7i.xlarge": 0.1785}.'))
