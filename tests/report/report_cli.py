"""Runs ``ndbinfo-exporter report`` and ``check`` as a user or a monitoring system does: a
process, its output and its exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "docs" / "report.schema.json"


def run(
    *args: str, password: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NDB_EXPORTER_")}
    if password is not None:
        env["NDB_EXPORTER_PASSWORD"] = password
    return subprocess.run(
        [sys.executable, "-m", "ndbinfo_exporter.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def connection(host: str, port: int, user: str) -> list[str]:
    # A generous query timeout: on a loaded machine a timed-out collector is a finding too.
    return [
        f"--mysqld.address={host}:{port}",
        f"--mysqld.username={user}",
        "--exporter.query-timeout=60",
    ]


def of(sim: Any, port: int | None = None) -> list[str]:
    """The flags that point at an ndbsim handle's SQL node (or its replica's, by port)."""
    return connection(sim.host, port or sim.port, sim.user)


def json_report(*args: str, password: str, code: int = 0) -> dict:
    """``report --format json``, validated against docs/report.schema.json; ``code`` is its
    exit status (1: the cluster could not be read)."""
    done = run("report", "--format", "json", *args, password=password)
    assert done.returncode == code, done.stderr
    report = json.loads(done.stdout)
    jsonschema.validate(report, json.loads(SCHEMA.read_text()))
    return report


def problems(report: dict, severity: str | None = None) -> list[dict]:
    return [
        f
        for f in report["findings"]
        if f["status"] == "problem" and severity in (None, f["severity"])
    ]
