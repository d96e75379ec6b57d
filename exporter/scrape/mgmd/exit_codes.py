"""The exit codes a data node shuts down with (NDBStopForced's `error`) as NDB words them, and
EventLogger's text of such a stop.

exporter/data/ndbd-exit-codes.json is NDB's own table, parsed from the source (its `source`
names the files and commits): every row of errArray[] (storage/ndb/src/mgmapi/ndbd_exit_codes.cpp)
with its classification, each classification's status and message
(StatusExitClassificationMapping[]) and each status's message (StatusExitMessageMapping[]). A
code is looked up as ndbd_exit_message() looks it up: its first row, else the sentinel row."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import NamedTuple

DATA = Path(__file__).resolve().parents[2] / "data" / "ndbd-exit-codes.json"
# sphase once the node has passed its last start phase (Ndbcntr's g_currentStartPhase ends at
# 255); getTextNDBStopForced prints "Occurred during startphase" only below it.
STARTED_PHASE = 255
# NDBStopForced's action bits (the angel's reportShutdown): the angel starts the node again,
# without starting it (--nostart), with an initial start.
RESTARTING, NO_START, INITIAL = 1, 2, 4


class ExitCode(NamedTuple):
    code: int
    message: str  # errArray's text for the code
    classification: str  # ndbd_exit_cl_* without the prefix: internal_error, arbitration_error...
    classification_text: str  # StatusExitClassificationMapping's message
    status: str  # ndbd_exit_st_* without the prefix: temporary, permanent, filesystem_error...
    status_text: str  # StatusExitMessageMapping's message: what NDB says to do


@cache
def table() -> dict:
    """The parsed table as the data file holds it."""
    return json.loads(DATA.read_text())


@cache
def _classes() -> dict[str, tuple[str, str, str]]:
    """classification -> (its message, its status, the status's message)."""
    statuses = {s["status"]: s["message"] for s in table()["statuses"]}
    return {
        c["classification"]: (c["message"], c["status"], statuses[c["status"]])
        for c in table()["classifications"]
    }


def _exit_code(code: int, message: str, classification: str) -> ExitCode:
    text, status, status_text = _classes()[classification]
    return ExitCode(code, message, classification, text, status, status_text)


@cache
def _codes() -> dict[int, ExitCode]:
    """The first row of each code, as ndbd_exit_message()'s search finds it."""
    found: dict[int, ExitCode] = {}
    for row in table()["codes"]:
        if row["code"] not in found:
            found[row["code"]] = _exit_code(row["code"], row["message"], row["classification"])
    return found


def exit_code(code: int) -> ExitCode:
    """NDB's words for an exit code; a code errArray lacks gets the sentinel's."""
    known = _codes().get(code)
    if known is not None:
        return known
    unknown = table()["unknown"]
    return _exit_code(code, unknown["message"], unknown["classification"])


def classifications() -> tuple[str, ...]:
    """Every classification, the bounded set of the `classification` label."""
    return tuple(_classes())


def restart_action(action: int) -> str:
    """getRestartAction (EventLogger.cpp): what the angel does after the stop."""
    if not action:
        return ""
    return (
        ", restarting"
        + (", no start" if action & NO_START else "")
        + (", initial" if action & INITIAL else "")
    )


def stop_forced_text(error: int, signal: int, start_phase: int, action: int, extra: int) -> str:
    """getTextNDBStopForced (EventLogger.cpp): the cluster log's line for the stop."""
    reason = ""
    if signal:
        reason = f" Initiated by signal {signal}."
    if error:
        code = exit_code(error)
        reason += (
            f" Caused by error {error}: '{code.message}({code.classification_text})."
            f" {code.status_text}'."
        )
        if extra:
            reason += f" (extra info {extra})"
    phase = f" Occurred during startphase {start_phase}." if start_phase < STARTED_PHASE else ""
    action_text = restart_action(action) if signal else ""
    return f"Forced node shutdown completed{action_text}.{phase}{reason}"
