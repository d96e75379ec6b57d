"""ndb_mgmd's session loop (Services.cpp MgmApiSession::runSession): a command line, its
`name: value` arguments, a blank line (parser.py); the reply; and for `listen event` the socket
turned into an event listener that receives the cluster log's events its filter lets through
and `<PING>` while idle."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ndbsim.model.cluster_log import CATEGORIES
from ndbsim.model.ndb_errors import ndb_error_string
from ndbsim.model.topology import API, MGM, NDB
from ndbsim.protocol.mgm import config_v2, parser, replies, tables
from ndbsim.protocol.mgm.parser import ParseError

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

log = logging.getLogger(__name__)

MAX_LINE = 4096
TICK_SECONDS = 0.2  # how often a listener looks for new events
PING_SECONDS = 0.5  # ndb_mgmd pings its listeners at each turn of its 500 ms log level thread
SESSION_IDLE_SECONDS = 300.0  # a session that sends nothing for this long is closed
MAX_LOGLEVEL = 15

NODE_TYPES = (NDB, MGM, API)  # getStatus's order without `types`
MAX_NODES_ID = 255  # kernel/ndb_limits.h
SINGLE_USER_CLIENT = (8, 0, 22)  # clients from this version read is_single_user
MAX_STATUS_TYPES = 3  # NDB_MGM_NODE_TYPE_MAX: getStatus reads this many types at most
# The commands ndbsim answers, with their arguments as Services.cpp's commands[] declares them
COMMANDS = tables.command_arguments(
    (
        "get version",
        "set clientversion",
        "get status",
        "get mgmd nodeid",
        "check connection",
        "get config_v2",
        "listen event",
        "dump events",
        "start backup",
        "bye",
        "end session",
    )
)


@dataclass
class Request:
    command: str
    args: dict[str, str | int]


@dataclass
class Session:
    client_version: tuple[int, int, int] = (0, 0, 0)  # set clientversion (m_vMajor...)


@dataclass
class Listener:
    parsable: bool
    levels: dict[str, int]  # category name -> level

    def wants(self, category: str, threshold: int) -> bool:
        return threshold <= self.levels.get(category, 0)


class FilterError(ValueError):
    """A `listen event` filter the server refuses; the message is its `msg:` text."""


def requested_types(text: str) -> list[int]:
    """getStatus's `types`: names split at each space, read up to the first that is not a
    node type (an empty one included), at most NDB_MGM_NODE_TYPE_MAX of them."""
    by_name = tables.node_types_by_name()
    kinds = []
    for word in text.split(" ")[:MAX_STATUS_TYPES]:
        if word not in by_name:
            break
        kinds.append(by_name[word])
    return kinds


def parse_filter(text: str) -> dict[str, int]:
    """`listen event` filter: "CATEGORY=level" (or the category number) items separated by
    spaces or commas; FilterError with the server's message otherwise."""
    levels: dict[str, int] = {}
    items = [i for i in text.replace(",", " ").split() if i]
    if not items:
        raise FilterError("Empty filter specification")
    by_number = {number: name for name, number in CATEGORIES.items()}
    for item in items:
        spec = item.replace(":", "=").split("=")
        if len(spec) != 2:
            raise FilterError(f"Invalid filter specification: >{text}< >{item}< {len(spec)}")
        name = spec[0].strip().upper()
        if name not in CATEGORIES:
            number = int(name) if name.isdigit() else -1
            if number not in by_number:
                raise FilterError(f"Unknown category: >{name}<")
            name = by_number[number]
        level = int(spec[1]) if spec[1].strip().lstrip("-").isdigit() else 0
        if not 0 <= level <= MAX_LOGLEVEL:
            raise FilterError(f"Invalid level: >{spec[1]}<")
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
        session = Session()
        while True:
            line = await self._line(reader)
            if line is None:
                return
            if not line.endswith("\n") or parser.is_empty(line):
                continue  # Parser_t::NoLine, EmptyLine: no answer
            command = parser.trim(line)
            if command not in COMMANDS:
                await self._send(writer, ParseError(parser.UNKNOWN_COMMAND, command).reply())
                continue
            try:
                request = Request(command, await self._arguments(reader, command))
            except ParseError as e:
                await self._send(writer, e.reply())
                continue
            if request.command in ("bye", "end session"):
                if request.command == "end session":
                    await self._send(writer, ["end session reply"])
                return
            if request.command == "listen event":
                await self._listen(request, writer)
                return
            await self._send(writer, await self._answer(request, session))

    async def _line(self, reader: asyncio.StreamReader) -> str | None:
        """The next line with its newline; None at the end of the stream."""
        raw = await asyncio.wait_for(reader.readline(), SESSION_IDLE_SECONDS)
        if not raw:
            return None
        if len(raw) > MAX_LINE:
            raise ValueError("line too long")
        return raw.decode("utf-8", "replace")

    async def _arguments(self, reader: asyncio.StreamReader, command: str) -> dict[str, str | int]:
        """The argument lines up to the blank line, checked against the command's table."""
        spec, args = COMMANDS[command], {}
        while True:
            line = await self._line(reader)
            if line is None or parser.is_empty(line):
                break
            parser.parse_argument(line, spec, args)
        parser.check_mandatory(spec, args, line)
        return args

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, lines: list[str]) -> None:
        writer.write(("\n".join(lines) + "\n").encode())
        await writer.drain()

    async def _answer(self, request: Request, session: Session) -> list[str]:
        c, args = self.cluster, request.args
        await asyncio.to_thread(c.advance)
        if request.command == "get version":
            return replies.version(c)
        if request.command == "set clientversion":
            session.client_version = (int(args["major"]), int(args["minor"]), int(args["build"]))
            return ["set clientversion reply", "result: Ok", ""]
        if request.command == "get status":
            return await asyncio.to_thread(self._status, args, session)
        if request.command == "get mgmd nodeid":
            return ["get mgmd nodeid reply", f"nodeid:{self.node_id}", ""]
        if request.command == "check connection":
            return ["check connection reply", "result: Ok", ""]
        if request.command == "get config_v2":
            return await asyncio.to_thread(self._config, int(args.get("from_node", 0)))
        if request.command == "dump events":
            return self._dump_events(args)
        return await self._start_backup(int(args.get("completed", 2)), int(args.get("backupid", 0)))

    def _status(self, args: dict[str, str | int], session: Session) -> list[str]:
        """getStatus: `is_single_user` only for a client that said it is 8.0.22 or later."""
        kinds = requested_types(str(args["types"])) if "types" in args else list(NODE_TYPES)
        single_user = session.client_version >= SINGLE_USER_CLIENT
        with self.cluster.advanced():
            return replies.status(self.cluster, kinds, self.node_id, single_user)

    def _config(self, from_node: int) -> list[str]:
        """getConfig (v2): the packed configuration, or the error get_packed_config_from_node
        gives for a node it cannot ask."""
        error = self._config_source_error(from_node) if from_node else ""
        if error:
            return ["get config reply", f"result: {error}", ""]
        with self.cluster.advanced():
            text = config_v2.base64_text(config_v2.packed(self.cluster))
        return [
            "get config reply",
            "result: Ok",
            f"Content-Length: {len(text)}",
            "Content-Type: ndbconfig/octet-stream",
            "Content-Transfer-Encoding: base64",
            "",
            text,
        ]

    def _config_source_error(self, node_id: int) -> str:
        c = self.cluster
        node = c.topology.node(node_id)
        if node_id >= MAX_NODES_ID:
            return f"Nodeid {node_id} is greater than max nodeid {MAX_NODES_ID}. "
        if node is None:
            return f"Nodeid {node_id} does not exist. "
        if node_id not in c.nodes:
            return f"Node {node_id} is not a data node. "
        if node_id not in c.started_ids():
            return f"Data node {node_id} is not alive. "
        return ""

    def _dump_events(self, args: dict[str, str | int]) -> list[str]:
        text = str(args.get("nodes", ""))
        try:
            nodes = [int(p) for p in text.replace(",", " ").split()]
        except ValueError:
            nodes = [-1]
        if any(not 1 <= n <= 144 for n in nodes):
            return ["dump events reply", f"result: invalid nodes: '{text}'", ""]
        with self.cluster.advanced():
            return replies.dump_events(self.cluster, int(args["type"]), nodes)

    async def _start_backup(self, completed: int, requested_id: int) -> list[str]:
        """startBackup: `completed` 0 answers at once, 1 once the backup has its id, 2 (the
        default) once it has ended; `backupid` (when not 0) is the id to give it."""
        c = self.cluster
        backup_id, error = await asyncio.to_thread(self._begin_backup, requested_id)
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
            lines.append(f"result: {ndb_error_string(error)}")
        else:
            lines.append("result: Ok")
            if completed:
                lines.append(f"id: {replies.int32(backup_id)}")
        return [*lines, ""]

    def _begin_backup(self, requested_id: int) -> tuple[int, int]:
        c = self.cluster
        with c.advanced():
            return c.backups.start(c, c.now, requested_id)

    async def _listen(self, request: Request, writer: asyncio.StreamWriter) -> None:
        try:
            levels = parse_filter(str(request.args["filter"]))
        except FilterError as e:
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
