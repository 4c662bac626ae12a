"""Helpers for the ``prescale`` CLI tests: throw-away project directories and a small program to plan."""

from __future__ import annotations

import shutil
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
from prescale.capacity.crds import ScaledObject
from prescale.platform.helm import pinned_release

from . import ROOT

ROOT = ROOT
NOW = "2026-11-30T12:00:00+00:00"


def make_project(directory: Path, *, program: str, stacks: dict[str, str]) -> Path:
    """A Pulumi project in ``directory``: the real ``Pulumi.yaml``, ``__main__.py`` = ``program``, and
    ``Pulumi.<name>.yaml`` files with the given texts."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Pulumi.yaml", directory / "Pulumi.yaml")
    (directory / "__main__.py").write_text(program)
    for name, text in stacks.items():
        (directory / f"Pulumi.{name}.yaml").write_text(text)
    return directory


# Runs the real program, so a stack file next to it is validated exactly as `pulumi up` would.
REAL_PROGRAM = f"import runpy\nrunpy.run_path({str(ROOT / '__main__.py')!r}, run_name='__main__')\n"
SMALL_PROGRAM = "from tests.support.cli import small_program\nsmall_program()\n"


class Capacity(pulumi.ComponentResource):
    """A component with Kubernetes children, so the plan has nesting to show."""

    def __init__(self, name: str, provider: k8s.Provider):
        super().__init__("test:index:Capacity", name)
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        k8s.scheduling.v1.PriorityClass(f"{name}-priority", metadata={"name": "prescale-placeholder"},
                                        value=-10, preemption_policy="Never", opts=child)
        k8s.apps.v1.Deployment(f"{name}-placeholders", metadata={"name": "placeholders", "namespace": "prescale"},
                               spec={"replicas": 0, "selector": {"match_labels": {"app": "placeholders"}},
                                     "template": {"metadata": {"labels": {"app": "placeholders"}},
                                                  "spec": {"containers": [{"name": "pause", "image": "pause"}]}}},
                               opts=child)
        ScaledObject(f"{name}-scaler", {"name": "placeholders", "namespace": "prescale"},
                     {"scaleTargetRef": {"name": "placeholders"}, "minReplicaCount": 0, "triggers": []}, opts=child)
        self.register_outputs({})


def small_program() -> None:
    """One resource of each kind ``prescale plan`` treats differently: a provider with a secret input, a
    namespace, a component with objects under it, an auto-named object, a Helm release, an AWS resource."""
    provider = k8s.Provider("k8s", kubeconfig=pulumi.Output.secret("{}"))
    options = pulumi.ResourceOptions(provider=provider)
    namespace = k8s.core.v1.Namespace("namespace", metadata={"name": "prescale"}, opts=options)
    Capacity("capacity", provider)
    k8s.core.v1.ConfigMap("settings", data={"greeting": "hello"}, opts=options)
    pinned_release("keda", chart="keda", version="2.20.2", release_name="keda", namespace="keda",
                   repository="https://kedacore.github.io/charts",
                   opts=pulumi.ResourceOptions(provider=provider, depends_on=[namespace]))
    pulumi.CustomResource("aws:sqs/queue:Queue", "queue", {"name": "interruptions"})
