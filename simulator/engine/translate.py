"""Translate MySQL SELECT statements on ndbinfo into DuckDB SQL, as MySQL would evaluate them."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ndbsim.engine import infoschema, schemas
from ndbsim.engine.catalog import SCHEMA, Column, TableDef
from ndbsim.engine.mysqltypes import parse_type
from ndbsim.engine.schemas import quote as quote  # the statements quote through here
from ndbsim.errors import SqlError
from sqlglot import expressions as exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

if TYPE_CHECKING:
    from ndbsim.engine.catalog import Catalog

logging.getLogger("sqlglot").setLevel(logging.ERROR)

MYSQL = Dialect.get_or_raise("mysql")

# MySQL date format letters that differ in strftime
_DATE_FORMAT = {"%i": "%M", "%s": "%S", "%h": "%I", "%k": "%-H", "%l": "%-I", "%e": "%-d"}


# MySQL functions DuckDB lacks, as DuckDB macros (created once per engine)
_DIGITS = "'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'"
MACROS = {
    "conv": f"""(n, f, t) AS CASE WHEN n IS NULL OR f IS NULL OR t IS NULL THEN NULL ELSE
        upper(to_base(CAST(list_reduce(list_transform(string_split(upper(CAST(n AS VARCHAR)), ''),
        lambda x: CAST(instr({_DIGITS}, x) - 1 AS HUGEINT)), lambda a, d: a * CAST(f AS HUGEINT) + d)
        AS BIGINT), CAST(t AS INTEGER))) END""",
    "unix_timestamp": """() AS CAST(epoch(CAST(current_localtimestamp() AS TIMESTAMP)) AS BIGINT),
        (t) AS CAST(epoch(CAST(t AS TIMESTAMP)) AS BIGINT)""",
    "sec_to_time": """(s) AS printf('%02d:%02d:%02d', CAST(s AS BIGINT) // 3600,
        (CAST(s AS BIGINT) % 3600) // 60, CAST(s AS BIGINT) % 60)""",
    "time_to_sec": """(t) AS hour(CAST(t AS TIME)) * 3600 + minute(CAST(t AS TIME)) * 60
        + second(CAST(t AS TIME))""",
    "substring_index": """(s, d, n) AS CASE WHEN n > 0
        THEN array_to_string(string_split(s, d)[1:n], d) WHEN n < 0
        THEN array_to_string(string_split(s, d)[n:], d) ELSE '' END""",
    "inet_ntoa": """(n) AS printf('%d.%d.%d.%d', (CAST(n AS BIGINT) >> 24) & 255,
        (CAST(n AS BIGINT) >> 16) & 255, (CAST(n AS BIGINT) >> 8) & 255, CAST(n AS BIGINT) & 255)""",
    "inet_aton": """(s) AS list_reduce(list_transform(string_split(s, '.'),
        lambda x: CAST(x AS BIGINT)), lambda a, b: a * 256 + b)""",
    "oct": "(n) AS to_base(CAST(n AS BIGINT), 8)",
    "find_in_set": "(s, l) AS coalesce(list_position(string_split(l, ','), s), 0)",
}


def create_macros(db: Any) -> None:
    for name, body in MACROS.items():
        db.execute(f"CREATE OR REPLACE MACRO {name}{body}")


def parse(sql: str) -> list[exp.Expression]:
    """Parse MySQL text; syntax errors become MySQL error 1064."""
    try:
        return [e for e in MYSQL.parse(sql) if e is not None]
    except (ParseError, TokenError) as e:
        raise syntax_error(sql, e) from None
    except Exception as e:  # the parser failing on odd input is a syntax error too
        raise syntax_error(sql, e) from None


def syntax_error(sql: str, error: Exception) -> SqlError:
    near, line = sql.strip(), 1
    details = getattr(error, "errors", None)
    if details:
        first = details[0]
        line = first.get("line") or 1
        lines = sql.split("\n")
        col = (first.get("col") or 1) - len(first.get("highlight") or "")
        offset = sum(len(x) + 1 for x in lines[: line - 1]) + max(col, 0)
        near = sql[offset:]
    near = near.rstrip(";").strip()[:80]
    return SqlError(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your "
        f"MySQL server version for the right syntax to use near '{near}' at line {line}",
    )


