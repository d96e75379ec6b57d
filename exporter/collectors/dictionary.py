"""Dictionary objects per type: dict_obj_types LEFT JOIN dict_obj_info, counted in SQL."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, SlowChanging, add_value, gauge, number, text

OBJECTS = gauge(
    "ndb_dictionary_objects",
    "Objects in the NDB dictionary per type (User table, Ordered index, Unique hash index,"
    " Index trigger, ...); every type of dict_obj_types is present. Compare with the"
    " MaxNoOf* configuration parameters.",
    ("type",),
)

SQL = (
    "SELECT t.type_id, t.type_name, COUNT(DISTINCT o.id) AS objects"
    " FROM ndbinfo.dict_obj_types t"
    " LEFT JOIN ndbinfo.dict_obj_info o ON o.type = t.type_id"
    " GROUP BY t.type_id, t.type_name"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    family = OBJECTS.family()
    for row in sorted(rows, key=lambda r: number(r["type_id"])):
        add_value(family, [text(row["type_name"])], number(row["objects"]))
    yield family


COLLECTOR = Collector(
    name="dictionary",
    help="NDB dictionary objects per type (dict_obj_info joined to dict_obj_types, counted in"
    " SQL). On by default: about 20 rows whatever the number of tables.",
    default_enabled=True,
    reads={"dict_obj_types": ("type_id", "type_name"), "dict_obj_info": ("type", "id")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(OBJECTS,),
    slow=SlowChanging(frozenset({"ddl", "objects"}), aged=False),
)
