"""The report as text for a terminal (colour only on a TTY) or as Markdown for a ticket.

Both print the same sections, built once here as tables and findings; only their markup
differs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from ndbinfo_exporter.report.document import Cluster, Report, ReportFinding, RunningBackup

SEVERITY_COLOUR = {"critical": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m"}
RESET = "\033[0m"
BOLD = "\033[1m"


@dataclass(frozen=True)
class Table:
    title: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]
    note: str | None = None


def _size(value: float | None) -> str:
    if value is None:
        return "-"
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if value >= scale:
            return f"{value / scale:,.1f} {unit}"
    return f"{value:,.0f} B"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f} %"


def _text(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days}d {hours}h {rest // 60}m" if days else f"{hours}h {rest // 60}m {rest % 60}s"


def headline(report: Report) -> str:
    """What is wrong, in one sentence: said first in every form. When the cluster could not
    be read it is the check's own status text (nagios.unreadable)."""
    if not report.reachable or not report.ndb_visible:
        return report.status_text[0].upper() + report.status_text[1:] + "."
    s = report.summary
    if not (s.critical or s.warning or s.info):
        return f"No problems found ({s.ok} checks passed, {s.unknown} without data)."
    parts = [
        f"{n} {word}" for n, word in ((s.critical, "critical"), (s.warning, "warning")) if n
    ] + ([f"{s.info} informational"] if s.info else [])
    return f"{', '.join(parts)} problem{'s' if s.critical + s.warning + s.info > 1 else ''} found."


def status(report: Report) -> str:
    return f"check status {report.status} (exit {report.exit_code}): {report.status_text}"


def tables(report: Report) -> Iterator[Table]:
    cluster = report.cluster
    if cluster is None:
        return
    yield Table(
        "Cluster",
        ("", ""),
        [
            ("name", _text(cluster.name)),
            ("NDB version", _ndb_version(cluster)),
            ("SQL node", f"node {_text(cluster.sql_node_id)}, {_text(cluster.mysql_version)}"),
            (
                "data nodes",
                f"{_text(cluster.data_nodes_ready)} ready of "
                f"{_text(cluster.data_nodes_configured)} configured, "
                f"{cluster.node_groups} node groups",
            ),
            ("fragments with dead replicas", _text(report.fragments_with_dead_replicas)),
            ("spare [api] slots (never connected)", str(report.spare_api_slots)),
            ("president", _text(cluster.president_node_id)),
            ("arbitrator", _text(cluster.arbitrator_node_id)),
        ],
    )
    yield _nodes_table(report)
    yield from _restarts_table(report)
    yield from _schema_changes_table(report)
    if report.resources:
        yield Table(
            "Memory and redo log",
            ("node", "DataMemory used", "of", "used", "redo used", "of", "used", "fullest part"),
            [
                (
                    str(r.node_id),
                    _size(r.data_memory_used_bytes),
                    _size(r.data_memory_total_bytes),
                    _percent(r.data_memory_used_ratio),
                    _size(r.redo_used_bytes),
                    _size(r.redo_total_bytes),
                    _percent(r.redo_used_ratio),
                    _percent(r.redo_fullest_part_ratio),
                )
                for r in report.resources
            ],
        )
    if report.checkpoints is not None:
        lcp = report.checkpoints
        yield Table(
            "Checkpoints",
            ("", ""),
            [
                ("last completed LCP", _text(lcp.lcp_id)),
                ("replicas in an LCP now", _text(lcp.replicas_lcp_ongoing)),
                ("GCI of the last LCP", _text(lcp.completed_gci)),
                ("current GCI", _text(lcp.current_gci)),
                (
                    "LCP age",
                    f"{_text(lcp.age_gcis)} GCIs"
                    + (f" (about {_duration(lcp.age_seconds)})" if lcp.age_seconds else ""),
                ),
            ],
        )
    if report.replication is not None:
        yield from _replication(report)
    if report.management is not None:
        yield from _management(report)
    yield _configuration_table(report)


def _nodes_table(report: Report) -> Table:
    """Every node: the data nodes, then the management and API nodes."""
    return Table(
        "Nodes",
        ("node", "type", "node group", "state", "uptime", "host", "version"),
        [
            (
                str(n.node_id),
                "data",
                _text(n.nodegroup),
                n.state + (f" (phase {n.start_phase})" if n.start_phase else ""),
                _duration(n.uptime_seconds),
                _text(n.hostname),
                _text(n.version),
            )
            for n in report.data_nodes
        ]
        + [
            (
                str(n.node_id),
                n.node_type,
                "",
                "connected" if n.connected else "gone",
                "",
                _text(n.hostname),
                _text(n.process_name or n.version),
            )
            for n in report.other_nodes
        ],
    )


def _restarts_table(report: Report) -> Iterator[Table]:
    """The data nodes restarting: their step and the estimate of the time left."""
    rows = [
        (
            str(n.node_id),
            _text(n.restart.status),
            _percent(n.restart.progress),
            _duration(n.restart.remaining_seconds),
        )
        for n in report.data_nodes
        if n.restart is not None
    ]
    if rows:
        yield Table(
            "Restarts under way",
            ("node", "step (restart_info)", "done", "left"),
            rows,
            note="done and left: estimated from the other data nodes' last completed restarts",
        )


