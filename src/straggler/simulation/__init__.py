"""Simulation of one cell at every load: engines, replications, statistics.

    from straggler.simulation import simulate
    res = simulate(model, seed_sequence, jobs=200_000, warmup=20_000,
                   replications=4, confidence=0.95, alpha=alpha, tau=tau)

``model`` is a :class:`~straggler.system.CellModel`; ``seed_sequence`` is the
cell's :func:`straggler.grid.seed_sequence`; ``alpha`` (2 x J matrix, or per-class
q) and ``tau`` are the assignment and threshold that the analysis chose (see
:func:`.encode.resolve_alpha`, :func:`.encode.resolve_tau`).

Layout of the package:

- :mod:`.encode`: the model as kernel data (policy codes, pools, speeds, types,
  assignment, thresholds, sampler arguments);
- :mod:`.statistics`: accumulators (running sums, batch means, a log-spaced
  latency histogram), the backlog monitor and the per-load summary;
- :mod:`.streams`: the four random streams of a replication, read in blocks;
- :mod:`.fast`: the FCFS per-server fast path (workload recursion), and the
  kernel contract that every engine follows;
- :mod:`.reference`: slow, event-driven pure-Python simulators (per-server FCFS
  and PS) used by the tests (and :func:`.reference.make_model`, a CellModel
  without a config);
- the kernels are cached by numba in a folder per digest of their sources
  (:mod:`straggler.kernel_cache`).

Engines: :func:`engine_for` picks one; which engine simulates which policy in
which setting is the registry's (``PolicySpec.engines`` in :mod:`straggler.policies`,
listed by :func:`coverage`): the fast path covers FCFS per-server queues for the
policies whose dynamics follow the workload recursion; the event-driven engine
(``simulation/events.py``) covers per-server PS for every simulated policy (its
docstring gives the PS semantics of each), central FCFS pool queues for the pool
policies, Rep on FCFS with preemptive-resume priority and CoC's PS bound
systems. Not simulated: the analytic-only policies, central PS (no such model: a
config error) and the d-of-N policies with central queueing (they pick d of the
N servers: impossible grid points). :data:`ENGINES` lists one factory per engine, each returning
``Engine(name, supports, kernel)`` and importing its module only when asked
(the fast path first, so it keeps the models it supports; ``simulate(...,
engine=name)`` forces one, to cross-check them). The kernel follows the contract in
:mod:`.fast`; the driver does the rest (seeds, replications, summaries).

Random streams: load ``x`` (keyed by ``repr(float(x))``, so a load's result does
not depend on which other loads exist or on their order) gets the
``SeedSequence`` with the cell's entropy and the cell's spawn key extended by
four words of the SHA-256 of that key; replication r uses its r-th spawned child,
whose four children seed the replication's random streams (:mod:`.streams`:
arrivals, routing, sizes, slowdowns), so replication r does not depend on how
many replications there are either. Results are bitwise
reproducible for the same inputs, in any process, with any number of workers.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..policies import POLICIES
from . import statistics
from .encode import I_CHECK, Encoded
from .encode import encode as encode_model
from .statistics import QUANTILES
from .store import Replications
from .streams import replication_streams

__all__ = [
    "simulate",
    "simulate_shard",
    "SimulationResult",
    "engine_for",
    "ENGINES",
    "load_seed_sequence",
    "run_replication",
    "replication_seeds",
    "encode_model",
    "Encoded",
    "QUANTILES",
]


@dataclass(frozen=True)
class Engine:
    """A simulation engine: ``supports(model) -> bool`` and a numba kernel that
    follows the contract of :mod:`.fast` (``kernel(*encoded.kernel_args(), lam,
    warmup, jobs, acc, batches, hist, mon, trace, rngs)``)."""

    name: str
    supports: Callable[..., bool]
    kernel: Callable[..., None]


def _fast_engine() -> Engine:
    from . import fast

    return Engine("fast", fast.supports, fast.run)


def _event_engine() -> Engine:
    from . import events

    return Engine(events.NAME, events.supports, events.run)


#: engine factories, tried in order: the fast path keeps the models it supports
ENGINES: list = [_fast_engine, _event_engine]


def engine_for(model, name: str | None = None) -> Engine:
    """The first engine that supports ``model`` (or the engine called ``name``,
    to cross-check engines); NotImplementedError otherwise."""
    for factory in ENGINES:
        engine = factory()
        if name is not None and engine.name != name:
            continue
        if engine.supports(model):
            return engine
        if name is not None:
            raise NotImplementedError(
                f"engine {name!r} does not support policy {model.policy} "
                f"with discipline {model.discipline}, queueing {model.queueing}"
            )
    if name is not None:
        raise NotImplementedError(f"no simulation engine called {name!r} (known: {[f().name for f in ENGINES]})")
    raise NotImplementedError(
        f"no simulation engine for policy {model.policy} with discipline {model.discipline}, "
        f"queueing {model.queueing}"
        + (f", ps_bound {model.params.get('ps_bound')}" if model.params.get("ps_bound") else "")
        + f"; the engines cover {coverage()} and CoC's PS bound systems (per-server PS)"
    )


def coverage() -> str:
    """What each engine simulates, from the registry (``PolicySpec.engines``)."""
    parts = []
    for engine, label in (("fast", "the fast path"), ("events", "the event-driven engine")):
        by_setting: dict[tuple[str, str], list[str]] = {}
        for name, spec in POLICIES.items():
            for setting in spec.engines.get(engine, ()):
                by_setting.setdefault(setting, []).append(name)
        settings = "; ".join(f"{d} {q}: {', '.join(names)}" for (d, q), names in by_setting.items())
        parts.append(f"{label} ({settings})")
    return ", ".join(parts)


VERDICTS = ("stable", "unstable", "undetermined")
"""A load's simulation verdict (``""``: not simulated, see :attr:`SimulationResult.skipped`)."""


