"""`get config_v2`: the cluster's configuration as ndb_mgmd packs it for a client of NDB 8.0.18
or later, the v2 binary of ConfigObject (storage/ndb/src/common/util/ConfigObject.cpp,
ConfigSection.cpp) in base64.

The binary is 32-bit words in network byte order: the magic "NDBCONF2" (2 words); a header of 7
words (total length in words, version 2, 5 default sections, number of data, API and MGM
nodes, number of communication sections); the default sections of data, API and MGM nodes, TCP
and SHM (sent empty: every value is in its own section); the system section; the node
sections; the communication sections; a checksum word, the XOR of all words before it. A
section is a header (its length in words, its number of entries, its type) and its entries,
each a key word (4 bits of value type, 28 bits of the CFG_* id of mgmapi_config_parameters.h)
and the value: one word (Int), two words high first (Int64), or the length with its NUL and the
NUL-terminated string padded to whole words (String)."""

from __future__ import annotations

import base64
import struct
from typing import TYPE_CHECKING

from ndbsim.model import config_params, node_config
from ndbsim.model.topology import API, MGM, NDB

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster
    from ndbsim.model.topology import Node

MAGIC = b"NDBCONF2"
VERSION = 2
INT, STRING, INT64 = 1, 2, 4  # ConfigSection::ValueType
TYPE_SHIFT = 28
# ConfigSection::SectionType
DATA_NODE_SECTION, API_NODE_SECTION, MGM_NODE_SECTION, TCP_SECTION, SHM_SECTION, SYSTEM_SECTION = (
    1,
    2,
    3,
    4,
    5,
    6,
)
DEFAULT_SECTIONS = (DATA_NODE_SECTION, API_NODE_SECTION, MGM_NODE_SECTION, TCP_SECTION, SHM_SECTION)
NODE_SECTIONS = {NDB: DATA_NODE_SECTION, API: API_NODE_SECTION, MGM: MGM_NODE_SECTION}
# CFG_* ids of mgmapi_config_parameters.h
CFG_SYS_PRIMARY_MGM_NODE, CFG_SYS_CONFIG_GENERATION, CFG_SYS_NAME = 1, 2, 3
CFG_NODE_ID, CFG_NODE_HOST = 3, 5
CFG_DB_NODEGROUP = 185
CFG_NODE_ARBIT_RANK = 200
CFG_MGM_PORT = 300
CFG_CONNECTION_NODE_1, CFG_CONNECTION_NODE_2 = 400, 401
CFG_CONNECTION_HOSTNAME_1, CFG_CONNECTION_HOSTNAME_2 = 407, 408
CFG_CONNECTION_NODE_ID_SERVER = 410
MGM_PORT = 1186
U32_MAX = 0xFFFFFFFF
BASE64_LINE = 76  # base64_encode (include/base64.h) breaks its output every 76 characters

Value = int | str
Entries = dict[int, tuple[int, Value]]  # key -> (value type, value)


def _word(value: int) -> bytes:
    return struct.pack(">I", value)


def _entry(key: int, kind: int, value: Value) -> bytes:
    head = _word((kind << TYPE_SHIFT) | key)
    if kind == INT:
        return head + _word(value)
    if kind == INT64:
        return head + _word(value >> 32) + _word(value & U32_MAX)
    text = str(value).encode() + b"\0"
    padded = text + b"\0" * (-len(text) % 4)
    return head + _word(len(text)) + padded


def _section(section_type: int, entries: Entries) -> bytes:
    body = b"".join(_entry(key, *entries[key]) for key in sorted(entries))
    return _word(3 + len(body) // 4) + _word(len(entries)) + _word(section_type) + body


def _parameter_entry(param: config_params.Param, raw: str) -> tuple[int, Value]:
    """A data node parameter's value type: strings and bitmasks as String, numbers whose range
    passes 32 bits as Int64 (ConfigInfo's CI_INT64, e.g. DataMemory), the others Int."""
    if param.type in ("string", "bitmask"):
        return STRING, raw
    value = int(raw)
    wide = param.maximum.isdigit() and int(param.maximum) > U32_MAX
    return (INT64 if wide else INT), value


def _data_node_entries(c: Cluster, node: Node) -> Entries:
    entries: Entries = {}
    for name, raw in node_config.reported(c, node.node_id).items():
        if raw != "":
            param = config_params.lookup(name, c.version)
            entries[param.number] = _parameter_entry(param, raw)
    if CFG_DB_NODEGROUP not in entries and node.nodegroup is not None:
        entries[CFG_DB_NODEGROUP] = (INT, node.nodegroup)
    return entries


def _node_entries(c: Cluster, node: Node) -> Entries:
    if node.node_type == NDB:
        return _data_node_entries(c, node)
    entries: Entries = {
        CFG_NODE_ID: (INT, node.node_id),
        CFG_NODE_HOST: (STRING, node.hostname),
        CFG_NODE_ARBIT_RANK: (INT, 1 if node.node_type == MGM else 0),
    }
    if node.node_type == MGM:
        entries[CFG_MGM_PORT] = (INT, MGM_PORT)
    return entries


def _connections(c: Cluster) -> list[Entries]:
    """A TCP section for every pair of nodes with a data node in it, the data node serving."""
    nodes = c.topology.all_nodes
    sections = []
    for i, first in enumerate(nodes):
        for second in nodes[i + 1 :]:
            if NDB not in (first.node_type, second.node_type):
                continue
            server = first if first.node_type == NDB else second
            sections.append(
                {
                    CFG_CONNECTION_NODE_1: (INT, first.node_id),
                    CFG_CONNECTION_NODE_2: (INT, second.node_id),
                    CFG_CONNECTION_HOSTNAME_1: (STRING, first.hostname),
                    CFG_CONNECTION_HOSTNAME_2: (STRING, second.hostname),
                    CFG_CONNECTION_NODE_ID_SERVER: (INT, server.node_id),
                }
            )
    return sections


def _system_entries(c: Cluster) -> Entries:
    generation = max(c.config_generation(n) for n in c.topology.data_node_ids)
    return {
        CFG_SYS_PRIMARY_MGM_NODE: (INT, 0),
        CFG_SYS_CONFIG_GENERATION: (INT, generation),
        CFG_SYS_NAME: (STRING, c.spec.system_name),
    }


def packed(c: Cluster) -> bytes:
    """The configuration in the v2 binary format."""
    nodes = c.topology.all_nodes
    connections = _connections(c)
    counts = [sum(1 for n in nodes if n.node_type == kind) for kind in (NDB, API, MGM)]
    sections = b"".join(
        [
            *(_section(kind, {}) for kind in DEFAULT_SECTIONS),
            _section(SYSTEM_SECTION, _system_entries(c)),
            *(_section(NODE_SECTIONS[n.node_type], _node_entries(c, n)) for n in nodes),
            *(_section(TCP_SECTION, entries) for entries in connections),
        ]
    )
    header_words = 7
    total_words = len(MAGIC) // 4 + header_words + len(sections) // 4 + 1
    header = b"".join(
        _word(v) for v in (total_words, VERSION, len(DEFAULT_SECTIONS), *counts, len(connections))
    )
    body = MAGIC + header + sections
    checksum = 0
    for (word,) in struct.iter_unpack(">I", body):
        checksum ^= word
    return body + _word(checksum)


def base64_text(data: bytes) -> str:
    """base64 as base64_encode writes it: a newline after every 76 characters."""
    flat = base64.b64encode(data).decode()
    return "\n".join(flat[i : i + BASE64_LINE] for i in range(0, len(flat), BASE64_LINE))
