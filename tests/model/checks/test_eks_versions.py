"""``prescale.model.checks.eks_versions``: kubectl in the failsafe's and drivers' image against the cluster's
version."""

from prescale.model.checks.eks_versions import kubectl_skew_warning


def test_kubectl_more_than_one_minor_away_is_warned():
    warning = kubectl_skew_warning("1.34", "registry.k8s.io/kubectl:v1.30.0")
    assert warning is not None and warning.startswith(
        "prescale:placeholders.failsafeImage 'registry.k8s.io/kubectl:v1.30.0': kubectl 1.30 is more than one "
        "minor version from the cluster's Kubernetes 1.34")


def test_kubectl_within_one_minor_is_fine():
    assert kubectl_skew_warning("1.34", "registry.k8s.io/kubectl:v1.34.1") is None
    assert kubectl_skew_warning("1.34", "registry.k8s.io/kubectl:v1.33.0") is None
