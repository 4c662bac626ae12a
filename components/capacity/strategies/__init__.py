"""Each strategy's components, one module each, and the registry :class:`~prescale.capacity.deploy.PrescaleCapacity`
deploys every armed window through: it never asks which strategy a window has, only for its deployer.

A strategy's deployer builds its window's components from what every window shares (:class:`WindowSite`) and says
what it built (:class:`WindowParts`). A new strategy adds its module here and a line in :data:`DEPLOYERS`, beside its
model module (:mod:`prescale.model.strategies`).
"""

from __future__ import annotations

from collections.abc import Callable

from ...model.windows import ArmedWindow
from . import buffer, placeholders, static
from .site import WindowParts, WindowSite

Deployer = Callable[[ArmedWindow, WindowSite], WindowParts]

# By strategy name (nodePools[].strategy).
DEPLOYERS: dict[str, Deployer] = {"placeholders": placeholders.deploy, "static": static.deploy,
                                  "buffer": buffer.deploy}


def register(name: str, deployer: Deployer) -> None:
    """Deploy the windows of strategy ``name`` with ``deployer`` (a program's own strategy, or a test's)."""
    DEPLOYERS[name] = deployer


def deployer_for(armed: ArmedWindow) -> Deployer:
    """What builds ``armed``'s components: its strategy's deployer. A strategy the model knows and the capacity wing
    does not is refused before anything of the window is registered."""
    deployer = DEPLOYERS.get(armed.strategy.name)
    if deployer is None:
        raise ValueError(f"event window {armed.window.name!r}: strategy {armed.strategy.name!r} has no components: "
                         "register its deployer with prescale.capacity.strategies.register")
    return deployer


__all__ = ["DEPLOYERS", "Deployer", "WindowParts", "WindowSite", "deployer_for", "register"]
