"""ndb_mgmd's session loop: a command line, its `name: value` arguments, a blank line; the
reply; and for `listen event` the socket turned into an event listener that receives the
cluster log's events its filter lets through and `<PING>` while idle (Services.cpp)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ndbsim.model.cluster_log import CATEGORIES
from ndbsim.protocol.mgm import replies

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

log = logging.getLogger(__name__)

MAX_LINE = 4096
TICK_SECONDS = 0.2  # how often a listener looks for new events
PING_SECONDS = 0.5  # ndb_mgmd pings its listeners at each turn of its 500 ms log level thread
SESSION_IDLE_SECONDS = 300.0  # a session that sends nothing for this long is closed
MAX_LOGLEVEL = 15

# command -> {argument: (int?, mandatory?)}, as in the commands[] table of Services.cpp
COMMANDS: dict[str, dict[str, tuple[bool, bool]]] = {
    "get version": {},
    "get status": {"types": (False, False)},
    "get mgmd nodeid": {},
    "check connection": {},
    "listen event": {"node": (True, False), "parsable": (True, False), "filter": (False, True)},
    "dump events": {"type": (True, True), "nodes": (False, False)},
    "start backup": {
        "completed": (True, False),
        "backupid": (True, False),
        "backuppoint": (True, False),
    },
    "bye": {},
    "end session": {},
}


class ParseError(ValueError):
    """A request the parser refuses; the message is the server's `result:` text."""


@dataclass
class Request:
    command: str
    args: dict[str, str | int]


@dataclass
class Listener:
    parsable: bool
    levels: dict[str, int]  # category name -> level

    def wants(self, category: str, threshold: int) -> bool:
        return threshold <= self.levels.get(category, 0)


def parse_filter(text: str) -> dict[str, int]:
    """`listen event` filter: "CATEGORY=level" (or the category number) items separated by
    spaces or commas; ParseError with the server's message otherwise."""
    levels: dict[str, int] = {}
    items = [i for i in text.replace(",", " ").split() if i]
    if not items:
        raise ParseError("Empty filter specification")
    by_number = {number: name for name, number in CATEGORIES.items()}
    for item in items:
        spec = item.replace(":", "=").split("=")
        if len(spec) != 2:
            raise ParseError(f"Invalid filter specification: >{text}< >{item}< {len(spec)}")
        name = spec[0].strip().upper()
        if name not in CATEGORIES:
            number = int(name) if name.isdigit() else -1
            if number not in by_number:
                raise ParseError(f"Unknown category: >{name}<")
            name = by_number[number]
        level = int(spec[1]) if spec[1].strip().lstrip("-").isdigit() else 0
        if not 0 <= level <= MAX_LOGLEVEL:
            raise ParseError(f"Invalid level: >{spec[1]}<")
        levels[name] = level
    return levels


