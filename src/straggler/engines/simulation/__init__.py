"""Simulation of one cell at every load: engines, replications, statistics.

    from straggler.engines.simulation import simulate
    res = simulate(model, seed_sequence, jobs=200_000, warmup=20_000,
                   replications=4, confidence=0.95, alpha=alpha, tau=tau)

``model`` is a :class:`~straggler.model.cell_model.CellModel`; ``seed_sequence`` is the
cell's :func:`straggler.study.grid.seed_sequence`; ``alpha`` (2 x J matrix, or per-class
q) and ``tau`` are the assignment and threshold that the analysis chose (see
:func:`.encode.resolve_alpha`, :func:`.encode.resolve_tau`).

Layout of the package:

- :mod:`.driver`: :func:`simulate` and :func:`simulate_shard`, the loads in
  order, their replications, run lengths and summaries;
- :mod:`.engines`: the engines and which one simulates a model;
- :mod:`.load`: one load ready to simulate, and the verdict of its replications;
- :mod:`.run_length`: how long a load runs, and the budgets that lengthen it;
- :mod:`.replication`: one replication, an engine's kernel on its streams;
- :mod:`.result`: :class:`SimulationResult`, the per-load results;
- :mod:`.store`: the replications kept on disk (shards, reruns);
- :mod:`.encode`: the model as kernel data (policy codes, pools, speeds, types,
  assignment, thresholds, sampler arguments);
- :mod:`.statistics`: accumulators (running sums, batch means, a log-spaced
  latency histogram), the backlog monitor and the per-load summary;
- :mod:`.streams`: the seeds of a load's replications and the five random
  streams of a replication, read in blocks;
- :mod:`.contract`: the kernel contract that every engine follows (its arguments,
  what it writes) and the random-number contract;
- :mod:`.fast`: the FCFS per-server fast path (workload recursion), its job loops
  per policy family in :mod:`.fast_chunks`;
- :mod:`.events`: the event-driven engine's events and loop, its state in
  :mod:`.events_state`, its arrivals' routing in :mod:`.events_routing`;
- :mod:`.reference`: slow, event-driven pure-Python simulators (per-server FCFS
  and PS) used by the tests (and :func:`.reference.make_model`, a CellModel
  without a config);
- the kernels are cached by numba in a folder per digest of their sources
  (:mod:`straggler.common.kernel_cache`).

Engines: :func:`engine_for` picks one; which engine simulates which policy in
which setting is decided by data: a policy's ``PolicySpec.simulated_in`` (what it
needs in each setting) against each engine's features (:mod:`straggler.engines.registry`,
listed by :func:`coverage`): the fast path covers FCFS per-server queues for the
policies whose dynamics follow the workload recursion; the event-driven engine
(``simulation/events.py``) covers per-server PS for every simulated policy (its
docstring gives the PS semantics of each), central FCFS pool queues for the pool
policies, Rep on FCFS with preemptive-resume priority and CoC's PS bound
systems. Not simulated: the analytic-only policies, central PS (no such model: a
config error) and the d-of-N policies with central queueing (they pick d of the
N servers: impossible grid points). :data:`ENGINES` lists the engines in the order they are tried, and
``engines.KERNELS`` imports an engine's kernel only when asked
(the fast path first, so it keeps the models it supports; ``simulate(...,
engine=name)`` forces one, to cross-check them). The kernel follows the contract in
:mod:`.contract`; the driver does the rest (seeds, replications, summaries).

Random streams: load ``x`` (keyed by ``repr(float(x))``, so a load's result does
not depend on which other loads exist or on their order) gets the
``SeedSequence`` with the cell's entropy and the cell's spawn key extended by
four words of the SHA-256 of that key; replication r uses its r-th spawned child,
whose five children seed the replication's random streams (:mod:`.streams`:
arrivals, routing, sizes, slowdowns, coupling), so replication r does not depend on how
many replications there are either. Results are bitwise
reproducible for the same inputs, in any process, with any number of workers.
"""

from __future__ import annotations

from . import statistics
from .driver import simulate, simulate_shard
from .encode import Encoded
from .encode import encode as encode_model
from .engines import ENGINES, Engine, coverage, engine_for
from .load import load_jobs_for_verdict, load_verdict, monitor_scale
from .replication import run_replication
from .result import VERDICTS, SimulationResult
from .run_length import MAX_ROUNDS, VERDICT_FACTOR, KnownStability, RunLength
from .statistics import QUANTILES
from .streams import load_seed_sequence, replication_seeds

__all__ = [
    "KnownStability",
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
    "Engine",
    "coverage",
    "VERDICTS",
    "RunLength",
    "MAX_ROUNDS",
    "VERDICT_FACTOR",
    "monitor_scale",
    "load_verdict",
    "load_jobs_for_verdict",
    "statistics",
]
