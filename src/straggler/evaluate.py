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

import json
import logging
import math

import numpy as np
import xarray as xr

from . import dataset
from .grid import build_grid, seed_sequence

log = logging.getLogger(__name__)

ANALYTIC_VARIABLES = ("lambda_max", "lambda_max_kind", "lambda_sufficient", "tau_opt", "tau_opt_pool2", "q_opt",
                      "keep_opt", "rho", "cost", "cost_kind", "cost_lower", "cost_upper",
                      "latency_approx", "latency_approx_kind", "latency_lower",
                      "latency_group", "latency_group_kind")


def evaluate_cell(resolved: dict, cell_id: str) -> xr.Dataset:
    from .analysis.cell import analyze
    from .model import build_model

    grid = build_grid(resolved)
    if cell_id not in grid.cells:
        known = ", ".join(list(grid.cells)[:5])
        raise KeyError(f"cell {cell_id!r} is not in this study's grid (e.g. {known})")
    cell = grid.cells[cell_id]
    model = build_model(resolved, cell)
    seed = seed_sequence(int(resolved["seed"]), cell_id)
    values: dict = {}
    notes: list[str] = []
    result = analyze(model)
    if "analytic" in resolved["evaluate"]:
        values.update({name: getattr(result, name) for name in ANALYTIC_VARIABLES})
        notes.extend(result.notes)
    if "simulation" in resolved["evaluate"]:
        values.update(_simulate(model, seed, resolved["simulation"], result, notes))
    attrs = {
        "cell_id": cell_id,
        "cell": json.dumps(dict(cell.coords), default=str),
        "notes": json.dumps(notes),
        "cell_entropy": str(seed.entropy),
        "cell_spawn_key": json.dumps(list(seed.spawn_key)),
        "load_basis": model.load_basis,
    }
    return dataset.cell_dataset(model.loads, values, attrs)


def _simulate(model, seed, settings: dict, analysis, notes: list[str]) -> dict:
    """Simulated variables of the cell, or {} with a note when no engine covers it."""
    from . import simulation
    from .policies import POLICIES

    if POLICIES[model.policy].analytic_only:
        notes.append(f"{model.policy} is analytic only: {POLICIES[model.policy].description}")
        return {}
    tau = None
    if model.policy in ("Rer", "Rep") and model.params.get("tau") == "opt":
        if math.isnan(analysis.tau_opt):
            notes.append(f"{model.policy}: no optimal threshold from the analysis to simulate")
            return {}
        tau = (analysis.tau_opt,
               analysis.tau_opt if math.isnan(analysis.tau_opt_pool2) else analysis.tau_opt_pool2)
    keep = None
    if model.policy == "FJ" and model.params.get("keep") == "opt":
        if np.isnan(analysis.keep_opt).any():
            notes.append("FJ: no keep chosen by the analysis to simulate")
            return {}
        keep = analysis.keep_opt.astype(int)
    try:
        sim = simulation.simulate(
            model, seed, jobs=int(settings["jobs"]), warmup=int(settings["warmup"]),
            replications=int(settings["replications"]),
            confidence=float(settings["confidence"]), alpha=analysis.alpha, tau=tau, keep=keep,
        )
    except NotImplementedError as err:
        log.warning("%s", err)
        notes.append(f"not simulated: {err}")
        return {}
    notes.extend(sim.notes)
    unstable = np.asarray(sim.stable) == 0
    if unstable.any():
        notes.append(f"simulation: backlog grows at loads {model.loads[unstable].tolist()}")
    _flag_loads_above_bound(model, analysis, np.asarray(sim.stable), notes)
    return sim.values()


def _flag_loads_above_bound(model, analysis, stable: np.ndarray, notes: list[str]) -> None:
    """Loads above the analytic stability bound are simulated anyway (the verdict
    checks the bound); say which, and flag a verdict that contradicts a bound that
    no stable system can exceed (a finite run near the bound may still pass)."""
    bound = analysis.lambda_max
    if not math.isfinite(bound) or analysis.lambda_max_kind not in ("exact", "necessary",
                                                                   "conjectured"):
        return
    above = model.loads > bound
    if not above.any():
        return
    notes.append(f"simulated above the analytic bound lambda_max = {bound:.6g} "
                 f"({analysis.lambda_max_kind}) at loads {model.loads[above].tolist()}, "
                 f"verdicts stable = {stable[above].astype(int).tolist()}")
