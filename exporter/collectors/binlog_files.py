"""The binary log files this binlog server keeps: SHOW BINARY LOGS (SHOW MASTER LOGS is the
old name, gone in 8.4), a row per file of its binary log index, oldest first.

mysqld lists each file named in its index with its size: the active file's is its write
position, each closed one's is read by opening the file (rpl_source.cc show_binlogs). A file
is added when the log rotates (at max_binlog_size, at FLUSH BINARY LOGS, at a restart) and
removed when it is purged (PURGE BINARY LOGS, binlog_expire_logs_seconds): a rotation raises
the newest file's number, a purge the oldest's. A SQL node with log_bin OFF answers error 1381
(ER_NO_BINARY_LOGGING): no series."""

from __future__ import annotations

from collections.abc import Iterable

from .base import BadValue, Collector, Context, Row, SlowChanging, gauge, number, text

# ER_NO_BINARY_LOGGING: "You are not using binary logging" (log_bin OFF).
NO_BINARY_LOGGING = frozenset({1381})

FILES = gauge(
    "ndb_binlog_files",
    "Binary log files this binlog server keeps (rows of SHOW BINARY LOGS), the active one"
    " included.",
)
BYTES = gauge(
    "ndb_binlog_files_bytes",
    "Bytes of all the binary log files this binlog server keeps (sum of File_size in SHOW"
    " BINARY LOGS; the active file's is its write position).",
)
FIRST = gauge(
    "ndb_binlog_first_file_number",
    "Number of the oldest binary log file this binlog server keeps (the numeric suffix of its"
    " name, 11 for binlog.000011): a purge raises it, so changes() counts purges.",
)
LAST = gauge(
    "ndb_binlog_last_file_number",
    "Number of the newest binary log file, the one being written (the numeric suffix of its"
    " name): a rotation raises it, so changes() counts rotations.",
)

SQL = "SHOW BINARY LOGS"


def file_number(name: str) -> float:
    """The numeric suffix of a binary log file's name: 11 for binlog.000011."""
    suffix = name.rsplit(".", 1)[-1]
    if not suffix.isdigit():
        raise BadValue(f"not a binary log file name: {name[:40]!r}")
    return float(int(suffix))


def collect(rows: list[Row], ctx: Context) -> Iterable:
    if not rows:
        return
    numbers = [file_number(text(row["Log_name"])) for row in rows]
    values = (
        (FILES, float(len(rows))),
        (BYTES, sum(number(row["File_size"]) or 0.0 for row in rows)),
        (FIRST, min(numbers)),
        (LAST, max(numbers)),
    )
    for spec, value in values:
        family = spec.family()
        family.add_metric([], value)
        yield family


COLLECTOR = Collector(
    name="binlog_files",
    help="The binary log files a binlog server keeps: their number, their bytes and the numbers"
    " of the oldest and newest (a purge raises the first, a rotation the last). On by default:"
    " one statement the SQL node answers from its binary log index, opening each closed file"
    " for its size under the index lock, so it is read at most every"
    " --exporter.refresh-max-age (120 s); no series on a SQL node with log_bin OFF (error"
    " 1381); needs REPLICATION CLIENT (or SUPER).",
    default_enabled=True,
    reads={},
    server_reads={SQL: ("Log_name", "File_size")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(FILES, BYTES, FIRST, LAST),
    # SHOW BINARY LOGS opens every closed file while it holds the binary log index: the disk
    # the files take and their purges are followed at the maximum age, not at every scrape.
    slow=SlowChanging(frozenset()),
    absent_errors=NO_BINARY_LOGGING,
)
