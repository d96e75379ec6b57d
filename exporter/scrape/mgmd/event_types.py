"""The cluster log's event types as NDB declares them: the number and name of each
(`Ndb_logevent_type`, storage/ndb/include/mgmapi/ndb_logevent.h) with its category, level
threshold and severity (`EventLoggerBase::matrix[]`, src/common/debugger/EventLogger.cpp).
The category is the name `listen event`'s filter takes (mgmapi.cpp `categories[]`); a data
node reports an event to the management server when the category's level is at least the
event's threshold. tests/scrape/test_mgmd_constants.py holds this table equal to the NDB
tables in simulator/data/ndb-mgm."""

from __future__ import annotations

from typing import NamedTuple


class EventType(NamedTuple):
    number: int
    name: str
    category: str
    threshold: int
    severity: str  # Logger::LoggerLevel without LL_: INFO, WARNING, ERROR, ALERT


EVENT_TYPES = (
    EventType(0, "Connected", "CONNECTION", 8, "INFO"),
    EventType(1, "Disconnected", "CONNECTION", 8, "ALERT"),
    EventType(2, "CommunicationClosed", "CONNECTION", 8, "INFO"),
    EventType(3, "CommunicationOpened", "CONNECTION", 8, "INFO"),
    EventType(4, "GlobalCheckpointStarted", "CHECKPOINT", 9, "INFO"),
    EventType(5, "GlobalCheckpointCompleted", "CHECKPOINT", 10, "INFO"),
    EventType(6, "LocalCheckpointStarted", "CHECKPOINT", 7, "INFO"),
    EventType(7, "LocalCheckpointCompleted", "CHECKPOINT", 7, "INFO"),
    EventType(8, "LCPStoppedInCalcKeepGci", "CHECKPOINT", 0, "ALERT"),
    EventType(9, "LCPFragmentCompleted", "CHECKPOINT", 11, "INFO"),
    EventType(10, "NDBStartStarted", "STARTUP", 1, "INFO"),
    EventType(11, "NDBStartCompleted", "STARTUP", 1, "INFO"),
    EventType(12, "STTORRYRecieved", "STARTUP", 15, "INFO"),
    EventType(13, "StartPhaseCompleted", "STARTUP", 4, "INFO"),
    EventType(14, "CM_REGCONF", "STARTUP", 3, "INFO"),
    EventType(15, "CM_REGREF", "STARTUP", 8, "INFO"),
    EventType(16, "FIND_NEIGHBOURS", "STARTUP", 8, "INFO"),
    EventType(17, "NDBStopStarted", "STARTUP", 1, "INFO"),
    EventType(18, "NDBStopAborted", "STARTUP", 1, "INFO"),
    EventType(19, "StartREDOLog", "STARTUP", 4, "INFO"),
    EventType(20, "StartLog", "STARTUP", 10, "INFO"),
    EventType(21, "UNDORecordsExecuted", "STARTUP", 15, "INFO"),
    EventType(22, "NR_CopyDict", "NODERESTART", 7, "INFO"),
    EventType(23, "NR_CopyDistr", "NODERESTART", 7, "INFO"),
    EventType(24, "NR_CopyFragsStarted", "NODERESTART", 7, "INFO"),
    EventType(25, "NR_CopyFragDone", "NODERESTART", 10, "INFO"),
    EventType(26, "NR_CopyFragsCompleted", "NODERESTART", 7, "INFO"),
    EventType(27, "NodeFailCompleted", "NODERESTART", 8, "ALERT"),
    EventType(28, "NODE_FAILREP", "NODERESTART", 8, "ALERT"),
    EventType(29, "ArbitState", "NODERESTART", 6, "INFO"),
    EventType(30, "ArbitResult", "NODERESTART", 2, "ALERT"),
    EventType(31, "GCP_TakeoverStarted", "NODERESTART", 7, "INFO"),
    EventType(32, "GCP_TakeoverCompleted", "NODERESTART", 7, "INFO"),
    EventType(33, "LCP_TakeoverStarted", "NODERESTART", 7, "INFO"),
    EventType(34, "LCP_TakeoverCompleted", "NODERESTART", 7, "INFO"),
    EventType(35, "TransReportCounters", "STATISTICS", 8, "INFO"),
    EventType(36, "OperationReportCounters", "STATISTICS", 8, "INFO"),
    EventType(37, "TableCreated", "STATISTICS", 7, "INFO"),
    EventType(38, "UndoLogBlocked", "CHECKPOINT", 7, "INFO"),
    EventType(39, "JobStatistic", "STATISTICS", 9, "INFO"),
    EventType(40, "SendBytesStatistic", "STATISTICS", 9, "INFO"),
    EventType(41, "ReceiveBytesStatistic", "STATISTICS", 9, "INFO"),
    EventType(42, "TransporterError", "ERROR", 2, "ERROR"),
    EventType(43, "TransporterWarning", "ERROR", 8, "WARNING"),
    EventType(44, "MissedHeartbeat", "ERROR", 8, "WARNING"),
    EventType(45, "DeadDueToHeartbeat", "ERROR", 8, "ALERT"),
    EventType(46, "WarningEvent", "ERROR", 2, "WARNING"),
    EventType(47, "SentHeartbeat", "INFO", 12, "INFO"),
    EventType(48, "CreateLogBytes", "INFO", 11, "INFO"),
    EventType(49, "InfoEvent", "INFO", 2, "INFO"),
    EventType(50, "MemoryUsage", "STATISTICS", 5, "INFO"),
    EventType(51, "ConnectedApiVersion", "CONNECTION", 8, "INFO"),
    EventType(52, "SingleUser", "INFO", 7, "INFO"),
    EventType(53, "NDBStopCompleted", "STARTUP", 1, "INFO"),
    EventType(54, "BackupStarted", "BACKUP", 7, "INFO"),
    EventType(55, "BackupFailedToStart", "BACKUP", 7, "ALERT"),
    EventType(56, "BackupCompleted", "BACKUP", 7, "INFO"),
    EventType(57, "BackupAborted", "BACKUP", 7, "ALERT"),
    EventType(58, "EventBufferStatus", "INFO", 7, "INFO"),
    EventType(59, "NDBStopForced", "STARTUP", 1, "ALERT"),
    EventType(60, "StartReport", "STARTUP", 4, "INFO"),
    EventType(62, "BackupStatus", "BACKUP", 7, "INFO"),
    EventType(63, "RestoreMetaData", "BACKUP", 7, "INFO"),
    EventType(64, "RestoreData", "BACKUP", 7, "INFO"),
    EventType(65, "RestoreLog", "BACKUP", 7, "INFO"),
    EventType(66, "RestoreStarted", "BACKUP", 7, "INFO"),
    EventType(67, "RestoreCompleted", "BACKUP", 7, "INFO"),
    EventType(68, "ThreadConfigLoop", "STATISTICS", 9, "INFO"),
    EventType(69, "SubscriptionStatus", "ERROR", 4, "WARNING"),
    EventType(70, "MTSignalStatistics", "STATISTICS", 9, "INFO"),
    EventType(71, "LogFileInitStatus", "STARTUP", 7, "INFO"),
    EventType(72, "LogFileInitCompStatus", "STARTUP", 7, "INFO"),
    EventType(73, "RedoStatus", "CHECKPOINT", 7, "INFO"),
    EventType(74, "CreateSchemaObject", "SCHEMA", 8, "INFO"),
    EventType(75, "AlterSchemaObject", "SCHEMA", 8, "INFO"),
    EventType(76, "DropSchemaObject", "SCHEMA", 8, "INFO"),
    EventType(77, "StartReadLCP", "STARTUP", 10, "INFO"),
    EventType(78, "ReadLCPComplete", "STARTUP", 10, "INFO"),
    EventType(79, "RunRedo", "STARTUP", 8, "INFO"),
    EventType(80, "RebuildIndex", "STARTUP", 10, "INFO"),
    EventType(81, "SavedEvent", "INFO", 7, "INFO"),
    EventType(82, "ConnectCheckStarted", "NODERESTART", 6, "INFO"),
    EventType(83, "ConnectCheckCompleted", "NODERESTART", 6, "INFO"),
    EventType(84, "NodeFailRejected", "NODERESTART", 6, "ALERT"),
    EventType(85, "EventBufferStatus2", "INFO", 7, "INFO"),
    EventType(86, "LCPRestored", "STARTUP", 7, "INFO"),
    EventType(87, "EventBufferStatus3", "INFO", 7, "INFO"),
)