@dataclass
class Source:
    """Where an output column of a query comes from, for its name and wire type."""

    name: str | None  # MySQL column name, None for a star expansion
    column: Column | None = None  # catalog column when the value is a plain column
    star_of: TableDef | None = None  # table whose columns a star expands to


@dataclass
class Plan:
    duck_sql: str
    sources: list[Source] | None  # None: take names/types from DuckDB
    objects: frozenset[str]  # ndbinfo objects read (as written, e.g. "nodes", "ndb$pools")
    perf_tables: frozenset[str]  # tables filled at each read (schemas.DYNAMIC), "schema.name"
    volatile: bool = False  # depends on session values: do not cache
    # Rows after which the statement stops reading its one ndbinfo object (LIMIT on a plain
    # scan), None when it reads the whole object: see ``ends_early``.
    scan_limit: int | None = None
    warnings: list[tuple[str, int, str]] = field(default_factory=list)


@dataclass
class Session:
    """What a translation needs from the connection."""

    database: str | None
    show_hidden: bool
    variable: Callable[[str, str], Any]  # (name, scope) -> value of @@scope.name
    user_variable: Callable[[str], Any]
    functions: dict[str, Any]  # DATABASE, USER, VERSION, CONNECTION_ID ...


class Translator:
    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    # --- views ----------------------------------------------------------------------------

    def translate_view(self, sql: str) -> TranslatedView:
        return _translated_view(sql)

    # --- queries --------------------------------------------------------------------------

    def compile(self, sql: str, tree: exp.Expression, session: Session) -> Plan:
        tree = tree.copy()
        _assignments_as_columns(sql, tree)
        ctes = _cte_names(tree)
        objects: set[str] = set()
        perf: set[str] = set()
        volatile = False
        resolved: dict[int, TableDef] = {}
        for table in list(tree.find_all(exp.Table)):
            name = table.name
            if not table.db and name in ctes:
                continue
            if not table.db and name.lower() == "dual" and isinstance(table.parent, exp.From):
                table.parent.pop()  # FROM DUAL: no table
                continue
            db = table.db or session.database
            if not db:
                raise SqlError(1046, "No database selected")
            if db == SCHEMA:
                obj = self.catalog.get(name)
                if obj is None:
                    raise SqlError(1146, f"Table '{db}.{name}' doesn't exist")
                objects.add(name)
                _retarget(table, SCHEMA, name)
            elif db.lower() == "information_schema":
                obj = infoschema.I_S_TABLES.get(name.upper())
                if obj is None and self.catalog.version.is_7x and name.upper() in _COMPAT_56:
                    raise SqlError(
                        3167,
                        f"The 'INFORMATION_SCHEMA.{name.upper()}' feature is disabled; see the "
                        "documentation for 'show_compatibility_56'",
                    )
                if obj is None:
                    raise SqlError(1109, f"Unknown table '{name.upper()}' in information_schema")
                schema = schemas.ALL if session.show_hidden else schemas.VISIBLE
                _retarget(table, schema, obj.name)
                volatile = True  # depends on ndbinfo_show_hidden
                if f"{schemas.DATA}.{obj.name}" in schemas.DYNAMIC:
                    perf.add(f"{schemas.DATA}.{obj.name}")
            elif db.lower() in ("performance_schema", "mysql"):
                mysql = db.lower() == "mysql"
                obj = infoschema.system_tables(db, self.catalog.version).get(name.lower())
                if obj is None:
                    raise SqlError(1146, f"Table '{db}.{name}' doesn't exist")
                schema = schemas.MYSQL if mysql else schemas.PERF
                if f"{schema}.{obj.name}" in schemas.DYNAMIC:
                    perf.add(f"{schema}.{obj.name}")
                _retarget(table, schema, obj.name)
            else:
                raise SqlError(1146, f"Table '{db}.{name}' doesn't exist")
            resolved[id(table)] = obj
        for column in tree.find_all(exp.Column):
            if column.args.get("db") and column.text("db").lower() == "information_schema":
                schema = schemas.ALL if session.show_hidden else schemas.VISIBLE
                column.set("db", exp.to_identifier(schema, quoted=True))

        scan_limit = ends_early(tree) if objects else None
        _numeric_conversions(tree, _string_columns(resolved.values()))
        sources = _sources(sql, tree, resolved)
        volatile |= _substitute_session_values(tree, session)
        mysql_semantics(tree)
        return Plan(
            duck_sql=tree.sql(dialect="duckdb"),
            sources=sources,
            objects=frozenset(objects),
            perf_tables=frozenset(perf),
            volatile=volatile,
            scan_limit=scan_limit,
        )


