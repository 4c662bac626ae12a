"""What a static or buffer window's driver says in the cluster: its two CronJobs and the last Job of each.

A run retries until its deadline, so a Job whose ``Failed`` condition is True gave up and its count may not be set.
The Jobs of a CronJob are those it controls; what is read, with the CronJob and Job controllers' sources:
docs/cli.md#static-and-buffer-windows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from prescale.model.schedule.drivers import DriverRun
from prescale.names import PLACEHOLDER_NAMESPACE

from .cluster_reader import Object

JobState = Literal["active", "succeeded", "failed"]


@dataclass(frozen=True)
class Job:
    """A CronJob's most recent Job and how it ended, as the Job controller says."""

    name: str
    state: JobState
    reason: str  # of its Failed condition ("" otherwise)
    message: str
    started: datetime | None


@dataclass(frozen=True)
class CronJobState:
    """One of the driver's CronJobs: whether it exists and runs, and its last run."""

    name: str
    sets: int  # the count its runs set
    found: bool
    suspended: bool
    last_schedule: datetime | None  # status.lastScheduleTime: the last run it started
    last_success: datetime | None  # status.lastSuccessfulTime
    last_job: Job | None

    @property
    def problem(self) -> Literal["not found", "suspended", "failed"] | None:
        """Why this CronJob will not, or did not, set its count (``failed``: its last Job); None when it is fine."""
        if not self.found:
            return "not found"
        if self.suspended:
            return "suspended"
        return "failed" if self.last_job is not None and self.last_job.state == "failed" else None

    def blocker(self) -> str | None:
        """:attr:`problem` as a sentence."""
        where = f"CronJob {PLACEHOLDER_NAMESPACE}/{self.name}"
        problem, job = self.problem, self.last_job
        if problem == "not found":
            return f"{where} not found (run `pulumi up`?): nothing sets the count to {self.sets}"
        if problem == "suspended":
            return f"{where} is suspended: its runs do not start, nothing sets the count to {self.sets}"
        if problem == "failed" and job is not None:
            detail = ": ".join(part for part in (job.reason, job.message) if part)
            return (f"Job {PLACEHOLDER_NAMESPACE}/{job.name} of {where} failed" + (f" ({detail})" if detail else "")
                    + f": its count ({self.sets}) may not be set")
        return None


def driver_states(runs: Iterable[DriverRun], cron_jobs: dict[str, Object], jobs: list[Object]) -> tuple[
        CronJobState, ...]:
    """The state of each of ``runs``' CronJobs, from the CronJobs and Jobs listed in namespace prescale."""
    return tuple(_cron_job(run, cron_jobs.get(run.name), jobs) for run in runs)


def _cron_job(run: DriverRun, cron_job: Object | None, jobs: list[Object]) -> CronJobState:
    if cron_job is None:
        return CronJobState(run.name, run.replicas, False, False, None, None, None)
    status = cron_job.get("status") or {}
    owned = [job for job in jobs if any(owner.get("kind") == "CronJob" and owner.get("name") == run.name
                                        for owner in job["metadata"].get("ownerReferences") or [])]
    latest = max(owned, key=lambda job: (job["metadata"].get("creationTimestamp", ""), job["metadata"]["name"]),
                 default=None)
    return CronJobState(run.name, run.replicas, True, bool((cron_job.get("spec") or {}).get("suspend")),
                        _instant(status.get("lastScheduleTime")), _instant(status.get("lastSuccessfulTime")),
                        _job(latest) if latest else None)


def _job(job: Object) -> Job:
    status = job.get("status") or {}
    conditions = {condition["type"]: condition for condition in status.get("conditions") or []
                  if condition.get("status") == "True"}
    state: JobState = "failed" if "Failed" in conditions else "succeeded" if "Complete" in conditions else "active"
    failed = conditions.get("Failed", {})
    return Job(job["metadata"]["name"], state, failed.get("reason", ""), failed.get("message", ""),
               _instant(status.get("startTime")))


def _instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
