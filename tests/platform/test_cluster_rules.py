"""The cluster's rules that need no cloud: which endpoints nodes can reach, EKS's support calendar, which zones
a cluster can use, and what the creator of a cluster or an existing cluster must (not) bring."""

import re
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from prescale.model.checks.eks_versions import EKS_SUPPORT, NOTICE, forced_upgrade_notice
from prescale.model.config import ClusterConfig
from prescale.model.validation import ConfigError, load_stack_config
from prescale.platform.cluster import creator_problem, existing_cluster_problems
from prescale.platform.network import choose_zones
from pydantic import ValidationError

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def cluster_problems(**cluster) -> list[str]:
    try:
        load_stack_config({"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "corpus", **cluster}}, NOW)
    except ConfigError as error:
        return error.problems
    return []


# --- endpoints the nodes can reach ------------------------------------------------------------------------

@pytest.mark.parametrize("cluster", [
    {"endpointPrivateAccess": False},  # public, open to all: nodes reach it from their NAT addresses
    {"endpointPrivateAccess": False, "publicAccessCidrs": ["203.0.113.0/24", "0.0.0.0/0"]},
    {"publicAccessCidrs": ["203.0.113.0/24"]},  # limited public, private for the nodes
    {"endpointPublicAccess": False},
])
def test_endpoints_nodes_can_reach_are_accepted(cluster):
    assert cluster_problems(**cluster) == []


def test_a_limited_public_endpoint_without_the_private_one_is_refused():
    (problem,) = cluster_problems(endpointPrivateAccess=False, publicAccessCidrs=["203.0.113.0/24"])
    assert problem.startswith("prescale:cluster.endpointPrivateAccess: false while publicAccessCidrs is limited to "
                              "['203.0.113.0/24']: nodes would reach the API only from their NAT gateways'")


# --- EKS's support calendar -------------------------------------------------------------------------------

def accepted_versions() -> list[str]:
    versions = []
    for minor in range(20, 50):
        try:
            versions.append(ClusterConfig(name="corpus", kubernetes_version=f"1.{minor}").kubernetes_version)
        except ValidationError:
            pass
    return versions


def test_every_version_the_config_accepts_has_its_support_dates():
    assert sorted(EKS_SUPPORT) == accepted_versions() == [f"1.{minor}" for minor in range(30, 37)]


@pytest.mark.parametrize("version", sorted(EKS_SUPPORT))
def test_extended_support_is_the_documented_12_months_after_standard_support(version):
    window = EKS_SUPPORT[version]
    assert window.end_of_extended == window.end_of_standard.replace(year=window.end_of_standard.year + 1)


def at(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), UTC)


def test_no_notice_until_the_notice_period_before_the_end():
    end = EKS_SUPPORT["1.35"].end_of_standard
    assert forced_upgrade_notice("1.35", "STANDARD", at(end - NOTICE - timedelta(days=1))) is None
    assert "ends on 2027-03-27 (in 90 days)" in forced_upgrade_notice("1.35", "STANDARD", at(end - NOTICE))
    assert "standard support ended on 2027-03-27. From then on AWS upgrades" in \
        forced_upgrade_notice("1.35", "STANDARD", at(end))


def test_the_notice_is_the_end_of_the_chosen_support():
    just_before = at(EKS_SUPPORT["1.34"].end_of_standard) - timedelta(seconds=1)  # 2026-12-01, in UTC
    assert "(in 1 day)" in forced_upgrade_notice("1.34", "STANDARD", just_before)
    assert forced_upgrade_notice("1.34", "EXTENDED", just_before) is None
    late = forced_upgrade_notice("1.34", "EXTENDED", at(date(2027, 11, 1)))
    assert "EKS extended support ends on 2027-12-02 (in 31 days)" in late and "supportType" not in late


def test_past_extended_support_only_an_upgrade_helps():
    notice = forced_upgrade_notice("1.30", "STANDARD", NOW)
    assert "EKS standard support ended on 2025-07-23" in notice and "EXTENDED" not in notice


def test_the_clock_is_read_in_utc():
    seoul = timezone(timedelta(hours=9))
    # 2026-09-03 07:00 in Seoul is still 2026-09-02 in UTC: 91 days before 1.34's end, no notice yet.
    assert forced_upgrade_notice("1.34", "STANDARD", datetime(2026, 9, 3, 7, 0, tzinfo=seoul)) is None
    assert forced_upgrade_notice("1.34", "STANDARD", datetime(2026, 9, 3, 9, 0, tzinfo=seoul)) is not None


# --- zones a cluster can use ------------------------------------------------------------------------------

def test_zones_are_chosen_in_name_order_among_usable_ones():
    names, ids = ["c-1c", "c-1a", "c-1b", "c-1d"], ["use1-az5", "use1-az1", "use1-az3", "use1-az2"]
    assert choose_zones(names, ids, ["c-1a", "c-1b", "c-1c", "c-1d"], wanted=2, instance_types=["m7i.large"]) == \
        ["c-1a", "c-1c"]  # c-1b is use1-az3


def test_too_few_usable_zones_are_refused_with_why_each_was_skipped():
    with pytest.raises(ValueError, match=re.escape(
            "prescale:cluster.availabilityZones asks for 3 zones but the region has 1 a cluster can use (c-1a; "
            "skipped: c-1b (usw1-az2): EKS places no control plane there; c-1c: offers none of m7i.large, m6i.large)")):
        choose_zones(["c-1a", "c-1b", "c-1c"], ["usw1-az1", "usw1-az2", "usw1-az3"], ["c-1a", "c-1b"], wanted=3,
                     instance_types=["m7i.large", "m6i.large"])


# --- the role creating the cluster, and an existing cluster's prerequisites --------------------------------

ROLE = "arn:aws:iam::123456789012:role/platform/Admin"


@pytest.mark.parametrize("caller, existing, refused", [
    ("arn:aws:iam::123456789012:role/Admin", [], True),  # the same role, its ARN without the path
    ("arn:aws:iam::123456789012:role/platform/Admin", ["other"], True),
    ("arn:aws:iam::123456789012:role/Admin", ["c"], False),  # the cluster exists: its creator is someone else
    ("arn:aws:iam::210987654321:role/Admin", [], False),  # another account's role of that name
    ("arn:aws:iam::123456789012:user/Admin", [], False),  # a user is never an adminRoleArns entry
    ("arn:aws:iam::123456789012:root", [], False),
])
def test_only_the_role_creating_the_cluster_is_refused_as_admin(caller, existing, refused):
    problem = creator_problem("c", ["arn:aws:iam::123456789012:role/Viewer", ROLE], caller, existing)
    assert (problem is not None) == refused
    assert problem is None or problem.startswith(f"prescale:cluster.adminRoleArns[1]: '{ROLE}' is the role running")


def test_an_existing_cluster_that_has_everything_passes():
    assert existing_cluster_problems("c", "API", True, None) == []
    assert existing_cluster_problems("c", "API_AND_CONFIG_MAP", False, None) == []
    assert [p.split(":")[0] for p in existing_cluster_problems("c", "CONFIG_MAP", False, "not found")] == [
        "authentication mode CONFIG_MAP", "the IAM OIDC provider for the cluster's issuer was not found (not found)"]
