"""The per-fragment tables of the DIH master: ndb$table_fragments, ndb$table_replicas (a
view), ndb$table_distribution_status and ndb$stored_tables, generated from schema `sim`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.engine.writers.registry import Select, fragment_table, fragment_view
from ndbsim.model.dictionary import ORDERED_INDEX, RNIL

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


@fragment_table("ndb$table_fragments", follows=("state", "lcp", "master"))
def table_fragments(c: Cluster, master: int, lcp: tuple[bool, float]) -> Select:
    running = "TRUE" if lcp[0] else "FALSE"
    # The replica order of a fragment: its preferred primary first, unless primaries-away
    # puts that node last, so the next alive replica is the current primary.
    away = c.primaries_away_from()
    order = (
        "r.pos"
        if away is None
        else f"CASE WHEN r.pos = 0 AND r.node_id = {away} THEN {c.spec.replicas} ELSE r.pos END"
    )
    return Select(
        {
            "node_id": str(master),
            "table_id": "f.table_id",
            "partition_id": "f.partition_id",
            "fragment_id": "f.fragment_id",
            "partition_order": "f.partition_order",
            "log_part_id": "f.log_part_id",
            "no_of_replicas": "a.n_alive + a.n_dead",
            "current_primary": "coalesce(a.alive_list[1], 0)",
            "preferred_primary": "a.preferred",
            "current_first_backup": "coalesce(a.alive_list[2], 0)",
            "current_second_backup": "coalesce(a.alive_list[3], 0)",
            "current_third_backup": "coalesce(a.alive_list[4], 0)",
            "num_alive_replicas": "a.n_alive",
            "num_dead_replicas": "a.n_dead",
            "num_lcp_replicas": f"CASE WHEN {running} AND d.logged THEN a.n_alive ELSE 0 END",
        },
        f"""FROM sim.frag f
           JOIN (SELECT r.table_id, r.fragment_id,
                        list(r.node_id ORDER BY {order}) FILTER (WHERE s.alive)
                            AS alive_list,
                        min(r.node_id) FILTER (WHERE r.pos = 0) AS preferred,
                        count(*) FILTER (WHERE s.alive) AS n_alive,
                        count(*) FILTER (WHERE NOT s.alive) AS n_dead
                 FROM sim.replica r JOIN sim.node_state s ON s.node_id = r.node_id
                 GROUP BY r.table_id, r.fragment_id) a
             ON a.table_id = f.table_id AND a.fragment_id = f.fragment_id
           JOIN sim.dih d ON d.table_id = f.table_id
           ORDER BY f.table_id, f.fragment_id""",
    )


@fragment_view("ndb$table_replicas")
def table_replicas(c: Cluster) -> Select:
    """A view, not a table: a local checkpoint that starts or ends changes a column of every
    replica (its LCP marks, whether one is ongoing), which a scan computes for the rows it
    reads instead of a rewrite of every replica before the scan."""
    return Select(
        {
            "node_id": "m.node_id",
            "table_id": "r.table_id",
            "fragment_id": "r.fragment_id",
            "initial_gci": "d.create_gci",
            "replica_node_id": "r.node_id",
            "is_lcp_ongoing": "CASE WHEN m.lcp_running AND s.alive AND d.logged THEN 1 ELSE 0 END",
            "num_crashed_replicas": "s.crashes",
            "last_max_gci_started": "s.l_started",
            "last_max_gci_completed": "s.l_completed",
            "last_lcp_id": "s.last_lcp",
            "prev_lcp_id": "s.prev_lcp",
            "prev_max_gci_started": "s.p_started",
            "prev_max_gci_completed": "s.p_completed",
            "last_create_gci": "greatest(d.create_gci, s.start_gci)",
            "last_replica_gci": f"CASE WHEN s.alive THEN {RNIL} ELSE s.stop_gci END",
            "is_replica_alive": "CASE WHEN s.alive THEN 1 ELSE 0 END",
        },
        """FROM sim.replica r JOIN sim.node_state s ON s.node_id = r.node_id
           JOIN sim.dih d ON d.table_id = r.table_id CROSS JOIN sim.master m
           ORDER BY r.table_id, r.fragment_id, r.pos""",
    )


@fragment_table("ndb$table_distribution_status", follows=("lcp", "master"))
def distribution_status(c: Cluster, master: int, lcp: tuple[bool, float]) -> Select:
    running, progress = lcp
    if running:
        lcp_status = (
            f"CASE WHEN NOT d.logged OR d.lcp_rank < {progress - 0.05} THEN 3 "
            f"WHEN d.lcp_rank < {progress} THEN 2 ELSE 1 END"
        )
        update_status = f"CASE WHEN d.logged AND d.lcp_rank >= {progress} THEN 1 ELSE 0 END"
    else:
        lcp_status, update_status = "3", "0"
    return Select(
        {
            "node_id": str(master),
            "table_id": "d.table_id",
            "tab_copy_status": "0",
            "tab_update_status": update_status,
            "tab_lcp_status": lcp_status,
            "tab_status": "1",
            "tab_storage": "CASE WHEN d.logged THEN 1 ELSE 0 END",
            "tab_type": "d.type",
            "tab_partitions": "d.partitions",
            "tab_fragments": "d.fragments",
            "current_scan_count": "0",
            "scan_count_wait": "0",
            "is_reorg_ongoing": "CASE WHEN d.old_fragments < d.fragments THEN 1 ELSE 0 END",
        },
        "FROM sim.dih d ORDER BY d.table_id",
    )


@fragment_table("ndb$stored_tables", follows=("master",))
def stored_tables(c: Cluster, master: int, lcp: tuple[bool, float]) -> Select:
    return Select(
        {
            "node_id": str(master),
            "table_id": "d.table_id",
            "logged_table": "CASE WHEN d.logged THEN 1 ELSE 0 END",
            "row_contains_gci": "1",
            "row_contains_checksum": "1",
            "temporary_table": "0",
            "force_var_part": "CASE WHEN d.var_bytes > 0 THEN 1 ELSE 0 END",
            "read_backup": "CASE WHEN d.read_backup THEN 1 ELSE 0 END",
            "fully_replicated": "CASE WHEN d.fr THEN 1 ELSE 0 END",
            "extra_row_gci": "0",
            "extra_row_author": "0",
            "storage_type": "CASE WHEN d.disk THEN 1 ELSE 0 END",
            "hashmap_id": "d.hashmap_id",
            "hashmap_version": "1",
            "table_version": "d.table_version",
            "fragment_type": f"CASE WHEN d.type = {ORDERED_INDEX} THEN 8 ELSE 9 END",
            "partition_balance": "d.partition_balance",
            "create_gci": "d.create_gci",
            "backup_locked": "0",
            "single_user_mode": "0",
        },
        "FROM sim.dih d ORDER BY d.table_id",
    )
