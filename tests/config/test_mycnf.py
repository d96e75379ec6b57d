"""MySQL option files: [client] and [client.NAME] sections."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.mycnf import ClientSection, load
from ndbinfo_exporter.targets import ProbeRefused, build

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
        ("user=u\npassword=topsecret\n", "my.cnf line 1: option before the first [section]"),
        ("[client]\nuser=u\nport=abc\n", "my.cnf line 3: [client] port must be a number"),
        ("[client]\nuser=u\npasword=topsecret\n", "line 3: unknown option 'pasword'"),
        ("[client]\nuser=u\npass=topsecret\n", "line 3: option 'pass' in [client] is an abbr"),
        ("[client\nuser=u\npassword=topsecret\n", "line 1: section header without ']'"),
        ("[client]\nuser=u\n!include my.cnf\n", "line 3: !include needs an absolute path"),
        ("[client]\n!include\npassword=topsecret\n", "line 2: expected '!include FILE'"),
        ("[client]\n!includex /etc/a.cnf\n", "line 2: expected '!include FILE'"),
        ("[client]\n!include /nonexistent/a.cnf\n", "cannot read /nonexistent/a.cnf"),
        # A password on a line of its own is not quoted back.
        ("[client]\nuser=u\ntopsecret\n", "line 3: unknown option (its text is not shown"),
        ("[client.b]\nuser = u\n  topsecret = 1\n", "unknown option 'topsecret' in [client.b]"),
    ],
)
def test_errors_are_one_line_without_secrets(tmp_path, content, message):
    path = tmp_path / "my.cnf"
    path.write_text(content)
    with pytest.raises(ConfigError) as error:
        load(path)
    assert message in str(error.value)
    if "'topsecret'" not in message:
        assert "topsecret" not in str(error.value)
    assert "\n" not in str(error.value)


def test_unreadable(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "absent.cnf")


def test_an_indented_line_is_an_option_of_its_own(tmp_path):
    """configparser would read "password" as a continuation of "user"; the client does not."""
    path = tmp_path / "my.cnf"
    path.write_text("[client]\nuser = exporter\n    password = s3cret\n\thost = h1\n")
    client = load(path)["client"]
    assert (client.user, client.password, client.host) == ("exporter", "s3cret", "h1")


def test_values_as_the_client_reads_them(tmp_path):
    path = tmp_path / "my.cnf"
    path.write_text(
        "[client]\n"
        'password = "a\\"b#c" # comment\n'
        "user = ex#porter\n"
        "host = 'h 1 '\n"
        "socket = a\\sb\\tc\\qd\n"
        "ssl-ca = 'unclosed\n"
        "[CLIENT ]\n"
        "port = 3307 # last value wins\n"
        "[client]\n"
        "loose-unknown-option = 1\n"
        "loose-probe-targets = a:1, b*:2\n"
        "skip-ssl\n"
    )
    client = load(path)["client"]
    assert client.password == 'a"b#c'
    assert client.user == "ex"
    assert client.host == "h 1 "
    assert client.socket == "a b\tc\\qd"
    assert client.ssl_ca == "'unclosed"
    assert client.port == 3307
    assert client.probe_targets == ("a:1", "b*:2")


def test_include_and_includedir(tmp_path):
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "b.cnf").write_text("[client]\nhost = from-b\n")
    (tmp_path / "conf.d" / "a.cnf").write_text("[client]\nhost = from-a\nport = 3310\n")
    (tmp_path / "conf.d" / "ignored.txt").write_text("[client]\nport = 1\n")
    (tmp_path / "secret.cnf").write_text("[client.site2]\npassword = two\n")
    path = tmp_path / "my.cnf"
    path.write_text(
        f"[client]\nuser = u\n!includedir {tmp_path / 'conf.d'}\n"
        f"!include {tmp_path / 'secret.cnf'}\npassword = one\n"
    )
    sections = load(path)
    assert (sections["client"].host, sections["client"].port) == ("from-b", 3310)
    # After an !include the including file's section goes on.
    assert sections["client"].password == "one"
    assert sections["client.site2"].password == "two"


def test_include_loop_is_refused(tmp_path):
    path = tmp_path / "my.cnf"
    path.write_text(f"[client]\nuser = u\n!include {path}\n")
    with pytest.raises(ConfigError, match="nested more than 10 deep"):
        load(path)


def test_probe_targets_of_a_section(tmp_path):
    path = tmp_path / "my.cnf"
    path.write_text(
        "[client]\nuser = u\nhost = db0\n"
        "[client.site2]\nuser = v\npassword = two\nhost = db1\nloose-probe-targets = db2*:3306\n"
    )
    targets = build(load(path), None, None, None, ())
    assert targets.for_probe("DB1", "Site2").password == "two"
    assert targets.for_probe("db2b:3306", "site2").password == "two"
    for address in ("db0:3306", "db2b:3307"):
        with pytest.raises(ProbeRefused):
            targets.for_probe(address, "site2")


@pytest.mark.parametrize(
    "content",
    [
        "[client]\nuser = u\npasword = topsecret\n",
        "[client\nuser = u\npassword = topsecret\n",
        "[client]\nuser = u\ntopsecret\n",
        "[client]\nuser = u\n!include topsecret.cnf\n",
    ],
)
def test_command_line_error_is_one_line_exit_2(tmp_path, capsys, content):
    from ndbinfo_exporter import cli

    path = tmp_path / "my.cnf"
    path.write_text(content)
    assert cli.main(["--config.my-cnf", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"ndbinfo-exporter: {path} line ")
    assert "topsecret" not in err or "topsecret.cnf" in content
