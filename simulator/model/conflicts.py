"""Conflict detection where NDB replication applies changes, as the applier of an
active-active pair counts it.

The replica cluster of ndbsim --replica is the primary (ndb_applier_conflict_role PRIMARY): its
applier finds the source's changes in conflict with its own (ha_ndbcluster.cc
handle_conflict_op_error, handle_row_conflict), counts them per function, writes them to the
exceptions tables and refreshes the rows, logging refresh operations (and, for the NDB$EPOCH2
functions, the secondary's own operations reflected back) in its own epochs. With
--active-active the source cluster's applier is the secondary (SECONDARY): it finds no conflict
and counts the refresh and reflected operations it applies (prepare_conflict_detection).

Either applier, as each epoch transaction commits (ndb_applier.cc atTransactionCommit ->
ndb_replica.cc Channel::update_global_state): a transaction with conflicts, or with refresh or
applied reflected operations, makes its commit epoch the last conflict epoch; any other, once
the max replicated epoch (this cluster's own epoch come back round the circle) has reached the
last conflict epoch, makes that max replicated epoch the last stable one. The pair has
converged when the primary's last stable epoch reaches its last conflict epoch.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field

PRIMARY, SECONDARY = "PRIMARY", "SECONDARY"
CONFLICTS_PER_SECOND = 3.0  # rows in conflict a second of the source's epochs (`conflicts`)
# conflicts of the *_TRANS functions: conflicting rows per rejected transaction, and the rows
# such a transaction and those depending on it realign
ROWS_IN_CONFLICT_PER_TRANSACTION = 1.5
ROWS_REJECTED_PER_TRANSACTION = 4.0
# of the rows in conflict, those both clusters deleted (handle_row_conflict: a DELETE finding
# no row, Ndb_conflict_epoch_delete_delete_count; no refresh, an exceptions row all the same)
DELETE_DELETE_SHARE = 0.1


@dataclass
class Realignment:
    """What the primary's applier logged in one of its epochs for the secondary: refresh
    operations for the rows it handled in conflict, and the secondary's operations reflected
    back (NDB$EPOCH2 functions)."""

    epoch: int
    refresh: float
    reflected: float


@dataclass
class ApplierConflicts:
    """The conflict counters and epochs of one replica cluster's applier."""

    role: str
    rows: dict[str, float] = field(default_factory=dict)  # function -> rows in conflict
    conflict_epochs: int = 0  # epoch transactions committed with a conflict
    delete_delete: float = 0.0
    refresh_ops: float = 0.0  # secondary: refresh operations applied
    reflected_ops: float = 0.0  # secondary: reflected operations prepared
    last_conflict_epoch: int = 0
    last_stable_epoch: int = 0
    max_rep_epoch: int = 0
    # primary: what it logged for the secondary, oldest first, until the secondary applied it
    realignments: list[Realignment] = field(default_factory=list)

    def detect(self, function: str, rows: float, committed: int, epoch: int) -> bool:
        """The primary's applier commits `committed` epoch transactions holding `rows` more
        rows in conflict under `function`, in its cluster's `epoch`; whether a whole row was
        found."""
        before = self.rows.get(function, 0.0)
        self.rows[function] = before + rows
        found = whole(before + rows) - whole(before)
        if not found:
            return False
        # epoch transactions with a conflict: at most one per row in conflict
        self.conflict_epochs += min(committed, found)
        self.delete_delete += found * DELETE_DELETE_SHARE
        refreshed = found * (1 - DELETE_DELETE_SHARE)
        if function.endswith("_TRANS"):
            refreshed = found / ROWS_IN_CONFLICT_PER_TRANSACTION * ROWS_REJECTED_PER_TRANSACTION
        reflected = refreshed if function.startswith("NDB$EPOCH2") else 0.0
        self.realignments.append(Realignment(epoch, refreshed, reflected))
        return True

    def apply_realignments(self, primary: ApplierConflicts, after: int, upto: int) -> bool:
        """The secondary's applier applies the primary's epochs after `after` up to `upto`:
        the refresh and reflected operations logged in them; whether there were any."""
        logged = [r for r in primary.realignments if after < r.epoch <= upto]
        primary.realignments = [r for r in primary.realignments if r.epoch > upto]
        for r in logged:
            self.refresh_ops += r.refresh
            self.reflected_ops += r.reflected
        return bool(logged)

    def commit(self, epoch: int, max_rep_epoch: int, conflicted: bool) -> None:
        """Channel::update_global_state as an epoch transaction commits in `epoch`."""
        self.max_rep_epoch = max(self.max_rep_epoch, max_rep_epoch)
        if conflicted:
            self.last_conflict_epoch = epoch
        elif self.max_rep_epoch >= self.last_conflict_epoch:
            self.last_stable_epoch = self.max_rep_epoch

    @property
    def counted(self) -> bool:
        """Whether conflict handling counted anything (the Ndb_conflict_* counters show)."""
        return bool(self.rows) or self.refresh_ops > 0 or self.reflected_ops > 0

    def whole_rows(self) -> dict[str, int]:
        """Function -> whole rows in conflict."""
        return {function: whole(rows) for function, rows in self.rows.items()}

    def status_values(self) -> dict[str, int]:
        """Ndb_conflict_* of the applying SQL node: one Ndb_conflict_fn_* per function (rows in
        conflict); the Ndb_conflict_trans_* counters for the transactional functions (*_TRANS):
        the rows in conflict belong to fewer rejected transactions, whose rows (and those of
        the transactions depending on them) are all realigned; each epoch transaction with a
        conflict commits after one dependency-tracking pass (ndb_applier.cc
        atConflictPreCommit counts trans_detect_iter_count there; update_global_state counts
        the commit)."""
        by_function = self.whole_rows()
        values = {
            "Ndb_conflict_fn_" + function.removeprefix("NDB$").lower(): count
            for function, count in by_function.items()
        }
        trans_rows = sum(n for function, n in by_function.items() if function.endswith("_TRANS"))
        if trans_rows:
            rejected = trans_rows / ROWS_IN_CONFLICT_PER_TRANSACTION
            epochs = min(self.conflict_epochs, int(rejected))
            values.update(
                {
                    "Ndb_conflict_trans_row_conflict_count": trans_rows,
                    "Ndb_conflict_trans_row_reject_count": realigned(trans_rows),
                    "Ndb_conflict_trans_reject_count": int(rejected),
                    "Ndb_conflict_trans_detect_iter_count": epochs,
                    "Ndb_conflict_trans_conflict_commit_count": epochs,
                }
            )
        if whole(self.delete_delete):
            values["Ndb_conflict_epoch_delete_delete_count"] = whole(self.delete_delete)
        if self.refresh_ops:
            values["Ndb_conflict_refresh_op_count"] = whole(self.refresh_ops)
        if self.reflected_ops:
            values["Ndb_conflict_reflected_op_prepare_count"] = whole(self.reflected_ops)
        if self.counted or self.max_rep_epoch:
            values["Ndb_conflict_last_conflict_epoch"] = self.last_conflict_epoch
            values["Ndb_conflict_last_stable_epoch"] = self.last_stable_epoch
        return values

    def rows_handled(self) -> int:
        """Rows the primary's applier handled in conflict and logged to the exceptions tables:
        the rows in conflict of the row functions, and every row the transactional functions
        realign (handle_row_conflict: ROW_IN_CONFLICT and TRANS_IN_CONFLICT)."""
        by_function = self.whole_rows()
        rows = sum(n for f, n in by_function.items() if not f.endswith("_TRANS"))
        trans_rows = sum(n for f, n in by_function.items() if f.endswith("_TRANS"))
        return rows + realigned(trans_rows)


