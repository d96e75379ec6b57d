"""Log lines: logfmt or JSON, one line each, secrets masked."""

from __future__ import annotations

import json
import logging

from ndbinfo_exporter import logs


def record(msg: str, **fields) -> logging.LogRecord:
    rec = logging.LogRecord("ndbinfo_exporter.test", logging.WARNING, __file__, 1, msg, (), None)
    rec.fields = fields
    return rec


def test_logfmt_masks_secrets():
    logs.add_secret("Sup3r-Secret")
    line = logs.LogfmtFormatter().format(
        record("collector failed", collector="status", err='denied "Sup3r-Secret"\nagain')
    )
    assert "Sup3r-Secret" not in line
    assert "\n" not in line
    assert "level=warn" in line
    assert 'msg="collector failed"' in line
    assert "collector=status" in line
    assert 'err="denied \\"<secret>\\" again"' in line


def test_json():
    logs.add_secret("Sup3r-Secret")
    line = logs.JsonFormatter().format(
        record("scrape failed", target="db:3306", err="Sup3r-Secret")
    )
    parsed = json.loads(line)
    assert parsed["msg"] == "scrape failed"
    assert parsed["target"] == "db:3306"
    assert parsed["err"] == "<secret>"
    assert parsed["level"] == "warn"


def test_rate_limited_warning_says_how_many_were_left_out(caplog):
    limited = logs.RateLimited(logging.getLogger("ndbinfo_exporter.test"), interval=3600)
    caplog.set_level(logging.WARNING)
    for _ in range(1000):
        limited.warning("out of descriptors")
    assert len(caplog.records) == 1
    limited._next = 0  # the interval has passed
    limited.warning("out of descriptors")
    assert caplog.records[-1].fields == {"suppressed": 999}


def test_accept_errors_become_one_warning(caplog):
    import asyncio

    from ndbinfo_exporter import httpserver

    loop = asyncio.new_event_loop()
    try:
        httpserver.quiet_accept_errors(loop)
        caplog.set_level(logging.WARNING)
        for _ in range(500):
            loop.call_exception_handler(
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(24, "Too many open files"),
                }
            )
    finally:
        loop.close()
    assert len([r for r in caplog.records if "file descriptors" in r.getMessage()]) == 1
