"""Evaluate one grid cell: analysis (and, once it lands, simulation) at every load.

This is what the ``evaluate`` rule runs, one job per distinct cell; it can also
be called from a plain Python session to debug a cell::

    from straggler.evaluate import evaluate_cell
    ds = evaluate_cell(resolved_config, "policy=ZRed__distribution=exp__...")
"""

from __future__ import annotations

import json
import logging

import xarray as xr

from . import dataset
from .grid import build_grid, seed_sequence

log = logging.getLogger(__name__)

SIMULATION_UNAVAILABLE = "simulation is not implemented yet; simulated variables are NaN"


def evaluate_cell(resolved: dict, cell_id: str) -> xr.Dataset:
    from .analysis.cell import analyze
    from .model import build_model

    grid = build_grid(resolved)
    if cell_id not in grid.cells:
        known = ", ".join(list(grid.cells)[:5])
        raise KeyError(f"cell {cell_id!r} is not in this study's grid (e.g. {known})")
    cell = grid.cells[cell_id]
    model = build_model(resolved, cell)
    values: dict = {}
    notes: list[str] = []
    if "analytic" in resolved["evaluate"]:
        result = analyze(model)
        values.update(
            lambda_max=result.lambda_max,
            lambda_max_kind=result.lambda_max_kind,
            tau_opt=result.tau_opt,
            tau_opt_pool2=result.tau_opt_pool2,
            q_opt=result.q_opt,
            rho=result.rho,
            cost=result.cost,
            latency_approx=result.latency_approx,
            latency_approx_kind=result.latency_approx_kind,
        )
        notes.extend(result.notes)
    if "simulation" in resolved["evaluate"]:
        log.warning("%s: %s", cell_id, SIMULATION_UNAVAILABLE)
        notes.append(SIMULATION_UNAVAILABLE)
    seed = seed_sequence(int(resolved["seed"]), cell_id)
    attrs = {
        "cell_id": cell_id,
        "cell": json.dumps(dict(cell.coords), default=str),
        "notes": json.dumps(notes),
        "cell_entropy": str(seed.entropy),
        "cell_spawn_key": json.dumps(list(seed.spawn_key)),
    }
    return dataset.cell_dataset(model.loads, values, attrs)
