"""How a study's work is cut into jobs: a cost estimate per cell, batches of cheap
cells, shards of an expensive cell's replications.

A Snakemake job pays about 1.6 s of start-up (the interpreter, numpy, xarray,
netCDF4, numba's cache) whatever it does, so one job per cell makes an analytic
study almost all start-up, while a cell at the papers' scale (50 runs of 10^7 jobs
per load) is too long for one job. So, from ``execution`` (config):

- each cell's cost is estimated before anything runs (:func:`estimate`: the
  analysis, plus jobs x replications x loads over the engine's throughput);
- a cell whose simulation costs more than ``target_seconds`` has its replications
  split into shards (``replications_per_job``: ``auto`` or a count), each a job that
  writes its replications into the cell's store (:mod:`.simulation.store`); the
  cell is then evaluated alone, reading them back (sequential stopping,
  ``simulation.precision``, is never split);
- the other cells are batched, in grid order (:func:`batch_order`: a swept override's
  values outermost), into jobs of about ``target_seconds`` (``cells_per_job``: ``auto``
  or a count).

The plan depends only on the config and the code (never on which results exist),
so every job that parses the Snakefile again sees the same units. A unit whose
cells all have results is left out; a unit with some is run and skips them (a
cell's file is named by the hash of its spec and of the code its numbers depend
on, :func:`cell_key`): adding a value to an axis, or changing the figures,
evaluates no finished cell again. How work is cut never changes a number: a
replication is a function of its seed, and a cell's summaries sum its
replications in order, in whatever jobs they ran.

A run's progress through these jobs (what is left, the time left) is :mod:`.progress`.

Light: the Snakefile's parse imports this module (no numpy).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..common.files import damage, write_text
from ..engines.registry import EngineSpec, choose
from ..model.policies import (
    COC_CODE,
    COS_CODE,
    FRED_CODE,
    POLICIES,
    RIQ_CODE,
    ZRED_CODE,
    tuned_parameters,
    tuned_range,
)
from . import fleet
from .grid import Cell, Grid, cell_spec, result_config, result_spec  # noqa: F401
from .tuning import candidate_count

if TYPE_CHECKING:
    from .config.resolved import ResolvedConfig

DEFAULTS = {"target_seconds": 20.0, "cells_per_job": "auto", "replications_per_job": "auto"}
"""``execution`` keys and their defaults (the schema says the same)."""

STARTUP_SECONDS = 1.6
"""What a job costs before its first cell: interpreter, imports, numba's cache."""

LOAD_SECONDS = 0.02
"""Per load and replication: encoding, streams, accumulators."""

OTHER_ANALYSIS_SECONDS = 0.01
"""A cell's analysis, measured on threshold_r_slow (mean per cell: 5-12 ms), for the
policies whose spec gives no ``analysis_seconds`` (Rep and Rer: 0.03 s, their
thresholds optimised; Rep with i.i.d. Pareto replicas 0.37 s a cell, its
``quadrature_seconds``: a quadrature in every threshold trial)."""
WRITE_SECONDS = 0.01
"""Writing a cell's file (netCDF4, about 30 variables)."""


def execution(resolved: ResolvedConfig) -> dict:
    """The ``execution`` settings with their defaults."""
    given = {} if resolved.execution is None else resolved.execution.to_dict()
    return {**DEFAULTS, **given}


def cell_key(resolved: ResolvedConfig, cell: Cell, code: str) -> str:
    """``<cell id>@<hash>``: the name of the cell's result, a function of its spec and
    of ``code`` (:func:`straggler.common.sources.model_hash`)."""
    spec = result_spec(resolved, cell, shared=True)
    text = json.dumps(spec, sort_keys=True, default=str) + code
    return f"{cell.id}@{hashlib.sha256(text.encode()).hexdigest()[:12]}"


# ----------------------------------------------------------------------- cost model


