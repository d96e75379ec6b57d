"""The NDB binlog injector of this SQL node: the epochs it has buffered, taken, handled and
written to the binary log, from the ``binlog`` row of SHOW ENGINE NDBCLUSTER STATUS
("latest_epoch=N, latest_trans_epoch=N, latest_received_binlog_epoch=N, ...").

The row is there on every SQL node whose binlog thread runs, which is also the thread that
distributes schema changes: every SQL node subscribes to the data nodes' events for it, and
its event buffer receives every epoch (the data nodes keep up to MaxBufferedEpochs of them for
each subscriber). So the buffered epoch (latest_epoch) and the epoch of the server's newest
commit (latest_trans_epoch) are exported on every SQL node with the row, each as its GCI and
its micro GCP counter: the data nodes count a subscriber's lag in epochs, and while GCP_SAVE
lags one GCI holds hundreds of them. On a SQL node that writes no binary log the three binlog
epochs stay 0 (the manual's example): it exports only the event buffer's two epochs, so that
no rule reads those zeros as a lag. mysqld
reports the event buffer's bytes only in the cluster log; through SQL the buffer shows in
epochs: buffered - received. The families carry this SQL node's @@server_id, the id the
replicas' mysql.ndb_apply_status rows name it by."""

from __future__ import annotations

from collections.abc import Iterable

from ._epochs import gci, micro_gcp
from .base import Collector, Context, Row, gauge, text

SQL = "SHOW ENGINE NDBCLUSTER STATUS"

# The event buffer's newest epoch (latest_epoch) and the epoch of this server's newest commit
# (latest_trans_epoch: ndb_get_latest_trans_gci(), which update_status_variables in
# ha_ndbcluster.cc also gives Ndb_last_commit_epoch_server), each in its two halves:
# (spec, its part, name in the Status text). One row holds both, read at one moment: their
# difference is the subscriber's lag with no time between two statements in it.
EVENT_BUFFER = (
    (
        gauge(
            "ndb_binlog_buffered_gci",
            "GCI (epoch >> 32) of the newest epoch fully received into this SQL node's event"
            " buffer (latest_epoch); on every SQL node, binlog server or not.",
            ("server_id",),
        ),
        gci,
        "latest_epoch",
    ),
    (
        gauge(
            "ndb_binlog_buffered_epoch_micro",
            "Micro GCP counter (epoch & 0xFFFFFFFF) of the newest epoch fully received into this"
            " SQL node's event buffer (latest_epoch): its place within ndb_binlog_buffered_gci.",
            ("server_id",),
        ),
        micro_gcp,
        "latest_epoch",
    ),
    (
        gauge(
            "ndb_binlog_last_commit_gci",
            "GCI of the epoch of this SQL node's newest commit (latest_trans_epoch), read in the"
            " same row as ndb_binlog_buffered_gci.",
            ("server_id",),
        ),
        gci,
        "latest_trans_epoch",
    ),
    (
        gauge(
            "ndb_binlog_last_commit_epoch_micro",
            "Micro GCP counter of the epoch of this SQL node's newest commit"
            " (latest_trans_epoch): its place within ndb_binlog_last_commit_gci.",
            ("server_id",),
        ),
        micro_gcp,
        "latest_trans_epoch",
    ),
)
# The binlog injector's epochs as GCIs: (spec, name in the Status text)
INJECTOR = (
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
    event_buffer = [(spec, part(pairs.get(name))) for spec, part, name in EVENT_BUFFER]
    injector = [(spec, gci(pairs.get(name))) for spec, name in INJECTOR]
    writes_binlog = any(value for _, value in injector)  # received, handled, written not all 0
    server_id = "" if ctx.target.server_id is None else str(ctx.target.server_id)
    for spec, value in event_buffer + injector if writes_binlog else event_buffer:
        if value is not None:
            family = spec.family()
            family.add_metric([server_id], value)
            yield family


COLLECTOR = Collector(
    name="binlog",
    help="The NDB binlog injector's epochs as GCIs: buffered, taken from the event buffer,"
    " handled and written to the binary log (SHOW ENGINE NDBCLUSTER STATUS, row binlog)."
    " On by default: the buffered epoch's GCI and micro GCP on every SQL node with the row, and"
    " the three injector GCIs on one that writes a binary log; needs PROCESS.",
    default_enabled=True,
    reads={},
    server_reads={"SHOW ENGINE NDBCLUSTER STATUS": ("Name", "Status")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(*(spec for spec, _, _ in EVENT_BUFFER), *(spec for spec, _ in INJECTOR)),
)
