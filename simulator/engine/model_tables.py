"""Writing the model into the engine's DuckDB database.

Small tables are built in Python (rows.py) and replaced when their content changes. The big,
per-fragment tables are generated inside DuckDB with INSERT ... SELECT from one-copy model tables
in schema `sim` (fragments, replicas, node states), so 8 data nodes x 2000 tables start in
seconds. The `*_all` variants are views over the master's copy cross-joined with the started
data nodes.
"""

from __future__ import annotations

import csv
import math
import os
import tempfile
import weakref
from typing import TYPE_CHECKING, Any

from ndbsim.engine import infoschema
from ndbsim.model import disk_data, metadata_sync, rows
from ndbsim.model.dictionary import ORDERED_INDEX, RNIL
from ndbsim.model.memory import PAGE

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

LITERAL_ROWS = 400
CSV_ROWS = 500
# history and histogram tables: refreshed every REFRESH_SECONDS of cluster time
REFRESH_SECONDS = 10
SLOW_TABLES = {
    "ndb$cpustat_50ms",
    "ndb$cpustat_1sec",
    "ndb$cpustat_20sec",
    "ndb$cpudata",
    "ndb$cpudata_50ms",
    "ndb$cpudata_1sec",
    "ndb$cpudata_20sec",
    "ndb$disk_write_speed_base",
    "ndb$diskstats_1sec",
    "ndb$pgman_time_track_stats",
    "ndb$tc_time_track_stats",
    "ndb$diskstat",
}

ALL_VARIANTS = {
    "ndb$table_distribution_status_all": "ndb$table_distribution_status",
    "ndb$table_fragments_all": "ndb$table_fragments",
    "ndb$table_replicas_all": "ndb$table_replicas",
}


def _quote(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _insert_values(db: Any, table: str, columns: list[str], values: list[tuple]) -> None:
    """Insert rows: literal VALUES for a few hundred, a CSV file DuckDB reads for more."""
    cols = ", ".join(f'"{c}"' for c in columns)
    if len(values) > CSV_ROWS:
        _insert_csv(db, table, cols, len(columns), values)
        return
    for start in range(0, len(values), 2000):
        chunk = values[start : start + 2000]
        body = ", ".join("(" + ", ".join(_quote(v) for v in row) + ")" for row in chunk)
        db.execute(f"INSERT INTO {table} ({cols}) VALUES {body}")


def _insert_csv(db: Any, table: str, cols: str, width: int, values: list[tuple]) -> None:
    tmpdir = "/dev/shm" if os.path.isdir("/dev/shm") else None
    fd, path = tempfile.mkstemp(suffix=".csv", dir=tmpdir)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            csv.writer(f).writerows(["\\N" if v is None else v for v in row] for row in values)
        names = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(width))
        db.execute(
            f"INSERT INTO {table} ({cols}) SELECT * FROM read_csv(?, header = false, "
            f"nullstr = '\\N', quote = '\"', escape = '\"', columns = {{{names}}})",
            [path],
        )
    finally:
        os.unlink(path)


def _replace(engine: Any, name: str, columns: tuple[str, ...], values: list[tuple]) -> None:
    """Replace a small table's rows; literal VALUES beat executemany by far for a few hundred
    rows, larger sets go through the engine's bulk path."""
    if len(values) > LITERAL_ROWS:
        engine.replace_rows(name, values)
        return
    engine.db.execute(f'DELETE FROM ndbinfo."{name}"')
    if values:
        _insert_values(engine.db, f'ndbinfo."{name}"', list(columns), values)


def _count(expr: str) -> str:
    """A per-fragment counter column from a floating-point expression."""
    return f"coalesce(floor({expr}), 0)::UBIGINT"


class _EngineState:
    def __init__(self) -> None:
        self.last_rows: dict[str, list[tuple]] = {}
        self.signatures: dict[str, Any] = {}
        self.last_key: Any = None
        self.ready = False