@dataclass(frozen=True)
class Cost:
    """Estimated seconds of one cell."""

    analysis: float
    replication: float
    """simulation of one replication at every load"""
    replications: int
    sequential: bool
    """precision mode: replications are added one round after another"""
    tuned: bool = False
    """a tuned knob (docs/guide/tuning.md): the cell runs every value its search tries,
    each a whole cell at one load, and is never sharded"""
    reference: float = 0.0
    """a fleet that starts from a smaller system's end state (:mod:`.fleet`): that system's
    seconds, run in the same job first (such a cell is never sharded: each shard would run it)"""

    @property
    def simulation(self) -> float:
        """Seconds of all the cell's replications."""
        return self.replication * self.replications

    @property
    def total(self) -> float:
        """Seconds of the cell: its analysis, all its replications and its reference system's."""
        return self.analysis + self.simulation + self.reference


def _value(resolved: ResolvedConfig, cell: Cell, axis: str, default):
    """A cell's value of ``axis`` (a named axis, or a dotted override)."""
    return cell.get(axis, default)


TABLE_VALUES = 4096
"""A tabulated size law (a trace) with more values than this outgrows the processor's
fast caches: each size drawn is a cache miss."""
TABLE_FACTOR = 2.0
"""Simulation seconds per job with such a law, over the same policy's with a law drawn in
closed form (measured: CoC d = 2..4 on 32 servers, 135-220 ns a job on a trace of 50,000
values, 60-80 ns on exponential sizes)."""
TABLE_ANALYSIS_SECONDS = 1e-4
"""Per value of a trace, the analysis of a policy whose spec gives ``quadrature_seconds``
(Rep: its threshold search evaluates a sum over the trace a few thousand times; 5 s on
50,000 values)."""
HEAVY_SCV = 20.0
"""A size law whose squared coefficient of variation exceeds this (or with an infinite
variance) is heavy-tailed for the cost model: its loads' stability verdicts usually need a
longer run than the fixed length (:meth:`straggler.engines.simulation.driver.Driver.extended`)."""
HEAVY_RUNS = 3.0
"""Jobs such a law's cells simulate, over the fixed length (measured: 2.8 on the
heavy-tailed trace of benchmarks/heavy_question.py, where every load ran its replications
again at about twice the length)."""


@dataclass(frozen=True)
class LawFacts:
    """What the cost model reads of a size law."""

    values: int
    """its number of tabulated values (0: drawn in closed form)"""
    heavy: bool
    """:data:`HEAVY_SCV`"""
    mean: float = 1.0
    """E[X]"""
    scale: float = math.inf
    """E[X^2] / E[X], the relaxation's time scale (:func:`.fleet.relaxation_jobs`)"""


_LAW_FACTS: dict[str, LawFacts] = {}


def law_key(spec) -> str:
    """A size law's spec as the key of its facts."""
    return json.dumps(spec, sort_keys=True, default=str)


def law_facts(resolved: ResolvedConfig, name: str) -> LawFacts:
    """The cost model's facts of the study's size law ``name``: kept per spec, and given
    by :func:`study_law_facts` where the config's resolution is cached (a job's parse
    then builds no law: no numpy)."""
    key = law_key(resolved.distributions[name])
    if key not in _LAW_FACTS:
        _LAW_FACTS[key] = _facts_of(resolved.distributions[name])
    return _LAW_FACTS[key]


def _facts_of(spec) -> LawFacts:
    from ..model.distributions import from_spec

    try:
        law = from_spec(dict(spec))
        mean, second = law.mean(), law.second_moment()
        scv = second / (mean * mean) - 1.0 if mean > 0 else 0.0
        values = int(getattr(law, "size", 0) or 0)
        scale = second / mean if mean > 0 and math.isfinite(second) else math.inf
        return LawFacts(values, not (math.isfinite(scv) and scv <= HEAVY_SCV), float(mean), float(scale))
    except (ValueError, TypeError, OSError, ArithmeticError):  # the estimate never stops a study
        return LawFacts(0, False)


