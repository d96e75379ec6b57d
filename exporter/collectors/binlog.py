"""The NDB binlog injector of this SQL node: the epochs it has buffered, taken, handled and
written to the binary log, from the ``binlog`` row of SHOW ENGINE NDBCLUSTER STATUS
("latest_epoch=N, latest_trans_epoch=N, latest_received_binlog_epoch=N, ...").

The row is there on every SQL node whose binlog thread runs, which is also the thread that
distributes schema changes: every SQL node subscribes to the data nodes' events for it, and
its event buffer receives every epoch (the data nodes keep up to MaxBufferedEpochs of them for
each subscriber). So the buffered epoch (latest_epoch) is exported on every SQL node with the
row. On a SQL node that writes no binary log the three binlog epochs stay 0 (the manual's
example): it exports only the buffered one, so that no rule reads those zeros as a lag. mysqld
reports the event buffer's bytes only in the cluster log; through SQL the buffer shows in
epochs: buffered - received. The families carry this SQL node's @@server_id, the id the
replicas' mysql.ndb_apply_status rows name it by."""

from __future__ import annotations

from collections.abc import Iterable

from ._epochs import gci
from .base import Collector, Context, Row, gauge, text

SQL = "SHOW ENGINE NDBCLUSTER STATUS"

# (spec, name in the Status text)
EPOCHS = (
    (
        gauge(
            "ndb_binlog_buffered_gci",
            "GCI (epoch >> 32) of the newest epoch fully received into this SQL node's event"
            " buffer (latest_epoch); on every SQL node, binlog server or not.",
            ("server_id",),
        ),
        "latest_epoch",
    ),
    (
        gauge(
            "ndb_binlog_received_gci",
            "GCI of the newest epoch the binlog injector took from the event buffer"
            " (latest_received_binlog_epoch).",
            ("server_id",),
        ),
        "latest_received_binlog_epoch",
    ),
    (
        gauge(
            "ndb_binlog_handled_gci",
            "GCI of the newest epoch the binlog injector finished, empty epochs included"
            " (latest_handled_binlog_epoch).",
            ("server_id",),
        ),
        "latest_handled_binlog_epoch",
    ),
    (
        gauge(
            "ndb_binlog_written_gci",
            "GCI of the newest epoch with changes written to the binary log"
            " (latest_applied_binlog_epoch).",
            ("server_id",),
        ),
        "latest_applied_binlog_epoch",
    ),
)


def status_pairs(status: str) -> dict[str, str]:
    """ "a=1, b=2" -> {"a": "1", "b": "2"}; a part without "=" is ignored."""
    pairs = {}
    for part in status.split(","):
        name, equals, value = part.partition("=")
        if equals:
            pairs[name.strip()] = value.strip()
    return pairs


def collect(rows: list[Row], ctx: Context) -> Iterable:
    binlog = next((row for row in rows if text(row["Name"]) == "binlog"), None)
    if binlog is None:
        return
    pairs = status_pairs(text(binlog["Status"]))
    gcis = [(spec, gci(pairs.get(name))) for spec, name in EPOCHS]
    writes_binlog = any(value for _, value in gcis[1:])  # received, handled, written not all 0
    server_id = "" if ctx.target.server_id is None else str(ctx.target.server_id)
    for spec, value in gcis if writes_binlog else gcis[:1]:
        if value is not None:
            family = spec.family()
            family.add_metric([server_id], value)
            yield family


COLLECTOR = Collector(
    name="binlog",
    help="The NDB binlog injector's epochs as GCIs: buffered, taken from the event buffer,"
    " handled and written to the binary log (SHOW ENGINE NDBCLUSTER STATUS, row binlog)."
    " On by default: four series on a SQL node that writes a binary log, the buffered one on the"
    " others;"
    " needs PROCESS.",
    default_enabled=True,
    reads={},
    server_reads={"SHOW ENGINE NDBCLUSTER STATUS": ("Name", "Status")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=tuple(spec for spec, _ in EPOCHS),
)
