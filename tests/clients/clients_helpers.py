"""Helpers of the client tests: real MySQL clients against ndbsim, default settings.

The drivers come from their registries, pinned, built once into .tools/clients/ by
.ci/client-drivers. Each driver program prints one JSON line per check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / ".tools" / "clients"
VERSIONS = ["7.5.4", "8.4"]
CHECKS = ["connect", "prepared", "nodes", "status", "engine_status"]

TOOLCHAINS = {"go": ["go"], "node": ["node", "npm"], "java": ["java", "javac", "mvn"]}


def build(driver: str) -> None:
    """Build (or find cached) a driver; skip its tests where its toolchain is missing."""
    missing = [cmd for cmd in TOOLCHAINS[driver] if shutil.which(cmd) is None]
    if missing:
        pytest.skip(f"{' '.join(missing)} not installed (.ci/system-packages)")
    subprocess.run([str(ROOT / ".ci" / "client-drivers"), driver], check=True, timeout=900)


def run_checks(args: list[str], **kw) -> dict[str, dict]:
    """Run a driver program; its results by check name."""
    done = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False, **kw)
    results = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            results[item["check"]] = item
    assert results, f"no results (exit {done.returncode}): {done.stderr[-2000:]}"
    return results


def expect(results: dict[str, dict], check: str) -> dict:
    """Assert a check passed (a check that did not run because connecting failed reports the
    connect error)."""
    if check not in results and "connect" in results and not results["connect"]["ok"]:
        item = results["connect"]
    else:
        item = results.get(check)
    assert item is not None, f"{check} did not run: {results}"
    assert item["ok"], f"{check}: {item.get('code')} {item.get('error')}"
    return item
