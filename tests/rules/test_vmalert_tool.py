"""The promtool unit tests of the rules, run by vmalert-tool as well: the same rule files, the
same test files, evaluated by VictoriaMetrics' engine (MetricsQL) and vmalert's rule
evaluation.

vmalert-tool reads promtool's format but for one key (``promql_expr_test`` is
``metricsql_expr_test``); each test file is copied with that key renamed, its rule paths made
absolute and the expected samples rounded to 12 significant digits (promtool's expected
values carry PromQL's float noise, 0.007750000000000001 for 0.00775). The test groups of
EXCEPTIONS cannot be shared; the runbook's section on VictoriaMetrics says why, rule by rule
(test_every_exception_is_in_the_runbook).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.rules.rules_model import RUNBOOK_FILE, UNIT_TEST_FILES, load_yaml
from tests.support.live_stack import TOOLS, require_programs

VMALERT_TOOL = TOOLS / "vmalert-tool"
RUNBOOK_SECTION = "## On VictoriaMetrics (vmalert)"

# (unit test file, test group) -> the rule whose case cannot be shared.
EXCEPTIONS: dict[tuple[str, str], str] = {
    (
        "aborts",
        "10% of an SQL node's transactions aborted for 10 minutes fire NdbTransactionAbortsHigh",
    ): "NdbTransactionAbortsHigh",
    (
        "buffers",
        "A disk page buffer hit ratio of 90% for 15 minutes fires NdbDiskPageBufferHitRatioLow"
        " once",
    ): "NdbDiskPageBufferHitRatioLow",
    (
        "exhaustion-data-memory",
        "DataMemory growing linearly, reported by two SQL nodes, fires"
        " NdbDataMemoryExhaustionPredicted once, 30m after the prediction drops below 24 h",
    ): "NdbDataMemoryExhaustionPredicted",
    (
        "exhaustion-redo-log",
        "redo log growing linearly, reported by two SQL nodes, fires"
        " NdbRedoLogExhaustionPredicted once, 15m after the prediction drops below 4 h",
    ): "NdbRedoLogExhaustionPredicted",
    (
        "exhaustion-undo-log",
        "undo log growing linearly, reported by two SQL nodes, fires"
        " NdbUndoLogExhaustionPredicted once, 15m after the prediction drops below 4 h",
    ): "NdbUndoLogExhaustionPredicted",
    (
        "exhaustion-tablespace",
        "tablespace growing linearly, reported by two SQL nodes, fires"
        " NdbTablespaceExhaustionPredicted once, 30m after the prediction drops below 24 h",
    ): "NdbTablespaceExhaustionPredicted",
    (
        "replication",
        "the replica cluster 151 GCIs behind its source server for 10 minutes fires"
        " NdbReplicationLagHigh",
    ): "NdbReplicationLagHigh",
    (
        "replication",
        "two pairs whose sources are both server_id 1 each get their own lag",
    ): "NdbReplicationLagHigh",
    (
        "mgmd",
        "a backup that fails to start pages too, across an exporter restart",
    ): "NdbBackupFailed",
    (
        "mgmd",
        "the last completion 26 h ago warns, also while the exporter restarts",
    ): "NdbBackupNotCompleted",
    (
        "mgmd",
        "a weekly backup's last completion, read back across an exporter restart, warns past 170 h",
    ): "NdbBackupNotCompleted",
}
# The test groups (all of a file's, or those whose name has the words) of rules that compare
# time() with timestamps the tests give from the epoch: vmalert-tool's series start in 2000.
TIME_BASED = {
    "backup": ("NdbBackupTooOld", ""),
    "resources": ("NdbTlsCertificateExpiring", "certificate expiring"),
}


# vmalert-tool evaluates hours of one-minute steps slowly (2.5 minutes of CPU for the
# exhaustion-*.yml files): of the trends, the redo log's two sawtooths only, one that fires and
# one that does not; the other resources' cases are the same expressions over other series.
TRENDS_KEPT = (
    "a redo log sawtooth whose troughs and peaks rise",
    "redo log a sawtooth from 50% to 85-90% whose troughs do not rise",
)


def _excepted(file: str, group: str) -> bool:
    rule, words = TIME_BASED.get(file, ("", None))
    return (file, group) in EXCEPTIONS or (words is not None and words in group)


def _skipped(file: str, group: str) -> bool:
    trend_left_out = file.startswith("exhaustion-") and not group.startswith(TRENDS_KEPT)
    return trend_left_out or _excepted(file, group)


def _rounded(value: object) -> object:
    return float(f"{float(value):.12g}") if isinstance(value, int | float) else value


def vmalert_tool_copy(source: Path, into: Path) -> Path:
    """``source`` as vmalert-tool reads it, without the test groups of EXCEPTIONS."""
    document = load_yaml(source)
    document["rule_files"] = [
        str((source.parent / path).resolve()) for path in document["rule_files"]
    ]
    kept = []
    for group in document["tests"]:
        if _skipped(source.stem, group["name"]):
            continue
        if "promql_expr_test" in group:
            group["metricsql_expr_test"] = group.pop("promql_expr_test")
            for case in group["metricsql_expr_test"]:
                if case["expr"].startswith("ALERTS"):  # vmalert names the group on ALERTS
                    case["expr"] = f'label_del({case["expr"]}, "alertgroup")'
                for sample in case.get("exp_samples", []):
                    sample["value"] = _rounded(sample["value"])
        kept.append(group)
    document["tests"] = kept
    copy = into / source.name
    copy.write_text(yaml.safe_dump(document, sort_keys=False))
    return copy


SHARED = [
    path
    for path in UNIT_TEST_FILES
    if not all(_skipped(path.stem, group["name"]) for group in load_yaml(path)["tests"])
]


@pytest.mark.integration  # vmalert-tool starts a VictoriaMetrics of its own
def test_vmalert_tool_unit_tests(tmp_path: Path):
    """Every shared file in one run: one start of vmalert-tool's VictoriaMetrics, which costs
    more than the tests; a failure names its file and test group."""
    require_programs(VMALERT_TOOL)
    copies = [vmalert_tool_copy(path, tmp_path) for path in SHARED]
    result = subprocess.run(
        [
            str(VMALERT_TOOL),
            "unittest",
            "--disableAlertgroupLabel",
            *(f"--files={c}" for c in copies),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("Unit Testing:") == len(SHARED), result.stdout


def test_every_exception_names_a_test_group():
    groups = {
        (path.stem, group["name"]) for path in UNIT_TEST_FILES for group in load_yaml(path)["tests"]
    }
    assert set(EXCEPTIONS) <= groups
    for prefix in TRENDS_KEPT:
        assert any(
            name.startswith(prefix) for stem, name in groups if stem == "exhaustion-redo-log"
        )
    for file, (_, words) in TIME_BASED.items():
        assert any(words in name for stem, name in groups if stem == file), file


def test_every_exception_is_in_the_runbook():
    """The runbook's section has a row per rule and test file that vmalert-tool does not run."""
    text = RUNBOOK_FILE.read_text()
    section = text[text.index(RUNBOOK_SECTION) :].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| (Ndb\w+) \| `tests/([\w-]+)\.yml`", section, flags=re.MULTILINE))
    expected = {(rule, file) for (file, _), rule in EXCEPTIONS.items()}
    expected |= {(rule, file) for file, (rule, _) in TIME_BASED.items()}
    assert rows == expected
