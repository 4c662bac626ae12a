"""The version warnings of :mod:`prescale.model.checks.eks_versions`, called directly: the notice before AWS upgrades
a cluster on its own (word for word, with the way out each support type still has), and a failsafe kubectl more than
one minor version from the cluster, read from the image's tag only where the tag says a version. The calendar's
boundaries are held in tests/platform/test_cluster_rules.py."""

from datetime import UTC, datetime

import pytest
from prescale.model.checks.eks_versions import EKS_SUPPORT, forced_upgrade_notice, kubectl_skew_warning
from prescale.model.config import ClusterConfig, PlaceholderConfig

from tests.support.config import NOW

SKEWED = ("prescale:placeholders.failsafeImage {image!r}: kubectl {kubectl} is more than one minor version from the "
          "cluster's Kubernetes 1.35 (prescale:cluster.kubernetesVersion), and kubectl supports only one minor either "
          "way: every window's failsafe and driver run it, and an unsupported kubectl may fail the scale-down it is "
          "there for; use a kubectl image of 1.35 (e.g. registry.k8s.io/kubectl:v1.35.0)")


def test_the_default_cluster_version_and_failsafe_image_need_no_warning():
    version, image = ClusterConfig(name="prescale-test").kubernetes_version, PlaceholderConfig().failsafe_image
    assert version in EKS_SUPPORT
    assert forced_upgrade_notice(version, "STANDARD", NOW) is None
    assert kubectl_skew_warning(version, image) is None


def test_the_notice_on_standard_support_offers_extended_support_as_well_as_the_upgrade():
    assert forced_upgrade_notice("1.35", "STANDARD", datetime(2026, 12, 27, tzinfo=UTC)) == (
        "prescale:cluster.kubernetesVersion '1.35': EKS standard support ends on 2027-03-27 (in 90 days). From then "
        "on AWS upgrades the control plane on its own, and the next `pulumi up` would try to set 1.35 back, which EKS "
        "refuses (it cannot downgrade). Upgrade first: raise kubernetesVersion one minor version at a time "
        "(docs/platform.md, 'Upgrading Kubernetes'), or set prescale:cluster.supportType: EXTENDED to keep 1.35 until "
        "2028-03-27 at extra cost per cluster hour.")


def test_once_extended_support_has_ended_the_notice_offers_only_the_upgrade():
    notice = forced_upgrade_notice("1.31", "EXTENDED", NOW)
    assert notice.startswith("prescale:cluster.kubernetesVersion '1.31': EKS extended support ended on 2026-11-26. ")
    assert notice.endswith("Upgrade first: raise kubernetesVersion one minor version at a time (docs/platform.md, "
                           "'Upgrading Kubernetes').")


@pytest.mark.parametrize("image", [
    "registry.k8s.io/kubectl:v1.34.3",  # one minor older
    "registry.k8s.io/kubectl:v1.36.0",  # one minor newer
    "docker.io/bitnami/kubectl:1.35.2-debian-12-r3",  # no "v", a suffix after the patch
    "mirror.example.com:5000/kubectl",  # no tag: the port is not a version
    "mirror.example.com/tools/kubectl:stable",  # a mirror's own tag: its kubectl is unknown here
])
def test_a_kubectl_within_one_minor_or_of_unknown_version_gets_no_warning(image):
    assert kubectl_skew_warning("1.35", image) is None


@pytest.mark.parametrize("image, kubectl", [
    ("registry.k8s.io/kubectl:v1.33.1", "1.33"),
    ("registry.k8s.io/kubectl:v1.33.1@sha256:" + "a" * 64, "1.33"),  # the tag before the digest
    ("mirror.example.com/kubectl:v2.35.0", "2.35"),  # the same minor of another major
])
def test_a_kubectl_two_minors_or_a_major_away_is_warned_of_with_the_image_to_use(image, kubectl):
    assert kubectl_skew_warning("1.35", image) == SKEWED.format(image=image, kubectl=kubectl)
