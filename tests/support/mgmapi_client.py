"""A management client that speaks ndb_mgmd's protocol as NDB's C API does
(storage/ndb/src/mgmapi/mgmapi.cpp), for testing a management server against the client side of
the protocol rather than against its own idea of it:

- `call` is ndb_mgm_call: the command, `name: value` for numbers (`%u`), `name:"value"` for
  strings, a blank line; the reply read as the client's Parser reads it (the header line must
  be the expected one, every `name: value` line must be one of the reply table's arguments);
- `connect` is ndb_mgm_connect followed by get_mgmd_version: `get version`, then
  `set clientversion` when the server is 8.0.20 or later;
- `get_status` is ndb_mgm_get_status2 with status_ackumulate;
- `get_configuration` is ndb_mgm_get_configuration2 (`get config_v2`) and
  ConfigValuesFactory::unpack_v2_buf (ConfigObject::unpack_v2, ConfigSection.cpp);
- `start_backup` is ndb_mgm_start_backup4.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import struct
from dataclasses import dataclass, field
from pathlib import Path

CLIENT_VERSION = (8, 4, 0)
NODE_TYPE_UNKNOWN = 0xFFFFFFFF  # NDB_MGM_NODE_TYPE_UNKNOWN (-1) as the Uint32 it is sent as
# mgmapi.cpp's own tables, as data/ndb-mgm/node-states.json has them parsed from the source:
# the fields status_ackumulate takes and the status_values[] names
NODE_STATES = json.loads(
    (Path(__file__).parents[2] / "simulator/data/ndb-mgm/node-states.json").read_text()
)
STATUS_FIELDS = frozenset(
    f["field"]
    for f in next(
        p["fields"]
        for p in NODE_STATES["get_status_client_field_parsers"]
        if p["function"] == "status_ackumulate"
    )
)
STATUS_STRINGS = frozenset(e["str"] for e in NODE_STATES["node_status_values_table"]["entries"])
MAGIC_V2 = b"NDBCONF2"
INT, STRING, INT64 = 1, 2, 4  # ConfigSection::ValueType
DATA_NODE, API_NODE, MGM_NODE, TCP, SHM, SYSTEM = 1, 2, 3, 4, 5, 6  # ConfigSection::SectionType
DEFAULT_ORDER = (DATA_NODE, API_NODE, MGM_NODE, TCP, SHM)  # unpack_default_sections
_UINT = re.compile(r"\s*([+-]?)(\d+)")
_INT = re.compile(r"\s*([+-]?\d+)")


class MgmapiError(Exception):
    """What mgmapi would report as an error (SET_ERROR) for a reply it cannot use."""


def _trim(text: str) -> str:
    text = text.rstrip("\n \t").lstrip(" \t")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text


def _atoi(text: str) -> int:
    m = _INT.match(text)
    return int(m[1]) if m else 0


@dataclass
class Section:
    """One unpacked section: its type and its entries (key -> value)."""

    kind: int
    values: dict[int, int | str] = field(default_factory=dict)


@dataclass
class Configuration:
    """ConfigObject after unpack_v2: the default sections, the system, node and communication
    sections. `get` looks in the section, then in its type's default section."""

    defaults: dict[int, Section]
    system: Section
    nodes: list[Section]
    connections: list[Section]

    def get(self, section: Section, key: int) -> int | str | None:
        if key in section.values:
            return section.values[key]
        return self.defaults.get(section.kind, Section(section.kind)).values.get(key)

    def node(self, node_id: int, node_id_key: int = 3) -> Section:
        return next(s for s in self.nodes if s.values.get(node_id_key) == node_id)


