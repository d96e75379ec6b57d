"""Logging in logfmt or JSON, with every known secret masked before a line is written."""

from __future__ import annotations

import json
import logging
import re
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
# A secret this long is masked wherever it appears; a shorter one only where it stands as a
# value of its own (not inside a word), so that a one-letter password does not garble text.
MIN_SUBSTRING_SECRET = 6
_WORD = r"[A-Za-z0-9_]"
# Whatever follows "password=" or "password: " in error text (a driver's, a parser's).
_PASSWORD_VALUE = re.compile(
    r"(?i)\b(password|passwd|pwd|secret)(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;)]+)"
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def add_secret(value: str | None) -> None:
    """Remember a value (a password) that must never be written anywhere."""
    if value:
        with _secrets_lock:
            _secrets.add(value)


def _mask(text: str) -> str:
    with _secrets_lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if len(secret) >= MIN_SUBSTRING_SECRET:
            text = text.replace(secret, MASK)
        else:
            text = re.sub(f"(?<!{_WORD}){re.escape(secret)}(?!{_WORD})", MASK, text)
    return _PASSWORD_VALUE.sub(_mask_value, text)


def _mask_value(match: re.Match[str]) -> str:
    value = match[3]
    if value.lower() in ("yes", "no", MASK.lower()):  # "using password: NO"
        return match[0]
    return f"{match[1]}{match[2]}{MASK}"


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
    if value and not any(c in value for c in ' "=\\') and not _CONTROL.search(value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _CONTROL.sub(_escape_control, escaped) + '"'


def _escape_control(match: re.Match[str]) -> str:
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(match[0], f"\\u{ord(match[0]):04x}")


class RateLimited:
    """At most one line per ``interval`` seconds for a message that may repeat in bursts;
    the next line says how many were left out."""

    def __init__(self, logger: logging.Logger, interval: float = 60.0):
        self._logger = logger
        self._interval = interval
        self._next = 0.0
        self._suppressed = 0
        self._lock = threading.Lock()

    def warning(self, msg: str, **fields: Any) -> None:
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                self._suppressed += 1
                return
            self._next = now + self._interval
            suppressed, self._suppressed = self._suppressed, 0
        if suppressed:
            fields["suppressed"] = suppressed
        self._logger.warning(msg, extra={"fields": fields})


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
