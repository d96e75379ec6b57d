"""Run ``report`` or ``check``: flags, one read (two with --interval), the output and the exit
status. A bad flag or my.cnf is one line on stderr and exit 2 for ``report``, one UNKNOWN
status line and exit 3 for ``check``; no traceback, no password."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence

from ndbinfo_exporter import logs, mycnf, targets
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.report import document, nagios, render
from ndbinfo_exporter.report.options import Options, parse_options
from ndbinfo_exporter.report.reading import Reading, read, scraper_for
from ndbinfo_exporter.targets import TargetConfig

COMMANDS = ("report", "check")
CONFIG_ERROR = {"report": 2, "check": nagios.UNKNOWN}


def _configure(command: str, argv: Sequence[str]) -> tuple[Options, TargetConfig]:
    options = parse_options(command, argv, all_collectors())
    settings = options.settings
    client = mycnf.load(settings.my_cnf) if settings.my_cnf else {}
    password = settings.password.get_secret_value() if settings.password is not None else None
    resolved = targets.build(
        client, settings.mysqld_address, settings.mysqld_username, password, ()
    )
    if command == "check":
        nagios.selection(options.only)  # a bad --only is a flag error
    return options, resolved.default


async def _read(options: Options, target: TargetConfig) -> Reading:
    scraper = scraper_for(options.settings, all_collectors())
    try:
        return await read(scraper, target, options.settings, options.interval)
    finally:
        scraper.close()


def report_of(options: Options, target: TargetConfig) -> document.Report:
    return document.build(asyncio.run(_read(options, target)))


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def main(command: str, argv: Sequence[str]) -> int:
    try:
        options, target = _configure(command, argv)
    except ConfigError as exc:
        message = logs.redact(str(exc))
        if command == "check":
            print(nagios.unknown(message).output)
        else:
            print(f"ndbinfo-exporter {command}: {message}", file=sys.stderr)
        return CONFIG_ERROR[command]
    # Only errors on stderr unless asked: a check's output is its status line.
    level = options.settings.log_level if _log_level_given(argv) else "error"
    logs.setup(level, options.settings.log_format)
    report = report_of(options, target)
    if command == "check":
        outcome = nagios.evaluate(report, options.only, options.warning_only)
        print(outcome.output)
        return outcome.code
    if options.format == "json":
        out = report.model_dump_json(indent=2) + "\n"
    elif options.format == "markdown":
        out = render.markdown(report)
    else:
        out = render.text(report, colour=_colour())
    sys.stdout.write(out)
    return 0


def _log_level_given(argv: Sequence[str]) -> bool:
    return any(a.split("=", 1)[0] == "--log.level" for a in argv) or bool(
        os.environ.get("NDB_EXPORTER_LOG_LEVEL")
    )
