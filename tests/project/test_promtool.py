"""The alert tests without promtool: a skip with the install hint on a newcomer's machine, a failure in CI."""

import pytest

from tests.support.promtool import INSTALL_HINT, promtool


@pytest.fixture
def no_promtool(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no promtool on it


def test_without_promtool_the_alert_tests_skip_with_the_install_hint(no_promtool, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y prometheus"):
        promtool()


def test_in_ci_a_missing_promtool_fails_instead(no_promtool, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the alert rules' tests") as failed:
        promtool()
    assert INSTALL_HINT in str(failed.value)


def test_promtool_is_found_on_the_path(monkeypatch, tmp_path):
    tool = tmp_path / "promtool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert promtool() == str(tool)
