"""``prescale plan``: the resource tree, ``--json`` (exactly what the program registers), ``--out`` manifests,
exit codes for broken stacks, and the README's opening command run through the installed script."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pulumi
import pytest
from prescale.capacity.addresses import SubnetAddressError
from prescale.offline import run_program
from prescale.refusals import refusal_in

from prescale_cli.main import main
from prescale_cli.output import Output
from prescale_cli.wire import SECRET, plain
from tests.support import load_yaml
from tests.support.cli import NOW, REAL_PROGRAM, ROOT, SMALL_PROGRAM, make_project
from tests.support.crd_validation import CRD_FILES, validate

DEV_STACK = (ROOT / "Pulumi.dev.yaml").read_text()


@pytest.fixture(scope="module")
def small_project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("small"), program=SMALL_PROGRAM, stacks={"dev": DEV_STACK})


@pytest.fixture(scope="module")
def small_evaluation(small_project):
    return run_program(small_project, "dev", now=datetime.fromisoformat(NOW))


def plan(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["plan", "--at", NOW, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def as_listed(resources: list[dict]) -> list[dict]:
    """Order-free comparison: the engine registers from several threads."""
    return sorted(resources, key=lambda r: (r["type"], r["name"], r["parent"]))


def registered(evaluation) -> list[dict]:
    return as_listed([{"type": r.type, "name": r.name, "parent": r.parent, "inputs": plain(r.inputs)}
                      for r in evaluation.resources])


def test_tree_nests_resources_under_their_parents_and_counts_types(capsys, small_project, small_evaluation):
    code, out, _ = plan(capsys, "--project", str(small_project))
    assert code == 0
    lines = [" ".join(line.split()) for line in out.splitlines()]  # columns' widths aside
    assert lines[:3] == ["Resources of prescale-dev", "Type Name", "pulumi:pulumi:Stack prescale-dev"]
    tree = lines[3:lines.index("Resources per type")]
    assert tree == [
        "├─ aws:sqs/queue:Queue queue",
        "├─ kubernetes:core/v1:ConfigMap settings",
        "├─ kubernetes:core/v1:Namespace namespace",
        "├─ kubernetes:helm.sh/v3:Release keda",
        "├─ pulumi:providers:kubernetes k8s",
        "└─ test:index:Capacity capacity",
        "├─ kubernetes:apps/v1:Deployment capacity-placeholders",
        "├─ kubernetes:keda.sh/v1alpha1:ScaledObject capacity-scaler",
        "└─ kubernetes:scheduling.k8s.io/v1:PriorityClass capacity-priority",
        ""]
    assert "   ├─ kubernetes:apps/v1:Deployment" in out  # children indented under their parent
    counts = lines[lines.index("Resources per type") + 1:]
    assert counts[:2] == ["Type Count", "aws:sqs/queue:Queue 1"]
    assert f"{len(small_evaluation.resources)} resources would be created" in out
    assert "\x1b[" not in out  # piped: plain text


def test_json_lists_exactly_what_the_program_registers(capsys, small_project, small_evaluation):
    code, out, _ = plan(capsys, "--project", str(small_project), "--json")
    assert code == 0
    document = json.loads(out)
    assert document["schemaVersion"] == 1 and list(document) == ["schemaVersion", "resources"]
    assert as_listed(document["resources"]) == registered(small_evaluation)
    assert plan(capsys, "--project", str(small_project), "--json")[1] == out  # reproducible
    assert all(list(resource) == ["type", "name", "parent", "inputs"] for resource in document["resources"])
    provider = next(r for r in document["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == SECRET
    priority = next(r for r in document["resources"] if r["name"] == "capacity-priority")
    assert priority["inputs"]["value"] == -10 and isinstance(priority["inputs"]["value"], int)
    assert priority["parent"].endswith("test:index:Capacity::capacity")


def test_dev_stack_json_matches_the_real_program_and_its_manifests_pass_the_crds(dev_stack, capsys, tmp_path):
    expected = dev_stack  # run_program(ROOT, "dev", NOW), evaluated once per session
    code, out, err = plan(capsys, "--project", str(ROOT), "--stack", "dev", "--json", "--out", str(tmp_path))
    assert code == 0
    assert as_listed(json.loads(out)["resources"]) == registered(expected)
    assert "Kubernetes manifests" in err  # --json keeps stdout for the document
    for path in tmp_path.glob("*.yaml"):
        document = load_yaml(path.read_text())
        if (document["apiVersion"], document["kind"]) in CRD_FILES:
            assert validate(document) == [], path.name


def test_out_writes_one_applicable_manifest_per_kubernetes_object(capsys, small_project, tmp_path):
    out_dir = tmp_path / "k8s"
    out_dir.mkdir()
    (out_dir / "10-configmap-gone.yaml").write_text("# Generated by `prescale plan --out` for stack 'dev'\n")
    (out_dir / "kustomization.yaml").write_text("resources: []\n")  # the user's own file
    code, out, _ = plan(capsys, "--project", str(small_project), "--out", str(out_dir))
    assert code == 0
    assert "Wrote 5 Kubernetes manifests" in out and "(removed 1 stale)" in out and "keda 2.20.2" in out
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "00-namespace-prescale.yaml", "00-priorityclass-prescale-placeholder.yaml", "10-configmap-settings.yaml",
        "10-deployment-prescale.placeholders.yaml", "10-scaledobject-prescale.placeholders.yaml", "README.md",
        "kustomization.yaml"]
    documents = {path.name: load_yaml(path.read_text()) for path in out_dir.glob("??-*.yaml")}
    for document in documents.values():
        assert list(document)[:3] == ["apiVersion", "kind", "metadata"] and document["metadata"]["name"]
    deployment = documents["10-deployment-prescale.placeholders.yaml"]
    assert (deployment["apiVersion"], deployment["kind"]) == ("apps/v1", "Deployment")
    assert "replicas" not in deployment["spec"]  # KEDA's: a GitOps tool applying 0 would fight it
    scaler = documents["10-scaledobject-prescale.placeholders.yaml"]
    assert (scaler["apiVersion"], scaler["metadata"]) == ("keda.sh/v1alpha1", {"name": "placeholders",
                                                                               "namespace": "prescale"})
    assert documents["00-namespace-prescale.yaml"]["apiVersion"] == "v1"
    assert documents["10-configmap-settings.yaml"]["metadata"] == {"name": "settings"}  # auto-named: resource name
    readme = (out_dir / "README.md").read_text()
    assert "| keda | keda | 2.20.2 | https://kedacore.github.io/charts | keda |" in readme
    assert "carry no `replicas`: KEDA owns it" in readme and "docs/gitops.md" in readme


def test_out_beside_a_readme_of_the_directorys_own_lists_the_helm_releases_aside(capsys, small_project, tmp_path):
    (tmp_path / "README.md").write_text("# Our GitOps repository\n")
    code, out, _ = plan(capsys, "--project", str(small_project), "--out", str(tmp_path))
    assert code == 0 and "Helm releases to install first (see README.prescale.md there): keda 2.20.2" in out
    assert (tmp_path / "README.md").read_text() == "# Our GitOps repository\n"
    assert "| keda | keda | 2.20.2 |" in (tmp_path / "README.prescale.md").read_text()
    (tmp_path / "README.md").unlink()  # without it, the README is the generated one again, and the aside goes
    assert plan(capsys, "--project", str(small_project), "--out", str(tmp_path))[0] == 0
    assert "| keda | keda | 2.20.2 |" in (tmp_path / "README.md").read_text()
    assert not (tmp_path / "README.prescale.md").exists()


def test_out_leaves_replicas_to_keda_on_exactly_the_scaled_deployments(dev_stack, capsys, tmp_path):
    """Pulumi creates the placeholders at 0 and then ignores the field; a manifest cannot say "on create only"."""
    evaluation = dev_stack
    assert plan(capsys, "--project", str(ROOT), "--stack", "dev", "--out", str(tmp_path))[0] == 0
    written = {(d["kind"], d["metadata"]["name"]): d
               for d in (load_yaml(path.read_text()) for path in tmp_path.glob("*.yaml"))}
    targets = {d["spec"]["scaleTargetRef"]["name"] for (kind, _), d in written.items() if kind == "ScaledObject"}
    deployments = {name: d for (kind, name), d in written.items() if kind == "Deployment"}
    assert targets == set(deployments) == {"prescale-lunch-rush", "prescale-morning-peak", "prescale-launch-2027"}
    for name, deployment in deployments.items():
        assert "replicas" not in deployment["spec"], name
        registered_spec = plain(next(r for r in evaluation.resources if r.type == "kubernetes:apps/v1:Deployment"
                                     and r.inputs["metadata"]["name"] == name).inputs)["spec"]
        assert registered_spec["replicas"] == 0  # the `pulumi up` path keeps its 0 (+ ignore_changes)
        assert {**deployment["spec"], "replicas": 0} == registered_spec  # nothing else is dropped


def test_out_is_stable_across_runs(capsys, small_project, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for directory in (first, second):
        assert plan(capsys, "--project", str(small_project), "--out", str(directory), "--json")[0] == 0
    assert {p.name: p.read_text() for p in first.iterdir()} == {p.name: p.read_text() for p in second.iterdir()}


def test_invalid_stack_config_prints_every_problem_and_exits_1(capsys, tmp_path):
    broken = DEV_STACK.replace("timezone: Asia/Seoul", "timezone: Asia/Seol", 1).replace("nodes: 5", 'nodes: "5"')
    project = make_project(tmp_path, program=REAL_PROGRAM, stacks={"dev": broken})
    code, out, err = plan(capsys, "--project", str(project))
    assert code == 1 and out == ""
    assert err.startswith("prescale: invalid stack config (2 problems); nothing was registered:")
    assert "prescale:eventWindows[0].timezone: 'Asia/Seol' is not an IANA time zone" in err
    assert "did you mean 'Asia/Seoul'?" in err and "prescale:eventWindows[0].nodes" in err
    assert "Traceback" not in err


def test_stack_file_that_is_not_yaml_gets_one_line_naming_file_line_and_column(capsys, tmp_path):
    broken = DEV_STACK.replace("limits: {cpu: \"512\", memory: 2048Gi}", "limits: {cpu: \"512\", memory: 2048Gi")
    project = make_project(tmp_path, program=REAL_PROGRAM, stacks={"dev": broken})
    code, out, err = plan(capsys, "--project", str(project))
    assert code == 1 and out == ""
    line = 1 + next(n for n, text in enumerate(broken.splitlines()) if "memory: 2048Gi" in text)
    assert err.startswith(f"prescale: {project / 'Pulumi.dev.yaml'}, line {line + 1}, column ")
    assert "not valid YAML: expected ',' or '}'" in err
    assert f"while parsing a flow mapping that starts at line {line}, column 15" in err
    assert err.count("\n") == 1 and "Traceback" not in err and "<unicode string>" not in err


def test_missing_stack_file_names_the_stacks_there(capsys, small_project):
    code, _, err = plan(capsys, "--project", str(small_project), "--stack", "prod")
    assert code == 1
    assert err == f"prescale: no stack file {small_project / 'Pulumi.prod.yaml'}; stacks here: dev\n"


def test_project_is_found_from_a_subdirectory_and_missing_one_is_explained(capsys, small_project, tmp_path,
                                                                            monkeypatch):
    (small_project / "sub" / "dir").mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(small_project / "sub" / "dir")
    assert plan(capsys, "--json")[0] == 0
    monkeypatch.chdir(tmp_path)
    code, _, err = plan(capsys)
    assert code == 1 and "no Pulumi.yaml in" in err and "--project DIR" in err


@pytest.mark.parametrize("make, says", [
    (lambda path: path / "nowhere", "the directory does not exist"),
    (lambda path: path, "no Pulumi.yaml there, so it is not a Pulumi project"),
], ids=["missing", "not-a-project"])
def test_project_that_is_no_pulumi_project_says_so(capsys, tmp_path, make, says):
    directory = make(tmp_path)
    code, _, err = plan(capsys, "--project", str(directory))
    assert (code, err) == (1, f"prescale: --project {directory}: {says}" + err.split(says, 1)[1])
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["plan", "schedule", "status"])
def test_a_bad_prescale_now_is_named_as_such(capsys, monkeypatch, small_project, command):
    monkeypatch.setenv("PRESCALE_NOW", "tomorrow")
    code = main([command, "--project", str(small_project)])
    err = capsys.readouterr().err
    assert code == (2 if command == "status" else 1)
    assert err == ("prescale: $PRESCALE_NOW: 'tomorrow' is not an ISO-8601 date or date-time (e.g. 2027-03-01 or "
                   "2027-03-01T08:00+09:00); it stands for --at when that is not given: fix it, or unset it to use "
                   "the current time\n")


def test_the_program_names_a_bad_prescale_now_too(monkeypatch):
    from prescale.program import evaluation_time
    monkeypatch.setenv("PRESCALE_NOW", "2026-13-01")
    with pytest.raises(pulumi.RunError, match=re.escape("$PRESCALE_NOW: '2026-13-01' is not an ISO-8601 date")):
        evaluation_time()
    monkeypatch.setenv("PRESCALE_NOW", "2026-11-30T12:00")  # without an offset: UTC, as --at reads it
    assert evaluation_time() == datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.mark.parametrize("argv", [["plan", "--bogus"], ["deploy"], [], ["plan", "--at", "tomorrow"]])
def test_bad_usage_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "usage: prescale" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["schedule", "--at", "9999-12-31T23:00Z"], ["schedule", "--from", "0001-01-02"],
                                  ["plan", "--at", "1969-12-31T23:00Z"]])
def test_an_instant_the_schedule_maths_cannot_reach_is_bad_usage_naming_the_years(argv, capsys):
    """Years ahead of 9999-12-31 the next fire of a cron leaves Python's datetimes; before 1970, Unix times."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert f"argument {argv[1]}: '{argv[2]}' is not in a year from 1970 to 9899" in capsys.readouterr().err


