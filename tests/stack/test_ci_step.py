"""The set-up scripts' progress: one line per slow step, the output only when it fails."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def step(command: str) -> subprocess.CompletedProcess:
    script = f'. .ci/step; step "a step" {command}'
    return subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True)


def test_a_step_that_works_is_one_line():
    done = step("sh -c 'echo noise; echo more noise >&2'")
    assert done.returncode == 0
    assert done.stdout.startswith("a step ... done (")
    assert done.stdout.count("\n") == 1 and done.stderr == ""


def test_a_step_that_fails_shows_its_output_and_status():
    done = step("sh -c 'echo why it failed >&2; exit 3'")
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert lines[0] == "a step ... failed (exit status 3); its last lines:"
    assert "  why it failed" in lines


@pytest.mark.parametrize("script", [".ci/run", ".ci/system-packages", ".ci/go-tools", ".ci/venv"])
def test_every_slow_command_of_the_set_up_runs_as_a_step(script):
    lines = (ROOT / script).read_text().splitlines()
    slow = ("apt-get ", "go install", 'pip" install', "-m venv")
    for number, line in enumerate(lines):
        if any(word in line for word in slow) and not line.lstrip().startswith("#"):
            statement = lines[number - 1] + line if lines[number - 1].endswith("\\") else line
            assert "step " in statement, f"{script}:{number + 1}: {line.strip()}"
