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
import math
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .winners import (
    ORACLES,
    SIMULATED_BOUND,
    best_policy,
    capped_by_simulation,
    latency_winners,
    setting_dims,
    winners,
)


def verdict_summary(ds: xr.Dataset) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(counts of verdicts by source, undetermined loads with the jobs they need per
    policy and setting, contradictions and disagreements from ``cell_notes``)."""
    if "verdict" not in ds:
        return pd.DataFrame(), pd.DataFrame(), []
    df = ds[["verdict", "verdict_source"]].to_dataframe().reset_index()
    df = df[df["verdict"] != ""]
    counts = (
        df.groupby(["verdict", "verdict_source"])
        .size()
        .rename("loads")
        .reset_index()
        .sort_values(["verdict", "verdict_source"])
    )
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


def _verdict_lines(ds: xr.Dataset) -> list[str]:
    counts, need, flagged = verdict_summary(ds)
    if counts.empty:
        return []
    lines = [
        "",
        "## Stability verdicts",
        "",
        "Each load is `stable`, `unstable` or `undetermined`, from the simulation, the "
        'analysis or both (README, "Stability verdicts"): `stable` needs an exact or '
        "sufficient bound, or a run long enough that a load 5 % above capacity would "
        "have been caught with 99 % probability; `unstable` needs a bound that proves it "
        "or growth seen by the simulation.",
        "",
        _markdown_table(counts),
    ]
    if not need.empty:
        lines += [
            "",
            "Undetermined loads, with about how many measured jobs per replication "
            "(`simulation.jobs`, or use `simulation.precision`) would decide them:",
            "",
            _markdown_table(need),
        ]
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


# ------------------------------------------------------------------ summary sentences


EVIDENCE = {
    "exact": "exact",
    "necessary": "a one-sided bound",
    "sufficient": "a one-sided bound",
    SIMULATED_BOUND: "a one-sided bound capped by the simulation",
    "lower_bound": "a one-sided bound",
    "upper_bound": "a one-sided bound",
    "approximation": "an approximation",
    "approximate": "an approximation",
    "conjectured": "a conjecture",
}
"""The kind of evidence a win rests on, in words (exact, bound, simulation,
undetermined)."""


def evidence_word(kind: str) -> str:
    return EVIDENCE.get(str(kind), str(kind) or "no analysis")


def _swept(ds: xr.Dataset) -> list[str]:
    return [d for d in setting_dims(ds) if ds.sizes[d] > 1]


def _main_axis(ds: xr.Dataset) -> str | None:
    """The swept axis that the summary goes along (the first non-case one)."""
    swept = _swept(ds)
    main = [d for d in swept if d not in ("distribution", "dependence")]
    return (main or swept or [None])[0]


def _count_phrase(counts: dict, total: int, noun: str) -> str:
    parts = [f"{p} in {n} of {total} {noun}" for p, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]
    return "; ".join(parts)


def _practical(ds: xr.Dataset) -> str:
    oracles = [p for p in ds["policy"].values if p in ORACLES]
    return "_practical" if oracles and len(oracles) < ds.sizes["policy"] else ""


def _fmt_value(v) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _winner_kinds(ds: xr.Dataset, table: pd.DataFrame, column: str, kind_var: str, value_var: str) -> pd.DataFrame:
    """(winner, its kind) per row of ``table`` for the practical or full winner column."""
    dims = setting_dims(ds)
    out = []
    capped, capped_kinds = capped_by_simulation(ds)
    kinds = capped_kinds if kind_var == "lambda_max_kind" else ds.get(kind_var)
    for _, row in table.iterrows():
        won = row[column]
        first = won.split(", ")[0] if won else ""
        kind = ""
        if first and kinds is not None:
            sel = {d: row[d] for d in dims}
            kind = str(kinds.sel(policy=first, **sel).values.item())
        out.append((won, kind))
    return pd.DataFrame(out, columns=["winner", "kind"])


def summary(
    ds: xr.Dataset,
    table: pd.DataFrame | None = None,
    lat: pd.DataFrame | None = None,
    claims: pd.DataFrame | None = None,
) -> list[str]:
    """Sentences generated from the data: which policy wins where and on what evidence
    (exact, a one-sided bound, simulation, undetermined)."""
    table = winners(ds) if table is None else table
    lat = latency_winners(ds) if lat is None else lat
    practical = _practical(ds)
    oracles = [p for p in ds["policy"].values if p in ORACLES]
    policies = [str(p) for p in ds["policy"].values]
    n_settings = len(table)
    swept = _swept(ds)
    sentences = []
    axes = ", ".join(f"{d} ({ds.sizes[d]} values)" for d in swept) or "one setting"
    sentences.append(
        f"Study `{ds.attrs.get('study', '?')}` compares {len(policies)} "
        f"polic{'y' if len(policies) == 1 else 'ies'} ({', '.join(policies)}) over "
        f"{n_settings} setting{'s' if n_settings != 1 else ''} ({axes}) and "
        f"{ds.sizes['load']} load{'s' if ds.sizes['load'] != 1 else ''} "
        f"({', '.join(_fmt_value(v) for v in ds['load'].values)})"
        + (
            f"; the oracle{'s' if len(oracles) > 1 else ''} {', '.join(oracles)} (knowing "
            "each job's type or size) left out of the comparisons below"
            if practical
            else ""
        )
        + "."
    )
    # stability
    wk = _winner_kinds(ds, table, "most_stable" + practical, "lambda_max_kind", "lambda_max")
    if len(policies) > 1 and (wk["winner"] != "").any():
        counts: dict[str, int] = {}
        kinds_of: dict[str, dict] = {}
        for won, kind in wk.itertuples(index=False):
            if not won:
                continue
            counts[won] = counts.get(won, 0) + 1
            kinds_of.setdefault(won, {})
            word = evidence_word(kind)
            kinds_of[won][word] = kinds_of[won].get(word, 0) + 1
        parts = []
        for won, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
            how = ", ".join(f"{k}: {m}" for k, m in kinds_of[won].items())
            parts.append(f"{won} in {n} ({how})")
        sentences.append(f"Largest stability bound: {'; '.join(parts)} of {n_settings} settings.")
        axis = _main_axis(ds)
        if axis and axis in table:
            by = []
            for v in ds[axis].values:
                rows = (
                    table[np.isclose(table[axis].astype(float), float(v))]
                    if ds[axis].dtype.kind in "if"
                    else table[table[axis].astype(str) == str(v)]
                )
                if rows.empty:
                    continue
                best = rows["most_stable" + practical].replace("", np.nan).dropna()
                if best.empty:
                    continue
                top = best.value_counts()
                lm = rows["lambda_max"].astype(float)
                by.append(
                    f"{_fmt_value(v)}: {top.index[0]}"
                    + (f" ({top.iloc[0]} of {len(rows)})" if len(rows) > 1 else "")
                    + (f", lambda_max up to {np.nanmax(lm):.3g}" if np.isfinite(lm).any() and not practical else "")
                )
            if by:
                sentences.append(f"By {axis}, the most frequent winner on stability: " + "; ".join(by) + ".")
    elif len(policies) == 1:
        lm = ds["lambda_max"]
        kinds = pd.Series(np.ravel(ds["lambda_max_kind"].values)).replace("", np.nan).dropna()
        if np.isfinite(lm.values).any():
            sentences.append(
                f"Stability bound of {policies[0]}: from {float(lm.min()):.3g} to "
                f"{float(lm.max()):.3g} ({', '.join(f'{k}: {n}' for k, n in kinds.value_counts().items())})."
            )
    # latency
    if not lat.empty:
        col = "fastest" + practical
        total = len(lat)
        decided = lat[lat[col] != ""]
        open_ = lat[(lat[col] == "") & (lat["undetermined"] != "")]
        nothing = total - len(decided) - len(open_)
        if len(policies) > 1 and len(decided):
            counts = decided[col].value_counts().to_dict()
            gaps = []
            if len(open_):
                gaps.append(
                    f"no winner at {len(open_)} point{'s' if len(open_) != 1 else ''} "
                    "because a contender is undetermined (its latency may be the "
                    "smallest, or infinite)"
                )
            if nothing:
                gaps.append(f"none at {nothing} where no contender is stable")
            sentences.append(
                f"Smallest simulated mean latency (evidence: simulation, estimates only at "
                f"stable loads): {_count_phrase(counts, total, '(setting, load) points')}"
                + ("; " + "; ".join(gaps) if gaps else "")
                + "."
            )
            loads = sorted(lat["load"].unique())
            for label, load in (("lightest", loads[0]), ("heaviest", loads[-1])):
                at = decided[np.isclose(decided["load"].astype(float), load)]
                if len(loads) > 1 and not at.empty:
                    top = at[col].value_counts()
                    sentences.append(
                        f"At the {label} load ({load:g}) {top.index[0]} is fastest "
                        f"in {top.iloc[0]} of {len(lat[np.isclose(lat['load'].astype(float), load)])} "
                        "settings."
                    )
        elif len(open_):
            sentences.append(
                f"{len(open_)} (setting, load) points have no latency winner: a contender is undetermined."
            )
        if len(policies) == 1 and np.isfinite(ds["latency_mean"].values).any():
            m = ds["latency_mean"].where(np.isfinite(ds["latency_mean"]))
            lo = m.where(m == m.min(), drop=True)
            hi = m.where(m == m.max(), drop=True)

            def where(da):
                return ", ".join(
                    f"{d} = {_fmt_value(da[d].values[0])}" for d in da.dims if d != "policy" and ds.sizes[d] > 1
                )

            sentences.append(
                f"Simulated mean latency of {policies[0]}: from "
                f"{float(m.min()):.4g} ({where(lo)}) to {float(m.max()):.4g} "
                f"({where(hi)}), at {int(np.isfinite(m.values).sum())} stable "
                "points."
            )
        heavy = lat[lat["evidence"] == "ci_undercovers"]
        if len(heavy):
            sentences.append(
                f"{len(heavy)} latency wins rest on a heavy-tailed estimate "
                "whose confidence interval under-covers (infinite variance)."
            )
    # cost
    ck = _winner_kinds(ds, table, "cheapest" + practical, "cost_kind", "cost")
    if len(policies) > 1 and (ck["winner"] != "").any():
        counts, kinds_of = {}, {}
        for won, kind in ck.itertuples(index=False):
            if not won:
                continue
            counts[won] = counts.get(won, 0) + 1
            kinds_of.setdefault(won, {})
            word = evidence_word(kind)
            kinds_of[won][word] = kinds_of[won].get(word, 0) + 1
        parts = [
            f"{won} in {n} ({', '.join(f'{k}: {m}' for k, m in kinds_of[won].items())})"
            for won, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))
        ]
        sentences.append(f"Smallest server time per job (analysis): {'; '.join(parts)} of {n_settings} settings.")
    # trade-off
    front = frontier_counts(ds)
    if front is not None and front[1]:
        counts, total = front
        sentences.append(
            "On the latency-cost Pareto frontier (no other policy both faster "
            "and cheaper, simulated): " + _count_phrase(counts, total, "(setting, load) points") + "."
        )
    # theory against simulation
    for line in theory_sentences(ds):
        sentences.append(line)
    # verdicts
    counts_v, need, flagged = verdict_summary(ds)
    if not counts_v.empty:
        by_verdict = counts_v.groupby("verdict")["loads"].sum().to_dict()
        sentences.append(
            "Stability verdicts: "
            + ", ".join(f"{by_verdict.get(v, 0)} {v}" for v in ("stable", "unstable", "undetermined"))
            + f" loads; {len(flagged)} contradiction{'s' if len(flagged) != 1 else ''} or "
            "disagreement" + ("s" if len(flagged) != 1 else "") + " between theory and "
            "simulation"
            + (
                f"; {len(need)} policy settings have undetermined loads (the jobs that would decide them are listed)"
                if not need.empty
                else ""
            )
            + "."
        )
    if claims is not None and len(claims):
        v = claims["verdict"].value_counts().to_dict()
        failing = claims[claims["verdict"] == "fails"]["claim"].tolist()
        sentences.append(
            f"Claims of the paper: {v.get('holds', 0)} hold, {v.get('fails', 0)} fail"
            + (f" ({', '.join(failing)})" if failing else "")
            + f", {v.get('not tested', 0)} not tested."
        )
    return sentences


def frontier_counts(ds: xr.Dataset) -> tuple[dict, int] | None:
    """How often each policy is on the simulated latency-cost Pareto frontier, over
    every (setting, load) point where two or more policies have estimates."""
    if "cost_mean" not in ds or not np.isfinite(ds["latency_mean"].values).any():
        return None
    from .plots import pareto_front

    variant = [d for d in setting_dims(ds) if d == "d" or "." in d]
    system = [d for d in setting_dims(ds) if d not in variant]
    if _practical(ds):
        ds = ds.sel(policy=[p for p in ds["policy"].values if p not in ORACLES])
    t = ds["latency_mean"].transpose(*system, "load", "policy", *variant)
    c = ds["cost_mean"].transpose(*system, "load", "policy", *variant)
    policies = [str(p) for p in ds["policy"].values]
    counts: dict[str, int] = {}
    total = 0
    n_outer = int(np.prod(t.shape[: len(system) + 1]))
    tv = t.values.reshape(n_outer, len(policies), -1)
    cv = c.values.reshape(n_outer, len(policies), -1)
    for k in range(n_outer):
        pts, who = [], []
        for i, p in enumerate(policies):
            for j in range(tv.shape[2]):
                if np.isfinite(tv[k, i, j]) and np.isfinite(cv[k, i, j]):
                    pts.append((float(cv[k, i, j]), float(tv[k, i, j])))
                    who.append(p)
        if len(set(who)) < 2:
            continue
        total += 1
        for p in {who[i] for i in pareto_front(pts)}:
            counts[p] = counts.get(p, 0) + 1
    return counts, total


def theory_table(ds: xr.Dataset) -> pd.DataFrame:
    """Per kind of analytic value (of E[T] and E[C]): how many grid points have it and
    an estimate, how many agree with the estimate within its CI, and the median and
    largest relative error."""
    from .plots import kind_label, relative_error

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


def theory_sentences(ds: xr.Dataset) -> list[str]:
    out = []
    for r in theory_table(ds).to_dict("records"):
        what = {
            "exact": "exact values",
            "approximation": "approximations",
            "upper bound": "upper bounds",
            "lower bound": "lower bounds",
        }.get(r["kind"], r["kind"])
        text = (
            f"Theory against simulation, {r['quantity']}: {what} at {r['points']} points, "
            f"{r['within CI']} within the simulation's CI, median |error| "
            f"{100 * r['median |error|']:.1f} %, largest {100 * r['largest |error|']:.1f} %"
        )
        if r["kind"] == "upper bound":
            text += f"; below the simulation (a broken bound) at {r['below simulation']}"
        elif r["kind"] == "lower bound":
            text += f"; above the simulation (a broken bound) at {r['above simulation']}"
        out.append(text + ".")
    return out


# ------------------------------------------------------------------ markdown and HTML


def _provenance_rows(ds: xr.Dataset) -> list[tuple[str, str]]:
    a = ds.attrs
    keys = (
        ("study", "study"),
        ("scale", None),
        ("created", "created"),
        ("seed", "seed"),
        ("straggler", "straggler_version"),
        ("source hash", "source_hash"),
        ("git commit", "git_commit"),
        ("config sha256", "config_sha256"),
        ("load basis", "load_basis"),
        ("python", "python_version"),
        ("numpy", "numpy_version"),
        ("scipy", "scipy_version"),
        ("numba", "numba_version"),
        ("xarray", "xarray_version"),
        ("snakemake", "snakemake_version"),
    )
    rows = []
    for label, key in keys:
        if key is None:
            try:
                import yaml

                scale = yaml.safe_load(a.get("config", "")).get("scale")
            except Exception:  # noqa: BLE001 - provenance is best effort
                scale = None
            if scale:
                rows.append((label, str(scale)))
            continue
        if key in a:
            rows.append((label, str(a[key])))
    impossible = json.loads(a.get("impossible_cells", "[]"))
    notes = json.loads(a.get("cell_notes", "{}"))
    rows.append(("grid points left NaN", f"{len(impossible)} (attribute impossible_cells)"))
    rows.append(("cells with notes", f"{len(notes)} (attribute cell_notes)"))
    return rows


def markdown(ds: xr.Dataset, table: pd.DataFrame | None = None, claims: pd.DataFrame | None = None) -> str:
    """``report.md``: the short summary of ``report.html``: the generated sentences, the
    stability verdicts (counts by source, undetermined loads with the jobs that would
    decide them, contradictions), the claims, the provenance."""
    table = winners(ds) if table is None else table
    claims = claims_table(ds) if claims is None else claims
    lat = latency_winners(ds)
    attrs = ds.attrs
    lines = [
        f"# Study `{attrs.get('study', '?')}`: summary",
        "",
        "The full report with figures and tables is `report.html` beside this file; "
        "`winners.csv` has the winners of every setting"
        + (", `claims.csv` the paper's claims." if claims is not None and len(claims) else "."),
        "",
        "## Summary",
        "",
    ]
    lines += [f"- {s}" for s in summary(ds, table, lat, claims)]
    if not lat.empty:
        lines += [
            "",
            "No latency winner is named at a load where a contender is "
            "`undetermined`: its mean latency may be the smallest, or infinite.",
        ]
    lines += _verdict_lines(ds)
    if claims is not None and len(claims):
        lines += ["", "## Claims of the paper", ""]
        for r in claims.itertuples(index=False):
            lines.append(
                f"- **{r.verdict}** `{r.claim}` ({r.source}): {r.statement} Test: {r.test}. Evidence: {r.evidence}"
            )
    lines += ["", "## Provenance", ""]
    lines += [f"- {k}: `{v}`" for k, v in _provenance_rows(ds)]
    return "\n".join(lines) + "\n"


SECTIONS = ("summary", "stability", "latency", "cost", "tradeoffs", "theory", "claims", "provenance")
"""The sections of ``report.html``, in order."""


def figure_section(name: str) -> str:
    """The report section a figure belongs to."""
    if name.startswith("winners_"):
        return "summary"
    if name.startswith(("stability", "load")):
        return "stability"
    if name.startswith(("latency", "tail")):
        return "latency"
    if name.startswith("cost"):
        return "cost"
    if name == "tradeoff":
        return "tradeoffs"
    if name == "theory_vs_simulation":
        return "theory"
    return "summary"


def _table_html(df: pd.DataFrame, max_rows: int | None = None) -> str:
    if df is None or df.empty:
        return ""
    shown = df if max_rows is None else df.head(max_rows)
    html = shown.to_html(index=False, na_rep="", escape=True, border=0, float_format=lambda v: f"{v:.4g}")
    if max_rows is not None and len(df) > max_rows:
        html += f'<p class="note">{len(df) - max_rows} more rows in the CSV.</p>'
    return html


def _data_uri(path: Path) -> str:
    import base64

    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def html(
    ds: xr.Dataset,
    figures: dict[str, Path] | None = None,
    table: pd.DataFrame | None = None,
    claims: pd.DataFrame | None = None,
) -> str:
    """``report.html``: one self-contained page (figures embedded as PNG data URIs,
    styles inline, nothing fetched), rendered from the Jinja2 template
    ``templates/report.html.j2``."""
    import jinja2

    from .plots import figure_caption

    table = winners(ds) if table is None else table
    claims = claims_table(ds) if claims is None else claims
    lat = latency_winners(ds)
    counts, need, flagged = verdict_summary(ds)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("straggler", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    figs: dict[str, list] = {s: [] for s in SECTIONS}
    for name, path in (figures or {}).items():
        figs[figure_section(name)].append({"name": name, "uri": _data_uri(path), "caption": figure_caption(name)})
    stab_cols = [c for c in table.columns if c not in ("cheapest", "cost", "cost_kind", "cheapest_practical")]
    cost_cols = [
        c
        for c in table.columns
        if c in setting_dims(ds) or c in ("cheapest", "cost", "cost_kind", "cheapest_practical")
    ]

    def safe(text):  # HTML made here from escaped cells; the template marks it |safe
        return text

    context = {
        "study": ds.attrs.get("study", "?"),
        "summary": summary(ds, table, lat, claims),
        "figures": figs,
        "stability_table": safe(_table_html(table[stab_cols], 200)),
        "cost_table": safe(_table_html(table[cost_cols], 200)),
        "latency_table": safe(_table_html(lat, 300)),
        "verdict_counts": safe(_table_html(counts)),
        "undetermined": safe(_table_html(need, 100)),
        "contradictions": flagged,
        "theory_table": safe(_table_html(theory_table(ds))),
        "claims": [] if claims is None else claims.to_dict("records"),
        "provenance": _provenance_rows(ds),
        "config": ds.attrs.get("config", ""),
        "simulated": not lat.empty,
        "frontier": frontier_counts(ds),
    }
    return env.get_template("report.html.j2").render(**context)


def claims_table(ds: xr.Dataset) -> pd.DataFrame:
    from .claims import check_claims

    return check_claims(ds)


def _atomic(path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def write_report(
    ds: xr.Dataset, markdown_path, csv_path, html_path=None, claims_path=None, figures: dict[str, Path] | None = None
) -> None:
    """Write ``report.md``, ``winners.csv`` and, when given paths, ``report.html`` (with
    ``figures`` embedded) and ``claims.csv``."""
    table = winners(ds)
    claims = claims_table(ds)
    _atomic(csv_path, table.to_csv(index=False))
    _atomic(markdown_path, markdown(ds, table, claims))
    if claims_path is not None:
        from .claims import COLUMNS

        _atomic(claims_path, claims.reindex(columns=list(COLUMNS)).to_csv(index=False))
    if html_path is not None:
        _atomic(html_path, html(ds, figures, table, claims))


# ------------------------------------------------------------------ best at a point


def parse_point(items: list[str]) -> dict[str, str]:
    """``["r_slow=0.3", "distribution=pareto"]`` -> ``{"r_slow": "0.3", ...}``."""
    point = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"{item!r}: expected AXIS=VALUE")
        key, value = item.split("=", 1)
        point[key.strip()] = value.strip()
    return point


def _match(ds: xr.Dataset, dim: str, text: str):
    """The coordinate value of ``dim`` named by ``text``, or None."""
    values = list(ds[dim].values)
    if ds[dim].dtype.kind in "if":
        try:
            x = float(text)
        except ValueError:
            return None
        hits = [v for v in values if math.isclose(float(v), x, rel_tol=1e-9, abs_tol=1e-12)]
        return hits[0] if hits else None
    hits = [v for v in values if str(v) == text]
    return hits[0] if hits else None


def _evidence(kind: str) -> str:
    word = evidence_word(kind)
    return word if word == kind else f"{word}: {kind}"


def best_at(ds: xr.Dataset, point: dict[str, str]) -> tuple[list[str], bool]:
    """Lines that name the winning policies at ``point`` (axis -> value, ``load``
    included) by stability, latency and cost, each with its evidence; False when the
    point is not on the grid (the lines then say which values exist)."""
    dims = setting_dims(ds) + ["load"]
    lines, sel, problems = [], {}, []
    for key, text in point.items():
        if key not in dims:
            problems.append(f"{key} is not an axis of this dataset (axes: {', '.join(dims)})")
            continue
        value = _match(ds, key, text)
        if value is None:
            have = ", ".join(_fmt_value(v) for v in ds[key].values)
            problems.append(f"{key} = {text} is not one of its values ({have})")
            continue
        sel[key] = value
    free = [d for d in dims if d not in point and ds.sizes[d] > 1]
    problems += [f"{d} needs a value (one of {', '.join(_fmt_value(v) for v in ds[d].values)})" for d in free]
    if problems:
        return ["the point is not on the grid:"] + [f"  {p}" for p in problems], False
    for d in dims:
        sel.setdefault(d, ds[d].values[0])
    where = ", ".join(f"{k} = {_fmt_value(v)}" for k, v in sel.items() if ds.sizes[k] > 1 or k in point)
    lines.append(f"At {where}:")
    setting = {k: v for k, v in sel.items() if k != "load"}
    policies = [str(p) for p in ds["policy"].values]
    practical = _practical(ds)
    # stability
    capped, kinds = capped_by_simulation(ds)
    lm = capped.sel(setting)
    kd = kinds.sel(setting)
    vals = np.asarray(lm.values, dtype=float)
    for label, skip in (("", ()), (" (oracles left out)", ORACLES if practical else None)):
        if skip is None:
            continue
        won = best_policy(vals, policies, larger=True, skip=skip)
        if not won:
            lines.append(f"  stability{label}: no analysis for these policies")
            continue
        first = won.split(", ")[0]
        lines.append(
            f"  stability{label}: {won}, lambda_max = "
            f"{vals[policies.index(first)]:.4g} ({_evidence(kd.sel(policy=first).item())})"
        )
    if "verdict" in ds:
        v = ds["verdict"].sel(sel)
        src = ds["verdict_source"].sel(sel) if "verdict_source" in ds else None
        parts = []
        for p in policies:
            word = str(v.sel(policy=p).item()) or "not evaluated"
            s = str(src.sel(policy=p).item()) if src is not None else ""
            parts.append(f"{p} {word}" + (f" ({s})" if s else ""))
        lines.append(f"  verdicts at load {_fmt_value(sel['load'])}: " + ", ".join(parts))
    # latency
    lat = np.asarray(ds["latency_mean"].sel(sel).values, dtype=float)
    ci = np.asarray(ds["latency_mean_ci"].sel(sel).values, dtype=float)
    undetermined = []
    if "verdict" in ds:
        jobs = np.asarray(ds["jobs"].sel(sel).values, dtype=float)
        undetermined = [
            p
            for p, w, j in zip(policies, ds["verdict"].sel(sel).values, jobs)
            if w == "undetermined" and np.isfinite(j)
        ]
    if not np.isfinite(lat).any() and not undetermined:
        approx = np.asarray(ds["latency_approx"].sel(sel).values, dtype=float)
        if np.isfinite(approx).any():
            won = best_policy(approx, policies, larger=False, skip=ORACLES if practical else ())
            first = won.split(", ")[0]
            k = ds["latency_approx_kind"].sel(setting).sel(policy=first).item()
            lines.append(
                f"  latency: {won}, E[T] = {approx[policies.index(first)]:.4g} "
                f"(analysis, {_evidence(k)}; not simulated)"
            )
        else:
            lines.append("  latency: no estimate at this point (not simulated, or no policy stable)")
    elif undetermined:
        lines.append(
            f"  latency: undetermined: {', '.join(undetermined)} "
            "undetermined at this load (no winner named: its latency may be the "
            "smallest, or infinite)"
        )
    else:
        for label, skip in (("", ()), (" (oracles left out)", ORACLES if practical else None)):
            if skip is None:
                continue
            won = best_policy(lat, policies, larger=False, skip=skip)
            first = won.split(", ")[0] if won else ""
            if not first:
                lines.append(f"  latency{label}: no policy with an estimate (none stable)")
                continue
            kind = (
                ds["latency_mean_kind"].sel(sel).sel(policy=first).item() if "latency_mean_kind" in ds else "estimate"
            )
            lines.append(
                f"  latency{label}: {won}, E[T] = {lat[policies.index(first)]:.4g} ± "
                f"{ci[policies.index(first)]:.2g} (simulation, {kind})"
            )
    # cost
    cost = np.asarray(ds["cost"].sel(setting).values, dtype=float)
    for label, skip in (("", ()), (" (oracles left out)", ORACLES if practical else None)):
        if skip is None:
            continue
        won = best_policy(cost, policies, larger=False, skip=skip)
        if not won:
            lines.append(f"  cost{label}: no analysis for these policies")
            continue
        first = won.split(", ")[0]
        k = ds["cost_kind"].sel(setting).sel(policy=first).item() if "cost_kind" in ds else ""
        lines.append(f"  cost{label}: {won}, E[C] = {cost[policies.index(first)]:.4g} ({_evidence(k)})")
    return lines, True
