"""Performance findings over the latency, thread, transaction and lock metrics: a busy table
that reads only from its primary, LDM threads saturated while TC threads idle, idle
transactions holding row locks."""

from __future__ import annotations

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import named_nodes, percent
from ndbinfo_exporter.health.models import Evidence, Finding
from ndbinfo_exporter.health.samples import Samples


def hot_table_without_read_backup(check: Check, inputs: Inputs) -> Finding:
    reads = inputs.samples.select("ndb_table_key_reads_total")
    total = sum(value for _, value in reads)
    if not reads or inputs.placement is None or total <= 0:
        return check.finding(
            "unknown", "Needs the hot_tables collector (--collector.hot_tables) and the placement."
        )
    labels, busiest = max(reads, key=lambda item: item[1])
    name = f"{labels.get('db')}.{labels.get('table')}"
    share = busiest / total
    primary_only = {f"{t.db}.{t.table}" for t in inputs.placement.tables_without_read_backup()}
    evidence = [
        Evidence(label="busiest table", value=name),
        Evidence(label="share of key reads (exported tables)", value=f"{share * 100:.1f} %"),
        Evidence(label="READ_BACKUP", value="no" if name in primary_only else "yes"),
    ]
    if share >= thresholds.HOT_TABLE_SHARE and name in primary_only:
        return check.finding(
            "problem",
            f"{name} takes {share * 100:.0f} % of the key reads and reads only from "
            "its primary replicas.",
            evidence,
        )
    return check.finding("ok", "No table with most of the key reads lacks READ_BACKUP.", evidence)


HOT_TABLE_PRIMARY_READS = Check(
    id="hot_table_primary_reads",
    title="A busy table reads only from its primary replica",
    severity="warning",
    promql=(
        "topk(1, sum by (db, table) (rate(ndb_table_key_reads_total[5m])))\n"
        "  / scalar(sum(rate(ndb_table_key_reads_total[5m])))"
    ),
    sql=(
        "SELECT fq_name, SUM(tot_key_reads) FROM ndbinfo.operations_per_fragment\n"
        "WHERE type = 'User table' GROUP BY fq_name ORDER BY 2 DESC LIMIT 5;\n"
        "SELECT o.fq_name FROM ndbinfo.table_info t\n"
        "JOIN ndbinfo.dict_obj_info o ON o.id = t.table_id AND o.type = 2\n"
        "WHERE t.read_backup = 0 AND t.fully_replicated = 0"
    ),
    guide="4.1 Access patterns (Zugriffsmuster): minimise network hops",
    advice=(
        "Most key reads go to one table, and without READ_BACKUP each of them is served "
        "by the primary replica, often on another host, while the backup replicas idle. "
        'ALTER TABLE t COMMENT="NDB_TABLE=READ_BACKUP=1" spreads the reads over the '
        "replicas and lets SQL nodes read locally."
    ),
    family="performance",
    reads=("hot_tables", "table_info"),
    evaluate=hot_table_without_read_backup,
)


def ldm_saturated_tc_idle(check: Check, inputs: Inputs) -> Finding:
    ldm = inputs.samples.by_node("ndb_thread_time_ratio", activity="exec", thread="ldm")
    tc = inputs.samples.by_node("ndb_thread_time_ratio", activity="exec", thread="tc")
    if not ldm:
        return check.no_data("threads")
    nodes = sorted(
        n for n in ldm if ldm[n] >= thresholds.LDM_SATURATED and tc.get(n, 0.0) < thresholds.TC_IDLE
    )
    evidence = [
        Evidence(
            label=f"node {n}",
            value=f"busiest ldm {ldm[n] * 100:.0f} %, busiest tc "
            + (f"{tc[n] * 100:.0f} %" if n in tc else "none (TC in the main thread)"),
        )
        for n in sorted(ldm)
    ]
    if nodes:
        return check.finding(
            "problem",
            f"On data node(s) {', '.join(map(str, nodes))} an LDM thread executes "
            f"{thresholds.LDM_SATURATED * 100:.0f} % or more of the time while the TC threads "
            f"stay below {thresholds.TC_IDLE * 100:.0f} %.",
            evidence,
        )
    return check.finding(
        "ok", "No data node has saturated LDM threads beside idle TC threads.", evidence
    )