def assignments(tree: exp.Expression) -> list[tuple[int, str]]:
    """(output position, variable name) of the `@var := expr` items of a SELECT's list: the
    variable takes the item's value of the last row (none when there is no row)."""
    if not isinstance(tree, exp.Select):
        return []
    return [
        (i, item.this.name.lower())
        for i, item in enumerate(tree.expressions)
        if isinstance(item, exp.PropertyEQ) and isinstance(item.this, exp.Parameter)
    ]


def _assignments_as_columns(sql: str, tree: exp.Expression) -> None:
    """Each `@var := expr` item becomes its expression, named by its text as MySQL names it;
    the statement assigns the variables from its result (see `assignments`)."""
    found = assignments(tree)
    if not found:
        return
    texts = select_item_texts(sql)
    for i, _ in found:
        item = tree.expressions[i]
        name = texts[i] if texts and len(texts) == len(tree.expressions) else item.sql("mysql")
        item.replace(exp.alias_(item.expression.copy(), name, quoted=True))


_WHOLE_SCAN = (exp.Where, exp.Group, exp.Having, exp.Order, exp.Distinct, exp.Join, exp.Window,
               exp.AggFunc, exp.Union, exp.Subquery)  # fmt: skip


def ends_early(tree: exp.Expression) -> int | None:
    """The rows a statement reads of its one table before it stops: ``n + offset`` for a
    plain ``SELECT ... FROM t LIMIT n`` (no WHERE, grouping, ordering, aggregate, join or
    subquery), which mysqld stops reading once it has its rows; None otherwise."""
    if not isinstance(tree, exp.Select) or len(list(tree.find_all(exp.Table))) != 1:
        return None
    if any(tree.find(kind) for kind in _WHOLE_SCAN):
        return None
    limit, offset = tree.args.get("limit"), tree.args.get("offset")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    skip = offset.expression if isinstance(offset, exp.Offset) else exp.Literal.number(0)
    if not (_is_count(count) and _is_count(skip)):
        return None
    return int(count.name) + int(skip.name)


def _is_count(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string and node.name.isdigit()


# information_schema tables 5.7 keeps behind show_compatibility_56 (OFF by default)
_COMPAT_56 = ("GLOBAL_STATUS", "GLOBAL_VARIABLES", "SESSION_STATUS", "SESSION_VARIABLES")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div)


def _string_columns(tables) -> set[str]:
    """Names of the columns that are strings in every table the query reads."""
    kinds: dict[str, set[bool]] = {}
    for table in tables:
        for c in table.columns:
            kinds.setdefault(c.name.lower(), set()).add(parse_type(c.mysql_type).is_string)
    return {name for name, k in kinds.items() if k == {True}}


def _as_number(node: exp.Expression) -> exp.Expression:
    """MySQL's string-to-number conversion: the leading number, 0 when there is none."""
    return exp.func("COALESCE", exp.TryCast(this=node.copy(), to=exp.DataType.build("DOUBLE")),
                    exp.Literal.number(0))  # fmt: skip


