"""Storage findings: DataMemory, the REDO log, local checkpoints and disk data tablespaces
filling up, and the disk page buffer missing disk data pages."""

from __future__ import annotations

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.fullest import Fullest
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import count, gcis, named_nodes, percent
from ndbinfo_exporter.health.models import Evidence, Finding
from ndbinfo_exporter.health.samples import Samples


def data_memory_ratios(inputs: Inputs) -> dict[int, float]:
    return {
        r.node_id: r.data_memory_ratio
        for r in inputs.cluster.resources
        if r.data_memory_ratio is not None
    }


DATA_MEMORY_FULL = Check(
    id="data_memory_full",
    title="DataMemory nearly full",
    severity="warning",
    promql=(
        'ndb_memory_used_bytes{memory_type="Data memory"}\n'
        f'  / ndb_memory_total_bytes{{memory_type="Data memory"}} > {thresholds.DATA_MEMORY_WARNING}'
    ),
    sql="SELECT node_id, used, total FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'",
    guide="4.4 Schema optimisation (Schemaoptimierungen): efficient column types",
    advice=(
        "Inserts fail with 'table is full' when DataMemory runs out. Raise DataMemory (rolling "
        "restart), remove data, use smaller column types or disk data for cold columns."
    ),
    family="storage",
    reads=("memoryusage",),
    evaluate=Fullest(
        data_memory_ratios,
        collector="memoryusage",
        label="node {node}",
        ok="Fullest node uses {worst} of DataMemory.",
        problem=(
            "Data node {nodes} uses {worst} of its DataMemory.",
            "Data nodes {nodes} use up to {worst} of their DataMemory.",
        ),
        limits=(thresholds.DATA_MEMORY_WARNING, thresholds.DATA_MEMORY_CRITICAL),
    ),
)


def redo_ratios(inputs: Inputs) -> dict[int, float]:
    return {
        r.node_id: r.redo_worst_part_ratio
        for r in inputs.cluster.resources
        if r.redo_worst_part_ratio is not None
    }


REDO_LOG_FULL = Check(
    id="redo_log_full",
    title="REDO log filling up",
    severity="warning",
    promql=(
        'ndb_log_space_used_bytes{log_type="REDO"}\n'
        f'  / ndb_log_space_total_bytes{{log_type="REDO"}} > {thresholds.REDO_WARNING}'
    ),
    sql="SELECT node_id, log_id, log_part, used, total FROM ndbinfo.logspaces WHERE log_type = 'REDO'",
    guide="4.6 Parameter tuning (Parameteroptimierung)",
    advice=(
        "A full REDO log part makes the cluster reject writes (error 410). Check that LCPs "
        "complete; size NoOfFragmentLogFiles × FragmentLogFileSize for the write rate."
    ),
    family="storage",
    reads=("logspaces",),
    evaluate=Fullest(
        redo_ratios,
        collector="logspaces",
        label="node {node}, fullest part",
        ok="Fullest REDO log part is at {worst}.",
        problem=(
            "A REDO log part of data node {nodes} is {worst} full.",
            "REDO log parts of data nodes {nodes} are up to {worst} full.",
        ),
        limits=(thresholds.REDO_WARNING, thresholds.REDO_CRITICAL),
    ),
)


def lcp_age(check: Check, inputs: Inputs) -> Finding:
    lcp = inputs.cluster.lcp
    if lcp.age_gcis is None:
        return check.finding("unknown", "LCP or epoch data missing.")
    evidence = [
        Evidence(label="LCP id", value=count(lcp.lcp_id)),
        Evidence(label="last LCP completed at GCI", value=count(lcp.completed_gci)),
        Evidence(label="current GCI", value=count(lcp.current_gci)),
        Evidence(label="age in GCIs", value=count(lcp.age_gcis)),
    ]
    if lcp.age_seconds is not None:
        evidence.append(Evidence(label="age (estimate)", value=f"{lcp.age_seconds:,.0f} s"))
    old = lcp.age_gcis > thresholds.LCP_AGE_GCIS
    return check.finding(
        "problem" if old else "ok",
        f"The last LCP completed {gcis(lcp.age_gcis)} ago (threshold {thresholds.LCP_AGE_GCIS}).",
        evidence,
    )


