"""The few reads ``prescale status`` makes of a cluster, behind one small interface.

:class:`ClusterReader` is what the status check asks; :class:`KubernetesReader` answers it with the official
``kubernetes`` client, imported by :func:`connect` only, so no other command loads it. The tests answer with
recorded objects. Either way every object comes back as the API's own JSON (camelCase keys, as
``kubectl get -o json`` prints its items), so the check reads one shape whoever answered.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

Object = dict[str, Any]

# The node classes a NodePool's nodeClassRef can name on AWS, by (group, kind): their version and resource.
NODE_CLASS_APIS = {("karpenter.k8s.aws", "EC2NodeClass"): ("v1", "ec2nodeclasses"),  # self-managed Karpenter
                   ("eks.amazonaws.com", "NodeClass"): ("v1", "nodeclasses")}  # EKS Auto Mode
REQUEST_TIMEOUT_SECONDS = 10  # per request: an unreachable API server must not hang the command
RETRIES = 1  # one more try on a dropped connection, not urllib3's default three


class ClusterError(Exception):
    """The cluster cannot be reached or read; the message says which and why, for stderr."""


class ClusterReader(Protocol):
    def scaled_objects(self, namespace: str) -> list[Object]:
        """KEDA ``ScaledObject``s in ``namespace``."""

    def pods(self, namespace: str, labels: Mapping[str, str]) -> list[Object]:
        """Pods in ``namespace`` carrying all of ``labels``."""

    def nodes(self, labels: Mapping[str, str]) -> list[Object]:
        """Nodes carrying all of ``labels``."""

    def node_claims(self, labels: Mapping[str, str]) -> list[Object]:
        """Karpenter ``NodeClaim``s carrying all of ``labels``."""

    def node_claim_events(self) -> list[Object]:
        """Warning events about NodeClaims, in any namespace (Karpenter reports a launch that found no
        capacity this way, then deletes the NodeClaim)."""

    def node_pools(self) -> list[Object]:
        """Karpenter ``NodePool``s."""

    def node_classes(self, group: str, kind: str) -> list[Object]:
        """The node classes of one of :data:`NODE_CLASS_APIS` (``EC2NodeClass``, Auto Mode's ``NodeClass``)."""

    def cron_jobs(self, namespace: str) -> list[Object]:
        """``CronJob``s in ``namespace`` (static and buffer windows' drivers)."""

    def jobs(self, namespace: str) -> list[Object]:
        """``Job``s in ``namespace`` (the drivers' runs)."""

    def capacity_buffers(self, namespace: str) -> list[Object]:
        """Karpenter ``CapacityBuffer``s (``autoscaling.x-k8s.io/v1beta1``) in ``namespace``."""


def connect(kubeconfig: str | None, context: str | None) -> KubernetesReader:
    """A reader for the cluster of ``context`` (default: the current one) in ``kubeconfig`` (default:
    ``$KUBECONFIG``, else ``~/.kube/config``); ``ClusterError`` if that cannot be loaded."""
    from kubernetes import config as kube_config
    from kubernetes.client import Configuration

    files = kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
    if not any(Path(file).expanduser().is_file() for file in files.split(os.pathsep) if file):
        raise ClusterError(f"no kubeconfig at {files}; pass --kubeconfig FILE or set $KUBECONFIG")
    configuration = Configuration()
    try:
        kube_config.load_kube_config(config_file=files, context=context, client_configuration=configuration,
                                     persist_config=False)
    except (kube_config.ConfigException, OSError, ValueError) as error:
        raise ClusterError(f"cannot use the kubeconfig {files}: {error}") from None
    except Exception as error:  # noqa: BLE001 - not YAML, or another shape: the loader walks what it finds
        # Only where: the parser's own message quotes the line, which may hold a token.
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ClusterError(f"cannot use the kubeconfig {files}: not a kubeconfig ({type(error).__name__}"
                           f"{where})") from None
    configuration.retries = RETRIES
    return KubernetesReader(configuration)


class KubernetesReader:
    """:class:`ClusterReader` on the ``kubernetes`` client (CoreV1Api for pods, nodes and events, BatchV1Api for
    CronJobs and Jobs, CustomObjectsApi for ScaledObjects, NodeClaims, NodePools, node classes and
    CapacityBuffers)."""

    def __init__(self, configuration: Any):
        from kubernetes.client import ApiClient, BatchV1Api, CoreV1Api, CustomObjectsApi

        self.host = configuration.host
        self.client = ApiClient(configuration)
        self.core = CoreV1Api(self.client)
        self.batch = BatchV1Api(self.client)
        self.custom = CustomObjectsApi(self.client)

    def scaled_objects(self, namespace: str) -> list[Object]:
        with self._reading(f"KEDA ScaledObjects in namespace {namespace}") as read:
            return read(self.custom.list_namespaced_custom_object, "keda.sh", "v1alpha1", namespace, "scaledobjects")

    def pods(self, namespace: str, labels: Mapping[str, str]) -> list[Object]:
        with self._reading(f"pods in namespace {namespace}") as read:
            return read(self.core.list_namespaced_pod, namespace, label_selector=label_selector(labels))

    def nodes(self, labels: Mapping[str, str]) -> list[Object]:
        with self._reading("nodes") as read:
            return read(self.core.list_node, label_selector=label_selector(labels))

    def node_claims(self, labels: Mapping[str, str]) -> list[Object]:
        with self._reading("Karpenter NodeClaims") as read:
            return read(self.custom.list_cluster_custom_object, "karpenter.sh", "v1", "nodeclaims",
                        label_selector=label_selector(labels))

    def node_claim_events(self) -> list[Object]:
        with self._reading("events") as read:
            return read(self.core.list_event_for_all_namespaces,
                        field_selector="involvedObject.kind=NodeClaim,type=Warning")

    def node_pools(self) -> list[Object]:
        with self._reading("Karpenter NodePools") as read:
            return read(self.custom.list_cluster_custom_object, "karpenter.sh", "v1", "nodepools")

    def node_classes(self, group: str, kind: str) -> list[Object]:
        version, plural = NODE_CLASS_APIS[group, kind]
        with self._reading(f"{kind}s ({group})") as read:
            return read(self.custom.list_cluster_custom_object, group, version, plural)

    def cron_jobs(self, namespace: str) -> list[Object]:
        with self._reading(f"CronJobs in namespace {namespace}") as read:
            return read(self.batch.list_namespaced_cron_job, namespace)

    def jobs(self, namespace: str) -> list[Object]:
        with self._reading(f"Jobs in namespace {namespace}") as read:
            return read(self.batch.list_namespaced_job, namespace)

    def capacity_buffers(self, namespace: str) -> list[Object]:
        with self._reading(f"Karpenter CapacityBuffers in namespace {namespace}") as read:
            return read(self.custom.list_namespaced_custom_object, "autoscaling.x-k8s.io", "v1beta1", namespace,
                        "capacitybuffers")

    @contextmanager
    def _reading(self, what: str) -> Iterator[Any]:
        """``read(list_call, *args)``: the listed items as API JSON, ``[]`` where the API is not served (a CRD
        that is not installed); any other failure becomes one ``ClusterError`` naming the cluster and ``what``."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        def read(list_call: Any, *args: Any, **kwargs: Any) -> list[Object]:
            try:
                listed = list_call(*args, **kwargs, _request_timeout=REQUEST_TIMEOUT_SECONDS)
            except ApiException as error:
                if error.status == 404:
                    return []
                raise ClusterError(f"the cluster at {self.host} refused to list {what}: {_api_message(error)}") \
                    from None
            # Custom objects arrive as JSON already; typed lists as models, turned back into the API's JSON.
            items = listed["items"] if isinstance(listed, dict) else listed.items
            return [self.client.sanitize_for_serialization(item) for item in items or []]

        try:
            yield read
        except (HTTPError, OSError) as error:
            raise ClusterError(f"cannot reach the cluster at {self.host} to list {what}: "
                               f"{getattr(error, 'reason', None) or error}") from None


def label_selector(labels: Mapping[str, str]) -> str:
    """``{"a": "1", "b": "2"}`` → ``"a=1,b=2"``: every label must match."""
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))


def _api_message(error: Any) -> str:
    """``403 Forbidden: nodes is forbidden: User ...``: the status line and the API's own ``Status.message``."""
    try:
        message = json.loads(error.body or "{}").get("message", "")
    except (ValueError, AttributeError):
        message = ""
    return f"{error.status} {error.reason}" + (f": {message}" if message else "")
