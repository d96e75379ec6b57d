"""`ndb-loadgen sysbench`: sysbench's oltp_read_write on NDB tables, as an alternative
workload. Prints the command (password masked), then runs it."""

from __future__ import annotations

import os
import shutil
import sys

from .target import ConnectionSpec

PHASES = ("prepare", "run", "cleanup")


def command(spec: ConnectionSpec, threads: int, duration: int, rate: int, phase: str) -> list[str]:
    return [
        "sysbench",
        "oltp_read_write",
        "--db-driver=mysql",
        f"--mysql-host={spec.host}",
        f"--mysql-port={spec.port}",
        f"--mysql-user={spec.user}",
        f"--mysql-password={spec.password}",
        f"--mysql-db={spec.database}",
        "--mysql-storage-engine=ndbcluster",
        "--tables=4",
        "--table-size=10000",
        f"--threads={threads}",
        f"--time={duration}",
        f"--rate={rate}",
        "--report-interval=10",
        phase,
    ]


def masked(argv: list[str]) -> str:
    return " ".join(
        "--mysql-password=***" if arg.startswith("--mysql-password=") else arg for arg in argv
    )


def execute(argv: list[str]) -> int:
    """Replace this process with sysbench; 1 with a one-line message when it is missing."""
    binary = shutil.which("sysbench")
    if binary is None:
        print(
            f"ndb-loadgen: sysbench is not installed; the command is: {masked(argv)}",
            file=sys.stderr,
        )
        return 1
    print(masked(argv), flush=True)
    os.execv(binary, argv)
    return 0  # not reached
