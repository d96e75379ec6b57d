"""The replication card: a replica's channels with their applier workers and the GCIs it
applied per source server_id, a binlog server's injector. Read from the families of the
replica_status, applier_workers, apply_status and binlog collectors, and the conflict handling
of its replica applier from the status and conflict_exceptions collectors; a SQL node with
none of them is not replicating."""

from __future__ import annotations

from ndbinfo_exporter.health.models import (
    AppliedGci,
    ApplierWorker,
    BinlogInjector,
    ConflictHandling,
    ReplicaChannel,
    Replication,
)
from ndbinfo_exporter.health.samples import Samples, whole

IO_THREAD = "ndb_replica_io_thread_state"
SQL_THREAD = "ndb_replica_sql_thread_state"
# ReplicaChannel field -> the sample of replica_status or applier_workers with its value.
CHANNEL_NUMBERS = {
    "last_io_error_number": "ndb_replica_last_io_error_number",
    "last_sql_error_number": "ndb_replica_last_sql_error_number",
    "seconds_behind_source": "ndb_replica_seconds_behind_source",
    "source_server_id": "ndb_replica_source_server_id",
    "relay_log_space_bytes": "ndb_replica_relay_log_space_bytes",
    "transaction_retries": "ndb_replica_transaction_retries_total",
}
WORKER_STATE = "ndb_replica_applier_worker_state"
WORKER_ERROR = "ndb_replica_applier_worker_last_error_number"
APPLIED = "ndb_replica_applied_gci"
# BinlogInjector field -> the gauge of the binlog collector with its value.
INJECTOR_GCIS = {
    "buffered_gci": "ndb_binlog_buffered_gci",
    "received_gci": "ndb_binlog_received_gci",
    "handled_gci": "ndb_binlog_handled_gci",
    "written_gci": "ndb_binlog_written_gci",
}

# ConflictHandling field -> the sample of the status collector with its value.
CONFLICT_COUNTS = {
    "transactions_rejected": "ndb_sql_conflict_transactions_rejected_total",
    "refresh_operations": "ndb_sql_conflict_refresh_operations_total",
}
LAST_CONFLICT = "ndb_sql_conflict_last_conflict_epoch"
LAST_STABLE = "ndb_sql_conflict_last_stable_epoch"
ROWS_IN_CONFLICT = "ndb_sql_conflicts_total"
MAX_REPLICATED = "ndb_sql_replica_max_replicated_epoch"
EXCEPTIONS = "ndb_conflict_exceptions_rows"


def _channel(labels: dict[str, str]) -> str:
    return labels.get("channel", "")  # the default channel '' carries no label


def _states(samples: Samples, name: str) -> dict[str, str]:
    return {_channel(labels): labels["state"] for labels, value in samples.select(name) if value}


def _worker(labels: dict[str, str]) -> tuple[str, int]:
    return _channel(labels), int(labels["worker"])


def workers(samples: Samples) -> dict[str, list[ApplierWorker]]:
    """The applier workers of each channel, by worker id."""
    states = {_worker(labels): labels["state"] for labels, on in samples.select(WORKER_STATE) if on}
    errors = {_worker(labels): value for labels, value in samples.select(WORKER_ERROR)}
    found: dict[str, list[ApplierWorker]] = {}
    for key in sorted(set(states) | set(errors)):
        found.setdefault(key[0], []).append(
            ApplierWorker(worker=key[1], state=states.get(key), last_error_number=errors.get(key))
        )
    return found


def channels(samples: Samples) -> list[ReplicaChannel]:
    io, sql = _states(samples, IO_THREAD), _states(samples, SQL_THREAD)
    numbers = {
        field: {_channel(labels): value for labels, value in samples.select(name)}
        for field, name in CHANNEL_NUMBERS.items()
    }
    applier = workers(samples)
    names = (
        set(io) | set(sql) | set(applier) | {name for values in numbers.values() for name in values}
    )
    return [
        ReplicaChannel(
            channel=name,
            io_thread=io.get(name),
            sql_thread=sql.get(name),
            workers=applier.get(name, []),
            **{field: values.get(name) for field, values in numbers.items()},
        )
        for name in sorted(names)
    ]


def binlog_injector(samples: Samples, committed_gci: int | None) -> BinlogInjector | None:
    """The injector's GCIs, None on a SQL node that writes no binary log (no binlog row)."""
    found = {field: samples.select(name) for field, name in INJECTOR_GCIS.items()}
    if not any(rows for field, rows in found.items() if field != "buffered_gci"):
        return None  # every SQL node buffers epochs; only a binlog server has the others
    gcis = {field: int(rows[0][1]) if rows else None for field, rows in found.items()}
    # '' while the SQL node's @@server_id is not known yet
    server_id = next((rows[0][0].get("server_id") for rows in found.values() if rows), "")
    handled, buffered, received = gcis["handled_gci"], gcis["buffered_gci"], gcis["received_gci"]
    return BinlogInjector(
        server_id=int(server_id) if server_id else None,
        committed_gci=committed_gci,
        injector_lag_gcis=committed_gci - handled
        if committed_gci is not None and handled is not None
        else None,
        event_buffer_gcis=buffered - received
        if buffered is not None and received is not None
        else None,
        **gcis,
    )


def conflicts(samples: Samples) -> ConflictHandling | None:
    """The applier's conflict handling, None while every value is 0 (no conflict found, no
    epoch came back round). Converged only means something where epochs come back round an
    active-active pair (Ndb_replica_max_replicated_epoch > 0)."""
    last_conflict, last_stable = samples.gci(LAST_CONFLICT), samples.gci(LAST_STABLE)
    counts = {field: whole(samples.value(name)) for field, name in CONFLICT_COUNTS.items()}
    rows = {f: int(n) for f, n in samples.by(ROWS_IN_CONFLICT, "function").items() if n}
    exceptions = whole(samples.total(EXCEPTIONS))
    if not any((last_conflict, last_stable, rows, exceptions, *counts.values())):
        return None
    circular = (samples.value(MAX_REPLICATED) or 0) > 0
    # whole epochs, as update_global_state compares them: two in one GCI differ
    conflict_epoch, stable_epoch = samples.value(LAST_CONFLICT), samples.value(LAST_STABLE)
    return ConflictHandling(
        last_conflict_gci=last_conflict,
        last_stable_gci=last_stable,
        converged=stable_epoch >= conflict_epoch
        if circular and conflict_epoch is not None and stable_epoch is not None
        else None,
        rows_in_conflict=rows,
        exceptions_rows=exceptions,
        **counts,
    )


def replication(samples: Samples, committed_gci: int | None) -> Replication:
    """``committed_gci``: the cluster's newest committed GCI as this SQL node sees it."""
    found = channels(samples)
    applied = [
        AppliedGci(server_id=int(server_id), applied_gci=int(gci))
        for server_id, gci in samples.by(APPLIED, "server_id").items()
    ]
    applied.sort(key=lambda row: row.server_id)
    injector = binlog_injector(samples, committed_gci)
    handling = conflicts(samples)
    return Replication(
        replicating=bool(found or applied or injector or handling),
        channels=found,
        applied=applied,
        binlog=injector,
        conflicts=handling,
    )
