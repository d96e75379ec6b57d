"""Imports point one way: each module imports only from its own layer or the layers below it.

The layers are those of docs/architecture.md. A module that is not listed here fails the test,
so a new module is placed in a layer when it is added."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (import name, folder): layers from the bottom up; a module belongs to the first prefix it matches.
PACKAGES = {
    "ndbinfo_exporter": (
        "exporter",
        [
            [
                "ndbinfo_exporter",
                "ndbinfo_exporter.errors",
                "ndbinfo_exporter.logs",
                "ndbinfo_exporter.values",
            ],
            ["ndbinfo_exporter.collectors"],
            [
                "ndbinfo_exporter.settings",
                "ndbinfo_exporter.mycnf",
                "ndbinfo_exporter.webconfig",
                "ndbinfo_exporter.targets",
            ],
            ["ndbinfo_exporter.scrape"],
            ["ndbinfo_exporter.health"],
            ["ndbinfo_exporter.view", "ndbinfo_exporter.report"],
            [
                "ndbinfo_exporter.app",
                "ndbinfo_exporter.cli",
                "ndbinfo_exporter.httpserver",
                "ndbinfo_exporter.healthcheck",
                "ndbinfo_exporter.reference",
            ],
        ],
    ),
    "ndbsim": (
        "simulator",
        [
            ["ndbsim", "ndbsim.versions", "ndbsim.errors"],
            ["ndbsim.model"],
            ["ndbsim.engine"],
            ["ndbsim.protocol", "ndbsim.control"],
            ["ndbsim.cli", "ndbsim.__main__"],
        ],
    ),
}

# Packages of one layer that stand side by side: neither imports the other.
SIDE_BY_SIDE = [("ndbinfo_exporter.view", "ndbinfo_exporter.report")]


def _module_name(package: str, folder: str, path: Path) -> str:
    parts = path.relative_to(ROOT / folder).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((package, *parts))


def _layer(layers: list[list[str]], module: str) -> tuple[int, str] | None:
    """(rank, prefix) of the most specific layer prefix that `module` falls under."""
    best: tuple[int, str] | None = None
    for rank, prefixes in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > len(best[1])
            ):
                best = (rank, prefix)
    return best


def _imports(path: Path, module: str, at_run_time: bool = False) -> set[str]:
    """The modules and names a module imports, inside functions too; ``at_run_time``: without
    those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if at_run_time:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
                node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: -node.level or None]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _sources(folder: str) -> list[Path]:
    """The folder's Python source files, without build output (build/, *.egg-info)."""
    return sorted(
        path
        for path in (ROOT / folder).rglob("*.py")
        if not any(
            part == "build" or part.endswith(".egg-info") for part in path.relative_to(ROOT).parts
        )
    )


CASES = [
    (package, folder, layers, path)
    for package, (folder, layers) in PACKAGES.items()
    for path in _sources(folder)
]


@pytest.mark.parametrize(
    ("package", "folder", "layers", "path"),
    CASES,
    ids=[str(case[3].relative_to(ROOT)) for case in CASES],
)
def test_imports_point_down(package: str, folder: str, layers: list, path: Path) -> None:
    module = _module_name(package, folder, path)
    own = _layer(layers, module)
    assert own is not None, f"{module} is in no layer of tests/test_layers.py"
    upward = []
    for name in _imports(path, module):
        target = _layer(layers, name) if name.split(".")[0] == package else None
        if target is not None and target[0] > own[0]:
            upward.append(f"{name} (layer {target[0]}) from layer {own[0]}")
    assert not upward, f"{module} imports against the layer order: {upward}"


def test_exporter_never_imports_the_simulator() -> None:
    """The exporter installs without ndbsim's dependencies."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in _sources("exporter")
        if any(
            name.split(".")[0] in {"ndbsim", "ndb_loadgen", "ndb_dashboards", "ndb_harness"}
            for name in _imports(path, "")
        )
    ]
    assert not offenders


def test_the_harness_runs_what_it_starts_as_programs() -> None:
    """The harness starts ndbsim and the exporter as processes and imports neither, so a test
    or the demo sees them as an operator does."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in _sources("harness")
        if any(name.split(".")[0] in {"ndbsim", "ndbinfo_exporter"} for name in _imports(path, ""))
    ]
    assert not offenders


def _identifiers(path: Path) -> set[str]:
    """Every name a module defines or uses: functions, classes, arguments, attributes."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            found.add(node.arg)
    return found


def test_the_scrape_core_knows_nothing_of_the_view() -> None:
    """The view reads on its own connections (view/reader.py) through what the scrape core
    offers every caller; no name in exporter/scrape/ is the view's (an SQL view is VIEW)."""
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _identifiers(path) if "view" in name or "View" in name
        )
        for path in _sources("exporter/scrape")
    }
    offenders.update(
        {
            str(path.relative_to(ROOT)): ["cluster view"]
            for path in _sources("exporter/scrape")
            if "cluster view" in path.read_text(encoding="utf-8").lower()
        }
    )
    assert {path: names for path, names in offenders.items() if names} == {}


