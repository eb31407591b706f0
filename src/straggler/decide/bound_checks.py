"""Checks of a study dataset against its own analysis.

:func:`bound_table` compares every simulated mean with every analytic value that
bounds it, on any study dataset (the dataset contract: docs/background/contracts.md):

=========  =====  ==================================================================
quantity   side   analytic value
=========  =====  ==================================================================
latency    lower  ``latency_lower``; ``latency_approx`` of kind ``exact`` or ``lower_bound``
latency    upper  ``latency_approx`` of kind ``exact`` or ``upper_bound``
cost       lower  ``cost_lower``; ``cost`` of kind ``exact`` or ``lower_bound``
cost       upper  ``cost_upper``; ``cost`` of kind ``exact``
=========  =====  ==================================================================

(an exact value bounds from both sides; approximations are not bounds and are
not checked; ``latency_group`` describes another system than the simulated one).
A simulated mean ``m`` with confidence half-width ``ci`` violates a lower bound
``b`` when ``m + widths * ci < b`` and an upper one when ``m - widths * ci > b``;
``excess`` is the distance beyond the bound in half-widths (positive: outside).
A missing half-width (one replication) counts as 0.

Heavy tails: where the replica size has an infinite third moment (Pareto type I
with ``alpha <= 3``) the waiting time has infinite variance, the simulated mean
converges slowly and from below and its CI under-covers (docs/validation/checks.md); such
rows carry ``heavy_tail = True`` so that a reader can tell a slow estimate from
a wrong bound.

:func:`unexplained_values` lists the analytic values (``lambda_max``, ``cost``,
``latency_approx``) that are NaN or +inf in a cell whose notes do not name the
variable (the analysis says why a value is missing or infinite, naming it).

Stability verdicts (:func:`verdict_violations`): no load at or above an ``exact``
bound, or above a ``necessary`` one, is ``stable``; no ``stable`` load lies above an
``unstable`` one of the same grid point (where the policy's stability is monotone in
the load); no load that is not ``stable`` carries an estimate.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import xarray as xr

#: (quantity, side, analytic variable, kinds of that variable that make it a bound
#: on this side, or None when the variable is a bound on this side by definition)
BOUNDS: tuple[tuple[str, str, str, tuple[str, ...] | None], ...] = (
    ("latency", "lower", "latency_lower", None),
    ("latency", "lower", "latency_approx", ("exact", "lower_bound")),
    ("latency", "upper", "latency_approx", ("exact", "upper_bound")),
    ("cost", "lower", "cost_lower", None),
    ("cost", "lower", "cost", ("exact", "lower_bound")),
    ("cost", "upper", "cost_upper", None),
    ("cost", "upper", "cost", ("exact",)),
)

COLUMNS = ("quantity", "side", "bound_variable", "kind", "bound", "mean", "ci", "excess", "violated", "heavy_tail")


def bound_table(ds: xr.Dataset, widths: float = 1.0) -> pd.DataFrame:
    """Every (grid point, load, bound) where both a simulated mean and an analytic
    bound on it are finite, with the columns of the grid and ``load`` followed by
    :data:`COLUMNS`."""
    grid_dims = [d for d in ds["lambda_max"].dims]
    heavy = _heavy_tailed_distributions(ds)
    frames = []
    for quantity, side, variable, kinds in BOUNDS:
        if variable not in ds or f"{quantity}_mean" not in ds:
            continue
        mean = ds[f"{quantity}_mean"]
        ci = ds[f"{quantity}_mean_ci"].fillna(0.0) if f"{quantity}_mean_ci" in ds else 0.0 * mean
        bound = ds[variable].broadcast_like(mean)
        kind_var = f"{variable}_kind" if variable in ("latency_approx", "cost") else None
        if kinds is not None:
            kind = ds[kind_var].broadcast_like(mean).astype(str)
            use = kind.isin(list(kinds))
        else:
            kind = xr.full_like(mean, np.nan, dtype=object).fillna("bound").astype(str)
            use = xr.ones_like(mean, dtype=bool)
        use = use & np.isfinite(bound) & np.isfinite(mean)
        if not bool(use.any()):
            continue
        data = xr.Dataset({"bound": bound, "mean": mean, "ci": ci, "kind": kind, "use": use})
        df = data.to_dataframe().reset_index()
        df = df[df["use"].astype(bool)].drop(columns=["use"])
        keep = [c for c in grid_dims + ["load"] if c in df.columns]
        keep += [c for c in df.columns if c in ds.coords and c not in keep and c != "quantile"]
        df = df[keep + ["bound", "mean", "ci", "kind"]].copy()
        df.insert(len(keep), "quantity", quantity)
        df.insert(len(keep) + 1, "side", side)
        df.insert(len(keep) + 2, "bound_variable", variable)
        frames.append(df)
    if not frames:  # nothing simulated (or no bound): an empty table of the same shape
        dtypes: dict[str, type] = {
            "bound": float,
            "mean": float,
            "ci": float,
            "excess": float,
            "violated": bool,
            "heavy_tail": bool,
        }
        cols = [*grid_dims, "load", *COLUMNS]
        return pd.DataFrame({c: pd.Series(dtype=dtypes.get(str(c), object)) for c in cols})
    out = pd.concat(frames, ignore_index=True)
    # an exact cost is also stored as cost_lower = cost_upper: one row per bound value
    key = [c for c in out.columns if c not in ("bound_variable", "kind", "ci", "mean")]
    out = out.drop_duplicates(subset=key, keep="first").reset_index(drop=True)
    sign = np.where(out["side"] == "lower", 1.0, -1.0)
    gap = sign * (out["bound"] - out["mean"])  # > 0: the mean is beyond the bound
    with np.errstate(divide="ignore", invalid="ignore"):
        out["excess"] = np.where(out["ci"] > 0, gap / out["ci"], np.sign(gap) * math.inf)
    out.loc[gap == 0, "excess"] = 0.0
    out["violated"] = gap > widths * out["ci"]
    if "distribution" in out:
        out["heavy_tail"] = out["distribution"].astype(str).map(heavy).fillna(False).astype(bool)
    else:
        out["heavy_tail"] = False
    order = [c for c in out.columns if c not in COLUMNS] + list(COLUMNS)
    return out[order]


def bound_violations(ds: xr.Dataset, widths: float = 1.0) -> pd.DataFrame:
    """The rows of :func:`bound_table` where a simulated mean lies outside an
    analytic bound by more than ``widths`` confidence half-widths."""
    table = bound_table(ds, widths)
    return table[table["violated"]].reset_index(drop=True)


def _heavy_tailed_distributions(ds: xr.Dataset) -> dict[str, bool]:
    """Distribution name -> infinite third moment of the size, from the config that
    travels in the dataset's attributes (``{}`` when it is not there)."""
    import yaml

    from ..model.distributions import Pareto, from_spec

    try:
        specs = yaml.safe_load(ds.attrs["config"])["distributions"]
    except (KeyError, TypeError, yaml.YAMLError):
        return {}
    out = {}
    for name, spec in (specs or {}).items():
        try:
            X = from_spec(json.loads(json.dumps(spec)))
        except (ValueError, TypeError):
            continue
        out[str(name)] = isinstance(X, Pareto) and X.alpha <= 3.0
    return out


