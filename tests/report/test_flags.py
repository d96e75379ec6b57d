"""Bad flags and my.cnf files: one line, exit 2 for report and UNKNOWN (3) for check, no
traceback, no password; and the JSON Schema file is the report model's."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.report import command, schema

from tests.report.report_cli import SCHEMA

SECRET = "flag-test-secret-91x"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--web.listen-address=:1"], "--web.listen-address: not a flag of"),
        (["--interval", "0"], "--interval: must be over 0"),
        (["--config.my-cnf", "/nonexistent/my.cnf"], "/nonexistent/my.cnf"),
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
    assert "'nothing' is neither a finding id nor a family" in capsys.readouterr().out


def test_a_password_in_my_cnf_stays_out_of_the_error(tmp_path, capsys):
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f"[client]\nuser=u\npassword={SECRET}\nport=notaport\n")
    assert command.main("check", ["--config.my-cnf", str(cnf)]) == 3
    out, _ = capsys.readouterr()
    assert out.startswith("NDB UNKNOWN - ") and SECRET not in out


def test_schema_file_is_current():
    assert SCHEMA.read_text() == schema.text(), (
        "docs/report.schema.json is stale: make report-sample"
    )
