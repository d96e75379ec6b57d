"""Bad flags, ranges and my.cnf files: one line, exit 2 for report and UNKNOWN (3) for check,
no traceback, no password; the standard options; and the JSON Schema file is the report
model's. Nothing here starts a process: a closed port is refused at once."""

from __future__ import annotations

import asyncio
import json
import socket

import jsonschema
import pytest
from ndbinfo_exporter import __version__
from ndbinfo_exporter.report import command, nagios, schema

from tests.report.report_cli import SCHEMA
from tests.support.app_server import serving_app
from tests.support.planted_alerts import alert, prometheus_with_alerts

SECRET = "flag-test-secret-91x"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--web.listen-address=:1"], "--web.listen-address: not a flag of"),
        (["--interval", "0"], "--interval: must be over 0"),
        (["--interval", "20", "-t", "5"], "--interval 20 does not fit in --timeout 5"),
        (["-t", "soon"], "'soon' is not a number of seconds"),
        (["-P", "70000"], "'70000' is not a TCP port"),
        (["-H", "[]"], "empty host name"),
        (["--unreachable-state", "ok"], "invalid choice: 'ok'"),
        (["--config.my-cnf", "/nonexistent/my.cnf"], "/nonexistent/my.cnf"),
        (["-w", "data_memory"], "'data_memory' is not NAME=RANGE"),
        (["-w", "memory=80"], "no threshold named 'memory'"),
        (["-c", "redo=80:70"], "the start of a range is above its end"),
        (["-c", "redo=@"], "'@' is not a threshold range"),
        (["-w", "lag=1e999"], "a range's ends are finite numbers"),
        (["-w", "lcp_age=ten"], "'ten' is not a threshold range"),
    ],
)
def test_a_bad_flag_is_one_line(capsys, monkeypatch, args, message):
    monkeypatch.setenv("NDB_EXPORTER_PASSWORD", SECRET)
    assert command.main("report", [*args, "--mysqld.username=u"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err
    assert command.main("check", [*args, "--mysqld.username=u"]) == 3
    out, err = capsys.readouterr()
    assert out.startswith("NDB UNKNOWN - ") and out.count("\n") == 1 and message in out
    assert SECRET not in out + err and "Traceback" not in out + err


def test_a_bad_selection_is_unknown(capsys):
    assert command.main("check", ["--only", "nothing", "--mysqld.username=u"]) == 3
    assert "'nothing' is neither a check id nor a family" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content",
    [
        "[client]\nuser=u\npassword={secret}\nport=notaport\n",
        "[client\nuser=u\npassword={secret}\n",
        "\x00\xff binary {secret}",
    ],
)
def test_a_malformed_my_cnf_is_one_line(tmp_path, capsys, content):
    cnf = tmp_path / "my.cnf"
    cnf.write_bytes(content.format(secret=SECRET).encode("latin-1"))
    assert command.main("check", ["--config.my-cnf", str(cnf)]) == 3
    out, err = capsys.readouterr()
    assert out.startswith("NDB UNKNOWN - ") and out.count("\n") == 1
    assert SECRET not in out + err and "Traceback" not in out + err


def test_version_and_help_name_every_option(capsys):
    with pytest.raises(SystemExit):
        command.main("check", ["-V"])
    assert capsys.readouterr().out.startswith("ndbinfo-exporter ")
    with pytest.raises(SystemExit):
        command.main("check", ["-h"])
    usage = capsys.readouterr().out
    for option in ("-H", "-P", "-t", "-w", "-c", "-v", "-V", "--unreachable-state", "--only"):
        assert f"{option}," in usage or f"{option} " in usage
    for name in ("data_memory", "redo", "send_buffer", "tablespace", "lag", "lcp_age"):
        assert name in usage


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "[::1]"])
def test_a_closed_port_takes_the_unreachable_state(capsys, monkeypatch, host):
    monkeypatch.setenv("NDB_EXPORTER_PASSWORD", SECRET)
    port = str(_closed_port())
    flags = ["-H", host, "-P", port, "--mysqld.username=u", "-t", "5"]
    assert command.main("check", flags) == 3
    out = capsys.readouterr().out
    shown = host if host.startswith("[") or ":" not in host else f"[{host}]"
    assert out.startswith(f"NDB UNKNOWN - SQL node {shown}:{port} cannot be reached")
    assert command.main("check", [*flags, "--unreachable-state", "critical"]) == 2
    assert capsys.readouterr().out.startswith("NDB CRITICAL - SQL node")


def test_schema_file_is_current():
    assert SCHEMA.read_text() == schema.text(), (
        "docs/report.schema.json is stale: make report-sample"
    )


def test_a_json_report_of_a_closed_port_is_valid_and_fails(capsys):
    port = str(_closed_port())
    flags = ["--format", "json", "-H", "127.0.0.1", "-P", port, "--mysqld.username=u"]
    assert command.main("report", flags) == 1
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, json.loads(SCHEMA.read_text()))
    assert (report["status"], report["exit_code"], report["reachable"]) == ("UNKNOWN", 3, False)
    assert report["command"].startswith("ndbinfo-exporter report --format json")
    assert report["exporter_version"] == __version__


def test_a_run_out_of_time_still_weighs_the_alerts_read(monkeypatch):
    """-t running out before the cluster is read: UNKNOWN naming the stage, beside the alerts
    read meanwhile, which say worse."""

    async def stalled(scraper, target, checks, interval, stage, placement, managers, alerts):
        alerts.start()
        stage.now = "the SQL node to read ndbinfo"
        await asyncio.sleep(60)

    monkeypatch.setattr(command, "read", stalled)
    planted = prometheus_with_alerts([alert("NdbDataNodeDown", node_id="2")])
    with serving_app(planted) as url:
        flags = ["-t", "2", f"--alerts-url={url}/", "--mysqld.username=u"]
        verdict = command.reading_of(command.configure("check", flags))
    assert verdict.code == nagios.CRITICAL
    assert verdict.text.startswith("timed out after 2 s waiting for the SQL node to read")
    assert verdict.text.endswith("NdbDataNodeDown: NdbDataNodeDown fires")
