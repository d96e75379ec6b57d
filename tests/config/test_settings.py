"""Flags, environment and the one-line configuration errors (exit status 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ndbinfo_exporter.cli import main
from ndbinfo_exporter.collectors.base import Option
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.settings import FLAGS, default, default_text, listen_host_port, parse

from tests.support.markdown import table_rows
from tests.support.scraping import gauge_collector

COLLECTORS = [
    gauge_collector("alpha", "SELECT 1"),
    gauge_collector(
        "beta",
        "SELECT 1",
        options=(Option("limit", "how many", 20, int), Option("tables", "which", "", str)),
    ),
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("NDB_EXPORTER_PASSWORD", "MYSQLD_EXPORTER_PASSWORD"):
        monkeypatch.delenv(name, raising=False)


def run_main(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_defaults():
    settings = parse([], COLLECTORS)
    assert settings.listen_address == ":9645"
    assert settings.telemetry_path == "/metrics"
    assert settings.max_connections == 3
    assert settings.scrape_timeout_offset == 0.5
    assert settings.password is None
    assert [c.name for c in settings.enabled(COLLECTORS)] == ["alpha", "beta"]


def test_flags():
    settings = parse(
        [
            "--web.listen-address=127.0.0.1:0",
            "--web.telemetry-path=/m",
            "--mysqld.address=db1:3306",
            "--mysqld.username=exporter",
            "--exporter.query-timeout=2.5",
            "--exporter.max-connections=5",
            "--exporter.scrape-timeout-offset=1",
            "--probe.allowed-targets=db*.example:3306,10.0.0.?:3306",
            "--probe.allowed-targets=other:1",
            "--log.level=debug",
            "--log.format=json",
            "--no-collector.alpha",
            "--collector.beta.limit=7",
        ],
        COLLECTORS,
    )
    assert settings.telemetry_path == "/m"
    assert settings.query_timeout == 2.5
    assert settings.max_connections == 5
    assert settings.probe_allowed_targets == ("db*.example:3306", "10.0.0.?:3306", "other:1")
    assert [c.name for c in settings.enabled(COLLECTORS)] == ["beta"]
    assert settings.options_for(COLLECTORS[1]) == {"limit": 7, "tables": ""}


def test_password_from_environment(monkeypatch):
    monkeypatch.setenv("MYSQLD_EXPORTER_PASSWORD", "from-mysqld-env")
    assert parse([], COLLECTORS).password.get_secret_value() == "from-mysqld-env"
    monkeypatch.setenv("NDB_EXPORTER_PASSWORD", "from-ndb-env")
    settings = parse([], COLLECTORS)
    assert settings.password.get_secret_value() == "from-ndb-env"
    assert "from-ndb-env" not in repr(settings)


def test_other_settings_from_environment(monkeypatch):
    monkeypatch.setenv("NDB_EXPORTER_MAX_CONNECTIONS", "4")
    assert parse([], COLLECTORS).max_connections == 4
    assert parse(["--exporter.max-connections=2"], COLLECTORS).max_connections == 2
    monkeypatch.setenv("NDB_EXPORTER_PROBE_ALLOWED_TARGETS", "db*.example:3306, 10.0.0.1:*")
    assert parse([], COLLECTORS).probe_allowed_targets == ("db*.example:3306", "10.0.0.1:*")
    monkeypatch.setenv("NDB_EXPORTER_LOG_LEVEL", "loud")
    with pytest.raises(ConfigError, match="--log.level"):
        parse([], COLLECTORS)


def test_listen_addresses():
    assert listen_host_port(":9645") == ("0.0.0.0", 9645)
    assert listen_host_port("127.0.0.1:0") == ("127.0.0.1", 0)
    assert listen_host_port("[::1]:9645") == ("::1", 9645)
    for bad in ("9645", "host:", "::1:9645", "h:70000"):
        with pytest.raises(ValueError):
            listen_host_port(bad)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["--exporter.max-connections=abc"], "--exporter.max-connections"),
        (["--exporter.max-connections=0"], "--exporter.max-connections"),
        (["--exporter.query-timeout=-1"], "--exporter.query-timeout"),
        (["--log.level=verbose"], "--log.level"),
        (["--log.format=xml"], "--log.format"),
        (["--web.listen-address=nowhere"], "--web.listen-address"),
        (["--web.telemetry-path=metrics"], "--web.telemetry-path"),
        (["--web.telemetry-path=/probe"], "--web.telemetry-path"),
        (["--collector.beta.limit=lots"], "--collector.beta.limit"),
        (["--collector.gamma"], "unrecognized arguments"),
        (["--mysqld.address"], "expected one argument"),
    ],
)
def test_bad_flags_are_one_line(argv, expected):
    with pytest.raises(ConfigError) as error:
        parse(argv, COLLECTORS)
    assert expected in str(error.value)
    assert "\n" not in str(error.value)


def test_cli_config_errors_exit_2(capsys, tmp_path):
    cases = [
        ["--exporter.max-connections=abc"],
        ["--config.my-cnf", str(tmp_path / "missing.cnf")],
        ["--mysqld.address=db:3306"],  # no user anywhere
        ["--mysqld.username=u", "--mysqld.address=db:99999"],
        ["--mysqld.username=u", "--web.config.file", str(tmp_path / "missing.yml")],
        ["--mysqld.username=u", "--mgmd.event-log", str(tmp_path / "no-such-dir" / "e.jsonl")],
    ]
    for argv in cases:
        code, err = run_main(capsys, *argv)
        assert code == 2, argv
        assert err.startswith("ndbinfo-exporter: "), err
        assert len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err


@pytest.mark.integration
def test_cli_subprocess_error_has_no_traceback(tmp_path):
    cnf = tmp_path / "my.cnf"
    cnf.write_text("password=hunter2-secret\n")  # no section header
    process = subprocess.run(
        [sys.executable, "-m", "ndbinfo_exporter.cli", "--config.my-cnf", str(cnf)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 2
    assert process.stdout == ""
    assert len(process.stderr.strip().splitlines()) == 1
    assert "hunter2-secret" not in process.stderr
    assert "line 1" in process.stderr


def test_help_lists_collector_flags(capsys):
    with pytest.raises(SystemExit) as exit_:
        parse(["--help"], COLLECTORS)
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "--collector.alpha" in out
    assert "--collector.beta.limit" in out


ENVIRONMENT = {
    "listen_address": (":9999", ":9999"),
    "telemetry_path": ("/m", "/m"),
    "web_config_file": ("/etc/web.yml", "/etc/web.yml"),
    "my_cnf": ("/etc/my.cnf", "/etc/my.cnf"),
    "mysqld_address": ("db:3307", "db:3307"),
    "mysqld_username": ("exp", "exp"),
    "query_timeout": ("3", 3.0),
    "max_connections": ("4", 4),
    "scrape_timeout_offset": ("1", 1.0),
    "probe_allowed_targets": ("a:1,b:*", ("a:1", "b:*")),
    "mgmd_address": ("m1:1186,m2", ("m1:1186", "m2")),
    "mgmd_event_log": ("/var/log/ndb.jsonl", "/var/log/ndb.jsonl"),
    "log_level": ("debug", "debug"),
    "log_format": ("json", "json"),
    "view_alerts_url": ("http://prom:9090", "http://prom:9090"),
    "refresh_max_age": ("60", 60.0),
    "scrape_reuse_age": ("10", 10.0),
}


def test_help_shows_defaults_no_collector_and_every_environment_variable(capsys, monkeypatch):
    with pytest.raises(SystemExit):
        parse(["--help"], COLLECTORS)
    out = capsys.readouterr().out
    assert "(default ())" not in out and "(default )" not in out
    assert "--collector.beta.tables VALUE" in out and "which (default none)" in out
    assert "--no-collector.NAME" in out
    assert set(ENVIRONMENT) == set(FLAGS)
    for field, (text, expected) in ENVIRONMENT.items():
        variable = f"NDB_EXPORTER_{field.upper()}"
        assert variable in out
        monkeypatch.setenv(variable, text)
        value = getattr(parse([], COLLECTORS), field)
        assert (str(value) if field.endswith(("_file", "my_cnf")) else value) == expected, field
        monkeypatch.delenv(variable)


def test_help_defaults_are_the_declared_ones(capsys):
    with pytest.raises(SystemExit):
        parse(["--help"], COLLECTORS)
    out = " ".join(capsys.readouterr().out.split())
    assert default("refresh_max_age") == 120.0 and "at every scrape (default 120)" in out
    assert "(default :9645)" in out and "(default 0.5)" in out
    for name, flag in FLAGS.items():
        assert f"{flag.name} {flag.metavar} " in out
        assert f"(default {default_text(name)})" in out, name


def test_docs_flag_table_follows_the_declarations():
    """docs/exporter.md lists every flag with its environment variable and default."""
    docs = Path(__file__).parents[2] / "docs" / "exporter.md"
    rows = {
        cells[0]: cells[1:3] for cells in table_rows(docs.read_text()) if cells[0].startswith("`--")
    }
    for name, flag in FLAGS.items():
        environment, shown = rows[f"`{flag.name}`"]
        assert environment == f"`NDB_EXPORTER_{name.upper()}`", flag.name
        if flag.shown is None:  # a default in words is written for the table
            text = default_text(name)
            assert shown == ("none" if text == "none" else f"`{text}`"), flag.name


def test_no_collector_turns_a_collector_off():
    assert parse(["--no-collector.alpha"], COLLECTORS).collectors == {"alpha": False}
