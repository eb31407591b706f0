"""The report's tables: the rows it shows, built from a study dataset (data frames, no
markdown or HTML).

The recommendation rows (:func:`recommendation_table`) and each criterion's winners
(:func:`criterion_table`, with :func:`counts`), the stability verdicts by source
(:func:`verdict_summary`), theory against simulation (:func:`theory_table`,
:func:`disagreement_table`), where the size law changes the answer and how sure it is
over a trace's resamples (:func:`law_differences`, :func:`resample_agreement`: each with
its sentences), the located frontiers (:func:`located_table`), the tuned knobs
(:func:`tuned_table`), the latency-cost frontier counts and the claims. :mod:`.pages`
renders them.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import xarray as xr

from ...decide.decision import ANSWER_COLUMNS, Constraints, constraints, decision_table, recommendations
from ...decide.intervals import UNITS, fmt_interval, fmt_signed
from ...decide.winners import PointTable, dominated, setting_dims
from ...model.policies import ALIASES, MEAN_OBJECTIVE, tuned_objective, tuned_parameters


def _swept(ds: xr.Dataset) -> list[str]:
    return [d for d in setting_dims(ds) if ds.sizes[d] > 1]


def shown_axes(ds: xr.Dataset, rows: pd.DataFrame) -> list[str]:
    """The swept axes that ``rows`` has as columns (:func:`at_the_trace` drops the resamples')."""
    return [d for d in _swept(ds) if d in rows.columns]


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def metric_label(c: Constraints) -> str:
    """The tail column's name: ``P99`` (the SLO's quantile)."""
    from ...decide.decision import metric_name

    return metric_name(c.tail_level)


def recommendation_table(ds: xr.Dataset, rec: pd.DataFrame | None = None) -> pd.DataFrame:
    """The recommendation rows for display: the swept axes, the load, the recommended
    contender or tie set, its E[T] interval with its evidence, its tail and extra load,
    its E[C], the runner-up and the margin, and (with constraints) the one that binds."""
    rec = recommendations(ds) if rec is None else rec
    c = constraints(ds)
    tail = metric_label(c)
    keep = [*shown_axes(ds, rec), *ANSWER_COLUMNS[: ANSWER_COLUMNS.index("E[C]") + 1]]  # load ... E[C]
    if c.hedges is None:  # the hedges per job, a column where the study budgets them
        keep.remove("hedges")
    out = rec[keep].copy().rename(columns={"tail": tail})
    out["runner_up"] = rec["runner_up"]
    out["margin"] = [("" if not np.isfinite(m) else f"{m:.3g}") for m in rec["margin"].astype(float)]
    if c.any:
        out["what would change it"] = rec["what would change it"]
    out["recommended"] = out["recommended"].replace("", "-")
    return out


def criterion_table(ds: xr.Dataset, table: pd.DataFrame, criterion: str) -> pd.DataFrame:
    """The rows of ``winners.csv`` for one criterion, for display (intervals in words)."""
    rows = table[table["criterion"] == criterion]
    keep = [*shown_axes(ds, rows), *([] if criterion == "stability" else ["load"])]
    out = rows[keep].copy()
    out["winners"] = rows["winners"].replace("", "-")
    out["decided"] = rows["decided"]
    out[UNITS[criterion]] = [
        fmt_interval(lo, hi) for lo, hi in zip(rows["low"].astype(float), rows["high"].astype(float))
    ]
    out["evidence"] = rows["evidence"]
    if criterion != "stability" and "extra_load_low" in rows:
        lows, highs = rows["extra_load_low"].astype(float), rows["extra_load_high"].astype(float)
        out["extra load"] = [fmt_signed(lo, hi) for lo, hi in zip(lows, highs)]
    out["runner_up"] = rows["runner_up"]
    out["margin"] = [("" if not np.isfinite(m) else f"{m:.3g}") for m in rows["margin"].astype(float)]
    if (rows["winners_with_oracles"] != rows["winners"]).any():
        out["with oracles"] = rows["winners_with_oracles"]
    return out


def counts(table: pd.DataFrame, criterion: str) -> dict[str, int]:
    """Points of ``criterion`` decided, tied and without a contender; ties held open
    by an undetermined contender; decided wins by their evidence."""
    rows = table[table["criterion"] == criterion]
    decided = rows[rows["decided"] == "true"]
    tied = rows[(rows["decided"] == "false") & (rows["winners"] != "")]
    out = {
        "points": len(rows),
        "decided": len(decided),
        "tied": len(tied),
        "none": int((rows["winners"] == "").sum()),
        "open": int((tied["undetermined"] != "").sum()),
    }
    for ev, n in decided["evidence"].value_counts().items():
        out[f"by {ev}"] = int(n)
    return out


def verdict_summary(ds: xr.Dataset) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(counts of verdicts by source, undetermined loads with the jobs they need per
    policy and setting, contradictions and disagreements from ``cell_notes``)."""
    if "verdict" not in ds:
        return pd.DataFrame(), pd.DataFrame(), []
    columns = [k for k in ("verdict", "verdict_source", "verdict_evidence") if k in ds]
    df = ds[columns].to_dataframe().reset_index()
    df = df[df["verdict"] != ""]
    counts = df.groupby(columns).size().rename("loads").reset_index().sort_values(columns)
    need = pd.DataFrame()
    if "jobs_to_verdict" in ds:
        dims = [d for d in ds["verdict"].dims if d != "load"]
        u = ds[["verdict", "jobs_to_verdict"]].to_dataframe().reset_index()
        u = u[u["verdict"] == "undetermined"]
        if not u.empty:
            keys = ["policy"] + [d for d in dims if ds.sizes[d] > 1 and d != "policy"]
            need = (
                u.groupby(keys, dropna=False)
                .agg(
                    loads=("load", lambda x: ", ".join(f"{v:g}" for v in sorted(x))),
                    jobs_to_verdict=("jobs_to_verdict", "max"),
                )
                .reset_index()
            )
            need["jobs_to_verdict"] = ["" if not np.isfinite(v) else f"{int(v):,}" for v in need["jobs_to_verdict"]]
    notes = json.loads(ds.attrs.get("cell_notes", "{}"))
    flagged = [
        f"`{cid}`: {n}"
        for cid, ns in sorted(notes.items())
        for n in ns
        if n.startswith("contradiction") or "a disagreement" in n
    ]
    return counts, need, flagged


def disagreement_table(ds: xr.Dataset) -> pd.DataFrame:
    """Every point where an exact value lies outside the simulation's CI, with its class
    and why (:func:`straggler.decide.disagreements.classify`), for the report."""
    from ...decide.disagreements import classify

    found = classify(ds)
    if found.empty:
        return found
    return pd.DataFrame(
        {
            "quantity": found["criterion"],
            "point": found["point"],
            "exact": found["exact"].map(lambda v: f"{v:.4g}"),
            "simulated": [f"{m:.4g} ± {c:.2g}" for m, c in zip(found["simulated"], found["ci"])],
            "gap (CI half-widths)": found["gap_in_ci"].map(lambda v: f"{v:+.2f}"),
            "class": found["class"],
            "why": found["why"],
        }
    )


def measured_laws(ds: xr.Dataset) -> list[str]:
    """The laws of the dataset's distribution axis that are read from a data file (a
    measured trace), by the config the dataset records."""
    import yaml

    from ...model.distributions import FAMILIES, laws_within

    if "distribution" not in ds.dims:
        return []
    laws = (yaml.safe_load(ds.attrs.get("config", "")) or {}).get("distributions", {})

    def measured(name: str) -> bool:  # read from a file, itself or a type's law within it
        return any(
            FAMILIES.get(spec.get("family", "")) is not None and FAMILIES[spec["family"]].data_file
            for _, spec in laws_within(name, laws.get(name, {}))
        )

    return [str(name) for name in ds["distribution"].values if measured(str(name))]


def law_differences(ds: xr.Dataset, rec: pd.DataFrame) -> tuple[list[str], pd.DataFrame]:
    """Where the size law changes the answer: for each measured trace of the distribution
    axis and each other law, a sentence (at how many points the two recommendations
    differ) and a row for every such point. Empty when there is no trace to compare."""
    traces = measured_laws(ds)
    laws = [str(d) for d in ds["distribution"].values] if "distribution" in ds.dims else []
    if not traces or len(laws) < 2:
        return [], pd.DataFrame()
    key = [c for c in shown_axes(ds, rec) if c != "distribution"] + ["load"]
    sentences, rows = [], []
    for trace in traces:
        base = rec[rec["distribution"] == trace].set_index(key)["recommended"]
        for law in (name for name in laws if name != trace):
            other = rec[rec["distribution"] == law].set_index(key)["recommended"]
            differ = [k for k in base.index if k in other.index and other[k] != base[k]]
            sentences.append(
                f"On {law} the recommendation differs from that on the trace {trace} at "
                f"{len(differ)} of {len(base)} (setting, load) points."
            )
            for k in differ:
                point = dict(zip(key, k if isinstance(k, tuple) else (k,)))
                rows.append(
                    {**point, "trace": trace, "on the trace": base[k] or "-", "law": law, "on the law": other[k] or "-"}
                )
    return sentences, pd.DataFrame(rows)


def resample_axes(ds: xr.Dataset) -> list[str]:
    """The axes of a trace's bootstrap resamples (``<law>.resample``: 0 the trace itself)."""
    return [str(d) for d in ds.dims if str(d).endswith(".resample")]