LDM_SATURATED_TC_IDLE = Check(
    id="ldm_saturated_tc_idle",
    title="LDM threads saturated while TC threads idle",
    severity="warning",
    promql=(
        'max by (node_id) (ndb_thread_time_ratio{activity="exec", thread="ldm"})'
        f" > {thresholds.LDM_SATURATED}\n"
        '  and max by (node_id) (ndb_thread_time_ratio{activity="exec", thread="tc"})'
        f" < {thresholds.TC_IDLE}"
    ),
    sql=(
        "SELECT c.node_id, c.thr_no, t.thr_nm, c.thread_exec FROM ndbinfo.cpustat c\n"
        "JOIN ndbinfo.threadstat t ON t.node_id = c.node_id AND t.thr_no = c.thr_no\n"
        "WHERE t.thr_nm IN ('ldm', 'tc')"
    ),
    guide="4.8 Multi-threaded data nodes (Multithread-Datenknoten)",
    advice=(
        "The data access threads are the bottleneck while the transaction coordinators "
        "have time to spare: move CPUs from tc to ldm threads in ThreadConfig (or let "
        "AutomaticThreadConfig size them), and check that fragments spread evenly over "
        "the LDM threads (PartitionsPerNode, PARTITION_BALANCE)."
    ),
    family="performance",
    reads=("threads",),
    evaluate=ldm_saturated_tc_idle,
)


def idle_transactions_holding_locks(check: Check, inputs: Inputs) -> Finding:
    idle = inputs.samples.by_node("ndb_transaction_longest_inactive_seconds")
    if not idle:
        return check.no_data("transactions")
    held = inputs.samples.by_node("ndb_locks", state="held")
    waiting = inputs.samples.by_node("ndb_locks", state="waiting")
    nodes = sorted(
        n for n, s in idle.items() if s > thresholds.IDLE_TRANSACTION_SECONDS and held.get(n)
    )
    evidence = [
        Evidence(
            label=f"node {n}",
            value=f"longest idle {idle[n]:.0f} s, locks held {held.get(n, 0):.0f},"
            f" waiting {waiting.get(n, 0):.0f}",
        )
        for n in sorted(idle)
    ]
    if nodes:
        return check.finding(
            "problem",
            f"Data node(s) {', '.join(map(str, nodes))} coordinate a transaction idle "
            f"for more than {thresholds.IDLE_TRANSACTION_SECONDS:.0f} s while row locks are held.",
            evidence,
        )
    return check.finding(
        "ok", "No transaction has been idle for over a minute with locks held.", evidence
    )


IDLE_TRANSACTIONS_HOLDING_LOCKS = Check(
    id="idle_transactions_holding_locks",
    title="Idle transactions holding row locks",
    severity="warning",
    promql=(
        f"ndb_transaction_longest_inactive_seconds > {thresholds.IDLE_TRANSACTION_SECONDS}\n"
        '  and on (cluster, instance, node_id) ndb_locks{state="held"} > 0'
    ),
    sql=(
        "SELECT t.node_id, t.transid, t.inactive_seconds, t.count_operations,\n"
        "  COUNT(l.lock_num) AS locks FROM ndbinfo.cluster_transactions t\n"
        "LEFT JOIN ndbinfo.cluster_locks l ON l.transid = t.transid\n"
        f"WHERE t.inactive_seconds > {thresholds.IDLE_TRANSACTION_SECONDS} GROUP BY 1, 2, 3, 4"
    ),
    guide="4.6 Parameter tuning (Parameteroptimierung): TransactionInactiveTimeout",
    advice=(
        "A transaction that waits for its client keeps every row lock it took; others "
        "queue behind them and time out (error 266). Find the connection with "
        "ndbinfo.server_transactions on the SQL node, commit or kill it, and set "
        "TransactionInactiveTimeout so that the data nodes abort idle transactions."
    ),
    family="performance",
    reads=("transactions", "locks"),
    evaluate=idle_transactions_holding_locks,
)


