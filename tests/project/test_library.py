"""prescale as a library: the public names, the pure model loading no Pulumi, and the example program under mocks."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from datetime import UTC, datetime

import prescale
import pytest
from prescale.offline import Evaluation, run_program

from prescale_cli.main import main
from tests.support import ROOT
from tests.support.capacity import CUSTOM_RESOURCES, DEPLOYMENT, NODE_CLASS, NODE_POOL, as_object
from tests.support.crd_validation import validate
from tests.support.platform import RELEASE

EXAMPLE = ROOT / "examples" / "existing-cluster"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("name", prescale.__all__)
def test_every_public_name_resolves(name):
    assert getattr(prescale, name).__name__ == name


def test_unknown_names_are_refused():
    with pytest.raises(AttributeError, match="no attribute 'Cluster'"):
        prescale.Cluster  # noqa: B018 (the access is the test)


def test_the_pure_model_loads_no_pulumi():
    loaded = subprocess.run([sys.executable, "-c", "import sys, prescale.model.validation, prescale.model.windows; "
                             "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('pulumi')))"],
                            capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def example() -> Evaluation:
    return run_program(EXAMPLE, "dev", NOW)


def test_example_brings_its_own_cluster_and_provider(example):
    """Nothing of the platform is created: no AWS resource, no Helm release, one provider: the program's own."""
    assert [r for r in example.resources if r.type.startswith("aws:") or r.type == RELEASE] == []
    providers = [r for r in example.resources if r.type == "pulumi:providers:kubernetes"]
    assert [p.name for p in providers] == ["shop-cluster"]
    in_cluster = [r for r in example.resources if r.custom and r.type.startswith("kubernetes:")]
    assert in_cluster and all(r.provider.startswith(providers[0].urn + "::") for r in in_cluster)


def test_example_adds_windows_on_its_pools(example):
    assert example.outputs["armedWindows"] == ["morning-rush", "spring-sale"]
    assert example.of_type(NODE_CLASS) == []  # the flash-sale pool uses the team's EC2NodeClass `default`
    (node_pool,) = example.of_type(NODE_POOL)
    assert node_pool.inputs["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "default"
    morning = example.named(DEPLOYMENT, "morning-rush-placeholders").inputs["spec"]["template"]
    assert morning["spec"]["nodeSelector"] == {"karpenter.sh/nodepool": "default"}
    assert morning["metadata"]["annotations"] == {"karpenter.sh/do-not-disrupt": "true"}
    assert morning["spec"]["tolerations"] == []  # an existing pool has only the taints its owner set
    for type_ in CUSTOM_RESOURCES:
        for resource in example.of_type(type_):
            assert validate(as_object(resource)) == [], resource.name


def test_example_config_is_validated_whole():
    """The library refuses platform keys it does not own and names the key, like prescale's own program."""
    with pytest.raises(prescale.ConfigError) as caught:
        run_program(EXAMPLE, "dev", NOW, config={"aws:region": "eu-west-1", "shop-events:clusterName": "shop",
                                                 "prescale:cluster": '{"name": "shop"}'})
    assert any(p.startswith("prescale:cluster: unknown config key") for p in caught.value.problems)


def test_schedule_reads_a_library_stack(capsys):
    """``prescale schedule`` reads a stack without prescale:cluster as the library reads it; windows on a pool
    prescale does not own are held by do-not-disrupt placeholders, not by budgets."""
    assert main(["schedule", "--project", str(EXAMPLE), "--stack", "dev", "--at", "2026-11-30T12:00Z",
                 "--days", "1", "--json"]) in (0, None)
    occurrences = json.loads(capsys.readouterr().out)["occurrences"]
    assert {(o["window"], o["protection"], o["frozen"] is None) for o in occurrences} == {
        ("morning-rush", "do-not-disrupt", True)}


def test_example_uses_only_what_the_library_page_documents():
    """Every prescale name the example imports or reads off ``prescale`` is named in docs/library.md: the page is
    the library's contract, and the example a program written against it."""
    tree = ast.parse((EXAMPLE / "__main__.py").read_text())
    used = {f"prescale.{node.attr}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "prescale"}
    used |= {f"{node.module}.{alias.name}" for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module.split(".")[0] == "prescale" for alias in node.names}
    assert "prescale.deploy_capacity" in used
    page = (ROOT / "docs" / "library.md").read_text()
    named = set(re.findall(r"`([\w.]+)(?:\(|`)", page))  # `name`, `name(...)`, `prescale.module.name`
    undocumented = [name for name in sorted(used)
                    if name not in named and not (name.count(".") == 1 and name.split(".")[1] in named)]
    assert undocumented == []
