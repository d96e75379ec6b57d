"""ndbsim as a real process: every endpoint it listens on, read back from its ready line.

ndbsim prints one line when it answers, naming each endpoint ``name=address``:

    ndbsim ready: mysql=127.0.0.1:41023 control=http://127.0.0.1:41024 sql50=127.0.0.1:41023
    sql51=127.0.0.1:41025

The handle keeps them all by name (``Ndbsim.endpoints``, ``Ndbsim.ports``), so an endpoint
ndbsim adds (a management server) needs no change here; ``sql_node_ports`` reads the SQL
nodes (``sqlNODE``, ``replica_sqlNODE``) by node id.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ndb_harness.api import answers
from ndb_harness.control import NdbsimControl
from ndb_harness.ports import HOST
from ndb_harness.process import Process, started

READY = "ndbsim ready:"
START_SECONDS = 120.0  # ndbsim builds its dictionary first: seconds for thousands of tables
USER = "ndbsim"
PASSWORD = "ndbsim"


@dataclass(frozen=True)
class MysqlAccount:
    """Where and as whom a client logs in to a SQL node."""

    host: str
    port: int
    user: str
    password: str

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def parse_ready(line: str) -> dict[str, str] | None:
    """The endpoints of a ready line, name -> address as printed; None for another line."""
    if not line.startswith(READY):
        return None
    tokens = (token.partition("=") for token in line.removeprefix(READY).split())
    return {name: address for name, sep, address in tokens if sep}


def _port(address: str) -> int:
    if "://" in address:
        return urlsplit(address).port or 0
    return int(address.rpartition(":")[2])


@dataclass
class Ndbsim(NdbsimControl):
    """A running ndbsim, its endpoints and its control API (``stop_node``, ``fault``, ...)."""

    process: Process | None = None
    endpoints: dict[str, str] | None = None  # name -> address: mysql, control, replica, ...
    host: str = HOST
    user: str = USER
    password: str = PASSWORD

    @property
    def ports(self) -> dict[str, int]:
        return {name: _port(address) for name, address in (self.endpoints or {}).items()}

    @property
    def port(self) -> int:
        """The SQL node of the (source) cluster."""
        return self.ports["mysql"]

    @property
    def replica_port(self) -> int | None:
        """The SQL node of the replica cluster of ndbsim --replica."""
        return self.ports.get("replica")

    def sql_node_ports(self, cluster: str = "source") -> dict[int, int]:
        """Node id -> MySQL port of every SQL node of the cluster (``"replica"``: of the replica
        cluster of ndbsim --replica)."""
        prefix = "replica_sql" if cluster == "replica" else "sql"
        return {
            int(name.removeprefix(prefix)): port
            for name, port in self.ports.items()
            if name.startswith(prefix) and name.removeprefix(prefix).isdigit()
        }

    @property
    def mgm_port(self) -> int | None:
        """The management server (ndb_mgmd's protocol), unless started with mgm_port=None."""
        return self.ports.get("mgm")

    def account(self, endpoint: str = "mysql") -> MysqlAccount:
        """ndbsim's account on the SQL node ``endpoint`` (a name of the ready line)."""
        return MysqlAccount(self.host, self.ports[endpoint], self.user, self.password)


def ndbsim_argv(*args: str, **options: Any) -> list[str]:
    """``python -m ndbsim`` with ``args``; keyword options become CLI options (speed=10 ->
    --speed 10, ndb_version="7.6" -> --ndb-version 7.6, replica=True -> --replica)."""
    argv = [sys.executable, "-m", "ndbsim"]
    for key, value in options.items():
        flag = f"--{key.replace('_', '-')}"
        if value is True:
            argv.append(flag)
        elif value is not False and value is not None:
            argv += [flag, str(value)]
    return [*argv, *args]


@contextlib.contextmanager
def running_ndbsim(
    *args: str,
    user: str = USER,
    password: str = PASSWORD,
    host: str = HOST,
    port: int = 0,
    control_port: int = 0,
    mgm_port: int | None = 0,
    log_level: str = "warning",
    log_dir: Path | None = None,
    startup_timeout: float = START_SECONDS,
    **options: Any,
) -> Iterator[Ndbsim]:
    """ndbsim with ``args`` and ``options`` (see ndbsim_argv), on free ports of ``host`` unless
    told otherwise, until the block ends; ready once its control API answers."""
    argv = ndbsim_argv(
        *args,
        host=host,
        port=port,
        control_port=control_port,
        mgm_port=mgm_port,
        user=user,
        log_level=log_level,
        **options,
    )
    env = {"NDBSIM_PASSWORD": password}
    with started("ndbsim", argv, env, log_dir) as process:

        def ready() -> dict[str, str] | None:
            for line in list(process.lines):
                endpoints = parse_ready(line)
                if endpoints is not None:
                    return (
                        endpoints if answers(f"{endpoints['control']}/status", timeout=5) else None
                    )
            return None

        endpoints = process.wait_until(ready, "start", startup_timeout)
        yield Ndbsim(endpoints["control"].rstrip("/"), process, endpoints, host, user, password)