@dataclass
class SimulationResult:
    """Per-load simulation results (arrays over ``loads``).

    The estimates are the pooled sample statistics of the measured jobs at every
    load the simulation ran, whatever its verdict: what they mean is decided with
    the verdict (:mod:`straggler.verdict` masks them where the load is not
    stable). A load that was not run (:attr:`skipped`) has NaN estimates and 0 jobs.
    """

    loads: np.ndarray
    latency_mean: np.ndarray
    latency_mean_ci: np.ndarray
    latency_quantile: np.ndarray
    """shape (loads, 3): the quantiles :data:`QUANTILES` (0.5, 0.9, 0.99)"""
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
    """(loads, 3): CI half-widths of the quantiles, over the replications' own"""
    idle_fraction: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the smallest over replications of the busiest pool's idle fraction
    as the measured arrivals found it"""
    replication_means: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    """(loads, replications, 2): each replication's mean latency and mean server time
    per job (NaN where a replication does not exist), for paired comparisons"""
    extended_jobs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """per load, the measured jobs per replication of a run lengthened for a verdict
    (NaN: not lengthened)"""
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
        the analysis (:func:`straggler.verdict.reconcile`)."""
        return {
            "latency_mean": self.latency_mean,
            "latency_mean_ci": self.latency_mean_ci,
            "latency_quantile": self.latency_quantile,
            "cost_mean": self.cost_mean,
            "cost_mean_ci": self.cost_mean_ci,
            "stable": self.stable,
            "jobs": self.jobs.astype(float),
            "replications": self.replications.astype(float),
            "jobs_to_verdict": self.jobs_to_verdict,
            "precision_achieved": self.precision_achieved,
            "idle_fraction": self.idle_fraction,
            "latency_quantile_ci": self.latency_quantile_ci,
            "latency_replication_mean": self.replication_means[:, :, 0],
            "cost_replication_mean": self.replication_means[:, :, 1],
        }


