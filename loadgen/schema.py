"""Tables of the workloads, created in the target's engine, and their seed rows.

- customers / customers_rb: the same table without and with READ_BACKUP, which lets
  NDB read committed rows from a backup replica (a local one when there is one).
- orders: PARTITION BY KEY (customer_id), so a predicate on customer_id reaches one
  partition (partition pruning) and one on placed_at reaches all of them.
- events: the target of the insert workloads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import mysql.connector

from .target import Target

ORDERS_PER_CUSTOMER = 4
REGIONS = 50
PLACED_AT_RANGE = 1_000_000
SEED_BATCH = 500


@dataclass(frozen=True)
class Layout:
    """How the tables were created on this target."""

    engine: str
    partitioned: bool
    read_backup: bool


def _customers(name: str, target: Target, read_backup: int) -> str:
    comment = f' COMMENT="NDB_TABLE=READ_BACKUP={read_backup}"' if target.ndb else ""
    return (
        f"CREATE TABLE IF NOT EXISTS {name} ("
        " id INT NOT NULL PRIMARY KEY,"
        " region SMALLINT NOT NULL,"
        " name VARCHAR(64) NOT NULL,"
        " balance BIGINT NOT NULL,"
        " KEY idx_region (region)"
        f") ENGINE={target.engine}{comment}"
    )


def _orders(target: Target, partitioned: bool) -> str:
    partitioning = " PARTITION BY KEY (customer_id)" if partitioned else ""
    return (
        "CREATE TABLE IF NOT EXISTS orders ("
        " customer_id INT NOT NULL,"
        " order_id INT NOT NULL,"
        " placed_at INT NOT NULL,"
        " amount_cents INT NOT NULL,"
        " note VARCHAR(64) NOT NULL,"
        " PRIMARY KEY (customer_id, order_id),"
        " KEY idx_placed_at (placed_at)"
        f") ENGINE={target.engine}{partitioning}"
    )


def _events(target: Target) -> str:
    return (
        "CREATE TABLE IF NOT EXISTS events ("
        " writer BIGINT NOT NULL,"
        " seq INT NOT NULL,"
        " customer_id INT NOT NULL,"
        " payload VARCHAR(64) NOT NULL,"
        " PRIMARY KEY (writer, seq)"
        f") ENGINE={target.engine}"
    )


def create(conn, target: Target) -> Layout:
    """Create the tables if missing; partition orders where the server can."""
    cur = conn.cursor()
    cur.execute(_customers("customers", target, read_backup=0))
    cur.execute(_customers("customers_rb", target, read_backup=1))
    try:
        cur.execute(_orders(target, partitioned=True))
        partitioned = True
    except mysql.connector.Error:
        cur.execute(_orders(target, partitioned=False))
        partitioned = False
    cur.execute(_events(target))
    cur.execute(
        "SELECT COUNT(*) FROM information_schema.PARTITIONS"
        " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders'"
        " AND PARTITION_NAME IS NOT NULL"
    )
    partitioned = partitioned and cur.fetchone()[0] > 0
    cur.close()
    return Layout(engine=target.engine, partitioned=partitioned, read_backup=target.ndb)


def seed(conn, customers: int) -> None:
    """Fill customers, customers_rb and orders up to `customers` customers; empty events."""
    rng = random.Random(1)
    cur = conn.cursor()
    cur.execute("TRUNCATE TABLE events")
    for table in ("customers", "customers_rb"):
        cur.execute(f"SELECT COUNT(*) FROM {table}")
        have = cur.fetchone()[0]
        for start in range(have, customers, SEED_BATCH):
            ids = range(start, min(start + SEED_BATCH, customers))
            cur.executemany(
                f"INSERT INTO {table} (id, region, name, balance) VALUES (%s, %s, %s, %s)",
                [(i, i % REGIONS, f"customer-{i}", rng.randrange(100_000)) for i in ids],
            )
    cur.execute("SELECT COUNT(DISTINCT customer_id) FROM orders")
    have = cur.fetchone()[0]
    for start in range(have, customers, SEED_BATCH):
        rows = [
            (c, o, rng.randrange(PLACED_AT_RANGE), rng.randrange(100_000), f"order {o} of {c}")
            for c in range(start, min(start + SEED_BATCH, customers))
            for o in range(ORDERS_PER_CUSTOMER)
        ]
        cur.executemany(
            "INSERT INTO orders (customer_id, order_id, placed_at, amount_cents, note)"
            " VALUES (%s, %s, %s, %s, %s)",
            rows,
        )
    cur.close()