class MgmapiClient:
    def __init__(
        self, host: str, port: int, version: tuple[int, int, int] = CLIENT_VERSION
    ) -> None:
        self.version = version
        self.sock = socket.create_connection((host, port), timeout=30)
        self.stream = self.sock.makefile("rb")
        self.mgmd_version: tuple[int, int, int] | None = None

    def close(self) -> None:
        self.stream.close()
        self.sock.close()

    def __enter__(self) -> MgmapiClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- ndb_mgm_call ---------------------------------------------------------------------

    def send(self, command: str, args: dict[str, int | str] | None = None) -> None:
        lines = [command]
        for name, value in (args or {}).items():
            lines.append(f'{name}:"{value}"' if isinstance(value, str) else f"{name}: {value}")
        self.sock.sendall(("\n".join(lines) + "\n\n").encode())

    def line(self) -> str:
        raw = self.stream.readline()
        if not raw:
            raise MgmapiError("Probably disconnected")
        return raw.decode()

    def read_reply(self, header: str, arguments: dict[str, str]) -> dict[str, int | str]:
        """The client Parser on a reply: `arguments` maps each name to Int or String."""
        first = _trim(self.line())
        if first != header:
            raise MgmapiError(f"Error in mgm protocol parser: expected >{header}<, got >{first}<")
        reply: dict[str, int | str] = {}
        while (text := self.line()).strip(" \t\n"):
            text = _trim(text)
            cut = min((i for i in (text.find(":"), text.find("=")) if i >= 0), default=len(text))
            name, value = _trim(text[:cut]), _trim(text[cut + 1 :])
            if name not in arguments:
                raise MgmapiError(f"Error in mgm protocol parser: unknown argument >{name}<")
            if arguments[name] == "Int":
                m = _UINT.match(value)
                if m is None:
                    raise MgmapiError(f"Error in mgm protocol parser: type mismatch >{name}<")
                reply[name] = (-int(m[2]) if m[1] == "-" else int(m[2])) % (1 << 32)
            else:
                reply[name] = value
        return reply

    def call(
        self, command: str, args: dict[str, int | str], header: str, arguments: dict[str, str]
    ) -> dict[str, int | str]:
        self.send(command, args)
        return self.read_reply(header, arguments)

    # --- ndb_mgm_connect, get_mgmd_version ---------------------------------------------------

    def connect(self) -> MgmapiClient:
        """get_mgmd_version: `get version`, and `set clientversion` from an 8.0.20 server on."""
        reply = self.call(
            "get version",
            {},
            "version",
            {
                "id": "Int",
                "major": "Int",
                "minor": "Int",
                "build": "Int",
                "string": "String",
                "mysql_major": "Int",
                "mysql_minor": "Int",
                "mysql_build": "Int",
            },
        )
        self.mgmd_version = (int(reply["major"]), int(reply["minor"]), int(reply["build"]))
        if self.mgmd_version >= (8, 0, 20):
            self.set_version()
        return self

    def set_version(self) -> None:
        """ndb_mgm_set_version."""
        major, minor, build = self.version
        reply = self.call(
            "set clientversion",
            {"major": major, "minor": minor, "build": build},
            "set clientversion reply",
            {"result": "String"},
        )
        if reply["result"] != "Ok":
            raise MgmapiError(str(reply["result"]))

    # --- ndb_mgm_get_status2 ---------------------------------------------------------------

    def get_status(self, types: list[str] | None = None) -> list[dict[str, int | str]]:
        """The nodes' states in node id order, as status_ackumulate fills them (the fields a
        reply lacks are absent)."""
        command = "get status\n"
        if types is not None:
            command += "types: " + "".join(f"{t} " for t in types) + "\n"
        self.sock.sendall((command + "\n").encode())
        if self.line() != "node status\n":
            raise MgmapiError("NDB_MGM_ILLEGAL_NODE_STATUS")
        split = self.line().split(":")
        if len(split) != 2 or split[0].strip() != "nodes":
            raise MgmapiError("NDB_MGM_ILLEGAL_NODE_STATUS")
        count = _atoi(split[1])
        nodes: dict[int, dict[str, int | str]] = {}
        while True:
            text = self.line()
            if not text.strip(" \t\n"):
                break
            parts = re.split(r"[:.]", text, maxsplit=3)
            if len(parts) != 4:
                raise MgmapiError(f"NDB_MGM_ILLEGAL_NODE_STATUS: {text!r}")
            node_id = _atoi(parts[1])
            if node_id == 0:
                raise MgmapiError("Illegal node id")
            name, value = parts[2], parts[3].strip(" \t\n")
            if name not in STATUS_FIELDS:
                raise MgmapiError(f"Unknown field: {name}")
            state = nodes.setdefault(node_id, {"node_id": node_id})
            if name in ("type", "status", "address"):
                if name == "status" and value not in STATUS_STRINGS:
                    value = "UNKNOWN"  # ndb_mgm_match_node_status
                state[name] = value
            else:
                state[name] = _atoi(value)
        if len(nodes) != count:
            raise MgmapiError("Node count mismatch")
        return [nodes[n] for n in sorted(nodes)]

    # --- ndb_mgm_get_configuration2 --------------------------------------------------------

    def get_configuration(self, from_node: int = 0) -> Configuration:
        """`get config_v2` and its packed configuration, unpacked."""
        args: dict[str, int | str] = {
            "version": self._version_number(),
            "nodetype": NODE_TYPE_UNKNOWN,
        }
        if from_node:
            args["from_node"] = from_node
        else:
            args["node"] = 0  # ndb_mgm_get_configuration_nodeid of a handle that has none
        reply = self.call(
            "get config_v2",
            args,
            "get config reply",
            {
                "result": "String",
                "Content-Length": "Int",
                "Content-Type": "String",
                "Content-Transfer-Encoding": "String",
            },
        )
        if reply["result"] != "Ok":
            raise MgmapiError(str(reply["result"]))
        if reply.get("Content-Type") != "ndbconfig/octet-stream":
            raise MgmapiError("Unhandled response type")
        if reply.get("Content-Transfer-Encoding") != "base64":
            raise MgmapiError("Unhandled encoding")
        length = int(reply["Content-Length"]) + 1  # the trailing newline
        text = self.stream.read(length)
        if len(text) != length:
            raise MgmapiError("Timeout reading packed config")
        return unpack_v2(base64.b64decode(text[:-1]))  # decoding skips the line breaks

    def _version_number(self) -> int:
        major, minor, build = self.version
        return (major << 16) | (minor << 8) | build

    # --- ndb_mgm_start_backup4 -------------------------------------------------------------

    def start_backup(self, wait_completed: int = 2, backup_id: int = 0) -> tuple[str, int | None]:
        """(result, id): "Ok" and the backup's id, or the server's error text."""
        args: dict[str, int | str] = {"completed": wait_completed}
        if backup_id > 0:
            args["backupid"] = backup_id
        args["backuppoint"] = 0
        reply = self.call(
            "start backup",
            args,
            "start backup reply",
            {"result": "String", "id": "Int"},
        )
        backup = reply.get("id")
        return str(reply["result"]), int(backup) if backup is not None else None