LCP_OLD = Check(
    id="lcp_old",
    title="Local checkpoint not completed for long",
    severity="critical",
    promql=(
        "floor(ndb_sql_last_commit_epoch / 2^32)\n"
        f"  - on (instance) max by (instance) (ndb_lcp_completed_gci) > {thresholds.LCP_AGE_GCIS}"
    ),
    sql=(
        "SELECT MAX(last_lcp_id), MAX(last_max_gci_completed) FROM ndbinfo.table_replicas\n"
        "WHERE node_id = <one running data node> AND is_replica_alive = 1;\n"
        "SHOW GLOBAL STATUS LIKE 'Ndb_last_commit_epoch_server';  -- GCI = epoch >> 32"
    ),
    guide="4.6 Parameter tuning (Parameteroptimierung)",
    advice=(
        "The REDO log can only be trimmed up to the last completed LCP. A stalled LCP fills "
        "the REDO log; check disk write speed (MaxDiskWriteSpeed) and the cluster log."
    ),
    family="storage",
    reads=("lcp", "status", "config"),
    evaluate=lcp_age,
)


def tablespace_used(inputs: Inputs) -> dict[str, float]:
    free = inputs.samples.by("ndb_disk_data_file_free_bytes", "filegroup", type="DATAFILE")
    size = inputs.samples.by("ndb_disk_data_file_size_bytes", "filegroup", type="DATAFILE")
    return {group: 1 - free.get(group, 0.0) / total for group, total in size.items() if total}


TABLESPACE_FULL = Check(
    id="tablespace_full",
    title="Disk data tablespace filling up",
    severity="warning",
    promql=(
        '1 - sum by (filegroup) (ndb_disk_data_file_free_bytes{type="DATAFILE"})\n'
        '  / sum by (filegroup) (ndb_disk_data_file_size_bytes{type="DATAFILE"})'
        f" > {thresholds.TABLESPACE_WARNING}"
    ),
    sql=(
        "SELECT TABLESPACE_NAME, FILE_NAME, FREE_EXTENTS, TOTAL_EXTENTS, EXTENT_SIZE\n"
        "FROM information_schema.FILES\n"
        "WHERE ENGINE = 'ndbcluster' AND FILE_TYPE = 'DATAFILE'"
    ),
    guide="4.4 Schema optimisation (Schemaoptimierungen): disk data for cold columns",
    advice=(
        "Inserts into disk data tables fail with error 1601 once no extent is free, and "
        "deleted rows do not give extents back. Add a data file in time: ALTER TABLESPACE "
        "ts ADD DATAFILE 'data_2.dat' INITIAL_SIZE 1G."
    ),
    family="storage",
    reads=("disk_data",),
    evaluate=Fullest(
        tablespace_used,
        collector="disk_data",
        label="tablespace {node}",
        ok="The fullest tablespace is {worst} used.",
        problem=(
            "Tablespace {nodes} is {worst} used.",
            "Tablespaces {nodes} are up to {worst} used.",
        ),
        limits=(thresholds.TABLESPACE_WARNING, thresholds.TABLESPACE_CRITICAL),
    ),
)


def _disk_page_requests(samples: Samples) -> dict[int, tuple[float, float, float | None]]:
    """(hits, misses, uptime) per data node: page requests served from the disk page buffer
    (direct_return) and read from disk (wait_io), and the seconds since the node started."""
    name = "ndb_disk_page_buffer_page_requests_total"
    hits = samples.by_node(name, result="direct_return")
    misses = samples.by_node(name, result="wait_io")
    uptime = samples.by_node("ndb_data_node_uptime_seconds")
    return {n: (hits[n], misses.get(n, 0.0), uptime.get(n)) for n in hits}


def _disk_page_buffer_bytes(samples: Samples) -> dict[int, float]:
    """DiskPageBufferMemory per data node; where it reads 0 (RonDB's automatic memory sizes it
    as the node starts), the DISK_PAGE_BUFFER region the node reserved for it."""
    configured = samples.by_node("ndb_config_value", param="DiskPageBufferMemory")
    sized = samples.by_node("ndb_resource_reserved_bytes", resource="DISK_PAGE_BUFFER")
    return {
        node: configured.get(node) or sized[node]
        for node in configured.keys() | sized.keys()
        if configured.get(node) or sized.get(node)
    }