def _schema_changes_table(report: Report) -> Iterator[Table]:
    """The copying ALTER TABLEs and REORGANIZE PARTITIONs under way and their share done."""
    rows = [
        (
            c.kind,
            c.database,
            _text(c.table),
            _text(c.copy_table),
            _percent(c.progress),
            _text(c.rows),
            _size(c.bytes),
        )
        for c in report.schema_changes
    ]
    if rows:
        yield Table(
            "Schema changes under way",
            ("kind", "database", "table", "copy", "done", "rows copied", "copy size"),
            rows,
            note="done: a copy's rows over its table's, a reorganization's rows moved over"
            " those its new fragments hold at the end",
        )


def _configuration_table(report: Report) -> Table:
    """The parameters whose values differ from the default or between data nodes."""
    return Table(
        "Configuration that differs",
        ("parameter", "default", "values", "differs between nodes"),
        [
            (
                p.param,
                _text(p.default),
                ", ".join(f"node {v.node_id}: {_text(v.value)}" for v in p.values),
                "yes" if p.inconsistent else "no",
            )
            for p in report.configuration
        ],
        note=report.configuration_unknown
        or (
            "Every parameter read has its default on every data node."
            if not report.configuration
            else None
        ),
    )


def _management(report: Report) -> Iterator[Table]:
    """Every node as the management server reports it, and the backups."""
    m = report.management
    assert m is not None
    answered = ", ".join(
        f"{s.address} {'answers' if s.answered else 'no answer'}" for s in m.servers
    )
    yield Table(
        "Management server: every node",
        ("node", "type", "status", "connects", "version"),
        [
            (
                str(n.node_id),
                n.node_type,
                n.status + (f" (phase {n.start_phase})" if n.start_phase else ""),
                str(n.connect_count),
                _text(n.version),
            )
            for n in m.nodes
        ],
        note=answered,
    )
    backup = m.last_backup
    yield Table(
        "Backups (cluster log, during this run)",
        ("", ""),
        [
            ("running", _running_backup(m.running_backup)),
            (
                "last completed",
                "none received"
                if backup is None
                else f"backup {backup.backup_id}: {_size(backup.bytes)}, {backup.records} records",
            ),
            ("aborted", str(m.backups_aborted)),
            ("failed to start", str(m.backups_failed_to_start)),
        ],
    )
    yield _forced_stops_table(report)


def _running_backup(running: RunningBackup | None) -> str:
    """The running backup: how far it has got and the time left at its pace."""
    if running is None:
        return "none"
    if running.bytes is None:
        return f"backup {running.backup_id}: no report from the data nodes yet"
    text = f"backup {running.backup_id}: {_size(running.bytes)}, {running.records} records"
    if running.progress is not None:
        text += f", {_percent(running.progress)} of the last completed"
    if running.remaining_seconds is not None:
        text += f", about {_duration(running.remaining_seconds)} left"
    return text


def _forced_stops_table(report: Report) -> Table:
    """Each data node's last forced stop: its exit code in NDB's words and what it means."""
    m = report.management
    assert m is not None
    return Table(
        "Forced stops (cluster log, during this run)",
        ("node", "when (UTC)", "cause", "classification", "phase", "now", "usually"),
        [
            (
                str(s.node_id),
                datetime.fromtimestamp(s.time, UTC).strftime("%Y-%m-%d %H:%M:%S"),
                f"error {s.error}: {s.message}" if s.error else f"signal {s.signal}",
                f"{s.classification_text}. {s.status_text}" if s.error else "-",
                _text(s.start_phase),
                _text(s.status_now) + (" (angel restarts it)" if s.restarting else ""),
                s.meaning,
            )
            for s in m.forced_stops
        ],
        note=None if m.forced_stops else "No data node stopped by force.",
    )


def _replication(report: Report) -> Iterator[Table]:
    replication = report.replication
    assert replication is not None
    if replication.channels:
        yield Table(
            "Replication channels",
            ("channel", "I/O thread", "SQL thread", "IO errno", "SQL errno", "behind", "source"),
            [
                (
                    c.channel or "(default)",
                    _text(c.io_thread),
                    _text(c.sql_thread),
                    _text(c.last_io_error_number),
                    _text(c.last_sql_error_number),
                    "-" if c.seconds_behind_source is None else f"{c.seconds_behind_source:g} s",
                    _text(c.source_server_id),
                )
                for c in replication.channels
            ],
        )
    if replication.applied:
        yield Table(
            "Applied epochs (mysql.ndb_apply_status)",
            ("source server_id", "applied GCI"),
            [(str(a.server_id), str(a.applied_gci)) for a in replication.applied],
        )
    binlog = replication.binlog
    if binlog is not None:
        yield Table(
            "Binary log injector",
            ("", ""),
            [
                ("server_id", _text(binlog.server_id)),
                ("committed GCI", _text(binlog.committed_gci)),
                ("written GCI", _text(binlog.written_gci)),
                ("injector lag", f"{_text(binlog.injector_lag_gcis)} GCIs"),
                ("event buffer", f"{_text(binlog.event_buffer_gcis)} GCIs"),
            ],
        )


