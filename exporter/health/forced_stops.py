"""Why a data node died: its last forced stop (NDBStopForced) as the management card and the
report show it. NDB's own words come from the exit code table (scrape/mgmd/exit_codes); what
the code usually means, for the codes operators meet most, is said here after the code that
raises it in the NDB source, and per classification for the others. The runbook's
NdbDataNodeForcedStop section has the checks and fixes for each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ndbinfo_exporter.health.models import ForcedStop as ForcedStopCard
from ndbinfo_exporter.scrape.mgmd.events import ForcedStop
from ndbinfo_exporter.scrape.mgmd.exit_codes import RESTARTING, STARTED_PHASE, exit_code

USUAL_MEANINGS = {
    2303: "Another data node killed this one (Ndbcntr SYSTEM_ERROR): that node detected a GCP"
    " stop (global checkpoints stalled), or copying data to this node failed during its"
    " restart. The error log names the node and the reason.",
    2305: "The arbitration after a node failure went against this node's side (a whole node"
    " group gone, a possible partition with no arbitrator, or the arbitrator said no or did"
    " not answer in time): it was shut down to avoid a split brain. Look for the first failure"
    " on the other nodes.",
    2307: "The other nodes declared this node's side a separate partition of the cluster; the"
    " error log lists both sides.",
    2308: "Another data node failed while this one was starting (a node or system restart), so"
    " this start was given up. The cause is the other node's failure.",
    2310: "The REDO log could not be read back during the restart: the node's file system is"
    " inconsistent. NDB says to restart it with --initial.",
    2315: "The other data nodes declared this node dead, most often for missed heartbeats (an"
    " overloaded or swapping host, a network stall); the error log says 'have been declared"
    " dead by N ... reason: ...'.",
    2327: "The node could not allocate the memory its configuration asks for (a block's"
    " records, a thread): the host lacks the memory, or the sizes are too large for it.",
    2341: "A failed ndbrequire: an internal consistency check of the kernel failed. A bug, or"
    " sometimes a resource that ran out; the error log names the block and line, the trace"
    " files hold the rest.",
    2350: "The configuration from the management server does not work for this node (or the"
    " management server went away while the node fetched it); the error log names the"
    " parameter.",
    2353: "A system restart found no usable file system for some node group (missing working"
    " file system or an incomplete log): start the missing nodes.",
    2354: "The REDO log is full: more redo than NoOfFragmentLogFiles x FragmentLogFileSize"
    " holds, usually because local checkpoints do not complete fast enough.",
    2806: "The node needed more files open than MaxNoOfOpenFiles allows.",
    2810: "A file write found no space (ENOSPC, EDQUOT, EFBIG, ENFILE): the disk of DataDir,"
    " FileSystemPath or BackupDataDir is full.",
    2814: "The operating system refused a file resource: too many open files for the process"
    " (EMFILE) or no memory (ENOMEM).",
    2815: "A file the node needs does not exist (ENOENT): its file system lost files. A restart"
    " with --initial rebuilds it from the other nodes.",
    6000: "The process received a fatal signal (SIGSEGV, SIGBUS, SIGABRT ...): a crash; keep the"
    " trace files and any core file.",
    6050: "The watchdog found a thread stuck too long: an internal error, or the host overloaded"
    " (CPU, swapping, slow disks).",
}
CLASS_MEANINGS = {
    "none": "NDB does not count this as an error.",
    "unknown": "NDB has no text for this code.",
    "internal_error": "An internal error of the data node: keep its error log and trace files"
    " for a bug report, then start it.",
    "configuration_error": "The node's configuration does not work on its host: fix the"
    " configuration, then start the node.",
    "arbitration_error": "The node lost contact with the rest of the cluster and was shut down"
    " to keep one cluster: look for the failure on the other nodes and the network.",
    "restart_error": "The node failed to (re)start: look for errors on the other nodes.",
    "resource_configuration_error": "A configured resource ran out: raise the parameter the"
    " message names.",
    "filesystem_full_error": "The node's disk is full: free space, then start the node.",
    "filesystem_inconsistency_error": "The node's file system is damaged: start it with"
    " --initial (it copies its data from the other nodes).",
    "filesystem_limit": "The node's file system hit a limit of NDB: start it with --initial.",
}
SIGNAL_MEANING = (
    "The process was ended by signal {signal} and left no exit code: killed from outside"
    " (SIGKILL 9 is also what the Linux out-of-memory killer sends) or a crash."
)
NO_CAUSE_MEANING = (
    "The process ended without reporting an exit code or a signal: look at the node's error"
    " log and the host's system log."
)


def meaning(error: int, signal: int) -> str:
    """What an exit code (or, without one, the signal) usually means."""
    if not error:
        return SIGNAL_MEANING.format(signal=signal) if signal else NO_CAUSE_MEANING
    return USUAL_MEANINGS.get(error) or CLASS_MEANINGS[exit_code(error).classification]


def forced_stop_cards(
    stops: Iterable[ForcedStop], status_now: Mapping[int, str]
) -> list[ForcedStopCard]:
    """A card per data node that stopped by force, with its status at the last get status."""
    return [_card(stop, status_now.get(stop.node_id)) for stop in stops]


def _card(stop: ForcedStop, status_now: str | None) -> ForcedStopCard:
    code = exit_code(stop.error) if stop.error else None
    return ForcedStopCard(
        node_id=stop.node_id,
        time=stop.time,
        error=stop.error,
        signal=stop.signal,
        message=code.message if code else None,
        classification=code.classification if code else None,
        classification_text=code.classification_text if code else None,
        status_text=code.status_text if code else None,
        start_phase=stop.start_phase if stop.start_phase < STARTED_PHASE else None,
        restarting=bool(stop.action & RESTARTING),
        meaning=meaning(stop.error, stop.signal),
        status_now=status_now,
    )
