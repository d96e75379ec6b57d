"""Writing the model into the engine's DuckDB database.

Every ndbinfo row is built in the engine, from the model's state. Small tables are built in
Python (engine/rows) and replaced when their content changes. The big, per-fragment tables are
generated inside DuckDB with INSERT ... SELECT from one-copy model tables in schema `sim`
(fragments, replicas, node states), so 8 data nodes x 2000 tables start in seconds. The `*_all`
variants are views over the master's copy cross-joined with the started data nodes. Each table
that is not a small one has its writer in engine/writers, registered for it there.

A statement pays for what it reads: `sync` is given the ndbinfo objects the statement reads
(views expanded to their base tables) and writes only those, each at most once per cluster
second (once per REFRESH_SECONDS for the history tables) unless the state they follow besides
time changed. Reading one node's row of ndb$nodes builds ndb$nodes and nothing else. The rows
are built under the model's lock; DuckDB is written after it is released, each table in a
transaction of its own, ordered by the engine's table writes (engine/table_writes.py): a
statement waits for the writes of the tables it reads, not for those of other tables.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from ndbsim.engine import infoschema, rows
from ndbsim.engine.table_writes import TableWrite
from ndbsim.engine.writers import FRAGMENT_TABLES, FRAGMENT_VIEWS, WRITTEN_ONCE, sim_schema
from ndbsim.engine.writers.inserts import insert_columns, insert_values, replace
from ndbsim.model import dictionary, disk_data, metadata_sync, schema_changes

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

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


# what reads sim.node_state and sim.started (below the per-fragment tables and views)
_NODE_STATE_READERS = {*FRAGMENT_TABLES, *FRAGMENT_VIEWS, *ALL_VARIANTS}


class _EngineState:
    def __init__(self) -> None:
        self.last_rows: dict[str, list[tuple]] = {}
        self.signatures: dict[str, Any] = {}
        self.ready = False
        self.layout: tuple = ()  # the schema changes' layout sim.dih was written for


# with sim.started and sim.master: under the per-fragment tables and views
NODE_STATE = "sim.node_state"


class Write(NamedTuple):
    """A planned write of one table: ``apply`` runs it on a cursor, once the writes of the
    tables in ``after`` (which it reads) are applied."""

    table: str
    apply: Callable[[Any], None]
    after: tuple[str, ...] = ()


class Writer:
    def __init__(self, cluster: Cluster) -> None:
        self.c = cluster
        self._states: dict[int, _EngineState] = {}
        self.builds: Counter[str] = Counter()  # small tables built, by name (for the tests)

    def plan(self, engine: Any, reads: Collection[str] | None, db: Any) -> Iterator[list[Write]]:
        """The writes that bring the tables among ``reads`` (every table when None) to the
        model's now, table after table. The caller holds the model's lock while the generator
        runs and may release it between two tables, so that another statement waits for the
        build of one table, not of all those of this one; the writes run once it is
        released."""
        st = self._states.setdefault(id(engine), _EngineState())
        layout = schema_changes.layout(self.c)
        if not st.ready:
            self._setup(engine, db)
            st.ready, st.layout = True, layout
        elif st.layout != layout:
            # a schema change added or dropped a table or fragments: the dictionary again, in
            # one transaction, so that a statement of another connection reads the old
            # tables or the new ones, never none
            db.execute("BEGIN TRANSACTION")
            try:
                self._write_dictionary(engine, db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            st.layout = layout
            st.signatures.clear()
            st.last_rows.clear()
        wanted = _with_sources(reads)
        for name, builder in rows.BUILDERS.items():
            table = engine.catalog.get(name)
            if table is None or (wanted is not None and name not in wanted):
                continue
            slow = name in SLOW_TABLES
            stamp = (
                int(self.c.now // REFRESH_SECONDS) if slow else self.c.now,
                self._state_signature(),
            )
            if st.signatures.get(name) == stamp:
                continue
            st.signatures[name] = stamp
            columns = table.column_names
            new = [tuple(r.get(col) for col in columns) for r in builder(self.c)]
            self.builds[name] += 1
            if new == st.last_rows.get(name):
                yield []
                continue
            st.last_rows[name] = new
            yield [Write(name, functools.partial(replace, engine, name, columns, new))]
        key = (self.c.now, self._state_signature())
        if (wanted is None or "files" in wanted) and st.signatures.get("FILES") != key:
            st.signatures["FILES"] = key  # the ndbinfo.files view reads it
            files = _server_fills.setdefault(engine, {})["FILES"] = _server_rows(self.c, "FILES")
            yield [Write("FILES", _filler(engine, "FILES", files))]
        if wanted is None or not wanted.isdisjoint(_NODE_STATE_READERS):
            yield self._plan_fragment_tables(engine, st, wanted)

    @staticmethod
    def tables_read(reads: Collection[str] | None) -> set[str] | None:
        """The tables of the writes a statement reading ``reads`` waits for (None: all)."""
        wanted = _with_sources(reads)
        if wanted is None:
            return None
        if "files" in wanted:
            wanted.add("FILES")
        if not wanted.isdisjoint(_NODE_STATE_READERS):
            wanted.add(NODE_STATE)
        return wanted

    def forget(self, engine: Any) -> None:
        """Write every table again at the next plan (after a write failed)."""
        st = self._states.get(id(engine))
        if st is not None:
            st.last_rows.clear()
            st.signatures.clear()

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

    def _setup(self, engine: Any, db: Any) -> None:
        self._write_dictionary(engine, db)
        self._make_all_views(engine, db)
        self._make_fragment_views(engine, db)

    def _write_dictionary(self, engine: Any, db: Any) -> None:
        """The tables of schema `sim` and those written once, from the dictionary."""
        sim_schema.create(self.c, db)
        for name, build in WRITTEN_ONCE.items():
            table = engine.catalog.get(name)
            if table is None:
                continue
            written = build(self.c)
            columns = [col for col in table.column_names if written and col in written[0]]
            db.execute(f'DELETE FROM ndbinfo."{name}"')
            values = [tuple(r[col] for col in columns) for r in written]
            insert_values(db, f'ndbinfo."{name}"', columns, values)

    def _make_all_views(self, engine: Any, db: Any) -> None:
        for name, source in ALL_VARIANTS.items():
            table = engine.catalog.get(name)
            if table is None or engine.catalog.get(source) is None:
                continue
            cols = ", ".join(
                "n.node_id AS node_id" if col == "node_id" else f't."{col}"'
                for col in table.column_names
            )
            db.execute(f'DROP TABLE IF EXISTS ndbinfo."{name}"')
            db.execute(f'DROP VIEW IF EXISTS ndbinfo."{name}"')
            db.execute(
                f'CREATE VIEW ndbinfo."{name}" AS SELECT {cols} '
                f'FROM ndbinfo."{source}" t CROSS JOIN sim.started n'
            )

    def _make_fragment_views(self, engine: Any, db: Any) -> None:
        for name, view in FRAGMENT_VIEWS.items():
            table = engine.catalog.get(name)
            if table is None:
                continue
            types = dict(
                db.execute(
                    "SELECT column_name, data_type FROM information_schema.columns "
                    "WHERE table_schema = 'ndbinfo' AND table_name = ?",
                    [name],
                ).fetchall()
            )
            select = view(self.c)
            columns = ", ".join(
                f'CAST({select.columns[col]} AS {types[col]}) AS "{col}"'
                if col in select.columns
                else f'CAST(NULL AS {types[col]}) AS "{col}"'
                for col in table.column_names
            )
            db.execute(f'DROP TABLE IF EXISTS ndbinfo."{name}"')
            db.execute(f'DROP VIEW IF EXISTS ndbinfo."{name}"')
            db.execute(f'CREATE VIEW ndbinfo."{name}" AS SELECT {columns} {select.source}')

    # --- per-fragment tables ---------------------------------------------------------------

    def _plan_fragment_tables(
        self, engine: Any, st: _EngineState, wanted: set[str] | None
    ) -> list[Write]:
        c = self.c
        state = self._bulk_signature()
        lcp = self._lcp_view()
        marks = tuple(c.lcp_marks(n) for n in sorted(c.nodes))
        master = c.president if c.is_up() else None
        writes: list[Write] = []
        nodes = (state, marks, master, lcp[0])
        if st.signatures.get("nodes") != nodes:
            values, started = sim_schema.node_state(c)
            write = functools.partial(
                sim_schema.write_node_state,
                values=values,
                started=started,
                master=sim_schema.master_row(master, lcp[0]),
            )
            writes.append(Write(NODE_STATE, write))
            st.signatures["nodes"] = nodes
        elif st.signatures.get("ops") != c.now:
            cases = " ".join(f"WHEN {n} THEN {s.ops!r}" for n, s in sorted(c.nodes.items()))
            sql = f"UPDATE sim.node_state SET ops = CASE node_id {cases} END"
            writes.append(Write(NODE_STATE, functools.partial(_execute, [sql])))
        st.signatures["ops"] = c.now
        moved = sim_schema.moved_rows_update(c)
        if moved and st.signatures.get("moved") != c.now:
            writes.append(Write(NODE_STATE, functools.partial(_execute, moved)))
            st.signatures["moved"] = c.now
        follows = {"state": state, "lcp": lcp, "marks": marks, "master": master}
        for name, writer in FRAGMENT_TABLES.items():
            table = engine.catalog.get(name)
            if table is None or (wanted is not None and name not in wanted):
                continue
            signature = tuple(follows[k] for k in writer.follows)
            if st.signatures.get(name) == signature:
                continue
            statements = [f'DELETE FROM ndbinfo."{name}"']
            if master is not None:
                select = writer.select(c, master, lcp)
                cols = [col for col in table.column_names if col in select.columns]
                quoted = ", ".join(f'"{col}"' for col in cols)
                statements.append(
                    f'INSERT INTO ndbinfo."{name}" ({quoted}) '
                    f"SELECT {select.select_list(cols)} {select.source}"
                )
            writes.append(Write(name, functools.partial(_execute, statements), (NODE_STATE,)))
            st.signatures[name] = signature
        return writes


def _execute(statements: list[str], db: Any) -> None:
    for sql in statements:
        db.execute(sql)


def _with_sources(reads: Collection[str] | None) -> set[str] | None:
    """The tables written for ``reads``: an `*_all` variant is a view of its source."""
    if reads is None:
        return None
    return {*reads, *(ALL_VARIANTS[name] for name in reads if name in ALL_VARIANTS)}


_writers: weakref.WeakKeyDictionary[Cluster, Writer] = weakref.WeakKeyDictionary()


# Server (information_schema / performance_schema) tables built from the model.
SERVER_BUILDERS = {
    "FILES": disk_data.files,
    "TABLES": dictionary.tables_rows,
    "ndb_sync_pending_objects": metadata_sync.pending,
    "ndb_sync_excluded_objects": metadata_sync.excluded,
}


def _server_rows(cluster: Cluster, name: str) -> list[tuple]:
    """Under the model's lock: the rows of a model-fed server table."""
    _, table = infoschema.MODEL_FED[name]
    return [tuple(r.get(c.name) for c in table.columns) for r in SERVER_BUILDERS[name](cluster)]


