"""Regenerate :mod:`prescale.model.checks.chart_keys` from the charts prescale installs (``tests/charts/``).

Neither the Karpenter nor the KEDA chart ships a ``values.schema.json``, so Helm silently ignores a values key the
chart does not know. A key is known when the chart's ``values.yaml`` declares it or a template reads it
(``.Values.a.b``, ``$.Values.a.b``); a path that templates read but never read below (``nodeSelector``,
``resources``: handed to ``toYaml`` whole) takes any content, which is Kubernetes' to check. Lists are leaves for
the same reason. After replacing a chart in ``tests/charts/`` (see SOURCE.md there), ``python -m tools.regenerate
--write`` rewrites the module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

# A chart's keys: each key → the keys below it, or None where any content is accepted (as in the module written).
KeyTree = Mapping[str, "KeyTree | None"]
CHARTS = Path(__file__).resolve().parents[1] / "tests" / "charts"
# The charts whose values a user may give (`prescale:<chart>.values`), by the constant names the module gets.
CHART_CONSTANTS = {"karpenter": "KARPENTER", "keda": "KEDA"}
_VALUES_READ = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
_WIDTH = 116


def chart_keys(chart: Path) -> KeyTree:
    """The key tree of the chart in folder ``chart``: every known key, ``None`` where any content is accepted."""
    declared = set(_paths(yaml.load((chart / "values.yaml").read_text(), Loader=yaml.CSafeLoader) or {}))
    read = {tuple(match[1:].split(".")) for template in (chart / "templates").rglob("*") if template.is_file()
            for match in _VALUES_READ.findall(template.read_text())}
    extended = {path[:length] for path in read for length in range(1, len(path))}
    tree: dict[str, Any] = {}
    for path in sorted(declared | read):
        node = tree
        for key in path:
            node = node.setdefault(key, {})
    for path in read - extended:  # read whole: whatever the values hold below is handed on as it is
        *parents, last = path
        node = tree
        for key in parents:
            node = node[key]
        node[last] = None
    return tree


def chart_version(chart: Path) -> str:
    version: str = yaml.load((chart / "Chart.yaml").read_text(), Loader=yaml.CSafeLoader)["version"]
    return version


def render_module(charts: Path = CHARTS) -> str:
    """The Python source of :mod:`prescale.model.checks.chart_keys` for the charts in folder ``charts``."""
    versions = ", ".join(f"{name} {chart_version(charts / name)}" for name in CHART_CONSTANTS)
    lines = ['"""The values keys of the charts prescale installs, which `prescale:<chart>.values` keys must be.',
             "",
             "Every key path the chart's values.yaml declares or its templates read; ``None`` marks a path templates",
             "read whole (``nodeSelector``, ``resources``...), which takes any content. From the charts in",
             f"tests/charts/ ({versions}). Written by :mod:`tools.chart_keys_gen`: do not edit, regenerate.",
             '"""',
             "",
             "from collections.abc import Mapping",
             "from typing import TypeAlias",
             "",
             'KeyTree: TypeAlias = Mapping[str, "KeyTree | None"]',
             ""]
    for name, constant in CHART_CONSTANTS.items():
        lines += ["", f"{constant}_CHART_VERSION = {chart_version(charts / name)!r}",
                  f"{constant}_KEYS: KeyTree = {_literal(chart_keys(charts / name), len(constant) + 15)}"]
    return "\n".join(lines) + "\n"


def _literal(tree: KeyTree | None, column: int, indent: str = "") -> str:
    """``tree`` as a Python literal: on one line where it fits from ``column``, else one key per line."""
    flat = repr(_plain(tree))
    if tree is None or column + len(flat) <= _WIDTH:
        return flat
    inner = indent + "    "
    entries = [f"{inner}{key!r}: {_literal(tree[key], len(inner) + len(repr(key)) + 2, inner)}," for key in tree]
    return "{\n" + "\n".join(entries) + f"\n{indent}}}"


def _plain(tree: KeyTree | None) -> Any:
    return None if tree is None else {key: _plain(value) for key, value in tree.items()}


def _paths(tree: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key path of a nested map (a path to a map too), keys kept whole even when they hold dots."""
    for key, value in tree.items():
        path = (*prefix, str(key))
        yield path
        if isinstance(value, Mapping):
            yield from _paths(value, path)

