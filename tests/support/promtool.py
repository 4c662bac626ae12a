"""Where the alert tests find ``promtool`` (Debian package ``prometheus``): on a newcomer's machine without it they
skip with the install hint, so the README's first command passes; in CI (``CI=true``, as CI services set it and
``.ci/run`` does, after installing it) a missing promtool fails instead, so the rules are never left untested."""

from __future__ import annotations

import os
import shutil

import pytest

INSTALL_HINT = "promtool is missing: `apt-get install -y prometheus` (Debian) installs /usr/bin/promtool"


def promtool() -> str:
    """The path of ``promtool``; else a skip, or under ``CI=true`` a failure, saying how to install it."""
    found = shutil.which("promtool")
    if found:
        return found
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{INSTALL_HINT} (CI=true: CI must run the alert rules' tests)")
    pytest.skip(INSTALL_HINT)
