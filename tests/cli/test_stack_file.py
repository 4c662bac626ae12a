"""Stack files read the Pulumi CLI's way: keys without a namespace, the old ``ns:config:key`` form, keys the
CLI refuses, ``secure:`` values, and files that are not YAML (one line: file, line, column, what was expected)."""

import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from prescale.model.validation import ConfigError, decode_config, load_stack_config
from prescale.stack_file import StackFileError, read_config_file, read_stack_file

from prescale_cli.stack import load_config
from tests.support.cli import make_project

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WINDOWS = """\
  prescale:nodePools: [{name: event, limits: {cpu: "64", memory: 256Gi}}]
  prescale:eventWindows:
    - {name: lunch, nodePool: event, timezone: Asia/Seoul, start: "15 11 * * *", end: "30 11 * * *", nodes: 3}
"""


def stack_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(text)
    return path


def refusals(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        read_config_file(path)
    return caught.value.problems


def test_a_key_without_namespace_is_the_projects_as_the_cli_reads_it(tmp_path):
    bare = read_config_file(stack_file(tmp_path, f"config:\n  aws:region: ap-northeast-2\n  cluster: {{name: shop}}\n"
                                                 f"{WINDOWS}"))
    assert bare["prescale:cluster"] == '{"name": "shop"}' and "cluster" not in bare
    namespaced = read_config_file(stack_file(tmp_path, "config:\n  aws:region: ap-northeast-2\n  "
                                                       f"prescale:cluster: {{name: shop}}\n{WINDOWS}"))
    assert load_stack_config(decode_config(bare), NOW) == load_stack_config(decode_config(namespaced), NOW)


def test_the_namespace_of_a_bare_key_is_the_project_name_in_pulumi_yaml(tmp_path):
    project = make_project(tmp_path, program="", stacks={"dev": "config:\n  cluster: {name: x}\n"})
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text().replace("name: prescale", "name: shop"))
    assert read_stack_file(project, "dev") == {"shop:cluster": '{"name": "x"}'}  # not read by prescale, as with the CLI


def test_the_old_config_form_and_other_namespaces_pass_through(tmp_path):
    wire = read_config_file(stack_file(tmp_path, "config:\n  prescale:config:keda: {version: 2.20.2}\n"
                                                 "  aws:profile: dev\n  pulumi:tags: {team: web}\n"
                                                 "  aws:secretKey: {secure: v1:abc}\n"))
    assert wire == {"prescale:keda": '{"version": "2.20.2"}', "aws:profile": "dev",
                    "pulumi:tags": '{"team": "web"}', "aws:secretKey": '{"secure": "v1:abc"}'}


def test_keys_the_cli_refuses_are_refused_with_how_to_nest_them(tmp_path):
    (problem,) = refusals(stack_file(tmp_path, "config:\n  prescale:cluster:name: x\n"))
    assert problem.startswith("prescale:cluster:name: not a config key the Pulumi CLI can read")
    assert "<namespace>:<name>, with one ':'" in problem and "nest it: `prescale:cluster:` with `name: ...`" in problem


def test_one_key_written_twice_is_refused(tmp_path):
    (problem,) = refusals(stack_file(tmp_path, "config:\n  cluster: {name: x}\n  prescale:cluster: {name: y}\n"))
    assert problem.startswith("prescale:cluster: given twice, as 'cluster' and 'prescale:cluster'")


def test_secrets_where_prescale_reads_are_refused_by_key_path(tmp_path):
    found = refusals(stack_file(tmp_path, "config:\n  aws:region: {secure: v1:abc}\n"
                                          "  prescale:tags: {team: {secure: v1:def}, env: dev}\n"
                                          "  prescale:cluster: {adminRoleArns: [{secure: v1:ghi}]}\n"))
    assert [problem.split(": ", 1)[0] for problem in found] == \
        ["aws:region", "prescale:tags.team", "prescale:cluster.adminRoleArns[0]"]
    assert all("{secure: ...} is an encrypted secret" in problem and "plain text" in problem for problem in found)


@pytest.mark.parametrize("text, where, expected", [
    ("config:\n  prescale:cluster: {name: x\n", "line 3, column 1",
     "expected ',' or '}', but got '<stream end>' (while parsing a flow mapping that starts at line 2, column 21)"),
    ("config:\n  prescale:cluster: {name: x}\n  prescale:cluster: {name: y}\n", "line 3, column 3",
     'found duplicate key "prescale:cluster"'),
    ("config:\n\tprescale:cluster: {name: x}\n", "line 2, column 1",
     "found character '\\t' that cannot start any token"),
    ("config:\n  aws:region: ap-northeast-2: x\n", "line 2, column 29", "mapping values are not allowed here"),
    ("config:\n  !!binary cHJlc2NhbGU6Y2x1c3Rlcg==: {name: x}\n", "line 2, column 3",
     "a !!binary value: config is text"),  # its bytes were a key that could not be handed over (a TypeError)
])
def test_a_file_that_is_not_yaml_is_named_with_line_column_and_what_was_expected(tmp_path, text, where, expected):
    path = stack_file(tmp_path, text)
    with pytest.raises(StackFileError) as caught:
        read_config_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}, {where}: not valid YAML: ") and expected in message
    assert "\n" not in message and "<unicode string>" not in message


