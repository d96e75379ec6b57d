"""Renders the Helm chart with helm and validates it with kubeconform (both from `make tools`)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

from tests.charts.kube_schemas import KUBERNETES, KUBERNETES_VERSION, LOCATION
from tests.charts.kube_schemas import build as build_schemas

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "ndbinfo-exporter"
EXAMPLES = sorted((CHART / "examples").glob("*.yaml"))
# Every optional part of the chart turned on at once.
EVERYTHING = Path(__file__).with_name("values-everything.yaml")
RELEASE, NAMESPACE = "ndb", "monitoring"


def tool(name: str) -> str:
    path = ROOT / ".tools" / "bin" / name
    if not path.exists():
        pytest.fail(f"{path} not found: run `make tools`")
    return str(path)


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )


@cache
def template(
    values: Path | None = None, chart: Path = CHART, kube_version: str | None = KUBERNETES_VERSION
) -> str:
    """`helm template` of the chart with one values file (None: the defaults), for one
    Kubernetes version (None: Helm's default capabilities)."""
    args = ["template", RELEASE, str(chart), "--namespace", NAMESPACE]
    if kube_version is not None:
        args += ["--kube-version", kube_version]
    if values is not None:
        args += ["--values", str(values)]
    result = run(tool("helm"), *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def objects(values: Path | None = None) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(template(values)) if doc]


def of_kind(docs: list[dict], kind: str) -> list[dict]:
    return [doc for doc in docs if doc["kind"] == kind]


def kubeconform(manifests: str, kubernetes: tuple[str, str] = KUBERNETES) -> dict:
    """kubeconform -strict's JSON summary of the manifests, on the schemas of one Kubernetes
    release built offline."""
    schemas = build_schemas(kubernetes_module=kubernetes)
    result = run(
        tool("kubeconform"),
        "-strict",
        "-summary",
        "-output",
        "json",
        "-kubernetes-version",
        kubernetes[1].removeprefix("v"),
        "-schema-location",
        f"{schemas}/{LOCATION}",
        "-",
        stdin=manifests,
    )
    report = json.loads(result.stdout)
    assert result.returncode == 0, json.dumps(report["resources"], indent=1) + result.stderr
    return report["summary"]


def sync_module():
    """charts/sync.py, which is a script and not in a package."""
    spec = importlib.util.spec_from_file_location("chart_sync", ROOT / "charts" / "sync.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