#: analytic values that must be finite or explained by a note naming them
EXPLAINED = ("lambda_max", "cost", "latency_approx")


def unexplained_values(ds: xr.Dataset) -> pd.DataFrame:
    """Grid points (with their cell id) where an analytic value of :data:`EXPLAINED`
    is NaN or +inf and none of the cell's notes (``cell_notes``) names the variable.
    Impossible grid points (``impossible_cells``, NaN by construction) are skipped;
    so is a dataset evaluated without ``analytic``."""
    import yaml

    from ..study.config.resolved import ResolvedConfig
    from ..study.grid import build_grid

    resolved = yaml.safe_load(ds.attrs["config"])
    if "analytic" not in resolved.get("evaluate", ["analytic"]):
        return pd.DataFrame(columns=["cell", "variable", "value"])
    grid = build_grid(ResolvedConfig.from_dict(resolved))
    notes = json.loads(ds.attrs.get("cell_notes", "{}"))
    dims = list(grid.axes)
    rows = []
    for point, cid in grid.point_cells.items():
        if cid is None:
            continue
        where = dict(zip(dims, point))
        sel = {d: _coord_value(ds, d, v) for d, v in where.items()}
        text = " ".join(notes.get(cid, []))
        for name in EXPLAINED:
            values = np.atleast_1d(ds[name].sel(sel).values).astype(float)
            bad = [w for w, test in (("nan", np.isnan), ("+inf", np.isposinf)) if test(values).any()]
            if bad and name not in text:
                rows.append({**where, "cell": cid, "variable": name, "value": "/".join(bad)})
    return pd.DataFrame(rows, columns=[*dims, "cell", "variable", "value"])


