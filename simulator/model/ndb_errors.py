"""NDB error texts as ndberror.cpp's `ndb_error_string` writes them ("message: status:
classification"), read from data/ndb-mgm/errors.json (ErrorCodes[] parsed from the source).
ndb_mgmd answers its errors with this text (MgmtSrvr::getErrorText) and appends it to the
pretty text of the events that carry an `error` field (Services.cpp logevent2str)."""

from __future__ import annotations

from functools import cache

from ndbsim.model.ndb_tables import load


def _table() -> dict:
    return load("errors")


@cache
def _texts() -> dict[int, str]:
    texts: dict[int, str] = {}
    for entry in _table()["all_error_codes"]:
        if isinstance(entry["code"], int):
            texts.setdefault(entry["code"], entry["ndb_error_string"])  # the first entry wins
    return texts


@cache
def _unknown_code_text() -> str:
    """What ndberror_update makes of a code ErrorCodes[] lacks."""
    table = _table()
    unknown = table["unknown_code_behaviour"]
    status = next(
        m["message"] for m in table["status_message_mapping"] if m["status"] == unknown["status"]
    )
    classification = next(
        m["message"]
        for m in table["status_classification_mapping"]
        if m["classification"] == unknown["classification"]
    )
    return f"{unknown['message']}: {status}: {classification}"


def ndb_error_string(code: int) -> str:
    """The text of an NDB error code, e.g. 1302: "A backup is already running: Permanent
    error: Application error"."""
    return _texts().get(code) or _unknown_code_text()


def mgm_error_code(name: str) -> int:
    """The number of a management server error by its ndb_mgmd_error.h name, e.g.
    SEND_OR_RECEIVE_FAILED: 5005."""
    return next(
        e["code"] for e in _table()["mgm_server_errors_5000_5999"] if e["name_comment"] == name
    )
