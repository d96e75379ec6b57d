"""The one-copy model tables of schema `sim` the per-fragment tables are generated from:
tables (sim.dih), node groups, fragments, replicas, node states, the started nodes and the
DIH master (with whether a local checkpoint runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ndbsim.engine.writers.inserts import insert_values
from ndbsim.model import schema_changes
from ndbsim.model.dictionary import RNIL

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


# sim.dih: a row per object with fragments (DihTable), the columns in this order.
DIH_COLUMNS = (
    ("table_id", "UBIGINT"),
    ("type", "INTEGER"),
    ("partitions", "INTEGER"),
    ("fragments", "INTEGER"),
    ("fr", "BOOLEAN"),
    ("seq", "INTEGER"),
    ("rows_", "UBIGINT"),
    ("row_bytes", "INTEGER"),
    ("var_bytes", "INTEGER"),
    ("logged", "BOOLEAN"),
    ("disk", "BOOLEAN"),
    ("create_gci", "UBIGINT"),
    ("lcp_rank", "DOUBLE"),
    ("weight", "DOUBLE"),
    ("read_backup", "BOOLEAN"),
    ("partition_balance", "UBIGINT"),
    ("hashmap_id", "INTEGER"),
    ("table_version", "UBIGINT"),
    ("old_fragments", "INTEGER"),  # a reorganization's fragments before it (else fragments)
    ("moved", "DOUBLE"),  # the share of its rows a reorganization moved to the new fragments
)


def create(c: Cluster, db: Any) -> None:
    """The tables of schema `sim`: tables, fragments, replicas, node states."""
    db.execute("CREATE SCHEMA IF NOT EXISTS sim")
    for name in ("dih", "members", "frag", "replica", "node_state", "started", "master"):
        db.execute(f"DROP TABLE IF EXISTS sim.{name}")
    _create_dih(c, db)
    _create_members(c, db)
    _create_fragments(c, db)
    db.execute(
        "CREATE TABLE sim.node_state (node_id UBIGINT, alive BOOLEAN, crashes UBIGINT, "
        "stop_gci UBIGINT, start_gci UBIGINT, last_lcp UBIGINT, prev_lcp UBIGINT, "
        "l_started UBIGINT, l_completed UBIGINT, p_started UBIGINT, p_completed UBIGINT, "
        "ops DOUBLE)"
    )
    db.execute("CREATE TABLE sim.started (node_id UBIGINT)")
    db.execute("CREATE TABLE sim.master (node_id UBIGINT, lcp_running BOOLEAN)")


def node_state(c: Cluster) -> tuple[list[tuple], list[tuple]]:
    """The rows of sim.node_state and sim.started from the data nodes' states and LCP marks
    (sim.master: ``master_row``)."""
    values = []
    for n, s in sorted(c.nodes.items()):
        last, prev, ls, lc, ps, pc = c.lcp_marks(n)
        values.append(
            (
                n,
                s.state == "STARTED",
                s.crashes,
                s.stop_gci,
                s.start_gci,
                last,
                prev,
                ls,
                lc,
                ps,
                pc,
                s.ops,
            )
        )
    return values, [(n,) for n in c.started_ids()]


def master_row(master: int | None, lcp_running: bool) -> list[tuple]:
    """The row of sim.master: the DIH master reporting the per-fragment tables, and whether a
    local checkpoint runs; none while the cluster is down (the master's tables are empty)."""
    return [] if master is None else [(master, lcp_running)]


def write_node_state(
    db: Any, values: list[tuple], started: list[tuple], master: list[tuple]
) -> None:
    """Replace sim.node_state, sim.started and sim.master with the rows of ``node_state``
    and ``master_row``."""
    for table in ("node_state", "started", "master"):
        db.execute(f"DELETE FROM sim.{table}")
    insert_values(
        db,
        "sim.node_state",
        [
            "node_id",
            "alive",
            "crashes",
            "stop_gci",
            "start_gci",
            "last_lcp",
            "prev_lcp",
            "l_started",
            "l_completed",
            "p_started",
            "p_completed",
            "ops",
        ],
        values,
    )
    if started:
        insert_values(db, "sim.started", ["node_id"], started)
    if master:
        insert_values(db, "sim.master", ["node_id", "lcp_running"], master)


def _create_dih(c: Cluster, db: Any) -> None:
    columns = ", ".join(f"{name} {kind}" for name, kind in DIH_COLUMNS)
    db.execute(f"CREATE TABLE sim.dih ({columns})")
    versions = {o.id: o.version for o in schema_changes.objects(c) if o.type <= 6}
    dih = sorted(schema_changes.dih(c), key=lambda t: t.table_id)
    total = max(1, len(dih))
    insert_values(
        db,
        "sim.dih",
        [name for name, _ in DIH_COLUMNS],
        [
            (
                t.table_id,
                t.type,
                t.partitions,
                t.fragments,
                t.fully_replicated,
                t.seq,
                t.rows,
                t.row_bytes,
                t.var_bytes,
                t.logged,
                t.disk,
                t.create_gci,
                i / total,
                t.weight,
                t.read_backup,
                t.partition_balance,
                t.hashmap_id,
                versions.get(t.table_id, 1),
                t.fragments,
                0.0,
            )
            for i, t in enumerate(dih)
        ],
    )


def _create_members(c: Cluster, db: Any) -> None:
    """The data nodes of each node group, by their position in it."""
    db.execute("CREATE TABLE sim.members (ng INTEGER, pos INTEGER, node_id UBIGINT)")
    insert_values(
        db,
        "sim.members",
        ["ng", "pos", "node_id"],
        [
            (g, pos, n)
            for g, members in c.topology.nodegroups.items()
            for pos, n in enumerate(members)
        ],
    )


def _create_fragments(c: Cluster, db: Any) -> None:
    """Every fragment of every object, its node group, partition and log part; then its
    replicas on the node group's members."""
    ng = len(c.topology.nodegroups)
    r = c.spec.replicas
    parts = int(c.config[c.topology.data_node_ids[0]]["NoOfFragmentLogParts"])
    rnil_partition = c.version.is_7x
    db.execute(f"""
        CREATE TABLE sim.frag AS
        SELECT d.table_id, f.fragment_id::UBIGINT AS fragment_id,
               CASE WHEN d.fr THEN f.fragment_id // d.partitions
                    ELSE f.fragment_id % {ng} END AS ng,
               CASE WHEN d.fr THEN f.fragment_id % d.partitions
                    ELSE f.fragment_id // {ng} END AS k,
               CASE WHEN d.fr THEN f.fragment_id % d.partitions
                    WHEN {rnil_partition} THEN {RNIL}
                    ELSE f.fragment_id END::UBIGINT AS partition_id,
               CASE WHEN d.fr THEN f.fragment_id // d.partitions ELSE 0 END::UBIGINT
                    AS partition_order
        FROM sim.dih d, generate_series(0, d.fragments - 1) AS f(fragment_id)
    """)
    db.execute(f"""
        ALTER TABLE sim.frag ADD COLUMN log_part_id UBIGINT;
        UPDATE sim.frag SET log_part_id = (
            (SELECT seq FROM sim.dih d WHERE d.table_id = frag.table_id) + k // {r}) % {parts};
    """)
    db.execute(f"""
        CREATE TABLE sim.replica AS
        SELECT f.table_id, f.fragment_id, j.pos::INTEGER AS pos, m.node_id, f.log_part_id
        FROM sim.frag f, generate_series(0, {r - 1}) AS j(pos)
        JOIN sim.members m ON m.ng = f.ng AND m.pos = (f.k + j.pos) % {r}
    """)


def moved_rows_update(c: Cluster) -> list[str]:
    """The statements that bring sim.dih's rows of the tables a schema change fills (the
    copy's rows, a reorganization's old fragments and moved share) to the model's now."""
    return [
        f"UPDATE sim.dih SET rows_ = {rows}, old_fragments = {old}, moved = {moved!r} "
        f"WHERE table_id = {table_id}"
        for table_id, rows, old, moved in schema_changes.moved_rows(c)
    ]