def study_law_facts(resolved: ResolvedConfig) -> dict[str, list]:
    """The facts of every size law of the study, as JSON (kept with the cached resolution,
    :func:`straggler.study.config.resolve_config_cached`)."""
    return {
        law_key(spec): [
            law_facts(resolved, name).values,
            law_facts(resolved, name).heavy,
            law_facts(resolved, name).mean,
            law_facts(resolved, name).scale,
        ]
        for name, spec in resolved.distributions.items()
    }


def remember_law_facts(facts: dict[str, list]) -> None:
    """Take the facts :func:`study_law_facts` wrote."""
    for key, row in facts.items():
        values, heavy, *rest = row
        mean, scale = (float(rest[0]), float(rest[1])) if len(rest) == 2 else (1.0, math.inf)
        _LAW_FACTS[key] = LawFacts(int(values), bool(heavy), mean, scale)


def cache_law_facts(resolved: ResolvedConfig, cache_dir) -> None:
    """The study's size laws' facts read from ``cache_dir``, or found and kept there: a
    job's parse (workflow/rules/common.smk) then builds no law, which would import numpy."""
    text = json.dumps(resolved.distributions, sort_keys=True, default=str)
    path = Path(cache_dir) / f"laws-{hashlib.sha256(text.encode()).hexdigest()[:20]}.json"
    try:
        remember_law_facts(json.loads(path.read_text()))
        return
    except (OSError, ValueError, TypeError):
        pass
    facts = study_law_facts(resolved)
    try:
        write_text(path, json.dumps(facts))
    except OSError:
        pass  # a read-only place: found again at every parse


CLOSED_ORDER_STATISTICS = ("exponential", "empirical", "discrete", "deterministic")
"""Families whose order statistics are sums, not quadratures (a trace's: over its sorted
values; measured: CoC's analysis of the shipped trace, 0.05 s a cell)."""


def analysis_seconds(resolved: ResolvedConfig, cell: Cell) -> float:
    """The analysis of a cell and the writing of its file: tens of milliseconds
    (``PolicySpec.analysis_seconds``), except the replica bounds with i.i.d. or S&X replicas
    of a law without closed-form order statistics (a quadrature per pool weight:
    1-2 s), and the threshold search of Rep (:data:`TABLE_ANALYSIS_SECONDS`)."""
    spec = POLICIES[cell.policy]
    dist = resolved.distributions[cell["distribution"]]["family"]
    dep = resolved.dependences[cell["dependence"]].get("kind", "identical")
    if spec.uses_d and dep != "identical" and dist not in CLOSED_ORDER_STATISTICS:
        return 2.0
    if spec.quadrature_seconds is not None and dep != "identical" and dist != "exponential":
        values = law_facts(resolved, cell["distribution"]).values
        return max(spec.quadrature_seconds, TABLE_ANALYSIS_SECONDS * values) + WRITE_SECONDS
    seconds = OTHER_ANALYSIS_SECONDS if spec.analysis_seconds is None else spec.analysis_seconds
    return seconds + WRITE_SECONDS


def engine_of(resolved: ResolvedConfig, cell: Cell) -> EngineSpec:
    """The engine that simulates the cell (:func:`straggler.engines.registry.choose`)."""
    system = resolved.system
    discipline = _value(resolved, cell, "system.discipline", system.discipline)
    queueing = _value(resolved, cell, "system.queueing", system.queueing)
    # a policy parameter swept on the grid: as a dotted axis (CoC.ps_bound) or a list axis
    bound = resolved.policies.get(cell.policy, {}).get("ps_bound")
    bound = cell.get(f"{cell.policy}.ps_bound", cell.get("ps_bound", bound))
    return choose(cell.policy, discipline, queueing, bound)


