"""Thresholds the cluster view shares with the alert rules (provisioning/prometheus/rules).

The view's findings and the alerts must not disagree on when something is a problem:
tests/ui/test_thresholds.py reads the alert rules and checks each alert named here compares
with the same number.
"""

from __future__ import annotations

DATA_MEMORY_WARNING = 0.8  # NdbDataMemoryHigh
DATA_MEMORY_CRITICAL = 0.95  # NdbDataMemoryCritical
REDO_WARNING = 0.7  # NdbRedoLogSpaceHigh
REDO_CRITICAL = 0.9  # NdbRedoLogSpaceCritical
# NdbLcpStalled: 10 minutes at the default TimeBetweenGlobalCheckpoints of 2 s.
LCP_AGE_GCIS = 300
SEND_BUFFER_WARNING = 0.8  # NdbSendBufferHigh
IDLE_TRANSACTION_SECONDS = 60  # NdbLongRunningTransaction

# Alert name -> the threshold its expression compares with.
ALERTS = {
    "NdbDataMemoryHigh": DATA_MEMORY_WARNING,
    "NdbDataMemoryCritical": DATA_MEMORY_CRITICAL,
    "NdbRedoLogSpaceHigh": REDO_WARNING,
    "NdbRedoLogSpaceCritical": REDO_CRITICAL,
    "NdbLcpStalled": LCP_AGE_GCIS,
    "NdbSendBufferHigh": SEND_BUFFER_WARNING,
    "NdbLongRunningTransaction": IDLE_TRANSACTION_SECONDS,
}
