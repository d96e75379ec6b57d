"""The exporter installs alone: its wheel, in a fresh venv without extras, carries none of
ndbsim's, the harness's, the load generator's or the dashboard builder's dependencies, and
scrapes a SQL node."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter import __version__

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]
NOT_IN_THE_EXPORTER = (
    "duckdb",
    "sqlglot",
    "mysql_mimic",
    "ndbsim",
    "ndb_loadgen",
    "ndb_dashboards",
    "ndb_harness",
)


def _run(*args: str | Path) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def lean_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv holding the exporter's wheel and its dependencies only."""
    work = tmp_path_factory.mktemp("lean")
    pip = [sys.executable, "-m", "pip"]
    _run(*pip, "wheel", "--quiet", "--no-deps", "--wheel-dir", work / "wheels", ROOT)
    (wheel,) = (work / "wheels").glob("ndbinfo_exporter-*.whl")
    _run(sys.executable, "-m", "venv", work / "venv")
    python = work / "venv" / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel)
    return python


def test_the_wheel_has_no_simulator_dependencies(lean_python: Path) -> None:
    probe = "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m)))"
    present = _run(lean_python, "-c", probe, *NOT_IN_THE_EXPORTER).split()
    assert present == []
    installed = _run(lean_python, "-m", "pip", "list", "--format=freeze").lower()
    assert "ndbinfo-exporter==" in installed


def test_the_lean_exporter_runs_and_scrapes(lean_python: Path) -> None:
    version = _run(lean_python.parent / "ndbinfo-exporter", "--version")
    assert __version__ in version
    with running_ndbsim() as sim:
        args = [f"--mysqld.address=127.0.0.1:{sim.port}", f"--mysqld.username={sim.user}"]
        with running_exporter(
            args, env={"NDB_EXPORTER_PASSWORD": sim.password}, python=str(lean_python)
        ) as exporter:
            body = httpx.get(f"http://{exporter.address}/metrics", timeout=30).text
    assert "ndb_up 1.0" in body.splitlines()
    assert 'ndb_exporter_collector_success{collector="nodes"} 1.0' in body.splitlines()
