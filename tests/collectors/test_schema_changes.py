"""schema_changes: copy and reorganization progress from recorded rows."""

from __future__ import annotations

from ndbinfo_exporter.collectors import schema_changes
from ndbinfo_exporter.collectors.base import Context, TargetInfo

TARGET = TargetInfo("8.4.3-cluster", (8, 4, 3), frozenset())


def _copy(fq_name, rows, source=None, source_rows=None):
    return {
        "kind": "copy",
        "fq_name": fq_name,
        "fragment_num": None,
        "row_count": rows,
        "bytes": 6291456,
        "source": source,
        "source_rows": source_rows,
    }


def _fragment(fq_name, fragment, rows):
    return {
        "kind": "reorganize",
        "fq_name": fq_name,
        "fragment_num": fragment,
        "row_count": rows,
        "bytes": None,
        "source": None,
        "source_rows": None,
    }


def _samples(rows):
    families = schema_changes.collect(rows, Context(TARGET))
    return {(f.name, tuple(s.labels.values())): s.value for f in families for s in f.samples}


def test_a_copy_with_one_source_has_a_ratio():
    samples = _samples([_copy("shop/def/#sql-3a42_2c", 250, "shop/def/orders", 1000)])
    assert samples == {
        ("ndb_table_copy_progress_ratio", ("shop", "orders")): 0.25,
        ("ndb_table_copy_rows", ("shop", "#sql-3a42_2c")): 250,
        ("ndb_table_copy_bytes", ("shop", "#sql-3a42_2c")): 6291456,
    }


def test_a_copy_whose_source_cannot_be_told_has_rows_and_bytes_only():
    rows = [
        _copy("shop/def/#sql-1", 250, "shop/def/orders", 1000),
        _copy("shop/def/#sql-1", 250, "shop/def/carts", 400),
        _copy("auth/def/#sql-2", 10),
    ]
    names = {name for name, _ in _samples(rows)}
    assert names == {"ndb_table_copy_rows", "ndb_table_copy_bytes"}
    assert len(_samples(rows)) == 4


def test_reorganize_ratio_counts_the_fragments_below_the_mean_as_new():
    # 4 old fragments, 4 new: 800 rows, 100 a fragment at the end; 40 moved into each new one
    old = [_fragment("shop/def/orders", f, 160) for f in range(4)]
    new = [_fragment("shop/def/orders", f, 40) for f in range(4, 8)]
    assert _samples(old + new) == {("ndb_table_reorganize_progress_ratio", ("shop", "orders")): 0.4}
    done = [_fragment("shop/def/orders", f, 100) for f in range(8)]
    assert _samples(done) == {("ndb_table_reorganize_progress_ratio", ("shop", "orders")): 1.0}


def test_at_most_a_few_tables_of_each_kind():
    rows = [_copy(f"db/def/#sql-{i}", 1) for i in range(12)]
    rows += [_fragment(f"db/def/t{i}", 0, 1) for i in range(12)]
    counts = {}
    for name, _ in _samples(rows):
        counts[name] = counts.get(name, 0) + 1
    limit = schema_changes.MAX_TABLES
    assert counts == {
        "ndb_table_copy_rows": limit,
        "ndb_table_copy_bytes": limit,
        "ndb_table_reorganize_progress_ratio": limit,
    }


def test_nothing_runs_settles():
    assert schema_changes.settled([])
    assert not schema_changes.settled([_copy("shop/def/#sql-1", 1)])
