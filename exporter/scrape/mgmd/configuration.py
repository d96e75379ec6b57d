"""The cluster's configuration as ndb_mgmd sends it for `get config_v2` (mgmapi's
ndb_mgm_get_configuration2): base64 of the v2 packed ConfigObject
(storage/ndb/src/common/util/ConfigObject.cpp, ConfigSection.cpp). The exporter reads only what
no SQL node shows: which data nodes are active (RonDB's NodeActive, CFG_NODE_ACTIVE) and the
node group a data node that never started is configured in.

The binary is 32-bit words in network byte order: the magic "NDBCONF2", a header (length in
words, version, number of default sections, of data, API and management node sections, of
communication sections), the default sections, the system section, the node and the
communication sections, and a checksum word that makes the XOR of all words 0. A section is
its length in words, its number of entries and its type, then its entries: a key word (the
value type in its top 4 bits, the CFG_* id below) and the value (Int: one word, Int64: two,
high first, String: its length with the NUL, then the text padded to whole words). A node
section holds the entries that differ from the default section of its type."""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass

from ndbinfo_exporter.scrape.mgmd.protocol import ProtocolError

MAGIC = b"NDBCONF2"
HEADER_WORDS = 7
INT, STRING, INT64 = 1, 2, 4  # ConfigSection value types
TYPE_SHIFT, KEY_MASK = 28, 0x0FFFFFFF  # an entry's key word: its value type, its key
DATA_NODE_SECTION = 1  # ConfigSection section type of a data node
# mgmapi_config_parameters.h
CFG_NODE_ID = 3
CFG_NODE_ACTIVE = 13  # RonDB
CFG_DB_NODEGROUP = 185

Value = int | str


@dataclass(frozen=True)
class DataNodeConfig:
    node_id: int
    active: bool | None  # None where the configuration has no NodeActive (MySQL NDB)
    nodegroup: int | None  # None where the configuration does not set NodeGroup


def data_nodes(encoded: bytes) -> list[DataNodeConfig]:
    """The data nodes of a `get config_v2` reply's base64 body; ProtocolError when it is not
    a v2 configuration."""
    try:
        blob = base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError) as e:
        raise ProtocolError(f"configuration: not base64 ({e})") from None
    sections = _sections(blob)
    defaults = next((s for kind, s in sections["default"] if kind == DATA_NODE_SECTION), {})
    nodes = []
    for kind, entries in sections["node"]:
        if kind != DATA_NODE_SECTION:
            continue
        values = {**defaults, **entries}
        if CFG_NODE_ID not in values:
            raise ProtocolError("configuration: a data node section without a node id")
        active = values.get(CFG_NODE_ACTIVE)
        group = values.get(CFG_DB_NODEGROUP)
        nodes.append(
            DataNodeConfig(
                node_id=int(values[CFG_NODE_ID]),
                active=None if active is None else bool(active),
                nodegroup=None if group is None else int(group),
            )
        )
    return sorted(nodes, key=lambda n: n.node_id)


def _sections(blob: bytes) -> dict[str, list[tuple[int, dict[int, Value]]]]:
    if not blob.startswith(MAGIC) or len(blob) % 4:
        raise ProtocolError("configuration: not a v2 configuration")
    words = struct.unpack(f">{len(blob) // 4}I", blob)
    checksum = 0
    for word in words:
        checksum ^= word
    if checksum:
        raise ProtocolError("configuration: checksum mismatch")
    header = words[2 : 2 + HEADER_WORDS]
    if len(header) < HEADER_WORDS:
        raise ProtocolError("configuration: truncated header")
    _, _, defaults, data, api, mgm, comm = header
    counts = {"default": defaults, "system": 1, "node": data + api + mgm, "comm": comm}
    at, out = 2 + HEADER_WORDS, {}
    for name, count in counts.items():
        out[name] = []
        for _ in range(count):
            section, at = _section(words, at)
            out[name].append(section)
    return out


def _section(words: tuple[int, ...], at: int) -> tuple[tuple[int, dict[int, Value]], int]:
    """The section at word `at` (its type and entries) and the word after it."""
    if at + 3 > len(words):
        raise ProtocolError("configuration: truncated section")
    length, count, kind = words[at : at + 3]
    end = at + length
    body, entries, i = words[at + 3 : end], {}, 0
    try:
        for _ in range(count):
            value_type, key = body[i] >> TYPE_SHIFT, body[i] & KEY_MASK
            if value_type == INT:
                entries[key], i = body[i + 1], i + 2
            elif value_type == INT64:
                entries[key], i = (body[i + 1] << 32) | body[i + 2], i + 3
            elif value_type == STRING:
                size, padded = body[i + 1], (body[i + 1] + 3) // 4
                text = struct.pack(f">{padded}I", *body[i + 2 : i + 2 + padded])
                entries[key], i = (
                    text[: max(0, size - 1)].decode("utf-8", "replace"),
                    i + 2 + padded,
                )
            else:
                raise ProtocolError(f"configuration: unknown value type {value_type}")
    except (IndexError, struct.error):
        raise ProtocolError("configuration: truncated entry") from None
    if i != len(body) or end > len(words):
        raise ProtocolError("configuration: a section's length does not match its entries")
    return (kind, entries), end
