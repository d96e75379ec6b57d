"""Injectable faults. The model (cluster.py) reads them when it advances and writes rows; the SQL
front reads `ndbinfo_latency`, `refuse_connections` and `drop_connections` directly."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ndbsim.model.topology import Topology

PREFIX = "ndb$"
START_PHASES = 9  # a starting data node shows start phases 1..9 in ndbinfo.nodes
DEFAULT_STUCK_PHASE = 5  # node restart: copying fragments from the live nodes
DEFAULT_CRASH_ERROR = 2341  # data-node-crash: NDBD_EXIT_NDBREQUIRE, a failed ndbrequire
DEFAULT_BEHIND_SECONDS = 900.0  # replica-behind without seconds: past the 300 s lag alert
# conflicts: the epoch conflict functions of mysql.ndb_replication; the _TRANS ones are transactional
CONFLICT_FUNCTIONS = ("NDB$EPOCH", "NDB$EPOCH2", "NDB$EPOCH_TRANS", "NDB$EPOCH2_TRANS")
LINK_FAULTS = (
    "replica-sql-error",
    "replica-io-disconnect",
    "replica-behind",
    "injector-behind",
    "conflicts",
    "subscriber-lag",
)

# Faults that make a resource fill up over cluster time, and what they fill.
GROWTH = {
    "data-memory-growth": "Data memory of every data node",
    "redo-log-growth": "every REDO log part",
    "undo-log-growth": "the disk data undo log",
    "tablespace-growth": "the disk data tablespace",
}
DEFAULT_GROWTH_SHARE = 0.5  # a growth fault starts at half full
# Schema changes that run for `seconds` cluster seconds from when they are set (schema_changes.py).
SCHEMA_CHANGES = ("copy-alter", "reorganize")
# Faults that act over the cluster time since they were set (their params keep it as "since").
TIMED = (*GROWTH, "missed-heartbeats", *SCHEMA_CHANGES)
# Faults whose `seconds` are cluster seconds, up to a day.
CLUSTER_SECONDS = ("replica-behind", "slow-backup", *SCHEMA_CHANGES)

# Faults of the data nodes' caches, buffers and memory pools, and of the global checkpoint.
DEFAULT_ABORT_SHARE = 0.2  # transaction-aborts: share of the transactions that abort
DEFAULT_DISK_PAGE_BUFFER_HITS = 0.8  # disk-page-buffer-misses: share served from the cache
# resource-pool: the pools it can fill, with their resource_id in ndbinfo.resources
POOLS = {"TRANSACTION_MEMORY": 1, "QUERY_MEMORY": 8, "SCHEMA_TRANS_MEMORY": 9}
DEFAULT_POOL = "TRANSACTION_MEMORY"
BUFFERS = {
    "long-message": "the long message buffer (LongMessageBuffer)",
    "redo": "every REDO log buffer (RedoBuffer)",
    "undo": "the disk data undo buffer",
}


@dataclass(frozen=True)
class FaultSpec:
    name: str
    description: str
    params: dict[str, tuple[type, bool]]  # name -> (type, required)


FAULTS: dict[str, FaultSpec] = {
    f.name: f
    for f in (
        FaultSpec("lcp-stall", "local checkpoints stop completing", {}),
        FaultSpec(
            "data-memory",
            "Data memory (and IndexMemory where the version has it) filled to a share on every"
            " data node",
            {"share": (float, True)},
        ),
        FaultSpec(
            "redo-log",
            "REDO log parts filled to a share on every data node",
            {"share": (float, True)},
        ),
        FaultSpec("arbitrator-lost", "data nodes lose the arbitrator", {}),
        FaultSpec(
            "arbitration-denied",
            "the arbitrator, asked after a node failure, answers no; timeout=true: it does not "
            "answer within ArbitrationTimeout",
            {"timeout": (bool, False)},
        ),
        FaultSpec(
            "data-node-crash",
            f"a data node shuts down on an ndbd exit code (default {DEFAULT_CRASH_ERROR}) and "
            "stays down until started; with a phase, each start of it crashes in that start phase",
            {"node": (int, True), "error": (int, False), "phase": (int, False)},
        ),
        FaultSpec(
            "missed-heartbeats",
            "a data node's heartbeats stop reaching its neighbour; dies=true: it is declared "
            "dead after the fourth missed one",
            {"node": (int, True), "dies": (bool, False)},
        ),
        FaultSpec(
            "lcp-keep-gci-stall",
            "the local checkpoint stops in CALCULATED_KEEP_GCI and does not complete",
            {},
        ),
        FaultSpec(
            "api-writes-only",
            "the SQL nodes only read while an NDB API application writes: the data nodes' writes "
            "and the GCI go on, the SQL nodes' Ndb_last_commit_epoch_server stays",
            {},
        ),
        FaultSpec(
            "sql-node-slot-taken",
            "an SQL node's API slot is held (by ndb_restore): its mysqld restarts and connects "
            "with a free API slot's node id",
            {"node": (int, True)},
        ),
        FaultSpec(
            "slow-ndbinfo",
            "ndbinfo queries answer late",
            {"seconds": (float, True), "table": (str, False)},
        ),
        FaultSpec("refuse-connections", "new MySQL connections are refused", {}),
        FaultSpec("drop-connections", "connections are dropped when they send a query", {}),
        FaultSpec(
            "send-overload",
            "send buffers of a data node's links (or one link) stay overloaded",
            {"node": (int, True), "remote": (int, False)},
        ),
        FaultSpec(
            "job-buffer-congestion",
            "the LDM threads of a data node are overloaded and consume their job buffers too"
            " slowly: its tc and recv threads wait on the congested buffers (thread_buffer_full)",
            {"node": (int, True)},
        ),
        FaultSpec(
            "stuck-start",
            "a data node started while this is set stays in a start phase",
            {"node": (int, True), "phase": (int, False)},
        ),
        FaultSpec(
            "primaries-away",
            "fragments preferring a data node keep their primary on another replica",
            {"node": (int, True)},
        ),
        FaultSpec(
            "long-transaction",
            "a transaction on a data node (default the lowest) holds row locks and stays idle",
            {"node": (int, False), "locks": (int, False)},
        ),
        FaultSpec(
            "lock-contention",
            "transactions queue for the lock of a hot row of a table (default the busiest)",
            {"table": (str, False), "waiters": (int, False)},
        ),
        FaultSpec(
            "operation-errors",
            "a share of the transactions, key operations and scans end in an error (default 0.2)",
            {"share": (float, False)},
        ),
        FaultSpec(
            "transaction-aborts",
            "a share of the SQL nodes' transactions abort (default 0.2): Ndb_api_trans_abort_count"
            " and Com_rollback rise faster",
            {"share": (float, False)},
        ),
        FaultSpec(
            "slow-disk",
            "disk data page reads, writes and log waits take longer (PGMAN latency)",
            {"factor": (float, False)},
        ),
        FaultSpec(
            "latency-degradation",
            "transactions, key operations and scans take longer in the data nodes",
            {"factor": (float, False)},
        ),
        FaultSpec(
            "send-buffer-pressure",
            "a data node's send buffers fill to a share of its send buffer memory",
            {"node": (int, True), "share": (float, False)},
        ),
        FaultSpec(
            "tablespace-full",
            "the disk-data tablespace's extents fill to a share",
            {"share": (float, True)},
        ),
        FaultSpec(
            "certificate-expiring",
            "a node's TLS certificate (or every node's) expires in a number of days",
            {"days": (float, True), "node": (int, False)},
        ),
        *(
            FaultSpec(
                name,
                f"{what} grows steadily: its lowest level rises from a share by a rate per hour",
                {"rate": (float, True), "share": (float, False)},
            )
            for name, what in GROWTH.items()
        ),
        FaultSpec("backups-stopped", "scheduled backups stop: the backup id stays", {}),
        FaultSpec(
            "mgm-down",
            "the management server stops answering: sessions are closed at once and its event "
            "listeners dropped",
            {},
        ),
        FaultSpec(
            "backup-abort",
            "the running backup and every backup started while this is set abort with an NDB "
            "error (default 1325)",
            {"error": (int, False)},
        ),
        FaultSpec(
            "slow-backup",
            "every backup started while this is set runs for a number of cluster seconds before"
            " it completes, its data files growing over them",
            {"seconds": (float, True)},
        ),
        FaultSpec(
            "backup-start-failure",
            "every backup requested while this is set fails to start with an NDB error "
            "(default 1342)",
            {"error": (int, False)},
        ),
        FaultSpec(
            "old-version",
            "a data node still runs the previous NDB release (a rolling upgrade left half done)",
            {"node": (int, True)},
        ),
        FaultSpec(
            "old-config-generation",
            "the configuration changed and a data node still runs the previous generation",
            {"node": (int, True)},
        ),
        FaultSpec(
            "replica-sql-error",
            "the replica's SQL thread stops on an NDB applier error (1032)",
            {},
        ),
        FaultSpec(
            "replica-io-disconnect",
            "the replica's I/O thread loses the source (Connecting, error 2003)",
            {},
        ),
        FaultSpec(
            "replica-behind",
            "the replica's applier trails the source by a number of seconds (default 900)",
            {"seconds": (float, False)},
        ),
        FaultSpec(
            "injector-behind",
            "the source's binlog injector falls behind the cluster's epochs; gap=true overflows "
            "the event buffer and writes a LOST_EVENTS incident",
            {"gap": (bool, False)},
        ),
        FaultSpec(
            "conflicts",
            "the replica's SQL node, which applies the changes, finds rows in conflict with a "
            "conflict function (default NDB$EPOCH2)",
            {"function": (str, False)},
        ),
        FaultSpec(
            "subscriber-lag",
            "the source's event buffer receives the cluster's epochs late: `epochs` micro GCPs,"
            " or `gcis` GCIs of TimeBetweenGlobalCheckpoints / TimeBetweenEpochs epochs"
            " (default 10 GCIs)",
            {"gcis": (int, False), "epochs": (int, False)},
        ),
        FaultSpec(
            "metadata-excluded",
            "the SQL node fails to synchronize some user tables and excludes them",
            {"tables": (int, True)},
        ),
        FaultSpec(
            "disk-page-buffer-misses",
            "disk data page requests miss the disk page buffer: only a share of them "
            f"(default {DEFAULT_DISK_PAGE_BUFFER_HITS}) is served from it, the rest is read "
            "from disk",
            {"share": (float, False)},
        ),
        FaultSpec(
            "gcp-stall",
            "the global checkpoint stops (GCP_COMMIT and GCP_SAVE): the GCI and the epoch stay",
            {},
        ),
        FaultSpec(
            "gcp-save-lag",
            "GCP_SAVE lags (the redo log is flushed to disk too slowly): no new GCI starts, while"
            " the micro GCPs go on and raise the epoch's low 32 bits; the LDM threads count the"
            " redo IO lag (slowdowns_due_to_io_lag)",
            {},
        ),
        FaultSpec(
            "resource-pool",
            f"a resource pool (default {DEFAULT_POOL}) of every data node gets a fixed "
            "limit, as when TransactionMemory is set, and fills to a share of it",
            {"resource": (str, False), "share": (float, True)},
        ),
        FaultSpec(
            "copy-alter",
            "a copying ALTER TABLE of the largest user table runs for a number of cluster"
            " seconds: a #sql-<hex> table in its database fills with its rows, then replaces it",
            {"seconds": (float, True)},
        ),
        FaultSpec(
            "reorganize",
            "ALTER TABLE ... REORGANIZE PARTITION of the largest user table runs for a number of"
            " cluster seconds: its fragments double, the new ones fill as the old ones empty",
            {"seconds": (float, True)},
        ),
        FaultSpec(
            "buffer-full",
            f"a buffer ({', '.join(BUFFERS)}) of every data node fills to a share",
            {"buffer": (str, True), "share": (float, True)},
        ),
    )
}
DEFAULT_SEND_BUFFER_SHARE = 0.92  # send-buffer-pressure without a share


class FaultError(ValueError):
    """A fault name or parameter that is not valid; the message is one line."""


def validate(name: str, params: dict[str, Any], topology: Topology | None = None) -> dict[str, Any]:
    """Checked and typed parameters of a fault; FaultError when something is wrong. Node ids
    are checked against `topology` (without one, no node id is valid)."""
    spec = FAULTS.get(name)
    if spec is None:
        raise FaultError(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
    unknown = set(params) - set(spec.params)
    if unknown:
        raise FaultError(f"{name}: unknown parameter(s) {', '.join(sorted(unknown))}")
    clean: dict[str, Any] = {}
    for key, (kind, required) in spec.params.items():
        value = params.get(key)
        if value is None:
            if required:
                raise FaultError(f"{name}: parameter {key!r} is required")
            continue
        clean[key] = _convert(name, key, kind, value)
    if "share" in clean and not 0.0 <= clean["share"] <= 1.0:
        raise FaultError(f"{name}: share must be between 0 and 1, got {clean['share']}")
    if "gcis" in clean and clean["gcis"] < 1:
        raise FaultError(f"{name}: gcis must be 1 or more, got {clean['gcis']}")
    if "epochs" in clean and not 1 <= clean["epochs"] <= 1_000_000:
        raise FaultError(f"{name}: epochs must be 1..1000000, got {clean['epochs']}")
    if {"gcis", "epochs"} <= clean.keys():
        raise FaultError(f"{name}: give gcis or epochs, not both")
    if "days" in clean and not 0.0 <= clean["days"] <= 3650.0:
        raise FaultError(f"{name}: days must be between 0 and 3650, got {clean['days']}")
    if "error" in clean and not 1 <= clean["error"] <= 65535:
        raise FaultError(f"{name}: error must be an NDB error code 1..65535, got {clean['error']}")
    if "tables" in clean and not 1 <= clean["tables"] <= 1000:
        raise FaultError(f"{name}: tables must be 1..1000, got {clean['tables']}")
    if name == "send-buffer-pressure":
        clean.setdefault("share", DEFAULT_SEND_BUFFER_SHARE)
    if name in GROWTH:
        clean.setdefault("share", DEFAULT_GROWTH_SHARE)
        if not 0.0 < clean["rate"] <= 1.0:
            raise FaultError(f"{name}: rate must be > 0 and <= 1 per hour, got {clean['rate']}")
    if name == "replica-behind":
        clean.setdefault("seconds", DEFAULT_BEHIND_SECONDS)
    if name in CLUSTER_SECONDS:
        if not 0.0 < clean["seconds"] <= 86400.0:
            raise FaultError(f"{name}: seconds must be > 0 and <= 86400, got {clean['seconds']}")
    elif "seconds" in clean and not 0.0 <= clean["seconds"] <= 600.0:
        raise FaultError(f"{name}: seconds must be between 0 and 600, got {clean['seconds']}")
    if "table" in clean:
        clean["table"] = _base_name(clean["table"])
        if not clean["table"]:
            raise FaultError(f"{name}: table must not be empty")
    if "node" in clean:
        _check_nodes(name, clean, topology)
    for key in ("locks", "waiters"):
        if key in clean and not 1 <= clean[key] <= 1000:
            raise FaultError(f"{name}: {key} must be 1..1000, got {clean[key]}")
    if "factor" in clean and not 1.0 <= clean["factor"] <= 1000.0:
        raise FaultError(f"{name}: factor must be between 1 and 1000, got {clean['factor']}")
    if name == "conflicts":
        clean["function"] = clean.get("function", "NDB$EPOCH2").upper()
        if clean["function"] not in CONFLICT_FUNCTIONS:
            known = ", ".join(CONFLICT_FUNCTIONS)
            raise FaultError(
                f"conflicts: function must be one of {known}, got {params['function']!r}"
            )
    if name == "stuck-start":
        clean.setdefault("phase", DEFAULT_STUCK_PHASE)
    if "phase" in clean and not 1 <= clean["phase"] <= START_PHASES:
        raise FaultError(f"{name}: phase must be 1..{START_PHASES}, got {clean['phase']}")
    if name == "data-node-crash":
        clean.setdefault("error", DEFAULT_CRASH_ERROR)
    _check_capacity(name, clean)
    return clean


def _check_capacity(name: str, clean: dict[str, Any]) -> None:
    """Defaults and checks of the cache, buffer and pool faults."""
    if name == "disk-page-buffer-misses":
        clean.setdefault("share", DEFAULT_DISK_PAGE_BUFFER_HITS)
    if name == "resource-pool":
        clean["resource"] = clean.get("resource", DEFAULT_POOL).strip().upper()
        if clean["resource"] not in POOLS:
            raise FaultError(f"{name}: resource must be one of {', '.join(POOLS)}")
    if name == "buffer-full" and clean["buffer"] not in BUFFERS:
        raise FaultError(f"{name}: buffer must be one of {', '.join(BUFFERS)}")


def _convert(name: str, key: str, kind: type, value: Any) -> Any:
    noun = "whole number" if kind is int else kind.__name__
    wrong = FaultError(f"{name}: {key} must be a {noun}, got {value!r}")
    if kind is int and (isinstance(value, bool) or (isinstance(value, float) and value % 1)):
        raise wrong
    if kind is bool:
        text = str(value).lower()
        if text not in ("true", "false", "1", "0"):
            raise FaultError(f"{name}: {key} must be true or false, got {value!r}")
        return text in ("true", "1")
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise wrong from None


def _check_nodes(name: str, clean: dict[str, Any], topology: Topology | None) -> None:
    data_nodes = topology.data_node_ids if topology else []
    node = clean["node"]
    if name == "sql-node-slot-taken":
        _check_sql_node(name, node, topology)
        return
    if name == "certificate-expiring":  # every node holds a certificate
        if topology is None or topology.node(node) is None:
            raise FaultError(f"{name}: node {node} is not a node of the cluster")
        return
    if node not in data_nodes:
        raise FaultError(f"{name}: node {node} is not a data node (data nodes: {_ids(data_nodes)})")
    if name == "primaries-away" and topology.replicas < 2:
        raise FaultError(f"{name}: needs NoOfReplicas >= 2, the cluster has 1")
    if "remote" in clean:
        remote = clean["remote"]
        if remote == node:
            raise FaultError(f"{name}: remote must be another node than {node}")
        if topology.node(remote) is None:
            others = [n.node_id for n in topology.all_nodes if n.node_id != node]
            raise FaultError(f"{name}: remote {remote} is not a node (nodes: {_ids(others)})")


def _check_sql_node(name: str, node: int, topology: Topology | None) -> None:
    api = topology.api_nodes if topology else ()
    sql = [n.node_id for n in api if n.process_name]
    if node not in sql:
        raise FaultError(f"{name}: node {node} is not an SQL node (SQL nodes: {_ids(sql)})")
    if not any(not n.process_name for n in api):
        raise FaultError(f"{name}: no free API slot to connect with (see --free-api-slots)")


def _ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in ids) or "none"


def _base_name(table: str) -> str:
    name = table.strip().lower().split(".")[-1].strip("`")
    return name.removeprefix(PREFIX)


class Faults:
    def __init__(self, topology: Topology | None = None) -> None:
        self.topology = topology
        self._active: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.before_change: Callable[[], None] = lambda: None
        self.link = False  # a replication link runs (ndbsim --replica): link faults apply
        self.cluster_time: Callable[[], float] = lambda: 0.0  # the model's current time
        self.after_change: Callable[[str], None] = lambda name: None  # a fault set or cleared

    def set(self, name: str, **params: Any) -> dict[str, Any]:
        clean = validate(name, params, self.topology)
        if name in LINK_FAULTS and not self.link:
            raise FaultError(f"{name}: no replication link; start ndbsim with --replica")
        self.before_change()
        if name in TIMED:
            clean["since"] = self.cluster_time()
        with self._lock:
            self._active[name] = clean
        self.after_change(name)
        return clean

    def clear(self, name: str) -> bool:
        """Clear one fault; False when it was not active. FaultError for unknown names."""
        if name not in FAULTS:
            raise FaultError(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
        self.before_change()
        with self._lock:
            was_active = self._active.pop(name, None) is not None
        if was_active:
            self.after_change(name)
        return was_active

    def clear_all(self) -> None:
        self.before_change()
        with self._lock:
            self._active.clear()

    def active(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {name: dict(params) for name, params in self._active.items()}

    def get(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            params = self._active.get(name)
            return None if params is None else dict(params)

    def is_active(self, name: str) -> bool:
        with self._lock:
            return name in self._active

    def share(self, name: str) -> float | None:
        params = self.get(name)
        return None if params is None else params["share"]

    def grown_share(self, name: str, now: float) -> float | None:
        """The lowest level a growth fault has brought its resource to at cluster time `now`
        (share of the total, at most 1), or None when the fault is not set."""
        params = self.get(name)
        if params is None:
            return None
        hours = max(0.0, now - params["since"]) / 3600.0
        return min(1.0, params["share"] + params["rate"] * hours)

    def ndbinfo_latency(self, objects: Iterable[str]) -> float:
        """Seconds to wait before answering a query over these ndbinfo objects."""
        params = self.get("slow-ndbinfo")
        if params is None:
            return 0.0
        names = {_base_name(o) for o in objects}
        if not names:
            return 0.0
        table = params.get("table")
        if table is None or table in names:
            return params["seconds"]
        return 0.0

    @property
    def refuse_connections(self) -> bool:
        return self.is_active("refuse-connections")

    @property
    def drop_connections(self) -> bool:
        return self.is_active("drop-connections")