def _sections(findings: list[ReportFinding]) -> list[tuple[str, list[ReportFinding]]]:
    return [
        (title, [f for f in findings if f.status == status])
        for title, status in (
            ("Problems", "problem"),
            ("Not judged", "unknown"),
            ("Passed", "ok"),
        )
    ]


def _history_mark(finding: ReportFinding) -> str:
    return " (one read: a rate needs Prometheus or --interval)" if finding.needs_history else ""


# --- text -------------------------------------------------------------------------------------


def text(report: Report, colour: bool = False) -> str:
    def paint(s: str, code: str) -> str:
        return f"{code}{s}{RESET}" if colour else s

    lines = [
        paint(f"NDB cluster report for {report.target}", BOLD),
        f"ndbinfo-exporter {report.exporter_version}: {report.command}",
        f"read at {report.read_at}"
        + (f", twice {report.interval_seconds:g} s apart" if report.interval_seconds else ""),
        "",
        headline(report),
        status(report),
    ]
    for name, error in report.collectors_failed.items():
        lines.append(f"collector {name} failed: {error}")
    for table in tables(report):
        lines += ["", paint(table.title, BOLD), *_aligned(table)]
    for title, found in _sections(report.findings):
        if not found:
            continue
        lines += ["", paint(f"{title} ({len(found)})", BOLD)]
        if title == "Passed":
            lines.append("  " + ", ".join(f.id for f in found))
            continue
        for f in found:
            if f.status != "problem":
                lines.append(f"  {f.title} [{f.family}]: {f.summary}" + _history_mark(f))
                continue
            severity = paint(f.severity.upper(), SEVERITY_COLOUR[f.severity])
            lines += ["", f"  {severity} {f.title} [{f.family}, {f.id}]", f"    {f.summary}"]
            lines += [f"    - {e.label}: {e.text}" for e in f.evidence]
            lines.append(f"    Advice: {f.advice}")
            if f.needs_history:
                lines.append(f"    Note: {f.needs_history}")
            lines.append("    SQL:")
            lines += [f"      {line}" for line in f.sql.splitlines()]
    return "\n".join(lines) + "\n"


def _aligned(table: Table) -> list[str]:
    if not table.rows:
        return [f"  {table.note or 'none'}"]
    rows = table.rows if not any(table.header) else [table.header, *table.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(table.header))]
    out = [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return out + ([f"  {table.note}"] if table.note else [])


# --- Markdown ---------------------------------------------------------------------------------


def _cell(value: str) -> str:
    return value.replace("|", "\\|") or " "


def _markdown_table(table: Table) -> list[str]:
    """A table with a header row, or a list for a two-column table of names and values."""
    if not table.rows:
        return [table.note or "None."]
    if not any(table.header):
        lines = [f"- {_cell(name)}: {_cell(value)}" for name, value in table.rows]
    else:
        lines = ["| " + " | ".join(_cell(h) for h in table.header) + " |"]
        lines.append("|" + "---|" * len(table.header))
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    return lines + (["", table.note] if table.note else [])


def markdown(report: Report) -> str:
    """For a ticket: the tool and its command line first, the status, then the sections
    under level-two headings (a ticket has its own title)."""
    lines = [
        f"ndbinfo-exporter {report.exporter_version}: `{report.command}`",
        "",
        f"NDB cluster report for `{report.target}`, read at {report.read_at}"
        + (f", twice {report.interval_seconds:g} s apart" if report.interval_seconds else "")
        + ".",
        "",
        f"**{headline(report)}** {_cell(status(report))}",
    ]
    for name, error in report.collectors_failed.items():
        lines += ["", f"- collector `{name}` failed: {error}"]
    for table in tables(report):
        lines += ["", f"## {table.title}", "", *_markdown_table(table)]
    for title, found in _sections(report.findings):
        if not found:
            continue
        lines += [*([""] if lines[-1] else []), f"## {title} ({len(found)})", ""]
        if title == "Passed":
            lines.append(", ".join(f"`{f.id}`" for f in found))
            continue
        for f in found:
            if f.status != "problem":
                lines.append(f"- **{f.title}** ({f.family}): {f.summary}" + _history_mark(f))
                continue
            lines += [f"### {f.severity.upper()}: {f.title}", ""]
            lines += [f"`{f.id}` ({f.family}). {f.summary}", ""]
            lines += [f"- {e.label}: {e.text}" for e in f.evidence]
            lines += ["", f"**Advice.** {f.advice}", ""]
            if f.needs_history:
                lines += [f"*{f.needs_history}*", ""]
            lines += ["```sql", f.sql, "```", ""]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def _ndb_version(cluster: Cluster) -> str:
    """ "8.4.3", or "RonDB 22.10.12 (MySQL NDB 8.0.34)"."""
    if cluster.flavour == "rondb":
        return f"RonDB {_text(cluster.flavour_version)} (MySQL NDB {_text(cluster.ndb_version)})"
    return _text(cluster.ndb_version)
