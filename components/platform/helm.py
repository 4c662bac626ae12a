"""One way to install a pinned Helm chart, so every release prescale makes behaves the same on failure.

``helm.v3.Release`` (a real Helm release, hooks included) rather than ``helm.v4.Chart``: the vendor marks
Release as the production choice, and a dependent waits until the release's resources are ready.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

# Long enough for a first install that waits for images and pod readiness on fresh nodes.
TIMEOUT_SECONDS = 600
# Release history lives in Secrets in the release namespace; ten revisions are plenty for a rollback.
MAX_HISTORY = 10


def pinned_release(resource_name: str, *, chart: str, version: str, release_name: str,
                   namespace: pulumi.Input[str], repository: str | None = None,
                   values: Mapping[str, Any] | None = None, skip_crds: bool = False,
                   opts: pulumi.ResourceOptions) -> k8s.helm.v3.Release:
    """A Helm release of ``chart`` at exactly ``version``, named ``release_name`` (never auto-named).

    Auto-naming would add a random suffix to the release, and charts derive object names (Karpenter: its
    ServiceAccount) from it. ``atomic`` rolls a failed upgrade back to the last good revision, so a bad
    upgrade leaves the previous controller running instead of a half-applied one.
    """
    return k8s.helm.v3.Release(
        resource_name,
        name=release_name,
        chart=chart,
        version=version,
        repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=repository) if repository else None,
        namespace=namespace,
        values=dict(values or {}),
        skip_crds=skip_crds,
        atomic=True,
        timeout=TIMEOUT_SECONDS,
        max_history=MAX_HISTORY,
        opts=opts)
