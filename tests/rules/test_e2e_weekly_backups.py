"""Weekly backups on a compressed clock: the backup alerts with the runbook's weekly threshold
(`> 170` hours instead of `> 26`, docs/runbook.md#ndbbackupnotcompleted) still fire when the
last completed backup is that old and the exporter restarted since, so that the completion is
held only by Prometheus' history (the look-back of `last_over_time`), not by the exporter.

ndbsim runs SPEED times faster than wall time with its scheduled backups stopped after one
completed; the exporter behind the scrape front is replaced by a new one (a restart: its
`ndb_mgmd_backup_last_completed_*` series end), and the rules, compressed to the same clock,
must make NdbBackupNotCompleted true past 170 cluster hours and not before, with
NdbBackupTooOld quiet beside it (a completion is reported)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.rules.matrix_stack import newest_build
from tests.support.compressed_clock import alert_expressions, compress_rules
from tests.support.live_stack import (
    RULE_FILES,
    prometheus_of_build,
    serving,
    shared_scrape_handler,
    wait_until,
)

CLUSTER = "weekly"
SPEED = 7200  # two cluster hours a wall second
SCRAPE_INTERVAL = "1s"
CLUSTER_HOUR = 3600 / SPEED
DAILY_HOURS, WEEKLY_HOURS = 26, 170
BACKUP_ALERTS = ("NdbBackupNotCompleted", "NdbBackupTooOld")
SIM_ARGS = ("--data-nodes", "2", "--tables", "4", "--ops-per-second", "50")
COMPLETED = "ndb_mgmd_backup_last_completed_timestamp_seconds"
MARGIN_SECONDS = 60.0


def weekly_rules(rule_files: tuple[Path, ...], into: Path) -> tuple[Path, ...]:
    """Copies of `rule_files` with the backup alerts' threshold changed as the runbook says for
    a weekly backup."""
    into.mkdir(parents=True, exist_ok=True)
    copies = []
    for path in rule_files:
        document = yaml.safe_load(path.read_text())
        for rule in (r for g in document["groups"] for r in g["rules"]):
            if rule.get("alert") in BACKUP_ALERTS:
                weekly = re.sub(rf"> {DAILY_HOURS}\b", f"> {WEEKLY_HOURS}", rule["expr"])
                assert weekly != rule["expr"], f"{rule['alert']}: no '> {DAILY_HOURS}' to change"
                rule["expr"] = weekly
        copy = into / path.name
        copy.write_text(yaml.safe_dump(document, sort_keys=False))
        copies.append(copy)
    return tuple(copies)


def test_weekly_rules_change_only_the_backup_thresholds(tmp_path):
    copies = weekly_rules(RULE_FILES, tmp_path)
    for alert in BACKUP_ALERTS:
        (expr,) = alert_expressions(copies)[alert]
        assert f"> {WEEKLY_HOURS}" in expr and f"> {DAILY_HOURS}" not in expr
    assert (
        alert_expressions(copies)["NdbDataNodeDown"]
        == alert_expressions(RULE_FILES)["NdbDataNodeDown"]
    )


def _exporter_args(mgm_port: int) -> list[str]:
    disabled = [f"--no-collector.{c.name}" for c in all_collectors() if c.name != "backup"]
    return [*disabled, f"--mgmd.address=127.0.0.1:{mgm_port}"]


@pytest.mark.integration
@pytest.mark.long(minutes=3)
def test_weekly_backup_age_fires_after_an_exporter_restart(tmp_path):
    rules = compress_rules(weekly_rules(RULE_FILES, tmp_path / "weekly"), SPEED, tmp_path / "rules")
    not_completed = alert_expressions(rules)["NdbBackupNotCompleted"]
    too_old = alert_expressions(rules)["NdbBackupTooOld"]
    build = newest_build()
    with running_ndbsim(*SIM_ARGS, speed=SPEED) as sim:
        args = _exporter_args(sim.mgm_port)
        first = running_exporter(args, mysqld=sim.account(), log_dir=tmp_path, name="first")
        with first as exporter:
            front = shared_scrape_handler(exporter.address, 0.9)
            with (
                serving(front) as address,
                prometheus_of_build(
                    {address: {"cluster": CLUSTER}},
                    tmp_path / build.name,
                    SCRAPE_INTERVAL,
                    build,
                    rules,
                ) as prometheus,
            ):
                wait_until(lambda: prometheus.query(COMPLETED), 60.0, "a completed backup")
                sim.fault("backups-stopped")
                stopped = sim.status()["cluster_time"]
                exporter.stop()
                second = running_exporter(
                    args, mysqld=sim.account(), log_dir=tmp_path, name="second"
                )
                with second as restarted:
                    front.exporter = restarted.address
                    _assert_fires_past_the_weekly_threshold(
                        sim, prometheus, stopped, not_completed, too_old
                    )


def _assert_fires_past_the_weekly_threshold(sim, prometheus, stopped, not_completed, too_old):
    """Quiet while the last completion is younger than the weekly threshold; true past it
    (the last backup completed at most a backup interval before the fault), with the
    backups-started alert silenced by the completion Prometheus still holds."""

    def hours_since_fault() -> float:
        return (sim.status()["cluster_time"] - stopped) / 3600

    def true(exprs: list[str]) -> bool:
        return any(prometheus.query(e) for e in exprs)

    wait_until(lambda: hours_since_fault() > 100, 100 * CLUSTER_HOUR + MARGIN_SECONDS, "100 h")
    assert not true(not_completed) and not true(too_old)
    assert prometheus.query(f"max_over_time({COMPLETED}[10s])") == []  # the restart ended it
    wait_until(
        lambda: true(not_completed),
        (WEEKLY_HOURS - 100 + 8) * CLUSTER_HOUR + MARGIN_SECONDS,
        f"NdbBackupNotCompleted past {WEEKLY_HOURS} h",
    )
    assert hours_since_fault() >= WEEKLY_HOURS - 8
    assert not true(too_old)
