"""Log space and log buffer rows as used and total bytes (logspaces and logbuffers)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import MetricSpec, Row, add_value, ident, number, text


def log_families(rows: list[Row], used_spec: MetricSpec, total_spec: MetricSpec) -> Iterable:
    """Used and total bytes per node, log type, log id and log part (logspaces and logbuffers)."""
    used, total = used_spec.family(), total_spec.family()
    labelled = sorted(
        (
            (
                (
                    number(r["node_id"]),
                    text(r["log_type"]),
                    number(r["log_id"]),
                    number(r["log_part"]),
                ),
                r,
            )
            for r in rows
        ),
        key=lambda item: item[0],
    )
    for (node, log_type, log_id, log_part), row in labelled:
        labels = [ident(node), log_type, ident(log_id), ident(log_part)]
        add_value(used, labels, number(row["used"]))
        add_value(total, labels, number(row["total"]))
    yield from (used, total)
