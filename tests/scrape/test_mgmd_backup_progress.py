"""A running backup's progress read from the management server: `dump events` replies as
MgmApiSession::dump_events writes them (recorded here), asked only while the cluster log says a
backup runs, the metrics and the estimate built from them (no process: a management server on
a local port answers the recorded replies and counts the commands)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from ndbinfo_exporter.scrape.mgmd import client, protocol
from ndbinfo_exporter.scrape.mgmd.backup_progress import BACKUP_STATUS
from ndbinfo_exporter.scrape.mgmd.events import ClusterLogState
from ndbinfo_exporter.scrape.mgmd.protocol import ProtocolError
from ndbinfo_exporter.scrape.mgmd.reader import MgmdReader

STATUS = "node status\nnodes: 1\nnode.1.type: NDB\nnode.1.status: STARTED\n\n"


def backup_status(node: int, backup_id: int, data_bytes: int, records: int) -> str:
    """One data node's report as logevent2str writes it (`%d`: a word past 2^31 is negative),
    followed by the empty line dump_events prints after each."""
    words = {
        "starting_node": 49 if backup_id else 0,
        "backup_id": backup_id,
        "n_bytes_lo": data_bytes & 0xFFFFFFFF,
        "n_bytes_hi": data_bytes >> 32,
        "n_records_lo": records & 0xFFFFFFFF,
        "n_records_hi": records >> 32,
        "n_log_bytes_lo": 65536 if backup_id else 0,
        "n_log_bytes_hi": 0,
        "n_log_records_lo": 512 if backup_id else 0,
        "n_log_records_hi": 0,
    }
    fields = "".join(f"{k}={v - (1 << 32) if v >= 1 << 31 else v}\n" for k, v in words.items())
    return f"log event reply\ntype=62\ntime=0\nsource_nodeid={node}\n{fields}\n"


def dump_reply(*reports: str) -> str:
    return f"dump events reply\nresult: Ok\nevents: {len(reports)}\n\n" + "".join(reports)


NOT_STARTED_REPORT = backup_status(2, 0, 0, 0)  # "Backup not started"
NOT_STARTED = dump_reply(backup_status(1, 0, 0, 0), NOT_STARTED_REPORT)


class RecordedMgmd:
    """Answers `get status` and `dump events` with the replies given, and counts each
    command."""

    def __init__(self, dumps: list[str]) -> None:
        self.dumps = dumps  # the next `dump events` reply is the first; the last stays
        self.asked: list[str] = []
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        command = (await reader.readline()).decode().strip()
        while (await reader.readline()).strip():
            pass
        self.asked.append(command)
        if command == "dump events":
            writer.write((self.dumps.pop(0) if len(self.dumps) > 1 else self.dumps[0]).encode())
        else:
            writer.write(STATUS.encode())
        await writer.drain()
        writer.close()


@asynccontextmanager
async def recorded_mgmd(*dumps: str) -> AsyncIterator[RecordedMgmd]:
    mgmd = RecordedMgmd(list(dumps) or [NOT_STARTED])
    server = await asyncio.start_server(mgmd.handle, "127.0.0.1", 0)
    mgmd.port = server.sockets[0].getsockname()[1]
    async with server:
        yield mgmd


@asynccontextmanager
async def reading(mgmd: RecordedMgmd, monkeypatch) -> AsyncIterator[tuple[MgmdReader, list]]:
    """A reader of the recorded management server, its cluster log fed by the test (no
    subscription), and the clock of its cluster log state, which the test sets."""
    manager = MgmdReader([("127.0.0.1", mgmd.port)])
    monkeypatch.setattr(manager.subscription, "start", lambda: None)
    now = [1000.0]
    manager.state = ClusterLogState(clock=lambda: now[0])
    try:
        yield manager, now
    finally:
        await manager.close()


def log(manager: MgmdReader, *lines: str) -> None:
    manager.state.record(protocol.event(["time=0", "source_nodeid=1", *lines]))


async def samples(manager: MgmdReader) -> dict[tuple[str, tuple], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in await manager.families(1.0)
        for s in family.samples
        if s.name.startswith("ndb_mgmd_backup")
    }


async def test_a_dump_events_reply_is_read_as_ndb_mgm_dump_events_reads_it():
    big = (1 << 32) + (1 << 31) + 5  # its low word is sent negative
    async with recorded_mgmd(dump_reply(backup_status(1, 12, big, 7), NOT_STARTED_REPORT)) as m:
        events = await client.dump_events(("127.0.0.1", m.port), BACKUP_STATUS)
    assert m.asked == ["dump events"]
    assert [(e.name, e.source_node, e.u32("backup_id")) for e in events] == [
        ("BackupStatus", 1, 12),
        ("BackupStatus", 2, 0),
    ]
    assert events[0].u64("n_bytes_lo", "n_bytes_hi") == big
    assert events[0].u64("n_records_lo", "n_records_hi") == 7


@pytest.mark.parametrize(
    "reply",
    [
        "dump events reply\nresult: ndb_logevent_type 99 not supported\n\n",
        "dump events reply\nresult: failed to dump events\n\n",
        "dump events reply\nresult: Ok\n\n",  # no count
        "dump events reply\nresult: Ok\nevents: 1000\n\n",
        "dump events reply\nresult: Ok\nevents: 1\n\nnode status\n\n",
    ],
)
async def test_a_refused_or_malformed_dump_events_reply_is_a_protocol_error(reply):
    async with recorded_mgmd(reply) as m:
        with pytest.raises(ProtocolError):
            await client.dump_events(("127.0.0.1", m.port), BACKUP_STATUS)


async def test_progress_is_asked_only_while_a_backup_runs_and_estimates_the_rest(monkeypatch):
    running = dump_reply(backup_status(1, 8, 100, 10), backup_status(2, 8, 150, 15))
    further = dump_reply(backup_status(1, 8, 300, 30), backup_status(2, 8, 300, 30))
    async with recorded_mgmd(running, further) as m, reading(m, monkeypatch) as (manager, now):
        for _ in range(3):
            idle = await samples(manager)
        log(manager, "type=56", "backup_id=7", "n_bytes=1000", "n_records=100")
        idle = await samples(manager)
        assert m.asked.count("dump events") == 0
        assert idle[("ndb_mgmd_backup_running", ())] == 0
        assert not [k for k in idle if "running_" in k[0] or "progress" in k[0]]

        log(manager, "type=54", "starting_node=49", "backup_id=8")
        now[0] += 20.0
        first = await samples(manager)
        assert m.asked.count("dump events") == 1
        assert first[("ndb_mgmd_backup_running", ())] == 1
        assert first[("ndb_mgmd_backup_running_bytes", (("node_id", "2"),))] == 150
        assert first[("ndb_mgmd_backup_running_records", (("node_id", "1"),))] == 10
        assert first[("ndb_mgmd_backup_progress_ratio", ())] == 0.25  # 250 of 1000 bytes
        assert first[("ndb_mgmd_backup_remaining_seconds", ())] == 60.0  # 20 s for a quarter

        now[0] += 20.0
        second = await samples(manager)
        assert second[("ndb_mgmd_backup_progress_ratio", ())] == 0.6
        assert second[("ndb_mgmd_backup_remaining_seconds", ())] == pytest.approx(40 * 0.4 / 0.6)
        card = manager.snapshot()
        assert (card.running_backup.backup_id, card.backup_progress.bytes) == (8, 600)

        log(manager, "type=56", "backup_id=8", "n_bytes=1100", "n_records=110")
        for _ in range(3):
            done = await samples(manager)
    assert m.asked.count("dump events") == 2 and m.asked.count("get status") == 9
    assert done[("ndb_mgmd_backup_running", ())] == 0
    assert done[("ndb_mgmd_backup_last_completed_id", ())] == 8
    assert not [k for k in done if "running_" in k[0] or "progress" in k[0]]
    assert manager.snapshot().backup_progress is None


async def test_a_backup_the_data_nodes_no_longer_report_has_ended(monkeypatch):
    """Its BackupCompleted came while the subscription was down: the reports of no backup
    end it, and nothing more is asked."""
    async with recorded_mgmd(NOT_STARTED) as m, reading(m, monkeypatch) as (manager, _):
        log(manager, "type=54", "starting_node=49", "backup_id=9")
        for _ in range(3):
            after = await samples(manager)
    assert m.asked.count("dump events") == 1
    assert after[("ndb_mgmd_backup_running", ())] == 0


@pytest.mark.parametrize(
    "reply",
    [
        "dump events reply\nresult: failed to dump events\n\n",
        dump_reply(),  # no data node answered
    ],
)
async def test_without_reports_the_backup_still_runs_with_no_estimate(monkeypatch, reply):
    async with recorded_mgmd(reply) as m, reading(m, monkeypatch) as (manager, _):
        log(manager, "type=56", "backup_id=7", "n_bytes=1000", "n_records=100")
        log(manager, "type=54", "starting_node=49", "backup_id=8")
        for _ in range(2):
            seen = await samples(manager)
    assert m.asked.count("dump events") == 2
    assert seen[("ndb_mgmd_backup_running", ())] == 1
    assert not [k for k in seen if "running_" in k[0] or "progress" in k[0] or "remaining" in k[0]]
