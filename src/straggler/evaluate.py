"""Evaluate one grid cell: analysis and simulation at every load.

This is what the ``evaluate`` rule runs, one job per distinct cell; it can also
be called from a plain Python session to debug a cell::

    from straggler.evaluate import evaluate_cell
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

from . import dataset, verdict
from .grid import build_grid, seed_sequence, workload_id

if TYPE_CHECKING:  # imported where used: the analysis costs start-up time
    from .analysis.cell import AnalyticResult
    from .cell_model import CellModel
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
    "latency_lower",
    "latency_group",
    "latency_group_kind",
)


@dataclass
class _Cell:
    """A cell ready to evaluate: its model, stream, analysis and simulation settings."""

    id: str
    cell: Cell
    model: CellModel
    seed: np.random.SeedSequence
    analysis: AnalyticResult
    monotone: bool
    settings: dict
    """the keyword arguments :func:`straggler.simulation.simulate` and
    :func:`~straggler.simulation.simulate_shard` share, or None (not simulated)"""
    notes: list[str]
    store: object = None


def _prepare(resolved: ResolvedConfig, cell_id: str, store_root=None) -> _Cell:
    from .analysis.cell import analyze
    from .cell_build import build_model
    from .policies import stability_monotone

    cell = build_grid(resolved).cell(cell_id)  # an unknown id: grid.UnknownCell, a KeyError
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
    prepared = _Cell(cell_id, cell, model, seed, analysis, monotone, settings, notes)
    if settings is not None and store_root is not None:
        from .simulation.store import Store

        prepared.store = Store(store_root, store_key(resolved, cell, settings))
    return prepared


def store_key(resolved: ResolvedConfig, cell, settings: dict) -> str:
    """Where the cell's replications are kept: a hash of what a replication depends
    on (the cell's id and settings but its load list, the simulation's sources, and
    the analysis's choices the simulation uses), so that a new load or a change of
    the analysis alone reuses what was simulated."""
    from .grid import result_spec
    from .sources import simulation_hash

    spec = {k: v for k, v in result_spec(resolved, cell).items() if k != "load"}
    keep = settings["keep"]
    choice = {
        "alpha": None if settings["alpha"] is None else np.asarray(settings["alpha"]).tolist(),
        "tau": None if settings["tau"] is None else [float(t) for t in settings["tau"]],
        "keep": None if keep is None or np.ndim(keep) > 0 else int(keep),
    }
    text = json.dumps([cell.id, spec, choice, simulation_hash()], sort_keys=True, default=str)
    return f"{cell.policy}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def evaluate_cell(resolved: ResolvedConfig, cell_id: str, store_root=None, stats: dict | None = None) -> xr.Dataset:
    """The cell's dataset: analysis, simulation (its replications read from and written
    to the store under ``store_root``, when given) and verdicts. ``stats``, when given,
    receives ``simulated_jobs`` (jobs run here, not read back). An id that is not a cell
    of the grid is :class:`straggler.grid.UnknownCell` (a KeyError)."""
    from .analysis.tails import latency_tail

    c = _prepare(resolved, cell_id, store_root)
    model, result = c.model, c.analysis
    values: dict = {"size_mean": size_mean(model)}
    notes: list[str] = []
    if "analytic" in resolved.evaluate:
        values.update({name: getattr(result, name) for name in ANALYTIC_VARIABLES})
        notes.extend(result.notes)
    notes.extend(c.notes)
    sim = None
    if c.settings is not None:
        # imported here: the simulation package pulls numba (~1.3 s), which an analytic
        # cell (every cell of an analytic study) never needs
        from . import simulation

        run = resolved.simulation
        try:
            sim = simulation.simulate(
                model,
                c.seed,
                confidence=float(run.confidence),
                precision=run.precision,
                max_jobs=run.max_jobs,
                store=c.store,
                **c.settings,
            )
        except NotImplementedError as err:
            log.warning("%s", err)
            notes.append(f"not simulated: {err}")
        else:
            notes.extend(sim.notes)
            if stats is not None:
                stats["simulated_jobs"] = sim.fresh_jobs
    # the verdicts always weigh the analysis: a load it proves unstable is never stable
    verdicts = verdict.reconcile(
        model.loads, result.lambda_max, result.lambda_max_kind, result.lambda_sufficient, sim, c.monotone
    )
    if sim is not None:
        values.update(verdict.apply(sim.values(), verdicts, latency_tail(model)))
    else:
        values.update(
            verdict=verdicts.verdict,
            verdict_source=verdicts.source,
            verdict_evidence=verdicts.evidence,
            stable=verdicts.stable,
        )
    notes.extend(verdicts.notes)
    attrs = {
        "cell_id": cell_id,
        "cell": json.dumps(dict(c.cell.coords), default=str),
        "notes": json.dumps(notes),
        "cell_entropy": str(c.seed.entropy),
        "cell_spawn_key": json.dumps(list(c.seed.spawn_key)),
        "load_basis": model.load_basis,
    }
    return dataset.cell_dataset(model.loads, values, attrs)


def size_mean(model: CellModel) -> float:
    """E[X], the dataset's ``size_mean``: the mean size of one copy of the job at speed 1,
    whatever the analysis or the simulation evaluate. A ``by_type`` law is the mixture
    under the cell's types' probabilities (:meth:`~straggler.distributions.ByType.with_types`,
    applied by :func:`~straggler.cell_build.build_model`); under an ``sx`` dependence it
    is the job's X, not a replica's X S; for FJ with ``split: shift`` (``model.size`` is
    then a task's law) the unsplit job's, whose replica mean is the load unit."""
    from .distributions import Deterministic

    if model.unit_mean is not None:
        # unit_mean = E[X_i] of the unsplit law = E[X] times E[S] (sx) or 1: E[X] back
        return float(model.unit_mean / model.dependence.replica_mean(Deterministic(1.0)))
    return float(model.size.mean())


def simulate_cell_shard(resolved: ResolvedConfig, cell_id: str, first: int, stop: int, store_root) -> int:
    """Simulate replications ``first .. stop - 1`` of a cell into its store (a shard,
    see :mod:`straggler.workunits`); returns the measured jobs run."""
    from . import simulation

    c = _prepare(resolved, cell_id, store_root)
    if c.settings is None or c.store is None:
        return 0
    try:
        return simulation.simulate_shard(c.model, c.seed, first, stop, store=c.store, **c.settings)
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
    from .policies import POLICIES
    from .simulation.run_length import KnownStability

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
