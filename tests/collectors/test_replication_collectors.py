"""The replication collectors' own rules: the statement each mysqld version names, epochs as
GCIs without float rounding, the binlog row's text, the applier's retries once per channel, an
empty or missing ndb_binlog_index, and when they run."""

from __future__ import annotations

from decimal import Decimal

import pytest
from mysql.connector import errors
from ndbinfo_exporter.collectors import (
    applier_workers,
    apply_status,
    binlog,
    binlog_index,
    replica_status,
)
from ndbinfo_exporter.collectors._epochs import gci, micro_gcp
from ndbinfo_exporter.collectors.base import BadValue, Context, TargetInfo, collect_rows
from ndbinfo_exporter.scrape.scraper import collector_rows
from ndbsim.engine import infoschema
from ndbsim.protocol import replies
from ndbsim.versions import SUPPORTED, parse_version

REPLICATION = (
    replica_status.COLLECTOR,
    applier_workers.COLLECTOR,
    apply_status.COLLECTOR,
    binlog.COLLECTOR,
    binlog_index.COLLECTOR,
)
SERVER_TABLES = (applier_workers.COLLECTOR, binlog_index.COLLECTOR)
VERSIONS = [parse_version(name) for name in SUPPORTED]


def target(version: str, ndb_version=(8, 4, 3), **kwargs) -> TargetInfo:
    return TargetInfo(version=version, ndb_version=ndb_version, objects=frozenset(), **kwargs)


@pytest.mark.parametrize(
    ("version", "statement"),
    [
        ("5.7.16-ndb-7.5.4-cluster-gpl", "SHOW SLAVE STATUS"),
        ("5.7.44-ndb-7.6.34-cluster-gpl", "SHOW SLAVE STATUS"),
        ("8.0.21-cluster", "SHOW SLAVE STATUS"),
        ("8.0.22-cluster", "SHOW REPLICA STATUS"),
        ("8.4.3-cluster", "SHOW REPLICA STATUS"),
        ("9.7.0-cluster", "SHOW REPLICA STATUS"),
    ],
)
def test_replica_status_names_the_statement_of_the_mysqld_version(version, statement):
    assert replica_status.COLLECTOR.statement(target(version)) == statement


def test_the_other_collectors_have_one_statement():
    for collector in (c for c in REPLICATION if c is not replica_status.COLLECTOR):
        assert collector.statement(target("5.7.16-ndb-7.5.4-cluster-gpl")) == collector.sql
    assert apply_status.SQL.endswith("LIMIT 64")
    assert applier_workers.SQL.endswith("LIMIT 1024")


def test_gci_and_micro_gcp_split_the_integer_epoch():
    top = (1 << 64) - 1  # as a float it rounds up to 2^64, whose GCI would be 2^32
    assert gci(top) == micro_gcp(top) == 4294967295.0
    assert gci(str(top)) == gci(Decimal(top)) == gci(str(top).encode()) == 4294967295.0
    assert micro_gcp(str(top)) == micro_gcp(Decimal(top)) == 4294967295.0
    assert (gci((7003 << 32) | 5), micro_gcp((7003 << 32) | 5)) == (7003.0, 5.0)
    assert gci(None) is None and micro_gcp(None) is None
    for part in (gci, micro_gcp):
        with pytest.raises(BadValue):
            part("12.5")


def test_binlog_status_text_becomes_pairs():
    pairs = binlog.status_pairs(
        "latest_epoch=5, latest_trans_epoch=4,latest_applied_binlog_epoch=0"
    )
    assert pairs == {
        "latest_epoch": "5",
        "latest_trans_epoch": "4",
        "latest_applied_binlog_epoch": "0",
    }


def test_binlog_labels_with_the_server_id_of_the_target():
    status = f"latest_epoch={9 << 32 | 250}, latest_handled_binlog_epoch={8 << 32}"
    rows = [{"Type": "ndbcluster", "Name": "binlog", "Status": status}]
    context = Context(target=target("8.4.3-cluster", server_id=21))
    buffered, micro, handled = binlog.collect(rows, context)
    assert [(s.labels, s.value) for s in buffered.samples] == [({"server_id": "21"}, 9.0)]
    assert [(s.labels, s.value) for s in micro.samples] == [({"server_id": "21"}, 250.0)]
    assert [(s.labels, s.value) for s in handled.samples] == [({"server_id": "21"}, 8.0)]


