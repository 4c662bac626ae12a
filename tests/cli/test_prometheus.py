"""How ``prescale report`` reaches Prometheus: the query API's URL, basic auth and a bearer token, and Amazon Managed
Service for Prometheus' SigV4 signature, checked here by recomputing it from the request the server received with
the algorithm AWS documents (Signature Version 4: canonical request, string to sign, derived key), independently of
botocore, which signs it."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qsl, quote, urlsplit

import pytest

from prescale_cli.prometheus import Prometheus, PrometheusError

ANSWER = {"status": "success", "data": {"resultType": "matrix", "result": [
    {"metric": {"deployment": "prescale-lunch"}, "values": [[1799670000, "4"]]}]}}
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


@pytest.fixture
def server():
    """A local stand-in for the query API that records each request's path and headers; it answers
    ``answer[0]`` (:data:`ANSWER` unless a test puts other bytes there) with status 200."""
    received: list[tuple[str, dict[str, str]]] = []
    answer = [json.dumps(ANSWER).encode()]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            received.append((self.path, dict(self.headers)))
            body = answer[0]
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for the serving loop's next poll: a short one keeps each test's teardown short.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received, answer
    httpd.shutdown()
    httpd.server_close()


def ask(prometheus: Prometheus) -> dict:
    moment = datetime(2027, 1, 11, 12, tzinfo=UTC)
    return prometheus.range('kube_deployment_status_replicas_ready{namespace="prescale"}', moment, moment, 30)


def test_an_amp_workspace_url_is_signed_for_aps_in_its_region():
    prometheus = Prometheus.at("https://aps-workspaces.ap-northeast-2.amazonaws.com/workspaces/ws-1234/")
    assert (prometheus.url, prometheus.sigv4_region) == (
        "https://aps-workspaces.ap-northeast-2.amazonaws.com/workspaces/ws-1234", "ap-northeast-2")
    assert Prometheus.at("http://prometheus.monitoring:9090").sigv4_region is None


@pytest.mark.parametrize("url", ["ftp://prometheus", "http://[::1", "http://prometheus:99999", "http://prometheus:x",
                                 "prometheus:9090"])
def test_a_url_that_is_no_http_url_of_a_server_is_refused_by_name(url):
    with pytest.raises(PrometheusError) as refused:
        Prometheus.at(url)
    assert str(refused.value) == f"--prometheus {url!r} is not an http(s) URL of a Prometheus server"


def test_a_refused_url_is_named_without_its_password():
    with pytest.raises(PrometheusError) as refused:
        Prometheus.at("http://viewer:s3cret@[::1")
    assert str(refused.value) == "--prometheus 'http://[::1' is not an http(s) URL of a Prometheus server"


def test_an_ipv6_address_keeps_its_brackets():
    assert Prometheus.at("http://viewer:s3cret@[::1]:9090/").url == "http://[::1]:9090"


def test_basic_auth_leaves_the_url_and_a_token_is_a_bearer(server):
    url, received, _ = server
    prometheus = Prometheus.at(url.replace("http://", "http://viewer:s3cret@"), token=None)
    assert prometheus.url == url and prometheus.basic == ("viewer", "s3cret")
    assert list(ask(prometheus).values()) == [[(1799670000.0, 4.0)]]
    assert _header(received[-1][1], "authorization") == "Basic dmlld2VyOnMzY3JldA=="  # viewer:s3cret
    ask(Prometheus.at(url, token="t0ken"))
    assert _header(received[-1][1], "authorization") == "Bearer t0ken"


def test_the_sigv4_signature_is_the_one_aws_documents(server, monkeypatch):
    url, received, _ = server
    for name in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    ask(Prometheus(url, sigv4_region="ap-northeast-2"))
    path, headers = received[-1]
    stamp = _header(headers, "x-amz-date")
    scope = f"{stamp[:8]}/ap-northeast-2/aps/aws4_request"
    authorization = _header(headers, "authorization")
    assert authorization.startswith(f"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{scope}, SignedHeaders=")
    signed = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
    assert {"host", "x-amz-date"} <= set(signed)
    parts = urlsplit(path)
    query = "&".join(f"{quote(key, safe='-_.~')}={quote(value, safe='-_.~')}"
                     for key, value in sorted(parse_qsl(parts.query, keep_blank_values=True)))
    canonical = "\n".join(["GET", parts.path, query, *(f"{name}:{_header(headers, name).strip()}" for name in signed),
                           "", ";".join(signed), hashlib.sha256(b"").hexdigest()])
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = f"AWS4{SECRET}".encode()
    for part in (stamp[:8], "ap-northeast-2", "aps", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    assert authorization.endswith("Signature=" + hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest())
    assert SECRET not in json.dumps(headers)


# Bodies answered with status 200 that are not the query API's matrix: a sign-in page of a proxy in front of the
# server, JSON of another shape, a matrix whose series lack their samples or carry unreadable ones.
NOT_A_MATRIX = {
    "a sign-in page": b"<html><body>Sign in</body></html>",
    "a JSON list": b"[]",
    "data as a list": json.dumps({"status": "success", "data": []}).encode(),
    "a series without values": json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {}}]}}).encode(),
    "a sample that is no number": json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {}, "values": [[1799670000, "four"]]}]}}).encode(),
    "a sample without its time": json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {}, "values": ["4"]}]}}).encode(),
}


@pytest.mark.parametrize("body", NOT_A_MATRIX.values(), ids=NOT_A_MATRIX.keys())
def test_an_answer_that_is_not_the_query_apis_is_one_error_naming_the_host_and_the_query(server, body):
    url, _, answer = server
    answer[0] = body
    with pytest.raises(PrometheusError) as refused:
        ask(Prometheus.at(url))
    host = url.removeprefix("http://")
    assert str(refused.value).startswith(f"Prometheus at {host} answered ")
    assert "kube_deployment_status_replicas_ready" in str(refused.value)
    assert "not the query API's" in str(refused.value)


def test_no_credentials_for_a_workspace_is_one_clear_error(monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(PrometheusError, match="the AWS credential chain found none"):
        ask(Prometheus("http://127.0.0.1:9", sigv4_region="ap-northeast-2"))


def _header(headers: dict[str, str], name: str) -> str:
    return next(value for key, value in headers.items() if key.lower() == name)