@pytest.mark.parametrize(
    ("one", "other"), [*SIDE_BY_SIDE, *((other, one) for one, other in SIDE_BY_SIDE)]
)
def test_side_by_side_packages_never_import_each_other(one: str, other: str) -> None:
    """The view and ``check``/``report`` judge the cluster through the health layer below
    them both; neither builds on the other."""
    package, *inner = one.split(".")
    folder = PACKAGES[package][0]
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in _imports(path, _module_name(package, folder, path))
            if name == other or name.startswith(other + ".")
        )
        for path in _sources("/".join([folder, *inner]))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def _ndbinfo_table_names(path: Path) -> list[str]:
    """The ndbinfo tables ("ndb$nodes" ...) a module names in its code, docstrings left out;
    the bare prefix "ndb$", which strips it from a name a user typed, names no table."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return sorted(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("ndb$")
        and node.value != "ndb$"
        and id(node) not in docstrings
    )


def test_the_simulated_cluster_builds_no_ndbinfo_row() -> None:
    """ndbsim's model holds the cluster's state and knows nothing of SQL; the engine builds
    every ndbinfo row from that state (engine/rows, engine/writers). No module of
    simulator/model names an ndbinfo table, as a row builder is keyed, and the model has no
    rows package. That it imports nothing of the engine or the protocol above it is
    test_imports_point_down's."""
    named = {
        str(path.relative_to(ROOT)): names
        for path in _sources("simulator/model")
        if (names := _ndbinfo_table_names(path))
    }
    rows_package = sorted((ROOT / "simulator" / "model" / "rows").glob("*.py"))
    assert (named, rows_package) == ({}, [])


@pytest.mark.parametrize(("package", "folder"), [("ndbsim", "simulator")])
def test_no_import_cycle(package: str, folder: str) -> None:
    """No module imports one that imports it back, not even inside a function (a package's
    __init__, which imports its modules to register them, is not followed)."""
    modules = {
        _module_name(package, folder, path): path
        for path in _sources(folder)
        if path.name != "__init__.py"
    }
    graph = {
        name: {target for target in _imports(path, name, at_run_time=True) if target in modules}
        for name, path in modules.items()
    }
    cycles = []
    for start in graph:
        stack, seen = [(start, [start])], {start}
        while stack:
            name, trail = stack.pop()
            for target in graph[name]:
                if target == start:
                    cycles.append(" -> ".join([*trail, start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, [*trail, target]))
    assert not cycles, cycles[:5]


def test_tests_import_their_helpers_by_full_name() -> None:
    """`tests` is a package: every folder of test code has its __init__.py, so that a helper is
    imported as tests.<part>.<module>, and no test edits sys.path."""
    folders = {path.parent for path in (ROOT / "tests").rglob("*.py")}
    without_init = sorted(
        str(folder.relative_to(ROOT)) for folder in folders if not (folder / "__init__.py").exists()
    )
    edits = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if "sys.path" in path.read_text(encoding="utf-8") and path.name != "test_layers.py"
    )
    assert (without_init, edits) == ([], [])


def test_no_test_module_imports_another() -> None:
    """What tests share lives in helper modules (tests/support/, or beside the tests of one
    package, named without the test_ prefix), inside functions too: a test module imported
    elsewhere brings its fixtures along, and a test imported by name runs twice."""
    modules = {_module_name("tests", "tests", path): path for path in _sources("tests")}
    test_modules = {name for name, path in modules.items() if path.name.startswith("test_")}
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _imports(path, module) if name in test_modules
        )
        for module, path in modules.items()
    }
    assert {path: names for path, names in offenders.items() if names} == {}


MAX_FUNCTION_LINES = 100


def test_no_function_is_longer_than_a_reader_follows() -> None:
    """No function of the exporter, ndbsim or the harness runs over 100 lines."""
    long = []
    for folder in ("exporter", "simulator", "harness"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}:{node.name} ({lines})")
    assert not long, long


MAX_MODULE_LINES = 700
# Modules that are tables of data, one entry a line: NDB's configuration parameters.
DATA_TABLES = {"simulator/model/config_params.py"}


def test_no_module_is_longer_than_a_reader_follows() -> None:
    """No module of the exporter, ndbsim or the harness runs over 700 lines, but data tables."""
    long = [
        f"{path.relative_to(ROOT)} ({lines})"
        for folder in ("exporter", "simulator", "harness")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in DATA_TABLES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert not long, long
