"""The exit codes a data node reports when it shuts down on an error (NDBStopForced), and the
text EventLogger's getTextNDBStopForced builds from them with ndbd_exit_message,
ndbd_exit_classification_message and ndbd_exit_status_message.

The codes, their classifications and the statuses are read from data/ndbd/ndbd-exit-codes.json:
storage/ndb/src/mgmapi/ndbd_exit_codes.cpp (errArray[], StatusExitClassificationMapping[],
StatusExitMessageMapping[]) parsed whole, with the names of ndbd_exit_codes.h. The exporter
reads its own copy (tests/simulator/model/test_ndb_constants.py holds them equal)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

ARBIT_SHUTDOWN = 2305  # NDBD_EXIT_ARBIT_SHUTDOWN: the node lost the arbitration
SR_REDOLOG = 2310  # NDBD_EXIT_SR_REDOLOG
NODE_DECLARED_DEAD = 2315  # NDBD_EXIT_NODE_DECLARED_DEAD: missed heartbeats
NDBREQUIRE = 2341  # NDBD_EXIT_NDBREQUIRE: a failed ndbrequire, the usual crash
NO_START_PHASE = 255  # sphase of a node that was not starting: no "Occurred during startphase"
FILESYSTEM_ERROR = "filesystem_error"  # the status of an error that needs an initial restart
TABLE = Path(__file__).parents[1] / "data" / "ndbd" / "ndbd-exit-codes.json"


@cache
def table() -> dict:
    return json.loads(TABLE.read_text())


@cache
def _codes() -> dict[int, tuple[str, str]]:
    """code -> (message, classification) of its first row, as ndbd_exit_message looks it up."""
    found: dict[int, tuple[str, str]] = {}
    for row in table()["codes"]:
        found.setdefault(row["code"], (row["message"], row["classification"]))
    return found


@cache
def _classes() -> dict[str, tuple[str, str]]:
    """classification -> (its message, its status)."""
    return {c["classification"]: (c["message"], c["status"]) for c in table()["classifications"]}


def _lookup(error: int) -> tuple[str, str]:
    unknown = table()["unknown"]
    return _codes().get(error, (unknown["message"], unknown["classification"]))


def exit_status(error: int) -> str:
    """The status (ndbd_exit_status_enum name) of an exit code: what the operator is to do."""
    return _classes()[_lookup(error)[1]][1]


def _status_message(status: str) -> str:
    return next(s["message"] for s in table()["statuses"] if s["status"] == status)


def stop_forced_text(error: int, sphase: int, extra: int = 0) -> str:
    """getTextNDBStopForced for a shutdown on an error (no signal, so no restart action)."""
    message, kind = _lookup(error)
    classification, status = _classes()[kind]
    phase = f" Occurred during startphase {sphase}." if sphase < NO_START_PHASE else ""
    reason = f" Caused by error {error}: '{message}({classification}). {_status_message(status)}'."
    if extra:
        reason += f" (extra info {extra})"
    return f"Forced node shutdown completed.{phase}{reason}"