def load_seed_sequence(seed_sequence: np.random.SeedSequence, load: float) -> np.random.SeedSequence:
    """The stream of one load: the cell's entropy and spawn key plus the load's key."""
    key = repr(float(load)).encode()
    digest = hashlib.sha256(key).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
    return np.random.SeedSequence(entropy=seed_sequence.entropy, spawn_key=tuple(seed_sequence.spawn_key) + words)


def replication_seeds(seed_sequence, load: float, replications: int) -> list:
    """The SeedSequence of each replication of one load."""
    return load_seed_sequence(seed_sequence, load).spawn(int(replications))


def run_replication(kernel, enc: Encoded, lam: float, warmup: int, jobs: int, seed, trace: int = 0):
    """One replication with a kernel; returns ``(Accumulator, trace array)``.

    ``seed`` is the replication's ``SeedSequence`` (its streams come from
    :func:`.streams.replication_streams`) or already the tuple of streams."""
    rngs = replication_streams(seed) if isinstance(seed, np.random.SeedSequence) else tuple(seed)
    acc = statistics.new_accumulator()
    total = int(warmup) + int(jobs)
    check = int(enc.ints[I_CHECK])
    mon = statistics.new_monitor(total, check)
    tr = np.zeros((int(trace), 2))
    kernel(*enc.kernel_args(), float(lam), int(warmup), int(jobs), acc.acc, acc.batches, acc.hist, mon, tr, rngs)
    return acc, tr


@dataclass(frozen=True)
class RunLength:
    """How long each load runs: ``replications`` of ``jobs`` measured jobs after
    ``warmup``; with ``precision`` (a relative CI half-width of the mean latency),
    replications are lengthened or added until the verdict is determined and the
    target met, up to ``max_jobs`` measured jobs per load (see :func:`simulate`)."""

    jobs: int
    warmup: int
    replications: int
    confidence: float = 0.95
    precision: float | None = None
    max_jobs: int | None = None

    def __post_init__(self):
        if not 0.0 < float(self.confidence) < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence!r}")
        if int(self.jobs) < 1 or int(self.warmup) < 0 or int(self.replications) < 1:
            raise ValueError(
                f"need jobs >= 1, warmup >= 0, replications >= 1; got {self.jobs}, {self.warmup}, {self.replications}"
            )
        if self.precision is not None and not float(self.precision) > 0:
            raise ValueError(f"precision must be > 0, got {self.precision!r}")

    @property
    def budget(self) -> int:
        """Measured jobs a load may use (precision mode)."""
        if self.max_jobs is None:
            return 100 * int(self.jobs) * int(self.replications)
        return int(self.max_jobs)

    @property
    def verdict_budget(self) -> int:
        """Measured jobs a load may use to decide its verdict at the fixed length:
        ``max_jobs``, by default :data:`VERDICT_FACTOR` times the fixed budget."""
        if self.max_jobs is None:
            return VERDICT_FACTOR * int(self.jobs) * int(self.replications)
        return int(self.max_jobs)


MAX_ROUNDS = 12
"""Precision mode: at most this many rounds of lengthening or adding replications."""

VERDICT_FACTOR = 10
"""A fixed-length load still undetermined is run longer, up to this many times its
fixed budget of measured jobs (``simulation.max_jobs`` sets the cap)."""


def monitor_scale(enc: Encoded) -> tuple[float, int, int]:
    """(monitor wait, servers, smallest pool) of an encoded model."""
    from .encode import F_MONITOR_WAIT, I_N, I_POOL0, I_POOLS

    N = int(enc.ints[I_N])
    starts = [int(v) for v in enc.ints[I_POOL0 : I_POOL0 + int(enc.ints[I_POOLS]) + 1]]
    pool = min(b - a for a, b in zip(starts, starts[1:]))
    return float(enc.flts[F_MONITOR_WAIT]), N, max(pool, 1)


