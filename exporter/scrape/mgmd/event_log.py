"""The cluster log kept: every event the `listen event` subscription receives, written as one
JSON object per line (``--mgmd.event-log``) for Loki, Vector or an OpenTelemetry collector.

A line: ``time`` (when the exporter received it, RFC 3339 in UTC with milliseconds; the
management server sends no usable time), ``node`` (the reporting node), ``type`` and
``type_number`` (`Ndb_logevent_type`), ``category``, ``level`` (the threshold of its category
that reports it) and ``severity`` (`EventLoggerBase::matrix[]`), ``text`` (EventLogger's
wording where the exporter knows it), ``fields`` (each field by its wire name, as the
unsigned 32-bit word the node sent; `data` for the words of an event without named fields)
and ``mgmd`` (the management servers subscribed to). The events are those the subscription's
filter (protocol.LISTEN_LEVELS) lets through."""

from __future__ import annotations

import datetime
import json
import logging
import sys
from typing import TextIO

from ndbinfo_exporter import logs
from ndbinfo_exporter.scrape.mgmd.event_types import EVENT_TYPES
from ndbinfo_exporter.scrape.mgmd.protocol import Event

STDOUT = "-"
_TYPES = {event.number: event for event in EVENT_TYPES}
_failed = logs.RateLimited(logging.getLogger(__name__))


def event_line(event: Event, text: str, received_at: float, mgmd: str) -> str:
    """One event as a JSON line (without its newline)."""
    kind = _TYPES.get(event.type)
    fields: dict[str, object] = {name: event.u32(name) for name in event.fields if name != "data"}
    if event.data:
        fields["data"] = [word & 0xFFFFFFFF for word in event.data]
    when = datetime.datetime.fromtimestamp(received_at, datetime.UTC)
    return json.dumps(
        {
            "time": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "node": event.source_node,
            "type": event.name,
            "type_number": event.type,
            "category": kind.category if kind else None,
            "level": kind.threshold if kind else None,
            "severity": event.severity,
            "text": text,
            "fields": fields,
            "mgmd": mgmd,
        },
        separators=(",", ":"),
    )


class EventLog:
    """Appends the lines to a file, or writes them to stdout for ``-``. A line that cannot be
    written (a full disk) is counted, logged at most once a minute, and the exporter goes
    on."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.failed = 0

    @classmethod
    def open(cls, path: str) -> EventLog:
        """OSError when the file cannot be opened for appending."""
        if path == STDOUT:
            return cls(sys.stdout)
        return cls(open(path, "a", encoding="utf-8", buffering=1))

    def write(self, line: str) -> None:
        try:
            self._stream.write(line + "\n")
            self._stream.flush()
        except (OSError, ValueError) as exc:
            self.failed += 1
            _failed.warning("cannot write a cluster log event to --mgmd.event-log", error=str(exc))

    def close(self) -> None:
        if self._stream is not sys.stdout:
            self._stream.close()
