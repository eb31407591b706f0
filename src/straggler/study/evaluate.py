"""Evaluate one grid cell: analysis and simulation at every load.

This is what the ``evaluate`` rule runs, one job per distinct cell; it can also
be called from a plain Python session to debug a cell::

    from straggler.study.evaluate import evaluate_cell
    ds = evaluate_cell(resolved_config, "policy=ZRed__distribution=exp__...")

Where a threshold, an assignment or FJ's keep is ``opt``, the simulation uses the
one the analysis chose, so theory and simulation describe the same policy; the analysis
is therefore run whenever the simulation needs its choice, and stored only when
``evaluate`` asks for it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ..model.policies import OBJECTIVES, POLICIES, tuned_objective, tuned_parameters, tuned_range
from ..model.policies.spec import hedges_target
from . import dataset, fleet, tuning, verdict
from .grid import build_grid, seed_sequence, workload_id

if TYPE_CHECKING:  # imported where used: the analysis costs start-up time
    from ..engines.analysis.cell import AnalyticResult
    from ..model.cell_model import CellModel
    from .config.resolved import ResolvedConfig, SimulationConfig
    from .grid import Cell

log = logging.getLogger(__name__)

ANALYTIC_VARIABLES = (
    "lambda_max",
    "lambda_max_kind",
    "lambda_sufficient",
    "tau_opt",
    "tau_opt_pool2",
    "q_opt",
    "keep_opt",
    "rho",
    "cost",
    "cost_kind",
    "cost_lower",
    "cost_upper",
    "latency_approx",
    "latency_approx_kind",
    "latency_approx_quantile",
    "latency_approx_quantile_kind",
    "cost_approx",
    "latency_lower",
    "latency_group",
    "latency_group_kind",
)


@dataclass
class _Cell:
    """A cell ready to evaluate: its model, stream, analysis and simulation settings."""

    model: CellModel
    seed: np.random.SeedSequence
    analysis: AnalyticResult
    monotone: bool
    settings: dict
    """the keyword arguments :func:`straggler.engines.simulation.simulate` and
    :func:`~straggler.engines.simulation.simulate_shard` share, or None (not simulated)"""
    notes: list[str]
    store: object = None


def _prepare(resolved: ResolvedConfig, cell: Cell, store_root=None) -> _Cell:
    from ..engines.analysis.cell import analyze
    from ..model.policies import stability_monotone
    from .cell_build import build_model

    model = build_model(resolved, cell)
    # the workload's stream, not the cell's: policies compared on one workload see
    # the same arrivals, types and sizes (common random numbers)
    seed = seed_sequence(int(resolved.seed), workload_id(cell))
    analysis = analyze(model)
    monotone = bool(stability_monotone(model.policy, model.params))
    notes: list[str] = []
    settings = None
    if "simulation" in resolved.evaluate:
        settings = _simulation_settings(model, analysis, notes, monotone, resolved.simulation)
    prepared = _Cell(model, seed, analysis, monotone, settings, notes)
    if settings is not None and store_root is not None:
        from ..engines.simulation.store import Store

        prepared.store = Store(store_root, store_key(resolved, cell, settings))
    return prepared


def store_key(resolved: ResolvedConfig, cell, settings: dict) -> str:
    """Where the cell's replications are kept: a hash of what a replication depends
    on (the cell's id and settings but its load list, the simulation's sources, and
    the analysis's choices the simulation uses), so that a new load or a change of
    the analysis alone reuses what was simulated."""
    from ..common.sources import simulation_hash
    from .grid import result_spec

    spec = {k: v for k, v in result_spec(resolved, cell).items() if k != "load"}
    keep = settings["keep"]
    choice = {
        "alpha": None if settings["alpha"] is None else np.asarray(settings["alpha"]).tolist(),
        "tau": None if settings["tau"] is None else [float(t) for t in settings["tau"]],
        "keep": None if keep is None or np.ndim(keep) > 0 else int(keep),
    }
    text = json.dumps([cell.id, spec, choice, simulation_hash()], sort_keys=True, default=str)
    return f"{cell.policy}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def evaluate_cell(
    resolved: ResolvedConfig,
    cell_id: str,
    store_root=None,
    stats: dict | None = None,
    replications: int | None = None,
) -> xr.Dataset:
    """The cell's dataset: analysis, simulation (its replications read from and written
    to the store under ``store_root``, when given) and verdicts. ``stats``, when given,
    receives ``simulated_jobs`` (jobs run here, not read back). An id that is not a cell
    of the grid is :class:`straggler.study.grid.UnknownCell` (a KeyError).

    ``replications``, when given, runs that many replications instead of
    ``simulation.replications``, in the store of the study's own: the ones it holds are
    read and only the new ones run, each on its own seed (a probe run longer,
    :mod:`straggler.decide.frontier`)."""
    cell = build_grid(resolved).cell(cell_id)  # an unknown id: grid.UnknownCell, a KeyError
    knob = tuned_knob(resolved, cell)
    if knob is not None:
        return _evaluate_tuned(resolved, cell, knob, store_root, stats, replications)
    return _evaluate(resolved, cell, store_root, stats, replications)


def _evaluate(
    resolved: ResolvedConfig, cell: Cell, store_root, stats: dict | None, replications: int | None = None
) -> xr.Dataset:
    """:func:`evaluate_cell` of a cell whose policy has no tuned parameter."""
    from ..engines.analysis.tails import cost_tail, latency_tails

    c = _prepare(resolved, cell, store_root)
    # the cell the simulation runs: itself, or the same on fleet.SIMULATED_N servers
    stand_in = fleet.simulated_cell(cell)
    s = c if stand_in is cell else _prepare(resolved, stand_in, store_root)
    tag = ""
    if s.settings is not None and replications is not None and int(replications) != s.settings["replications"]:
        # after the store's key (it holds the study's run length): the same store, more files
        s.settings = {**s.settings, "replications": int(replications)}
        tag = f"-r{int(replications)}"
    model, result = c.model, c.analysis
    values: dict = {"size_mean": size_mean(model), "copy_mean": float(model.load_mean)}
    notes: list[str] = []
    if "analytic" in resolved.evaluate:
        values.update({name: getattr(result, name) for name in ANALYTIC_VARIABLES})
        notes.extend(result.notes)
    notes.extend(c.notes)
    if s is not c:
        notes.append(fleet.simulated_note(model.N))
    sim = None
    if c.settings is not None and s.settings is not None:
        # imported here: the simulation package pulls numba (~1.3 s), which an analytic
        # cell (every cell of an analytic study) never needs
        from ..engines import simulation

        run = resolved.simulation
        try:
            plan, reference, fresh = _fleet(resolved, stand_in, s, store_root)
            sim = simulation.simulate(
                s.model,
                s.seed,
                confidence=float(run.confidence),
                precision=run.precision,
                max_jobs=run.max_jobs,
                store=s.store,
                tag=tag,
                start=plan.start,
                **s.settings,
            )
        except NotImplementedError as err:
            log.warning("%s", err)
            notes.append(f"not simulated: {err}")
        else:
            fleet.carry(
                sim,
                plan,
                reference,
                np.logical_or(
                    *verdict.analysis_verdicts(
                        model.loads, result.lambda_max, result.lambda_max_kind, result.lambda_sufficient
                    )
                ),
            )
            notes.extend(plan.notes)
            notes.extend(sim.notes)
            if stats is not None:
                stats["simulated_jobs"] = sim.fresh_jobs + fresh
    # the verdicts always weigh the analysis: a load it proves unstable is never stable
    verdicts = verdict.reconcile(
        model.loads, result.lambda_max, result.lambda_max_kind, result.lambda_sufficient, sim, c.monotone
    )
    if sim is not None:
        values.update(verdict.apply(sim.values(), verdicts, latency_tails(model, result.alpha), cost_tail(model)))
    else:
        values.update(
            verdict=verdicts.verdict,
            verdict_source=verdicts.source,
            verdict_evidence=verdicts.evidence,
            stable=verdicts.stable,
        )
    notes.extend(verdicts.notes)
    attrs = {
        "cell_id": cell.id,
        "cell": json.dumps(dict(cell.coords), default=str),
        "notes": json.dumps(notes),
        "cell_entropy": str(c.seed.entropy),
        "cell_spawn_key": json.dumps(list(c.seed.spawn_key)),
        "load_basis": model.load_basis,
    }
    return dataset.cell_dataset(model.loads, values, attrs)


def _fleet(resolved: ResolvedConfig, cell: Cell, c: _Cell, store_root):
    """The cell's :class:`.fleet.FleetPlan`, the reference system's simulation where the
    plan starts from its end state (else None), and the jobs that simulation ran."""
    plan = fleet.plan(c.model, c.analysis, int(c.settings["warmup"]))
    if not plan.needs_reference:
        return plan, None, 0
    from ..engines import simulation

    ref = _prepare(resolved, fleet.reference_cell(cell), store_root)
    if ref.settings is None:
        return fleet.with_reference(plan, None), None, 0
    run = resolved.simulation
    reference = simulation.simulate(
        ref.model, ref.seed, confidence=float(run.confidence), max_jobs=run.max_jobs, store=ref.store, **ref.settings
    )
    return fleet.with_reference(plan, reference), reference, reference.fresh_jobs


def size_mean(model: CellModel) -> float:
    """E[X], the dataset's ``size_mean``: the mean size of one copy of the job at speed 1,
    whatever the analysis or the simulation evaluate. A ``by_type`` law is the mixture
    under the cell's types' probabilities (:meth:`~straggler.model.distributions.ByType.with_types`,
    applied by :func:`~straggler.study.cell_build.build_model`); under an ``sx`` dependence it
    is the job's X, not a replica's X S; for FJ with ``split: shift`` (``model.size`` is
    then a task's law) the unsplit job's, whose replica mean is the load unit."""
    from ..model.distributions import Deterministic

    if model.unit_mean is not None:
        # unit_mean = E[X_i] of the unsplit law = E[X] times E[S] (sx) or 1: E[X] back
        return float(model.unit_mean / model.dependence.replica_mean(Deterministic(1.0)))
    return float(model.size.mean())


def simulate_cell_shard(resolved: ResolvedConfig, cell_id: str, first: int, stop: int, store_root) -> int:
    """Simulate replications ``first .. stop - 1`` of a cell into its store (a shard,
    see :mod:`straggler.study.workunits`); returns the measured jobs run."""
    from ..engines import simulation

    cell = build_grid(resolved).cell(cell_id)
    if tuned_knob(resolved, cell) is not None:
        return 0  # a tuned cell is never sharded (workunits): its evaluation runs every value
    cell = fleet.simulated_cell(cell)
    c = _prepare(resolved, cell, store_root)
    if c.settings is None or c.store is None:
        return 0
    try:
        plan, _, fresh = _fleet(resolved, cell, c, store_root)
        return fresh + simulation.simulate_shard(
            c.model, c.seed, first, stop, store=c.store, start=plan.start, **c.settings
        )
    except NotImplementedError:
        return 0  # the cell's evaluation says why


def chosen_tau(model, analysis) -> tuple[tuple[float, float] | None, str]:
    """The threshold ``tau: opt`` simulates, by first pool (pool 2's is pool 1's when
    the analysis chose one for both), or None and why not."""
    if math.isnan(analysis.tau_opt):
        return None, f"{model.policy}: no optimal threshold from the analysis to simulate"
    return (analysis.tau_opt, analysis.tau_opt if math.isnan(analysis.tau_opt_pool2) else analysis.tau_opt_pool2), ""


def chosen_keep(model, analysis) -> tuple[np.ndarray | None, str]:
    """The tasks ``keep: opt`` keeps at each load, or None and why not."""
    if np.isnan(analysis.keep_opt).any():
        return None, f"{model.policy}: no keep chosen by the analysis to simulate"
    return analysis.keep_opt.astype(int), ""


ANALYSIS_CHOICES = {"tau": chosen_tau, "keep": chosen_keep}
"""A parameter of ``PolicySpec.chosen_by_analysis`` -> how the simulation reads the
analysis's choice for its value ``opt``."""


def _simulation_settings(model, analysis, notes: list[str], monotone: bool, run: SimulationConfig) -> dict | None:
    """The simulation's settings shared by whole cells and shards, or None with a note
    when the cell is not simulated."""
    from ..engines.simulation.run_length import KnownStability
    from ..model.policies import POLICIES

    if POLICIES[model.policy].analytic_only:
        notes.append(f"{model.policy} is analytic only: {POLICIES[model.policy].description}")
        return None
    chosen: dict = {"tau": None, "keep": None}
    for name in POLICIES[model.policy].chosen_by_analysis:
        if model.params.get(name) == "opt":
            value, missing = ANALYSIS_CHOICES[name](model, analysis)
            if missing:
                notes.append(missing)
                return None
            chosen[name] = value
    return dict(
        jobs=int(run.jobs),
        warmup=int(run.warmup),
        replications=int(run.replications),
        alpha=analysis.alpha,
        tau=chosen["tau"],
        keep=chosen["keep"],
        known=KnownStability(
            monotone=monotone,
            unstable_from=verdict.first_unstable_load(model.loads, analysis.lambda_max, analysis.lambda_max_kind),
            stable_below=analysis.lambda_sufficient if math.isfinite(analysis.lambda_sufficient) else None,
        ),
    )


# ----------------------------------------------------------------------- tuned knobs


@dataclass(frozen=True)
class Knob:
    """A cell's tuned parameter: ``{tune: [lo, hi], objective: ...}``."""

    name: str
    lo: float
    hi: float
    objective: str = "mean"
    """What the search minimises (``OBJECTIVES``: ``mean``, or a quantile ``p99``)."""

    @property
    def level(self) -> float | None:
        """The latency quantile the search minimises (None: the mean, or the hedges)."""
        return OBJECTIVES.get(self.objective)

    @property
    def hedges(self) -> float | None:
        """The b of ``hedges=b``: the extra copies per job the delay is set to send."""
        return hedges_target(self.objective)

    def words(self) -> str:
        """What the search minimises, in words."""
        if self.hedges is not None:
            return f"{self.hedges:g} hedges per job (Finagle's rule)"
        return "the least mean response time" if self.level is None else f"the least {self.objective.upper()}"


def tuned_knob(resolved: ResolvedConfig, cell: Cell) -> Knob | None:
    """The cell's tuned parameter ``{tune: [lo, hi]}``, or None (the config allows one
    per policy, never on a grid axis)."""
    params = resolved.policies.get(cell.policy) or {}
    for name in tuned_parameters(params):
        pair = tuned_range(params[name])
        if pair is not None and name in POLICIES[cell.policy].tunable:
            return Knob(name, pair[0], pair[1], tuned_objective(params[name]))
    return None


def analysis_optimum(name: str, model, analysis, notes: list[str]) -> np.ndarray:
    """The analysis's optimum of the tuned parameter ``name`` at each load (NaN where it
    has none): ``tau_opt`` (one threshold for both pools: a pair chosen per pool is no
    value of the knob, a note says so), ``keep_opt``; NaN for a parameter the analysis
    does not choose."""
    out = np.full(len(model.loads), math.nan)
    if name not in POLICIES[model.policy].chosen_by_analysis or name not in ANALYSIS_CHOICES:
        return out
    value, missing = ANALYSIS_CHOICES[name](model, analysis)
    if value is None:
        notes.append(missing)
        return out
    if name == "tau":
        first, second = value
        if not math.isclose(first, second, rel_tol=1e-6):  # the pools' optima found apart agree to 1e-6
            notes.append(
                f"{model.policy}: the analysis chose a threshold per pool ({first:.6g}, {second:.6g}); the tuned "
                f"tau is one threshold for both pools, so the analysis's optimum is not one of its values"
            )
            return out
        out[:] = first
        return out
    out[:] = np.asarray(value, dtype=float)
    return out


def _evaluate_tuned(
    resolved: ResolvedConfig, cell: Cell, knob: Knob, store_root, stats: dict | None, replications: int | None = None
) -> xr.Dataset:
    """A cell with a tuned parameter (docs/guide/tuning.md): at each load, the search of
    :mod:`straggler.study.tuning`, each value a whole evaluation of the cell at that load
    (:func:`evaluate_cell`, its replications in their own store under ``store_root``);
    the cell's dataset holds, per load, the results at the chosen value, and its
    analytic variables are the analysis's with the value :meth:`PolicySpec.analysis_value`
    (``opt`` where the analysis chooses the parameter)."""

    from ..engines.analysis.cell import analyze
    from ..model.policies import impossible_reason
    from .cell_build import build_model
    from .config.axes import apply_override
    from .grid import cell_config
    from .variables import VARIABLES

    name, lo, hi = knob.name, knob.lo, knob.hi
    policy = cell.policy
    spec = POLICIES[policy]
    integer = spec.tunable[name].integer
    chosen = spec.analysis_value(name, lo, hi)
    base = apply_override(resolved, f"{policy}.{name}", chosen)
    model = build_model(base, cell)
    result = analyze(model)
    notes: list[str] = []
    values: dict = {"size_mean": size_mean(model)}
    if "analytic" in resolved.evaluate:
        values.update({n: getattr(result, n) for n in ANALYTIC_VARIABLES})
        notes.extend(result.notes)
    optimum = analysis_optimum(name, model, result, notes)
    if (knob.level is not None or knob.hedges is not None) and np.isfinite(optimum).any():
        # the analyses' optima minimise the mean: tried as a value, compared with nothing
        notes.append(
            f"{policy}.{name}: the analysis's optimum minimises the mean response time, not the "
            f"{knob.words()} the search looks for; it is tried, not compared"
        )
        optimum_for_search, optimum = optimum, np.full_like(optimum, math.nan)
    else:
        optimum_for_search = optimum
    params = cell_config(base, cell).policies.get(policy, {})
    d = int(cell.get("d", 1))

    def feasible(value) -> bool:
        return impossible_reason(policy, {**params, name: value}, d) is None

    choices, per_load, jobs = _tune_each_load(
        resolved, cell, knob, integer, optimum_for_search, feasible, store_root, notes, replications
    )
    if stats is not None:
        stats["simulated_jobs"] = jobs
    analytic = set(ANALYTIC_VARIABLES) if "analytic" in resolved.evaluate else set()
    for var in VARIABLES:
        if "load" not in var.dims or var.name in analytic or var.name in values:
            continue
        rows = [None if ds is None or var.name not in ds else ds[var.name].values[0] for ds in per_load]
        values[var.name] = _stack(rows, var.kind)
    values["tuned_value"] = np.array([_number(c.best) for c in choices])
    values["tuned_low"] = np.array([_number(c.low) for c in choices])
    values["tuned_high"] = np.array([_number(c.high) for c in choices])
    values["tuned_analysis"] = optimum
    # each load's own notes (its verdict's, its value's analysis's), with where they hold
    where: dict[str, list[str]] = {}
    for load, choice, ds in zip(resolved.load, choices, per_load):
        value = "none stable" if choice.best is None else f"{name} = {choice.best:.6g}"
        for note in [] if ds is None else json.loads(ds.attrs.get("notes", "[]")):
            if note not in notes:
                where.setdefault(note, []).append(f"{load} ({value})")
    notes.extend(f"at load {', '.join(at)}: {note}" for note, at in where.items())
    verdicts = [tuning.agreement(float(x), c, lo, hi) for x, c in zip(optimum, choices)]
    notes.append(_tuning_note(spec, knob, resolved.load, choices, optimum, verdicts))
    seed = seed_sequence(int(resolved.seed), workload_id(cell))
    attrs = {
        "cell_id": cell.id,
        "cell": json.dumps(dict(cell.coords), default=str),
        "notes": json.dumps(notes),
        "cell_entropy": str(seed.entropy),
        "cell_spawn_key": json.dumps(list(seed.spawn_key)),
        "load_basis": model.load_basis,
        "tuned_parameter": f"{policy}.{name}",
        "tuned_range": json.dumps([lo, hi]),
        "tuned_objective": knob.objective,
        "tuned_agreement": json.dumps(verdicts),
    }
    return dataset.cell_dataset(model.loads, values, attrs)


def _outcome(ds: xr.Dataset, knob: Knob) -> tuning.Outcome:
    """What one value's evaluation (one load) says of the search's objective: the mean
    response time, the quantile ``knob.level``, or the distance of the hedges per job
    from ``knob.hedges``, and each replication's own."""
    stable = bool(ds["stable"].values[0] == 1)
    level = knob.level
    if knob.hedges is not None:
        b = knob.hedges
        reps = np.abs(np.asarray(ds["copies_replication_mean"].values[0], dtype=float) - 1.0 - b)
        return tuning.Outcome(abs(float(ds["copies_mean"].values[0]) - 1.0 - b), reps.tolist(), stable)
    if level is None:
        return tuning.Outcome(
            float(ds["latency_mean"].values[0]), ds["latency_replication_mean"].values[0].tolist(), stable
        )
    at = {"quantile": level}
    value = float(ds["latency_quantile"].sel(at, method="nearest").values[0])
    reps = ds["latency_replication_quantile"].sel(at, method="nearest").values[0]
    return tuning.Outcome(value, np.asarray(reps, dtype=float).ravel().tolist(), stable)


def _number(value) -> float:
    return math.nan if value is None else float(value)


def _stack(rows: list, kind: str) -> np.ndarray:
    """One load's values per row into the cell's (load, ...) array: a missing row and a
    shorter replication axis (precision mode) are left NaN (or "")."""
    present = [np.asarray(r) for r in rows if r is not None]
    shape = tuple(max(r.shape[k] for r in present) for k in range(present[0].ndim)) if present else ()
    out = np.full((len(rows), *shape), "" if kind == "str" else math.nan, dtype=object if kind == "str" else float)
    for i, row in enumerate(rows):
        if row is not None:
            row = np.asarray(row)
            if row.ndim == 0:  # a scalar, not a 0-d array, in an object (string) array
                out[i] = row.item()
            else:
                out[i][tuple(slice(0, n) for n in row.shape)] = row
    return out


def _tuning_note(spec, knob: Knob, loads, choices, optimum, verdicts) -> str:
    """The cell's note on its tuned knob: what was searched, what won, what the analysis
    took, and whether the simulation agrees with the analysis's optimum."""
    name, lo, hi = knob.name, knob.lo, knob.hi
    tried = max((len(c.tried) for c in choices), default=0)
    best = ", ".join(
        f"{load}: {'none stable' if c.best is None else f'{c.best:.6g}'}" for load, c in zip(loads, choices)
    )
    text = (
        f"{spec.name}.{name} tuned by simulation over [{lo}, {hi}] for {knob.words()}, per load "
        f"(up to {tried} values, common random numbers); best by load: {best}; the analysis (analytic "
        f"variables) took {spec.analysis_value_words(name)}"
    )
    if np.isnan(optimum).all():
        return text + "; the analysis gives no optimum to compare with"
    words = sorted(set(verdicts), key=verdicts.index)
    by_word = {w: [str(load) for load, v in zip(loads, verdicts) if v == w] for w in words}
    said = "; ".join(f"{w} at load {', '.join(ls)}" for w, ls in by_word.items())
    return (
        text + f"; the analysis's optimum ({name} = {optimum[0]:.6g}"
        f"{'' if np.all(optimum == optimum[0]) else ', ...'}) against the values the simulation cannot "
        f"tell from its best: {said}"
    )


def _tune_each_load(
    resolved, cell: Cell, knob: Knob, integer: bool, optimum, feasible, store_root, notes, replications=None
):
    """(the search's choice, the cell's dataset at the chosen value or None, simulated
    jobs) per load of ``resolved``: each value tried is a whole evaluation of the cell at that
    load alone (:func:`evaluate_cell`), on the workload's common random numbers."""
    from dataclasses import replace

    from .config.axes import apply_override

    name, lo, hi = knob.name, knob.lo, knob.hi
    policy = cell.policy
    jobs = 0
    confidence = float(resolved.simulation.confidence)
    per_load: list[xr.Dataset | None] = []
    choices: list[tuning.Choice] = []
    for i, load in enumerate(resolved.load):
        at_load = replace(resolved, load=(load,))
        datasets: dict = {}

        def run(value, at_load=at_load, datasets=datasets) -> tuning.Outcome:
            nonlocal jobs
            own_stats: dict = {}
            # the cell of the study's grid is the cell of this config's: the knob is on no axis
            ds = _evaluate(
                apply_override(at_load, f"{policy}.{name}", value), cell, store_root, own_stats, replications
            )
            jobs += int(own_stats.get("simulated_jobs", 0))
            datasets[value] = ds
            return _outcome(ds, knob)

        x = float(optimum[i])
        search = tuning.Search(lo, hi, integer, confidence, None if math.isnan(x) else x)
        while (value := search.ask()) is not None:
            search.tell(run(value) if feasible(value) else None)
        choice = search.choice
        choices.append(choice)
        if choice.best is not None:
            per_load.append(datasets[choice.best])
        elif datasets:  # nothing stable: the load's verdicts and evidence at the first value tried
            per_load.append(next(iter(datasets.values())))
        else:
            per_load.append(None)
            notes.append(f"{policy}.{name}: no value of [{lo}, {hi}] can be evaluated at load {load}")
    return choices, per_load, jobs
