"""``prescale preflight`` against moto's server mode: real boto3 calls over HTTP on 127.0.0.1 to a stand-in account
with a VPC whose subnets carry the cluster's discovery tag. moto answers the offerings and the subnets as EC2 does
(its offerings are AWS's own lists); it does not implement Service Quotas for ec2, so the quota check is said to be
left undone, and blocks nothing."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from prescale_cli.documents import PreflightDocument
from prescale_cli.main import main
from tests.cli.test_documents import assert_passes
from tests.support.cli import make_project

NOW = "2027-01-11T00:00Z"


def stack(zone: str, nodes: int) -> str:
    return f"""\
config:
  aws:region: us-east-1
  prescale:cluster: {{name: shop, create: false}}
  prescale:nodePools:
    - name: event
      limits: {{cpu: "4000", memory: 16000Gi}}
      requirements: [{{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge]}},
                     {{key: topology.kubernetes.io/zone, operator: In, values: [{zone}]}}]
  prescale:eventWindows:
    - {{name: lunch, nodePool: event, timezone: UTC, start: "0 12 * * *", end: "0 13 * * *", nodes: {nodes}}}
"""


@pytest.fixture(scope="module")
def account():
    """moto's server, with a VPC and two subnets tagged for cluster shop: a /24 and a /28 (11 free addresses)."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    patch = pytest.MonkeyPatch()
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_ENDPOINT_URL": f"http://{host}:{port}", "AWS_EC2_METADATA_DISABLED": "true"}.items():
        patch.setenv(name, value)
    patch.delenv("AWS_PROFILE", raising=False)
    ec2 = boto3.client("ec2", region_name="us-east-1")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    for cidr in ("10.0.1.0/24", "10.0.2.0/28"):
        ec2.create_subnet(VpcId=vpc, CidrBlock=cidr, AvailabilityZone="us-east-1a", TagSpecifications=[
            {"ResourceType": "subnet", "Tags": [{"Key": "karpenter.sh/discovery", "Value": "shop"}]}])
    yield
    patch.undo()
    server.stop()


def preflight(capsys, tmp_path: Path, text: str, code: int) -> dict:
    project = make_project(tmp_path, program="", stacks={"test": text})
    assert main(["preflight", "--project", str(project), "--stack", "test", "--at", NOW, "--json"]) == code
    document = json.loads(capsys.readouterr().out)
    assert_passes(PreflightDocument, document)
    return document


def findings(document: dict) -> dict[str, tuple[bool | None, str]]:
    return {finding["check"]: (finding["ok"], finding["message"]) for finding in document["findings"]}


def test_a_window_the_account_can_serve_has_no_blocker(capsys, tmp_path, account):
    document = preflight(capsys, tmp_path, stack("us-east-1a", 3), code=0)
    found = findings(document)
    assert found["offerings"][0] is True and found["offerings"][1].startswith(
        "m7i.xlarge (the estimate's type) offered in us-east-1a")
    free = 251 + 11  # a /24 and a /28, less the 5 addresses AWS keeps in each
    assert found["addresses"] == (True, f"{free} free addresses in 2 subnets; the window's nodes take at least 6 "
                                        f"({found['addresses'][1].split('(')[1]}")
    ok, message = found["quotas"]  # moto has no Service Quotas for ec2: said, and no blocker
    assert ok is None and message.startswith("not checked: AWS did not answer")
    assert document["blocked"] is False


def test_too_few_free_addresses_block(capsys, tmp_path, account):
    document = preflight(capsys, tmp_path, stack("us-east-1a", 200), code=1)
    ok, message = findings(document)["addresses"]
    assert ok is False and "fewer than it needs" in message and document["blocked"] is True


def test_a_type_not_offered_in_the_pools_zone_blocks(capsys, tmp_path, account):
    document = preflight(capsys, tmp_path, stack("us-east-1e", 3), code=1)  # EC2 has no m7i in us-east-1e
    ok, message = findings(document)["offerings"]
    assert ok is False and message == ("none of the 1 instance types node pool 'event' allows is offered in "
                                       "us-east-1e: allow other types or zones")


