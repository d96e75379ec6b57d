"""The management card's forced stops: a card per data node that stopped by force, its exit code
in NDB's words (the exporter's copy of ndbd_exit_codes.cpp) and what the code usually means."""

from __future__ import annotations

from ndbinfo_exporter.health import forced_stops
from ndbinfo_exporter.health.management import management_view
from ndbinfo_exporter.scrape.mgmd import exit_codes
from ndbinfo_exporter.scrape.mgmd.events import ForcedStop
from ndbinfo_exporter.scrape.mgmd.protocol import NodeStatus
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState

from tests.health.management_state import management_state


def managed(*stops: ForcedStop) -> ManagementState:
    nodes = (NodeStatus(2, "NDB", "STARTING", 4), NodeStatus(3, "NDB", "NO_CONTACT"))
    return management_state(nodes, stops)


def test_a_card_per_forced_stop_with_the_codes_words_and_the_nodes_status_now():
    view = management_view(
        "db:3306",
        managed(
            ForcedStop(2, 950.0, 2815, 0, 4, exit_codes.RESTARTING | exit_codes.INITIAL),
            ForcedStop(3, 960.0, 2341, 0, exit_codes.STARTED_PHASE, 0),
        ),
    )
    file_error, ndbrequire = view.forced_stops
    assert (file_error.node_id, file_error.error, file_error.start_phase) == (2, 2815, 4)
    assert (file_error.message, file_error.classification) == (
        "File not found",
        "filesystem_inconsistency_error",
    )
    assert file_error.status_text == "Ndbd file system error, restart node initial"
    assert (file_error.restarting, file_error.status_now) == (True, "STARTING")
    assert "--initial" in file_error.meaning
    assert ndbrequire.start_phase is None and ndbrequire.status_now == "NO_CONTACT"
    assert ndbrequire.classification_text.startswith("Internal error, programming error")
    assert ndbrequire.meaning == forced_stops.USUAL_MEANINGS[2341]
    assert not ndbrequire.restarting


def test_a_stop_by_a_signal_has_no_code_to_look_up():
    (killed,) = management_view("db:3306", managed(ForcedStop(4, 970.0, 0, 9, 255, 0))).forced_stops
    assert (killed.error, killed.signal, killed.message, killed.classification) == (
        0,
        9,
        None,
        None,
    )
    assert "signal 9" in killed.meaning and killed.status_now is None
    (silent,) = forced_stops.forced_stop_cards([ForcedStop(4, 970.0, 0, 0, 255, 0)], {})
    assert silent.meaning == forced_stops.NO_CAUSE_MEANING


def test_codes_without_a_meaning_of_their_own_are_explained_by_their_classification():
    (other,) = forced_stops.forced_stop_cards([ForcedStop(2, 1.0, 6100, 0, 3, 0)], {})
    assert other.classification == "configuration_error"
    assert other.meaning == forced_stops.CLASS_MEANINGS["configuration_error"]
    (unknown,) = forced_stops.forced_stop_cards([ForcedStop(2, 1.0, 4242, 0, 255, 0)], {})
    assert unknown.meaning == forced_stops.CLASS_MEANINGS["unknown"]


def test_every_meaning_is_of_a_code_and_a_classification_ndb_has():
    codes = {row["code"] for row in exit_codes.table()["codes"]}
    assert set(forced_stops.USUAL_MEANINGS) <= codes
    assert set(forced_stops.CLASS_MEANINGS) == set(exit_codes.classifications())
