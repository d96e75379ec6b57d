"""Start a real ndbsim process for tests: free ports, wait until it answers, clean up.

with running_ndbsim("--data-nodes", "4", speed=20) as sim:
    connect(host=sim.host, port=sim.port, user=sim.user, password=sim.password)
    sim.stop_node(2)

with running_ndbsim(replica=True) as sim:  # the pair: sim.port (source), sim.replica_port
    sim.fault("replica-behind", seconds=900)
    sim.stop_node(2, cluster="replica")
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

_READY = re.compile(
    r"ndbsim ready: mysql=(?P<host>[^ ]+):(?P<port>\d+) control=(?P<url>\S+)"
    r"(?: replica=[^ ]+:(?P<replica_port>\d+))?(?: mgm=[^ ]+:(?P<mgm_port>\d+))?"
)


class NdbsimError(RuntimeError):
    """ndbsim did not start, or the control API refused a request."""


@dataclass
class NdbsimHandle:
    host: str
    port: int
    user: str
    password: str
    control_url: str
    process: subprocess.Popen
    output: list[str] = field(default_factory=list)
    replica_port: int | None = None  # the replica cluster's SQL node (ndbsim --replica)
    mgm_port: int | None = None  # the management server (ndb_mgmd's protocol)

    def _call(self, method: str, path: str, json: Any = None, cluster: str | None = None) -> Any:
        params = {"cluster": cluster} if cluster else None
        response = httpx.request(
            method, self.control_url + path, json=json, params=params, timeout=30.0
        )
        if response.status_code >= 400:
            raise NdbsimError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json()

    # `cluster="replica"` acts on the replica cluster of ndbsim --replica (default: source)

    def stop_node(self, node_id: int, cluster: str | None = None) -> dict:
        return self._call("POST", f"/nodes/{node_id}/stop", cluster=cluster)

    def start_node(self, node_id: int, cluster: str | None = None) -> dict:
        return self._call("POST", f"/nodes/{node_id}/start", cluster=cluster)

    def fault(self, name: str, cluster: str | None = None, **params: Any) -> dict:
        """Set a fault; the link faults (replica-*, injector-behind, conflicts) act on the
        replication link whatever the cluster."""
        return self._call("PUT", f"/faults/{name}", json=params or None, cluster=cluster)

    def clear(self, name: str, cluster: str | None = None) -> dict:
        return self._call("DELETE", f"/faults/{name}", cluster=cluster)

    def reset(self, cluster: str | None = None) -> dict:
        return self._call("POST", "/reset", cluster=cluster)

    def stats(self, cluster: str | None = None) -> dict:
        """The cost meter: ndbinfo base-table rows read since ndbsim started."""
        return self._call("GET", "/stats", cluster=cluster)

    def status(self, cluster: str | None = None) -> dict:
        return self._call("GET", "/status", cluster=cluster)

    def start_backup(self) -> dict:
        """START BACKUP now: {"backup_id": id, "error": 0}, or the NDB error it failed with."""
        return self._call("POST", "/backups")

    def drop_listeners(self) -> dict:
        """The management server closes every listen event subscription."""
        return self._call("POST", "/mgm/drop-listeners")

    def replication(self) -> dict:
        """The link: injector epochs, binlog end, the replica's threads (GET /replication)."""
        return self._call("GET", "/replication")

    def wait_for(self, predicate, timeout: float = 30.0, interval: float = 0.1) -> dict:
        """Poll /status until predicate(status) is true; the last status."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if predicate(status):
                return status
            if time.monotonic() > deadline:
                raise NdbsimError(f"condition not reached within {timeout}s: {status}")
            time.sleep(interval)


def _reader(stream, lines: queue.Queue, sink: list[str]) -> None:
    for line in iter(stream.readline, ""):
        sink.append(line.rstrip("\n"))
        lines.put(line)
    lines.put(None)


@contextlib.contextmanager
def running_ndbsim(
    *extra_args: str,
    user: str = "ndbsim",
    password: str = "ndbsim",
    host: str = "127.0.0.1",
    startup_timeout: float = 60.0,
    **options: Any,
) -> Iterator[NdbsimHandle]:
    """Run `python -m ndbsim` on free ports. Keyword options become CLI options
    (speed=10 -> --speed 10, ndb_version="7.6" -> --ndb-version 7.6, replica=True ->
    --replica: the source and replica pair, on free ports)."""
    args = [
        sys.executable,
        "-m",
        "ndbsim",
        "--host",
        host,
        "--port",
        "0",
        "--control-port",
        "0",
        "--mgm-port",
        "0",
        "--user",
        user,
        "--log-level",
        "warning",
    ]
    for key, value in options.items():
        flag = f"--{key.replace('_', '-')}"
        if value is True:
            args.append(flag)
        elif value is not False:
            args += [flag, str(value)]
    args += list(extra_args)
    env = {**os.environ, "NDBSIM_PASSWORD": password}
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    lines: queue.Queue = queue.Queue()
    output: list[str] = []
    threading.Thread(target=_reader, args=(process.stdout, lines, output), daemon=True).start()
    try:
        match = None
        deadline = time.monotonic() + startup_timeout
        while match is None:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise NdbsimError(f"ndbsim did not start in {startup_timeout}s") from None
            if line is None:
                raise NdbsimError("ndbsim exited: " + " | ".join(output[-5:]))
            match = _READY.search(line)
        handle = NdbsimHandle(
            host=match["host"],
            port=int(match["port"]),
            user=user,
            password=password,
            control_url=match["url"],
            process=process,
            output=output,
            replica_port=int(match["replica_port"]) if match["replica_port"] else None,
            mgm_port=int(match["mgm_port"]) if match["mgm_port"] else None,
        )
        handle.wait_for(lambda s: True, timeout=max(1.0, deadline - time.monotonic()))
        with socket.create_connection((handle.host, handle.port), timeout=10):
            pass
        yield handle
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
