"""The server-wide state of the simulated SQL node: the engine, the cluster model, global
variables, counters and the open sessions."""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ndbsim.engine.translate import Plan, Session
from ndbsim.errors import SqlError
from ndbsim.protocol import sysvars
from ndbsim.protocol.status import ServerCounters, StatusView
from sqlglot import expressions as exp

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster
    from ndbsim.model.replication import ReplicationLink
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
        self.binlog_link = binlog_link(cluster, self.node_id)
        self.applier_link = applier_link(cluster, self.node_id)
        self.store = sysvars.GlobalStore(
            sysvars.definitions(
                self.version,
                self.node_id,
                server_id=cluster.server_id(self.node_id),
                overrides=replication_values(self),
            )
        )
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


def binlog_link(cluster: Cluster, node_id: int) -> ReplicationLink | None:
    """The link whose binary log this SQL node writes: a binlog server of ndbsim --replica
    (the source cluster's first SQL node, and the next ones with --binlog-servers)."""
    link = cluster.outbound
    return link if link is not None and node_id in link.binlogs else None


def applier_link(cluster: Cluster, node_id: int) -> ReplicationLink | None:
    """The link this SQL node applies: the replica cluster's first SQL node's."""
    link = cluster.inbound
    return link if link is not None and node_id == cluster.sql_node_id else None


def replication_values(node: SqlNode) -> dict[str, Any]:
    """The system variables a node's part in replication sets: a binlog server writes the
    binary log (its size limit the link's), an applier of an active-active pair has its
    conflict role."""
    values: dict[str, Any] = {}
    if node.binlog_link is not None:
        values.update(sysvars.BINLOG_VALUES)
        values["max_binlog_size"] = node.binlog_link.binlogs[node.node_id].max_binlog_size
        if node.binlog_link.circular:
            # the applier's ndb_apply_status writes go into the binary log, so that the other
            # cluster sees its own epochs come back (needs log_replica_updates)
            values.update(sysvars.APPLY_STATUS_LOGGED)
    if node.applier_link is not None:
        values.update(sysvars.conflict_role_values(node.applier_link.conflicts.role))
    return values


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
