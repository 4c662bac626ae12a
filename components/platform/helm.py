"""One way to install a pinned Helm chart, so every release prescale makes behaves the same on failure, and one way
to lay a user's values over prescale's.

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


def merged_values(rendered: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``overrides`` laid over ``rendered`` as Helm lays a values file over a chart's own values: maps merge key by
    key, anything else (a list, a scalar) replaces what was there. Neither input is changed.

    The user's ``prescale:<chart>.values`` over the values prescale renders; the paths prescale owns are refused
    before (:mod:`prescale.model.checks.helm_values`), so only what a user may set is replaced.
    """
    merged = dict(rendered)
    for key, value in overrides.items():
        below = merged.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            value = merged_values(below, value)
        merged[key] = value
    return merged
