"""The flags of ``report`` and ``check``: the Monitoring Plugins' standard options (-H, -P, -t,
-w, -c, -v, -V, -h), their own, then the exporter's connection, my.cnf and collector flags,
parsed by the exporter's own declaration (``settings.parse``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from ndbinfo_exporter import __version__
from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.health import alerts, rolling
from ndbinfo_exporter.report.limits import LIMITS, NO_THRESHOLDS, Thresholds, parse_thresholds
from ndbinfo_exporter.settings import FLAGS, Settings, parse

# Exporter flags that mean nothing without an HTTP server.
SERVER_ONLY = (
    "listen_address",
    "telemetry_path",
    "web_config_file",
    "scrape_timeout_offset",
    "probe_allowed_targets",
    "view_alerts_url",
    "max_connections",
)
SHARED = [flag.name for name, flag in FLAGS.items() if name not in SERVER_ONLY]
FORMATS = ("text", "markdown", "json")
MAX_INTERVAL = 300.0
DEFAULT_TIMEOUT = 10.0  # the guidelines' default; with --interval, added to it
UNREACHABLE_STATES = ("unknown", "critical", "warning")
FAMILIES = (
    "availability",
    "backup",
    "storage",
    "network",
    "replication",
    "configuration",
    "distribution",
    "queries",
    "performance",
)


@dataclass(frozen=True)
class Options:
    command: str  # "report" or "check"
    settings: Settings
    format: str = "text"
    interval: float | None = None  # seconds between two reads; None: one read
    only: tuple[str, ...] = ()  # finding ids or families; () is the default selection
    warning_only: bool = False
    timeout: float = DEFAULT_TIMEOUT
    thresholds: Thresholds = NO_THRESHOLDS
    unreachable_state: str = "unknown"
    verbosity: int = 0
    alerts_url: str | None = None  # Prometheus or Alertmanager whose alerts are findings
    safe_to_stop: int | None = None  # check --safe-to-stop: the node id asked about
    restart_done: int | None = None  # check --restart-done: the node id asked about
    host: str | None = None  # -H: overrides the address of --mysqld.address or my.cnf
    port: int | None = None  # -P
    argv: tuple[str, ...] = ()  # as given, for the report's header

    @property
    def question(self) -> tuple[str, int] | None:
        """check --safe-to-stop N or --restart-done N: the question and N; None otherwise."""
        if self.safe_to_stop is not None:
            return rolling.SAFE_TO_STOP, self.safe_to_stop
        if self.restart_done is not None:
            return rolling.RESTART_DONE, self.restart_done
        return None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def _seconds(limit: float):
    def parse_seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not 0 < value <= limit:
            raise argparse.ArgumentTypeError(f"must be over 0 and at most {limit:g} seconds")
        return value

    return parse_seconds


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (1 to 65535)")
    return int(text)


def _host(text: str) -> str:
    host = text.strip().removeprefix("[").removesuffix("]")
    if not host:
        raise argparse.ArgumentTypeError("empty host name")
    return host


def _alerts_url(text: str) -> str:
    try:
        alerts.parse_url(text)
    except alerts.AlertsUrlError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _node_id(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 256:
        raise argparse.ArgumentTypeError(f"{text!r} is not a node id (1 to 255)")
    return int(text)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


DESCRIPTION = {
    "report": "Read an NDB cluster through a SQL node and print its state and the cluster "
    "view's findings, with evidence and advice. Exit 0 when the cluster was read, 1 when it "
    "could not be read, 2 on a bad flag.",
    "check": "Nagios/Icinga/Sensu check of an NDB cluster through a SQL node: one status line "
    "with performance data, the problems on the lines after it; exit 0 OK, 1 WARNING, "
    "2 CRITICAL, 3 UNKNOWN.",
}


def _connection(p: _Parser) -> None:
    p.add_argument(
        "-H", "--hostname", type=_host, metavar="HOST", help="SQL node host name or address "
        "(IPv6 with or without brackets); overrides --mysqld.address and my.cnf"
    )  # fmt: skip
    p.add_argument(
        "-P", "--port", type=_port, metavar="PORT", help="SQL node port (default 3306, or "
        "the port of --mysqld.address or my.cnf)"
    )  # fmt: skip
    p.add_argument(
        "-t", "--timeout", type=_seconds(3600), metavar="SECONDS",
        help=f"give up after this long, UNKNOWN naming what it waited for (default "
        f"{DEFAULT_TIMEOUT:g}, plus --interval)",
    )  # fmt: skip
    p.add_argument(
        "--unreachable-state", choices=UNREACHABLE_STATES, default="unknown",
        help="status when the SQL node cannot be reached, refuses the login or does not see "
        "NDB (default unknown, as the guidelines say; check_mysql says critical)",
    )  # fmt: skip


def _judging(p: _Parser) -> None:
    names = ", ".join(LIMITS)
    p.add_argument(
        "-w", "--warning", type=_names, action="append", metavar="NAME=RANGE",
        help=f"warning range of a threshold, repeatable or comma-separated; names: {names}; "
        "ranges as the Monitoring Plugins guidelines: 10 (above 10), 10: (below 10), ~:10, "
        "10:20 (outside), @10:20 (inside); percent for data_memory, redo, send_buffer and "
        "tablespace, seconds for lag, GCIs for lcp_age",
    )  # fmt: skip
    p.add_argument(
        "-c", "--critical", type=_names, action="append", metavar="NAME=RANGE",
        help="critical range of a threshold, as -w",
    )  # fmt: skip
    p.add_argument(
        "--alerts-url", type=_alerts_url, metavar="URL",
        help="Prometheus or Alertmanager whose firing Ndb* alerts are findings at their "
        'severity, whatever --only selects; filter=label="value" in the query keeps '
        "matching ones (the cluster view's --view.alerts-url); unreadable: UNKNOWN",
    )  # fmt: skip
    p.add_argument(
        "--interval", type=_seconds(MAX_INTERVAL), metavar="SECONDS",
        help="read twice, this long apart, so that the findings on rates (round trips, "
        "pruned scans, transporter overloads) measure that window (default: one read)",
    )  # fmt: skip


def parser(command: str) -> _Parser:
    p = _Parser(
        prog=f"ndbinfo-exporter {command}",
        usage=f"%(prog)s [-H HOST] [-P PORT] [-t SECONDS] [-w NAME=RANGE] [-c NAME=RANGE] "
        f"[-v] [flags] [exporter flags: {', '.join(SHARED[:3])}, ...]",
        description=DESCRIPTION[command],
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Also takes the exporter's flags "
        + ", ".join(SHARED)
        + ", --collector.NAME and --no-collector.NAME (see ndbinfo-exporter --help); the "
        "password comes from NDB_EXPORTER_PASSWORD or the my.cnf file, never a flag.",
    )
    p.add_argument("-V", "--version", action="version", version=f"ndbinfo-exporter {__version__}")
    p.add_argument(
        "-v", "--verbose", action="count", default=0,
        help="-v: also the checks not judged and passed, one per line; -vv: also what was "
        "read (target, collectors, thresholds, timeout); -vvv: the exporter's debug log on "
        "stderr",
    )  # fmt: skip
    _connection(p)
    _judging(p)
    if command == "report":
        p.add_argument(
            "--format", choices=FORMATS, default="text", help="text (default), markdown or json"
        )
    else:
        p.add_argument(
            "--only", type=_names, action="append", metavar="NAMES",
            help=f"comma-separated check ids or families ({', '.join(FAMILIES)}) or 'all'; "
            "repeatable (default: every family but distribution, queries and performance); "
            "a check selected here that cannot judge (not a replica, no tablespace, its "
            "collector off) is UNKNOWN",
        )  # fmt: skip
        p.add_argument(
            "--warning-only", action="store_true",
            help="report a critical finding as WARNING: for checks that must not page",
        )  # fmt: skip
        _rolling(p)
    return p


def _rolling(p: _Parser) -> None:
    """The two questions of a rolling restart, instead of the cluster's health."""
    asked = p.add_mutually_exclusive_group()
    asked.add_argument(
        "--safe-to-stop", type=_node_id, metavar="N",
        help="instead of the checks: OK only when node N (data, management, SQL or API node) "
        "may be stopped now: every node group keeps a started data node, no other node is "
        "starting or stopping, an arbitrator stays, no LCP or REDO trouble, no critical alert "
        "fires (--alerts-url), another binlog server for an SQL node; else CRITICAL, a reason "
        "a line",
    )  # fmt: skip
    asked.add_argument(
        "--restart-done", type=_node_id, metavar="N",
        help="instead of the checks: OK when node N is started, its replicas alive, its "
        "primaries back and its latency within its peers'; WARNING while it is on its way "
        "(its start phase), CRITICAL while it is not connected",
    )  # fmt: skip