def seconds_per_job(resolved: ResolvedConfig, cell: Cell, fleet_start: str = "") -> float:
    """Estimated simulation seconds per job of the cell (its engine's cost per job and
    replica, :attr:`straggler.engines.registry.EngineSpec.seconds_per_unit`); a fleet that
    starts in equilibrium (``fleet_start``, :func:`fleet_start_of`) is not run longer for a
    verdict (the limit's, or the smaller system's, stands in)."""
    spec = POLICIES[cell.policy]
    replicas = int(cell.get("d", 1)) if spec.uses_d else spec.concurrent_replicas
    facts = law_facts(resolved, cell["distribution"])
    table = TABLE_FACTOR if facts.values > TABLE_VALUES else 1.0
    runs = HEAVY_RUNS if facts.heavy and fleet_start in ("", "empty") else 1.0
    return (1 + replicas) * engine_of(resolved, cell).seconds_per_unit * table * runs


MEAN_FIELD_CODES = frozenset({ZRED_CODE, COC_CODE, COS_CODE, RIQ_CODE, FRED_CODE})
"""The policies the mean-field tier solves, by kernel code
(:data:`straggler.engines.mean_field.POLICIES`; that package is too heavy for the parse)."""
MEAN_FIELD_SECONDS = 0.1
"""A mean-field solve at one load (benchmarks/mean_field_speed.py: 0.01 s on exponential
sizes, about 0.1 s on the shipped trace)."""


def fleet_start_of(resolved: ResolvedConfig, cell: Cell) -> str:
    """How the cell starts (:mod:`.fleet`): ``""`` (empty, the configured warm-up),
    ``mean-field``, ``reference`` or ``empty`` (empty, a warm-up that grows with N), by the
    rule of :func:`straggler.study.fleet.plan` read from the config alone (the nominal load
    as the utilisation)."""
    N = int(cell["N"])
    facts = law_facts(resolved, cell["distribution"])
    warmup = int(resolved.simulation.warmup)
    if N <= fleet.REFERENCE_N or not facts.mean > 0:
        return ""
    r_slow = float(cell["r_slow"])
    system = resolved.system
    discipline = _value(resolved, cell, "system.discipline", system.discipline)
    queueing = _value(resolved, cell, "system.queueing", system.queueing)
    delay = float(_value(resolved, cell, "system.cancel_delay", getattr(system, "cancel_delay", 0.0) or 0.0))
    if discipline != "FCFS" or queueing != "per_server" or r_slow != 1.0 or delay > 0:
        needs = [fleet.relaxation_jobs(N * v / facts.mean, v, facts.scale / min(1.0, r_slow)) for v in resolved.load]
        return "empty" if any(fleet.is_fleet(N, n, warmup) for n in needs) else ""
    dep = resolved.dependences[cell["dependence"]].get("kind", "identical")
    if POLICIES[cell.policy].kernel_code in MEAN_FIELD_CODES and dep in ("iid", "identical", "mixture"):
        return "mean-field"
    return "reference"


def estimate(resolved: ResolvedConfig, cell: Cell) -> Cost:
    """The cell's estimated cost (an upper estimate: unstable loads stop early, loads
    above an unstable one are not simulated, stored replications are reused)."""
    analysis = analysis_seconds(resolved, cell)
    sim = resolved.simulation
    if "simulation" not in resolved.evaluate or POLICIES[cell.policy].analytic_only:
        return Cost(analysis, 0.0, 0, False)
    loads = len(resolved.load)
    start = fleet_start_of(resolved, cell)
    per_job = seconds_per_job(resolved, cell, start)
    jobs = int(sim.jobs) + int(sim.warmup)
    reference = 0.0
    if start == "mean-field":
        analysis += MEAN_FIELD_SECONDS * loads
    elif start == "reference":
        # its simulation: its analysis is the fleet's own, within the estimate's rounding
        reference = estimate(resolved, fleet.reference_cell(cell)).simulation
    elif start == "empty":
        facts = law_facts(resolved, cell["distribution"])
        N = int(cell["N"])
        slow = min(1.0, float(cell["r_slow"]))
        need = max(fleet.relaxation_jobs(N * v / facts.mean, v, facts.scale / slow) for v in resolved.load)
        jobs += int(min(need, 1e10))
    replication = loads * (jobs * per_job + LOAD_SECONDS)
    values = tuned_values(resolved, cell)
    if values:
        # each value tried at each load is a cell of its own: its analysis and its replications
        tuned_reps = int(sim.replications) if sim.precision is None else _precision_replications(sim)
        return Cost(analysis * (1 + values * loads), replication * values, tuned_reps, sim.precision is not None, True)
    if sim.precision is None:
        return Cost(analysis, replication, int(sim.replications), False, reference=reference)
    return Cost(analysis, replication, _precision_replications(sim), True, reference=reference)


