"""Memory resource groups per data node from ndbinfo.resources (values are 32 KiB pages): used
and maximum by default, reserved and spare memory too with the option ``reserved-and-spare``.
The TRANSPORTER_BUFFERS maximum is also ``ndb_send_buffer_limit_bytes``, the denominator of the
send buffer use the transporters collector reads from transporter_details."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Option, Row, boolean, gauge, ident, number, text

PAGE_BYTES = 32768
LABELS = ("node_id", "resource")
COLUMNS = (
    ("reserved", gauge("ndb_resource_reserved_bytes", "Memory reserved for the resource.", LABELS)),
    ("used", gauge("ndb_resource_used_bytes", "Memory the resource uses.", LABELS)),
    (
        "max",
        gauge(
            "ndb_resource_max_bytes",
            "Most memory the resource may use; absent for resources without a fixed limit"
            " (max 0: they may grow into the shared global memory).",
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


DETAIL = {"reserved", "spare"}
# The send buffer memory a data node may use, next to the transporters collector's send buffer
# use (8.0.37+), for their ratio.
SEND_BUFFER_LIMIT = gauge(
    "ndb_send_buffer_limit_bytes",
    "Send buffer memory the data node may use (TRANSPORTER_BUFFERS maximum; absent when the"
    " pool has no fixed maximum).",
    ("node_id",),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    detail = bool(ctx.options.get("reserved-and-spare"))
    families = {column: spec.family() for column, spec in COLUMNS if detail or column not in DETAIL}
    send_buffer_limit = SEND_BUFFER_LIMIT.family()
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), text(r["resource_name"]))):
        labels = [ident(row["node_id"]), text(row["resource_name"])]
        for column, family in families.items():
            pages = number(row[column])
            if pages is None or (column == "max" and pages == 0):
                continue
            family.add_metric(labels, pages * PAGE_BYTES)
            if column == "max" and labels[1] == "TRANSPORTER_BUFFERS":
                send_buffer_limit.add_metric(labels[:1], pages * PAGE_BYTES)
    yield from families.values()
    yield send_buffer_limit


COLLECTOR = Collector(
    name="resources",
    help="Used and maximum memory per resource group (DATA_MEMORY, TRANSACTION_MEMORY, ...) and"
    " data node (ndbinfo.resources); reserved and spare memory too with the option"
    " reserved-and-spare; the send buffer limit of each data node. On by default: about 9 rows"
    " per data node.",
    default_enabled=True,
    reads={"resources": ("node_id", "resource_name", "reserved", "used", "max", "spare")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, resource_name, reserved, used, `max`, spare FROM ndbinfo.resources",
    collect=collect,
    metrics=(*(spec for _, spec in COLUMNS), SEND_BUFFER_LIMIT),
    options=(
        Option(
            "reserved-and-spare",
            "Also export the reserved and spare memory of each resource (two more series per"
            " resource and data node).",
            False,
            boolean,
        ),
    ),
)
