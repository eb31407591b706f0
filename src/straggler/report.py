"""The comparison report of a study: which policy wins where, and on what evidence.

For every setting of the grid (every axis but ``policy``) the analysis names the
policy with the largest stability bound and the one with the smallest server time
per job, each with the kind of result it rests on; where the simulation ran, the
policy with the smallest simulated mean latency at each load, but only where every
contender has a verdict (no winner is named at a load where one is undetermined).
The stability verdicts are summarised: how many loads are stable, unstable and
undetermined and on whose evidence, which undetermined loads need how many jobs,
and every contradiction between theory and simulation. Written as a CSV table
(``winners.csv``) and a Markdown page (``report.md``) with the provenance.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

_TOLERANCE = 1e-9
"""Relative gap under which two policies tie (they are then listed together)."""

ORACLES = ("KT", "KS")
"""Policies that know each job's type (KT) or size (KS): benchmarks, not options, so
the report also names the best policy without them."""


def _setting_dims(ds: xr.Dataset) -> list[str]:
    return [d for d in ds["lambda_max"].dims if d != "policy"]


def _best(values: np.ndarray, policies: list[str], larger: bool, skip=()) -> str:
    finite = np.isfinite(values) & np.array([p not in skip for p in policies], dtype=bool)
    if not finite.any():
        return ""
    target = np.nanmax(values[finite]) if larger else np.nanmin(values[finite])
    scale = max(abs(target), 1e-300)
    return ", ".join(
        p for p, v, ok in zip(policies, values, finite)
        if ok and abs(v - target) <= _TOLERANCE * scale
    )


SIMULATED_BOUND = "necessary (simulation)"
"""Kind of a one-sided lambda_max lowered to the first load its simulation found unstable."""


def _simulated_unstable(ds: xr.Dataset) -> xr.DataArray | None:
    """True where the simulation (alone or with the analysis) found the load unstable."""
    if "verdict" in ds and "verdict_source" in ds:
        return (ds["verdict"] == "unstable") & ds["verdict_source"].isin(["simulation", "both"])
    if "stable" in ds and np.isfinite(ds["stable"].values).any():  # datasets before verdicts
        return ds["stable"] == 0
    return None


def _capped_by_simulation(ds: xr.Dataset) -> tuple[xr.DataArray, xr.DataArray]:
    """lambda_max and its kind, where a bound that is not exact is lowered to the
    smallest load at which the simulation found the backlog growing (the monitor is
    calibrated not to flag a stable load: statistics.py)."""
    lm, kinds = ds["lambda_max"], ds["lambda_max_kind"]
    unstable = _simulated_unstable(ds)
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
    dims = _setting_dims(ds)
    capped, capped_kinds = _capped_by_simulation(ds)
    lm = capped.transpose(*dims, "policy")
    cost = ds["cost"].transpose(*dims, "policy")
    kinds = capped_kinds.transpose(*dims, "policy")
    proven = (ds["lambda_sufficient"].transpose(*dims, "policy") if "lambda_sufficient" in ds
              else xr.full_like(lm, np.nan))
    cost_kinds = (ds["cost_kind"].transpose(*dims, "policy") if "cost_kind" in ds
                  else xr.full_like(cost, "", dtype=object))
    rows = []
    for index in np.ndindex(*lm.shape[:-1]):
        setting = {d: _plain(ds[d].values[i]) for d, i in zip(dims, index)}
        lm_values = lm.values[index]
        best_stability = _best(lm_values, policies, larger=True)
        best_cost = _best(cost.values[index], policies, larger=False)
        row = dict(setting)
        row["most_stable"] = best_stability
        if best_stability:
            first = policies.index(best_stability.split(", ")[0])
            row["lambda_max"] = float(lm_values[first])
            row["lambda_max_kind"] = str(kinds.values[index][first])
        else:
            row["lambda_max"], row["lambda_max_kind"] = np.nan, ""
        row["most_stable_practical"] = _best(lm_values, policies, larger=True, skip=ORACLES)
        proven_values = proven.values[index]
        row["most_stable_proven"] = _best(proven_values, policies, larger=True)
        row["lambda_proven"] = (float(np.nanmax(proven_values))
                                if row["most_stable_proven"] else np.nan)
        row["cheapest"] = best_cost
        if best_cost:
            first = policies.index(best_cost.split(", ")[0])
            row["cost"] = float(cost.values[index][first])
            row["cost_kind"] = str(cost_kinds.values[index][first])
        else:
            row["cost"], row["cost_kind"] = np.nan, ""
        row["cheapest_practical"] = _best(cost.values[index], policies, larger=False,
                                          skip=ORACLES)
        row["no_analysis"] = ", ".join(
            p for p, v in zip(policies, lm_values) if not np.isfinite(v))
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
    dims = _setting_dims(ds) + ["load"]
    lat = ds["latency_mean"].transpose(*dims, "policy")
    verdict = ds["verdict"].transpose(*dims, "policy") if "verdict" in ds else None
    jobs = ds["jobs"].transpose(*dims, "policy") if "jobs" in ds else None
    kind = (ds["latency_mean_kind"].transpose(*dims, "policy") if "latency_mean_kind" in ds
            else None)
    rows = []
    for index in np.ndindex(*lat.shape[:-1]):
        row = {d: _plain(ds[d].values[i]) for d, i in zip(dims, index)}
        values = lat.values[index]
        open_ = []
        if verdict is not None:
            simulated = np.isfinite(jobs.values[index]) if jobs is not None else np.ones(
                len(policies), dtype=bool)
            open_ = [p for p, v, sim in zip(policies, verdict.values[index], simulated)
                     if sim and v == "undetermined"]
        if open_:
            row["fastest"] = row["fastest_practical"] = ""
        else:
            row["fastest"] = _best(values, policies, larger=False)
            row["fastest_practical"] = _best(values, policies, larger=False, skip=ORACLES)
        row["undetermined"] = ", ".join(open_)
        first = row["fastest"].split(", ")[0] if row["fastest"] else ""
        row["evidence"] = (str(kind.values[index][policies.index(first)])
                           if first and kind is not None else "")
        rows.append(row)
    return pd.DataFrame(rows)


def verdict_summary(ds: xr.Dataset) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(counts of verdicts by source, undetermined loads with the jobs they need per
    policy and setting, contradictions and disagreements from ``cell_notes``)."""
    if "verdict" not in ds:
        return pd.DataFrame(), pd.DataFrame(), []
    df = ds[["verdict", "verdict_source"]].to_dataframe().reset_index()
    df = df[df["verdict"] != ""]
    counts = (df.groupby(["verdict", "verdict_source"]).size().rename("loads").reset_index()
              .sort_values(["verdict", "verdict_source"]))
    need = pd.DataFrame()
    if "jobs_to_verdict" in ds:
        dims = [d for d in ds["verdict"].dims if d != "load"]
        u = ds[["verdict", "jobs_to_verdict"]].to_dataframe().reset_index()
        u = u[u["verdict"] == "undetermined"]
        if not u.empty:
            keys = ["policy"] + [d for d in dims if ds.sizes[d] > 1 and d != "policy"]
            need = (u.groupby(keys, dropna=False)
                    .agg(loads=("load", lambda x: ", ".join(f"{v:g}" for v in sorted(x))),
                         jobs_to_verdict=("jobs_to_verdict", "max"))
                    .reset_index())
            need["jobs_to_verdict"] = [
                "" if not np.isfinite(v) else f"{int(v):,}" for v in need["jobs_to_verdict"]]
    notes = json.loads(ds.attrs.get("cell_notes", "{}"))
    flagged = [f"`{cid}`: {n}" for cid, ns in sorted(notes.items()) for n in ns
               if n.startswith("contradiction") or "a disagreement" in n]
    return counts, need, flagged


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def markdown(ds: xr.Dataset, table: pd.DataFrame) -> str:
    attrs = ds.attrs
    lines = [
        f"# Study `{attrs.get('study', '?')}`",
        "",
        f"- created {attrs.get('created', '?')}, seed {attrs.get('seed', '?')}, "
        f"straggler {attrs.get('straggler_version', '?')} "
        f"(source {attrs.get('source_hash', '?')}, commit {attrs.get('git_commit', '?')})",
        f"- config sha256 `{attrs.get('config_sha256', '?')}`",
        f"- python {attrs.get('python_version', '?')}, numpy {attrs.get('numpy_version', '?')}, "
        f"numba {attrs.get('numba_version', '?')}, xarray {attrs.get('xarray_version', '?')}, "
        f"snakemake {attrs.get('snakemake_version', '?')}",
        "",
        "## Which policy carries the most load, and which burns the least server time",
        "",
        "From the analysis: `most_stable` has the largest stability bound `lambda_max` "
        "(load units, with the kind of result it is; a bound that is not exact is lowered "
        "to the first load its simulation found unstable, kind "
        f"`{SIMULATED_BOUND}`), `most_stable_practical` the same without the oracles KT "
        "(knows types) and KS (knows sizes), `most_stable_proven` "
        "the policy proven stable up to the largest load `lambda_proven` (an exact bound, "
        "or a sufficient condition: `lambda_sufficient`), `cheapest` the "
        "smallest expected server time per job (with its kind); ties are listed together; "
        "`no_analysis` lists the policies that theory does not cover in that setting (see "
        "`cell_notes` in the dataset). A win that rests on a `necessary` stability bound "
        "or a `lower_bound` cost is a candidate, not a proof: such a bound only says the "
        "policy can do no better (the sufficient bounds are in `cell_notes`).",
        "",
        _markdown_table(table),
    ]
    counts = table["most_stable"].value_counts()
    if len(counts):
        lines += ["", "Settings won on stability: "
                  + ", ".join(f"{p or 'none'} {n}" for p, n in counts.items()) + "."]
    lines += _verdict_lines(ds)
    lat = latency_winners(ds)
    if not lat.empty:
        lines += ["", "## Smallest simulated mean latency", "",
                  "Only stable loads have an estimate; no winner is named where a contender "
                  "is `undetermined` (listed). `evidence` is the winner's `latency_mean_kind` "
                  "(`ci_undercovers`: a heavy tail, its confidence interval under-covers).", "",
                  _markdown_table(lat)]
    impossible = json.loads(attrs.get("impossible_cells", "[]"))
    if impossible:
        lines += ["", f"{len(impossible)} grid points cannot be set up and are NaN "
                  "(attribute `impossible_cells`)."]
    return "\n".join(lines) + "\n"