def load_verdict(rec: Replications, load: _Load, warmup: int) -> tuple[str, float, str]:
    """``(verdict, miss probability, evidence)`` of a load's replications (see
    :func:`.statistics.simulation_verdict`); evidence ``monitor`` or ``idle`` for a
    stable load."""
    from .encode import I_POOLS

    wait, servers, pool = monitor_scale(load.enc)
    pools = int(load.enc.ints[I_POOLS])
    return statistics.verdict_with_evidence(rec, wait, servers, pool, load.rate, warmup, pools)


def load_jobs_for_verdict(rec: Replications, load: _Load, warmup: int) -> float:
    """Measured jobs per replication that would decide the load (see
    :func:`.statistics.jobs_for_verdict`)."""
    from .encode import I_POOLS

    wait, servers, pool = monitor_scale(load.enc)
    return statistics.jobs_for_verdict(rec, wait, servers, pool, warmup, load.rate, int(load.enc.ints[I_POOLS]))


@dataclass
class _Load:
    """One load of a cell, ready to simulate."""

    value: float
    rate: float
    enc: Encoded
    keep: object
    """FJ's kept tasks when chosen per load (part of the store's path), else None"""
    seeds: Callable[..., list]
    """``seeds(n)``: the SeedSequences of replications 0 .. n - 1"""