class Writer:
    def __init__(self, cluster: Cluster) -> None:
        self.c = cluster
        self._states: dict[int, _EngineState] = {}

    def write(self, engine: Any) -> None:
        st = self._states.setdefault(id(engine), _EngineState())
        catalog = engine.catalog
        if not st.ready:
            self._setup(engine)
            st.ready = True
        key = (self.c.now, self._state_signature())
        if key == st.last_key:
            return
        st.last_key = key
        slow_key = (int(self.c.now // REFRESH_SECONDS), key[1])
        for name, builder in rows.BUILDERS.items():
            table = catalog.get(name)
            if table is None:
                continue
            if name in SLOW_TABLES:
                if st.signatures.get(name) == slow_key:
                    continue
                st.signatures[name] = slow_key
            columns = table.column_names
            new = [tuple(r.get(col) for col in columns) for r in builder(self.c)]
            if new != st.last_rows.get(name):
                _replace(engine, name, columns, new)
                st.last_rows[name] = new
        _fill(self.c, engine, "FILES")  # the ndbinfo.files view reads it
        self._write_bulk(engine, st)

    # --- state -----------------------------------------------------------------------------

    def _state_signature(self) -> tuple:
        """Everything the rows follow besides time: the big tables' signature, the other
        nodes and every active fault."""
        c = self.c
        return (
            self._bulk_signature(),
            tuple(sorted(c.other_up.items())),
            tuple(sorted((k, tuple(sorted(v.items()))) for k, v in c.faults.active().items())),
        )

    def _bulk_signature(self) -> tuple:
        """What the DIH tables and sim.node_state follow besides time and LCPs: node states,
        the master and the primaries-away fault (other faults do not touch them, so setting
        one does not rewrite the big tables)."""
        c = self.c
        return (
            tuple((n, s.state, s.crashes) for n, s in sorted(c.nodes.items())),
            c.president,
            c.primaries_away_from(),
        )

    def _lcp_view(self) -> tuple[bool, float]:
        cp = self.c.checkpoints
        if not cp.in_round:
            return False, 0.0
        return True, math.floor(cp.progress * 10) / 10

    # --- setup -----------------------------------------------------------------------------

    def _setup(self, engine: Any) -> None:
        c = self.c
        db = engine.db
        db.execute("CREATE SCHEMA IF NOT EXISTS sim")
        for name in ("dih", "members", "frag", "replica", "node_state", "started"):
            db.execute(f"DROP TABLE IF EXISTS sim.{name}")
        db.execute(
            "CREATE TABLE sim.dih (table_id UBIGINT, type INTEGER, partitions INTEGER, "
            "fragments INTEGER, fr BOOLEAN, seq INTEGER, rows_ UBIGINT, row_bytes INTEGER, "
            "var_bytes INTEGER, logged BOOLEAN, disk BOOLEAN, create_gci UBIGINT, "
            "lcp_rank DOUBLE, weight DOUBLE, read_backup BOOLEAN, partition_balance UBIGINT, "
            "hashmap_id INTEGER, table_version UBIGINT)"
        )
        versions = {o.id: o.version for o in c.dictionary.objects if o.type <= 6}
        dih = sorted(c.dictionary.dih, key=lambda t: t.table_id)
        total = max(1, len(dih))
        _insert_values(
            db,
            "sim.dih",
            [
                "table_id",
                "type",
                "partitions",
                "fragments",
                "fr",
                "seq",
                "rows_",
                "row_bytes",
                "var_bytes",
                "logged",
                "disk",
                "create_gci",
                "lcp_rank",
                "weight",
                "read_backup",
                "partition_balance",
                "hashmap_id",
                "table_version",
            ],
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
                )
                for i, t in enumerate(dih)
            ],
        )
        db.execute("CREATE TABLE sim.members (ng INTEGER, pos INTEGER, node_id UBIGINT)")
        _insert_values(
            db,
            "sim.members",
            ["ng", "pos", "node_id"],
            [
                (g, pos, n)
                for g, members in c.topology.nodegroups.items()
                for pos, n in enumerate(members)
            ],
        )
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
        db.execute(
            "CREATE TABLE sim.node_state (node_id UBIGINT, alive BOOLEAN, crashes UBIGINT, "
            "stop_gci UBIGINT, start_gci UBIGINT, last_lcp UBIGINT, prev_lcp UBIGINT, "
            "l_started UBIGINT, l_completed UBIGINT, p_started UBIGINT, p_completed UBIGINT, "
            "ops DOUBLE)"
        )
        db.execute("CREATE TABLE sim.started (node_id UBIGINT)")
        self._write_dict_obj_info(engine)
        self._make_all_views(engine)
        self._make_fragment_views(engine)

    def _write_dict_obj_info(self, engine: Any) -> None:
        table = engine.catalog.get("ndb$dict_obj_info")
        if table is None:
            return
        values = {
            "type": lambda o: o.type,
            "id": lambda o: o.id,
            "version": lambda o: o.version,
            "state": lambda o: o.state,
            "parent_obj_type": lambda o: o.parent_type,
            "parent_obj_id": lambda o: o.parent_id,
            "fq_name": lambda o: o.fq_name,
        }
        columns = [col for col in table.column_names if col in values]
        engine.db.execute('DELETE FROM ndbinfo."ndb$dict_obj_info"')
        _insert_values(
            engine.db,
            'ndbinfo."ndb$dict_obj_info"',
            columns,
            [tuple(values[col](o) for col in columns) for o in self.c.dictionary.objects],
        )

    def _make_all_views(self, engine: Any) -> None:
        for name, source in ALL_VARIANTS.items():
            table = engine.catalog.get(name)
            if table is None or engine.catalog.get(source) is None:
                continue
            cols = ", ".join(
                "n.node_id AS node_id" if col == "node_id" else f't."{col}"'
                for col in table.column_names
            )
            engine.db.execute(f'DROP TABLE IF EXISTS ndbinfo."{name}"')
            engine.db.execute(f'DROP VIEW IF EXISTS ndbinfo."{name}"')
            engine.db.execute(
                f'CREATE VIEW ndbinfo."{name}" AS SELECT {cols} '
                f'FROM ndbinfo."{source}" t CROSS JOIN sim.started n'
            )

    def _make_fragment_views(self, engine: Any) -> None:
        """Per-fragment memory and activity as views over the hosted replicas, so that they
        follow the node states and operation counts without rewriting a row."""
        jobs = {
            "ndb$frag_mem_use": self._frag_mem_use,
            "ndb$frag_operations": self._frag_operations,
            "ndb$frag_locks": self._frag_locks,
        }
        for name, job in jobs.items():
            table = engine.catalog.get(name)
            if table is None:
                continue
            types = dict(
                engine.db.execute(
                    "SELECT column_name, data_type FROM information_schema.columns "
                    "WHERE table_schema = 'ndbinfo' AND table_name = ?",
                    [name],
                ).fetchall()
            )
            exprs = job(0, (False, 0.0))
            select = ", ".join(
                f'CAST({exprs[col]} AS {types[col]}) AS "{col}"'
                if col in exprs
                else f'CAST(NULL AS {types[col]}) AS "{col}"'
                for col in table.column_names
            )
            engine.db.execute(f'DROP TABLE IF EXISTS ndbinfo."{name}"')
            engine.db.execute(f'DROP VIEW IF EXISTS ndbinfo."{name}"')
            engine.db.execute(
                f'CREATE VIEW ndbinfo."{name}" AS SELECT {select} {exprs["__from__"]}'
            )

    # --- bulk tables -----------------------------------------------------------------------

    def _write_bulk(self, engine: Any, st: _EngineState) -> None:
        c = self.c
        state = self._bulk_signature()
        lcp = self._lcp_view()
        marks = tuple(c.lcp_marks(n) for n in sorted(c.nodes))
        master = c.president if c.is_up() else None
        if st.signatures.get("nodes") != (state, marks):
            self._write_node_state(engine)
            st.signatures["nodes"] = (state, marks)
        elif st.signatures.get("ops") != c.now:
            cases = " ".join(f"WHEN {n} THEN {s.ops!r}" for n, s in sorted(c.nodes.items()))
            engine.db.execute(f"UPDATE sim.node_state SET ops = CASE node_id {cases} END")
        st.signatures["ops"] = c.now
        jobs = {
            "ndb$table_fragments": ((state, lcp, master), self._table_fragments),
            "ndb$table_replicas": ((state, lcp, marks, master), self._table_replicas),
            "ndb$table_distribution_status": ((lcp, master), self._distribution_status),
            "ndb$stored_tables": ((master,), self._stored_tables),
        }
        for name, (signature, job) in jobs.items():
            table = engine.catalog.get(name)
            if table is None or st.signatures.get(name) == signature:
                continue
            engine.db.execute(f'DELETE FROM ndbinfo."{name}"')
            if master is not None:
                exprs = job(master, lcp)
                cols = [col for col in table.column_names if col in exprs]
                select, source = exprs["__select__"](cols), exprs["__from__"]
                quoted = ", ".join(f'"{col}"' for col in cols)
                engine.db.execute(
                    f'INSERT INTO ndbinfo."{name}" ({quoted}) SELECT {select} {source}'
                )
            st.signatures[name] = signature

    def _write_node_state(self, engine: Any) -> None:
        c = self.c
        db = engine.db
        db.execute("DELETE FROM sim.node_state")
        db.execute("DELETE FROM sim.started")
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
        _insert_values(
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
        started = [(n,) for n in c.started_ids()]
        if started:
            _insert_values(db, "sim.started", ["node_id"], started)

    @staticmethod
    def _select(exprs: dict[str, str], source: str) -> dict[str, Any]:
        return {
            **exprs,
            "__select__": lambda cols: ", ".join(f'{exprs[col]} AS "{col}"' for col in cols),
            "__from__": source,
        }

    def _table_fragments(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        running = "TRUE" if lcp[0] else "FALSE"
        # The replica order of a fragment: its preferred primary first, unless primaries-away
        # puts that node last, so the next alive replica is the current primary.
        away = self.c.primaries_away_from()
        order = (
            "r.pos"
            if away is None
            else f"CASE WHEN r.pos = 0 AND r.node_id = {away} THEN {self.c.spec.replicas} "
            "ELSE r.pos END"
        )
        return self._select(
            {
                "node_id": str(master),
                "table_id": "f.table_id",
                "partition_id": "f.partition_id",
                "fragment_id": "f.fragment_id",
                "partition_order": "f.partition_order",
                "log_part_id": "f.log_part_id",
                "no_of_replicas": "a.n_alive + a.n_dead",
                "current_primary": "coalesce(a.alive_list[1], 0)",
                "preferred_primary": "a.preferred",
                "current_first_backup": "coalesce(a.alive_list[2], 0)",
                "current_second_backup": "coalesce(a.alive_list[3], 0)",
                "current_third_backup": "coalesce(a.alive_list[4], 0)",
                "num_alive_replicas": "a.n_alive",
                "num_dead_replicas": "a.n_dead",
                "num_lcp_replicas": f"CASE WHEN {running} AND d.logged THEN a.n_alive ELSE 0 END",
            },
            f"""FROM sim.frag f
               JOIN (SELECT r.table_id, r.fragment_id,
                            list(r.node_id ORDER BY {order}) FILTER (WHERE s.alive)
                                AS alive_list,
                            min(r.node_id) FILTER (WHERE r.pos = 0) AS preferred,
                            count(*) FILTER (WHERE s.alive) AS n_alive,
                            count(*) FILTER (WHERE NOT s.alive) AS n_dead
                     FROM sim.replica r JOIN sim.node_state s ON s.node_id = r.node_id
                     GROUP BY r.table_id, r.fragment_id) a
                 ON a.table_id = f.table_id AND a.fragment_id = f.fragment_id
               JOIN sim.dih d ON d.table_id = f.table_id
               ORDER BY f.table_id, f.fragment_id""",
        )

    def _table_replicas(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        running = "TRUE" if lcp[0] else "FALSE"
        return self._select(
            {
                "node_id": str(master),
                "table_id": "r.table_id",
                "fragment_id": "r.fragment_id",
                "initial_gci": "d.create_gci",
                "replica_node_id": "r.node_id",
                "is_lcp_ongoing": f"CASE WHEN {running} AND s.alive AND d.logged THEN 1 ELSE 0 END",
                "num_crashed_replicas": "s.crashes",
                "last_max_gci_started": "s.l_started",
                "last_max_gci_completed": "s.l_completed",
                "last_lcp_id": "s.last_lcp",
                "prev_lcp_id": "s.prev_lcp",
                "prev_max_gci_started": "s.p_started",
                "prev_max_gci_completed": "s.p_completed",
                "last_create_gci": "greatest(d.create_gci, s.start_gci)",
                "last_replica_gci": f"CASE WHEN s.alive THEN {RNIL} ELSE s.stop_gci END",
                "is_replica_alive": "CASE WHEN s.alive THEN 1 ELSE 0 END",
            },
            """FROM sim.replica r JOIN sim.node_state s ON s.node_id = r.node_id
               JOIN sim.dih d ON d.table_id = r.table_id
               ORDER BY r.table_id, r.fragment_id, r.pos""",
        )

    def _distribution_status(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        running, progress = lcp
        if running:
            lcp_status = (
                f"CASE WHEN NOT d.logged OR d.lcp_rank < {progress - 0.05} THEN 3 "
                f"WHEN d.lcp_rank < {progress} THEN 2 ELSE 1 END"
            )
            update_status = f"CASE WHEN d.logged AND d.lcp_rank >= {progress} THEN 1 ELSE 0 END"
        else:
            lcp_status, update_status = "3", "0"
        return self._select(
            {
                "node_id": str(master),
                "table_id": "d.table_id",
                "tab_copy_status": "0",
                "tab_update_status": update_status,
                "tab_lcp_status": lcp_status,
                "tab_status": "1",
                "tab_storage": "CASE WHEN d.logged THEN 1 ELSE 0 END",
                "tab_type": "d.type",
                "tab_partitions": "d.partitions",
                "tab_fragments": "d.fragments",
                "current_scan_count": "0",
                "scan_count_wait": "0",
                "is_reorg_ongoing": "0",
            },
            "FROM sim.dih d ORDER BY d.table_id",
        )

    def _stored_tables(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        return self._select(
            {
                "node_id": str(master),
                "table_id": "d.table_id",
                "logged_table": "CASE WHEN d.logged THEN 1 ELSE 0 END",
                "row_contains_gci": "1",
                "row_contains_checksum": "1",
                "temporary_table": "0",
                "force_var_part": "CASE WHEN d.var_bytes > 0 THEN 1 ELSE 0 END",
                "read_backup": "CASE WHEN d.read_backup THEN 1 ELSE 0 END",
                "fully_replicated": "CASE WHEN d.fr THEN 1 ELSE 0 END",
                "extra_row_gci": "0",
                "extra_row_author": "0",
                "storage_type": "CASE WHEN d.disk THEN 1 ELSE 0 END",
                "hashmap_id": "d.hashmap_id",
                "hashmap_version": "1",
                "table_version": "d.table_version",
                "fragment_type": f"CASE WHEN d.type = {ORDERED_INDEX} THEN 8 ELSE 9 END",
                "partition_balance": "d.partition_balance",
                "create_gci": "d.create_gci",
                "backup_locked": "0",
                "single_user_mode": "0",
            },
            "FROM sim.dih d ORDER BY d.table_id",
        )

    _HOSTED = f"""FROM sim.replica r JOIN sim.node_state s ON s.node_id = r.node_id AND s.alive
                 JOIN sim.dih d ON d.table_id = r.table_id AND d.type <> {ORDERED_INDEX}"""

    def _instance(self) -> str:
        return f"(r.log_part_id % {self.c.ldm}) + 1"

    def _fragment_key(self) -> dict[str, str]:
        """The leading columns of the per-fragment-replica tables."""
        return {
            "node_id": "r.node_id",
            "block_instance": self._instance(),
            "table_id": "r.table_id",
            "fragment_num": "r.fragment_id",
        }

    def _frag_mem_use(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        frag_rows = "ceil(d.rows_ / d.partitions)::UBIGINT"
        fixed = "(d.row_bytes + 24)"

        def alloc(size: str) -> str:
            return (
                f"CASE WHEN {size} = 0 THEN 0 ELSE "
                f"greatest(1, ceil({frag_rows} * {size} / {PAGE})) * {PAGE} END"
            )

        return self._select(
            {
                **self._fragment_key(),
                "rows": frag_rows,
                "fixed_elem_alloc_bytes": alloc(fixed),
                "fixed_elem_free_bytes": f"{alloc(fixed)} - {frag_rows} * {fixed}",
                "fixed_elem_count": frag_rows,
                "fixed_elem_size_bytes": fixed,
                "var_elem_alloc_bytes": alloc("d.var_bytes"),
                "var_elem_free_bytes": f"{alloc('d.var_bytes')} - {frag_rows} * d.var_bytes",
                "var_elem_count": f"CASE WHEN d.var_bytes > 0 THEN {frag_rows} ELSE 0 END",
                "tuple_l2pmap_alloc_bytes": f"(ceil({frag_rows} * {fixed} / {PAGE}) + 1) * 8",
                "hash_index_l2pmap_alloc_bytes": f"(ceil({frag_rows} * 16 / 8192) + 1) * 8",
                "hash_index_alloc_bytes": f"greatest(1, ceil({frag_rows} * 16 / 8192)) * 8192",
            },
            self._HOSTED + " ORDER BY r.node_id, r.table_id, r.fragment_id",
        )

    def _share(self) -> str:
        """Share of its node's operations one hosted fragment replica gets."""
        return (
            "(d.weight / d.fragments) / sum(d.weight / d.fragments) OVER (PARTITION BY r.node_id)"
        )

    def _frag_operations(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        from ndbsim.model import workload as w

        ops = f"(s.ops * {self._share()})"
        reads = f"({ops} * {w.KEY_SHARE * w.READ_SHARE_OF_KEY})"
        scans = f"({ops} * {1 - w.KEY_SHARE})"
        key = f"({ops} * {w.KEY_SHARE})"

        return self._select(
            {
                **self._fragment_key(),
                "tot_key_reads": _count(reads),
                "tot_key_inserts": _count(f"{key} * {w.INSERT_SHARE}"),
                "tot_key_updates": _count(f"{key} * {w.UPDATE_SHARE}"),
                "tot_key_writes": _count(f"{key} * 0.01"),
                "tot_key_deletes": _count(f"{key} * {w.DELETE_SHARE}"),
                "tot_key_refs": _count(f"{reads} * 0.01"),
                "tot_key_attrinfo_bytes": _count(f"{key} * 64"),
                "tot_key_keyinfo_bytes": _count(f"{key} * 12"),
                "tot_key_prog_bytes": "0",
                "tot_key_inst_exec": "0",
                "tot_key_bytes_returned": _count(f"{reads} * 96"),
                "tot_frag_scans": _count(scans),
                "tot_scan_rows_examined": _count(f"{scans} * 40"),
                "tot_scan_rows_returned": _count(f"{scans} * 12"),
                "tot_scan_bytes_returned": _count(f"{scans} * 12 * 96"),
                "tot_scan_prog_bytes": _count(f"{scans} * 40"),
                "tot_scan_bound_bytes": _count(f"{scans} * 16"),
                "tot_scan_inst_exec": _count(f"{scans} * 120"),
                "tot_qd_frag_scans": _count(f"{scans} * 0.001"),
                "conc_frag_scans": "0",
                "conc_qd_plain_frag_scans": "0",
                "conc_qd_tup_frag_scans": "0",
                "conc_qd_acc_frag_scans": "0",
                "tot_commits": _count(f"{key} * 0.3"),
            },
            self._HOSTED + " ORDER BY r.node_id, r.table_id, r.fragment_id",
        )

    def _frag_locks(self, master: int, lcp: tuple[bool, float]) -> dict[str, Any]:
        ops = f"(s.ops * {self._share()})"

        return self._select(
            {
                **self._fragment_key(),
                "ex_req": _count(f"{ops} * 0.26"),
                "ex_imm_ok": _count(f"{ops} * 0.2595"),
                "ex_wait_ok": _count(f"{ops} * 0.0005"),
                "ex_wait_fail": "0",
                "sh_req": _count(f"{ops} * 0.1"),
                "sh_imm_ok": _count(f"{ops} * 0.0999"),
                "sh_wait_ok": _count(f"{ops} * 0.0001"),
                "sh_wait_fail": "0",
                "wait_ok_millis": _count(f"{ops} * 0.0003"),
                "wait_fail_millis": "0",
            },
            self._HOSTED + " ORDER BY r.node_id, r.table_id, r.fragment_id",
        )


_writers: weakref.WeakKeyDictionary[Cluster, Writer] = weakref.WeakKeyDictionary()


# Server (information_schema / performance_schema) tables built from the model.
SERVER_BUILDERS = {
    "FILES": disk_data.files,
    "ndb_sync_pending_objects": metadata_sync.pending,
    "ndb_sync_excluded_objects": metadata_sync.excluded,
}


def _fill(cluster: Cluster, engine: Any, name: str) -> None:
    schema, table = infoschema.MODEL_FED[name]
    values = [tuple(r.get(c.name) for c in table.columns) for r in SERVER_BUILDERS[name](cluster)]
    engine.replace_rows_in(f'"{schema}"."{table.name}"', table, values)


def fill_server_table(cluster: Cluster, engine: Any, name: str) -> None:
    """Refill a model-fed server table right before a query reads it."""
    with cluster.advanced():
        _fill(cluster, engine, name)


def sync(cluster: Cluster, engine: Any) -> None:
    """Advance the model to now and write every ndbinfo table whose content changed."""
    with cluster.advanced():
        writer = _writers.get(cluster)
        if writer is None:
            writer = _writers[cluster] = Writer(cluster)
        writer.write(engine)
