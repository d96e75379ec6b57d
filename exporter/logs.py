"""Logging in logfmt or JSON, with every known secret masked before a line is written."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from typing import Any

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}

_secrets: set[str] = set()
_secrets_lock = threading.Lock()
MASK = "<secret>"


def add_secret(value: str | None) -> None:
    """Remember a value (a password) that must never be written anywhere."""
    if value:
        with _secrets_lock:
            _secrets.add(value)


def _mask(text: str) -> str:
    with _secrets_lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


def redact(text: str) -> str:
    """``text`` with every known secret masked, folded to one line."""
    return " ".join(_mask(text).split())


def _fields(record: logging.LogRecord) -> dict[str, str]:
    fields: dict[str, Any] = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        + f".{int(record.msecs):03d}Z",
        "level": record.levelname.lower().replace("warning", "warn"),
        "logger": record.name,
        "msg": record.getMessage(),
    }
    fields.update(getattr(record, "fields", {}) or {})
    out = {key: redact(str(value)) for key, value in fields.items()}
    # Tracebacks only at debug level, where a multi-line entry is acceptable.
    if record.exc_info and logging.getLogger().isEnabledFor(logging.DEBUG):
        out["exc"] = _mask(logging.Formatter().formatException(record.exc_info))
    return out


def _logfmt_value(value: str) -> str:
    if value and not any(c in value for c in ' "=\\'):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class LogfmtFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return " ".join(f"{k}={_logfmt_value(v)}" for k, v in _fields(record).items())


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(_fields(record))


def setup(level: str, fmt: str) -> None:
    """Route the exporter's and uvicorn's loggers to one stderr handler."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else LogfmtFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(LEVELS[level])
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    # One line per HTTP request is noise at the default level.
    logging.getLogger("uvicorn.access").setLevel(
        logging.INFO if level == "debug" else logging.WARNING
    )
    # The connector logs at debug level with its own, unredacted messages.
    logging.getLogger("mysql.connector").setLevel(logging.WARNING)
