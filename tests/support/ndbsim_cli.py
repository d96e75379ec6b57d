"""The `ndbsim` command line run as a process."""

from __future__ import annotations

import subprocess
import sys


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ndbsim", *args], capture_output=True, text=True, timeout=60, env=env
    )