OPERATIONS = ("transaction", "key", "scan")


def _tc_outcomes(samples: Samples) -> dict[tuple[int, str], tuple[float, float, float | None]]:
    """(errors, successes, uptime) per data node and operation of its transaction
    coordinators (ndbinfo.tc_time_track_stats), and the seconds since the node started."""
    uptime = samples.by_node("ndb_data_node_uptime_seconds")
    found = {}
    for operation in OPERATIONS:
        errors = samples.by_node("ndb_tc_operation_errors_total", operation=operation)
        done = samples.by_node("ndb_tc_operation_duration_seconds_count", operation=operation)
        for node, value in errors.items():
            found[node, operation] = (value, done.get(node, 0.0), uptime.get(node))
    return found


def operation_errors(check: Check, inputs: Inputs) -> Finding:
    """The share of each data node's operations that ended in an error, between the last two
    scrapes when the node ran through both (else since it started), at more than
    OPERATION_ERRORS_MIN_PER_SECOND errors a second."""
    now = _tc_outcomes(inputs.samples)
    if not now:
        return check.no_data("tc_latency")
    before = _tc_outcomes(inputs.previous) if inputs.previous else {}
    evidence, high = [], {}
    for (node, operation), (errors, done, uptime) in sorted(now.items()):
        seconds = uptime
        earlier = before.get((node, operation))
        if earlier and uptime and earlier[2] and earlier[2] < uptime and earlier[0] <= errors:
            errors, done, seconds = errors - earlier[0], done - earlier[1], uptime - earlier[2]
        if not errors:
            continue
        share, rate = errors / (errors + done), errors / seconds if seconds else None
        evidence.append(
            Evidence(
                label=f"node {node} {operation}",
                value=f"{percent(share)} in error"
                + (f", {rate:,.1f} errors/s" if rate is not None else ""),
            )
        )
        if (
            share > thresholds.OPERATION_ERROR_SHARE
            and rate is not None
            and rate > thresholds.OPERATION_ERRORS_MIN_PER_SECOND
        ):
            high[node] = max(high.get(node, 0.0), share)
    limit = percent(thresholds.OPERATION_ERROR_SHARE)
    if high:
        return check.finding(
            "problem",
            f"{named_nodes('Data node', sorted(high))} end{'' if len(high) > 1 else 's'} up to"
            f" {percent(max(high.values()))} of {'their' if len(high) > 1 else 'its'}"
            f" operations in an error (threshold {limit}): look up the NDB error codes in the"
            " SQL nodes' warnings.",
            evidence,
        )
    return check.finding(
        "ok",
        f"No data node ends more than {limit} of its operations in an error at more than"
        f" {thresholds.OPERATION_ERRORS_MIN_PER_SECOND} a second.",
        evidence,
    )


OPERATION_ERRORS_HIGH = Check(
    id="operation_errors_high",
    title="Operations ending in an error",
    severity="warning",
    promql=(
        "sum without (instance, job) (rate(ndb_tc_operation_errors_total[5m]))\n"
        "  / (sum without (instance, job) (rate(ndb_tc_operation_errors_total[5m]))\n"
        "     + sum without (instance, job) (rate(ndb_tc_operation_duration_seconds_count[5m])))"
    ),
    sql=(
        "SELECT node_id, SUM(transaction_errors) AS transaction_errors,\n"
        "       SUM(key_op_errors) AS key_op_errors, SUM(scan_errors) AS scan_errors\n"
        "FROM ndbinfo.tc_time_track_stats GROUP BY node_id"
    ),
    guide="Runbook: NdbOperationErrorsHigh",
    advice=(
        "Most errors are temporary (timeouts 266 and 274, overload 1218 and 410, out of "
        "operation records 233, 1217 and 1220) and applications retry them. Find the codes in "
        "SHOW WARNINGS or the applications' logs and remove their cause: raise the exhausted "
        "pool or buffer, split large transactions, spread hot rows."
    ),
    family="performance",
    reads=("tc_latency", "nodes"),
    evaluate=operation_errors,
    needs_history=True,
)
