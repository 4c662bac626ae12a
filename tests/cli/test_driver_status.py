"""What `prescale status` reads of a driver's CronJobs (``prescale_cli.driver_status``): the last Job of each is its
newest, so an old failure kept in the history never hides a later success, and a later failure is never hidden."""

from __future__ import annotations

from prescale.model.schedule.drivers import DriverRun

from prescale_cli.driver_status import driver_states

RUN = DriverRun("scale-up-noon", "50 11 * * *", 3, 600, 600, 6)
CRON_JOB = {"metadata": {"name": "scale-up-noon"}, "spec": {},
            "status": {"lastScheduleTime": "2026-12-02T02:50:00Z", "lastSuccessfulTime": "2026-12-02T02:51:00Z"}}


def job(name: str, created: str, condition: str) -> dict:
    return {"metadata": {"name": name, "creationTimestamp": created,
                         "ownerReferences": [{"kind": "CronJob", "name": "scale-up-noon"}]},
            "status": {"startTime": created, "conditions": [
                {"type": condition, "status": "True", "reason": "DeadlineExceeded" if condition == "Failed" else "",
                 "message": ""}]}}


FAILED = job("scale-up-noon-29933450", "2026-12-01T02:50:00Z", "Failed")
SUCCEEDED = job("scale-up-noon-29934890", "2026-12-02T02:50:00Z", "Complete")


def test_an_old_failure_kept_in_the_history_does_not_hide_a_later_success():
    for listed in ([FAILED, SUCCEEDED], [SUCCEEDED, FAILED]):
        (state,) = driver_states([RUN], {"scale-up-noon": CRON_JOB}, listed)
        assert state.last_job is not None and state.last_job.name == "scale-up-noon-29934890"
        assert (state.last_job.state, state.problem, state.blocker()) == ("succeeded", None, None)


def test_a_later_failure_is_the_cron_jobs_problem():
    later = job("scale-up-noon-29936330", "2026-12-03T02:50:00Z", "Failed")
    (state,) = driver_states([RUN], {"scale-up-noon": CRON_JOB}, [SUCCEEDED, later, FAILED])
    assert state.problem == "failed" and state.last_job is not None
    assert state.blocker() == ("Job prescale/scale-up-noon-29936330 of CronJob prescale/scale-up-noon failed "
                               "(DeadlineExceeded): its count (3) may not be set")
