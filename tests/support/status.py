"""A cluster for ``prescale status`` tests: recorded API objects (tests/data/status/) served as the
:class:`~prescale_cli.cluster_reader.ClusterReader` interface, filtered as the API server would filter them."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from . import TESTS, load_yaml

STATUS_DATA = TESTS / "data" / "status"
LEAD_TIME_NOW = "2026-11-30T22:55Z"  # the recordings' instant: dev's morning-peak in its lead time (scale-up 22:45)


@cache
def recorded(name: str) -> tuple[dict[str, Any], ...]:
    """The items of ``tests/data/status/<name>.yaml``, a ``v1 List`` as ``kubectl get -o yaml`` writes it (memoised:
    a file read once; read-only, so a test deep-copies the items it changes)."""
    return tuple(load_yaml((STATUS_DATA / f"{name}.yaml").read_text())["items"])


def overlaid(base: str, overlay: str) -> RecordedCluster:
    """The recording ``base`` with the objects of ``overlay`` in it, each replacing the one of its kind and name."""
    changes = recorded(overlay)
    replaced = {(item["kind"], item["metadata"]["name"]) for item in changes}
    kept = tuple(item for item in recorded(base) if (item["kind"], item["metadata"]["name"]) not in replaced)
    return RecordedCluster(base, kept + changes)


class RecordedCluster:
    """Answers the reader's questions from one recording; ``calls`` keeps what was asked, in order."""

    def __init__(self, name: str, items: tuple[dict[str, Any], ...] | None = None):
        self.items = recorded(name) if items is None else items  # `items`: a recording changed by a test
        self.calls: list[tuple[Any, ...]] = []

    def listed(self, kind: str, namespace: str | None = None, labels: Mapping[str, str] | None = None) -> list[dict]:
        """Objects of ``kind`` in ``namespace`` (any if None) carrying every one of ``labels``."""
        return [item for item in self.items if item["kind"] == kind
                and namespace in (None, item["metadata"].get("namespace"))
                and all(item["metadata"].get("labels", {}).get(key) == value for key, value in (labels or {}).items())]

    def scaled_objects(self, namespace: str) -> list[dict]:
        self.calls.append(("scaled_objects", namespace))
        return self.listed("ScaledObject", namespace)

    def pods(self, namespace: str, labels: Mapping[str, str]) -> list[dict]:
        self.calls.append(("pods", namespace, dict(labels)))
        return self.listed("Pod", namespace, labels)

    def nodes(self, labels: Mapping[str, str]) -> list[dict]:
        self.calls.append(("nodes", dict(labels)))
        return self.listed("Node", labels=labels)

    def node_claims(self, labels: Mapping[str, str]) -> list[dict]:
        self.calls.append(("node_claims", dict(labels)))
        return self.listed("NodeClaim", labels=labels)

    def node_claim_events(self) -> list[dict]:
        self.calls.append(("node_claim_events",))
        return [event for event in self.listed("Event")
                if event["involvedObject"]["kind"] == "NodeClaim" and event["type"] == "Warning"]

    def node_pools(self) -> list[dict]:
        self.calls.append(("node_pools",))
        return self.listed("NodePool")

    def node_classes(self, group: str, kind: str) -> list[dict]:
        self.calls.append(("node_classes", group, kind))
        return [item for item in self.listed(kind) if item["apiVersion"].split("/")[0] == group]

    def cron_jobs(self, namespace: str) -> list[dict]:
        self.calls.append(("cron_jobs", namespace))
        return self.listed("CronJob", namespace)

    def jobs(self, namespace: str) -> list[dict]:
        self.calls.append(("jobs", namespace))
        return self.listed("Job", namespace)

    def capacity_buffers(self, namespace: str) -> list[dict]:
        self.calls.append(("capacity_buffers", namespace))
        return self.listed("CapacityBuffer", namespace)
