"""TLS node certificates (ndbinfo.certificates, NDB 8.3+): when each node's certificate expires.

The view gives the expiry as a date (FROM_UNIXTIME(expires, '%d-%b-%Y') in the SQL node's
time zone); the exported timestamp is the start of that day in UTC, so it is at most a day
early, never late.

Every data node reports the certificate of every node connected to it. A node loads its
certificate when it starts, so a renewed one shows once the node restarted (the node and
links signals); the rows are also read again after an hour (or the exporter's maximum age
when longer), which bounds how late a certificate replaced another way is seen: expiry is a
matter of days."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from .base import Collector, Context, Row, SlowChanging, gauge, ident, number, text

EXPIRY = gauge(
    "ndb_tls_certificate_expiry_timestamp_seconds",
    "Unix time the node's TLS certificate expires (start of the expiry day, UTC); the"
    " earliest when the node shows several.",
    ("node_id",),
)
INFO = gauge(
    "ndb_tls_certificate_info",
    "The node's TLS certificate: its name and serial number.",
    ("node_id", "name", "serial"),
)

SQL = "SELECT Node_id, Name, Expires, Serial FROM ndbinfo.certificates"


def expiry_day(value: object) -> float | None:
    """'23-Sep-2027' -> Unix time of that day's start in UTC; None when it does not parse."""
    try:
        day = datetime.strptime(text(value).strip(), "%d-%b-%Y")
    except ValueError:
        return None
    return day.replace(tzinfo=UTC).timestamp()


def collect(rows: list[Row], ctx: Context) -> Iterable:
    expiry, info = EXPIRY.family(), INFO.family()
    earliest: dict[str, float] = {}
    seen: set[tuple[str, str, str]] = set()
    for row in sorted(rows, key=lambda r: (number(r["Node_id"]), text(r["Serial"]))):
        node = ident(row["Node_id"])
        when = expiry_day(row["Expires"])
        if when is not None:
            earliest[node] = min(when, earliest.get(node, when))
        labels = (node, text(row["Name"]), text(row["Serial"]))
        if labels not in seen:
            seen.add(labels)
            info.add_metric(list(labels), 1.0)
    for node, when in earliest.items():
        expiry.add_metric([node], when)
    yield from (expiry, info)


COLLECTOR = Collector(
    name="certificates",
    help="Expiry of each node's TLS certificate as a Unix timestamp, with its name and serial"
    " (ndbinfo.certificates, NDB 8.3+). On by default: one row per node of the cluster, read"
    " again when a node restarts or reconnects, and after an hour.",
    default_enabled=True,
    reads={"certificates": ("Node_id", "Name", "Expires", "Serial")},
    min_version=(8, 3, 0),
    sql=SQL,
    collect=collect,
    metrics=(EXPIRY, INFO),
    slow=SlowChanging(frozenset({"nodes", "links"}), max_age=3600.0),
)
