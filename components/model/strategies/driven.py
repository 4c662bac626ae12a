"""What the strategies whose count KEDA cannot scale share: a driver of CronJobs that sets the count of the object
they deploy (:mod:`prescale.model.schedule.drivers`), the Job that converges it at a `pulumi up`, and a DaemonSet
that pulls the window's images, since no placeholder pod of theirs does.

The objects' names are decided here so that every renderer (components, alerts, ``prescale schedule`` and
``status``) reads the same ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..config import EventWindow
from ..schedule.drivers import ConvergeRun, DriverSchedule, Edge, driver_schedule
from .base import Prepull


def driver_names(window_name: str) -> tuple[str, str]:
    """The driver's scale-up and scale-down CronJobs: within a CronJob's 52 characters for a 40-character window
    name (``prescale.names.failsafe_name`` explains the limit)."""
    return f"scale-up-{window_name}", f"scale-down-{window_name}"


def driver_failsafe_name(window_name: str) -> str:
    """The driver's failsafe CronJob: named as a placeholder window's failsafe (which a driven window never has),
    so that one name means "the run that sets 0 after the window" whatever the strategy."""
    return f"failsafe-{window_name}"


def converge_name(window_name: str) -> str:
    """The Job a `pulumi up` registers to set the window's count at once (a Job's 63 characters, less the 6 its
    pods append, hold a 40-character window name)."""
    return f"converge-{window_name}"


def driver_account_name(window_name: str) -> str:
    """The driver's ServiceAccount and the Role or ClusterRole (prefixed ``prescale-``, cluster-wide) it is bound to."""
    return f"driver-{window_name}"


def prepull_name(window_name: str) -> str:
    """The DaemonSet that pulls a driven window's ``prepullImages`` onto its nodes."""
    return f"prepull-{window_name}"


@dataclass(frozen=True)
class Driven:
    """A driven window's schedule: its CronJobs, the count a `pulumi up` at the plan's clock creates its object
    with (then ignored: the driver owns it), the Job that sets that count at once, and its image pulls."""

    driver: DriverSchedule
    created_replicas: int
    converge: ConvergeRun | None  # None near an edge, where the driver's own run sets it
    prepull: Prepull | None


def plan_driven(window: EventWindow, count: int, scale_down: Edge, grace: timedelta, now: datetime,
                node_label: tuple[str, str]) -> Driven:
    """The driver that sets ``count`` at scale-up and 0 at ``scale_down``, its failsafe ``grace`` later; its
    prepull DaemonSet runs on the nodes labelled ``node_label``."""
    names = (*driver_names(window.name), driver_failsafe_name(window.name))
    driver = driver_schedule(window, count, scale_down, names, grace, now)
    prepull = Prepull(prepull_name(window.name), node_label, window.prepull_images) if window.prepull_images else None
    return Driven(driver, driver.created_replicas(now), driver.converge(converge_name(window.name), now), prepull)



def existing_pool_refusal(strategy: str) -> str:
    """Why a driven strategy cannot serve a NodePool prescale does not own."""
    return (f"strategy {strategy!r} needs a pool prescale creates: a static window gets NodePools made from the "
            "pool's template, and a buffer's nodes are kept through the event by the pool's disruption budgets, and "
            "an existing pool's NodePool is its owner's; allowed: strategy placeholders (its placeholders carry "
            "karpenter.sh/do-not-disrupt), or a pool prescale creates")
