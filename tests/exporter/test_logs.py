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