def _flattened(groups: list[list[str]] | None) -> list[str]:
    return [item for group in groups or () for item in group]


def parse_options(command: str, argv: Sequence[str], collectors: Sequence[Collector]) -> Options:
    """Raises ConfigError with one line on a bad flag, value, range or my.cnf path."""
    own, rest = parser(command).parse_known_args(list(argv))
    for arg in rest:
        name = arg.split("=", 1)[0]
        if name in {FLAGS[n].name for n in SERVER_ONLY}:
            raise ConfigError(f"{name}: not a flag of {command}")
    settings = parse(rest, collectors)
    timeout = own.timeout or DEFAULT_TIMEOUT + (own.interval or 0)
    if own.interval is not None and own.interval >= timeout:
        raise ConfigError(f"--interval {own.interval:g} does not fit in --timeout {timeout:g}")
    asked = [f for f in ("safe_to_stop", "restart_done") if getattr(own, f, None) is not None]
    if asked and getattr(own, "only", None):
        flag = "--" + asked[0].replace("_", "-")
        raise ConfigError(f"{flag} answers one question: it takes no --only")
    return Options(
        command=command,
        settings=settings,
        format=getattr(own, "format", "text"),
        interval=own.interval,
        only=tuple(_flattened(getattr(own, "only", None))),
        warning_only=getattr(own, "warning_only", False),
        timeout=timeout,
        thresholds=Thresholds(
            parse_thresholds("-w", _flattened(own.warning)),
            parse_thresholds("-c", _flattened(own.critical)),
        ),
        unreachable_state=own.unreachable_state,
        alerts_url=own.alerts_url,
        safe_to_stop=getattr(own, "safe_to_stop", None),
        restart_done=getattr(own, "restart_done", None),
        verbosity=own.verbose,
        host=own.hostname,
        port=own.port,
        argv=tuple(argv),
    )
