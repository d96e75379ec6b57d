"""Global checkpoints (GCI, epochs) and local checkpoint rounds over cluster time.

GCIs advance every TimeBetweenGlobalCheckpoints while the cluster is up; an epoch is
gci << 32 | micro-GCI (one micro-GCI per TimeBetweenEpochs). LCP rounds take 30-60 s of cluster
time with gaps of 2-10 s; a stalled round stays open until the stall is cleared. While the
global checkpoint stalls (`gcp_stalled`), the GCI and the epoch stay where they are and resume
from there.

As in the data nodes' DIH (Dbdih::startGcpLab), a new GCI starts only once the GCP_SAVE of the
previous one is done: while GCP_SAVE lags (`gcp_save_lagging`: the redo log is flushed to disk
too slowly), the GCI stays and the micro GCPs go on, each raising the epoch's low 32 bits; once
GCP_SAVE catches up, the next micro GCP starts a new GCI.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class LcpMark:
    lcp_id: int
    gci_started: int
    gci_completed: int


class Checkpoints:
    def __init__(self, seed: int, gcp_interval_ms: int, epoch_interval_ms: int) -> None:
        self._rnd = random.Random(seed * 7919 + 11)
        self.gcp_interval = max(gcp_interval_ms, 20) / 1000.0
        self.epoch_interval = max(epoch_interval_ms, 1) / 1000.0
        self.base_gci = 60000 + self._rnd.randint(0, 999)
        self.up_time = 0.0  # cluster seconds the cluster has been up
        self.gcp_stalled = False  # set by the model while the gcp-stall fault is active
        self.stalled_time = 0.0  # cluster seconds of up_time the global checkpoint stood still
        self.gcp_save_lagging = False  # set by the model while the gcp-save-lag fault is active
        self.save_lag_time = 0.0  # cluster seconds the GCI stood while micro GCPs went on
        self.lag_span = 0.0  # cluster seconds of the current GCI's GCP_SAVE lag
        lcp_id = 30 + self._rnd.randint(0, 9)
        last_gci = self.base_gci - self._rnd.randint(5, 20)
        self.last = LcpMark(lcp_id, last_gci, last_gci)
        self.prev = LcpMark(lcp_id - 1, last_gci - 25, last_gci - 25)
        self.in_round = False
        self.round_elapsed = 0.0
        self.round_duration = 0.0
        self.round_start_gci = 0
        self.gap_left = self._rnd.uniform(0.5, 5.0)
        self.round_start_uptime = 0.0
        self.release_uptime = -40.0  # redo written before this uptime is released

    @property
    def gci(self) -> int:
        return self.base_gci + int(self._gcp_time / self.gcp_interval)

    @property
    def epoch(self) -> int:
        in_gci = self._gcp_time % self.gcp_interval + self.lag_span
        return (self.gci << 32) | int(in_gci / self.epoch_interval)

    @property
    def _gcp_time(self) -> float:
        """Cluster seconds the global checkpoint has advanced to new GCIs."""
        return self.up_time - self.stalled_time - self.save_lag_time

    def _run_for(self, step: float) -> None:
        self.up_time += step
        if self.gcp_stalled:
            self.stalled_time += step
        elif self.gcp_save_lagging:
            self.save_lag_time += step
            self.lag_span += step
        elif self.lag_span:
            # GCP_SAVE caught up: the next micro GCP starts a new GCI
            self.save_lag_time -= self.gcp_interval - self._gcp_time % self.gcp_interval
            self.lag_span = 0.0

    @property
    def progress(self) -> float:
        """Share of the running round done (0 when no round runs)."""
        if not self.in_round:
            return 0.0
        return min(1.0, self.round_elapsed / self.round_duration)

    @property
    def running_lcp_id(self) -> int:
        return self.last.lcp_id + 1

    def advance(self, dt: float, stalled: bool) -> int:
        """Advance by dt cluster seconds of cluster uptime; returns LCP rounds completed."""
        completed = 0
        while dt > 1e-12:
            if stalled and not self.in_round:
                self._start_round()
            if self.in_round:
                if stalled:
                    self._run_for(dt)
                    return completed
                step = min(dt, self.round_duration - self.round_elapsed)
                self._run_for(step)
                self.round_elapsed += step
                dt -= step
                if self.round_elapsed >= self.round_duration - 1e-9:
                    self._complete_round()
                    completed += 1
            else:
                step = min(dt, self.gap_left)
                self._run_for(step)
                self.gap_left -= step
                dt -= step
                if self.gap_left <= 1e-9:
                    self._start_round()
        return completed

    def _start_round(self) -> None:
        self.in_round = True
        self.round_elapsed = 0.0
        self.round_duration = self._rnd.uniform(30.0, 60.0)
        self.round_start_gci = self.gci
        self.round_start_uptime = self.up_time

    def _complete_round(self) -> None:
        self.prev = self.last
        self.last = LcpMark(self.running_lcp_id, self.round_start_gci, self.round_start_gci)
        self.release_uptime = self.round_start_uptime
        self.in_round = False
        self.gap_left = self._rnd.uniform(2.0, 10.0)