@dataclass
class ReturnedEpochs:
    """The source cluster's epochs as the replica's applier applied them: (the replica's epoch
    when it applied them, the newest source epoch applied), oldest first. The replica logs
    each apply in its own epoch (ndb_log_apply_status), so when the source applies the
    replica's epochs up to some epoch, its own epoch come back round is the newest recorded
    at or before it (ndb_applier.cc atApplyStatusWrite: an ndb_apply_status row of one of
    its own server ids raises the max replicated epoch)."""

    applies: list[tuple[int, int]] = field(default_factory=list)

    def record(self, replica_epoch: int, source_epoch: int) -> None:
        if not self.applies or source_epoch > self.applies[-1][1]:
            self.applies.append((replica_epoch, source_epoch))

    def back_at(self, replica_epoch: int) -> int:
        """The newest source epoch the replica had applied by its `replica_epoch` (0: none);
        the records before it are no longer needed."""
        i = bisect_right(self.applies, replica_epoch, key=lambda a: a[0])
        if i == 0:
            return 0
        del self.applies[: i - 1]
        return self.applies[0][1]


def realigned(trans_rows: int) -> int:
    """Rows the rejected transactions of `trans_rows` rows in conflict realign."""
    return int(trans_rows / ROWS_IN_CONFLICT_PER_TRANSACTION * ROWS_REJECTED_PER_TRANSACTION)


def whole(rows: float) -> int:
    """Whole rows of a count summed from fractions of a second (0.1 s epochs add up to
    29.999... for 30)."""
    return math.floor(rows + 1e-6)
