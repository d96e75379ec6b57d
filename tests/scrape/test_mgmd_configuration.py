"""The data nodes of a `get config_v2` configuration: which are active (RonDB's NodeActive)
and their node group, the node sections merged over the data node default section.

The blobs are packed here as ConfigObject::pack_v2 and ConfigSection::create_v2_section pack
them (storage/ndb/src/common/util/ConfigObject.cpp, ConfigSection.cpp): words in network
order, the magic, a header of 7 words, five default sections, the system section, the node
and communication sections, a checksum that makes the XOR of all words 0."""

from __future__ import annotations

import base64
import struct

import pytest
from ndbinfo_exporter.scrape.mgmd.configuration import DataNodeConfig, data_nodes
from ndbinfo_exporter.scrape.mgmd.protocol import ProtocolError

INT, STRING, INT64 = 1, 2, 4
DATA, API, MGM, TCP, SHM, SYSTEM = 1, 2, 3, 4, 5, 6


def words(*values: int) -> bytes:
    return struct.pack(f">{len(values)}I", *values)


def entry(key: int, value: int | str, kind: int = INT) -> bytes:
    head = words((kind << 28) | key)
    if kind == INT64:
        return head + words(value >> 32, value & 0xFFFFFFFF)
    if kind == STRING:
        text = value.encode() + b"\0"
        return head + words(len(text)) + text + b"\0" * (-len(text) % 4)
    return head + words(value)


def section(kind: int, *entries: bytes) -> bytes:
    body = b"".join(entries)
    return words(3 + len(body) // 4, len(entries), kind) + body


def packed(defaults: list[bytes], nodes: list[bytes], counts: tuple[int, int, int]) -> bytes:
    sections = [*defaults, section(SYSTEM, entry(3, "c1", STRING)), *nodes]
    body = b"".join(sections)
    total = 2 + 7 + len(body) // 4 + 1
    blob = b"NDBCONF2" + words(total, 2, 5, *counts, 0) + body
    checksum = 0
    for (word,) in struct.iter_unpack(">I", blob):
        checksum ^= word
    return base64.b64encode(blob + words(checksum))


def defaults(data: bytes) -> list[bytes]:
    return [data, section(API), section(MGM), section(TCP), section(SHM)]


def test_a_node_section_holds_what_differs_from_its_default():
    """rondb-helm's node group of three: NodeActive=1 common to two nodes went to the default
    section, the third node's 0 stays in its own; DataMemory an Int64, HostName a string."""
    data_default = section(DATA, entry(13, 1), entry(185, 0), entry(112, 1 << 33, INT64))
    nodes = [
        section(DATA, entry(3, 1), entry(5, "node-group-0-0", STRING)),
        section(DATA, entry(3, 2), entry(5, "node-group-0-1", STRING)),
        section(DATA, entry(3, 3), entry(5, "node-group-0-2", STRING), entry(13, 0)),
        section(MGM, entry(3, 65)),
    ]
    assert data_nodes(packed(defaults(data_default), nodes, (3, 0, 1))) == [
        DataNodeConfig(1, True, 0),
        DataNodeConfig(2, True, 0),
        DataNodeConfig(3, False, 0),
    ]


def test_mysql_ndb_has_no_node_active():
    nodes = [section(DATA, entry(3, 1), entry(185, 0)), section(MGM, entry(3, 49))]
    assert data_nodes(packed(defaults(section(DATA)), nodes, (1, 0, 1))) == [
        DataNodeConfig(1, None, 0)
    ]


@pytest.mark.parametrize(
    ("blob", "error"),
    [
        (base64.b64encode(b"NDBCONFV" + words(0)), "not a v2 configuration"),
        (b"!!!", "not a v2 configuration"),
    ],
)
def test_what_is_not_a_v2_configuration_is_refused(blob, error):
    with pytest.raises(ProtocolError, match=error):
        data_nodes(blob)


def test_a_damaged_configuration_fails_its_checksum():
    blob = bytearray(base64.b64decode(packed(defaults(section(DATA)), [], (0, 0, 0))))
    blob[20] ^= 1
    with pytest.raises(ProtocolError, match="checksum"):
        data_nodes(base64.b64encode(bytes(blob)))


def test_a_section_shorter_than_its_entries_is_refused():
    """A section whose length word leaves out its last entry's value, checksum intact."""
    short = words(3 + 1, 1, DATA) + words((INT << 28) | 3)
    with pytest.raises(ProtocolError, match="truncated entry"):
        data_nodes(
            packed([short, section(API), section(MGM), section(TCP), section(SHM)], [], (0, 0, 0))
        )