def _verdict_lines(ds: xr.Dataset) -> list[str]:
    counts, need, flagged = verdict_summary(ds)
    if counts.empty:
        return []
    lines = ["", "## Stability verdicts", "",
             "Each load is `stable`, `unstable` or `undetermined`, from the simulation, the "
             "analysis or both (README, \"Stability verdicts\"): `stable` needs an exact or "
             "sufficient bound, or a run long enough that a load 5 % above capacity would "
             "have been caught with 99 % probability; `unstable` needs a bound that proves it "
             "or growth seen by the simulation.", "", _markdown_table(counts)]
    if not need.empty:
        lines += ["", "Undetermined loads, with about how many measured jobs per replication "
                  "(`simulation.jobs`, or use `simulation.precision`) would decide them:", "",
                  _markdown_table(need)]
    if flagged:
        lines += ["", "Theory and simulation disagree here (see `cell_notes`):", ""]
        lines += [f"- {text}" for text in flagged]
    else:
        lines += ["", "No contradiction between theory and simulation."]
    return lines


def _markdown_table(df: pd.DataFrame) -> str:
    def fmt(v):
        if isinstance(v, float):
            return "" if np.isnan(v) else f"{v:.4g}"
        return str(v)

    header = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def write_report(ds: xr.Dataset, markdown_path, csv_path) -> None:
    table = winners(ds)
    for path, text in ((csv_path, table.to_csv(index=False)), (markdown_path, markdown(ds, table))):
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text)
        tmp.replace(path)
