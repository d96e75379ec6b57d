"""Rows of the small ndbinfo tables (per node, per thread, per log part ...), built in Python
from the model's state. Each builder returns dicts keyed by column name; engine/model_tables
puts them in the catalog's column order. Rows exist only for running data nodes, as on a real
cluster."""

from ndbsim.engine.rows import activity, latency, lookups, membership, memory_logs, threads_cpu

# Every small table built from the model, by ndbinfo name.
BUILDERS = {
    "ndb$nodes": membership.nodes,
    "ndb$membership": membership.membership,
    "ndb$processes": membership.processes,
    "ndb$config_nodes": membership.config_nodes,
    "ndb$transporters": membership.transporters,
    "ndb$transporter_details": membership.transporter_details,
    "ndb$pools": memory_logs.pools,
    "ndb$resources": memory_logs.resources,
    "ndb$logspaces": memory_logs.logspaces,
    "ndb$logbuffers": memory_logs.logbuffers,
    "ndb$counters": activity.counters,
    "ndb$diskpagebuffer": activity.diskpagebuffer,
    "ndb$threads": threads_cpu.threads,
    "ndb$threadblocks": threads_cpu.threadblocks,
    "ndb$threadblock_details": threads_cpu.threadblocks,
    "ndb$threadstat": threads_cpu.threadstat,
    "ndb$cpustat": threads_cpu.cpustat,
    "ndb$cpustat_50ms": threads_cpu.cpustat_50ms,
    "ndb$cpustat_1sec": threads_cpu.cpustat_1sec,
    "ndb$cpustat_20sec": threads_cpu.cpustat_20sec,
    "ndb$disk_write_speed_base": activity.disk_write_speed_base,
    "ndb$disk_write_speed_aggregate": activity.disk_write_speed_aggregate,
    "ndb$tc_time_track_stats": latency.tc_time_track_stats,
    "ndb$restart_info": activity.restart_info,
    "ndb$config_values": activity.config_values,
    "ndb$config_params": activity.config_params_rows,
    "ndb$hwinfo": activity.hwinfo,
    "ndb$cpuinfo": activity.cpuinfo,
    "ndb$cpudata": activity.cpudata,
    "ndb$cpudata_50ms": activity.cpudata_50ms,
    "ndb$cpudata_1sec": activity.cpudata_1sec,
    "ndb$cpudata_20sec": activity.cpudata_20sec,
    "ndb$diskstat": activity.diskstat,
    "ndb$diskstats_1sec": activity.diskstats_1sec,
    "ndb$pgman_time_track_stats": latency.pgman_time_track_stats,
    "ndb$backup_id": lookups.backup_id,
    "ndb$transactions": activity.transactions,
    "ndb$operations": activity.operations,
    "ndb$acc_operations": activity.acc_operations,
    "ndb$certificates": membership.certificates,
    "dictionary_tables": lookups.dictionary_tables,
    "blobs": lookups.blobs,
}
