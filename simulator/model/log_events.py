"""What the cluster writes to its cluster log as the model changes: a data node starting, and
the changes the model's state shows between two advances (start phases, checkpoints, DataMemory
thresholds, the arbitrator, a stalled GCP or LCP, missed heartbeats, a lagging event buffer and
the subscriber SUMA disconnects for it), found by `LogWatcher.observe` comparing with what it
saw last. A data node leaving is node_failures'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model import event_buffer, fault_effects, node_failures
from ndbsim.model.cluster_log import DBTUP, PAGE_SIZE_BYTES, text_words
from ndbsim.model.faults import START_PHASES
from ndbsim.model.ndb_tables import start_types
from ndbsim.model.node_failures import ARBIT_RUN, ARBIT_START
from ndbsim.model.start_phases import start_phase

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

MEMORY_THRESHOLDS = (80, 90, 99)  # Dbtup reports DataMemory crossing these percentages
MEMORY_CHECK_SECONDS = 10.0  # cluster seconds between two looks at the DataMemory levels
GCP_MONITOR_SECONDS = 60.0  # a stalled GCP is reported every this many cluster seconds
# Qmgr::checkHeartbeat: missed heartbeats are reported from the third check without one, the
# node is declared dead at the fifth; a late heartbeat arrives at the fourth
FIRST_REPORTED_CHECK, DEAD_AT_CHECK, LATE_HEARTBEAT_CHECK = 3, 5, 4
MAX_HEARTBEAT_CHECKS = 100  # heartbeat checks reported per look, at most


def ndb_version_number(c: Cluster) -> int:
    major, minor, build = c.version.numbers
    return (major << 16) | (minor << 8) | build


def _when(c: Cluster) -> float:
    return c.wall_time()


def version_text(c: Cluster, node_id: int) -> str:
    """ndbGetVersionString as NDBStartStarted and NDBStartCompleted print it."""
    return c.version.version_label(c.version.text_of(fault_effects.node_release(c, node_id)))


def node_starting(c: Cluster, node_id: int) -> None:
    """The node's process connects to the management server and begins its start."""
    c.watcher.phases[node_id] = 0
    initial = c.nodes[node_id].initial_start
    c.watcher.start_types[node_id] = "ST_INITIAL_NODE_RESTART" if initial else "ST_NODE_RESTART"
    mgm = node_failures.mgm_node(c)
    c.log.emit("Connected", mgm, _when(c), f"Node {node_id} Connected", node=node_id)
    text = f"Start initiated ({version_text(c, node_id)})"
    c.log.emit("NDBStartStarted", node_id, _when(c), text, version=ndb_version_number(c))


