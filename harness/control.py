"""The client of ndbsim's control API (docs/ndbsim.md): nodes, faults, the cost meter."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from ndb_harness.process import HarnessError


@dataclass
class NdbsimControl:
    """``cluster="replica"`` acts on the replica cluster of ndbsim --replica (default: the
    source)."""

    control_url: str  # http://host:port, no trailing slash

    def _call(self, method: str, path: str, json: Any = None, cluster: str | None = None) -> Any:
        params = {"cluster": cluster} if cluster else None
        response = httpx.request(
            method, self.control_url + path, json=json, params=params, timeout=30.0
        )
        if response.status_code >= 400:
            raise HarnessError(f"ndbsim: {method} {path}: {response.status_code} {response.text}")
        return response.json()

    def stop_node(self, node_id: int, cluster: str | None = None) -> dict:
        return self._call("POST", f"/nodes/{node_id}/stop", cluster=cluster)

    def start_node(self, node_id: int, cluster: str | None = None) -> dict:
        return self._call("POST", f"/nodes/{node_id}/start", cluster=cluster)

    def fault(self, name: str, cluster: str | None = None, **params: Any) -> dict:
        """Set a fault; the link faults (replica-*, injector-behind, conflicts) act on the
        replication link whatever the cluster (with --active-active, on the link from the
        cluster named)."""
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

    def wait_for(
        self, predicate: Callable[[dict], Any], timeout: float = 30.0, interval: float = 0.1
    ) -> dict:
        """Poll /status until predicate(status) is true; the last status."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if predicate(status):
                return status
            if time.monotonic() > deadline:
                raise HarnessError(f"ndbsim: condition not reached within {timeout}s: {status}")
            time.sleep(interval)
