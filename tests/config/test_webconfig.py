"""exporter-toolkit web configuration: parsing, and TLS + basic auth on a running exporter."""

from __future__ import annotations

import ssl
import subprocess

import httpx
import pytest
from ndb_harness import running_exporter
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.webconfig import load

from tests.support.web_credentials import WEB_PASSWORD, bcrypt_hash, make_cert

MYSQL_PASSWORD = "mysql-pw-Q7-never-shown"


@pytest.mark.integration
async def test_load_relative_paths_and_users(tmp_path):
    make_cert(tmp_path)
    path = tmp_path / "web.yml"
    path.write_text(
        "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"
        f"basic_auth_users:\n  prometheus: '{bcrypt_hash(WEB_PASSWORD)}'\n"
    )
    config = load(path)
    assert config.tls.cert_file == str(tmp_path / "cert.pem")
    auth = config.basic_auth
    import base64

    good = "Basic " + base64.b64encode(f"prometheus:{WEB_PASSWORD}".encode()).decode()
    bad = "Basic " + base64.b64encode(b"prometheus:wrong").decode()
    unknown = "Basic " + base64.b64encode(f"nobody:{WEB_PASSWORD}".encode()).decode()
    client = "127.0.0.1"
    assert await auth.verify(good, client) and await auth.verify(good, client)
    assert not await auth.verify(bad, client)
    assert not await auth.verify(unknown, client)
    assert not await auth.verify(None, client)
    assert not await auth.verify("Bearer abc", client)
    assert not await auth.verify("Basic !!!", client)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("tls_server_config:\n  cert_file: nope.pem\n  key_file: nope.key\n", "does not exist"),
        ("tls_server_config:\n  cert_file: x.pem\n", "key_file"),
        ("basic_auth_users:\n  prometheus: plaintext\n", "is not a bcrypt hash"),
        ("http_server_config:\n  http2: true\n", "unsupported key http_server_config"),
        ("tls_server_config: [\n", "cannot parse"),
    ],
)
def test_bad_web_configs(tmp_path, content, message):
    path = tmp_path / "web.yml"
    path.write_text(content)
    with pytest.raises(ConfigError) as error:
        load(path)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_bad_certificate(tmp_path):
    (tmp_path / "cert.pem").write_text("not a certificate\n")
    (tmp_path / "key.pem").write_text("not a key\n")
    path = tmp_path / "web.yml"
    path.write_text("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n")
    with pytest.raises(ConfigError, match="cannot load the TLS certificate"):
        load(path)


@pytest.mark.integration
def test_tls_and_basic_auth_on_a_running_exporter(tmp_path):
    cert, _ = make_cert(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text(
        "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"
        f"basic_auth_users:\n  prometheus: '{bcrypt_hash(WEB_PASSWORD)}'\n"
    )
    args = ["--web.config.file", str(web), "--mysqld.address=127.0.0.1:1", "--mysqld.username=exp"]
    with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": MYSQL_PASSWORD}) as exporter:
        url = f"https://{exporter.address}"

        def curl(*extra: str) -> tuple[str, str]:
            done = subprocess.run(
                ["curl", "-s", "-w", "\n%{http_code}", "--cacert", str(cert), *extra],
                capture_output=True,
                text=True,
                timeout=30,
            )
            body, _, status = done.stdout.rpartition("\n")
            return status, body

        status, body = curl("-u", f"prometheus:{WEB_PASSWORD}", f"{url}/metrics")
        assert status == "200"
        assert "ndb_up 0.0" in body
        assert curl("-u", "prometheus:wrong", f"{url}/metrics")[0] == "401"
        assert curl(f"{url}/metrics")[0] == "401"
        assert curl(f"{url}/healthz")[0] == "401"

        with httpx.Client(verify=ssl.create_default_context(cafile=str(cert))) as client:
            unauthorised = client.get(f"{url}/metrics")
            assert unauthorised.status_code == 401
            assert unauthorised.headers["www-authenticate"].startswith("Basic")
            authorised = client.get(f"{url}/healthz", auth=("prometheus", WEB_PASSWORD))
            assert authorised.text == "ok\n"
        # Plain HTTP is not served on the TLS port.
        plain = subprocess.run(
            ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", f"http://{exporter.address}/"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert plain.stdout != "200"
    assert MYSQL_PASSWORD not in exporter.log
    assert WEB_PASSWORD not in exporter.log