# --- ConfigObject::unpack_v2 -------------------------------------------------------------


class _Words:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def word(self) -> int:
        (value,) = struct.unpack_from(">I", self.data, self.pos)
        self.pos += 4
        return value

    def string(self, length: int) -> str:
        raw = self.data[self.pos : self.pos + length]
        text = raw.split(b"\0", 1)[0]
        if len(text) + 1 != length:
            raise MgmapiError("WRONG_STRING_LENGTH")
        self.pos += length + (-length % 4)
        return text.decode()


def _unpack_section(words: _Words, expected: tuple[int, ...]) -> Section:
    header_len, entries, kind = words.word(), words.word(), words.word()
    if kind not in expected:
        raise MgmapiError(f"WRONG_SECTION_TYPE {kind}")
    if entries == 0 and header_len != 3:
        raise MgmapiError("WRONG_EMPTY_SECTION_LENGTH")
    section = Section(kind)
    for _ in range(entries):
        key = words.word()
        value_type, key = key >> 28, key & 0x0FFFFFFF
        if value_type == INT:
            section.values[key] = words.word()
        elif value_type == INT64:
            section.values[key] = (words.word() << 32) + words.word()
        elif value_type == STRING:
            section.values[key] = words.string(words.word())
        else:
            raise MgmapiError("WRONG_VALUE_TYPE")
    return section


def unpack_v2(data: bytes) -> Configuration:
    if len(data) < len(MAGIC_V2) + 4 or data[: len(MAGIC_V2)] != MAGIC_V2:
        raise MgmapiError("WRONG_MAGIC")
    if len(data) % 4:
        raise MgmapiError("WRONG_V2_INPUT_LENGTH")
    all_words = [w for (w,) in struct.iter_unpack(">I", data)]
    checksum = 0
    for value in all_words[:-1]:
        checksum ^= value
    if checksum != all_words[-1]:
        raise MgmapiError("WRONG_CHECKSUM")
    words = _Words(data)
    words.pos = len(MAGIC_V2)
    total, version, defaults, data_nodes, api_nodes, mgm_nodes, comm = (
        words.word() for _ in range(7)
    )
    if version != 2:
        raise MgmapiError("WRONG_VERSION_RECEIVED")
    if defaults != 5 or 0 in (data_nodes, api_nodes, mgm_nodes, comm):
        raise MgmapiError("INCONSISTENT_CONFIGURATION")
    default_sections = {kind: _unpack_section(words, (kind,)) for kind in DEFAULT_ORDER}
    system = _unpack_section(words, (SYSTEM,))
    nodes = [
        _unpack_section(words, (DATA_NODE, API_NODE, MGM_NODE))
        for _ in range(data_nodes + api_nodes + mgm_nodes)
    ]
    connections = [_unpack_section(words, (TCP, SHM)) for _ in range(comm)]
    words.pos += 4  # the checksum
    if words.pos // 4 != total:
        raise MgmapiError("WRONG_V2_UNPACK_LENGTH")
    if total != len(data) // 4:
        raise MgmapiError("WRONG_V2_INPUT_LENGTH")
    return Configuration(default_sections, system, nodes, connections)
