"""TLS node certificates (NDB 8.3+): every node holds one, the data nodes report the
certificates of themselves and of the peers they are connected to (ndb$certificates), and the
certificate-expiring fault brings one node's (or every node's) expiry close."""

from __future__ import annotations

import functools
import random
from typing import TYPE_CHECKING

from ndbsim.model.topology import API, MGM, NDB

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

DAY = 86400
VALID_DAYS = (240, 365)  # a healthy node certificate expires this many days out
NAMES = {
    NDB: "NDB Node Certificate (ndbd)",
    API: "NDB Node Certificate (api)",
    MGM: "NDB Node Certificate (mgmd)",
}


def enabled(c: Cluster) -> bool:
    """The cluster runs with TLS where the version has it (8.3+)."""
    return c.version.at_least(8, 3)


def expiry(c: Cluster, node_id: int) -> int:
    """Unix time the node's certificate expires."""
    params = c.faults.get("certificate-expiring")
    if params is not None and params.get("node") in (None, node_id):
        return int(c.wall_time() + params["days"] * DAY)
    return int(c.epoch + _valid_days(c.spec.seed * 7919 + node_id) * DAY)


def serial(c: Cluster, node_id: int) -> str:
    """Hex serial number; a renewed (fault) certificate has another one."""
    renewed = c.faults.get("certificate-expiring")
    salt = 1 if renewed is not None and renewed.get("node") in (None, node_id) else 0
    return _serial(c.spec.seed * 104729 + node_id * 2 + salt)


# seeded draws, cached: asked for each node from every node connected to it at each read
@functools.cache
def _valid_days(seed: int) -> float:
    return random.Random(seed).uniform(*VALID_DAYS)


@functools.cache
def _serial(seed: int) -> str:
    return f"{random.Random(seed).getrandbits(64):016X}"
