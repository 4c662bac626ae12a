"""Amazon EKS's Kubernetes release calendar, and the warning due before AWS upgrades a cluster on its own.

Why the warning, and how to upgrade: docs/platform.md#upgrading-kubernetes. Dates are UTC days, as AWS gives them.
Source: Amazon EKS User Guide, "Understand the Kubernetes version lifecycle on EKS", section "Amazon EKS Kubernetes
release calendar" (https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html#kubernetes-release-calendar,
from awsdocs/amazon-eks-user-guide ``latest/ug/versioning/kubernetes-versions.adoc``) for 1.30-1.34; the 1.35 row
(EKS release 2026-01-27) as that table gives it, quoted by endoflife.date/amazon-eks; 1.36 from its EKS release on
2026-06-02 plus the documented 14 and 12 months (AWS's table was not at hand). Add a row when EKS releases a
version, and check the dates against the AWS page (``aws eks describe-cluster-versions`` prints them too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

SupportType = Literal["STANDARD", "EXTENDED"]


@dataclass(frozen=True)
class SupportWindow:
    """The last days of EKS support for one Kubernetes minor version."""

    end_of_standard: date
    end_of_extended: date

    def end(self, support_type: SupportType) -> date:
        """When AWS upgrades a cluster with this upgrade policy."""
        return self.end_of_standard if support_type == "STANDARD" else self.end_of_extended


EKS_SUPPORT: dict[str, SupportWindow] = {
    "1.30": SupportWindow(date(2025, 7, 23), date(2026, 7, 23)),
    "1.31": SupportWindow(date(2025, 11, 26), date(2026, 11, 26)),
    "1.32": SupportWindow(date(2026, 3, 23), date(2027, 3, 23)),
    "1.33": SupportWindow(date(2026, 7, 29), date(2027, 7, 29)),
    "1.34": SupportWindow(date(2026, 12, 2), date(2027, 12, 2)),
    "1.35": SupportWindow(date(2027, 3, 27), date(2028, 3, 27)),
    "1.36": SupportWindow(date(2027, 8, 2), date(2028, 8, 2)),
}

# Time to test and roll out a one-minor upgrade before AWS does it (AWS itself announces an end of standard
# support at least 60 days ahead).
NOTICE = timedelta(days=90)


def forced_upgrade_notice(version: str, support_type: SupportType, now: datetime) -> str | None:
    """A warning when AWS will upgrade ``version`` within :data:`NOTICE` of ``now``, or already may; else None."""
    window = EKS_SUPPORT[version]
    end, today = window.end(support_type), now.astimezone(UTC).date()
    if today + NOTICE < end:
        return None
    support = "standard" if support_type == "STANDARD" else "extended"
    left = (end - today).days
    when = f"ended on {end}" if today >= end else f"ends on {end} (in {left} day{'s' * (left != 1)})"
    stay = (f", or set prescale:cluster.supportType: EXTENDED to keep {version} until "
            f"{window.end_of_extended} at extra cost per cluster hour"
            if support_type == "STANDARD" and today < window.end_of_extended else "")
    return (f"prescale:cluster.kubernetesVersion {version!r}: EKS {support} support {when}. From then on AWS "
            f"upgrades the control plane on its own, and the next `pulumi up` would try to set {version} back, "
            f"which EKS refuses (it cannot downgrade). Upgrade first: raise kubernetesVersion one minor version "
            f"at a time (docs/platform.md, 'Upgrading Kubernetes'){stay}.")


# kubectl's version skew policy: within one minor version of the API server, older or newer (kubernetes/website
# ``content/en/releases/version-skew-policy.md``, section "kubectl").
_KUBECTL_SKEW = 1
_IMAGE_VERSION = re.compile(r":v?(\d+)\.(\d+)(?:\.\d+)?(?:-[\w.-]+)?$")


def kubectl_skew_warning(cluster_version: str, image: str) -> str | None:
    """A warning when the kubectl image the failsafes and drivers run (``placeholders.failsafeImage``) is more than
    one minor version from the cluster's, which kubectl does not support; None when it is within, or when the image's
    tag says no version (a mirror's own tag: its kubectl is unknown here)."""
    found = _IMAGE_VERSION.search(image.split("@", 1)[0].rsplit("/", 1)[-1])
    if found is None:
        return None
    major, minor = map(int, cluster_version.split("."))
    if int(found.group(1)) == major and abs(int(found.group(2)) - minor) <= _KUBECTL_SKEW:
        return None
    kubectl = f"{found.group(1)}.{found.group(2)}"
    return (f"prescale:placeholders.failsafeImage {image!r}: kubectl {kubectl} is more than one minor version from "
            f"the cluster's Kubernetes {cluster_version} (prescale:cluster.kubernetesVersion), and kubectl supports "
            "only one minor either way: every window's failsafe and driver run it, and an unsupported kubectl may "
            f"fail the scale-down it is there for; use a kubectl image of {cluster_version} (e.g. "
            f"registry.k8s.io/kubectl:v{cluster_version}.0)")