def _is_number(node: exp.Expression) -> bool:
    if isinstance(node, exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string


def _numeric_conversions(tree: exp.Expression, string_columns: set[str]) -> None:
    """A string compared with a number, or a string literal in arithmetic, is a number in
    MySQL (performance_schema's VARIABLE_VALUE > 0, '10' + 5); DuckDB refuses both."""
    for node in list(tree.find_all(*_COMPARISONS)):
        left, right = node.this, node.expression
        for side, other in ((left, right), (right, left)):
            text_column = isinstance(side, exp.Column) and side.name.lower() in string_columns
            if _is_number(other) and (
                text_column or (isinstance(side, exp.Literal) and side.is_string)
            ):
                side.replace(_as_number(side))
    for node in list(tree.find_all(*_ARITHMETIC)):
        for side in (node.this, node.expression):
            if isinstance(side, exp.Literal) and side.is_string:
                side.replace(_as_number(side))


def _cte_names(tree: exp.Expression) -> set[str]:
    return {cte.alias_or_name for cte in tree.find_all(exp.CTE)}


def _retarget(table: exp.Table, schema: str, name: str) -> None:
    table.set("catalog", None)
    table.set("db", exp.to_identifier(schema, quoted=True))
    table.set("this", exp.to_identifier(name, quoted=True))


def _substitute_session_values(tree: exp.Expression, session: Session) -> bool:
    """Replace @@variables, @user variables and information functions by literals."""
    changed = False

    def literal(value: Any) -> exp.Expression:
        if value is None:
            return exp.null()
        if isinstance(value, bool):
            return exp.Literal.number(int(value))
        if isinstance(value, (int, float)):
            return exp.Literal.number(value)
        return exp.Literal.string(str(value))

    for node in list(tree.find_all(exp.SessionParameter, exp.Parameter)):
        if isinstance(node, exp.SessionParameter):
            value = session.variable(node.name, node.text("kind").upper() or "")
        else:
            value = session.user_variable(node.name)
        node.replace(literal(value))
        changed = True
    changed |= _substitute_clock(tree)
    function_nodes = {
        exp.CurrentSchema: "DATABASE",
        exp.CurrentUser: "CURRENT_USER",
        exp.CurrentVersion: "VERSION",
    }
    for node in list(tree.find_all(exp.CurrentSchema, exp.CurrentUser, exp.CurrentVersion)):
        node.replace(literal(session.functions[function_nodes[type(node)]]))
        changed = True
    for node in list(tree.find_all(exp.Anonymous)):
        name = node.name.upper()
        if name in session.functions and not node.expressions:
            node.replace(literal(session.functions[name]))
            changed = True
    return changed


_NOW = ("NOW", "SYSDATE", "LOCALTIME", "LOCALTIMESTAMP", "UTC_TIMESTAMP", "CURRENT_TIMESTAMP")


def _substitute_clock(tree: exp.Expression) -> bool:
    """NOW() and friends are the statement's start time, as DATETIME/DATE/TIME in the
    server's time zone (UTC)."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0, tzinfo=None)
    kinds: dict[type, tuple[str, str]] = {
        exp.CurrentTimestamp: (now.isoformat(" "), "TIMESTAMP"),
        exp.CurrentDatetime: (now.isoformat(" "), "TIMESTAMP"),
        exp.UtcTimestamp: (now.isoformat(" "), "TIMESTAMP"),
        exp.CurrentDate: (now.date().isoformat(), "DATE"),
        exp.UtcDate: (now.date().isoformat(), "DATE"),
        exp.CurrentTime: (now.time().isoformat(), "TIME"),
        exp.UtcTime: (now.time().isoformat(), "TIME"),
    }
    changed = False
    for node in list(tree.find_all(*kinds)):
        text, kind = kinds[type(node)]
        node.replace(exp.cast(exp.Literal.string(text), kind))
        changed = True
    for node in list(tree.find_all(exp.Anonymous)):
        if node.name.upper() in _NOW:
            node.replace(exp.cast(exp.Literal.string(now.isoformat(" ")), "TIMESTAMP"))
            changed = True
    return changed


def _as_text(node: exp.Expression) -> exp.Expression:
    return node if isinstance(node, exp.Literal) and node.is_string else exp.cast(node, "VARCHAR")


def _as_timestamp(node: exp.Expression) -> exp.Expression:
    return exp.cast(node, "TIMESTAMP") if isinstance(node, exp.Literal) else node


def _mysql_functions(tree: exp.Expression) -> None:
    """MySQL converts function arguments to the type the function needs; DuckDB does not."""
    for node in list(tree.find_all(exp.Upper, exp.Lower)):
        node.set("this", _as_text(node.this))
    for node in list(tree.find_all(exp.DateDiff, exp.TimestampDiff)):
        for key in ("this", "expression"):
            if node.args.get(key) is not None:
                node.set(key, _as_timestamp(node.args[key]))
    for node in list(tree.find_all(exp.LastDay)):
        if isinstance(node.this, exp.Literal):
            node.set("this", exp.cast(node.this, "DATE"))
    # FROM_UNIXTIME(t): a DATETIME in the server's time zone (UTC), not a TIMESTAMPTZ
    for node in list(tree.find_all(exp.UnixToTime)):
        stamp = exp.Anonymous(
            this="MAKE_TIMESTAMP",
            expressions=[
                exp.Mul(
                    this=exp.cast(node.this.copy(), "BIGINT"),
                    expression=exp.Literal.number(1000000),
                )
            ],
        )
        fmt = node.args.get("format")
        if fmt is not None and fmt.is_string:
            text = fmt.this
            for mysql_code, strftime_code in _DATE_FORMAT.items():
                text = text.replace(mysql_code, strftime_code)
            node.replace(
                exp.Anonymous(this="STRFTIME", expressions=[stamp, exp.Literal.string(text)])
            )
        else:
            node.replace(stamp)


def mysql_semantics(tree: exp.Expression) -> None:
    """Make DuckDB evaluate the MySQL idioms ndbinfo queries use the way MySQL does."""
    for node in list(tree.find_all(exp.HexString, exp.BitString)):
        base = 16 if isinstance(node, exp.HexString) else 2
        node.replace(exp.Literal.number(int(node.this or "0", base)))
    # an explicit COLLATE names a MySQL collation DuckDB does not have; the comparison keeps
    # DuckDB's own (clients add one to metadata queries, as Connector/J's getColumns does)
    for node in list(tree.find_all(exp.Collate)):
        node.replace(node.this.copy())
    # default collations are case-insensitive, LIKE included
    for node in list(tree.find_all(exp.Like)):
        node.replace(exp.ILike(**node.args))
    # SUM(cond) / AVG(cond) count true conditions
    for node in list(tree.find_all(exp.Sum, exp.Avg)):
        arg = node.this
        if isinstance(arg, (exp.Predicate, exp.Connector, exp.Not)):
            arg.replace(exp.cast(arg.copy(), "INTEGER"))
    # x / 0 is NULL in MySQL
    for node in list(tree.find_all(exp.Div)):
        node.set(
            "expression", exp.Nullif(this=node.expression.copy(), expression=exp.Literal.number(0))
        )
    _mysql_functions(tree)


def _first_select(tree: exp.Expression) -> exp.Select | None:
    node = tree
    while isinstance(node, (exp.SetOperation, exp.Subquery)):
        node = node.this if isinstance(node, exp.Subquery) else node.left
    return node if isinstance(node, exp.Select) else None


def _sources(sql: str, tree: exp.Expression, resolved: dict[int, TableDef]) -> list[Source] | None:
    select = _first_select(tree)
    if select is None:
        return None
    texts = select_item_texts(sql)
    if texts is None or len(texts) != len(select.expressions):
        return None
    aliases: dict[str, TableDef] = {}
    from_ = select.args.get("from_") or select.args.get("from")
    tables = [from_.this] if from_ is not None else []
    tables += [j.this for j in select.args.get("joins") or []]
    for t in tables:
        if isinstance(t, exp.Table) and id(t) in resolved:
            aliases[t.alias_or_name.lower()] = resolved[id(t)]

    def column_of(col: exp.Column) -> Column | None:
        candidates = [aliases.get(col.table.lower())] if col.table else list(aliases.values())
        found = [
            c
            for t in candidates
            if t is not None
            for c in t.columns
            if c.name.lower() == col.name.lower()
        ]
        return found[0] if len(found) == 1 else None

    sources = []
    for proj, text in zip(select.expressions, texts, strict=True):
        if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column) and proj.is_star):
            qualifier = proj.table if isinstance(proj, exp.Column) else ""
            if qualifier:
                star_of = aliases.get(qualifier.lower())
            else:
                star_of = next(iter(aliases.values()), None) if len(tables) == 1 else None
            sources.append(Source(None, star_of=star_of))
        elif isinstance(proj, exp.Alias):
            inner = proj.this
            sources.append(
                Source(proj.alias, column_of(inner) if isinstance(inner, exp.Column) else None)
            )
        elif isinstance(proj, exp.Column):
            sources.append(Source(proj.name, column_of(proj)))
        elif isinstance(proj, exp.Literal) and proj.is_string:
            sources.append(Source(proj.this))
        else:
            sources.append(Source(text))
    return sources


_STOP = {
    TokenType.FROM,
    TokenType.WHERE,
    TokenType.GROUP_BY,
    TokenType.HAVING,
    TokenType.ORDER_BY,
    TokenType.LIMIT,
    TokenType.UNION,
    TokenType.INTO,
    TokenType.WINDOW,
    TokenType.SEMICOLON,
    TokenType.EXCEPT,
    TokenType.INTERSECT,
    TokenType.FOR,
}
_MODIFIERS = {"DISTINCT", "ALL", "DISTINCTROW", "STRAIGHT_JOIN", "HIGH_PRIORITY"}


def select_item_texts(sql: str) -> list[str] | None:
    """The select-list items of the outermost first SELECT, exactly as written (MySQL names
    unaliased expression columns by their text)."""
    try:
        tokens = MYSQL.tokenize(sql)
    except TokenError:
        return None
    depth, best, start = 0, None, None
    for i, tok in enumerate(tokens):
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif tok.token_type == TokenType.SELECT and (best is None or depth < best):
            best, start = depth, i
    if start is None:
        return None
    items: list[list] = [[]]
    depth = 0
    i = start + 1
    while i < len(tokens) and tokens[i].text.upper() in _MODIFIERS | {"SQL_NO_CACHE", "SQL_CACHE"}:
        i += 1
    for tok in tokens[i:]:
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth < 0:
                break
        if depth == 0 and tok.token_type in _STOP:
            break
        if depth == 0 and tok.token_type == TokenType.COMMA:
            items.append([])
            continue
        items[-1].append(tok)
    if not items[-1]:
        return None
    if any(not group for group in items):  # "SELECT , x": an empty select item
        raise syntax_error(sql, ValueError())
    return [sql[group[0].start : group[-1].end + 1] for group in items]


@dataclass(frozen=True)
class TranslatedView:
    """A view's DuckDB SQL, and the output positions its rows are ordered by."""

    sql: str
    order: tuple[int, ...]


@cache
def _translated_view(sql: str) -> TranslatedView:
    """A view's MySQL SQL for DuckDB; the same for every engine, so translated once per
    process (in-process SQL nodes of the tests share it)."""
    tree = parse(sql)[0]
    order = _group_key_positions(tree)
    ctes = _cte_names(tree)
    for table in list(tree.find_all(exp.Table)):
        if not table.db and table.name in ctes:
            continue
        db = (table.db or SCHEMA).lower()
        if db == "information_schema":
            _retarget(table, schemas.ALL, table.name.upper())
        else:
            _retarget(table, SCHEMA, table.name)
    for column in tree.find_all(exp.Column):
        if column.args.get("db") and column.text("db").lower() == "information_schema":
            column.set("db", exp.to_identifier(schemas.ALL, quoted=True))
    mysql_semantics(tree)
    return TranslatedView(tree.sql(dialect="duckdb"), order)


def _group_key_positions(tree: exp.Expression) -> tuple[int, ...]:
    """The output positions of the GROUP BY keys of a view that groups without ordering, so
    that its rows come in one order, by group, as MySQL 5.7 sorts them (DuckDB's parallel
    aggregation otherwise returns its groups in any order), every position of a SELECT
    DISTINCT without ORDER BY; none when a key is not an output column."""
    if not isinstance(tree, exp.Select) or tree.args.get("order"):
        return ()
    outputs = [e.alias_or_name for e in tree.expressions]
    if tree.args.get("distinct") and not tree.args.get("group"):
        # SELECT DISTINCT: DuckDB's hash distinct returns rows in any order, MySQL in the
        # order its temporary table filled; sorted by every column, one order each time
        return tuple(range(len(outputs)))
    if not tree.args.get("group"):
        return ()
    keys = [
        g.alias_or_name if isinstance(g, exp.Column) else None
        for g in tree.args["group"].expressions
    ]
    if any(key not in outputs for key in keys):
        return ()
    return tuple(outputs.index(key) for key in keys)
