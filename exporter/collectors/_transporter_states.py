"""What the transporter collectors share: the states of a transporter (enums.json
"transporters.connection_status"), and its overload and slowdown counts kept monotonic.

A link's overload and slowdown counts start again from zero when it reconnects (the data node
keeps them per connection, and from zero when it restarts). The collectors keep each link's
last counts between scrapes (``Context.kept``): a count that went back or a new connect count
adds the counts of the link's last connection to the ones exported, so that a reconnect is
never a counter decrease (the overloads of a connection after the last scrape that saw it are
lost).
"""

from __future__ import annotations

from collections.abc import Iterable

from .base import Row, ident, number

STATES = ("CONNECTED", "CONNECTING", "DISCONNECTED", "DISCONNECTING")
# Counts per connection of a link.
RESTARTING = ("overload_count", "slowdown_count")


def monotonic(kept: dict, rows: Iterable[Row], link: str) -> dict[tuple[str, str], dict]:
    """(data node, link) -> restarting column -> its count over every connection seen, for
    every link seen so far. ``link`` names the column that tells the link (remote node); a row
    whose link is 0 stands for links without any count and is skipped.

    ``kept`` holds, per link: its connect count, the counts of its current connection and
    those of its earlier ones. A link absent from ``rows`` keeps its last counts until it shows
    again, so a partial set of rows changes nothing for the links it lacks."""
    for row in rows:
        remote = ident(row[link])
        if remote == "0":
            continue
        key = (ident(row["node_id"]), remote)
        connects = number(row["connect_count"])
        now = {column: number(row[column]) or 0.0 for column in RESTARTING}
        last = kept.get(key)
        if last is None:
            kept[key] = (connects, now, dict.fromkeys(RESTARTING, 0.0))
            continue
        last_connects, last_counts, earlier = last
        if connects != last_connects or any(now[c] < last_counts[c] for c in RESTARTING):
            earlier = {c: earlier[c] + last_counts[c] for c in RESTARTING}
        kept[key] = (connects, now, earlier)
    return {
        key: {c: counts[c] + earlier[c] for c in RESTARTING}
        for key, (_, counts, earlier) in kept.items()
    }
