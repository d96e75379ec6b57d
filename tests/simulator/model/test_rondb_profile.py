"""ndbsim's RonDB profiles: RonDB's own release in its version texts and behaviour of its
MySQL NDB base, its own ndbinfo views and memory regions, automatic memory and data nodes that
are not active (rondb-helm's three replicas, two of them active)."""

from __future__ import annotations

import pytest
from ndbsim.engine import model_tables
from ndbsim.engine.catalog import catalog_for
from ndbsim.engine.database import Engine
from ndbsim.model import config_params, fault_effects, log_events
from ndbsim.model.cluster import STOPPED, Cluster, ClusterSpec, NodeError
from ndbsim.versions import parse_version

HELM = {"NodeActive@3": "0"}  # a node group of three, its third data node not active


@pytest.fixture(scope="module")
def rondb():
    version = parse_version("rondb-22.10")
    cluster = Cluster(ClusterSpec(tables=4, data_nodes=3, replicas=3, config=HELM), version)
    engine = Engine(catalog_for(version))
    model_tables.sync(cluster, engine)
    return cluster, engine


def rows(engine, sql: str) -> list[tuple]:
    return engine.db.execute(sql).fetchall()


def test_its_own_release_in_the_texts_its_base_in_the_behaviour():
    version = parse_version("rondb-22.10")
    assert (version.version_string, version.ndbinfo_version) == ("22.10.12-cluster", 1444364)
    assert version.ndb == version.server == (8, 0, 34)
    assert version.version_label(version.ndb_text) == "RonDB-22.10.12"
    assert parse_version("RonDB-24.10.15") is parse_version("rondb-24.10")
    # no parameter of RonDB on MySQL NDB
    with pytest.raises(ValueError, match="unknown data node parameter"):
        config_params.lookup("NodeActive", parse_version("8.4"))


def test_an_inactive_data_node_never_starts(rondb):
    cluster, engine = rondb
    assert cluster.nodes[3].state == STOPPED and cluster.nodes[3].crashes == 0
    assert rows(engine, "SELECT node_id FROM ndbinfo.nodes ORDER BY 1") == [(1,), (2,)]
    assert (3, "NDB") in rows(engine, "SELECT node_id, node_type FROM ndbinfo.config_nodes")
    with pytest.raises(NodeError, match="not active"):
        cluster.start_node(3)
    assert fault_effects.node_release(cluster, 1) == (22, 10, 12)
    assert log_events.version_text(cluster, 1) == "RonDB-22.10.12"


def test_automatic_memory_reads_0_where_configured(rondb):
    cluster, engine = rondb
    configured = dict(
        rows(
            engine,
            "SELECT p.param_name, v.config_value FROM ndbinfo.config_values v"
            " JOIN ndbinfo.config_params p ON p.param_number = v.config_param"
            " WHERE v.node_id = 1",
        )
    )
    assert configured["AutomaticMemoryConfig"] == "1" and configured["NodeActive"] == "1"
    assert configured["DataMemory"] == configured["DiskPageBufferMemory"] == "0"
    (total,) = rows(
        engine,
        "SELECT total FROM ndbinfo.memoryusage WHERE node_id = 1 AND memory_type = 'Data memory'",
    )
    assert total[0] == int(cluster.config[1]["DataMemory"]) > 0


def test_its_memory_regions_and_views(rondb):
    _, engine = rondb
    names = [
        r[0] for r in rows(engine, "SELECT resource_name FROM ndbinfo.resources WHERE node_id = 1")
    ]
    assert names[0] == "TOTAL_GLOBAL_MEMORY"
    assert names[-3:] == ["SCHEMA_MEMORY", "BACKUP_SCHEMA_MEMORY", "REPLICATION_MEMORY"]
    databases = rows(
        engine, "SELECT database_name, in_memory_bytes FROM ndbinfo.database_memory_usage"
    )
    tables = rows(
        engine,
        "SELECT database_name, SUM(in_memory_bytes) FROM ndbinfo.table_memory_usage GROUP BY 1",
    )
    assert sorted(databases) == sorted(tables) and all(size > 0 for _, size in databases)
    # 22.10 is built on 8.0.34: no transporter_details (8.0.37); 24.10 on 8.4 has it
    assert catalog_for(parse_version("rondb-22.10")).get("transporter_details") is None
    assert catalog_for(parse_version("rondb-24.10")).get("transporter_details") is not None
