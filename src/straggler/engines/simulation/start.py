"""How a replication's servers start: empty, or each with the work of an equilibrium state.

A replication started empty spends its warm-up filling the queues, and a fleet of N
servers needs N times the jobs a single queue does before every queue has relaxed: at
a thousand servers a fixed warm-up of 20,000 jobs is 20 jobs a server, and the run is
still drifting when it is measured. A start in equilibrium removes that: each server
begins with the work a server holds in the stationary regime, drawn independently from
a law of that work (:class:`StartLaw`), so the warm-up no longer grows with N.

Where the law comes from (the study chooses, :mod:`straggler.study.run_plan`):

- the mean-field limit (:mod:`straggler.engines.mean_field`): the equilibrium workload
  of one queue as N -> infinity, exact in the limit, for the policies it solves; at
  finite N the servers' work is nearly independent and nearly of that law (the gap is
  O(1/N)), which is what a start drawn from it assumes;
- a smaller system's end state: the work its servers held at its last arrival, after
  its own full warm-up (:meth:`StartLaw.of_workloads`), for the other policies.

The work is placed as a job of no one's at the head of each queue (the fast path's
free times, the event engine's cancelled-copy slot): a later job waits behind it as
behind the stationary work of FCFS queues, which is all that decides when it starts.
The copies of one job on several servers (and their later cancellation) are not in
such a start: the warm-up, and MSER's check that the measured part has settled
(:func:`.statistics.warmup_batches`), see to the rest.

Random numbers: the start's uniforms are the replication's sixth stream (child 5 of its
``SeedSequence``; the five the kernels read are children 0-4, so they are unchanged),
one per server in server order, the same for every policy on the workload (common
random numbers), and a server's work is the law's quantile at its uniform.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

START_STREAM = 5
"""The child of a replication's ``SeedSequence`` that draws its start (children 0-4 are
the kernels' streams, :data:`.streams.NAMES`)."""

LEVELS = 257
"""Points of a start law's quantile table (and of a replication's end state kept in the
store: :attr:`.store.Replications.workloads`)."""


@dataclass(frozen=True)
class StartLaw:
    """The law of one server's work at t = 0, as its quantile function: ``values[i]`` is
    the ``levels[i]``-quantile (linear in between); ``source`` says where it came from,
    in words (``mean-field``, ``the end state of N = 100``)."""

    levels: np.ndarray
    values: np.ndarray
    source: str

    def __post_init__(self):
        levels = np.asarray(self.levels, dtype=float)
        values = np.asarray(self.values, dtype=float)
        if levels.ndim != 1 or levels.shape != values.shape or len(levels) < 2:
            raise ValueError("a start law needs as many levels as values, at least two")
        if levels[0] != 0.0 or levels[-1] != 1.0 or np.any(np.diff(levels) <= 0):
            raise ValueError("a start law's levels increase from 0 to 1")
        if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(np.diff(values) < 0):
            raise ValueError("a start law's values are finite work, non-negative and non-decreasing")
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "values", values)

    @classmethod
    def of_quantile(cls, quantile, source: str) -> StartLaw:
        """From a vectorised quantile function of the work (``quantile(u)``), tabled at
        :func:`tail_levels` (a heavy tail's mean needs its far levels: with evenly spaced
        ones the last interval alone, 1/256 of the servers, would carry a fifth of it)."""
        u = tail_levels()
        values = np.asarray(quantile(u), dtype=float)
        values = np.where(np.isfinite(values), values, np.nan)
        values[-1] = values[-2] if not np.isfinite(values[-1]) else values[-1]
        values = np.maximum.accumulate(np.nan_to_num(np.maximum(values, 0.0), nan=0.0))
        return cls(u, values, source)

    @classmethod
    def of_workloads(cls, tables, source: str) -> StartLaw:
        """From end states: ``tables`` (R, LEVELS), each row a replication's quantile
        table of its servers' work (:func:`workload_table`); the replications are
        pooled, each weighing the same."""
        rows = np.asarray(tables, dtype=float)
        rows = rows[np.all(np.isfinite(rows), axis=1)]
        if not len(rows):
            raise ValueError("no end state to start from")
        pooled = np.sort(rows.ravel())
        u = np.linspace(0.0, 1.0, LEVELS)
        return cls(u, np.quantile(pooled, u), source)

    def sample(self, uniforms: np.ndarray) -> np.ndarray:
        """The work of each server whose uniform is given."""
        return np.interp(np.asarray(uniforms, dtype=float), self.levels, self.values)

    @property
    def mean(self) -> float:
        """E[work] under the table (the trapezoid rule over the levels)."""
        return float(np.sum(np.diff(self.levels) * (self.values[1:] + self.values[:-1]) / 2.0))


def tail_levels() -> np.ndarray:
    """The levels a start law is tabled at: :data:`LEVELS` evenly spaced ones, and the
    upper tail by powers, ``1 - 10^-k`` for k up to 9 (200 of them)."""
    even = np.linspace(0.0, 1.0, LEVELS)
    tail = 1.0 - np.logspace(-2.0, -9.0, 200)
    return np.unique(np.concatenate([even, tail]))


def start_uniforms(seed: np.random.SeedSequence, servers: int) -> np.ndarray:
    """The replication's start uniforms, one per server (see the module docstring)."""
    ss = np.random.SeedSequence(entropy=seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    child = ss.spawn(START_STREAM + 1)[START_STREAM]
    return np.random.Generator(np.random.PCG64(child)).random(int(servers))


def start_workloads(law: StartLaw | None, seed, servers: int) -> np.ndarray:
    """The servers' work at t = 0: zeros (an empty start) without a law."""
    if law is None or not isinstance(seed, np.random.SeedSequence):
        return np.zeros(int(servers))
    return law.sample(start_uniforms(seed, servers))


def workload_table(workloads: np.ndarray) -> np.ndarray:
    """A replication's end state kept small: the quantile table of its servers' work."""
    w = np.asarray(workloads, dtype=float)
    if not len(w) or not np.all(np.isfinite(w)):
        return np.full(LEVELS, np.nan)
    return np.quantile(w, np.linspace(0.0, 1.0, LEVELS))


@dataclass(frozen=True)
class Start:
    """How each load of a cell starts (by the load's position in the model's loads): its
    law (None: empty) and its warm-up in jobs (None: the run length's)."""

    laws: tuple[StartLaw | None, ...] = ()
    warmups: tuple[int | None, ...] = ()
    decided: tuple[bool, ...] = ()
    """loads whose verdict, where their run is too short for one, comes from elsewhere (the
    mean-field limit, a smaller system): they are not run longer for a verdict"""

    def law(self, li: int) -> StartLaw | None:
        return self.laws[li] if li < len(self.laws) else None

    def decided_elsewhere(self, li: int) -> bool:
        return bool(self.decided[li]) if li < len(self.decided) else False

    def warmup(self, li: int, default: int) -> int:
        w = self.warmups[li] if li < len(self.warmups) else None
        return int(default) if w is None else int(w)


EMPTY = Start()
"""Every load from an empty system, after the run length's warm-up."""
