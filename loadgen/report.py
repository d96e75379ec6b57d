"""What a run prints: the target, then one line per workload."""

from __future__ import annotations

from .runner import Result
from .schema import Layout
from .target import Target


def describe_target(target: Target, layout: Layout) -> list[str]:
    lines = [f"target: {target.version}"]
    if target.ndb:
        lines.append(
            "tables: ENGINE=ndbcluster; NDB counters per statement from SHOW SESSION STATUS"
        )
    else:
        lines.append(
            "tables: ENGINE=InnoDB (engine ndbcluster is not available on this server);"
            " no NDB counters"
        )
    if layout.partitioned:
        lines.append("orders: PARTITION BY KEY (customer_id)")
    else:
        lines.append("orders: not partitioned (the server does not support PARTITION BY KEY)")
    return lines


def _per(value: int, statements: int) -> str:
    return f"{value / statements:8.2f}" if statements else f"{'-':>8}"


def table(results: list[Result], ndb: bool) -> list[str]:
    header = f"{'workload':<15}{'stmts':>9}{'errors':>8}{'stmt/s':>10}{'rows/stmt':>10}"
    if ndb:
        header += f"{'exec/stmt':>10}{'scans/stmt':>11}{'pruned/stmt':>12}{'local-read':>11}"
    lines = [header]
    for r in results:
        rate = r.statements / r.seconds if r.seconds else 0.0
        rows = f"{r.rows / r.statements:10.1f}" if r.statements else f"{'-':>10}"
        line = f"{r.workload.name:<15}{r.statements:>9}{r.errors:>8}{rate:>10.1f}{rows}"
        if ndb:
            c, n = r.counters, r.statements
            read = c.get("Ndb_api_read_row_count_session", 0)
            local = c.get("Ndb_api_trans_local_read_row_count_session", 0)
            share = f"{local / read:10.0%}" if read else f"{'-':>10}"
            line += (
                f"  {_per(c.get('Ndb_execute_count', 0), n)}"
                f"  {_per(c.get('Ndb_scan_count', 0), n)} "
                f"  {_per(c.get('Ndb_pruned_scan_count', 0), n)} {share}"
            )
        lines.append(line)
    for r in results:
        if r.first_error:
            lines.append(f"{r.workload.name}: {r.errors} errors, first: {r.first_error}")
    return lines