def _precision_replications(sim) -> int:
    """The replications precision mode may reach: it adds them up to its budget of
    measured jobs, the estimate's cap (simulation.run_length.RunLength.budget's rule; that
    package is too heavy for the parse)."""
    budget = int(sim.max_jobs) if sim.max_jobs is not None else 100 * int(sim.jobs) * int(sim.replications)
    return max(int(sim.replications), budget // int(sim.jobs))


def tuned_values(resolved: ResolvedConfig, cell: Cell) -> int:
    """At most how many values the search of the cell's tuned knob runs per load
    (:func:`straggler.study.tuning.candidate_count`), 0 when the cell has none."""
    params = resolved.policies.get(cell.policy) or {}
    spec = POLICIES[cell.policy]
    for name in tuned_parameters(params):
        pair = tuned_range(params[name])
        if pair is not None and name in spec.tunable:
            return candidate_count(pair[0], pair[1], spec.tunable[name].integer)
    return 0


# ----------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Shard:
    """Replications ``first .. stop - 1`` of one cell, simulated into its store."""

    cell: str
    key: str
    first: int
    stop: int

    @property
    def name(self) -> str:
        """The shard's name under ``units/shards/``: ``<cell key>/r<first>-<stop>``."""
        return f"{self.key}/r{self.first}-{self.stop}"


@dataclass(frozen=True)
class Batch:
    """Cells evaluated in one job (a sharded cell alone, after its shards)."""

    id: str
    cells: tuple[str, ...]
    keys: tuple[str, ...]
    seconds: float
    shards: tuple[Shard, ...] = ()


@dataclass
class Plan:
    """A study cut into work units: batches of cells, shards of expensive cells'
    replications, and each cell's key and cost."""

    batches: dict[str, Batch]
    shards: dict[str, Shard]
    """by :attr:`Shard.name`"""
    keys: dict[str, str]
    """cell id -> :func:`cell_key`"""
    costs: dict[str, Cost]

    def cell_path(self, results: str, cell: str) -> str:
        """The file of ``cell``'s result under ``results``: ``cells/<cell key>.nc``."""
        return f"{results}/cells/{self.keys[cell]}.nc"

    def damaged(self, results: str) -> dict[str, str]:
        """The cell files that exist but are not to be trusted (:func:`straggler.common.files.damage`),
        with the reason: their batches are pending, and their jobs replace them."""
        found = {}
        for cell in self.keys:
            path = self.cell_path(results, cell)
            why = damage(path)
            if why:
                found[path] = why
        return found

    def to_compute(self, results: str, batch: Batch, damaged: Iterable[str] = ()) -> list[str]:
        """The keys of ``batch``'s cells without a result, or whose file is in ``damaged``."""
        bad = set(damaged)
        paths = {k: f"{results}/cells/{k}.nc" for k in batch.keys}
        return [k for k, path in paths.items() if path in bad or not Path(path).exists()]

    def pending(self, results: str, damaged: Iterable[str] = ()) -> list[Batch]:
        """Batches with a cell to compute (:meth:`to_compute`); the others are left out."""
        bad = set(damaged)
        return [b for b in self.batches.values() if self.to_compute(results, b, bad)]

    def unit_target(self, results: str, batch: Batch, damaged: Iterable[str] = ()) -> str:
        """The manifest the job of pending ``batch`` writes: ``units/<batch>~<todo>.json``.

        ``todo`` is a digest of the batch's cells to compute and of the manifests the
        batch already has. A batch that ran once and has lost (or damaged) a cell since
        is then a new target, and its old manifest need not be deleted for the job to
        run again: no file is removed while the Snakefile is parsed (and every cluster
        job parses it again)."""
        todo = self.to_compute(results, batch, damaged)
        before = sorted(p.name for p in Path(f"{results}/units").glob(f"{batch.id}~*.json"))
        digest = hashlib.sha256("\n".join([*todo, "", *before]).encode()).hexdigest()[:10]
        return f"{results}/units/{batch.id}~{digest}.json"

    def cpu_seconds(self) -> float:
        """The estimated CPU time of the whole study: every cell and every job's start-up."""
        return self.total_seconds() + STARTUP_SECONDS * (len(self.batches) + len(self.shards))

    def total_seconds(self) -> float:
        """The estimated seconds of every cell, without the jobs' start-up."""
        return sum(c.total for c in self.costs.values())


def _shard_sizes(cost: Cost, setting, target: float) -> list[tuple[int, int]]:
    reps = cost.replications
    if reps <= 1 or cost.sequential or cost.tuned or cost.reference > 0:
        return []
    if setting == "auto":
        if cost.simulation <= target:
            return []
        size = max(1, int(target // max(cost.replication, 1e-12)))
    else:
        size = int(setting)
    if size >= reps:
        return []
    return [(a, min(a + size, reps)) for a in range(0, reps, size)]


MIN_BATCHES = 4
"""A study's cheap cells go to at least this many jobs (when each still gets
:data:`MIN_BATCH_STARTUPS` times the start-up in work), so that a small study uses the
cores of a workstation: one job per ``target_seconds`` would leave a study of 20
seconds on one core. The plan cannot ask how many cores there are (every job parses
it again, with other settings)."""
MIN_BATCH_STARTUPS = 4


def batch_count(work: float, target: float) -> int:
    """How many batches ``work`` seconds of unsplit cells are cut into: one per
    ``target`` seconds (rounded up to a multiple of 4 beyond 2), but at least 4 or 2
    when each still gets :data:`MIN_BATCH_STARTUPS` times the start-up in work: counts
    that 2 and 4 cores divide (3 equal jobs on 2 cores take as long as 4)."""
    by_target = math.ceil(work / target) if work > 0 else 1
    if by_target > 2:  # rounded up to a multiple of 4 (see above)
        by_target = MIN_BATCHES * math.ceil(by_target / MIN_BATCHES)
    fits = int(work // (MIN_BATCH_STARTUPS * STARTUP_SECONDS))
    by_cores = next((n for n in (MIN_BATCHES, 2) if n <= fits), 1)
    return max(by_target, by_cores, 1)


def batch_seconds(work: float, target: float) -> float:
    """The work aimed at per batch (:func:`batch_count`)."""
    return work / batch_count(work, target)


def batch_order(grid: Grid) -> list[str]:
    """The cells in the order batches are cut: grid order, but by the values of the swept
    overrides (axes ``<name>.<key>``, such as the share of identical copies that
    ``straggler recommend`` bisects) first, so that the cells of a value added to such an
    axis are next to each other, a job or two, not one cell in every batch."""
    overrides = [axis for axis in grid.axes if "." in axis]
    if not overrides:
        return list(grid.cells)

    def position(cid: str) -> tuple[int, ...]:
        cell = grid.cells[cid]
        values = [list(grid.axes[axis]) for axis in overrides]
        return tuple(v.index(cell[a]) if cell.get(a) in v else -1 for a, v in zip(overrides, values))

    return sorted(grid.cells, key=position)  # stable: grid order within a value


def plan(resolved: ResolvedConfig, grid: Grid, code: str) -> Plan:
    """Cut the study's cells into batches and shards (see the module docstring)."""
    ex = execution(resolved)
    target = float(ex["target_seconds"])
    keys = {cid: cell_key(resolved, cell, code) for cid, cell in grid.cells.items()}
    costs = {cid: estimate(resolved, cell) for cid, cell in grid.cells.items()}
    batches: dict[str, Batch] = {}
    shards: dict[str, Shard] = {}

    def add(cells: list[str], seconds: float, cell_shards=()) -> None:
        members = tuple(keys[c] for c in cells)
        digest = hashlib.sha256("\n".join(members).encode()).hexdigest()[:10]
        bid = f"b{len(batches):05d}-{digest}"
        batches[bid] = Batch(bid, tuple(cells), members, seconds, tuple(cell_shards))

    splits = {cid: _shard_sizes(costs[cid], ex["replications_per_job"], target) for cid in grid.cells}
    work = sum(costs[c].total for c in grid.cells if not splits[c])
    count = batch_count(work, target)
    aim = work / count
    per_job = ex["cells_per_job"]
    current = 0  # the share the open group belongs to
    group: list[str] = []
    seconds = done = 0.0
    for cid in batch_order(grid):
        cost = costs[cid]
        split = splits[cid]
        if split:
            own = tuple(Shard(cid, keys[cid], a, b) for a, b in split)
            shards.update((s.name, s) for s in own)
            add([cid], cost.analysis, own)
            continue
        if per_job != "auto":
            full = len(group) >= int(per_job)
        else:
            # a cell goes to the batch its cost's midpoint falls in, of `count` equal
            # shares of the work in grid order: no last batch of a few cells
            share = min(int((done + cost.total / 2) / aim), count - 1) if aim > 0 else 0
            full = bool(group) and share > current
            current = share
        if full:
            add(group, seconds)
            group, seconds = [], 0.0
        group.append(cid)
        seconds += cost.total
        done += cost.total
    if group:
        add(group, seconds)
    return Plan(batches, shards, keys, costs)


def kernel_kind(resolved: ResolvedConfig, cell: Cell) -> str | None:
    """What decides which kernels (and which of their signatures) a cell compiles:
    its engine, policy, distribution family, dependence kind, discipline and queueing;
    None when the cell is not simulated. A job that compiled them records its kinds
    (:func:`straggler.common.kernel_cache.record_compiled`)."""
    if "simulation" not in resolved.evaluate or POLICIES[cell.policy].analytic_only:
        return None
    system = resolved.system
    engine = engine_of(resolved, cell).name
    family = resolved.distributions[cell["distribution"]]["family"]
    dep = resolved.dependences[cell["dependence"]].get("kind", "identical")
    discipline = _value(resolved, cell, "system.discipline", system.discipline)
    queueing = _value(resolved, cell, "system.queueing", system.queueing)
    return f"{engine}/{cell.policy}/{family}/{dep}/{discipline}/{queueing}"


SEARCH_FACTOR = 4.0
"""A setting's search costs about this many times its cells' own evaluation: each
contender is probed at a few loads per frontier and per crossover (all the searches of the
default study with a resolution of 0.01 took 1.3 times all its cells' evaluation), with
room for a costlier setting and a slower machine."""


def search_seconds(work: Plan, grid: Grid, settings: list[dict]) -> float:
    """The estimated seconds of the costliest setting's search (a cluster job's time
    limit, :data:`SEARCH_FACTOR` times its cells' cost)."""
    most = 0.0
    for setting in settings:
        cells = [
            cid
            for cid, cell in grid.cells.items()
            if all(cell.get(axis, value) == value for axis, value in setting.items())
        ]
        most = max(most, sum(work.costs[c].total for c in cells if c in work.costs))
    return SEARCH_FACTOR * most


def search_hash(resolved: ResolvedConfig, code: str) -> str:
    """What a setting's search depends on beyond the study dataset: the ``decision``
    section (SLO, budget, resolution) and the model's code."""
    decision = resolved.decision.to_dict() if resolved.decision is not None else {}
    text = json.dumps([decision, code], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def runtime_minutes(seconds: float, attempt: int = 1) -> int:
    """A job's runtime request: three times its estimate plus start-up, at least 5
    minutes, and longer on each retry."""
    return int(max(5, math.ceil(3 * (seconds + STARTUP_SECONDS) / 60))) * int(attempt)


REPORT_SECONDS = 40.0
"""CPU seconds of a run's rules after its cells, whatever their number: the aggregation,
the two figure jobs, the report and its claims (measured: 41-47 s on 44 to 112 cells,
start-ups included)."""
REPORT_CELL_SECONDS = 0.05
SNAKEMAKE_SECONDS = 3.0
"""Snakemake's own process: parsing the workflow and building the jobs' graph."""
SEARCH_SHARE = 1.3
"""A located study's searches, over the evaluation of the cells of the settings they
search (the default study at ``resolution: 0.01``: 1.3)."""
BREAK_EVEN_SEARCH_SECONDS = 2.0
BREAK_EVEN_PROBE_RUNS = 100.0
"""One break-even search (a contender, a load, a criterion) costs
:data:`BREAK_EVEN_SEARCH_SECONDS` plus this many times one replication set of the contender
at one load: its bisection's probes, each evaluated like a cell, some run longer
(measured on the hedging study: 7.1 s a search on exponential and on Pareto sizes)."""


def study_seconds(
    resolved: ResolvedConfig, grid: Grid, work: Plan, delay_settings: Iterable[dict] = ()
) -> dict[str, float]:
    """The estimated CPU seconds of a study's work besides its cells' jobs, by part:
    ``report`` (aggregation, figures, report, claims, and Snakemake itself), ``searches``
    (located frontiers and crossovers) and ``break-even`` (break-even delays, of the
    ``delay_settings``: :func:`straggler.decide.break_even.delay_settings`)."""
    parts = {"report": SNAKEMAKE_SECONDS + REPORT_SECONDS + REPORT_CELL_SECONDS * len(grid.cells)}
    simulated = "simulation" in resolved.evaluate
    decision = resolved.decision
    if simulated and decision is not None and decision.resolution is not None:
        parts["searches"] = SEARCH_SHARE * sum(c.total for c in work.costs.values())
    settings = list(delay_settings)
    if simulated and settings:
        parts["break-even"] = _break_even_seconds(resolved, grid, settings)
    return parts


def _break_even_seconds(resolved: ResolvedConfig, grid: Grid, settings: list[dict]) -> float:
    """:data:`BREAK_EVEN_PROBE_RUNS`: per setting, load, criterion and contender that
    cancels copies (one per policy configuration, at the grid's first delay)."""
    sim = resolved.simulation
    decision = resolved.decision
    criteria = 2 if decision is not None and decision.slo is not None else 1
    first = grid.axes["cancel_delay"][0]
    runs = int(sim.replications) * (int(sim.jobs) + int(sim.warmup))
    total = 0.0
    for setting in settings:
        for cell in grid.cells.values():
            if cell.get("cancel_delay") != first or not POLICIES[cell.policy].cancels:
                continue
            if all(cell.get(axis, value) == value for axis, value in setting.items()):
                probe = runs * seconds_per_job(resolved, cell)
                total += len(resolved.load) * criteria * (BREAK_EVEN_SEARCH_SECONDS + BREAK_EVEN_PROBE_RUNS * probe)
    return total
