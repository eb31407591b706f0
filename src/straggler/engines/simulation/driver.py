"""The simulation driver: a cell's loads run in order, replications, run lengths, summaries."""

from __future__ import annotations

import dataclasses
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from . import statistics
from .encode import I_POOLS
from .encode import encode as encode_model
from .engines import Engine, engine_for
from .load import Load, load_jobs_for_verdict, load_verdict, monitor_scale
from .replication import run_replication
from .result import SimulationResult
from .run_length import MAX_ROUNDS, MAX_SETTLE_ROUNDS, NOTHING_KNOWN, KnownStability, RunLength
from .start import EMPTY, Start
from .statistics import QUANTILES
from .store import Replications, Store
from .streams import replication_seeds


class _Driver:
    """Runs a cell's replications (in this process, or from the store)."""

    def __init__(self, engine: Engine, length: RunLength, workers: int, store: Store | None = None, tag: str = ""):
        self.engine, self.length, self.workers, self.store = engine, length, workers, store
        self.fresh_jobs = 0
        self.tag = tag
        """appended to the names of the files kept whole (``precision``, ``extended-<jobs>``):
        a load run on another number of replications than the study's keeps its own"""

    def run(self, load: Load, indices, jobs: int) -> Replications:
        """Replications ``indices`` of ``load`` with ``jobs`` measured jobs each."""
        indices = list(indices)
        if not indices:
            return Replications.empty(jobs)
        seeds = load.seeds(max(indices) + 1)

        def one(r):
            acc, _ = run_replication(
                self.engine.kernel, load.enc, load.rate, load.warmup, jobs, seeds[r], start=load.start
            )
            return acc

        if self.workers > 1 and len(indices) > 1:
            with ThreadPoolExecutor(max_workers=int(self.workers)) as executor:
                accs = list(executor.map(one, indices))
        else:
            accs = [one(r) for r in indices]
        self.fresh_jobs += int(sum(a.acc[statistics.A_N] for a in accs))
        return Replications.of(indices, accs, jobs)

    def fixed(self, load: Load, first: int, stop: int) -> Replications:
        """Replications ``first .. stop - 1`` at the configured length, from the store
        when it holds them (then written back when computed). Those the store holds
        from ``first`` on are read and only the rest run: a load asked for more
        replications than before (a probe run longer, :mod:`straggler.decide.frontier`) reuses
        the ones already run."""
        jobs = int(self.length.jobs)
        if self.store is None:
            return self.run(load, range(first, stop), jobs)
        kept = self.store.read(load.value, load.folder, first, stop, jobs)
        if kept is not None:
            return kept
        kept = self.store.read_prefix(load.value, load.folder, first, stop, jobs)
        rec = self.run(load, range(first + len(kept), stop), jobs)
        self.store.write(load.value, load.folder, rec)
        return Replications.join([kept, rec]) if len(kept) else rec

    def extended(self, load: Load, rec: Replications) -> Replications:
        """The fixed replications of an undetermined load run longer (the same
        streams: the length its verdict needs, plus 10 %) until the verdict is decided
        or :attr:`RunLength.verdict_budget` would be exceeded; ``rec`` if no longer run
        fits. Each length is a function of the results so far, so of the seed."""
        length = self.length
        reps = len(rec)
        cap = length.verdict_budget // max(reps, 1)
        for _ in range(MAX_ROUNDS):
            verdict, _, _ = load_verdict(rec, load)
            if verdict != "undetermined":
                break
            need = load_jobs_for_verdict(rec, load)
            if not math.isfinite(need):
                break
            longer = min(int(math.ceil(1.1 * need)), cap)
            if not longer > rec.jobs:
                break
            name = f"extended-{longer}{self.tag}"
            kept = self.store.read_named(load.value, load.folder, name) if self.store is not None else None
            if kept is not None and len(kept) == reps:
                rec = kept
                continue
            rec = self.run(load, range(reps), longer)
            if self.store is not None:
                self.store.write_named(load.value, load.folder, name, rec)
        return rec

    def settled(self, load: Load, rec: Replications) -> tuple[Load, Replications]:
        """A load whose measured part is still drifting, run again with the run so far
        (warm-up and measured jobs) as its warm-up, at most :data:`MAX_SETTLE_ROUNDS`
        times and within :attr:`RunLength.verdict_budget` simulated jobs (one round at
        least); the load (its
        warm-up) and replications of the last run. The same streams, so the longer run
        begins with the earlier one's jobs; each round is a function of the results so
        far, so of the seed."""
        reps = max(len(rec), 1)
        # one round at least, whatever the budget: MSER calls a stationary run drifting
        # about once in a hundred (its minimum falls at the end of its search by chance),
        # and a run lengthened for its verdict has already spent the budget
        cap = max(self.length.verdict_budget // reps, 2 * (load.warmup + rec.jobs))
        for _ in range(MAX_SETTLE_ROUNDS):
            longer = dataclasses.replace(load, warmup=load.warmup + rec.jobs)
            if longer.warmup + rec.jobs > cap:
                break
            name = f"settled-{longer.warmup}{self.tag}"
            kept = self.store.read_named(longer.value, longer.folder, name) if self.store is not None else None
            if kept is None or len(kept) != len(rec):
                kept = self.run(longer, range(len(rec)), rec.jobs)
                if self.store is not None:
                    self.store.write_named(longer.value, longer.folder, name, kept)
            load, rec = longer, kept
            if not math.isfinite(cut := statistics.warmup_batches(rec)) or cut < statistics.N_BATCHES // 2:
                break
        return load, rec

    def sequential(self, load: Load, stable_below: bool) -> Replications:
        """Precision mode (see :func:`simulate`)."""
        if self.store is not None:
            kept = self.store.read_named(load.value, load.folder, f"precision{self.tag}")
            if kept is not None:
                return kept
        length = self.length
        if length.precision is None:
            raise ValueError("precision mode needs a precision")
        precision = float(length.precision)
        reps, jobs = int(length.replications), int(length.jobs)
        rec = self.fixed(load, 0, reps)
        for _ in range(MAX_ROUNDS):
            verdict, _, _ = load_verdict(rec, load)
            if verdict == "unstable":
                break
            if verdict == "undetermined" and not stable_below:
                need = load_jobs_for_verdict(rec, load)
                longer = min(int(math.ceil(1.1 * need)), length.budget // reps)
                if not longer > jobs:
                    break
                jobs = longer  # the same replications, run longer (the same streams)
                rec = self.run(load, range(reps), jobs)
                continue
            s = statistics.summarize(rec, length.confidence)
            half, mean = s["latency_mean_ci"], s["latency_mean"]
            if not (math.isfinite(half) and mean > 0) or half <= precision * mean:
                break
            most = length.budget // jobs
            if most <= len(rec):
                break
            more = replications_for(half, len(rec), precision * mean, length.confidence, most)
            rec = Replications.join([rec, self.run(load, range(len(rec), more), jobs)])
        if self.store is not None:
            self.store.write_named(load.value, load.folder, f"precision{self.tag}", rec)
        return rec


def replications_for(half: float, replications: int, target: float, confidence: float, most: int) -> int:
    """The fewest replications, more than ``replications`` and at most ``most``, whose CI
    half-width ``t_{R-1} s / sqrt(R)`` would be ``target``, with ``s`` the spread of the
    replications so far (their CI is ``half``). Student's t of the new count, not of the
    current one: scaling the current half-width by the square-root law alone would ask
    for (t_{n-1} / t_{R-1})^2 times too many (1.27 from 10 replications)."""
    spread = half * math.sqrt(replications) / statistics.t_quantile(confidence, replications - 1)
    return statistics.fewest_replications(spread, target, confidence, replications + 1, most)


def _summary(rec: Replications, load: Load, length: RunLength) -> dict:
    """A load's estimates and simulation verdict from its replications."""
    _, servers, _ = monitor_scale(load.enc)
    s = statistics.summarize(rec, length.confidence)
    verdict, _, evidence = load_verdict(rec, load)
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
    s["jobs_to_verdict"] = load_jobs_for_verdict(rec, load) if reason == "short" else math.nan
    s["verdict"], s["reason"], s["replications"] = verdict, reason, len(rec)
    s["evidence"] = evidence if verdict == "stable" else ("monitor" if reason == "backlog" else reason)
    idle = statistics.idle_fraction(rec, int(load.enc.ints[I_POOLS]))
    s["idle_fraction"] = float(np.min(idle)) if len(idle) and np.isfinite(idle).all() else math.nan
    return s


def _loads(model, seed_sequence, alpha, tau, keep, engine_name, warmup: int, start: Start) -> tuple[Engine, list[Load]]:
    """The engine that simulates ``model`` and its loads, ready to simulate (an
    encoding per load when ``keep`` gives one per load), each with its start and warm-up
    (``start``'s, else an empty start after ``warmup`` jobs)."""
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
            Load(
                float(load),
                float(rates[li]),
                encs[li],
                int(keep[li]) if per_load else None,
                lambda n, load=load: replication_seeds(seed_sequence, load, n),
                start.warmup(li, warmup),
                start.law(li),
                start.decided_elsewhere(li),
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
    known: KnownStability = NOTHING_KNOWN,
    precision: float | None = None,
    max_jobs: int | None = None,
    store=None,
    tag: str = "",
    start: Start = EMPTY,
) -> SimulationResult:
    """Simulate ``model`` at each of its loads (see :mod:`straggler.engines.simulation`).

    ``jobs`` and ``warmup`` are per replication. ``workers > 1`` runs the
    replications of a load in threads (the kernels release the GIL); the results
    do not depend on it. ``engine`` forces an engine by name (``"fast"``, or the
    event engine's) instead of the first that supports the model. ``keep`` is FJ's
    kept tasks that the analysis chose (``keep: opt``): an integer, or one per load.
    ``store`` (a :class:`.store.Store`) keeps the replications: those it holds are
    read instead of run (e.g. the shards of :func:`simulate_shard`), the others are
    run and written to it.

    Loads run in increasing order. ``known`` is what the analysis knows of their
    stability (:class:`.run_length.KnownStability`). With ``known.monotone`` (the
    policy's stability is monotone in the load), the loads above the first one found
    unstable, and those above ``known.unstable_from`` (the smallest load the analysis
    proves unstable, which is itself simulated), are not simulated (``skipped``).
    ``known.stable_below``: the analysis proves loads below it stable, so precision
    mode does not lengthen their runs for a verdict.

    ``precision`` (relative CI half-width of the mean latency) turns on sequential
    stopping: a load whose verdict is undetermined reruns its replications longer
    (the same streams: the length that the verdict rule needs, plus 10 %), and a
    stable load whose CI is wider than the target adds replications (as many as
    the CI's square-root law asks for), until both hold, the load is found
    unstable, or ``max_jobs`` measured jobs (default: 100 times the fixed
    budget) would be exceeded. Every decision is a function of the results so far,
    which are a function of the seed: the result does not depend on ``workers``.

    ``tag`` names the store's whole-load files (``precision<tag>``,
    ``extended-<jobs><tag>``) of a run on other replications than the study's.

    ``start`` (:class:`.start.Start`) gives a load its servers' work at t = 0 and its
    warm-up (a fleet's equilibrium start, :mod:`.start`). A stable load whose measured
    part has not settled (MSER would cut half of it, :func:`.statistics.warmup_batches`)
    runs again with the run so far as its warm-up (the same streams: the longer run's
    first jobs are the earlier run's), until it settles or the verdict budget would be
    exceeded (:meth:`_Driver.settled`).
    """
    length = RunLength(
        int(jobs),
        int(warmup),
        int(replications),
        float(confidence),
        None if precision is None else float(precision),
        None if max_jobs is None else int(max_jobs),
    )
    chosen, loads = _loads(model, seed_sequence, alpha, tau, keep, engine, length.warmup, start)
    driver = _Driver(chosen, length, workers, store, tag)
    order = list(np.argsort([ld.value for ld in loads], kind="stable"))
    records, summaries, skipped = _run_in_order(
        driver, loads, order, known.monotone, known.unstable_from, known.stable_below
    )
    extended = np.full(len(loads), math.nan)
    if length.precision is None:
        extended = _extend_undetermined(driver, loads, order, records, summaries, known.monotone, known.stable_below)
        for li in order:
            if li in summaries and _drifting(summaries[li]):
                loads[li], records[li] = driver.settled(loads[li], records[li])
                summaries[li] = _summary(records[li], loads[li], length)
    result = _result(loads, records, summaries, skipped, extended, length, chosen.name, driver.fresh_jobs)
    result.warmup_jobs = np.array([float(ld.warmup) for ld in loads])
    result.end_states = [records[li].workloads if li in records else None for li in range(len(loads))]
    return result


def _drifting(summary: dict) -> bool:
    """A stable load whose measured part MSER finds still drifting (the end of its search)."""
    cut = summary.get("warmup_batches", math.nan)
    return summary["verdict"] == "stable" and math.isfinite(cut) and cut >= statistics.N_BATCHES // 2


def _run_in_order(
    driver: _Driver,
    loads: list[Load],
    order: list,
    monotone: bool,
    unstable_from: float | None,
    stable_below: float | None,
) -> tuple[dict[int, Replications], dict[int, dict], np.ndarray]:
    """``(records, summaries, skipped)``: each load run at its length (fixed, or
    precision mode's), in ``order``; with ``monotone``, a load above the first one
    found unstable or above ``unstable_from`` is skipped (see :func:`simulate`)."""
    length = driver.length
    records: dict[int, Replications] = {}
    summaries: dict[int, dict] = {}
    skipped = np.zeros(len(loads), dtype=bool)
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
    return records, summaries, skipped


def _extend_undetermined(
    driver: _Driver,
    loads: list[Load],
    order: list,
    records: dict[int, Replications],
    summaries: dict[int, dict],
    monotone: bool,
    stable_below: float | None,
) -> np.ndarray:
    """Per load, the measured jobs per replication of its lengthened run (NaN: not
    lengthened); ``records`` and ``summaries`` are updated in place."""
    length = driver.length
    extended = np.full(len(loads), math.nan)
    # the loads still undetermined run longer, the highest first: where stability
    # is monotone, a stable load decides every load below it (straggler.study.verdict)
    stable_above = False
    for li in reversed(order):
        if li not in summaries:
            continue
        s = summaries[li]
        below = stable_below is not None and loads[li].value < stable_below
        if s["verdict"] == "undetermined" and s["reason"] == "short" and not below and not loads[li].decided:
            if not (monotone and stable_above):
                rec = driver.extended(loads[li], records[li])
                if rec is not records[li]:
                    records[li], summaries[li] = rec, _summary(rec, loads[li], length)
                    extended[li] = float(rec.jobs)
        stable_above = stable_above or summaries[li]["verdict"] == "stable"
    return extended


#: the per-load numbers a summary gives as they are
SUMMARISED = (
    "latency_mean",
    "latency_mean_ci",
    "cost_mean",
    "cost_mean_ci",
    "copies_mean",
    "copies_mean_ci",
    "jobs_to_verdict",
    "warmup_batches",
)


def _result(
    loads: list[Load],
    records: dict[int, Replications],
    summaries: dict[int, dict],
    skipped: np.ndarray,
    extended: np.ndarray,
    length: RunLength,
    engine: str,
    fresh_jobs: int,
) -> SimulationResult:
    """The per-load arrays of a simulation from the summaries of the loads it ran."""
    L = len(loads)
    out: dict[str, Any] = {name: np.full(L, math.nan) for name in (*SUMMARISED, "precision_achieved", "idle_fraction")}
    quant = np.full((L, len(QUANTILES)), math.nan)
    quant_ci = np.full((L, len(QUANTILES)), math.nan)
    verdict = np.full(L, "", dtype=object)
    reason = np.full(L, "", dtype=object)
    evidence = np.full(L, "", dtype=object)
    njobs = np.zeros(L, dtype=np.int64)
    nreps = np.zeros(L, dtype=np.int64)
    width = max([len(r) for r in records.values()] + [int(length.replications)])
    means = np.full((L, width, 3), math.nan)
    rep_quant = np.full((L, len(QUANTILES), width), math.nan)
    for li, s in summaries.items():
        for name in SUMMARISED:
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
        rep_quant[li][:, positions[ok]] = statistics.replication_quantiles(rec)[ok].T
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
        replication_quantiles=rep_quant,
        extended_jobs=extended,
        engine=engine,
        fresh_jobs=fresh_jobs,
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
    known: KnownStability = NOTHING_KNOWN,
    start: Start = EMPTY,
) -> int:
    """Run replications ``first .. stop - 1`` of every load into ``store`` (a shard of
    :func:`simulate`, which then reads them); returns the measured jobs simulated.

    Loads run in increasing order; with ``known.monotone`` a load above
    ``known.unstable_from`` or above a load where one of these replications fired is not run: such a load is
    above the cell's first unstable load whatever the other shards find, so
    :func:`simulate` skips it too. Precision mode is sequential and is never split.
    """
    length = RunLength(int(jobs), int(warmup), int(replications))
    if not 0 <= first < stop <= length.replications:
        raise ValueError(f"shard {first}..{stop - 1} is not within the {replications} replications")
    chosen, loads = _loads(model, seed_sequence, alpha, tau, keep, engine, length.warmup, start)
    driver = _Driver(chosen, length, 1, store)
    for li in np.argsort([ld.value for ld in loads], kind="stable"):
        load = loads[li]
        if known.monotone and known.unstable_from is not None and load.value > known.unstable_from:
            continue
        rec = driver.fixed(load, first, stop)
        if known.monotone and rec.fired():
            break
    return driver.fresh_jobs
