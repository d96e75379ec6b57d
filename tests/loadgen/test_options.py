"""Option handling of ndb-loadgen: bad options are one line and exit 2."""

from __future__ import annotations

import pytest
from ndb_loadgen import cli
from ndb_loadgen.workloads import WORKLOADS


@pytest.mark.parametrize(
    "argv",
    [
        ["--bogus"],
        ["--workload", "pk-read,nope"],
        ["--threads", "0"],
        ["--duration", "-1"],
        ["--count", "x"],
        ["--rate", "-5"],
        ["--mix", "pk-read=2"],
        ["--rate", "10", "--mix", "pk-read=0"],
        ["--rate", "10", "--mix", "pk-read"],
        ["--rate", "10", "--workload", "pk-read", "--mix", "pk-write=1"],
        ["sysbench", "explode"],
    ],
)
def test_bad_options_exit_2_with_one_line(argv, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("ndb-loadgen: ")


def _plan(*argv: str):
    return cli._plan(cli._parser().parse_args(list(argv)))


def test_default_plan_runs_every_workload_for_a_minute_unpaced():
    plan = _plan()
    assert [w.name for w in plan.workloads] == list(WORKLOADS)
    assert (plan.duration, plan.count, plan.rates, plan.threads) == (60.0, None, {}, 1)


def test_mix_splits_the_rate_and_selects_the_workloads():
    plan = _plan("--rate", "100", "--mix", "pk-read=3,pk-write=1")
    assert [w.name for w in plan.workloads] == ["pk-read", "pk-write"]
    assert plan.rates == {"pk-read": 75.0, "pk-write": 25.0}


def test_unlisted_workloads_weigh_one():
    plan = _plan("--rate", "30", "--workload", "pk-read,join,full-scan", "--mix", "join=4")
    assert plan.rates == {"pk-read": 5.0, "join": 20.0, "full-scan": 5.0}


def test_count_alone_runs_until_the_count():
    assert _plan("--count", "5").duration is None
    assert _plan("--count", "5", "--duration", "2").duration == 2.0


def test_sysbench_without_sysbench_is_one_line_with_the_password_masked(capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("NDB_LOADGEN_PASSWORD", "s3cret")
    assert cli.main(["sysbench", "prepare", "--host", "mysqld1"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "sysbench is not installed" in err
    assert "s3cret" not in err and "--mysql-password=***" in err
    assert "--mysql-storage-engine=ndbcluster" in err and err.endswith(" prepare")


@pytest.mark.parametrize("parser", [cli._parser, cli._sysbench_parser])
def test_help_names_every_default(parser):
    options = [a for a in parser()._actions if a.dest != "help"]
    missing = [a.dest for a in options if "default" not in (a.help or "")]
    assert missing == []
