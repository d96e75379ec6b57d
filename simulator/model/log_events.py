"""What the cluster writes to its cluster log as the model changes: node failures and restarts
(reported when they happen), and the changes the model's state shows between two advances
(start phases, checkpoints, DataMemory thresholds, the arbitrator, a stalled GCP, a lagging
event buffer), found by `LogWatcher.observe` comparing with what it saw last."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.cluster_log import DBTUP, PAGE_SIZE_BYTES, text_words
from ndbsim.model.faults import START_PHASES
from ndbsim.model.rows.membership import start_phase

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

# ArbitCode (kernel/signaldata/ArbitSignalData.hpp)
API_START, API_FAIL = 31, 32
WIN_NODES, WIN_GROUPS, LOSE_GROUPS, WIN_CHOOSE, LOSE_NORUN = 41, 43, 44, 46, 48
MEMORY_THRESHOLDS = (80, 90, 99)  # Dbtup reports DataMemory crossing these percentages
MEMORY_CHECK_SECONDS = 10.0  # cluster seconds between two looks at the DataMemory levels
GCP_MONITOR_SECONDS = 60.0  # a stalled GCP is reported every this many cluster seconds
NODE_RESTART = 3  # NodeState::ST_NODE_RESTART
EVENT_BUFFER_BYTES_PER_GCI = 256 * 1024


def ndb_version_number(c: Cluster) -> int:
    major, minor, build = c.version.ndb
    return (major << 16) | (minor << 8) | build


def _when(c: Cluster) -> float:
    return c.wall_time()


def node_failed(c: Cluster, node_id: int, survivors: list[int]) -> None:
    """A data node stopped: its own stop report, then the survivors' failure handling and
    the president's arbitration check. Returns nothing; survivors that lose arbitration are
    for the caller to stop (see `arbitration`)."""
    log, when = c.log, _when(c)
    log.emit("NDBStopStarted", node_id, when, "Node shutdown initiated", stoptype=0)
    log.emit("NDBStopCompleted", node_id, when, "Node shutdown completed.", action=0, signum=0)
    if not survivors:
        return
    log.emit(
        "NodeFailCompleted",
        min(survivors),
        when,
        f"All nodes completed failure of Node {node_id}",
        block=0,
        failed_node=node_id,
        completing_node=0,
    )


def arbitration(c: Cluster, survivors: list[int]) -> bool:
    """The president's arbitration check after a failure: True when the survivors win (or
    need no arbitration), False when they lose and must shut down. Logged as ArbitResult."""
    groups = c.topology.nodegroups.values()
    president = c.president if c.president in survivors else min(survivors)
    arbitrator = (
        next((m.node_id for m in c.topology.mgm_nodes if c.node_up(m.node_id)), 0)
        if not c.faults.is_active("arbitrator-lost")
        else 0
    )
    if not all(any(n in survivors for n in members) for members in groups):
        code, text, won = LOSE_GROUPS, "Arbitration check lost - missing node group", False
    elif 2 * len(survivors) > len(c.nodes):
        code = WIN_NODES
        text = "Arbitration check won - all node groups and more than 1/2 nodes left"
        won = True
    elif arbitrator:
        code, text, won = (
            WIN_CHOOSE,
            f"Arbitration won - positive reply from node {arbitrator}",
            True,
        )
    else:
        code, text, won = LOSE_NORUN, "Network partitioning - no arbitrator available", False
    c.log.emit("ArbitResult", president, _when(c), text, code=code, arbit_node=arbitrator)
    return won


def node_starting(c: Cluster, node_id: int) -> None:
    c.watcher.phases[node_id] = 0
    version = ndb_version_number(c)
    c.log.emit(
        "NDBStartStarted",
        node_id,
        _when(c),
        f"Start initiated (version {c.ndb_version_text(node_id)})",
        version=version,
    )


class LogWatcher:
    """Reports the changes of the model's state since the last `observe`."""

    def __init__(self, c: Cluster) -> None:
        self.phases: dict[int, int] = {}  # starting data node -> last start phase reported
        self.memory: dict[int, int] = {n: self._memory_level(c, n) for n in c.nodes}
        self.memory_checked = c.now
        self.lcp_started = c.checkpoints.running_lcp_id if c.checkpoints.in_round else 0
        self.lcp_completed = c.checkpoints.last.lcp_id
        self.gci = c.checkpoints.gci
        self.arbitrator_lost = c.faults.is_active("arbitrator-lost")
        self.gcp_reported = 0.0  # stalled seconds already reported
        self.lagging = False

    def observe(self, c: Cluster) -> None:
        self._start_phases(c)
        self._checkpoints(c)
        self._memory(c)
        self._arbitrator(c)
        self._gcp_stall(c)
        self._event_buffer(c)

    def _start_phases(self, c: Cluster) -> None:
        for n, s in c.nodes.items():
            if s.state == "STARTING":
                done = start_phase(c, n) - 1
            elif s.state == "STARTED" and n in self.phases:
                done = START_PHASES
            else:
                continue
            for phase in range(self.phases.get(n, 0) + 1, done + 1):
                c.log.emit(
                    "StartPhaseCompleted",
                    n,
                    _when(c),
                    f"Start phase {phase} completed (node restart)",
                    phase=phase,
                    starttype=NODE_RESTART,
                )
            self.phases[n] = done
            if s.state == "STARTED":
                del self.phases[n]
                version = ndb_version_number(c)
                c.log.emit(
                    "NDBStartCompleted",
                    n,
                    _when(c),
                    f"Started (version {c.ndb_version_text(n)})",
                    version=version,
                )

    def _checkpoints(self, c: Cluster) -> None:
        cp, master = c.checkpoints, c.president
        if not c.is_up():
            return
        if cp.gci != self.gci:
            self.gci = cp.gci
            c.log.emit(
                "GlobalCheckpointCompleted",
                master,
                _when(c),
                f"Global checkpoint {cp.gci} completed",
                gci=cp.gci,
            )
        if cp.last.lcp_id != self.lcp_completed:
            self.lcp_completed = cp.last.lcp_id
            c.log.emit(
                "LocalCheckpointCompleted",
                master,
                _when(c),
                f"Local checkpoint {cp.last.lcp_id} completed",
                lci=cp.last.lcp_id,
            )
        if cp.in_round and cp.running_lcp_id != self.lcp_started:
            self.lcp_started = cp.running_lcp_id
            keep = cp.last.gci_completed
            c.log.emit(
                "LocalCheckpointStarted",
                master,
                _when(c),
                f"Local checkpoint {cp.running_lcp_id} started. Keep GCI = {keep} "
                f"oldest restorable GCI = {keep}",
                lci=cp.running_lcp_id,
                keep_gci=keep,
                restore_gci=keep,
            )

    @staticmethod
    def _memory_level(c: Cluster, node_id: int) -> int:
        used, total = c.data_memory_pages(node_id)
        percent = 100 * used // max(1, total)
        return max((t for t in MEMORY_THRESHOLDS if percent >= t), default=0)

    def _memory(self, c: Cluster) -> None:
        """MemoryUsage when a data node's DataMemory crosses a threshold, looked at every
        MEMORY_CHECK_SECONDS (reading every node's pages is most of an advance's cost at 48
        data nodes)."""
        if c.now - self.memory_checked < MEMORY_CHECK_SECONDS:
            return
        self.memory_checked = c.now
        for n in c.started_ids():
            level = self._memory_level(c, n)
            before = self.memory.get(n, 0)
            if level == before:
                continue
            self.memory[n] = level
            used, total = c.data_memory_pages(n)
            percent = 100 * used // max(1, total)
            way = "increased to" if level > before else "decreased to"
            c.log.emit(
                "MemoryUsage",
                n,
                _when(c),
                f"Data usage {way} {percent}%({used} 32K pages of total {total})",
                gth=1 if level > before else -1,
                page_size_bytes=PAGE_SIZE_BYTES,
                pages_used=used,
                pages_total=total,
                block=DBTUP,
            )

    def _arbitrator(self, c: Cluster) -> None:
        lost = c.faults.is_active("arbitrator-lost")
        if lost == self.arbitrator_lost or not c.is_up():
            return
        self.arbitrator_lost = lost
        arbitrator = c.topology.mgm_nodes[0].node_id
        if lost:
            text = f"Lost arbitrator node {arbitrator} - process failure [state=6]"
            code = API_FAIL | (6 << 16)
        else:
            text = (
                f"Started arbitrator node {arbitrator} [ticket={c.president:08x}{arbitrator:08x}]"
            )
            code = API_START
        c.log.emit("ArbitState", c.president, _when(c), text, code=code, arbit_node=arbitrator)

    def _gcp_stall(self, c: Cluster) -> None:
        stalled = c.checkpoints.stalled_time if c.checkpoints.gcp_stalled else 0.0
        if stalled < self.gcp_reported:
            self.gcp_reported = 0.0
        while stalled >= self.gcp_reported + GCP_MONITOR_SECONDS:
            self.gcp_reported += GCP_MONITOR_SECONDS
            text = f"GCP Monitor: GCP_COMMIT lag {int(self.gcp_reported)} seconds (no max lag)"
            c.log.emit("WarningEvent", c.president, _when(c), text, words=text_words(text))

    def _event_buffer(self, c: Cluster) -> None:
        lag = c.faults.get("subscriber-lag")
        lagging = lag is not None
        if lagging == self.lagging:
            return
        self.lagging = lagging
        gcis = lag.get("gcis", 10) if lag else 0
        latest = c.checkpoints.gci
        usage = gcis * EVENT_BUFFER_BYTES_PER_GCI
        alloc = max(usage, EVENT_BUFFER_BYTES_PER_GCI)
        c.log.emit(
            "EventBufferStatus",
            c.sql_node_id,
            _when(c),
            f"Event buffer status: max=unlimited used={usage // 1024}KB alloc={alloc // 1024}KB "
            f"apply_epoch={latest - gcis}/0 latest_epoch={latest}/0",
            usage=usage,
            alloc=alloc,
            max=0,
            apply_gci_l=0,
            apply_gci_h=latest - gcis,
            latest_gci_l=0,
            latest_gci_h=latest,
        )
