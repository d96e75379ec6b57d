"""Small HTTP edges, in-process: HEAD, no Host-based redirect, gzip refused by q=0, timeout
headers out of range, control characters from /probe in the log."""

from __future__ import annotations

import logging

import pytest
from ndbinfo_exporter import app as app_module
from ndbinfo_exporter import logs
from ndbinfo_exporter.app import accepts_gzip, scrape_timeout

from tests.support.exporter_app import exporter_client, fake_node  # noqa: F401 (fixtures)


async def test_head_on_metrics_and_healthz(client):
    for path in ("/metrics", "/healthz"):
        response = await client.head(path)
        assert response.status_code == 200, path
        assert response.content == b""


async def test_no_redirect_built_from_the_host_header(client):
    response = await client.get("/metrics/", headers={"Host": "evil.example"})
    assert response.status_code == 404
    assert "location" not in response.headers


@pytest.mark.parametrize(
    ("header", "gzip"),
    [
        ("gzip", True),
        ("gzip;q=0", False),
        ("gzip; q=0.0, identity", False),
        ("*;q=0", False),
        ("identity, *;q=0.5", True),
        ("br, gzip;q=0.1", True),
        ("", False),
    ],
)
def test_accept_encoding(header, gzip):
    assert accepts_gzip(header) is gzip


async def test_gzip_q0_gets_plain_text(client):
    response = await client.get("/metrics", headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in response.headers
    assert "ndb_up" in response.text


def test_timeout_header_out_of_range_falls_back_with_one_warning(caplog, monkeypatch):
    monkeypatch.setattr(app_module, "_bad_timeout", logs.RateLimited(app_module.log))
    caplog.set_level(logging.WARNING)
    for value in ("nan", "inf", "-inf", "1e308", "-5", "0", "NaN"):
        assert scrape_timeout(value, 0.5) == 9.5
    assert scrape_timeout("3600", 0.5) == 3599.5
    warnings = [r for r in caplog.records if "X-Prometheus-Scrape-Timeout-Seconds" in r.message]
    assert len(warnings) == 1


async def test_probe_timeout_header_nan_still_scrapes(client):
    response = await client.get("/metrics", headers={"X-Prometheus-Scrape-Timeout-Seconds": "nan"})
    assert response.status_code == 200
    assert "ndb_up 1.0" in response.text


def test_control_characters_are_escaped_in_logfmt():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "probe refused", None, None)
    record.fields = {"target": "db\x1b[31m\x00:3306\r\nlevel=error msg=forged"}
    line = logs.LogfmtFormatter().format(record)
    assert "\n" not in line and "\r" not in line and "\x1b" not in line and "\x00" not in line
    assert "\\u001b" in line and "\\u0000" in line
    assert 'target="db' in line
