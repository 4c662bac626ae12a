"""The Prometheus HTTP API, as ``prescale report`` reads it: range queries over the query API users already run.

A URL (``--prometheus`` or ``PRESCALE_PROMETHEUS_URL``) of any server that speaks Prometheus' HTTP API
(prometheus/prometheus ``web/api/v1/api.go``: ``GET /api/v1/query_range`` answering ``{"status": "success",
"data": {"resultType": "matrix", "result": [{"metric": {...}, "values": [[<unix seconds>, "<value>"], ...]}]}}``),
with a bearer token (``PRESCALE_PROMETHEUS_TOKEN``) or basic auth (``user:password@`` in the URL) where it sits
behind one, and Amazon Managed Service for Prometheus (``https://aps-workspaces.<region>.amazonaws.com/workspaces/
<id>``) with each request SigV4-signed for service ``aps`` (AWS docs, "Query using the Prometheus-compatible APIs")
by botocore, with the AWS credential chain (environment, profile, SSO, web identity, instance role). Credentials
are sent, never printed: errors name the host and the query only. urllib3 carries the requests (the ``kubernetes``
client's own transport, already a dependency of the command).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

REQUEST_TIMEOUT_SECONDS = 30  # per range query: a year of one series at a minute's step answers in well under that
MAX_POINTS = 11_000  # Prometheus refuses a range query of more points per series than this (api.go, 11000)

Labels = frozenset[tuple[str, str]]
Samples = list[tuple[float, float]]  # (unix seconds, value), in time order


class PrometheusError(Exception):
    """Prometheus cannot be reached or refused a query; the message says which, without any credential."""


@dataclass(frozen=True)
class Prometheus:
    """One Prometheus server (its API's base URL, without credentials) and how to authenticate to it."""

    url: str
    token: str | None = None
    basic: tuple[str, str] | None = None
    sigv4_region: str | None = None  # Amazon Managed Service for Prometheus: sign for `aps` in this region

    @classmethod
    def at(cls, url: str, token: str | None = None) -> Prometheus:
        """The server at ``url``; a ``user:password@`` in it becomes basic auth (and leaves the URL), an Amazon
        Managed Service for Prometheus workspace's host makes every request SigV4-signed."""
        shown = re.sub(r"//[^/@]*@", "//", url)  # never a password, even of a URL that cannot be split
        refused = PrometheusError(f"--prometheus {shown!r} is not an http(s) URL of a Prometheus server")
        try:
            parts = urlsplit(url.rstrip("/"))
            port = parts.port  # read here: a port out of range raises only when it is
        except ValueError:  # an unclosed IPv6 bracket, a port out of range
            raise refused from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise refused
        basic = (parts.username or "", parts.password or "") if parts.username else None
        name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # an IPv6 address keeps its []
        host = name + (f":{port}" if port else "")
        managed = _AMP_HOST.fullmatch(parts.hostname)
        return cls(urlunsplit((parts.scheme, host, parts.path, "", "")), token or None, basic,
                   managed.group(1) if managed else None)

    def range(self, query: str, start: datetime, end: datetime, step: int) -> dict[Labels, Samples]:
        """``query`` evaluated every ``step`` seconds over ``[start, end]``: each series' labels and samples (a
        series absent at an instant has no sample there). Longer ranges than one request may hold are split."""
        begin, finish = math.floor(start.timestamp()), math.ceil(end.timestamp())
        found: dict[Labels, Samples] = {}
        chunk = step * (MAX_POINTS - 1)
        for lower in range(begin, finish + 1, chunk + step):
            upper = min(lower + chunk, finish)
            for labels, samples in self._matrix(query, lower, upper, step).items():
                found.setdefault(labels, []).extend(samples)
        return found

    def _matrix(self, query: str, start: int, end: int, step: int) -> dict[Labels, Samples]:
        body = self._get("/api/v1/query_range", {"query": query, "start": str(start), "end": str(end),
                                                 "step": str(step)})
        try:
            data = body["data"]
            if data["resultType"] == "matrix":
                return {frozenset(series["metric"].items()): [(float(at), float(value))
                                                              for at, value in series["values"]]
                        for series in data["result"]}
        except (LookupError, TypeError, AttributeError, ValueError):  # a shape or a sample it does not write
            pass
        raise self._not_the_api(query)

    def _get(self, path: str, fields: dict[str, str]) -> dict[str, Any]:
        import urllib3  # the command's transport, loaded only when a report asks

        url = f"{self.url}{path}?{urlencode(fields, quote_via=quote)}"
        headers = urllib3.make_headers(basic_auth=":".join(self.basic)) if self.basic else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.sigv4_region is not None:
            headers.update(sigv4_headers(url, self.sigv4_region))
        try:
            response = _pool().request("GET", url, headers=headers, timeout=REQUEST_TIMEOUT_SECONDS, retries=1)
        except urllib3.exceptions.HTTPError as error:
            raise PrometheusError(f"cannot reach Prometheus at {self._host}: {type(error).__name__}") from None
        try:
            body = json.loads(response.data)
        except ValueError:  # not JSON: a page of something in front of the server, say
            body = None
        answered: dict[str, Any] = body if isinstance(body, dict) else {}
        if response.status == 200 and answered.get("status") == "success":
            return answered
        if response.status == 200 and "error" not in answered:
            raise self._not_the_api(fields["query"])
        reason = answered.get("error") or response.reason or "no reason given"
        hint = " (is the token or the password right?)" if response.status in (401, 403) else ""
        raise PrometheusError(f"Prometheus at {self._host} answered {response.status} to {fields['query']!r}: "
                              f"{reason}{hint}")

    def _not_the_api(self, query: str) -> PrometheusError:
        """A successful answer that is not the query API's matrix (the shape this module's docstring quotes): the
        URL is likely not the API's own but a sign-in page or another service in front of it."""
        return PrometheusError(f"Prometheus at {self._host} answered {query!r} with what is not the query API's "
                               "JSON matrix: is the URL the server's own, not a sign-in page in front of it?")

    @property
    def _host(self) -> str:
        return urlsplit(self.url).netloc


def sigv4_headers(url: str, region: str) -> dict[str, str]:
    """The headers that sign a GET of ``url`` for service ``aps`` in ``region`` (``Authorization``, ``X-Amz-Date``
    and, with temporary credentials, ``X-Amz-Security-Token``), from the AWS credential chain."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.session import Session

    credentials = Session().get_credentials()
    if credentials is None:
        raise PrometheusError("Amazon Managed Service for Prometheus needs AWS credentials, and the AWS credential "
                              "chain found none (environment, profile, SSO, web identity, instance role)")
    request = AWSRequest(method="GET", url=url)
    SigV4Auth(credentials.get_frozen_credentials(), "aps", region).add_auth(request)
    return {name: value for name, value in request.headers.items()}


# An Amazon Managed Service for Prometheus workspace's query endpoint, and its region.
_AMP_HOST = re.compile(r"aps-workspaces\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?")


@cache
def _pool() -> Any:
    """One connection pool for the command's run (a report asks a few queries of one server)."""
    import urllib3

    return urllib3.PoolManager()
