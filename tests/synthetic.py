"""Small synthetic study datasets (fixed seeds) for the figure, report and claims tests:
the variables of the dataset contract on a grid of the caller's choice, filled with
plausible numbers, no evaluation run."""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from straggler.common.quantiles import QUANTILES

GRID_DIMS = ("policy", "distribution", "dependence", "r_slow", "d", "N")


def study(
    policies=("ZRed", "FRed", "KT", "CoC"),
    distributions=("exp", "pareto"),
    dependences=("identical", "iid"),
    r_slow=(0.5, 1.0),
    d=(2,),
    N=(10,),
    loads=(0.2, 0.5, 0.8),
    seed=1,
    name="synthetic",
    extra=None,
) -> xr.Dataset:
    """A study dataset: every policy stable below 0.6 and unstable above it, but for the
    first one, undetermined at the last load; analytic values exact for the first
    policy, an upper bound (necessary) for the others."""
    rng = np.random.default_rng(seed)
    coords = {
        "policy": list(policies),
        "distribution": list(distributions),
        "dependence": list(dependences),
        "r_slow": list(r_slow),
        "d": list(d),
        "N": list(N),
    }
    if extra:
        coords.update(extra)
    dims = tuple(coords)
    shape = tuple(len(v) for v in coords.values())
    L = len(loads)
    load = np.asarray(loads, dtype=float)
    lam = 0.6 + 0.4 * rng.random(shape)
    kind = np.full(shape, "necessary", dtype=object)
    kind[0] = "exact"
    cost = 1.0 + rng.random(shape)
    cost_kind = np.where(kind == "exact", "exact", "lower_bound").astype(object)
    base = 1.0 + rng.random(shape)
    lat = base[..., None] / (1.0 - load / 1.2)
    verdict = np.where(load < 0.6, "stable", "unstable").astype(object)
    verdict = np.broadcast_to(verdict, shape + (L,)).copy()
    verdict[0, ..., -1] = "undetermined"
    est = np.where(verdict == "stable", lat, np.nan)
    approx = lat * (1.0 + 0.05 * rng.standard_normal(lat.shape))
    approx_kind = np.where(kind == "exact", "exact", "upper_bound").astype(object)
    q = np.stack([est * 0.8, est * 1.5, est * 2.0, est * 3.0, est * 5.0], axis=-1)  # at QUANTILES
    ds = xr.Dataset(
        {
            "lambda_max": (dims, lam),
            "lambda_max_kind": (dims, kind),
            "lambda_sufficient": (dims, np.where(kind == "exact", lam, 0.3)),
            "cost": (dims, cost),
            "cost_kind": (dims, cost_kind),
            "rho": (dims + ("load",), load / lam[..., None]),
            "latency_approx": (dims + ("load",), approx),
            "latency_approx_kind": (dims, approx_kind),
            "latency_mean": (dims + ("load",), est),
            "latency_mean_ci": (dims + ("load",), 0.02 * est),
            "latency_quantile": (dims + ("load", "quantile"), q),
            "cost_mean": (dims + ("load",), np.where(verdict == "stable", cost[..., None] * np.ones(L), np.nan)),
            "cost_mean_ci": (dims + ("load",), np.full(shape + (L,), 0.01)),
            "verdict": (dims + ("load",), verdict),
            "verdict_source": (dims + ("load",), np.where(verdict == "undetermined", "", "simulation").astype(object)),
            "jobs": (dims + ("load",), np.full(shape + (L,), 1e5)),
            "jobs_to_verdict": (dims + ("load",), np.where(verdict == "undetermined", 2e5, np.nan)),
            "latency_mean_kind": (dims + ("load",), np.where(verdict == "stable", "estimate", "").astype(object)),
        },
        coords={**coords, "load": load, "quantile": list(QUANTILES)},
        attrs={
            "study": name,
            "seed": 1,
            "config": "simulation: {confidence: 0.95}\nevaluate: [analytic, simulation]\n",
            "cell_notes": json.dumps({}),
            "impossible_cells": "[]",
        },
    )
    return ds


def crowded_question() -> xr.Dataset:
    """A question's study with 16 contenders at one load (8 policies, d = 2, 3, 4): P99 at
    most 6 and extra load at most 0.4, E[X] = 1 and CIs on the quantiles. Its answer needs
    the servers (Rer), and its names crowd one panel."""
    import yaml

    ds = study(
        policies=("ZRed", "FRed", "Rer", "Rep", "CoC", "CoS", "RIQ", "Hedge"),
        distributions=("exp",),
        dependences=("iid",),
        r_slow=(1.0,),
        d=(2, 3, 4),
        loads=(0.5,),
    )
    ds.attrs["config"] += yaml.safe_dump(
        {"decision": {"slo": {"quantile": 0.99, "target": 6}, "budget": {"extra_load": 0.4}}}
    )
    ds["size_mean"] = ds["lambda_max"] * 0 + 1.0
    ds["latency_quantile_ci"] = ds["latency_quantile"] * 0.05
    return ds