class QuotaAccount:
    """An account whose Service Quotas answer (as moto's do not): 16 standard vCPUs, 4 of them running."""

    def on_demand_quotas(self) -> dict[str, float]:
        return {"standard": 16.0}

    def running_vcpus(self) -> dict[str, int]:
        return {"standard": 4}

    def offered(self, types: list[str]) -> dict[str, set[str]]:
        return {"us-east-1a": set(types)}

    def free_addresses(self, filters, ids) -> dict[str, tuple[str, int]]:
        return {"subnet-1": ("us-east-1a", 4000)}

    def reservations(self, cluster: str, window: str) -> list[dict]:
        return []


@pytest.mark.parametrize(("nodes", "blocked"), [(3, False), (4, True)])
def test_the_windows_vcpus_on_top_of_what_runs_now_against_the_quota(tmp_path, nodes, blocked):
    from datetime import datetime, timedelta

    from prescale.model.plan import plan_capacity
    from prescale.model.schedule.instants import parse_instant

    from prescale_cli.preflight import preflight, windows_ahead
    from prescale_cli.stack import load_config
    from prescale_cli.timeline import build_timeline

    project = make_project(tmp_path, program="", stacks={"test": stack("us-east-1a", nodes)})
    now: datetime = parse_instant(NOW)
    config = load_config(project, "test", now)
    plan = plan_capacity(config, now)
    timeline = build_timeline(plan, now, now + timedelta(days=3))
    result = preflight("test", config, plan, QuotaAccount(), windows_ahead(plan, now, 3, None, None,
                                                                          timeline.entries))
    (quota,) = [finding for finding in result.findings if finding.check == "quotas"]
    # m7i.xlarge has 4 vCPUs: 3 nodes take 12 (16 with the 4 running), 4 take 16 (20)
    assert (quota.ok, result.blocked) == (not blocked, blocked)
    assert quota.message.startswith(f"{nodes * 4} standard vCPUs ({nodes} × m7i.xlarge) on top of the 4 running now")


def test_reservations_are_asked_by_the_window_and_the_cluster_they_are_for(monkeypatch):
    """Two clusters of one account may take the same event under the same window name (a production cluster and its
    DR twin): each stack's preflight asks EC2 for its own cluster's reservations only. moto has no
    DescribeCapacityReservations, so botocore's Stubber checks the request the real client sends."""
    from botocore.stub import Stubber

    from prescale_cli.preflight import Aws

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    aws = Aws("us-east-1")
    reservation = {"CapacityReservationId": "cr-0123456789abcdef0", "State": "active", "TotalInstanceCount": 3}
    with Stubber(aws.ec2) as stub:
        stub.add_response("describe_capacity_reservations", {"CapacityReservations": [reservation]}, {"Filters": [
            {"Name": "tag:prescale.io/window", "Values": ["black-friday"]},
            {"Name": "tag:prescale.io/cluster", "Values": ["shop-seoul"]}]})
        assert aws.reservations("shop-seoul", "black-friday") == [reservation]
        stub.assert_no_pending_responses()


def _without_credentials(monkeypatch, tmp_path: Path) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # it keeps the credentials an earlier test's clients found


@pytest.mark.parametrize(("profile", "why"), [
    (None, "NoCredentialsError: Unable to locate credentials"),
    ("nope", "ProfileNotFound: The config profile (nope) could not be found")])
def test_an_account_that_cannot_be_asked_stops_the_command_with_exit_2_not_no_blocker(capsys, monkeypatch, tmp_path,
                                                                                      profile, why):
    """Every check left undone once said "No blocker found." and exited 0 (an unknown profile, a traceback): a
    pre-flight days ahead that could ask nothing must not read as a clean bill."""
    _without_credentials(monkeypatch, tmp_path)
    if profile:
        monkeypatch.setenv("AWS_PROFILE", profile)
    project = make_project(tmp_path / "project", program="", stacks={"test": stack("us-east-1a", 3)})
    assert main(["preflight", "--project", str(project), "--stack", "test", "--at", NOW]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"prescale: preflight cannot ask the AWS account in us-east-1: {why}; it reads "
                            "credentials from the standard chain (environment, profile, SSO, web identity, instance "
                            "role)\n")


def test_a_stack_preflight_cannot_read_exits_2_as_status_and_report_do(capsys, tmp_path):
    project = make_project(tmp_path, program="", stacks={"test": stack("us-east-1a", 0)})
    assert main(["preflight", "--project", str(project), "--stack", "test", "--at", NOW]) == 2
    assert "prescale:eventWindows[0].nodes" in capsys.readouterr().err
