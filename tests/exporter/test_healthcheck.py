"""The image's health check command against a real exporter with the documented web configs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from ndb_harness import free_port, running_exporter

from tests.support.web_credentials import WEB_PASSWORD, bcrypt_hash, make_cert

pytestmark = pytest.mark.integration
CHECK = [sys.executable, "-m", "ndbinfo_exporter.healthcheck"]
BASIC_AUTH = "basic_auth_users:\n  prometheus: '{hash}'\n"
TLS = "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"


def check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CHECK, *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("tls", [False, True], ids=["basic-auth", "tls-and-basic-auth"])
def test_check_passes_under_the_documented_web_config(tmp_path, tls):
    if tls:
        make_cert(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text((TLS if tls else "") + BASIC_AUTH.format(hash=bcrypt_hash(WEB_PASSWORD)))
    listen = f"127.0.0.1:{free_port()}"
    flags = [f"--web.listen-address={listen}", f"--web.config.file={web}"]
    args = [*flags, "--mysqld.address=127.0.0.1:1", "--mysqld.username=exp"]
    with running_exporter(args) as exporter:
        by_flags = check(*flags)
        assert (by_flags.returncode, by_flags.stderr) == (0, "")
        # As in the image: the flags of the exporter's process (there PID 1).
        by_pid = check("--pid", str(exporter.process.pid))
        assert (by_pid.returncode, by_pid.stderr) == (0, "")
        assert "401" in subprocess.run(
            ["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}",
             f"{'https' if tls else 'http'}://{listen}/healthz"],
            capture_output=True, text=True, timeout=30,
        ).stdout  # fmt: skip
    gone = check(*flags)
    assert gone.returncode == 1
    assert gone.stderr.startswith("healthcheck: http")
    assert gone.stderr.count("\n") == 1


def test_bad_flags_and_a_foreign_process_are_one_line_exit_2():
    bad = check("--web.listen-address=nowhere")
    assert (bad.returncode, bad.stderr.count("\n")) == (2, 1)
    foreign = check("--pid", "1")
    assert foreign.returncode == 2  # PID 1 here is not the exporter
    assert foreign.stderr.count("\n") == 1