def disk_page_buffer_hits(check: Check, inputs: Inputs) -> Finding:
    """The manual's hit ratio per data node, between the last two scrapes when the node ran
    through both (else since it started), for the nodes past their cache's warm-up that make
    enough requests."""
    now = _disk_page_requests(inputs.samples)
    if not now:
        return check.no_data("diskpagebuffer")
    before = _disk_page_requests(inputs.previous) if inputs.previous else {}
    memory = _disk_page_buffer_bytes(inputs.samples)
    evidence, low, judged = [], {}, 0
    for node, (hits, misses, uptime) in sorted(now.items()):
        seconds = uptime
        earlier = before.get(node)
        if earlier and uptime and earlier[2] and earlier[2] < uptime and earlier[0] <= hits:
            hits, misses, seconds = hits - earlier[0], misses - earlier[1], uptime - earlier[2]
        requests = hits + misses
        if not requests:
            continue
        ratio, rate = hits / requests, requests / seconds if seconds else None
        value = f"{percent(ratio)} hits" + (f", {rate:,.0f} requests/s" if rate else "")
        if node in memory:
            value += f"; DiskPageBufferMemory {memory[node] / 2**20:,.0f} MiB"
        if uptime is not None and uptime <= thresholds.DISK_PAGE_BUFFER_WARMUP_SECONDS:
            value += f"; warming up (started {uptime:,.0f} s ago)"
        elif rate is not None and rate <= thresholds.DISK_PAGE_BUFFER_MIN_REQUESTS_PER_SECOND:
            value += "; too few requests to judge"
        else:
            judged += 1
            if ratio < thresholds.DISK_PAGE_BUFFER_HIT_RATIO_LOW:
                low[node] = ratio
        evidence.append(Evidence(label=f"node {node}", value=value))
    limit = percent(thresholds.DISK_PAGE_BUFFER_HIT_RATIO_LOW)
    if low:
        worst = percent(min(low.values()))
        return check.finding(
            "problem",
            f"{named_nodes('Data node', sorted(low))} serve{'' if len(low) > 1 else 's'} only "
            f"{worst} of {'their' if len(low) > 1 else 'its'} disk data page requests from the "
            f"disk page buffer (threshold {limit}): raise DiskPageBufferMemory.",
            evidence,
        )
    if not judged:
        return check.finding(
            "ok",
            f"No data node past its warm-up makes "
            f"{thresholds.DISK_PAGE_BUFFER_MIN_REQUESTS_PER_SECOND} disk page requests a second.",
            evidence,
        )
    return check.finding(
        "ok",
        f"Every data node serves at least {limit} of its disk page requests from cache.",
        evidence,
    )


DISK_PAGE_BUFFER_HIT_LOW = Check(
    id="disk_page_buffer_hit_low",
    title="Disk page buffer hit ratio low",
    severity="warning",
    promql=(
        f"node:ndb_disk_page_buffer_hit:ratio_rate5m < {thresholds.DISK_PAGE_BUFFER_HIT_RATIO_LOW}"
    ),
    sql=(
        "SELECT node_id, SUM(page_requests_direct_return) AS hits,\n"
        "       SUM(page_requests_wait_io) AS disk_reads,\n"
        "       SUM(page_requests_direct_return)\n"
        "         / (SUM(page_requests_direct_return) + SUM(page_requests_wait_io)) AS hit_ratio\n"
        "FROM ndbinfo.diskpagebuffer GROUP BY node_id"
    ),
    guide="4.6 Parameter tuning (Parameteroptimierung): DiskPageBufferMemory",
    advice=(
        "Disk data pages that are not in the disk page buffer are read from disk in the "
        "query's path. Under 95% hits, raise DiskPageBufferMemory (rolling restart), keep hot "
        "columns in memory (STORAGE MEMORY) and avoid full scans of large disk data tables."
    ),
    family="storage",
    reads=("diskpagebuffer", "nodes", "config"),
    evaluate=disk_page_buffer_hits,
)
