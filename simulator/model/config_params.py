"""Data node ([ndbd]) configuration parameters as ndbinfo.config_params reports them.

param_number is the CFG_* id from mgmapi_config_parameters.h; type, default, minimum and maximum
follow ConfigInfo.cpp / the reference manual for the version. Values are strings, '' where
ndbinfo shows an empty cell. Booleans: config_params shows "true"/"false" (ConfigInfo's text),
config_values shows the kernel's number ("1"/"0").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ndbsim.versions import NdbVersion

U32_MAX = "4294967039"  # the largest value ConfigInfo accepts for most unsigned parameters
TB = "1099511627776"
TB16 = "17592186044416"

V75 = (7, 5, 0)
V76 = (7, 6, 0)
V80 = (8, 0, 0)
# RonDB sizes these at start from TotalMemoryConfig (or the host's memory) while
# AutomaticMemoryConfig is on, its default: their defaults are 0 (RonDB's ConfigInfo.cpp;
# Configuration.cpp calculate_automatic_memory)
AUTOMATIC_MEMORY = (
    "DataMemory",
    "DiskPageBufferMemory",
    "TransactionMemory",
    "SharedGlobalMemory",
    "RedoBuffer",
    "LongMessageBuffer",
)


@dataclass(frozen=True)
class Param:
    name: str
    number: int
    type: str  # bool | unsigned | enum | bitmask | string
    default: str
    minimum: str
    maximum: str
    description: str
    mandatory: int = 0
    status: str = ""
    since: tuple[int, int, int] = V75
    until: tuple[int, int, int] | None = None  # first version without the parameter
    # version-specific (default, minimum, maximum, status) for versions below the key
    older: dict[tuple[int, int, int], tuple[str, str, str, str]] = field(default_factory=dict)
    enum_values: tuple[str, ...] = ()
    rondb_only: bool = False  # a parameter of RonDB's ConfigInfo.cpp alone

    def exists_in(self, version: NdbVersion) -> bool:
        if self.rondb_only and not version.is_rondb:
            return False
        return version.ndb >= self.since and (self.until is None or version.ndb < self.until)

    def for_version(self, version: NdbVersion) -> Param:
        """This parameter with the default/min/max/status of the given version."""
        if version.is_rondb and self.name in AUTOMATIC_MEMORY:
            return replace(self, default="0")
        for below in sorted(self.older):
            if version.ndb < below:
                default, minimum, maximum, status = self.older[below]
                return Param(
                    self.name,
                    self.number,
                    self.type,
                    default,
                    minimum,
                    maximum,
                    self.description,
                    self.mandatory,
                    status,
                    self.since,
                    self.until,
                    {},
                    self.enum_values,
                )
        return self


def _u(name, number, default, minimum, maximum, description, **kw) -> Param:
    return Param(name, number, "unsigned", default, minimum, maximum, description, **kw)


def _b(name, number, default, description, **kw) -> Param:
    return Param(name, number, "bool", default, "false", "true", description, **kw)


def _s(name, number, default, description, **kw) -> Param:
    return Param(name, number, "string", default, "", "", description, **kw)


PARAMS: tuple[Param, ...] = (
    # RonDB (mgmapi_config_parameters.h: CFG_NODE_ACTIVE 13, CFG_DB_TOTAL_MEMORY_CONFIG 698,
    # CFG_DB_AUTO_MEMORY_CONFIG 699)
    _b(
        "NodeActive",
        13,
        "true",
        "A node that is not active does not start until it is activated",
        rondb_only=True,
    ),
    _u(
        "TotalMemoryConfig",
        698,
        "0",
        "0",
        "70368744177664",
        "Memory the data node sizes its memory from (0: the host's memory)",
        rondb_only=True,
    ),
    _b(
        "AutomaticMemoryConfig",
        699,
        "true",
        "Size the memory parameters at start from TotalMemoryConfig",
        rondb_only=True,
    ),
    _u(
        "NodeId",
        3,
        "",
        "1",
        "144",
        "Number identifying the data node",
        mandatory=1,
        older={V80: ("", "1", "48", "")},
    ),
    _s("HostName", 5, "localhost", "Host name or IP address of the data node"),
    _s("DataDir", 7, ".", "Directory for the node's trace, log and pid files"),
    _u(
        "TotalSendBufferMemory",
        9,
        "0",
        "262144",
        U32_MAX,
        "Memory for all send buffers of the node",
    ),
    _u(
        "LocationDomainId",
        10,
        "0",
        "0",
        "16",
        "Location domain (availability zone) of the node",
        since=V80,
    ),
    _u(
        "MaxNoOfSavedMessages", 100, "25", "0", U32_MAX, "Error log entries kept before overwriting"
    ),
    _u("NoOfReplicas", 101, "2", "1", "4", "Number of copies of all data in the cluster"),
    _u("MaxNoOfTables", 102, "128", "8", "20320", "Total number of tables in the cluster"),
    _u(
        "MaxNoOfAttributes", 103, "1000", "32", U32_MAX, "Total number of attributes in the cluster"
    ),
    _u("MaxNoOfTriggers", 105, "768", "0", U32_MAX, "Total number of triggers in the cluster"),
    _u(
        "MaxNoOfConcurrentTransactions",
        106,
        "4096",
        "32",
        U32_MAX,
        "Transaction records per data node",
    ),
    _u(
        "MaxNoOfConcurrentOperations",
        107,
        "32768",
        "32",
        U32_MAX,
        "Operation records per data node",
    ),
    _u("MaxNoOfConcurrentScans", 108, "256", "2", "500", "Parallel scans per data node"),
    _u("MaxNoOfFiredTriggers", 109, "4000", "0", U32_MAX, "Fired trigger records per data node"),
    _u(
        "MaxNoOfConcurrentIndexOperations",
        110,
        "8192",
        "0",
        U32_MAX,
        "Unique hash index operation records per data node",
    ),
    _u(
        "TransactionBufferMemory",
        111,
        "1048576",
        "1024",
        U32_MAX,
        "Buffer for key and attribute data in the transaction coordinator",
    ),
    _u(
        "DataMemory",
        112,
        "102760448",
        "1048576",
        TB16,
        "Memory for rows and indexes",
        older={V80: ("83886080", "1048576", TB, "")},
    ),
    _u("IndexMemory", 113, "18874368", "1048576", TB, "Memory for hash indexes", until=V76),
    _u(
        "LockPagesInMainMemory", 114, "0", "0", "2", "Lock the node's memory so it is never swapped"
    ),
    _u(
        "StartPartialTimeout",
        115,
        "30000",
        "0",
        U32_MAX,
        "Milliseconds to wait for all data nodes before a partial start",
    ),
    _u(
        "StartPartitionedTimeout",
        116,
        "0",
        "0",
        U32_MAX,
        "Milliseconds to wait before a possibly partitioned start",
        older={V80: ("60000", "0", U32_MAX, "")},
    ),
    _u("StartFailureTimeout", 117, "0", "0", U32_MAX, "Milliseconds before a start is abandoned"),
    _u(
        "HeartbeatIntervalDbDb",
        118,
        "5000",
        "10",
        U32_MAX,
        "Milliseconds between heartbeats among data nodes",
    ),
    _u(
        "HeartbeatIntervalDbApi",
        119,
        "1500",
        "100",
        U32_MAX,
        "Milliseconds between heartbeats to API nodes",
    ),
    _u(
        "TimeBetweenLocalCheckpoints",
        120,
        "20",
        "0",
        "31",
        "Redo volume (2^n words) that starts a local checkpoint",
    ),
    _u(
        "TimeBetweenGlobalCheckpoints",
        121,
        "2000",
        "20",
        "32000",
        "Milliseconds between global checkpoints",
    ),
    _u(
        "ArbitrationTimeout",
        122,
        "7500",
        "10",
        U32_MAX,
        "Milliseconds to wait for the arbitrator during a split",
    ),
    _u(
        "TimeBetweenWatchDogCheck",
        123,
        "6000",
        "70",
        U32_MAX,
        "Milliseconds between watchdog checks",
    ),
    _b("StopOnError", 124, "true", "Stop the process on error instead of restarting"),
    _s("FileSystemPath", 125, "", "Directory for redo logs, checkpoints and metadata"),
    _u("NoOfFragmentLogFiles", 126, "16", "3", U32_MAX, "Redo log files per log part"),
    _u(
        "TimeBetweenInactiveTransactionAbortCheck",
        129,
        "1000",
        "1000",
        U32_MAX,
        "Milliseconds between checks for inactive transactions",
    ),
    _u(
        "TransactionInactiveTimeout",
        130,
        U32_MAX,
        "0",
        U32_MAX,
        "Milliseconds a transaction may wait for the application",
    ),
    _u(
        "TransactionDeadlockDetectionTimeout",
        131,
        "1200",
        "50",
        U32_MAX,
        "Milliseconds a transaction may wait inside the data nodes",
    ),
    _u("BackupDataBufferSize", 134, "16777216", "524288", U32_MAX, "Buffer for backup data"),
    _u("BackupLogBufferSize", 135, "16777216", "2097152", U32_MAX, "Buffer for backup log"),
    _u("BackupWriteSize", 136, "262144", "32768", U32_MAX, "Default size of backup writes"),
    _u("BackupMaxWriteSize", 139, "1048576", "262144", U32_MAX, "Largest backup write"),
    _u(
        "FragmentLogFileSize",
        140,
        "16777216",
        "4194304",
        "1073741824",
        "Size of each redo log file",
    ),
    _u(
        "TimeBetweenWatchDogCheckInitial",
        141,
        "6000",
        "70",
        U32_MAX,
        "Watchdog interval during memory allocation at start",
    ),
    Param(
        "Arbitration",
        142,
        "enum",
        "Default",
        "",
        "",
        "How arbitration is done",
        enum_values=("Disabled", "Default", "WaitExternal"),
    ),
    _u("MaxNoOfOrderedIndexes", 149, "128", "0", U32_MAX, "Total number of ordered indexes"),
    _u("MaxNoOfUniqueHashIndexes", 150, "64", "0", U32_MAX, "Total number of unique hash indexes"),
    _u(
        "BatchSizePerLocalScan",
        153,
        "256",
        "1",
        "992",
        "Lock records per local scan",
        status="deprecated",
    ),
    _u("RedoBuffer", 156, "33554432", "1048576", U32_MAX, "Buffer for redo log writes per LDM"),
    _u(
        "LongMessageBuffer", 157, "67108864", "524288", U32_MAX, "Buffer for long internal messages"
    ),
    _s("BackupDataDir", 158, "", "Directory for backups (FileSystemPath/BACKUP by default)"),
    _u("MaxNoOfOpenFiles", 159, "0", "20", U32_MAX, "Open files per data node (0: no limit)"),
    _u(
        "DiskPageBufferMemory",
        160,
        "67108864",
        "4194304",
        TB16,
        "Page cache for disk data",
        older={V80: ("67108864", "4194304", TB, "")},
    ),
    _u("StringMemory", 161, "25", "0", U32_MAX, "Memory for schema object names"),
    _u("InitialNoOfOpenFiles", 162, "27", "20", U32_MAX, "File threads created at start"),
    _u("DiskSyncSize", 163, "4194304", "32768", U32_MAX, "Bytes written before a file is synced"),
    _u("MemReportFrequency", 166, "0", "0", U32_MAX, "Seconds between memory usage reports"),
    _u("BackupReportFrequency", 167, "0", "0", U32_MAX, "Seconds between backup progress reports"),
    _b("ODirect", 168, "false", "Use O_DIRECT for redo, checkpoint and backup files"),
    _u(
        "MaxAllocate",
        169,
        "33554432",
        "1048576",
        "1073741824",
        "Largest memory allocation for tables",
        older={V80: ("33554432", "1048576", "1073741824", "")},
    ),
    _u("TimeBetweenEpochs", 170, "100", "0", "32000", "Milliseconds between epochs (micro GCPs)"),
    _u(
        "TimeBetweenEpochsTimeout",
        171,
        "0",
        "0",
        "256000",
        "Milliseconds an epoch may take before the node is stopped",
    ),
    _b("CompressedBackup", 172, "false", "Compress backup files"),
    _b("CompressedLCP", 173, "false", "Compress local checkpoint files"),
    _u(
        "SchedulerExecutionTimer",
        174,
        "50",
        "0",
        "11000",
        "Microseconds threads execute before sending",
    ),
    _u("SchedulerSpinTimer", 175, "0", "0", "500", "Microseconds threads spin before sleeping"),
    _b("RealtimeScheduler", 176, "false", "Use real-time scheduling for threads"),
    Param("LockExecuteThreadToCPU", 177, "bitmask", "", "", "", "CPUs for execution threads"),
    _u("LockMaintThreadsToCPU", 178, "", "0", "65535", "CPU for maintenance threads"),
    _u("MaxNoOfSubscriptions", 179, "0", "0", U32_MAX, "Event subscriptions (0: MaxNoOfTables)"),
    _u("MaxNoOfSubscribers", 180, "0", "0", U32_MAX, "Event subscribers (0: 2 x MaxNoOfTables)"),
    _u(
        "MaxNoOfConcurrentSubOperations",
        181,
        "256",
        "0",
        U32_MAX,
        "Concurrent subscriber operations",
    ),
    _u(
        "MaxBufferedEpochs",
        182,
        "100",
        "1",
        "100000",
        "Unacknowledged epochs a subscribing node may lag",
    ),
    _u(
        "StartupStatusReportFrequency",
        184,
        "0",
        "0",
        U32_MAX,
        "Seconds between status reports during start",
    ),
    _u("NodeGroup", 185, "", "0", "65536", "Node group of the data node"),
    _u("MaxNoOfExecutionThreads", 186, "0", "2", "72", "Execution threads of ndbmtd"),
    Param(
        "InitFragmentLogFiles",
        189,
        "enum",
        "SPARSE",
        "",
        "",
        "How redo log files are initialised",
        enum_values=("SPARSE", "FULL"),
    ),
    _u("DiskIOThreadPool", 190, "2", "0", U32_MAX, "Threads for disk data file access"),
    _s("FileSystemPathDD", 193, "", "Directory for disk data and undo files"),
    _s("FileSystemPathDataFiles", 194, "", "Directory for disk data files"),
    _s("FileSystemPathUndoFiles", 195, "", "Directory for undo files"),
    _s("InitialLogFileGroup", 196, "", "Log file group created at initial start"),
    _s("InitialTablespace", 197, "", "Tablespace created at initial start"),
    _u(
        "SharedGlobalMemory",
        198,
        "134217728",
        "0",
        "70368744177664",
        "Shared memory for several purposes",
        older={V80: ("134217728", "0", "70368744177664", "")},
    ),
    _u(
        "MaxLCPStartDelay",
        605,
        "0",
        "0",
        "600",
        "Seconds an LCP waits for a node restart to finish copying metadata",
    ),
    _u(
        "BuildIndexThreads",
        606,
        "128",
        "0",
        "128",
        "Threads for building ordered indexes",
        older={V80: ("0", "0", "128", "")},
    ),
    _u("HeartbeatOrder", 607, "0", "0", "65535", "Order of the node in the heartbeat ring"),
    _u("MaxStartFailRetries", 609, "3", "0", U32_MAX, "Start retries when StopOnError=0"),
    _u("StartFailRetryDelay", 610, "0", "0", U32_MAX, "Seconds between start retries"),
    _u(
        "RedoOverCommitLimit",
        611,
        "20",
        "0",
        U32_MAX,
        "Seconds a redo flush may take before it counts as over-committed",
    ),
    _u(
        "RedoOverCommitCounter",
        612,
        "3",
        "0",
        U32_MAX,
        "Redo over-commits before transactions are aborted",
    ),
    _u("EventLogBufferSize", 613, "8192", "0", "65536", "Buffer for the node's event log"),
    _b("Numa", 614, "true", "Interleave memory across NUMA nodes"),
    _b("TwoPassInitialNodeRestartCopy", 616, "true", "Two-pass copy during initial node restart"),
    _u("MaxParallelScansPerFragment", 617, "256", "1", U32_MAX, "Parallel scans per fragment"),
    _u(
        "ConnectCheckIntervalDelay",
        618,
        "1500",
        "0",
        U32_MAX,
        "Milliseconds between connectivity checks",
        older={V80: ("0", "0", U32_MAX, "")},
    ),
    _u(
        "StartNoNodeGroupTimeout",
        619,
        "15000",
        "0",
        U32_MAX,
        "Milliseconds to wait for nodes without a node group",
    ),
    _b("IndexStatAutoCreate", 620, "false", "Create index statistics automatically"),
    _b("IndexStatAutoUpdate", 621, "false", "Update index statistics automatically"),
    _u("IndexStatSaveSize", 622, "32768", "0", U32_MAX, "Bytes of index statistics per index"),
    _u("IndexStatSaveScale", 623, "100", "0", U32_MAX, "Scale factor for IndexStatSaveSize"),
    _u(
        "IndexStatTriggerPct",
        624,
        "100",
        "0",
        U32_MAX,
        "Percent change that triggers a statistics update",
    ),
    _u("IndexStatTriggerScale", 625, "100", "0", U32_MAX, "Scale factor for IndexStatTriggerPct"),
    _u(
        "IndexStatUpdateDelay",
        626,
        "60",
        "0",
        "86400",
        "Seconds between statistics updates of an index",
    ),
    _u(
        "MaxDMLOperationsPerTransaction",
        627,
        "4294967295",
        "32",
        "4294967295",
        "Largest number of DML operations in a transaction",
    ),
    _s("ThreadConfig", 628, "", "Threads of ndbmtd and their CPUs"),
    _b("CrashOnCorruptedTuple", 629, "true", "Stop the node on a corrupted row"),
    _u("MinFreePct", 630, "5", "0", "100", "Percent of memory kept for restarts"),
    _u(
        "LcpScanProgressTimeout",
        631,
        "180",
        "0",
        U32_MAX,
        "Seconds an LCP fragment scan may stall before the node is stopped",
        older={V80: ("60", "0", U32_MAX, "")},
    ),
    _u("NoOfFragmentLogParts", 632, "4", "4", "32", "Redo log parts per data node"),
    _u("ServerPort", 635, "", "1", "65535", "Port the data node listens on"),
    _b("TcpBind_INADDR_ANY", 636, "false", "Bind the server port on all addresses"),
    _u(
        "RestartSubscriberConnectTimeout",
        637,
        "12000",
        "0",
        U32_MAX,
        "Milliseconds to wait for subscribing API nodes during restart",
    ),
    _u("MinDiskWriteSpeed", 638, "10485760", "1048576", TB, "Lowest LCP and backup write speed"),
    _u("MaxDiskWriteSpeed", 639, "20971520", "1048576", TB, "Highest LCP and backup write speed"),
    _u(
        "MaxDiskWriteSpeedOtherNodeRestart",
        640,
        "52428800",
        "1048576",
        TB,
        "Highest write speed while another node restarts",
    ),
    _u(
        "MaxDiskWriteSpeedOwnRestart",
        641,
        "209715200",
        "1048576",
        TB,
        "Highest write speed while this node restarts",
    ),
    _u(
        "MaxParallelCopyInstances",
        643,
        "0",
        "0",
        "64",
        "Parallel fragment copies during node restart",
    ),
    _u("MaxSendDelay", 644, "0", "0", "11000", "Microseconds a send may be delayed"),
    _u(
        "BackupDiskWriteSpeedPct",
        645,
        "50",
        "0",
        "90",
        "Share of the disk write speed reserved for backups",
    ),
    _u("SchedulerResponsiveness", 646, "5", "0", "10", "Latency versus throughput of threads"),
    _b("EnablePartialLcp", 649, "true", "Write partial local checkpoints", since=V76),
    _b("ODirectSyncFlag", 650, "false", "Treat O_DIRECT writes as synced", since=V76),
    _u(
        "MaxUIBuildBatchSize",
        651,
        "64",
        "16",
        "512",
        "Batch size for unique index builds",
        since=V76,
    ),
    _u(
        "MaxFKBuildBatchSize",
        652,
        "64",
        "16",
        "512",
        "Batch size for foreign key builds",
        since=V76,
    ),
    _u(
        "MaxReorgBuildBatchSize",
        653,
        "64",
        "16",
        "512",
        "Batch size for table reorganisation",
        since=V76,
    ),
    _u(
        "RecoveryWork",
        654,
        "60",
        "25",
        "100",
        "Storage overhead for partial LCP files (percent)",
        since=V76,
    ),
    _b("UseShm", 655, "false", "Use shared memory connections to local nodes", since=V76),
    _u(
        "InsertRecoveryWork",
        656,
        "40",
        "0",
        "70",
        "Recovery work for insert-heavy loads (percent)",
        since=V76,
    ),
    _b(
        "WatchdogImmediateKill", 657, "false", "Kill threads at once on watchdog timeout", since=V76
    ),
    _b(
        "EnableRedoControl",
        658,
        "true",
        "Adapt disk write speed to redo log usage",
        since=V76,
        older={V80: ("false", "false", "true", "")},
    ),
    _b("EnableMultithreadedBackup", 659, "true", "Back up with all LDM threads", since=V80),
    _u(
        "TransactionMemory",
        667,
        "0",
        "0",
        TB16,
        "Memory for transaction records (0: computed)",
        since=V80,
    ),
    _u(
        "MaxDiskDataLatency",
        668,
        "0",
        "0",
        "8000",
        "Average disk access latency (ms) before requests are aborted",
        since=V80,
    ),
    _b("DiskDataUsingSameDisk", 669, "true", "Disk data tablespaces share one disk", since=V80),
    _u(
        "NodeGroupTransporters",
        670,
        "1",
        "1",
        "32",
        "Transporters between nodes of one node group",
        since=V80,
    ),
    Param(
        "SpinMethod",
        671,
        "enum",
        "StaticSpinning",
        "",
        "",
        "How threads spin",
        since=V80,
        enum_values=(
            "CostBasedSpinning",
            "LatencyOptimisedSpinning",
            "DatabaseMachineSpinning",
            "StaticSpinning",
        ),
    ),
    _u("RequireEncryptedBackup", 673, "0", "0", "1", "Backups must be encrypted", since=(8, 0, 22)),
    _u(
        "PartitionsPerNode",
        674,
        "2",
        "1",
        "32",
        "Partitions per node when ClassicFragmentation is off",
        since=(8, 0, 23),
    ),
    _b("ClassicFragmentation", 675, "true", "Partition tables by LDM threads", since=(8, 0, 23)),
    _u("NumCPUs", 676, "0", "0", "2048", "CPUs for AutomaticThreadConfig", since=(8, 0, 23)),
    _b(
        "AutomaticThreadConfig",
        677,
        "false",
        "Configure threads from the CPUs available",
        since=(8, 0, 23),
    ),
    _u(
        "KeepAliveSendInterval",
        678,
        "60000",
        "0",
        U32_MAX,
        "Milliseconds between keep-alive signals",
        since=(8, 0, 27),
    ),
    _u(
        "EncryptedFileSystem",
        680,
        "0",
        "0",
        "1",
        "Encrypt checkpoint and redo files",
        since=(8, 0, 29),
    ),
    _u(
        "ApiFailureHandlingTimeout",
        682,
        "600",
        "0",
        U32_MAX,
        "Seconds before unfinished API node failure handling stops the node",
        since=(8, 0, 42),
    ),
    _u(
        "MaxBufferedEpochBytes",
        350,
        "26214400",
        "26214400",
        U32_MAX,
        "Bytes buffered for subscribing nodes that lag",
    ),
)

_BY_NAME = {p.name.lower(): p for p in PARAMS}
_SIZE = re.compile(r"^(\d+)\s*([kKmMgG]?)$")
_TRUE = {"1", "true", "yes", "y", "on"}
_FALSE = {"0", "false", "no", "n", "off"}


def params_for(version: NdbVersion) -> list[Param]:
    """The parameters the version knows, in param_number order."""
    return sorted(
        (p.for_version(version) for p in PARAMS if p.exists_in(version)), key=lambda p: p.number
    )


def mysql_default(name: str) -> str:
    """The parameter's default on MySQL NDB (the newest release's)."""
    return default_value(_BY_NAME[name.lower()])


def lookup(name: str, version: NdbVersion) -> Param:
    """The parameter named (case-insensitively); ValueError if this version has no such one."""
    param = _BY_NAME.get(name.strip().lower())
    if param is None or not param.exists_in(version):
        raise ValueError(f"unknown data node parameter {name!r} for NDB {version.series}")
    return param.for_version(version)


def normalize(param: Param, raw: str) -> str:
    """The value as config_values shows it; ValueError (one line) when it is not valid."""
    text = str(raw).strip()
    if param.type == "bool":
        low = text.lower()
        if low in _TRUE:
            return "1"
        if low in _FALSE:
            return "0"
        raise ValueError(f"{param.name}: {raw!r} is not a boolean (true/false)")
    if param.type == "unsigned":
        m = _SIZE.match(text)
        if not m:
            raise ValueError(f"{param.name}: {raw!r} is not an unsigned number (K/M/G allowed)")
        value = int(m[1]) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m[2].lower()]
        if param.minimum and value < int(param.minimum):
            raise ValueError(f"{param.name}: {value} is below the minimum {param.minimum}")
        if param.maximum and value > int(param.maximum):
            raise ValueError(f"{param.name}: {value} is above the maximum {param.maximum}")
        return str(value)
    if param.type == "enum":
        for index, label in enumerate(param.enum_values):
            if text.lower() == label.lower():
                return str(index)
        raise ValueError(f"{param.name}: {raw!r} is not one of {', '.join(param.enum_values)}")
    return text


def default_value(param: Param) -> str:
    """The default as config_values would show it ('' when the parameter has none)."""
    if param.default == "" or param.type in ("unsigned", "string", "bitmask"):
        return param.default
    return normalize(param, param.default)


@dataclass(frozen=True)
class Override:
    name: str
    value: str
    node_id: int | None  # None: every data node


def parse_override(text: str) -> Override:
    """'Param=Value' or 'Param=Value@node' (the value may not contain '@')."""
    name, sep, rest = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--config {text!r}: expected Param=Value or Param=Value@node")
    value, at, node = rest.rpartition("@") if "@" in rest else (rest, "", "")
    node_id = None
    if at:
        if not node.strip().isdigit():
            raise ValueError(f"--config {text!r}: node after '@' must be a data node id")
        node_id = int(node)
    return Override(name.strip(), value.strip(), node_id)
