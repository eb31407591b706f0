"""One load of a cell ready to simulate, and the verdict its replications give."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import statistics
from .encode import F_MONITOR_WAIT, I_N, I_POOL0, I_POOLS, Encoded
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


def monitor_scale(enc: Encoded) -> tuple[float, int, int]:
    """(monitor wait, servers, smallest pool) of an encoded model."""
    N = int(enc.ints[I_N])
    starts = [int(v) for v in enc.ints[I_POOL0 : I_POOL0 + int(enc.ints[I_POOLS]) + 1]]
    pool = min(b - a for a, b in zip(starts, starts[1:]))
    return float(enc.flts[F_MONITOR_WAIT]), N, max(pool, 1)


def load_verdict(rec: Replications, load: Load, warmup: int) -> tuple[str, float, str]:
    """``(verdict, miss probability, evidence)`` of a load's replications (see
    :func:`.statistics.simulation_verdict`); evidence ``monitor`` or ``idle`` for a
    stable load."""
    wait, servers, pool = monitor_scale(load.enc)
    pools = int(load.enc.ints[I_POOLS])
    return statistics.verdict_with_evidence(rec, wait, servers, pool, load.rate, warmup, pools)


def load_jobs_for_verdict(rec: Replications, load: Load, warmup: int) -> float:
    """Measured jobs per replication that would decide the load (see
    :func:`.statistics.jobs_for_verdict`)."""
    wait, servers, pool = monitor_scale(load.enc)
    return statistics.jobs_for_verdict(rec, wait, servers, pool, warmup, load.rate, int(load.enc.ints[I_POOLS]))