class _Driver:
    """Runs a cell's replications (in this process, or from the store)."""

    def __init__(self, engine: Engine, length: RunLength, workers: int, store=None):
        self.engine, self.length, self.workers, self.store = engine, length, workers, store
        self.fresh_jobs = 0

    def run(self, load: _Load, indices, jobs: int) -> Replications:
        """Replications ``indices`` of ``load`` with ``jobs`` measured jobs each."""
        indices = list(indices)
        if not indices:
            return Replications.empty(jobs)
        seeds = load.seeds(max(indices) + 1)

        def one(r):
            acc, _ = run_replication(self.engine.kernel, load.enc, load.rate, self.length.warmup, jobs, seeds[r])
            return acc

        if self.workers > 1 and len(indices) > 1:
            with ThreadPoolExecutor(max_workers=int(self.workers)) as executor:
                accs = list(executor.map(one, indices))
        else:
            accs = [one(r) for r in indices]
        self.fresh_jobs += int(sum(a.acc[statistics.A_N] for a in accs))
        return Replications.of(indices, accs, jobs)

    def fixed(self, load: _Load, first: int, stop: int) -> Replications:
        """Replications ``first .. stop - 1`` at the configured length, from the store
        when it holds them (then written back when computed)."""
        jobs = int(self.length.jobs)
        if self.store is not None:
            kept = self.store.read(load.value, load.keep, first, stop, jobs)
            if kept is not None:
                return kept
        rec = self.run(load, range(first, stop), jobs)
        if self.store is not None:
            self.store.write(load.value, load.keep, rec)
        return rec

    def extended(self, load: _Load, rec: Replications) -> Replications:
        """The fixed replications of an undetermined load run longer (the same
        streams: the length its verdict needs, plus 10 %) until the verdict is decided
        or :attr:`RunLength.verdict_budget` would be exceeded; ``rec`` if no longer run
        fits. Each length is a function of the results so far, so of the seed."""
        length = self.length
        reps = len(rec)
        cap = length.verdict_budget // max(reps, 1)
        for _ in range(MAX_ROUNDS):
            verdict, _, _ = load_verdict(rec, load, length.warmup)
            if verdict != "undetermined":
                break
            need = load_jobs_for_verdict(rec, load, length.warmup)
            if not math.isfinite(need):
                break
            longer = min(int(math.ceil(1.1 * need)), cap)
            if not longer > rec.jobs:
                break
            name = f"extended-{longer}"
            kept = self.store.read_named(load.value, load.keep, name) if self.store is not None else None
            if kept is not None and len(kept) == reps:
                rec = kept
                continue
            rec = self.run(load, range(reps), longer)
            if self.store is not None:
                self.store.write_named(load.value, load.keep, name, rec)
        return rec

    def sequential(self, load: _Load, stable_below: bool) -> Replications:
        """Precision mode (see :func:`simulate`)."""
        if self.store is not None:
            kept = self.store.read_precision(load.value, load.keep)
            if kept is not None:
                return kept
        length = self.length
        reps, jobs = int(length.replications), int(length.jobs)
        rec = self.fixed(load, 0, reps)
        for _ in range(MAX_ROUNDS):
            verdict, _, _ = load_verdict(rec, load, length.warmup)
            if verdict == "unstable":
                break
            if verdict == "undetermined" and not stable_below:
                need = load_jobs_for_verdict(rec, load, length.warmup)
                longer = min(int(math.ceil(1.1 * need)), length.budget // reps)
                if not longer > jobs:
                    break
                jobs = longer  # the same replications, run longer (the same streams)
                rec = self.run(load, range(reps), jobs)
                continue
            s = statistics.summarize(rec, length.confidence)
            half, mean = s["latency_mean_ci"], s["latency_mean"]
            if not (math.isfinite(half) and mean > 0) or half <= float(length.precision) * mean:
                break
            more = math.ceil(len(rec) * (half / (float(length.precision) * mean)) ** 2)
            more = min(max(more, len(rec) + 1), length.budget // jobs)
            if more <= len(rec):
                break
            rec = Replications.join([rec, self.run(load, range(len(rec), more), jobs)])
        if self.store is not None:
            self.store.write_precision(load.value, load.keep, rec)
        return rec


def _summary(rec: Replications, load: _Load, length: RunLength) -> dict:
    """A load's estimates and simulation verdict from its replications."""
    _, servers, _ = monitor_scale(load.enc)
    s = statistics.summarize(rec, length.confidence)
    verdict, _, evidence = load_verdict(rec, load, length.warmup)
    reason = ""
    if verdict == "unstable":
        stops = {int(row[statistics.A_REASON]) for row in rec.acc}
        reason = "capacity" if statistics.STOP_CAPACITY in stops else "backlog"
    elif verdict == "undetermined":
        reason = "short"
    # lambda E[C] < N servers is necessary for stability: a measured cost at or above
    # it contradicts a stable verdict (outright when its CI lies above)
    if verdict != "unstable" and math.isfinite(s["cost_mean"]):
        utilisation = load.rate * s["cost_mean"] / servers
        low = load.rate * (s["cost_mean"] - (s["cost_mean_ci"] if math.isfinite(s["cost_mean_ci"]) else 0.0)) / servers
        if low >= 1.0:
            verdict, reason = "unstable", "cost"
        elif utilisation >= 1.0:
            verdict, reason = "undetermined", "cost"
    s["jobs_to_verdict"] = load_jobs_for_verdict(rec, load, length.warmup) if reason == "short" else math.nan
    s["verdict"], s["reason"], s["replications"] = verdict, reason, len(rec)
    s["evidence"] = evidence if verdict == "stable" else ("monitor" if reason == "backlog" else reason)
    from .encode import I_POOLS

    idle = statistics.idle_fraction(rec, int(load.enc.ints[I_POOLS]))
    s["idle_fraction"] = float(np.min(idle)) if len(idle) and np.isfinite(idle).all() else math.nan
    return s


def _loads(model, seed_sequence, alpha, tau, keep, engine_name) -> tuple[Engine, list[_Load]]:
    engine = engine_for(model, engine_name)
    loads = np.asarray(model.loads, dtype=float)
    per_load = keep is not None and np.ndim(keep) > 0
    if not per_load:
        encs = [encode_model(model, alpha=alpha, tau=tau, keep=keep)] * len(loads)
    else:
        if len(keep) != len(loads):
            raise ValueError(f"keep needs one value per load ({len(loads)}), got {list(keep)}")
        # the strategy's choice depends on the arrival rate: one encoding per load
        encs = [encode_model(model, alpha=alpha, tau=tau, keep=int(r)) for r in keep]
    # the model's own conversion: nominal load (split FJ: of the unsplit job) or rho~
    rates = np.asarray(model.rates(), dtype=float)
    out = []
    for li, load in enumerate(loads):
        if not (math.isfinite(rates[li]) and rates[li] > 0):
            raise ValueError(f"load must be finite and > 0, got {load!r}")
        out.append(
            _Load(
                float(load),
                float(rates[li]),
                encs[li],
                int(keep[li]) if per_load else None,
                lambda n, load=load: replication_seeds(seed_sequence, load, n),
            )
        )
    return engine, out


def simulate(
    model,
    seed_sequence,
    jobs: int,
    warmup: int,
    replications: int,
    confidence: float,
    alpha=None,
    tau=None,
    workers: int = 1,
    engine: str | None = None,
    keep=None,
    unstable_from: float | None = None,
    stable_below: float | None = None,
    monotone: bool = True,
    precision: float | None = None,
    max_jobs: int | None = None,
    store=None,
) -> SimulationResult:
    """Simulate ``model`` at each of its loads (see the module docstring).

    ``jobs`` and ``warmup`` are per replication. ``workers > 1`` runs the
    replications of a load in threads (the kernels release the GIL); the results
    do not depend on it. ``engine`` forces an engine by name (``"fast"``, or the
    event engine's) instead of the first that supports the model. ``keep`` is FJ's
    kept tasks that the analysis chose (``keep: opt``): an integer, or one per load.
    ``store`` (a :class:`.store.Store`) keeps the replications: those it holds are
    read instead of run (e.g. the shards of :func:`simulate_shard`), the others are
    run and written to it.

    Loads run in increasing order. With ``monotone`` (the policy's stability is
    monotone in the load: :func:`straggler.policies.stability_monotone`), the
    loads above the first one found unstable, and those above ``unstable_from``
    (the smallest load the analysis proves unstable, which is itself simulated), are
    not simulated (``skipped``). ``stable_below``: the analysis proves loads below it
    stable (``lambda_sufficient``), so precision mode does not lengthen their runs
    for a verdict.

    ``precision`` (relative CI half-width of the mean latency) turns on sequential
    stopping: a load whose verdict is undetermined reruns its replications longer
    (the same streams: the length that the verdict rule needs, plus 10 %), and a
    stable load whose CI is wider than the target adds replications (as many as
    the CI's square-root law asks for), until both hold, the load is found
    unstable, or ``max_jobs`` measured jobs (default: 100 times the fixed
    budget) would be exceeded. Every decision is a function of the results so far,
    which are a function of the seed: the result does not depend on ``workers``.
    """
    length = RunLength(
        int(jobs),
        int(warmup),
        int(replications),
        float(confidence),
        None if precision is None else float(precision),
        None if max_jobs is None else int(max_jobs),
    )
    chosen, loads = _loads(model, seed_sequence, alpha, tau, keep, engine)
    driver = _Driver(chosen, length, workers, store)
    L = len(loads)
    order = list(np.argsort([ld.value for ld in loads], kind="stable"))
    records: dict[int, Replications] = {}
    summaries: dict[int, dict] = {}
    skipped = np.zeros(L, dtype=bool)
    seen_unstable = False
    for li in order:
        load = loads[li]
        if monotone and (seen_unstable or (unstable_from is not None and load.value > unstable_from)):
            skipped[li] = True
            continue
        below = stable_below is not None and load.value < stable_below
        rec = (
            driver.sequential(load, below)
            if length.precision is not None
            else driver.fixed(load, 0, length.replications)
        )
        records[li], summaries[li] = rec, _summary(rec, load, length)
        seen_unstable = seen_unstable or summaries[li]["verdict"] == "unstable"
    extended = np.full(L, math.nan)
    if length.precision is None:
        # the loads still undetermined run longer, the highest first: where stability
        # is monotone, a stable load decides every load below it (straggler.verdict)
        stable_above = False
        for li in reversed(order):
            if li not in summaries:
                continue
            s = summaries[li]
            below = stable_below is not None and loads[li].value < stable_below
            if s["verdict"] == "undetermined" and s["reason"] == "short" and not below:
                if not (monotone and stable_above):
                    rec = driver.extended(loads[li], records[li])
                    if rec is not records[li]:
                        records[li], summaries[li] = rec, _summary(rec, loads[li], length)
                        extended[li] = float(rec.jobs)
            stable_above = stable_above or summaries[li]["verdict"] == "stable"
    out: dict[str, Any] = {
        name: np.full(L, math.nan)
        for name in (
            "latency_mean",
            "latency_mean_ci",
            "cost_mean",
            "cost_mean_ci",
            "jobs_to_verdict",
            "precision_achieved",
            "idle_fraction",
        )
    }
    quant = np.full((L, len(QUANTILES)), math.nan)
    quant_ci = np.full((L, len(QUANTILES)), math.nan)
    verdict = np.full(L, "", dtype=object)
    reason = np.full(L, "", dtype=object)
    evidence = np.full(L, "", dtype=object)
    njobs = np.zeros(L, dtype=np.int64)
    nreps = np.zeros(L, dtype=np.int64)
    width = max([len(r) for r in records.values()] + [int(length.replications)])
    means = np.full((L, width, 2), math.nan)
    for li, s in summaries.items():
        for name in ("latency_mean", "latency_mean_ci", "cost_mean", "cost_mean_ci", "jobs_to_verdict"):
            out[name][li] = s[name]
        mean, half = s["latency_mean"], s["latency_mean_ci"]
        out["precision_achieved"][li] = half / mean if mean > 0 else math.nan
        out["idle_fraction"][li] = s["idle_fraction"]
        quant[li] = s["latency_quantile"]
        quant_ci[li] = s["latency_quantile_ci"]
        verdict[li], reason[li], evidence[li] = s["verdict"], s["reason"], s["evidence"]
        njobs[li], nreps[li] = s["jobs"], s["replications"]
        rec = records[li]
        positions = rec.index.astype(int)
        ok = positions < width
        means[li, positions[ok]] = statistics.replication_means(rec)[ok]
    return SimulationResult(
        loads=np.array([ld.value for ld in loads]),
        latency_quantile=quant,
        latency_quantile_ci=quant_ci,
        verdict=verdict,
        jobs=njobs,
        replications=nreps,
        skipped=skipped,
        reason=reason,
        evidence=evidence,
        replication_means=means,
        extended_jobs=extended,
        engine=chosen.name,
        fresh_jobs=driver.fresh_jobs,
        **out,
    )


def simulate_shard(
    model,
    seed_sequence,
    first: int,
    stop: int,
    jobs: int,
    warmup: int,
    replications: int,
    store,
    alpha=None,
    tau=None,
    engine: str | None = None,
    keep=None,
    unstable_from: float | None = None,
    monotone: bool = True,
) -> int:
    """Run replications ``first .. stop - 1`` of every load into ``store`` (a shard of
    :func:`simulate`, which then reads them); returns the measured jobs simulated.

    Loads run in increasing order; with ``monotone`` a load above ``unstable_from``
    or above a load where one of these replications fired is not run: such a load is
    above the cell's first unstable load whatever the other shards find, so
    :func:`simulate` skips it too. Precision mode is sequential and is never split.
    """
    length = RunLength(int(jobs), int(warmup), int(replications))
    if not 0 <= first < stop <= length.replications:
        raise ValueError(f"shard {first}..{stop - 1} is not within the {replications} replications")
    chosen, loads = _loads(model, seed_sequence, alpha, tau, keep, engine)
    driver = _Driver(chosen, length, 1, store)
    for li in np.argsort([ld.value for ld in loads], kind="stable"):
        load = loads[li]
        if monotone and unstable_from is not None and load.value > unstable_from:
            continue
        rec = driver.fixed(load, first, stop)
        if monotone and rec.fired():
            break
    return driver.fresh_jobs
