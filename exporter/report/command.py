"""Run ``report`` or ``check``: flags, one read (two with --interval) bounded by -t, the output
and the exit status. A bad flag, my.cnf or range is one line and exit 2 for ``report``, one
UNKNOWN status line and exit 3 for ``check``; nothing ever ends in a traceback, and no
password is ever printed."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
import time
from collections.abc import Coroutine, Sequence
from typing import Any

from ndbinfo_exporter import logs, targets
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.health import rolling
from ndbinfo_exporter.health.findings.evaluation import CHECKS
from ndbinfo_exporter.report import document, limits, nagios, render
from ndbinfo_exporter.report.limits import LIMITS
from ndbinfo_exporter.report.nagios import CheckSelection, Verdict
from ndbinfo_exporter.report.options import Options, parse_options
from ndbinfo_exporter.report.reading import (
    AlertsRead,
    Reading,
    Stage,
    needed,
    read,
    scraper_for,
)
from ndbinfo_exporter.targets import TargetConfig

COMMANDS = ("report", "check")
CONFIG_ERROR = {"report": 2, "check": nagios.UNKNOWN}
UNREADABLE = 1  # report: the cluster could not be read


@dataclasses.dataclass(frozen=True)
class Run:
    options: Options
    target: TargetConfig
    selection: CheckSelection  # what makes the status
    collectors: tuple[str, ...]  # what is read
    managers: tuple[tuple[str, int], ...] = ()  # the cluster's management servers


def configure(command: str, argv: Sequence[str]) -> Run:
    """Settings, target and selection of one run; ConfigError with one line."""
    options = parse_options(command, argv, all_collectors())
    selection = nagios.select(options.only)
    configured = targets.from_settings(options.settings)
    target = configured.default
    if options.host or options.port:
        target = dataclasses.replace(
            target,
            host=targets.normalise_host(options.host) if options.host else target.host,
            port=options.port or target.port,
            socket=None,
        )
    settings = options.settings
    off = {name for name, on in settings.collectors.items() if not on}
    if options.question is not None:  # the rolling restart answers read what they judge
        selection = CheckSelection(rolling.CHECKS)
        names = needed(selection.evaluated(), all_collectors(), off, rolling.READS)
    elif command == "check":
        names = needed(selection.evaluated(), all_collectors(), off)
    else:  # every enabled collector, and those the default checks need
        wanted = {c.name for c in settings.enabled(all_collectors())}
        wanted |= set(needed(CHECKS, all_collectors(), off))
        names = [c.name for c in all_collectors() if c.name in wanted and c.name not in off]
    return Run(options, target, selection, tuple(names), configured.mgmd)


async def _read(run: Run, stage: Stage, alerts: AlertsRead) -> Reading:
    options = run.options
    settings = options.settings.model_copy(
        update={"query_timeout": min(options.settings.query_timeout, max(0.1, stage.left()))}
    )
    collectors = [c for c in all_collectors() if c.name in run.collectors]
    scraper = scraper_for(settings, collectors)
    checks = CHECKS if options.command == "report" else run.selection.evaluated()
    try:
        return await asyncio.wait_for(
            read(
                scraper,
                run.target,
                checks,
                options.interval,
                stage,
                options.command == "report",
                run.managers,
                alerts,
            ),
            max(0.1, stage.left()),
        )
    finally:
        scraper.close()


def _run_bounded(coroutine: Coroutine[Any, Any, Reading]) -> Reading:
    """asyncio.run without its wait for the default executor's threads: a statement still
    blocked in a thread after -t ran out must not hold the answer."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(coroutine)
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        asyncio.set_event_loop(None)
        loop.close()


