"""Kubernetes' CronJob and Job controllers, as a simulation, driving the count of one object.

What is modelled, and from where (kubernetes/kubernetes ``pkg/controller/cronjob/cronjob_controllerv2.go`` and
``utils.go``, ``pkg/controller/job/job_controller.go``, the kubelet's container restart back-off):

* the schedule is read in the CronJob's ``timeZone`` with robfig/cron (:mod:`prescale.model.values.cron`);
* at each sync the controller takes the most recent fire in (earliest, now], where earliest is ``lastScheduleTime``
  or else the CronJob's ``creationTimestamp``, raised to now − ``startingDeadlineSeconds``: only that one can start,
  and older ones are missed for good;
* it syncs at each fire, when a Job of its ends, and when it comes back after being down;
* ``concurrencyPolicy: Forbid``: a fire is not started while a Job is active, and is not consumed either: it starts
  when the Job has ended, if still within its deadline; a started fire becomes ``lastScheduleTime``;
* a Job starts when it is created (the Job controller runs in the same kube-controller-manager); its pod starts
  :data:`POD_START` later and runs kubectl, which takes :data:`CALL` and fails while the API does; a failed
  container restarts after the kubelet's back-off (10 s doubling, at most 5 minutes), up to ``backoffLimit``
  restarts; ``activeDeadlineSeconds`` ends the Job (the Job controller enforces it once it is up; the pod's own
  deadline, the same value from the pod's start, is the kubelet's);
* the object's count is what the last finished write set.

Not modelled: API latency beyond :data:`CALL`, the controllers' queues and rate limits, the missed-schedule count
approximation of ``mostRecentScheduleTime`` (the most recent fire is found exactly here, which is what that code
aims at), and Karpenter's own reconciliation of the count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from prescale.model.schedule.drivers import RETRY_CAP, RETRY_FIRST, DriverRun
from prescale.model.values.cron import epoch_seconds, fire_timestamps, parse_cron
from prescale.model.values.time_zones import load_zone

POD_START = 5  # seconds from a Job's creation to its kubectl running
CALL = 2  # seconds a kubectl call takes

Interval = tuple[int, int]  # [start, end) in epoch seconds


@dataclass(frozen=True)
class Cluster:
    """What goes wrong: when kube-controller-manager is down, and when the API refuses kubectl's calls."""

    controller_down: Sequence[Interval] = ()
    api_failing: Sequence[Interval] = ()

    def up_at(self, moment: int) -> int:
        """The first instant at or after ``moment`` when the controller runs."""
        for start, end in sorted(self.controller_down):
            if start <= moment < end:
                moment = end
        return moment

    def call_fails(self, moment: int) -> bool:
        return any(start <= moment < end for start, end in self.api_failing)


def run_cron_job(run: DriverRun, timezone: str, created: int, until: int, cluster: Cluster) -> list[tuple[int, int]]:
    """Every write ``run``'s CronJob (created at ``created``) makes before ``until``."""
    spec, zone = parse_cron(run.schedule), load_zone(timezone)
    writes: list[tuple[int, int]] = []
    last_schedule: int | None = None
    active_until: int | None = None
    now = cluster.up_at(created)
    while now < until:
        if active_until is not None and active_until <= now:
            active_until = None
        earliest = max(created if last_schedule is None else last_schedule, now - run.starting_deadline_seconds)
        fires = list(fire_timestamps(spec, zone, earliest + 1, now + 1))
        if fires and fires[-1] != last_schedule and active_until is None:
            job_writes, active_until = _run_job(run, now, cluster)
            writes += job_writes
            last_schedule = fires[-1]
        following = next(fire_timestamps(spec, zone, now + 1, until + 1), until)
        now = cluster.up_at(min(following, active_until) if active_until is not None else following)
    return [write for write in writes if write[0] < until]


def _run_job(run: DriverRun, started: int, cluster: Cluster) -> tuple[list[tuple[int, int]], int]:
    """One Job: its writes (at most one, the first call that succeeds) and when it ends."""
    deadline = started + run.active_deadline_seconds
    pod_start = started + POD_START
    stop = min(cluster.up_at(deadline), pod_start + run.active_deadline_seconds)
    moment, delay, restarts = pod_start, RETRY_FIRST, 0
    while moment + CALL <= stop:
        if not cluster.call_fails(moment):
            return [(moment + CALL, run.replicas)], moment + CALL
        restarts += 1
        if restarts > run.backoff_limit:
            return [], moment + CALL
        moment, delay = moment + CALL + delay, min(2 * delay, RETRY_CAP)
    return [], stop


def timeline(initial: int, created: int, writes: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The object's count from its creation: (instant, count) steps, the last write at an instant winning."""
    steps = [(created, initial)]
    for moment, count in sorted(writes, key=lambda write: write[0]):
        if count != steps[-1][1]:
            steps.append((moment, count))
    return steps


def mismatches(steps: Sequence[tuple[int, int]], expected: Callable[[int], int], boundaries: Sequence[int],
               until: int) -> list[tuple[int, int, int]]:
    """Where the count differs from ``expected`` (a function of the instant, constant between ``boundaries``), as
    (start, end, count) up to ``until``."""
    cuts = sorted({*(moment for moment, _ in steps), *boundaries, until})
    found: list[tuple[int, int, int]] = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        if start >= until or start < steps[0][0]:
            continue
        count = next(count for moment, count in reversed(steps) if moment <= start)
        if count != expected(start):
            if found and found[-1][1] == start and found[-1][2] == count:
                found[-1] = (found[-1][0], end, count)
            else:
                found.append((start, end, count))
    return found


def seconds(moment: datetime) -> int:
    return epoch_seconds(moment)
