"""The binlog server's event buffer as the cluster log shows it: the SQL node's event buffer
status report (NdbEventBuffer::reportStatus: EventBufferStatus2 in 7.x, EventBufferStatus3 with
64-bit sizes from 8.0) when subscriber-lag or injector-behind makes it lag and when it recovers,
and the data nodes' SubscriptionStatus when the subscriber's unacknowledged epochs reach
MaxBufferedEpochs (Suma::checkMaxBufferedEpochs disconnects it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.replication import (
    INJECTOR_BEHIND_GCIS,
    epoch_before,
    epochs_per_gci,
    subscriber_lag_epochs,
)

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

EVENT_BUFFER_BYTES_PER_EPOCH = 12 * 1024
# ndb_logevent_event_buffer_status_report_reason (ndb_logevent.h), in value order as
# EventLogger.cpp's ndb_logevent_eventBuff_status_reasons[] names them
REPORT_REASONS = (
    "NO_REPORT",
    "COMPLETELY_BUFFERING",
    "PARTIALLY_DISCARDING",
    "COMPLETELY_DISCARDING",
    "PARTIALLY_BUFFERING",
    "BUFFERED_EPOCHS_OVER_THRESHOLD",
    "ENOUGH_FREE_EVENTBUFFER",
    "LOW_FREE_EVENTBUFFER",
    "EVENTBUFFER_USAGE_HIGH",
)
INJECTOR_NDB_BLOCK = 0x8002  # block number of the binlog injector's Ndb object (API blocks)
SUMA_DISCONNECTED = 1  # SubscriptionStatus::DISCONNECTED


def size_text(size: int) -> str:
    """EventLogger's convert_unit64: bytes below 16 KiB, KB below 16 MiB, then MB (GB when
    a whole number of GiB past 4 GiB)."""
    if size >> 32 and size % (1 << 30) == 0:
        return f"{size >> 30}GB"
    if size >> 32 or size >= 16 << 20:
        return f"{(size + (1 << 20) - 1) >> 20}MB"
    if size >= 16 << 10:
        return f"{(size + 1023) >> 10}KB"
    return f"{size}B"


class EventBufferWatch:
    """What the binlog server last reported of its event buffer, and whether SUMA already
    disconnected it for the current lag."""

    def __init__(self) -> None:
        self.lag = 0  # epochs the reported buffer held
        self.disconnected = False

    def observe(self, c: Cluster) -> None:
        lag, reason = _lag(c)
        if lag != self.lag:
            self.lag = lag
            report_status(c, lag, reason)
        self._max_buffered_epochs(c)

    def _max_buffered_epochs(self, c: Cluster) -> None:
        """Suma::checkMaxBufferedEpochs: at each epoch's completion a data node counts the
        epochs some subscriber has not acknowledged, and disconnects the subscribers of the
        oldest one once they reach MaxBufferedEpochs."""
        epochs = subscriber_lag_epochs(c)
        ready = c.started_ids()
        limit = min((int(c.config[n]["MaxBufferedEpochs"]) for n in ready), default=0)
        over = bool(ready) and epochs > 0 and epochs >= limit
        if over and not self.disconnected:
            oldest = epoch_before(c.checkpoints, epochs)
            for n in ready:
                _disconnecting(c, n, oldest, epochs, limit)
        self.disconnected = over


def _lag(c: Cluster) -> tuple[int, str]:
    """Epochs the binlog server's event buffer holds, and the reason it reports them."""
    behind = c.faults.get("injector-behind")
    if behind is not None:
        gap = behind.get("gap", False)
        return (
            INJECTOR_BEHIND_GCIS * epochs_per_gci(c.checkpoints),
            "COMPLETELY_DISCARDING" if gap else "BUFFERED_EPOCHS_OVER_THRESHOLD",
        )
    if c.faults.is_active("subscriber-lag"):
        return subscriber_lag_epochs(c), "BUFFERED_EPOCHS_OVER_THRESHOLD"
    return 0, "ENOUGH_FREE_EVENTBUFFER"


def report_status(c: Cluster, epochs: int, reason: str) -> None:
    """The binlog server's event buffer status, with `epochs` epochs buffered and not
    consumed."""
    node, latest = c.sql_node_id, c.checkpoints.epoch
    consumed = epoch_before(c.checkpoints, epochs)
    usage = epochs * EVENT_BUFFER_BYTES_PER_EPOCH
    alloc = max(usage, EVENT_BUFFER_BYTES_PER_EPOCH)
    limit = alloc if reason == "COMPLETELY_DISCARDING" else 0  # ndb_eventbuffer_max_alloc
    reference = node << 16 | INJECTOR_NDB_BLOCK
    used = size_text(usage) if usage else "0B"
    if usage and limit:
        used += f"({100 * usage // limit}% of max)"
    text = (
        f"Event buffer status (0x{reference:x}): max={size_text(limit) if limit else 'unlimited'}"
        f" used={used} alloc={size_text(alloc)} latest_consumed_epoch={consumed >> 32}/"
        f"{consumed & 0xFFFFFFFF} latest_buffered_epoch={latest >> 32}/{latest & 0xFFFFFFFF}"
        f" report_reason={reason}"
    )
    low = 0xFFFFFFFF
    fields = {
        "latest_consumed_epoch_l": consumed & low,
        "latest_consumed_epoch_h": consumed >> 32,
        "latest_buffered_epoch_l": latest & low,
        "latest_buffered_epoch_h": latest >> 32,
        "ndb_reference": reference,
        "report_reason": REPORT_REASONS.index(reason),
    }
    if c.version.is_7x:
        # getTextEventBufferStatus2 writes the alloc and the consumed epoch without a space
        text = text.replace(" latest_consumed_epoch", "latest_consumed_epoch", 1)
        sizes = {"usage": usage, "alloc": alloc, "max": limit}
        c.log.emit("EventBufferStatus2", node, c.wall_time(), text, **sizes, **fields)
        return
    sizes = {"usage": usage, "alloc": alloc, "max": limit}
    for key, size in sizes.items():
        fields[f"{key}_l"], fields[f"{key}_h"] = size & low, size >> 32
    c.log.emit("EventBufferStatus3", node, c.wall_time(), text, **fields)


def _disconnecting(c: Cluster, data_node: int, oldest: int, epochs: int, limit: int) -> None:
    """A data node's SUMA disconnects the subscriber whose buffered epochs reached the limit;
    the event has no named fields, its words are sent as `data=`."""
    node = c.sql_node_id
    gci, micro = oldest >> 32, oldest & 0xFFFFFFFF
    text = (
        f"Disconnecting node {node} because it has exceeded MaxBufferedEpochs "
        f"({epochs} >= {limit}), epoch {gci}/{micro}"
    )
    words = (SUMA_DISCONNECTED, node, micro, gci, epochs, limit)
    c.log.emit("SubscriptionStatus", data_node, c.wall_time(), text, words=words)
