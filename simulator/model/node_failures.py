"""A data node leaving the cluster, as the cluster log shows it: a graceful stop (Ndbcntr:
NDBStopStarted, NDBStopCompleted), a crash (NDBStopForced with the ndbd exit code) or a node
its neighbour declares dead (Qmgr::checkHeartbeat: DeadDueToHeartbeat); then the management
server's Disconnected, the president's arbitration check (Qmgr::handleArbitCheck) and, when the
survivors win, their failure handling: NODE_FAILREP, the blocks' NodeFailCompleted reports and
"All nodes completed failure" (Dbdih::execNF_COMPLETEREP, nodeFailCompletedCheckLab)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ndbsim.model import ndbd_exit_codes, node_config
from ndbsim.model.cluster_log import DBDICT, DBDIH, DBLQH, DBTC
from ndbsim.model.ndb_tables import arbit_codes, arbit_text

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

# Qmgr's arbitration states (Qmgr.hpp ArbitState), reported in the high 16 bits of the code
ARBIT_INIT, ARBIT_FIND, ARBIT_START, ARBIT_RUN, ARBIT_CHOOSE, ARBIT_CRASH = 1, 2, 5, 6, 7, 8
# the local blocks whose NF_COMPLETEREP Dbdih reports, in the order they usually finish
FAIL_BLOCKS = {DBTC: "DBTC", DBLQH: "DBLQH", DBDICT: "DBDICT", DBDIH: "DBDIH"}


def mgm_node(c: Cluster) -> int:
    return c.topology.mgm_nodes[0].node_id


def stop_gracefully(c: Cluster, node_id: int) -> None:
    """`ndb_mgm -e "N STOP"`: the node shuts down, the others handle its departure."""
    log, when = c.log, c.wall_time()
    log.emit("NDBStopStarted", node_id, when, "Node shutdown initiated", stoptype=0)
    c.mark_stopped(node_id)
    log.emit("NDBStopCompleted", node_id, when, "Node shutdown completed.", action=0, signum=0)
    handle_failure(c, node_id)


def crash(c: Cluster, node_id: int, error: int, sphase: int) -> None:
    """The node shuts down on an error (ErrorReporter, progError) and stays down
    (StopOnError); the others handle its failure."""
    forced(c, node_id, error, sphase)
    handle_failure(c, node_id)


def forced(c: Cluster, node_id: int, error: int, sphase: int) -> None:
    c.log.emit(
        "NDBStopForced",
        node_id,
        c.wall_time(),
        ndbd_exit_codes.stop_forced_text(error, sphase),
        action=0,
        signum=0,
        error=error,
        sphase=sphase,
        extra=0,
    )
    c.mark_stopped(
        node_id, initial=ndbd_exit_codes.exit_status(error) == ndbd_exit_codes.FILESYSTEM_ERROR
    )


def declared_dead(c: Cluster, node_id: int, reporter: int) -> None:
    """Its right neighbour declares the node dead after missed heartbeats; the node, told of
    its failure, shuts down."""
    text = f"Node {node_id} declared dead due to missed heartbeat"
    c.log.emit("DeadDueToHeartbeat", reporter, c.wall_time(), text, node=node_id)
    crash(c, node_id, ndbd_exit_codes.NODE_DECLARED_DEAD, ndbd_exit_codes.NO_START_PHASE)


def handle_failure(c: Cluster, node_id: int) -> None:
    """The management server and the surviving data nodes handle a data node's departure; the
    survivors that lose the arbitration shut down too."""
    when = c.wall_time()
    c.log.emit("Disconnected", mgm_node(c), when, f"Node {node_id} Disconnected", node=node_id)
    c.backups.node_failed(c)
    survivors = c.running_ids()
    if not survivors:
        return
    if not arbitration(c, survivors):
        for other in survivors:
            forced(c, other, ndbd_exit_codes.ARBIT_SHUTDOWN, ndbd_exit_codes.NO_START_PHASE)
            c.log.emit("Disconnected", mgm_node(c), when, f"Node {other} Disconnected", node=other)
        return
    for s in survivors:
        _failure_reports(c, s, node_id)
    for s in survivors:
        text = f"All nodes completed failure of Node {node_id}"
        c.log.emit("NodeFailCompleted", s, when, text, block=0, failed_node=node_id)


def _failure_reports(c: Cluster, survivor: int, failed: int) -> None:
    log, when = c.log, c.wall_time()
    log.emit("Disconnected", survivor, when, f"Node {failed} Disconnected", node=failed)
    text = f"Node {failed} has failed. The Node state at failure was 0"
    log.emit("NODE_FAILREP", survivor, when, text, failed_node=failed, failure_state=0)
    log.emit(
        "CommunicationClosed", survivor, when, f"Communication to Node {failed} closed", node=failed
    )
    for block, name in FAIL_BLOCKS.items():
        text = f"Node failure of {failed} {name} completed"
        log.emit("NodeFailCompleted", survivor, when, text, block=block, failed_node=failed)
    text = f"Node {survivor} completed failure of Node {failed}"
    log.emit(
        "NodeFailCompleted",
        survivor,
        when,
        text,
        block=0,
        failed_node=failed,
        completing_node=survivor,
    )


def running_arbitrator(c: Cluster) -> int:
    """The management node acting as arbitrator, 0 when none runs (arbitrator-lost)."""
    if c.faults.is_active("arbitrator-lost"):
        return 0
    return next((m.node_id for m in c.topology.mgm_nodes if c.node_up(m.node_id)), 0)


def check_result(c: Cluster, survivors: list[int]) -> str:
    """The ArbitCode of Qmgr::handleArbitCheck over the surviving data nodes: the one-half
    rule, then Dbdih::execCHECKNODEGROUPSREQ (ArbitCheck) over the node groups. A data node
    that is not active (RonDB's NodeActive=0) was never a member: it counts in neither."""
    members = [n for n in c.nodes if node_config.active(c.config[n])]
    alive, total = len(survivors), len(members)
    if 2 * alive < total:
        return "LoseNodes"
    groups = [
        [n in survivors for n in group if n in members] for group in c.topology.nodegroups.values()
    ]
    if any(not any(g) for g in groups):
        return "LoseGroups"
    if any(all(g) for g in groups):
        return "WinGroups"
    return "WinNodes" if 2 * alive > total else "Partitioning"


def arbitration(c: Cluster, survivors: list[int]) -> bool:
    """The president's arbitration check after a failure, reported as ArbitResult (and the
    arbitrator's answer when it is asked); True when the survivors go on."""
    president = c.president if c.president in survivors else min(survivors)
    arbitrator = running_arbitrator(c)
    state = ARBIT_RUN if arbitrator else ARBIT_FIND
    code = check_result(c, survivors)
    if code in ("WinGroups", "WinNodes"):
        state = ARBIT_RUN if state == ARBIT_RUN else ARBIT_INIT
    elif code == "Partitioning" and state == ARBIT_RUN:
        state = ARBIT_CHOOSE
    else:
        code = "LoseNorun" if code == "Partitioning" else code
        state = ARBIT_CRASH

    def report(kind: str, code: str, state: int) -> None:
        arbit_event(c, kind, code, state, president, arbitrator)

    report("ArbitResult", code, state)
    report("ArbitState", "ThreadStart", state)
    if state == ARBIT_CHOOSE:
        return _ask_arbitrator(c, report)
    return state != ARBIT_CRASH


def _ask_arbitrator(c: Cluster, report: Callable[[str, str, int], None]) -> bool:
    """Qmgr::stateArbitChoose: the arbitrator's answer, or an ErrTimeout when none comes
    within ArbitrationTimeout (arbitration-denied)."""
    denied = c.faults.get("arbitration-denied")
    if denied is not None and denied.get("timeout", False):
        report("ArbitState", "ErrTimeout", ARBIT_CHOOSE)
        return False
    if denied is not None:
        report("ArbitResult", "LoseChoose", ARBIT_CHOOSE)
        return False
    report("ArbitResult", "WinChoose", ARBIT_CHOOSE)
    report("ArbitState", "ThreadStart", ARBIT_INIT)
    report("ArbitState", "ApiStart", ARBIT_START)
    return True


def arbit_event(
    c: Cluster, kind: str, code: str, state: int, president: int, arbitrator: int
) -> None:
    """Qmgr::reportArbitEvent: the ArbitCode with the arbitration state in its high 16 bits,
    the arbitrator and the ticket, worded as EventLogger's getTextArbitState/Result."""
    ticket = (president << 16 | c.connect_count, arbitrator)
    text = arbit_text(kind, code).replace("node %u", f"node {arbitrator}")
    text = text.replace("[state=%u]", f"[state={state}]")
    text = text.replace("[ticket=%s]", f"[ticket={ticket[0]:08x}{ticket[1]:08x}]")
    c.log.emit(
        kind,
        president,
        c.wall_time(),
        text,
        code=arbit_codes()[code] | state << 16,
        arbit_node=arbitrator,
        ticket_0=ticket[0],
        ticket_1=ticket[1],
    )