def _filler(engine: Any, name: str, values: list[tuple]) -> Callable[[Any], None]:
    """The write of a model-fed server table's rows."""
    schema, table = infoschema.MODEL_FED[name]
    target = f'"{schema}"."{table.name}"'
    part = infoschema.MODEL_FED_PART.get(name)
    if part is None:
        return functools.partial(engine.replace_rows_in, target, table, values)
    return functools.partial(_replace_part, target, part, [(*v, False) for v in values])


def _replace_part(target: str, stale: str, values: list[tuple], db: Any) -> None:
    """Replace the rows of ``target`` matching ``stale``, the model's part of the table (its
    rows are never hidden: the last column, ``_hidden``, is False)."""
    db.execute(f"DELETE FROM {target} WHERE {stale}")
    insert_columns(db, target, values)


def fill_server_table(cluster: Cluster, engine: Any, name: str) -> None:
    """Refill a model-fed server table right before a query reads it, when its rows changed
    since the last fill (information_schema.TABLES has a row per table, and is read at every
    scrape)."""
    db = engine.cursor()
    filled = _server_fills.setdefault(engine, {})
    with cluster.advanced():
        values = _server_rows(cluster, name)
        if filled.get(name) == values:
            return
        write = engine.writes.plan(name, _filler(engine, name, values))
    engine.writes.run([write], db)
    filled[name] = values


