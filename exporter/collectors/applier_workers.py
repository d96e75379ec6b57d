"""The replica applier of this SQL node, per channel and worker:
performance_schema.replication_applier_status_by_worker (a row per worker, WORKER_ID from 1:
replica_parallel_workers of them, which NDB uses from 8.0.33; before, one row with WORKER_ID 0
for the SQL thread applying alone) joined to replication_applier_status (a row per channel,
COUNT_TRANSACTIONS_RETRIES: the transactions the applier retried after a temporary error).

Both tables exist from mysqld 5.7 (NDB 7.5) with the columns read here. A SQL node that is no
replica has no row in them, and no series. A mysqld without the tables (ER_NO_SUCH_TABLE,
1146) exports nothing instead of failing."""

from __future__ import annotations

from collections.abc import Iterable

from .base import (
    NO_SUCH_TABLE,
    Collector,
    Context,
    Row,
    add_states,
    add_value,
    counter,
    gauge,
    ident,
    number,
    text,
)

# replica_parallel_workers is at most 1024: the rows of one channel at most
MAX_ROWS = 1024
STATES = ("on", "off")
BY_WORKER = "performance_schema.replication_applier_status_by_worker"
APPLIER = "performance_schema.replication_applier_status"

WORKER_STATE = gauge(
    "ndb_replica_applier_worker_state",
    "1 for the current service state of the channel's applier worker, 0 for the other: on or"
    " off (replication_applier_status_by_worker SERVICE_STATE; worker 0 is the SQL thread"
    " applying without workers).",
    ("channel", "worker", "state"),
)
WORKER_ERROR = gauge(
    "ndb_replica_applier_worker_last_error_number",
    "MySQL error number of the last error of the channel's applier worker, 0 for none"
    " (replication_applier_status_by_worker LAST_ERROR_NUMBER; it stays after the worker"
    " stopped on it).",
    ("channel", "worker"),
)
RETRIES = counter(
    "ndb_replica_transaction_retries_total",
    "Transactions the channel's applier retried after a temporary error, since the replica"
    " started (replication_applier_status COUNT_TRANSACTIONS_RETRIES).",
    ("channel",),
)

SQL = (
    "SELECT w.CHANNEL_NAME, w.WORKER_ID, w.SERVICE_STATE, w.LAST_ERROR_NUMBER,"
    " a.COUNT_TRANSACTIONS_RETRIES"
    f" FROM {BY_WORKER} w JOIN {APPLIER} a ON a.CHANNEL_NAME = w.CHANNEL_NAME"
    f" ORDER BY w.CHANNEL_NAME, w.WORKER_ID LIMIT {MAX_ROWS}"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    if not rows:
        return
    state, error, retries = WORKER_STATE.family(), WORKER_ERROR.family(), RETRIES.family()
    counted: set[str] = set()
    for row in rows:
        channel = text(row["CHANNEL_NAME"])
        worker = [channel, ident(row["WORKER_ID"])]
        add_states(state, worker, text(row["SERVICE_STATE"]).lower(), STATES)
        add_value(error, worker, number(row["LAST_ERROR_NUMBER"]))
        if channel not in counted:  # the channel's count, on each of its workers' rows
            counted.add(channel)
            add_value(retries, [channel], number(row["COUNT_TRANSACTIONS_RETRIES"]))
    yield state
    yield error
    yield retries


COLLECTOR = Collector(
    name="applier_workers",
    help="The replica applier's workers per channel: each worker's service state and last"
    " error number, and the channel's transaction retries"
    " (performance_schema.replication_applier_status_by_worker and"
    " replication_applier_status). On by default: a row per worker (replica_parallel_workers"
    " of them from NDB 8.0.33, one for the SQL thread before), none on a SQL node that is no"
    " replica; needs SELECT on those two performance_schema tables.",
    default_enabled=True,
    reads={},
    server_reads={
        BY_WORKER: ("CHANNEL_NAME", "WORKER_ID", "SERVICE_STATE", "LAST_ERROR_NUMBER"),
        APPLIER: ("CHANNEL_NAME", "COUNT_TRANSACTIONS_RETRIES"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(WORKER_STATE, WORKER_ERROR, RETRIES),
    absent_errors=NO_SUCH_TABLE,
)