def _coord_value(ds: xr.Dataset, dim: str, value):
    """The dataset's coordinate value for a config literal (strings stay strings,
    numbers are matched as the coordinate's dtype)."""
    coord = ds[dim].values
    if coord.dtype.kind in "if":
        return coord.dtype.type(value)
    return str(value)


def verdict_violations(ds: xr.Dataset) -> pd.DataFrame:
    """Every (grid point, load) whose verdict contradicts the analytic bounds or the
    rules of :mod:`straggler.study.verdict` (see the module docstring): columns ``point``,
    ``load``, ``verdict``, ``problem``."""
    from ..model.policies import stability_monotone

    rows: list[dict] = []
    if "verdict" not in ds:
        return pd.DataFrame(rows, columns=["point", "load", "verdict", "problem"])
    grid_dims = [d for d in ds["lambda_max"].dims]
    verdict = ds["verdict"].transpose(*grid_dims, "load")
    lm = ds["lambda_max"].transpose(*grid_dims).values
    kind = ds["lambda_max_kind"].transpose(*grid_dims).values
    loads = ds["load"].values
    estimate = ds["latency_mean"].transpose(*grid_dims, "load").values
    policies = [str(p) for p in ds["policy"].values]
    params = _policy_params(ds)
    for index in np.ndindex(*verdict.shape[:-1]):
        point = {d: _plain(ds[d].values[i]) for d, i in zip(grid_dims, index)}
        v = verdict.values[index]
        if not any(v):
            continue  # an impossible grid point
        bound, k = float(lm[index]), str(kind[index])
        for li, load in enumerate(loads):
            problem = ""
            if v[li] == "stable" and math.isfinite(bound):
                if k == "exact" and load >= bound * (1 - 1e-9):
                    problem = f"stable at or above the exact bound {bound:.6g}"
                elif k == "necessary" and load > bound * (1 + 1e-9):
                    problem = f"stable above the necessary bound {bound:.6g}"
            if v[li] != "stable" and np.isfinite(estimate[index][li]):
                problem = f"an estimate at a load that is {v[li] or 'not evaluated'}"
            if problem:
                rows.append({"point": point, "load": float(load), "verdict": v[li], "problem": problem})
        policy = policies[index[grid_dims.index("policy")]]
        if stability_monotone(policy, params.get(policy, {})):
            order = np.argsort(loads)
            seen = None
            for li in order:
                if v[li] == "unstable" and seen is None:
                    seen = loads[li]
                elif v[li] == "stable" and seen is not None:
                    rows.append(
                        {
                            "point": point,
                            "load": float(loads[li]),
                            "verdict": "stable",
                            "problem": f"stable above the unstable load {seen:g}",
                        }
                    )
    return pd.DataFrame(rows, columns=["point", "load", "verdict", "problem"])


def _policy_params(ds: xr.Dataset) -> dict:
    import yaml

    try:
        return dict(yaml.safe_load(ds.attrs.get("config", "")).get("policies", {}) or {})
    except (yaml.YAMLError, AttributeError):
        return {}


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
