"""Which policy wins each setting of a study's grid, and on what evidence.

Shared by the figures (winner maps) and the report (tables and sentences): for
every setting (every axis but ``policy``) the policy with the largest stability
bound and the one with the smallest server time per job (:func:`winners`), and the
one with the smallest simulated mean latency at each load (:func:`latency_winners`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from . import policies


def plain(value):
    """A numpy scalar as the Python value (for tables and JSON)."""
    return value.item() if isinstance(value, np.generic) else value


TIE_TOLERANCE = 1e-9
"""Relative gap under which two policies tie (they are then listed together)."""

ORACLES = policies.ORACLES
"""Policies that know each job's type or size (``PolicySpec.oracle``): benchmarks,
not options, so the report also names the best policy without them."""


def setting_dims(ds: xr.Dataset) -> list[str]:
    return [str(d) for d in ds["lambda_max"].dims if d != "policy"]


def best_policy(values: np.ndarray, policies: list[str], larger: bool, skip=()) -> str:
    finite = np.isfinite(values) & np.array([p not in skip for p in policies], dtype=bool)
    if not finite.any():
        return ""
    target = np.nanmax(values[finite]) if larger else np.nanmin(values[finite])
    scale = max(abs(target), 1e-300)
    return ", ".join(p for p, v, ok in zip(policies, values, finite) if ok and abs(v - target) <= TIE_TOLERANCE * scale)


SIMULATED_BOUND = "necessary (simulation)"
"""Kind of a one-sided lambda_max lowered to the first load its simulation found unstable."""


def simulated_unstable(ds: xr.Dataset) -> xr.DataArray | None:
    """True where the simulation (alone or with the analysis) found the load unstable."""
    if "verdict" in ds and "verdict_source" in ds:
        return (ds["verdict"] == "unstable") & ds["verdict_source"].isin(["simulation", "both"])
    if "stable" in ds and np.isfinite(ds["stable"].values).any():  # datasets before verdicts
        return ds["stable"] == 0
    return None


def capped_by_simulation(ds: xr.Dataset) -> tuple[xr.DataArray, xr.DataArray]:
    """lambda_max and its kind, where a bound that is not exact is lowered to the
    smallest load at which the simulation found the backlog growing (the monitor is
    calibrated not to flag a stable load: statistics.py)."""
    lm, kinds = ds["lambda_max"], ds["lambda_max_kind"]
    unstable = simulated_unstable(ds)
    if unstable is None or not bool(unstable.any()):
        return lm, kinds
    loads = ds["load"].broadcast_like(unstable)
    first_unstable = loads.where(unstable).min("load")
    capped = (kinds != "exact") & (first_unstable < lm)
    return lm.where(~capped, first_unstable), kinds.where(~capped, SIMULATED_BOUND)


def winners(ds: xr.Dataset) -> pd.DataFrame:
    """One row per grid setting: the winners on stability (analysis, a one-sided
    bound capped by the simulation's verdicts) and on cost (analysis)."""
    policies = [str(p) for p in ds["policy"].values]
    dims = setting_dims(ds)
    capped, capped_kinds = capped_by_simulation(ds)
    lm = capped.transpose(*dims, "policy")
    cost = ds["cost"].transpose(*dims, "policy")
    kinds = capped_kinds.transpose(*dims, "policy")
    proven = (
        ds["lambda_sufficient"].transpose(*dims, "policy") if "lambda_sufficient" in ds else xr.full_like(lm, np.nan)
    )
    cost_kinds = (
        ds["cost_kind"].transpose(*dims, "policy") if "cost_kind" in ds else xr.full_like(cost, "", dtype=object)
    )
    rows = []
    for index in np.ndindex(*lm.shape[:-1]):
        setting = {d: plain(ds[d].values[i]) for d, i in zip(dims, index)}
        lm_values = lm.values[index]
        best_stability = best_policy(lm_values, policies, larger=True)
        best_cost = best_policy(cost.values[index], policies, larger=False)
        row = dict(setting)
        row["most_stable"] = best_stability
        if best_stability:
            first = policies.index(best_stability.split(", ")[0])
            row["lambda_max"] = float(lm_values[first])
            row["lambda_max_kind"] = str(kinds.values[index][first])
        else:
            row["lambda_max"], row["lambda_max_kind"] = np.nan, ""
        row["most_stable_practical"] = best_policy(lm_values, policies, larger=True, skip=ORACLES)
        proven_values = proven.values[index]
        row["most_stable_proven"] = best_policy(proven_values, policies, larger=True)
        row["lambda_proven"] = float(np.nanmax(proven_values)) if row["most_stable_proven"] else np.nan
        row["cheapest"] = best_cost
        if best_cost:
            first = policies.index(best_cost.split(", ")[0])
            row["cost"] = float(cost.values[index][first])
            row["cost_kind"] = str(cost_kinds.values[index][first])
        else:
            row["cost"], row["cost_kind"] = np.nan, ""
        row["cheapest_practical"] = best_policy(cost.values[index], policies, larger=False, skip=ORACLES)
        row["no_analysis"] = ", ".join(p for p, v in zip(policies, lm_values) if not np.isfinite(v))
        rows.append(row)
    return pd.DataFrame(rows)


def latency_winners(ds: xr.Dataset) -> pd.DataFrame:
    """The policy with the smallest simulated mean latency per setting and load
    (empty when the study did not simulate). Contenders are the policies simulated
    in that setting; an unstable one cannot win. No winner is named while a
    contender is ``undetermined`` (column ``undetermined`` lists them): its latency
    may be the smallest, or infinite. ``evidence`` says what the winning value is
    (``estimate``, ``ci_undercovers``: a heavy tail, the interval under-covers)."""
    if not np.isfinite(ds["latency_mean"].values).any() and "latency_sample_mean" not in ds:
        return pd.DataFrame()
    policies = [str(p) for p in ds["policy"].values]
    dims = setting_dims(ds) + ["load"]
    lat = ds["latency_mean"].transpose(*dims, "policy")
    verdict = ds["verdict"].transpose(*dims, "policy") if "verdict" in ds else None
    jobs = ds["jobs"].transpose(*dims, "policy") if "jobs" in ds else None
    kind = ds["latency_mean_kind"].transpose(*dims, "policy") if "latency_mean_kind" in ds else None
    rows = []
    for index in np.ndindex(*lat.shape[:-1]):
        row = {d: plain(ds[d].values[i]) for d, i in zip(dims, index)}
        values = lat.values[index]
        open_ = []
        if verdict is not None:
            simulated = np.isfinite(jobs.values[index]) if jobs is not None else np.ones(len(policies), dtype=bool)
            open_ = [p for p, v, sim in zip(policies, verdict.values[index], simulated) if sim and v == "undetermined"]
        if open_:
            row["fastest"] = row["fastest_practical"] = ""
        else:
            row["fastest"] = best_policy(values, policies, larger=False)
            row["fastest_practical"] = best_policy(values, policies, larger=False, skip=ORACLES)
        row["undetermined"] = ", ".join(open_)
        first = row["fastest"].split(", ")[0] if row["fastest"] else ""
        row["evidence"] = str(kind.values[index][policies.index(first)]) if first and kind is not None else ""
        rows.append(row)
    return pd.DataFrame(rows)
