"""The result of simulating a cell: per-load estimates and verdicts."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .statistics import QUANTILES

VERDICTS = ("stable", "unstable", "undetermined")
"""A load's simulation verdict (``""``: not simulated, see :attr:`SimulationResult.skipped`)."""


@dataclass
class SimulationResult:
    """Per-load simulation results (arrays over ``loads``).

    The estimates are the pooled sample statistics of the measured jobs at every
    load the simulation ran, whatever its verdict: what they mean is decided with
    the verdict (:mod:`straggler.study.verdict` masks them where the load is not
    stable). A load that was not run (:attr:`skipped`) has NaN estimates and 0 jobs.
    """

    loads: np.ndarray
    latency_mean: np.ndarray
    latency_mean_ci: np.ndarray
    latency_quantile: np.ndarray
    """shape (loads, len(QUANTILES)): the quantiles at the levels :data:`QUANTILES`"""
    cost_mean: np.ndarray
    cost_mean_ci: np.ndarray
    verdict: np.ndarray
    """per load: ``stable``, ``unstable``, ``undetermined`` (:data:`VERDICTS`), or ``""``
    when the load was skipped"""
    jobs: np.ndarray
    """jobs measured, summed over replications"""
    replications: np.ndarray
    """replications run (``simulation.precision`` may add some)"""
    jobs_to_verdict: np.ndarray
    """where the verdict is undetermined: measured jobs per replication that would
    decide it (NaN elsewhere)"""
    precision_achieved: np.ndarray
    """relative CI half-width of the mean latency, ``latency_mean_ci / latency_mean``"""
    skipped: np.ndarray
    """True where the load was not simulated: it lies above a load known unstable
    (by the simulation, or by the analysis's ``unstable_from``) and the policy's
    stability is monotone in the load"""
    reason: np.ndarray
    """why a load is unstable or undetermined: ``backlog`` (the monitor fired),
    ``capacity`` (an engine buffer filled up), ``cost`` (the measured server time
    per job reaches the N servers' capacity), ``short`` (too little evidence), or ``""``"""
    evidence: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    """per load, what the simulation's verdict rests on: ``monitor`` (stable: a run
    long enough to have seen growth; unstable: growth seen), ``idle`` (stable: the
    servers idled, :func:`.statistics.idle_evidence`), ``capacity``, ``cost``, ``short``
    or ``""``"""
    latency_quantile_ci: np.ndarray = field(default_factory=lambda: np.zeros((0, len(QUANTILES))))
    """(loads, len(QUANTILES)): CI half-widths of the quantiles, over the replications' own
    (:attr:`replication_quantiles`)"""
    idle_fraction: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the smallest over replications of the busiest pool's idle fraction
    as the measured arrivals found it"""
    replication_means: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 3)))
    """(loads, replications, 2): each replication's mean latency and mean server time
    per job (NaN where a replication does not exist), for paired comparisons"""
    replication_quantiles: np.ndarray = field(default_factory=lambda: np.zeros((0, len(QUANTILES), 0)))
    """(loads, len(QUANTILES), replications): each replication's latency quantiles (NaN
    where a replication does not exist), for paired comparisons; their Student-t spread
    over the replications is :attr:`latency_quantile_ci`"""
    copies_mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the mean number of copies a job launched (sent to a server)"""
    copies_mean_ci: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """its confidence-interval half-width"""
    extended_jobs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the measured jobs per replication of a run lengthened for a verdict
    (NaN: not lengthened)"""
    warmup_batches: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the most leading batches (of :data:`.statistics.N_BATCHES` per
    replication) MSER would delete in any replication (:func:`.statistics.warmup_batches`):
    more than half says the run had not settled"""
    warmup_jobs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the jobs each replication ran before its measured ones (the run length's,
    a fleet's plan, or longer where the run had not settled)"""
    end_states: list = field(default_factory=list)
    """per load, the replications' end states (R, :data:`.start.LEVELS`: each one's quantile
    table of its servers' work at the last arrival), or None where it was not run: what a
    larger system may start from (:mod:`.start`)"""
    engine: str = ""
    notes: list = field(default_factory=list)
    fresh_jobs: int = 0
    """measured jobs simulated by this call (the others were read from the store)"""

    @property
    def stable(self) -> np.ndarray:
        """1 stable, 0 unstable, NaN undetermined or not simulated."""
        return np.array([1.0 if v == "stable" else 0.0 if v == "unstable" else math.nan for v in self.verdict])

    def values(self) -> dict:
        """The simulated dataset variables before the verdicts are reconciled with
        the analysis (:func:`straggler.study.verdict.reconcile`)."""
        return {
            "latency_mean": self.latency_mean,
            "latency_mean_ci": self.latency_mean_ci,
            "latency_quantile": self.latency_quantile,
            "cost_mean": self.cost_mean,
            "cost_mean_ci": self.cost_mean_ci,
            "copies_mean": self.copies_mean,
            "copies_mean_ci": self.copies_mean_ci,
            "stable": self.stable,
            "jobs": self.jobs.astype(float),
            "replications": self.replications.astype(float),
            "jobs_to_verdict": self.jobs_to_verdict,
            "precision_achieved": self.precision_achieved,
            "idle_fraction": self.idle_fraction,
            "warmup_batches": self.warmup_batches,
            "latency_quantile_ci": self.latency_quantile_ci,
            "latency_replication_mean": self.replication_means[:, :, 0],
            "cost_replication_mean": self.replication_means[:, :, 1],
            "copies_replication_mean": self.replication_means[:, :, 2],
            "latency_replication_quantile": self.replication_quantiles,
        }
