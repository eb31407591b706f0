"""Simulation of one cell at every load: engines, replications, statistics.

    from straggler.simulation import simulate
    res = simulate(model, seed_sequence, jobs=200_000, warmup=20_000,
                   replications=4, confidence=0.95, alpha=alpha, tau=tau)

``model`` is a :class:`~straggler.model.CellModel`; ``seed_sequence`` is the
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
- :mod:`.cachekey`: ties numba's cache of the kernels to all their sources.

Engines: :func:`engine_for` picks one; the fast path covers FCFS per-server
queues for ZRed, KT, FRed, CoC, CoS, RIQ, FJ and Rer. The event-driven engine
(``simulation/events.py``) covers per-server PS for every simulated policy
(ZRed, KT, FRed, CoC, CoS, RIQ, FJ, Rer, Rep; its docstring gives the PS
semantics of each), central FCFS pool queues (ZRed, KT, FRed, Rer, Rep), Rep on
FCFS with preemptive-resume priority and CoC's PS bound systems. Not simulated:
KS (analytic only), central PS (no such model: a config error) and CoC, CoS, RIQ,
FJ with central queueing (they pick d of the N servers: impossible grid
points). The event engine appends a factory returning
``Engine(name, supports, kernel)`` to :data:`ENGINES` (after the fast path, so
the fast path keeps the models it supports; ``simulate(..., engine=name)``
forces one, to cross-check them). The kernel follows the contract in
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from . import statistics
from .encode import I_CHECK, Encoded
from .encode import encode as encode_model
from .statistics import QUANTILES
from .streams import replication_streams

__all__ = ["simulate", "SimulationResult", "engine_for", "ENGINES", "load_seed_sequence",
           "run_replication", "replication_seeds", "encode_model", "Encoded", "QUANTILES"]


@dataclass(frozen=True)
class Engine:
    """A simulation engine: ``supports(model) -> bool`` and a numba kernel that
    follows the contract of :mod:`.fast` (``kernel(*encoded.kernel_args(), lam,
    warmup, jobs, acc, batches, hist, mon, trace, rngs)``)."""

    name: str
    supports: object
    kernel: object


def _fast_engine() -> Engine:
    from . import fast

    return Engine("fast", fast.supports, fast.run)


#: engine factories, tried in order; the event-driven engine appends itself here
ENGINES: list = [_fast_engine]


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
            raise NotImplementedError(f"engine {name!r} does not support policy {model.policy} "
                                      f"with discipline {model.discipline}, queueing {model.queueing}")
    if name is not None:
        raise NotImplementedError(f"no simulation engine called {name!r} "
                                  f"(known: {[f().name for f in ENGINES]})")
    raise NotImplementedError(
        f"no simulation engine for policy {model.policy} with discipline {model.discipline}, "
        f"queueing {model.queueing}"
        + (f", ps_bound {model.params.get('ps_bound')}" if model.params.get("ps_bound") else "")
        + ": the fast path covers FCFS per-server ZRed, KT, FRed, CoC, CoS, RIQ, FJ and Rer; "
        "the event-driven engine per-server PS (all of these and Rep), central FCFS ZRed, KT, "
        "FRed, Rer and Rep, FCFS Rep and CoC's PS bound systems"
    )


@dataclass
class SimulationResult:
    """Per-load simulation results (arrays over ``loads``)."""

    loads: np.ndarray
    latency_mean: np.ndarray
    latency_mean_ci: np.ndarray
    latency_quantile: np.ndarray
    """shape (loads, 3): the quantiles :data:`QUANTILES` (0.5, 0.9, 0.99)"""
    cost_mean: np.ndarray
    cost_mean_ci: np.ndarray
    stable: np.ndarray
    """1 stable, 0 the backlog grows (the estimates are then NaN)"""
    jobs: np.ndarray
    """jobs measured, summed over replications"""
    engine: str = ""
    notes: list = field(default_factory=list)

    def values(self) -> dict:
        """The dataset variables (DESIGN.md), for :func:`straggler.dataset.cell_dataset`."""
        return {
            "latency_mean": self.latency_mean,
            "latency_mean_ci": self.latency_mean_ci,
            "latency_quantile": self.latency_quantile,
            "cost_mean": self.cost_mean,
            "cost_mean_ci": self.cost_mean_ci,
            "stable": self.stable.astype(float),
            "jobs": self.jobs.astype(float),
        }


def load_seed_sequence(seed_sequence: np.random.SeedSequence, load: float) -> np.random.SeedSequence:
    """The stream of one load: the cell's entropy and spawn key plus the load's key."""
    key = repr(float(load)).encode()
    digest = hashlib.sha256(key).digest()
    words = tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))
    return np.random.SeedSequence(entropy=seed_sequence.entropy,
                                  spawn_key=tuple(seed_sequence.spawn_key) + words)


def replication_seeds(seed_sequence, load: float, replications: int) -> list:
    """The SeedSequence of each replication of one load."""
    return load_seed_sequence(seed_sequence, load).spawn(int(replications))


def run_replication(kernel, enc: Encoded, lam: float, warmup: int, jobs: int,
                    seed, trace: int = 0):
    """One replication with a kernel; returns ``(Accumulator, trace array)``.

    ``seed`` is the replication's ``SeedSequence`` (its streams come from
    :func:`.streams.replication_streams`) or already the tuple of streams."""
    rngs = replication_streams(seed) if isinstance(seed, np.random.SeedSequence) else tuple(seed)
    acc = statistics.new_accumulator()
    total = int(warmup) + int(jobs)
    check = int(enc.ints[I_CHECK])
    mon = statistics.new_monitor(total, check)
    tr = np.zeros((int(trace), 2))
    kernel(*enc.kernel_args(), float(lam), int(warmup), int(jobs),
           acc.acc, acc.batches, acc.hist, mon, tr, rngs)
    return acc, tr


def simulate(model, seed_sequence, jobs: int, warmup: int, replications: int,
             confidence: float, alpha=None, tau=None, workers: int = 1,
             engine: str | None = None, keep=None) -> SimulationResult:
    """Simulate ``model`` at each of its loads (see the module docstring).

    ``jobs`` and ``warmup`` are per replication. ``workers > 1`` runs the
    replications in threads (the kernels release the GIL); the results do not
    depend on it. Loads above the analytic bound are simulated too: the backlog
    monitor stops them early and reports ``stable = 0``. ``engine`` forces an
    engine by name (``"fast"``, or the event engine's) instead of the first that
    supports the model. ``keep`` is FJ's kept tasks that the analysis chose
    (``keep: opt``): an integer, or one per load.
    """
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if int(jobs) < 1 or int(warmup) < 0 or int(replications) < 1:
        raise ValueError(f"need jobs >= 1, warmup >= 0, replications >= 1; got "
                         f"{jobs}, {warmup}, {replications}")
    engine = engine_for(model, engine)
    loads = np.asarray(model.loads, dtype=float)
    if keep is None or np.ndim(keep) == 0:
        encs = [encode_model(model, alpha=alpha, tau=tau, keep=keep)] * len(loads)
    else:
        if len(keep) != len(loads):
            raise ValueError(f"keep needs one value per load ({len(loads)}), got {list(keep)}")
        # the strategy's choice depends on the arrival rate: one encoding per load
        encs = [encode_model(model, alpha=alpha, tau=tau, keep=int(r)) for r in keep]
    enc = encs[0] if encs else encode_model(model, alpha=alpha, tau=tau, keep=keep)
    # the model's own conversion: nominal load (split FJ: of the unsplit job) or rho~
    rates = np.asarray(model.rates(), dtype=float)
    tasks = []
    for li, load in enumerate(loads):
        if not (math.isfinite(rates[li]) and rates[li] > 0):
            raise ValueError(f"load must be finite and > 0, got {load!r}")
        for r, seed in enumerate(replication_seeds(seed_sequence, load, replications)):
            tasks.append((li, r, rates[li], seed))

    def one(task):
        li, r, lam, seed = task
        acc, _ = run_replication(engine.kernel, encs[li], lam, warmup, jobs, seed)
        return acc

    if workers > 1 and len(tasks) > 1:
        with ThreadPoolExecutor(max_workers=int(workers)) as pool:
            accs = list(pool.map(one, tasks))
    else:
        accs = [one(t) for t in tasks]

    L = len(loads)
    out = {name: np.full(L, math.nan) for name in
           ("latency_mean", "latency_mean_ci", "cost_mean", "cost_mean_ci")}
    quant = np.full((L, len(QUANTILES)), math.nan)
    stable = np.zeros(L, dtype=np.int64)
    njobs = np.zeros(L, dtype=np.int64)
    for li in range(L):
        mine = [a for (l2, _, _, _), a in zip(tasks, accs) if l2 == li]
        s = statistics.summarize(mine, confidence)
        for name in out:
            out[name][li] = s[name]
        quant[li] = s["latency_quantile"]
        stable[li] = s["stable"]
        njobs[li] = s["jobs"]
    return SimulationResult(loads=loads, latency_quantile=quant, stable=stable, jobs=njobs,
                            engine=engine.name, **out)


from . import events as _events  # noqa: E402,F401  (appends the event engine to ENGINES)