@pytest.mark.parametrize("text, says", [
    ("config:\n  prescale:eventWindows: [{nodePool: !!int event}]\n",
     "not valid YAML: invalid literal for int() with base 10: 'event'"),
    ("config:\n  prescale:eventWindows:\n  ?\n    - name: lunch\n",  # a stray `?`: the list below is a key
     "not valid YAML here: a map or a list as a key, where the Pulumi CLI reads config keys as text"),
])
def test_what_the_yaml_reader_cannot_construct_is_one_line(tmp_path, text, says):
    """Found by fuzzing: the reader's constructors failed with a bare ValueError or TypeError."""
    path = stack_file(tmp_path, text)
    with pytest.raises(StackFileError) as caught:
        read_config_file(path)
    assert str(caught.value) == f"{path}: {says}"


def test_a_stack_file_that_is_a_directory_is_named_as_unreadable(tmp_path):
    path = tmp_path / "Pulumi.test.yaml"
    path.mkdir()
    with pytest.raises(StackFileError) as caught:
        read_config_file(path)
    assert str(caught.value) == f"{path}: cannot be read: Is a directory"


@pytest.mark.parametrize("project", ["runtime: python\n", "- name\n", "", "name: 5\n"])
def test_a_project_file_without_a_name_is_said_not_a_traceback(tmp_path, project):
    project_dir = make_project(tmp_path, program="", stacks={"dev": "config:\n  cluster: {name: x}\n"})
    (project_dir / "Pulumi.yaml").write_text(project)
    with pytest.raises(StackFileError, match=r"Pulumi.yaml: no project `name:` \(text, like `name: prescale`\)"):
        read_stack_file(project_dir, "dev")


@pytest.mark.parametrize("text, what", [("- config\n", "the stack file must be a map"),
                                        ("config: [prescale:cluster]\n", "its config: must be a map")])
def test_a_file_of_the_wrong_shape_says_what_it_must_be(tmp_path, text, what):
    with pytest.raises(StackFileError, match=what):
        read_config_file(stack_file(tmp_path, text))


def test_date_like_values_stay_text_as_the_cli_reads_them(tmp_path):
    wire = read_config_file(stack_file(tmp_path, "config:\n  prescale:eventWindows:\n    - {start: 2027-03-02, "
                                                 "end: 2027-03-02 14:00:00}\n  prescale:launch: 2027-03-02\n"))
    assert wire == {"prescale:eventWindows": '[{"start": "2027-03-02", "end": "2027-03-02 14:00:00"}]',
                    "prescale:launch": "2027-03-02"}


def test_an_empty_file_is_an_empty_config(tmp_path):
    assert read_config_file(stack_file(tmp_path, "")) == {}


def test_config_keys_without_the_config_map_are_named_as_such(tmp_path):
    top_level = "aws:region: ap-northeast-2\nprescale:cluster: {name: shop}\n" + textwrap.dedent(WINDOWS)
    path = stack_file(tmp_path, top_level)
    with pytest.raises(StackFileError) as caught:
        read_config_file(path)
    assert str(caught.value) == (
        f"{path}: aws:region, prescale:cluster, prescale:nodePools ... at the top level, outside `config:`: the "
        "Pulumi CLI reads config keys only inside the `config:` map; put a `config:` line first and indent these "
        "keys below it")


@pytest.mark.parametrize("text, refused", [
    ("config:\n  aws:region: ap-northeast-2\n  prescale:cluster:name: shop\n",
     "prescale:cluster:name: not a config key"),
    ("config:\n  aws:region: ap-northeast-2\n  cluster: {name: shop}\n  prescale:cluster: {name: shop}\n",
     "prescale:cluster: given twice"),
    ("config:\n  aws:region: {secure: v1:abc}\n  prescale:cluster: {name: shop}\n",
     "aws:region: {secure: ...} is an encrypted secret"),
], ids=["colon", "twice", "secret"])
def test_keys_the_cli_refuses_are_reported_with_every_problem_of_the_rest_in_one_run(tmp_path, text, refused):
    windows = WINDOWS.replace("timezone: Asia/Seoul", "timezone: Asia/Seol")
    project = make_project(tmp_path, program="", stacks={"dev": text + windows})
    with pytest.raises(ConfigError) as caught:
        load_config(project, "dev", NOW)
    found = caught.value.problems
    assert len(found) == 2 and found[0].startswith(refused), found
    assert found[1].startswith("prescale:eventWindows[0].timezone: 'Asia/Seol' is not an IANA time zone"), found