class LogWatcher:
    """Reports the changes of the model's state since the last `observe`."""

    def __init__(self, c: Cluster) -> None:
        self.phases: dict[int, int] = {}  # starting data node -> last start phase reported
        self.start_types: dict[int, str] = {}  # starting data node -> its NodeState StartType
        self.memory: dict[int, int] = {n: self._memory_level(c, n) for n in c.nodes}
        self.memory_checked = c.now
        self.lcp_started = c.checkpoints.running_lcp_id if c.checkpoints.in_round else 0
        self.lcp_completed = c.checkpoints.last.lcp_id
        self.gci = c.checkpoints.gci
        self.arbitrator_lost = c.faults.is_active("arbitrator-lost")
        self.gcp_reported = 0.0  # stalled seconds already reported
        self.keep_gci_stalled = False
        self.heartbeats: tuple[int, float, int] | None = None  # node, since, checks reported
        self.event_buffer = event_buffer.EventBufferWatch()

    def observe(self, c: Cluster) -> None:
        self._start_phases(c)
        self._checkpoints(c)
        self._memory(c)
        self._arbitrator(c)
        self._gcp_stall(c)
        self._keep_gci(c)
        self._heartbeats(c)
        self.event_buffer.observe(c)

    def _start_phases(self, c: Cluster) -> None:
        for n, s in c.nodes.items():
            if s.state == "STARTING":
                done = start_phase(c, n) - 1
            elif s.state == "STARTED" and n in self.phases:
                done = START_PHASES
            else:
                continue
            kind = self.start_types.get(n, "ST_NODE_RESTART")
            starttype, type_text = start_types()[kind]
            for phase in range(self.phases.get(n, 0) + 1, done + 1):
                if _crashes_in(c, n, phase):
                    break
                text = f"Start phase {phase} completed {type_text}"
                c.log.emit(
                    "StartPhaseCompleted", n, _when(c), text, phase=phase, starttype=starttype
                )
            if s.state == "STOPPED":
                self.phases.pop(n, None)
                continue
            self.phases[n] = done
            if s.state == "STARTED":
                del self.phases[n]
                self.start_types.pop(n, None)
                text = f"Started ({version_text(c, n)})"
                c.log.emit("NDBStartCompleted", n, _when(c), text, version=ndb_version_number(c))

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
        """Qmgr::handleArbitApiFail when the arbitrator is lost (in state RUN), the new
        arbitrator's ApiStart (in state START) once it runs again."""
        lost = c.faults.is_active("arbitrator-lost")
        if lost == self.arbitrator_lost or not c.is_up():
            return
        self.arbitrator_lost = lost
        arbitrator = node_failures.mgm_node(c)
        code, state = ("ApiFail", ARBIT_RUN) if lost else ("ApiStart", ARBIT_START)
        node_failures.arbit_event(c, "ArbitState", code, state, c.president, arbitrator)

    def _gcp_stall(self, c: Cluster) -> None:
        stalled = c.checkpoints.stalled_time if c.checkpoints.gcp_stalled else 0.0
        if stalled < self.gcp_reported:
            self.gcp_reported = 0.0
        while stalled >= self.gcp_reported + GCP_MONITOR_SECONDS:
            self.gcp_reported += GCP_MONITOR_SECONDS
            text = f"GCP Monitor: GCP_COMMIT lag {int(self.gcp_reported)} seconds (no max lag)"
            c.log.emit("WarningEvent", c.president, _when(c), text, words=text_words(text))

    def _keep_gci(self, c: Cluster) -> None:
        """lcp-keep-gci-stall: the master's DIH reports the local checkpoint stopped while it
        calculates the GCI to keep (Dbdih::calculateKeepGciLab), once per stall."""
        stalled = c.faults.is_active("lcp-keep-gci-stall") and c.is_up()
        if stalled and not self.keep_gci_stalled:
            text = "Local Checkpoint stopped in CALCULATED_KEEP_GCI"
            c.log.emit("LCPStoppedInCalcKeepGci", c.president, _when(c), text, data=0)
        self.keep_gci_stalled = stalled

    def _heartbeats(self, c: Cluster) -> None:
        """missed-heartbeats: Qmgr::checkHeartbeat on the node's right neighbour, once every
        HeartbeatIntervalDbDb: MissedHeartbeat from the third check without a heartbeat, and
        with dies=true DeadDueToHeartbeat at the fifth; otherwise a late heartbeat arrives at
        the fourth and the count starts over."""
        params = c.faults.get("missed-heartbeats")
        node = params["node"] if params else 0
        reporter = _right_neighbour(c, node) if node in c.started_ids() else None
        if reporter is None:
            self.heartbeats = None
            return
        if self.heartbeats is None or self.heartbeats[0] != node:
            self.heartbeats = (node, max(params["since"], c.nodes[node].started_at), 0)
        _, since, reported = self.heartbeats
        interval = int(c.config[node]["HeartbeatIntervalDbDb"]) / 1000.0
        checks = int((c.now - since) / interval)
        for check in range(max(reported, checks - MAX_HEARTBEAT_CHECKS) + 1, checks + 1):
            count = check if params.get("dies") else (check - 1) % LATE_HEARTBEAT_CHECK + 1
            if count >= FIRST_REPORTED_CHECK:
                text = f"Node {node} missed heartbeat {count - 1}"
                c.log.emit("MissedHeartbeat", reporter, _when(c), text, node=node, count=count - 1)
            if count >= DEAD_AT_CHECK:
                self.heartbeats = None
                node_failures.declared_dead(c, node, reporter)
                return
        self.heartbeats = (node, since, checks)


def _right_neighbour(c: Cluster, node: int) -> int | None:
    """The started data node that checks `node`'s heartbeats: the next one in the ring of
    node ids (Qmgr's left neighbour of it), none when it runs alone."""
    ring = c.started_ids()
    if len(ring) < 2:
        return None
    return ring[(ring.index(node) + 1) % len(ring)]


def _crashes_in(c: Cluster, node: int, phase: int) -> bool:
    """data-node-crash with a phase: the starting node crashes in that start phase."""
    params = c.faults.get("data-node-crash")
    if params is None or params["node"] != node or params.get("phase") != phase:
        return False
    node_failures.crash(c, node, params["error"], phase)
    return True
