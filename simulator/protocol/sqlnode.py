"""The server-wide state of the simulated SQL node: the engine, the cluster model, global
variables, counters and the open sessions."""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING

from ndbsim.engine.translate import Plan, Session
from ndbsim.errors import SqlError
from ndbsim.protocol import sysvars
from ndbsim.protocol.status import ServerCounters, StatusView
from sqlglot import expressions as exp

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster
    from ndbsim.protocol.privileges import Accounts
    from ndbsim.protocol.session import SessionState

_PLAN_CACHE = 1024


class SqlNode:
    """Server-wide state: the engine, the cluster model, global variables and counters."""

    def __init__(
        self, engine: Engine, cluster: Cluster, accounts: Accounts, node_id: int | None = None
    ):
        self.engine = engine
        self.accounts = accounts
        self.cluster = cluster
        self.node_id = cluster.sql_node_id if node_id is None else node_id
        self.catalog = engine.catalog
        self.version = self.catalog.version
        self.role = replication_role(cluster, self.node_id)
        self.store = sysvars.GlobalStore(
            sysvars.definitions(
                self.version, self.node_id, self.role, server_id=cluster.server_id(self.node_id)
            )
        )
        if self.role == "source":
            binlog = cluster.replication.binlogs[self.node_id]
            self.store.values["max_binlog_size"] = binlog.max_binlog_size
        self.status = StatusView(self.version)
        self.counters = ServerCounters()
        self.plans: OrderedDict[tuple, Plan] = OrderedDict()
        self.plans_lock = threading.Lock()
        self.sessions: weakref.WeakValueDictionary[int, SessionState] = (
            weakref.WeakValueDictionary()
        )
        self.started = time.monotonic()
        major, minor, patch = sysvars.server_version(self.version)[:3]
        self.server_version = major * 10000 + minor * 100 + patch

    def plan(self, sql: str, tree: exp.Expression, session: Session) -> Plan:
        key = (sql, session.database, session.show_hidden)
        with self.plans_lock:
            plan = self.plans.get(key)
            if plan is not None:
                self.plans.move_to_end(key)
                return plan
        plan = self.engine.translator.compile(sql, tree, session)
        if not plan.volatile:
            with self.plans_lock:
                self.plans[key] = plan
                if len(self.plans) > _PLAN_CACHE:
                    self.plans.popitem(last=False)
        return plan


def replication_role(cluster: Cluster, node_id: int) -> str:
    """ "source" for a binlog server of ndbsim --replica (the source cluster's first SQL node,
    and the next ones with --binlog-servers), "replica" for the applier (the replica cluster's
    first), else ""."""
    link = cluster.replication
    if link is None:
        return ""
    if link.source is cluster:
        return "source" if node_id in link.binlogs else ""
    return "replica" if node_id == cluster.sql_node_id else ""


def stack_overrun(node: SqlNode, depth: int) -> SqlError:
    """mysqld's answer to an expression nested deeper than its thread stack allows."""
    stack = int(node.store.values.get("thread_stack", 0) or 0) or (
        262144 if node.version.is_7x else 1048576
    )
    used = stack - 8000 + depth
    return SqlError(
        1436,
        f"Thread stack overrun:  {used} bytes used of a {stack} byte stack, and 16000 bytes "
        "needed.  Use 'mysqld --thread_stack=#' to specify a bigger stack.",
    )
