import os
import subprocess
from contextlib import contextmanager

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/ from the fixtures instead of comparing",
    )
    parser.addoption(
        "--reverse-modules",
        action="store_true",
        default=False,
        help="run the test modules in reverse order (tests keep their order within a module):"
        " a test that passes only after another module's fails",
    )


def _minutes(item) -> float:
    marker = item.get_closest_marker("long")
    return marker.kwargs.get("minutes", 1) if marker else 0


def pytest_collection_modifyitems(config, items):
    """Modules in reverse order with --reverse-modules. Else the modules with tests marked
    `long` first, the longest first, and in each module its long tests first: the workers
    (`make test`: one module at a time each, no reordering) start on them at once while the
    short modules fill the rest of the run, and pytest-xdist, which gives a worker its next
    module when two of its tests are left, queues none behind a long test still running."""
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    if config.getoption("--reverse-modules"):
        ordered = list(reversed(modules.values()))
    else:
        ordered = [
            sorted(module, key=_minutes, reverse=True)
            for module in sorted(
                modules.values(), key=lambda module: max(map(_minutes, module)), reverse=True
            )
        ]
    items[:] = [item for module in ordered for item in module]


class StartedProcess(AssertionError):
    pass


def _argv0(args) -> str | None:
    command = args[1] if len(args) > 1 else None
    if isinstance(command, list | tuple) and command:
        return str(command[0])
    return command if isinstance(command, str) else None


@contextmanager
def _processes_refused(item):
    """`pytest -m "not integration"` starts no process: a test that is not marked integration
    fails on the first process it starts (subprocess, asyncio's subprocesses, fork, spawn),
    in its own code or in a fixture it sets up, whatever the fixture's scope."""
    if item.get_closest_marker("integration") is not None:
        yield
        return

    def refuse(what):
        def started(*args, **kwargs):
            if what == "subprocess" and _argv0(args) == "lsb_release":
                # mysql-connector's platform probe on every connection: answered as on a host
                # without lsb_release (the image), which it handles by reading os-release.
                raise FileNotFoundError("lsb_release")
            raise StartedProcess(
                f"{item.nodeid} starts a process ({what} {str(args[1:2] or args[:1])[:80]}) "
                "but is not marked integration"
            )

        return started

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "__init__", refuse("subprocess"))
        for call in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            if hasattr(os, call):
                patch.setattr(os, call, refuse(f"os.{call}"))
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    with _processes_refused(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with _processes_refused(item):
        yield