# The rows each engine's model-fed server tables were last filled with, by table.
_server_fills: weakref.WeakKeyDictionary[Any, dict[str, list[tuple]]] = weakref.WeakKeyDictionary()


def writer_of(cluster: Cluster) -> Writer:
    writer = _writers.get(cluster)
    if writer is None:
        writer = _writers[cluster] = Writer(cluster)
    return writer


def sync(
    cluster: Cluster,
    engine: Any,
    reads: Collection[str] | None = None,
    check: Callable[[], None] | None = None,
) -> None:
    """Advance the model to now and write the ndbinfo tables among ``reads`` (the base and
    lookup tables a statement reads; every table when None) whose content changed, on the
    calling thread's cursor; return once the writes planned for them so far, by this
    statement or others, are applied. ``check`` (the statement's own condition on the model,
    which raises) runs first, in the same hold of the model's lock."""
    writer = writer_of(cluster)
    db = engine.cursor()
    steps = writer.plan(engine, reads, db)
    writes: list[TableWrite] = []
    try:
        while True:
            with cluster.advanced():
                if check is not None:
                    check()
                    check = None
                step = next(steps, None)
                if step is None:
                    awaited = engine.writes.planned(writer.tables_read(reads))
                    break
                writes += [engine.writes.plan(w.table, w.apply, w.after) for w in step]
    except BaseException:
        engine.writes.run(writes, db)  # those planned already: nobody waits for them in vain
        raise
    try:
        engine.writes.run(writes, db)
    except BaseException:
        with cluster.advanced():
            writer.forget(engine)
        raise
    engine.writes.wait(awaited)
