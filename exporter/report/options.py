"""The flags of ``report`` and ``check``: their own, then the exporter's connection, my.cnf
and collector flags, parsed by the exporter's own declaration (``settings.parse``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.errors import ConfigError
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


@dataclass(frozen=True)
class Options:
    command: str  # "report" or "check"
    settings: Settings
    format: str = "text"
    interval: float | None = None  # seconds between two reads; None: one read
    only: tuple[str, ...] = ()  # finding ids or families; () is the default selection
    warning_only: bool = False


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def _interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_INTERVAL:
        raise argparse.ArgumentTypeError(f"must be over 0 and at most {MAX_INTERVAL:g} seconds")
    return value


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def parser(command: str) -> _Parser:
    description = {
        "report": "Read an NDB cluster once through a SQL node and print its state and the "
        "cluster view's findings, with evidence and advice.",
        "check": "Nagios/Icinga/Sensu check of an NDB cluster through a SQL node: one status "
        "line with performance data; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.",
    }[command]
    p = _Parser(
        prog=f"ndbinfo-exporter {command}",
        usage=f"%(prog)s [flags] [exporter flags: {', '.join(SHARED[:3])}, ...]",
        description=description,
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Also takes the exporter's flags "
        + ", ".join(SHARED)
        + ", --collector.NAME and --no-collector.NAME (see ndbinfo-exporter --help); the "
        "password comes from NDB_EXPORTER_PASSWORD or the my.cnf file, never a flag.",
    )
    p.add_argument(
        "--interval",
        type=_interval,
        metavar="SECONDS",
        help="read twice, this long apart, so that the findings on rates (round trips, "
        "pruned scans, transporter overloads) measure that window (default: one read)",
    )
    if command == "report":
        p.add_argument(
            "--format", choices=FORMATS, default="text", help="text (default), markdown or json"
        )
    else:
        p.add_argument(
            "--only",
            type=_names,
            action="append",
            metavar="NAMES",
            help="comma-separated finding ids or families (availability, storage, network, "
            "replication, configuration, distribution, queries, performance) or 'all'; "
            "repeatable (default: every family but distribution, queries and performance)",
        )
        p.add_argument(
            "--warning-only",
            action="store_true",
            help="report a critical finding as WARNING: for checks that must not page",
        )
    return p


def parse_options(command: str, argv: Sequence[str], collectors: Sequence[Collector]) -> Options:
    """Raises ConfigError with one line on a bad flag, value or my.cnf path."""
    own, rest = parser(command).parse_known_args(list(argv))
    for arg in rest:
        name = arg.split("=", 1)[0]
        if name in {FLAGS[n].name for n in SERVER_ONLY}:
            raise ConfigError(f"{name}: not a flag of {command}")
    settings = parse(rest, collectors)
    return Options(
        command=command,
        settings=settings,
        format=getattr(own, "format", "text"),
        interval=own.interval,
        only=tuple(name for group in getattr(own, "only", None) or () for name in group),
        warning_only=getattr(own, "warning_only", False),
    )
