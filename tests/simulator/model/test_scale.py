"""8 data nodes and 2000 tables: the model starts and aggregate queries answer (no timing
assertions; the measured numbers are in docs/ndbsim.md)."""

from __future__ import annotations

from ndbsim.engine import model_tables
from ndbsim.engine.catalog import catalog_for
from ndbsim.engine.database import Engine
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.versions import parse_version


def test_eight_nodes_two_thousand_tables():
    now = [0.0]
    version = parse_version("8.4")
    cluster = Cluster(
        ClusterSpec(data_nodes=8, replicas=2, tables=2000), version, clock=lambda: now[0]
    )
    engine = Engine(catalog_for(version))
    model_tables.sync(cluster, engine)
    db = engine.db

    def one(sql: str):
        return db.execute(sql).fetchone()

    user_tables = one(
        "SELECT count(*) FROM ndbinfo.dict_obj_info WHERE type = 2 "
        "AND fq_name NOT LIKE 'mysql/%' AND fq_name NOT LIKE '%NDB$BLOB%'"
    )[0]
    assert user_tables == 2000
    fragments = one("SELECT count(*) FROM ndbinfo.table_fragments")[0]
    assert one("SELECT count(*) FROM ndbinfo.table_replicas")[0] == 2 * fragments
    per_node = db.execute(
        "SELECT preferred_primary, count(*) FROM ndbinfo.table_fragments GROUP BY 1"
    ).fetchall()
    assert len(per_node) == 8
    assert one("SELECT count(DISTINCT node_id) FROM ndbinfo.memory_per_fragment")[0] == 8
    cluster.stop_node(3)
    now[0] += 30
    model_tables.sync(cluster, engine)
    assert one("SELECT count(*) FROM ndbinfo.table_fragments WHERE num_dead_replicas > 0")[0] > 0
    assert (
        one("SELECT sum(num_alive_replicas) FROM ndbinfo.table_fragments")[0]
        == one("SELECT count(*) FROM ndbinfo.table_replicas WHERE is_replica_alive = 1")[0]
    )
