"""The exit codes a data node reports when it shuts down on an error (NDBStopForced), and the
text EventLogger's getTextNDBStopForced builds from them with ndbd_exit_message,
ndbd_exit_classification_message and ndbd_exit_status_message.

The data/ndb-mgm tables hold ndberror.cpp's API errors, not these: the few codes ndbsim uses
are declared here as storage/ndb/src/kernel/error/ndbd_exit_codes.h numbers them and
ndbd_exit_codes.cpp (errArray[], StatusExitClassificationMapping[],
StatusExitMessageMapping[]) words them."""

from __future__ import annotations

ARBIT_SHUTDOWN = 2305  # NDBD_EXIT_ARBIT_SHUTDOWN: the node lost the arbitration
SR_REDOLOG = 2310  # NDBD_EXIT_SR_REDOLOG
NODE_DECLARED_DEAD = 2315  # NDBD_EXIT_NODE_DECLARED_DEAD: missed heartbeats
NDBREQUIRE = 2341  # NDBD_EXIT_NDBREQUIRE: a failed ndbrequire, the usual crash

_TEMPORARY = "Temporary error, restart node"
RESTART_INITIAL = "Ndbd file system error, restart node initial"
# classification: (ndbd_exit_classification_message, ndbd_exit_status_message)
_INTERNAL = ("Internal error, programming error or missing error message, please report a bug",)
_CLASSES = {
    "internal": (*_INTERNAL, _TEMPORARY),
    "arbitration": ("Arbitration error", _TEMPORARY),
    "fs_inconsistency": (
        "Ndbd file system inconsistency error, please report a bug",
        RESTART_INITIAL,
    ),
    "unknown": ("Unknown", "Unknown"),
}
_CODES = {
    ARBIT_SHUTDOWN: (
        "Node lost connection to other nodes and can not form a unpartitioned cluster, please "
        "investigate if there are error(s) on other node(s)",
        "arbitration",
    ),
    SR_REDOLOG: ("Error while reading the REDO log", "fs_inconsistency"),
    NODE_DECLARED_DEAD: ("Node declared dead. See error log for details", "arbitration"),
    NDBREQUIRE: ("Internal program error (failed ndbrequire)", "internal"),
}
_UNKNOWN = ("No message slogan found (please report a bug if you get this error code)", "unknown")
NO_START_PHASE = 255  # sphase of a node that was not starting: no "Occurred during startphase"


def exit_status(error: int) -> str:
    """ndbd_exit_status_message of an exit code: what the operator is to do."""
    return _CLASSES[_CODES.get(error, _UNKNOWN)[1]][1]


def stop_forced_text(error: int, sphase: int, extra: int = 0) -> str:
    """getTextNDBStopForced for a shutdown on an error (no signal, so no restart action)."""
    message, kind = _CODES.get(error, _UNKNOWN)
    classification, status = _CLASSES[kind]
    phase = f" Occurred during startphase {sphase}." if sphase < NO_START_PHASE else ""
    reason = f" Caused by error {error}: '{message}({classification}). {status}'."
    if extra:
        reason += f" (extra info {extra})"
    return f"Forced node shutdown completed.{phase}{reason}"
