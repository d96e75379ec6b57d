"""ndbsim's model and SQL engine in-process on a clock the test moves, for the fault tests, and
the check that the cluster is healthy."""

from __future__ import annotations

from ndbsim.engine import model_tables
from ndbsim.engine.catalog import catalog_for
from ndbsim.engine.database import Engine
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.versions import parse_version

from tests.simulator.model.statement_reads import statement_reads


class Sim:
    """A cluster model and its ndbinfo tables at a time the test sets (``tick``)."""

    def __init__(self, **spec) -> None:
        self.now = 1000.0
        ndb = parse_version(spec.pop("version", "8.4"))
        self.cluster = Cluster(ClusterSpec(**spec), ndb, clock=lambda: self.now)
        self.engine = Engine(catalog_for(ndb))

    def sync(self, reads: set[str] | None = None) -> None:
        model_tables.sync(self.cluster, self.engine, reads)

    def tick(self, seconds: float) -> None:
        """The model advanced by `seconds` in one step; the tables are written when read."""
        self.now += seconds
        self.cluster.advance()

    def q(self, sql: str) -> list[tuple]:
        self.sync(statement_reads(self.engine, sql))
        return self.engine.execute(sql).fetchall()

    def one(self, sql: str):
        return self.q(sql)[0][0]


def healthy(sim: Sim) -> None:
    """Asserts that the four data nodes are started and reachable, every replica is alive on
    its preferred primary, and every node sees the arbitrator running."""
    assert sim.cluster.data_nodes_reachable()
    assert sim.cluster.global_status()["Ndb_number_of_ready_data_nodes"] == 4
    assert sim.q("SELECT node_id, status FROM ndbinfo.nodes ORDER BY 1") == [
        (n, "STARTED") for n in (1, 2, 3, 4)
    ]
    assert (
        sim.one(
            "SELECT count(*) FROM ndbinfo.table_fragments WHERE num_dead_replicas > 0 "
            "OR current_primary <> preferred_primary"
        )
        == 0
    )
    assert sim.one("SELECT count(*) FROM ndbinfo.table_replicas WHERE is_replica_alive = 0") == 0
    assert {r[0] for r in sim.q("SELECT arb_state FROM ndbinfo.membership")} == {"ARBIT_RUN"}