def at_the_trace(ds: xr.Dataset, rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of the traces themselves (resample 0), without the resample columns: what
    the report's tables show, the resamples being summarised by :func:`resample_agreement`."""
    for axis in resample_axes(ds):
        if axis in rows.columns:
            rows = rows[rows[axis].astype(int) == 0].drop(columns=axis)
    return rows


def resample_agreement(ds: xr.Dataset, rec: pd.DataFrame) -> tuple[list[str], pd.DataFrame]:
    """How sure the answer is, the trace being a sample: for each trace evaluated with its
    bootstrap resamples and each (setting, load) point, the trace's recommendation and how
    many resamples give the same. ``robust``: the trace's recommendation is one policy,
    decided, and every resample decides the same. A sentence per trace and a
    row per point."""
    sentences, rows = [], []
    for axis in resample_axes(ds):
        law = axis.rsplit(".", 1)[0]
        if axis not in rec.columns:
            continue
        mine = rec[rec["distribution"] == law] if "distribution" in rec.columns else rec
        if mine.empty:  # the law is a slowdown: every row depends on it
            mine = rec
        key = [c for c in _swept(ds) if c != axis] + ["load"]
        robust_points = 0
        for point, group in mine.groupby(key, sort=False, dropna=False):
            at = group[axis].astype(int)
            trace = group[at == 0].iloc[0]
            resamples = group[at != 0]
            same = resamples["recommended"] == trace["recommended"]
            decided = bool(trace["decided"]) and bool(resamples["decided"].astype(bool).all())
            robust = bool(decided and same.all())
            robust_points += robust
            others = resamples.loc[~same, "recommended"].replace("", "none").value_counts()
            rows.append(
                {
                    **dict(zip(key, point if isinstance(point, tuple) else (point,))),
                    "on the trace": trace["recommended"] or "-",
                    "basis": trace["basis"],
                    "resamples agreeing": f"{int(same.sum())} of {len(resamples)}",
                    "robust": "yes" if robust else "no",
                    "other answers": "; ".join(f"{name} ({n})" for name, n in others.items()),
                }
            )
        points = len(mine.groupby(key, sort=False, dropna=False))
        count = ds.sizes[axis] - 1
        sentences.append(
            f"The trace {law} and {plural(count, 'resample')} of it (n values drawn with replacement): at "
            f"{robust_points} of {points} (setting, load) points every resample decides the trace's "
            "recommendation (robust); the table gives the share that agree at each point."
        )
    return sentences, pd.DataFrame(rows)


def located_table(ds: xr.Dataset) -> pd.DataFrame:
    """Each contender's located frontiers per setting (a dataset with ``capacity.csv``
    attached, :func:`straggler.decide.frontier.attach`; empty without): the stability frontier
    and the load up to which the SLO holds, as intervals with their evidence."""
    if "located_stability_low" not in ds:
        return pd.DataFrame()
    c = constraints(ds)
    names = ["stability_low", "stability_high", "stability_evidence", "slo_low", "slo_high", "slo_evidence"]
    frame = xr.Dataset({n: ds[f"located_{n}"] for n in names}).to_dataframe().reset_index()
    frame = frame[frame["stability_low"].notna() | frame["stability_high"].notna()]
    dims = [d for d in ds["located_stability_low"].dims if ds.sizes[d] > 1 or d == "policy"]
    dims = [d for d in dims if d != "policy"] + ["policy"]  # the setting, then the contender
    order = {str(p): i for i, p in enumerate(ds["policy"].values)}
    out = frame.sort_values(
        dims, kind="stable", key=lambda col: col.astype(str).map(order) if col.name == "policy" else col
    )[dims].copy()
    frame = frame.loc[out.index]
    out["stability frontier"] = [fmt_interval(a, b) for a, b in zip(frame["stability_low"], frame["stability_high"])]
    out["stability evidence"] = list(frame["stability_evidence"])
    if c.target is not None:
        out[f"{c.slo_words()} up to"] = [fmt_interval(a, b) for a, b in zip(frame["slo_low"], frame["slo_high"])]
        out["SLO evidence"] = list(frame["slo_evidence"])
    return out.drop_duplicates().reset_index(drop=True)


def tuned_table(ds: xr.Dataset) -> pd.DataFrame:
    """The tuned knobs ({tune: [lo, hi]}, :mod:`straggler.study.tuning`) per setting and load:
    the best value, the values the data cannot tell from it, the analysis's optimum and
    whether the simulation agrees with it (the optimum inside that range)."""
    if "tuned_value" not in ds or not np.isfinite(np.asarray(ds["tuned_value"].values, float)).any():
        return pd.DataFrame()
    names = ["tuned_value", "tuned_low", "tuned_high", "tuned_analysis"]
    frame = xr.Dataset({n: ds[n] for n in names}).to_dataframe().reset_index()
    frame = frame[frame["tuned_value"].notna() | frame["tuned_low"].notna()]
    dims = [d for d in ds["tuned_value"].dims if ds.sizes[d] > 1 or d in ("policy", "load")]
    out = frame[dims].copy()
    if "policy" in frame:
        objectives = _tuned_objectives(ds)
        out["minimises"] = [objectives.get(str(p), "") for p in frame["policy"]]
    out["best"] = [f"{v:.4g}" for v in frame["tuned_value"]]
    out["cannot be told from it"] = [fmt_interval(a, b) for a, b in zip(frame["tuned_low"], frame["tuned_high"])]
    out["analysis's optimum"] = [f"{v:.4g}" if np.isfinite(v) else "" for v in frame["tuned_analysis"]]
    out["simulation agrees"] = [
        "" if not np.isfinite(x) else "yes" if lo <= x <= hi else "no"
        for x, lo, hi in zip(frame["tuned_analysis"], frame["tuned_low"], frame["tuned_high"])
    ]
    return out.drop_duplicates().reset_index(drop=True)


def _tuned_objectives(ds: xr.Dataset) -> dict[str, str]:
    """Policy -> what its tuned knob's search minimised (``E[T]``, ``P99``), from the
    study's config."""
    import yaml

    out = {}
    for policy, params in ((yaml.safe_load(ds.attrs.get("config", "")) or {}).get("policies") or {}).items():
        for name in tuned_parameters(params if isinstance(params, dict) else {}):
            objective = tuned_objective(params[name])
            name = ALIASES.get(str(policy), str(policy))  # the config as written: an alias maps to its policy
            out[name] = "E[T]" if objective == MEAN_OBJECTIVE else objective.upper()
    return out


def frontier_counts(ds: xr.Dataset, points: PointTable | None = None) -> tuple[dict, int] | None:
    """How often each policy is on the latency-cost frontier (no other policy's E[T]
    and E[C] intervals both lie below its own, :func:`straggler.decide.winners.dominated`),
    over every (setting, load) point with two or more contenders."""
    if "latency_mean" not in ds:
        return None
    points = decision_table(ds) if points is None else points
    tally: dict[str, int] = {}
    total = 0
    for index, li in points.points():
        if li is None:
            continue
        at = (*index, li)
        lat = {c.name: c for c in points.candidates("latency", at) if math.isfinite(c.high)}
        cost = {c.name: c for c in points.candidates("cost", at) if math.isfinite(c.high)}
        both = [p for p in lat if p in cost]
        if len(both) < 2:
            continue
        total += 1
        out = dominated(lat, cost)
        for p in both:
            if p not in out:
                tally[p] = tally.get(p, 0) + 1
    return tally, total


def theory_table(ds: xr.Dataset) -> pd.DataFrame:
    """Per kind of analytic value (of E[T] and E[C]): how many grid points have it and
    an estimate, how many agree with the estimate within its CI, and the median and
    largest relative error."""
    from ..figures import kind_label, relative_error

    rows = []
    for what, theory, sim, ci in (
        ("E[T]", "latency_approx", "latency_mean", "latency_mean_ci"),
        ("E[C]", "cost", "cost_mean", "cost_mean_ci"),
    ):
        if theory not in ds or sim not in ds:
            continue
        th = ds[theory].broadcast_like(ds[sim])
        kinds = ds[f"{theory}_kind"].broadcast_like(ds[sim]) if f"{theory}_kind" in ds else None
        err, low, high = relative_error(th.values, ds[sim].values, ds[ci].values)
        ok = np.isfinite(err)
        if not ok.any():
            continue
        kind_words = (
            np.vectorize(lambda k: kind_label(k) or "exact")(kinds.values)
            if kinds is not None
            else np.full(err.shape, "exact")
        )
        for word in sorted(set(kind_words[ok])):
            sel = ok & (kind_words == word)
            e = err[sel]
            within = (low[sel] <= 0) & (high[sel] >= 0)
            rows.append(
                {
                    "quantity": what,
                    "kind": word,
                    "points": int(sel.sum()),
                    "within CI": int(within.sum()),
                    "above simulation": int((low[sel] > 0).sum()),
                    "below simulation": int((high[sel] < 0).sum()),
                    "median |error|": float(np.median(np.abs(e))),
                    "largest |error|": float(np.max(np.abs(e))),
                }
            )
    return pd.DataFrame(rows)


def claims_table(ds: xr.Dataset) -> pd.DataFrame:
    from ...decide.claims import check_claims

    return check_claims(ds)
