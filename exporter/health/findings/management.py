"""What the management server says (scrape/mgmd, when --mgmd.address names one): the last
backup's outcome and age, and whether the management servers answer. Without a management
server there is nothing to judge: each check passes saying so (NO_MANAGEMENT_SERVER)."""

from __future__ import annotations

import time

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.models import Evidence, Finding
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState

NO_MANAGEMENT_SERVER = "No management server is read (--mgmd.address): nothing to judge."
GUIDE = "Backups and the management server (outside the tuning guide): docs/mgmd.md"


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


def backup_age_hours(state: ManagementState, now: float) -> float | None:
    """Hours since the last completed backup the exporter saw; None when it saw none."""
    backup = state.last_backup
    return None if backup is None else max(0.0, now - backup.end_time) / 3600


def backup_failed(check: Check, inputs: Inputs) -> Finding:
    """The cluster log's latest backup outcome is an abort or a failure to start."""
    state = inputs.management
    if state is None:
        return check.finding("ok", NO_MANAGEMENT_SERVER)
    failed_at, backup = state.last_backup_failure, state.last_backup
    evidence = [
        Evidence(label="aborted", value=str(state.backups_aborted)),
        Evidence(label="failed to start", value=str(state.backups_failed_to_start)),
    ]
    if failed_at is None or (backup is not None and backup.end_time >= failed_at):
        return check.finding(
            "ok", "No backup aborted or failed to start since the last one completed.", evidence
        )
    evidence.append(Evidence(label="last failure", value=_when(failed_at)))
    return check.finding(
        "problem",
        f"A backup aborted or failed to start at {_when(failed_at)} and none completed since:"
        " the cluster has no new restorable backup.",
        evidence,
    )


def backup_not_completed(check: Check, inputs: Inputs) -> Finding:
    """No backup completed within BACKUP_AGE_HOURS, as NdbBackupNotCompleted judges it."""
    state = inputs.management
    if state is None:
        return check.finding("ok", NO_MANAGEMENT_SERVER)
    now, limit = time.time(), thresholds.BACKUP_AGE_HOURS
    age = backup_age_hours(state, now)
    if age is not None:
        backup = state.last_backup
        assert backup is not None
        evidence = [
            Evidence(label="backup id", value=str(backup.backup_id)),
            Evidence(label="completed", value=_when(backup.end_time)),
            Evidence(label="age", value=f"{age:.1f} h"),
        ]
        if age > limit:
            return check.finding(
                "problem", f"The last backup completed {age:.1f} h ago (over {limit} h).", evidence
            )
        return check.finding("ok", f"The last backup completed {age:.1f} h ago.", evidence)
    listened = 0.0 if state.listening_since is None else (now - state.listening_since) / 3600
    if listened > limit:
        return check.finding(
            "problem",
            f"No backup completed in the {listened:.1f} h the exporter has read the cluster log.",
        )
    return check.finding(
        "unknown",
        f"No backup completed in the {listened:.1f} h the cluster log has been read: too short"
        f" to tell whether one completed within {limit} h.",
    )


def mgmd_unreachable(check: Check, inputs: Inputs) -> Finding:
    """A management server that did not answer get status."""
    state = inputs.management
    if state is None:
        return check.finding("ok", NO_MANAGEMENT_SERVER)
    if state.read_at is None:
        return check.finding("unknown", "The management servers have not been asked yet.")
    evidence = [
        Evidence(label=a, value="answers" if up else "no answer") for a, up in state.answered
    ]
    silent = [a for a, up in state.answered if not up]
    if not silent:
        return check.finding("ok", "Every management server answers get status.", evidence)
    return check.finding(
        "problem",
        f"Management server {', '.join(silent)} does not answer get status: nodes cannot fetch"
        " their configuration from it, and its cluster log and node statuses are not read.",
        evidence,
    )


BACKUP_FAILED = Check(
    id="backup_failed",
    title="Backup aborted or failed to start",
    severity="critical",
    promql=(
        "max without (instance, job) (increase(ndb_mgmd_backups_aborted_total[1h])"
        " + increase(ndb_mgmd_backups_failed_to_start_total[1h])) > 0"
    ),
    sql="ndb_mgm -e 'SHOW'; the cluster log (ndb_<id>_cluster.log): Backup ... aborted",
    guide=GUIDE,
    advice=(
        "Find the error code in the cluster log (ndb_perror <code>): backup buffers or memory "
        "(1342..1349), a full BackupDataDir (1325), a data node failing during the backup "
        "(1326), another backup running (1302). Remove the cause and run "
        "ndb_mgm -e 'START BACKUP WAIT COMPLETED' (runbook: NdbBackupFailed)."
    ),
    family="backup",
    reads=(),
    evaluate=backup_failed,
)
BACKUP_NOT_COMPLETED = Check(
    id="backup_not_completed",
    title="No backup completed recently",
    severity="warning",
    promql=(
        "(time() - max without (instance, job) (last_over_time("
        f"ndb_mgmd_backup_last_completed_timestamp_seconds[1w]))) / 3600 > {thresholds.BACKUP_AGE_HOURS}"
    ),
    sql="ndb_mgm -e 'ALL REPORT BackupStatus'; the cluster log: Backup ... completed",
    guide=GUIDE,
    advice=(
        "Run ndb_mgm -e 'START BACKUP WAIT COMPLETED' and repair the scheduler, or what makes "
        "backups abort (runbook: NdbBackupNotCompleted)."
    ),
    family="backup",
    reads=(),
    evaluate=backup_not_completed,
)
MGMD_UNREACHABLE = Check(
    id="mgmd_unreachable",
    title="Management server unreachable",
    severity="warning",
    promql="max without (instance, job) (ndb_mgmd_up) == 0",
    sql="ndb_mgm -c <host>:1186 -e 'SHOW'",
    guide=GUIDE,
    advice=(
        "Start ndb_mgmd on that host, or open TCP port 1186 from the exporter to it "
        "(runbook: NdbMgmdUnreachable)."
    ),
    family="availability",
    reads=(),
    evaluate=mgmd_unreachable,
)
