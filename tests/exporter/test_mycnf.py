"""MySQL option files: [client] and [client.NAME] sections."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.mycnf import ClientSection, load
from ndbinfo_exporter.targets import build

EXAMPLE = """\
# exporter credentials
[client]
user = exporter
password = "p%ss;word with spaces"
host = sql1.example
port = 3306
ssl-ca = /etc/ssl/ca.pem
ssl_cert = /etc/ssl/client.pem
ssl-key = /etc/ssl/client.key
default-character-set = utf8mb4
skip-ssl

[client.site2]
user = exporter2
password = 'other'
host = sql2.example
port = 3307

[mysqld]
datadir = /var/lib/mysql
"""


def test_sections(tmp_path):
    path = tmp_path / "my.cnf"
    path.write_text(EXAMPLE)
    sections = load(path)
    assert set(sections) == {"client", "client.site2"}
    client = sections["client"]
    assert client == ClientSection(
        user="exporter",
        password="p%ss;word with spaces",
        host="sql1.example",
        port=3306,
        ssl_ca="/etc/ssl/ca.pem",
        ssl_cert="/etc/ssl/client.pem",
        ssl_key="/etc/ssl/client.key",
    )
    assert "p%ss" not in repr(client)
    assert sections["client.site2"].password == "other"
    assert sections["client.site2"].port == 3307


def test_targets_from_sections(tmp_path):
    path = tmp_path / "my.cnf"
    path.write_text(EXAMPLE)
    targets = build(load(path), None, None, None, ())
    assert targets.default.name == "sql1.example:3306"
    assert targets.default.user == "exporter"
    assert targets.default.password == "p%ss;word with spaces"
    assert set(targets.auth_modules) == {"site2"}
    # Flags and the environment override [client].
    overridden = build(load(path), "sql9:3310", "admin", "env-pw", ())
    assert (overridden.default.name, overridden.default.user) == ("sql9:3310", "admin")
    assert overridden.default.password == "env-pw"
    probe = targets.for_probe("sql2.example:3307", "site2")
    assert (probe.user, probe.password, probe.auth_module) == ("exporter2", "other", "site2")


def test_socket(tmp_path):
    path = tmp_path / "my.cnf"
    path.write_text("[client]\nuser=u\nsocket=/run/mysqld/mysqld.sock\n")
    target = build(load(path), None, None, None, ()).default
    assert target.socket == "/run/mysqld/mysqld.sock"
    assert target.name == "/run/mysqld/mysqld.sock"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("user=u\npassword=topsecret\n", "line 1 is outside any [section]"),
        ("[client]\nuser=u\nport=abc\n", "port must be a number"),
    ],
)
def test_errors_are_one_line_without_secrets(tmp_path, content, message):
    path = tmp_path / "my.cnf"
    path.write_text(content)
    with pytest.raises(ConfigError) as error:
        load(path)
    assert message in str(error.value)
    assert "topsecret" not in str(error.value)
    assert "\n" not in str(error.value)


def test_unreadable(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "absent.cnf")