def test_a_sql_node_writing_no_binlog_exports_only_its_buffered_epoch():
    """Its binlog thread runs for schema distribution: latest_epoch moves (its event buffer
    receives every epoch), the rest is 0 and not exported."""
    status = f"latest_epoch={9 << 32}, latest_received_binlog_epoch=0,"
    status += " latest_handled_binlog_epoch=0, latest_applied_binlog_epoch=0"
    rows = [{"Type": "ndbcluster", "Name": "binlog", "Status": status}]
    families = list(binlog.collect(rows, Context(target=target("8.4.3-cluster"))))
    assert [(f.name, [s.value for s in f.samples]) for f in families] == [
        ("ndb_binlog_buffered_gci", [9.0]),
        ("ndb_binlog_buffered_epoch_micro", [0.0]),
    ]


def test_an_epoch_that_is_no_number_skips_its_row_only():
    rows = [{"server_id": 1, "epoch": 5 << 32}, {"server_id": 2, "epoch": "garbage"}]
    context = Context(target=target("8.4.3-cluster"))
    (family,), skipped = collect_rows(apply_status.COLLECTOR, rows, context)
    assert skipped == 1
    assert [(s.labels["server_id"], s.value) for s in family.samples] == [("1", 5.0)]


@pytest.mark.parametrize("collector", REPLICATION, ids=lambda c: c.name)
def test_they_run_where_the_ndbcluster_engine_runs(collector):
    assert collector.available(target("5.7.16-ndb-7.5.4-cluster-gpl", (7, 5, 4)))
    assert not collector.available(target("8.4.3-cluster", ndb_visibility="engine_absent"))
    assert not collector.available(target("8.0.36", (0, 0, 0)))


def test_a_missing_table_is_no_failure():
    assert apply_status.COLLECTOR.absent_errors == {1146}  # ER_NO_SUCH_TABLE
    assert applier_workers.COLLECTOR.absent_errors == {1146}
    assert binlog_index.COLLECTOR.absent_errors == {1146}
    assert not replica_status.COLLECTOR.absent_errors and not binlog.COLLECTOR.absent_errors


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.series)
def test_replica_status_reads_columns_its_statement_has(version):
    """The columns declared for each statement are in ndbsim's SHOW REPLICA/SLAVE STATUS of
    that version (its column lists follow the manual)."""
    info = target(version.version_string, version.ndb)
    statement = replica_status.COLLECTOR.statement(info)
    columns = replies.replica_status(version, replica_words=statement == "SHOW REPLICA STATUS")
    assert set(replica_status.COLLECTOR.server_reads[statement]) <= set(columns)


@pytest.mark.parametrize("collector", SERVER_TABLES, ids=lambda c: c.name)
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.series)
def test_server_tables_have_the_columns_read_on_every_version(collector, version):
    """The performance_schema and mysql tables it reads have its columns on every version
    (simulator/data/mysqld/replication.json, from the manual)."""
    for table, columns in collector.server_reads.items():
        have = infoschema.replication_columns("tables", table, version)
        assert have is not None, f"{table} missing in {version.series}"
        assert set(columns) <= {name for name, _ in have}


def test_transaction_retries_are_counted_once_per_channel():
    """Each worker's row carries its channel's count: one sample per channel."""
    rows = [
        {"CHANNEL_NAME": channel, "WORKER_ID": worker, "SERVICE_STATE": "ON",
         "LAST_ERROR_NUMBER": 0, "COUNT_TRANSACTIONS_RETRIES": retries}
        for channel, retries, workers in (("", 3, 4), ("west", 0, 2))
        for worker in range(1, workers + 1)
    ]  # fmt: skip
    context = Context(target=target("8.4.3-cluster"))
    state, error, retries = applier_workers.collect(rows, context)
    assert len(state.samples) == 2 * len(rows) and len(error.samples) == len(rows)
    assert [
        (s.labels["channel"], s.value) for s in retries.samples if s.name.endswith("_total")
    ] == [
        ("", 3.0),
        ("west", 0.0),
    ]


class _MissingTable:
    """A connection whose every statement fails as mysqld's does on a table that does not
    exist."""

    def rows(self, sql, params=None):
        raise errors.ProgrammingError(
            msg="Table 'mysql.ndb_binlog_index' doesn't exist", errno=1146
        )


def test_binlog_index_without_epochs_exports_nothing():
    """MIN and MAX of an empty ndb_binlog_index are NULL (a SQL node writing no binary log):
    no series; a missing table (1146) reads as no rows, not as a failure."""
    context = Context(target=target("8.4.3-cluster", server_id=2))
    assert list(binlog_index.collect([{"oldest": None, "newest": None}], context)) == []
    assert collector_rows(_MissingTable(), binlog_index.COLLECTOR, context) == []
    assert list(binlog_index.collect([], context)) == []