def _running_for() -> float:
    """Seconds since this process started (Linux; else 0): -t bounds the whole run, the
    interpreter's start and the imports included."""
    try:
        with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
            started = int(stat.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
            return max(0.0, float(uptime.read().split()[0]) - started)
    except (OSError, ValueError, IndexError):
        return 0.0


def reading_of(run: Run) -> Reading | Verdict:
    """The reading, or UNKNOWN naming the stage -t ran out in (beside the firing alerts, when
    they were read by then)."""
    timeout = run.options.timeout
    # At least half of -t for the read itself, however long the start took.
    stage = Stage(deadline=time.monotonic() + max(timeout - _running_for(), timeout / 2))
    alerts = AlertsRead(run.options.alerts_url)
    try:
        reading = _run_bounded(_read(run, stage, alerts))
    except TimeoutError:
        timed_out = nagios.unknown(f"timed out after {timeout:g} s waiting for {stage.now}")
        return nagios.beside_alerts(timed_out, alerts.so_far(), run.options)
    findings = limits.rejudged(reading.findings, reading.inputs, run.options.thresholds)
    return dataclasses.replace(reading, findings=findings)


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _what_was_read(run: Run, reading: Reading | None) -> tuple[str, ...]:
    """-vv: the run's configuration, never a credential."""
    given = {**run.options.thresholds.warning, **run.options.thresholds.critical}
    lines = [
        f"target {run.target.name} as {run.target.user}, timeout {run.options.timeout:g} s",
        f"collectors read: {', '.join(run.collectors)}",
        f"checks selected: {', '.join(c.id for c in run.selection.checks)}",
        "thresholds given: " + (", ".join(sorted(given)) or f"none (names: {', '.join(LIMITS)})"),
    ]
    if reading is not None and reading.result.collector_errors:
        lines += [f"collector {n} failed: {e}" for n, e in reading.result.collector_errors.items()]
    return tuple(lines)


def _check(run: Run, outcome: Reading | Verdict) -> int:
    reading = outcome if isinstance(outcome, Reading) else None
    if isinstance(outcome, Verdict):
        verdict = outcome
    elif run.options.question is not None:
        verdict = nagios.answered(outcome, run.options)
    else:
        verdict = nagios.judge(outcome, run.selection, run.options)
    if run.options.verbosity >= 2:
        verdict = dataclasses.replace(
            verdict, verbose=verdict.verbose + _what_was_read(run, reading)
        )
    print(verdict.output(run.options.verbosity))
    return verdict.code


def _report(run: Run, outcome: Reading | Verdict) -> int:
    options = run.options
    if isinstance(outcome, Verdict):  # out of time: nothing was read
        print(f"ndbinfo-exporter report: {outcome.text}", file=sys.stderr)
        return UNREADABLE
    verdict = nagios.judge(outcome, nagios.select(()), options)
    report = document.build(outcome, options, verdict)
    if options.format == "json":
        out = report.model_dump_json(indent=2) + "\n"
    elif options.format == "markdown":
        out = render.markdown(report)
    else:
        out = render.text(report, colour=_colour())
    sys.stdout.write(out)
    return UNREADABLE if nagios.unreadable(outcome, options) is not None else 0


def _fail(command: str, message: str, code: int | None = None) -> int:
    """One line: UNKNOWN for check, on stderr for report."""
    message = logs.redact(" ".join(message.split()))
    if command == "check":
        print(nagios.unknown(message).output())
        return nagios.UNKNOWN
    print(f"ndbinfo-exporter {command}: {message}", file=sys.stderr)
    return CONFIG_ERROR[command] if code is None else code


def main(command: str, argv: Sequence[str]) -> int:
    try:
        run = configure(command, argv)
    except ConfigError as exc:
        return _fail(command, str(exc))
    # Only errors on stderr unless asked: a check's output is its status line.
    level = "debug" if run.options.verbosity >= 3 else "error"
    logs.setup(
        run.options.settings.log_level if _log_level_given(argv) else level,
        run.options.settings.log_format,
    )
    try:
        outcome = reading_of(run)
        code = (_check if command == "check" else _report)(run, outcome)
    except Exception as exc:  # never a traceback: the plugin's own failure is UNKNOWN
        return _fail(command, f"internal error: {type(exc).__name__}: {exc}", UNREADABLE)
    stalled = isinstance(outcome, Verdict) or outcome.timed_out is not None
    if stalled:  # a query still blocked in a pool thread must not hold the exit
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _log_level_given(argv: Sequence[str]) -> bool:
    return any(a.split("=", 1)[0] == "--log.level" for a in argv) or bool(
        os.environ.get("NDB_EXPORTER_LOG_LEVEL")
    )