def test_a_mistake_after_a_command_shows_that_commands_usage(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["schedule", "--stak", "dev"])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith("usage: prescale schedule [-h]")
    assert err.endswith("prescale schedule: error: unrecognized arguments: --stak dev\n")


def test_a_mistyped_command_is_answered_with_the_usage_of_the_one_meant(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["shedule", "--days", "3"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith("usage: prescale schedule [-h]")
    assert err.endswith("error: 'shedule' is not a command; did you mean 'schedule'?\n")


def test_an_out_that_cannot_be_written_names_the_path_and_the_reason(capsys, small_project, tmp_path):
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "k8s"
    code, _, err = plan(capsys, "--project", str(small_project), "--out", str(target))
    assert code == 1
    assert err == f"prescale: cannot write the manifests to {target}: Not a directory\n"


def test_a_picture_that_cannot_be_written_names_the_path_and_the_reason(capsys, tmp_path):
    target = tmp_path / "missing" / "week.png"
    code = main(["schedule", "--project", str(ROOT), "--at", NOW, "--png", str(target)])
    err = capsys.readouterr().err
    assert code == 1
    assert err == f"prescale: cannot write the picture to {target}: its directory {target.parent} does not exist\n"


def test_a_library_projects_missing_config_is_one_line_without_a_traceback(capsys, tmp_path):
    project = shutil.copytree(ROOT / "examples" / "existing-cluster", tmp_path / "shop")
    stack = project / "Pulumi.dev.yaml"
    stack.write_text("".join(line for line in stack.read_text().splitlines(True) if "clusterName" not in line))
    code, out, err = plan(capsys, "--project", str(project))
    assert code == 1 and out == ""
    assert err == ("prescale: shop-events:clusterName: required config is missing (the program reads it with "
                   f"pulumi.Config.require); set it under `config:` in {stack}\n")


# Valid on its own; at preview the pool's subnets, looked up by their tags (offline: 4,000 free addresses in each of
# three), cannot hold the 1,000 nodes' addresses under the VPC CNI defaults of a cluster prescale creates.
TOO_FEW_ADDRESSES = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: shop}
  prescale:nodePools:
    - {name: event, limits: {cpu: "40000", memory: 160000Gi}, subnetSelectorTerms: [{tags: {tier: private}}]}
  prescale:eventWindows:
    - {name: sale, nodePool: event, timezone: UTC, start: "0 12 * * *", end: "0 13 * * *", nodes: 1000}
"""


def test_a_stack_the_preview_refuses_is_one_line_without_a_traceback(capsys, tmp_path):
    """The address check needs the subnets' answers, so it refuses at preview, inside an Output that the SDK wraps
    twice in its own ValueError; the command says the refusal's own words, as for an invalid config."""
    project = make_project(tmp_path, program=REAL_PROGRAM, stacks={"dev": TOO_FEW_ADDRESSES})
    code, out, err = plan(capsys, "--project", str(project))
    assert code == 1 and out == ""
    assert err.startswith("prescale: node pool 'event': at least 20000 addresses are held from Mon 2026-11-30 "
                          "11:50 UTC")
    assert err.endswith("allowed: fewer nodes at once, or subnets with at least 20000 free addresses "
                        "(docs/capacity.md#addresses)\n")
    assert err.count("\n") == 1 and "While processing" not in err


def test_a_failure_that_no_refusal_led_to_keeps_its_traceback():
    """A refusal is found through the SDK's wrapping, which raises a failed registration from itself; anything else
    is a fault to report, not a message to print."""
    refused = SubnetAddressError("node pool 'event': too few addresses")
    wrapped = ValueError("While processing resource: 'event'")
    try:
        try:
            raise ValueError("While processing input: 'addressesChecked'") from refused
        except ValueError:
            raise wrapped from wrapped  # the SDK's `raise exn from cause`, where both are one exception
    except ValueError as error:
        assert refusal_in(error) is refused
    assert refusal_in(ValueError("a bug")) is None


def test_plan_says_the_programs_warnings_on_stderr_and_keeps_stdout_for_the_plan(capsys, tmp_path):
    stack = DEV_STACK.replace("nodes: 5\n      leadTime: 10m", "nodes: 5\n      leadTime: 1m")
    project = make_project(tmp_path, program=REAL_PROGRAM, stacks={"dev": stack})
    code, out, err = plan(capsys, "--project", str(project), "--json")
    assert code == 0 and json.loads(out)["resources"]
    assert "warning: event window 'lunch-rush': leadTime '1m' is shorter than a node needs to become Ready" in err
    assert err.count("warning: ") == 2  # and the one-off's yearly freeze


def test_help_teaches_with_examples(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["plan", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert "like `pulumi preview`" in text and "--out DIR" in text and "prescale plan --stack dev --json" in text


def test_terminal_output_is_rich_and_piped_output_is_plain():
    terminal, piped = io.StringIO(), io.StringIO()
    Output(terminal, terminal=True).table(["Type", "Name"], [["x[0]", "y"]], title="T")
    Output(piped).table(["Type", "Name"], [["x[0]", "y"]], title="T")
    assert "\x1b[" in terminal.getvalue() and "x[0]" in terminal.getvalue()  # markup-like text kept
    assert piped.getvalue() == "T\nType  Name\nx[0]  y\n\n"


@pytest.mark.slow
def test_readme_opening_command_runs_with_the_installed_script():
    """The README's main job: `.venv/bin/prescale plan --stack dev && .venv/bin/prescale schedule --stack dev`."""
    script = Path(sys.executable).parent / "prescale"
    result = subprocess.run(f"{script} plan --stack dev && {script} schedule --stack dev", shell=True, cwd=ROOT,
                            capture_output=True, text=True, env={**os.environ, "PRESCALE_NOW": NOW}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "pulumi:pulumi:Stack" in result.stdout and "resources would be created" in result.stdout
    assert "Schedule of stack dev: 2026-11-30 12:00 UTC" in result.stdout and "lunch-rush" in result.stdout
    # No noise after a clean run: the SDK's worker-thread event loops are closed at exit, not left to the
    # garbage collector (which printed "Exception ignored in BaseEventLoop.__del__" in about a third of runs).
    assert "Exception ignored" not in result.stderr


def test_the_dev_schedule_fits_a_100_column_terminal_without_splitting_a_word(capsys, monkeypatch):
    args = ["schedule", "--project", str(ROOT), "--at", NOW]
    assert main(args) == 0
    piped = capsys.readouterr().out
    stream = io.StringIO()
    terminal = Output(stream, terminal=True)
    terminal.console.width = 100
    monkeypatch.setattr("prescale_cli.main.Output", lambda _: terminal)
    assert main(args) == 0
    text = re.sub(r"\x1b\[[0-9;]*m", "", stream.getvalue())
    assert max(len(line) for line in text.splitlines()) <= 100
    assert [word for word in piped.split() if word not in text] == []


def test_a_resource_tree_wider_than_the_terminal_keeps_its_branches_on_one_line():
    stream = io.StringIO()
    terminal = Output(stream, terminal=True)
    terminal.console.width = 100
    row = ["│  └─ kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", f"{'w' * 40}-failsafe-binding"]
    terminal.table(["Type", "Name"], [row])
    text = re.sub(r"\x1b\[[0-9;]*m", "", stream.getvalue())
    assert max(len(line) for line in text.splitlines()) <= 100 and row[0] in text
