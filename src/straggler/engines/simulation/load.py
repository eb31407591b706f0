"""One load of a cell ready to simulate, and the verdict its replications give."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import statistics
from .encode import F_MONITOR_WAIT, I_N, I_POOL0, I_POOLS, Encoded
from .start import StartLaw
from .store import Replications


@dataclass
class Load:
    """One load of a cell, ready to simulate."""

    value: float
    rate: float
    enc: Encoded
    keep: int | None
    """FJ's kept tasks when chosen per load (part of the store's path), else None"""
    seeds: Callable[..., list]
    """``seeds(n)``: the SeedSequences of replications 0 .. n - 1"""
    warmup: int = 0
    """jobs run before the measured ones (the run length's, or the cell's plan for it)"""
    start: StartLaw | None = None
    """the law of each server's work at t = 0 (None: an empty start; :mod:`.start`)"""
    decided: bool = False
    """its verdict comes from elsewhere where its run is too short (:attr:`.start.Start.decided`)"""

    @property
    def folder(self) -> str | None:
        """What names the load's files in the store besides its value: FJ's kept tasks,
        and a start in equilibrium or a warm-up of the cell's plan (their digest), so that
        a replication run from one start is never read back as one from another; None
        for the study's own length from an empty start (the name it always had)."""
        parts = [] if self.keep is None else [f"keep={int(self.keep)}"]
        if self.start is not None:
            digest = hashlib.sha256(np.concatenate([self.start.levels, self.start.values]).tobytes()).hexdigest()
            parts.append(f"start={digest[:12]}__warmup={int(self.warmup)}")
        return "__".join(parts) or None


def monitor_scale(enc: Encoded) -> tuple[float, int, int]:
    """(monitor wait, servers, smallest pool) of an encoded model."""
    N = int(enc.ints[I_N])
    starts = [int(v) for v in enc.ints[I_POOL0 : I_POOL0 + int(enc.ints[I_POOLS]) + 1]]
    pool = min(b - a for a, b in zip(starts, starts[1:]))
    return float(enc.flts[F_MONITOR_WAIT]), N, max(pool, 1)


def load_verdict(rec: Replications, load: Load) -> tuple[str, float, str]:
    """``(verdict, miss probability, evidence)`` of a load's replications (see
    :func:`.statistics.simulation_verdict`); evidence ``monitor`` or ``idle`` for a
    stable load."""
    wait, servers, pool = monitor_scale(load.enc)
    pools = int(load.enc.ints[I_POOLS])
    return statistics.verdict_with_evidence(rec, wait, servers, pool, load.rate, load.warmup, pools)


def load_jobs_for_verdict(rec: Replications, load: Load) -> float:
    """Measured jobs per replication that would decide the load (see
    :func:`.statistics.jobs_for_verdict`)."""
    wait, servers, pool = monitor_scale(load.enc)
    return statistics.jobs_for_verdict(rec, wait, servers, pool, load.warmup, load.rate, int(load.enc.ints[I_POOLS]))
