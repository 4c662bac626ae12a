"""Helpers shared by the platform tests (cluster, Karpenter, KEDA, wiring): configs and registration lookups."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pulumi_kubernetes as k8s
from prescale.contract import SystemPlacement
from prescale.model.config import StackConfig
from prescale.offline import Evaluation, Registration, is_secret, revealed, run_program  # noqa: F401 - shared by tests

from . import ROOT

PROJECT = ROOT
DEV_NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the dev stack's one-off (2027-03-02) is armed
REGION = "ap-northeast-2"
ACCOUNT = "123456789012"
RELEASE = "kubernetes:helm.sh/v3:Release"
K8S_PROVIDER = "pulumi:providers:kubernetes"
SYSTEM_PLACEMENT = SystemPlacement(node_selector={"prescale.io/system": "true"})



def stack_config(cluster: dict[str, Any] | None = None, **sections: Any) -> StackConfig:
    """A validated stack config in the YAML's own (camelCase) shape; cluster ``prescale-test`` by default."""
    return StackConfig.model_validate(
        {"region": REGION, "cluster": {"name": "prescale-test", **(cluster or {})}, **sections})


def stand_in_provider() -> k8s.Provider:
    """A stand-in for the cluster's provider, for components built without a Cluster."""
    return k8s.Provider("test-k8s", kubeconfig="{}")


def policy(registration: Registration, key: str = "policy") -> dict[str, Any]:
    return json.loads(revealed(registration.inputs[key]))


def only(evaluation: Evaluation, type_: str) -> Registration:
    found = evaluation.of_type(type_)
    assert len(found) == 1, f"expected one {type_}, got {[r.name for r in found]}"
    return found[0]


def provider_urn(evaluation: Evaluation) -> str:
    return only(evaluation, K8S_PROVIDER).urn


def uses_provider(registration: Registration, provider: str) -> bool:
    """``Registration.provider`` is ``<provider urn>::<provider id>``."""
    return registration.provider.startswith(provider + "::")


def dev_program() -> Evaluation:
    """The whole dev stack (``__main__.py`` with ``Pulumi.dev.yaml``) at ``DEV_NOW``, evaluated afresh (the
    ``dev_stack`` session fixture holds one evaluation of it)."""
    return run_program(PROJECT, "dev", DEV_NOW)
