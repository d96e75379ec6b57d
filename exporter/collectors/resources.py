"""Memory resource groups per data node from ndbinfo.resources (values are 32 KiB pages)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, ident, number, text

PAGE_BYTES = 32768
LABELS = ("node_id", "resource")
COLUMNS = (
    ("reserved", gauge("ndb_resource_reserved_bytes", "Memory reserved for the resource.", LABELS)),
    ("used", gauge("ndb_resource_used_bytes", "Memory the resource uses.", LABELS)),
    (
        "max",
        gauge(
            "ndb_resource_max_bytes",
            "Most memory the resource may use (0: no fixed limit).",
            LABELS,
        ),
    ),
    (
        "spare",
        gauge(
            "ndb_resource_spare_bytes", "Memory kept spare for the resource (for restarts).", LABELS
        ),
    ),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    families = {column: spec.family() for column, spec in COLUMNS}
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), text(r["resource_name"]))):
        labels = [ident(row["node_id"]), text(row["resource_name"])]
        for column, family in families.items():
            if number(row[column]) is not None:
                family.add_metric(labels, number(row[column]) * PAGE_BYTES)
    yield from families.values()


COLLECTOR = Collector(
    name="resources",
    help="Reserved, used, maximum and spare memory per resource group (DATA_MEMORY,"
    " TRANSACTION_MEMORY, ...) and data node (ndbinfo.resources). On by default: about 9 rows"
    " per data node.",
    default_enabled=True,
    reads={"resources": ("node_id", "resource_name", "reserved", "used", "max", "spare")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, resource_name, reserved, used, `max`, spare FROM ndbinfo.resources",
    collect=collect,
    metrics=tuple(spec for _, spec in COLUMNS),
)