class MgmServer:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.node_id = cluster.topology.mgm_nodes[0].node_id

    def down(self) -> bool:
        """ndb_mgmd does not answer: the mgm-down fault, or its management node stopped (the
        process is gone)."""
        c = self.cluster
        return c.faults.is_active("mgm-down") or not c.other_up.get(self.node_id, True)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down():
            writer.close()
            return
        try:
            await self._session(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            line = await self._line(reader)
            if line is None:
                return
            if not line:
                continue
            if line not in COMMANDS:
                await self._send(writer, [f"result: Unknown command, '{line}'", ""])
                continue
            try:
                request = Request(line, await self._args(reader, line))
            except ParseError as e:
                await self._send(writer, [f"result: {e}", ""])
                continue
            if request.command in ("bye", "end session"):
                if request.command == "end session":
                    await self._send(writer, ["end session reply"])
                return
            if request.command == "listen event":
                await self._listen(request, writer)
                return
            await self._send(writer, await self._answer(request))

    async def _line(self, reader: asyncio.StreamReader) -> str | None:
        raw = await asyncio.wait_for(reader.readline(), SESSION_IDLE_SECONDS)
        if not raw:
            return None
        if len(raw) > MAX_LINE:
            raise ValueError("line too long")
        return raw.decode("utf-8", "replace").strip()

    async def _args(self, reader: asyncio.StreamReader, command: str) -> dict[str, str | int]:
        """The argument lines up to the blank line, checked against the command's table."""
        spec, args = COMMANDS[command], {}
        while True:
            line = await self._line(reader)
            if not line:
                break
            name, sep, value = line.partition(":")
            name, value = name.strip(), value.strip()
            if not sep or name not in spec:
                raise ParseError(f"Unknown argument, '{name}'")
            if name in args:
                raise ParseError(f"Argument given twice, '{name}'")
            is_int, _ = spec[name]
            if is_int:
                try:
                    args[name] = int(value)
                except ValueError:
                    raise ParseError(f"Type mismatch, '{name}'") from None
            else:
                args[name] = value
        missing = [n for n, (_, mandatory) in spec.items() if mandatory and n not in args]
        if missing:
            raise ParseError(f"Missing arg., '{missing[0]}'")
        return args

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, lines: list[str]) -> None:
        writer.write(("\n".join(lines) + "\n").encode())
        await writer.drain()

    async def _answer(self, request: Request) -> list[str]:
        c, args = self.cluster, request.args
        await asyncio.to_thread(c.advance)
        if request.command == "get version":
            return replies.version(c)
        if request.command == "get status":
            types = str(args.get("types", "")).upper().split() or None
            return replies.status(c, types)
        if request.command == "get mgmd nodeid":
            return ["get mgmd nodeid reply", f"nodeid:{self.node_id}", ""]
        if request.command == "check connection":
            return ["check connection reply", "result: Ok", ""]
        if request.command == "dump events":
            return self._dump_events(args)
        return await self._start_backup(int(args.get("completed", 2)))

    def _dump_events(self, args: dict[str, str | int]) -> list[str]:
        text = str(args.get("nodes", ""))
        try:
            nodes = [int(p) for p in text.replace(",", " ").split()]
        except ValueError:
            nodes = [-1]
        if any(not 1 <= n <= 144 for n in nodes):
            return ["dump events reply", f"result: invalid nodes: '{text}'", ""]
        return replies.dump_events(self.cluster, int(args["type"]), nodes)

    async def _start_backup(self, completed: int) -> list[str]:
        c = self.cluster
        backup_id, error = await asyncio.to_thread(c.start_backup)
        seq = c.log.last_seq()
        while error == 0 and completed == 2 and c.backups.running is not None:
            await asyncio.sleep(TICK_SECONDS)
            await asyncio.to_thread(c.advance)
        if error == 0 and completed == 2:
            ends = [
                e
                for e in c.log.since(seq - 1)
                if e.type.name == "BackupAborted" and e.fields["backup_id"] == backup_id
            ]
            error = ends[0].fields["error"] if ends else 0
        lines = ["start backup reply"]
        if error:
            lines.append(f"result: {replies.backup_error_text(error)}")
        else:
            lines.append("result: Ok")
            if completed:
                lines.append(f"id: {backup_id}")
        return [*lines, ""]

    async def _listen(self, request: Request, writer: asyncio.StreamWriter) -> None:
        try:
            levels = parse_filter(str(request.args["filter"]))
        except ParseError as e:
            await self._send(writer, ["listen event", "result: -1", f"msg: {e}", ""])
            return
        listener = Listener(bool(request.args.get("parsable", 0)), levels)
        c = self.cluster
        seq, generation = c.log.last_seq(), c.log.listener_generation
        await self._send(writer, ["listen event", "result: 0", ""])
        idle = 0.0
        while c.log.listener_generation == generation and not self.down():
            await asyncio.sleep(TICK_SECONDS)
            await asyncio.to_thread(c.advance)
            events = c.log.since(seq)
            if events:
                seq = events[-1].seq
            lines = [
                line
                for e in events
                if listener.wants(e.type.category, e.type.threshold)
                for line in replies.event_lines(e, listener.parsable)
            ]
            idle = 0.0 if lines else idle + TICK_SECONDS
            if idle >= PING_SECONDS:
                lines, idle = ["<PING>"], 0.0
            if lines:
                await self._send(writer, lines)


async def start(cluster: Cluster, host: str, port: int) -> asyncio.Server:
    """Listen for management clients; the bound port is server.sockets[0].getsockname()[1]."""
    server = MgmServer(cluster)
    return await asyncio.start_server(server.handle, host, port, limit=MAX_LINE * 2)
