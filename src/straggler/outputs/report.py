"""The comparison report of a study: which policy to use where, and on what evidence.

Every value is an interval from its best evidence (:mod:`straggler.decide.intervals`) and a
policy wins only by dominance (:mod:`straggler.decide.winners`): ties are reported as tie
sets. The report opens with the answer to the study's question when it states an SLO
or a budget (:mod:`straggler.decide.decision`), then the recommendation at every setting and
load (the constrained answer, or else the E[T] winner or tie set, a tie narrowed by E[C]
among the tied, with its E[T], tail, extra-load and E[C] intervals, the runner-up and the
margin), then a few sentences, then the detail: winners per
criterion, the stability verdicts (counts by source, undetermined loads with the
jobs that would decide them, contradictions), theory against simulation, the claims
and the provenance. Written as ``winners.csv`` (one row per setting, load and
criterion), ``report.md`` and ``report.html``.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ..common.files import write_text
from ..decide.break_even import WORDS as BREAK_EVEN_WORDS
from ..decide.break_even import report_frame as break_even_frame
from ..decide.break_even import sentences as break_even_sentences
from ..decide.decision import (
    ANSWER_COLUMNS,
    CHEAPER_RULE,
    Constraints,
    changed,
    constraints,
    decision_section,
    decision_table,
    recommendations,
    winners_table,
)
from ..decide.intervals import CRITERIA, UNITS, fmt_interval, fmt_signed
from ..decide.winners import NONE_STABLE, ORACLES, PointTable, dominated, on_tail, plain, setting_dims
from ..model.policies import ALIASES, MEAN_OBJECTIVE, redundancy_kind, tuned_objective, tuned_parameters
from . import headline
from .glossary import TERMS


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


def conflict_sentences(ds: xr.Dataset) -> list[str]:
    """Where an exact value lies outside the simulation's CI, by class
    (:mod:`straggler.decide.disagreements`: heavy tail, not settled, chance, unexplained), and
    what the decisions believe there."""
    from ..decide.disagreements import CLASSES, classify, comparisons

    if "latency_mean" not in ds:
        return []
    found = classify(ds)
    if found.empty:
        return []
    made = comparisons(ds)
    per = ", ".join(f"{noun} {int((found['criterion'] == noun).sum())} of {made.get(noun, 0)}" for noun in made)
    by = found["class"].value_counts()
    classes = ", ".join(f"{by[c]} {c}" for c in CLASSES if c in by)
    text = (
        f"An exact value lies outside the simulation's CI at {_plural(len(found), 'point')} ({per} compared): "
        f"{classes} (listed under Theory against simulation)"
    )
    heavy = found[(found["class"] == "heavy tail") & (found["criterion"] == "E[T]")]
    if len(heavy):
        text += f"; at the {len(heavy)} heavy-tailed E[T] the exact value stands alone, since that CI under-covers"
    if "chance" in by:
        text += "; a 95 % CI misses at about one point in twenty, and where it can be trusted its interval is used"
    return [text + "."]


def disagreement_table(ds: xr.Dataset) -> pd.DataFrame:
    """Every point where an exact value lies outside the simulation's CI, with its class
    and why (:func:`straggler.decide.disagreements.classify`), for the report."""
    from ..decide.disagreements import classify

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


def undetermined_sentences(rec: pd.DataFrame) -> list[str]:
    """Under the answer's lines: where E[T] could not decide because a contender's
    simulated E[T] cannot be trusted, what decided instead (the tail quantile, where the
    response time has an infinite variance) and why some ties are left whole."""
    if not len(rec) or "basis" not in rec:
        return []
    basis = rec["basis"].astype(str)
    out = []
    tail = basis.map(on_tail)
    if tail.any():
        label = NUMBER_LABEL.search(basis[tail].iloc[0])
        name = label.group(0) if label else "tail"
        ties = int(rec.loc[tail, "recommended"].astype(str).str.contains(",").sum())
        n = int(tail.sum())
        out.append(
            f"At {_plural(n, 'point')} E[T] cannot decide: a contender's response time has an infinite variance "
            f"(a heavy tail), so its simulated CI under-covers. The {name} decides there instead, by its own "
            f"interval, among the policies E[T] does not rule out: one policy at {n - ties}, a {name} tie at {ties} "
            f"(basis '{name} (E[T] undecidable: infinite variance)')."
        )
    n = int(basis.str.startswith("E[T] undetermined").sum())
    if n:
        out.append(
            f"At {_plural(n, 'point')} a tie holds a policy whose simulated E[T] cannot be trusted: the mean "
            "cannot decide there, and neither can a quantile (the run had not settled, or the study has no "
            "quantiles): the tie is left whole."
        )
    return out


NUMBER_LABEL = re.compile(r"\bP\d+(?:\.\d+)?\b")
"""A quantile's name in a basis (``P99``)."""


def unreliable_sentences(ds: xr.Dataset) -> list[str]:
    """How many simulated E[T] the decisions set aside as unreliable (``ci_reliable`` =
    0), and what stands in for them."""
    from ..decide.intervals import EXACT, UNRELIABLE, latency_intervals

    iv = latency_intervals(ds)
    if "reliable" not in iv:
        return []
    evidence = np.asarray(iv["evidence"].values, dtype=object)
    unreliable = ~np.asarray(iv["reliable"].values, dtype=bool)
    n = int(unreliable.sum())
    if not n:
        return []
    exact = int((unreliable & (evidence == EXACT)).sum())
    open_ = int((unreliable & (evidence == UNRELIABLE)).sum())
    return [
        f"At {_plural(n, '(policy, setting, load) point')} the simulation's CI of E[T] cannot be trusted "
        f"(ci_reliable = 0: a heavy tail, or a run not settled) and decides nothing: an exact value stands in at "
        f"{exact}, the analysis's bounds alone at {open_} (evidence '{UNRELIABLE}')."
    ]


def _verdict_lines(ds: xr.Dataset) -> list[str]:
    counts, need, flagged = verdict_summary(ds)
    if counts.empty:
        return []
    lines = [
        "",
        "## Stability verdicts",
        "",
        "Each load is `stable`, `unstable` or `undetermined`, from the simulation, the "
        "analysis or both (docs/reference/verdicts.md): `stable` needs an exact or "
        "sufficient bound, a run long enough that a load 5 % above capacity would "
        "have been caught with 99 % probability (`monitor`), servers idle at least 10 % "
        "of a long enough run (`idle`) or a stable load above it (`monotone`); `unstable` "
        "needs a bound that proves it or growth seen by the simulation.",
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
        lines += ["", "The stability verdicts of theory and simulation never contradict each other."]
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


# ------------------------------------------------------------------ recommendation and sentences


def _swept(ds: xr.Dataset) -> list[str]:
    return [d for d in setting_dims(ds) if ds.sizes[d] > 1]


def _shown(ds: xr.Dataset, rows: pd.DataFrame) -> list[str]:
    """The swept axes that ``rows`` has as columns (:func:`at_the_trace` drops the resamples')."""
    return [d for d in _swept(ds) if d in rows.columns]


def _fmt_value(v) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def recommendation_table(ds: xr.Dataset, rec: pd.DataFrame | None = None) -> pd.DataFrame:
    """The recommendation rows for display: the swept axes, the load, the recommended
    contender or tie set, its E[T] interval with its evidence, its tail and extra load,
    its E[C], the runner-up and the margin, and (with constraints) the one that binds."""
    rec = recommendations(ds) if rec is None else rec
    c = constraints(ds)
    tail = metric_label(c)
    keep = [*_shown(ds, rec), *ANSWER_COLUMNS[: ANSWER_COLUMNS.index("E[C]") + 1]]  # load ... E[C]
    if c.hedges is None:  # the hedges per job, a column where the study budgets them
        keep.remove("hedges")
    out = rec[keep].copy().rename(columns={"tail": tail})
    out["runner_up"] = rec["runner_up"]
    out["margin"] = [("" if not np.isfinite(m) else f"{m:.3g}") for m in rec["margin"].astype(float)]
    if c.any:
        out["what would change it"] = rec["what would change it"]
    out["recommended"] = out["recommended"].replace("", "-")
    return out


def headline_lead(ds: xr.Dataset, rec: pd.DataFrame | None = None) -> str:
    """What the first lines answer: the operator's question when the study asks one, else
    the least E[T] (the winner maps below draw each criterion alone), and what it assumes of
    a job's copies (:func:`straggler.decide.assumption.study_sentence`); with the recommendation
    rows ``rec``, where E[T] could not decide and the tail quantile did."""
    from ..decide.assumption import study_sentence

    c = constraints(ds)
    default = "" if "prefer_cheaper_within" in decision_section(ds) else ", the default"
    within = f" (decision.prefer_cheaper_within: {c.cheaper_within:g}{default})"
    lead = f"The policy to use by case and load: {c.rule_words()}{within}."
    assumes = study_sentence(ds)
    if assumes:
        lead += f" {assumes}"
    if rec is not None and len(rec) and rec["basis"].astype(str).map(on_tail).any():
        name = metric_label(c)
        lead += (
            f" Where E[T] cannot decide because a contender's response time has an infinite variance (its "
            f"simulated CI under-covers), the least {name} among the policies E[T] does not rule out, by the "
            f"{name}'s intervals: a {name} tie stays a tie (basis '{name} (E[T] undecidable: infinite variance)')."
        )
    return lead


def metric_label(c: Constraints) -> str:
    """The tail column's name: ``P99`` (the SLO's quantile)."""
    from ..decide.decision import metric_name

    return metric_name(c.tail_level)


def answer_sentences(ds: xr.Dataset, rec: pd.DataFrame, table: PointTable) -> list[str]:
    """The constrained answer in words, for the report's first screen: what was asked,
    where a contender qualifies, where none does and which constraint binds, and at how
    many points the constraints change the E[T]-alone recommendation. Empty without
    constraints."""
    c = constraints(ds)
    if not c.any or rec.empty:
        return []
    asked = " and ".join(w for w in (c.slo_words(), c.budget_words()) if w)
    n = len(rec)
    one = int(((rec["recommended"] != "") & rec["decided"].astype(bool)).sum())
    unstable = int((rec["basis"] == NONE_STABLE).sum())
    none = int((rec["recommended"] == "").sum()) - unstable
    out = [
        f"Asked: {asked} (extra load: server time per job E[C] / E[X] - 1, against one copy at full speed; "
        f"times {unit_words(c.unit)}).",
        f"One contender is the answer at {one} of {n} (setting, load) points"
        + (f", a tie set or an undetermined one at {n - one - none - unstable}" if n - one - none - unstable else "")
        + (f"; none qualifies at {none}" if none else "")
        + (f"; no policy is stable at {unstable}" if unstable else "")
        + ".",
    ]
    binds = rec["binding"].value_counts().to_dict()
    if any(binds.get(k) for k in ("slo", "budget", "both")):
        out.append(
            "The constraint that rules out faster contenders (see 'what would change it'): the SLO alone at "
            f"{binds.get('slo', 0)} points, the budget alone at {binds.get('budget', 0)}, both at {binds.get('both', 0)}."
        )
    k, m = changed(table, rec)
    out.append(f"Against E[T] alone, the constraints change the recommendation at {k} of {m} points.")
    counts_by = rec.loc[rec["recommended"] != "", "recommended"].value_counts()
    if len(counts_by):
        top = ", ".join(
            f"{name if ',' not in name else '{' + name + '}'} ({v})" for name, v in counts_by.head(4).items()
        )
        out.append(f"Most often recommended: {top}.")
    return out + redundancy_sentences(ds, rec) + break_even_sentences(ds) + located_sentences(ds, table)


def redundancy_sentences(ds: xr.Dataset, rec: pd.DataFrame) -> list[str]:
    """When to hedge, when to replicate and when neither pays: the recommendations by what
    they do with copies (:func:`straggler.model.policies.redundancy_kind`), with where each holds
    (the values of the setting's swept axes); empty when every recommendation is one kind."""
    picked = rec[rec["recommended"] != ""]
    if picked.empty or any("," in str(r) for r in picked["recommended"]):
        return []
    kinds = [redundancy_kind(str(r).split(" ", 1)[0]) for r in picked["recommended"]]
    if len(set(kinds)) < 2 and "hedge" not in kinds:
        return []
    axes = [a for a in _shown(ds, rec) if a != "load"]
    parts = []
    for kind, words in (("hedge", "hedge"), ("replicate", "replicate"), ("one copy", "neither pays (one copy)")):
        rows = picked[[k == kind for k in kinds]]
        where = "; ".join(f"{a} {', '.join(str(plain(v)) for v in pd.unique(rows[a]))}" for a in axes if len(rows)) + (
            f"; loads {', '.join(f'{v:g}' for v in sorted(pd.unique(rows['load'])))}" if len(rows) else ""
        )
        parts.append(f"{words} at {len(rows)} points" + (f" ({where})" if len(rows) else ""))
    return ["When to hedge, when to replicate, when neither pays: " + "; ".join(parts) + "."]


def located_sentences(ds: xr.Dataset, table: PointTable) -> list[str]:
    """How far the search between the grid's loads got (a dataset with ``capacity.csv``
    attached): frontiers exact, located to the resolution, or left wider where the
    simulation cannot tell, and at how many settings the stability winner is decided."""
    if "located_stability_evidence" not in ds:
        return []
    out = []
    for what, label in (("stability", "stability frontiers"), ("slo", "SLO capacities")):
        said = [str(v) for v in np.asarray(ds[f"located_{what}_evidence"].values, dtype=object).ravel() if v]
        if not said:
            continue
        counts = {
            "exact": sum(v.startswith("exact") for v in said),
            "located": sum(v == "located" for v in said),
            "wider": sum(v.startswith("undetermined") for v in said),
            "never": sum(v.startswith("not met") for v in said),
        }
        never = f", {counts['never']} not met at any load probed" if what == "slo" else ""
        out.append(
            f"Between the grid's loads ({label}, capacity.csv): {counts['located']} located to the "
            f"resolution, {counts['exact']} exact from the analysis, {counts['wider']} wider where "
            f"the simulation cannot tell{never} (dataset points; see Located frontiers)."
        )
    settings = [index for index, li in table.points() if li is None]
    decided = sum(table.decide("stability", index).decided for index in settings)
    out.append(f"The stability winner is decided at {decided} of {len(settings)} settings on the located frontiers.")
    return out


def measured_laws(ds: xr.Dataset) -> list[str]:
    """The laws of the dataset's distribution axis that are read from a data file (a
    measured trace), by the config the dataset records."""
    import yaml

    from ..model.distributions import FAMILIES, laws_within

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
    key = [c for c in _shown(ds, rec) if c != "distribution"] + ["load"]
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
            f"The trace {law} and {_plural(count, 'resample')} of it (n values drawn with replacement): at "
            f"{robust_points} of {points} (setting, load) points every resample decides the trace's "
            "recommendation (robust); the table gives the share that agree at each point."
        )
    return sentences, pd.DataFrame(rows)


def criterion_table(ds: xr.Dataset, table: pd.DataFrame, criterion: str) -> pd.DataFrame:
    """The rows of ``winners.csv`` for one criterion, for display (intervals in words)."""
    rows = table[table["criterion"] == criterion]
    keep = [*_shown(ds, rows), *([] if criterion == "stability" else ["load"])]
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


def summary(
    ds: xr.Dataset,
    table: pd.DataFrame | None = None,
    rec: pd.DataFrame | None = None,
    claims: pd.DataFrame | None = None,
) -> list[str]:
    """Short sentences under the recommendation: how much is decided, what keeps the
    rest open, what the decisions rest on."""
    table = winners_table(ds) if table is None else table
    rec = recommendations(ds) if rec is None else rec
    out = []
    oracles = [str(p) for p in ds["policy"].values if p in ORACLES]
    if oracles:
        out.append(f"The oracle{'s' if len(oracles) > 1 else ''} {', '.join(oracles)} (a benchmark) is left out.")
    if len(rec):
        one = int((rec["recommended"].str.count(",") == 0).sum() - (rec["recommended"] == "").sum())
        none = int((rec["recommended"] == "").sum())
        out.append(
            f"One policy is recommended at {one} of {len(rec)} (setting, load) points"
            + (f", a tie set at {len(rec) - one - none}" if len(rec) - one - none else "")
            + (f", none at {none} (no policy stable)" if none else "")
            + "."
        )
    for crit, noun in (("latency", "E[T]"), ("cost", "E[C]"), ("stability", "Stability")):
        c = counts(table, crit)
        if not c["points"]:
            continue
        what = "settings" if crit == "stability" else "points"
        text = f"{noun}: decided at {c['decided']} of {c['points']} {what}, tied at {c['tied']}"
        if c["open"]:
            text += f" ({c['open']} held open by an undetermined contender)"
        by = [f"{k[3:]} {v}" for k, v in c.items() if k.startswith("by ")]
        if by:
            text += "; the decided ones rest on " + ", ".join(by)
        out.append(text + ".")
    out += unreliable_sentences(ds)
    counts_v, need, flagged = verdict_summary(ds)
    if not need.empty:
        out.append(
            "Longer runs would decide the undetermined loads: the jobs per replication are listed under Stability verdicts."
        )
    if flagged:
        out.append(f"Theory and simulation disagree at {_plural(len(flagged), 'cell')} (listed below).")
    out += conflict_sentences(ds)
    if claims is not None and len(claims):
        v = claims["verdict"].value_counts().to_dict()
        failing = claims[claims["verdict"] == "fails"]["claim"].tolist()
        out.append(
            f"Claims of the paper: {v.get('holds', 0)} hold, {v.get('fails', 0)} fail"
            + (f" ({', '.join(failing)})" if failing else "")
            + f", {v.get('not tested', 0)} not tested."
        )
    return out


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
    from .figures import kind_label, relative_error

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
        ("data files", "data_files"),
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
        if a.get(key, "") != "":  # (a study without data files has none to name)
            rows.append((label, str(a[key])))
    impossible = json.loads(a.get("impossible_cells", "[]"))
    notes = json.loads(a.get("cell_notes", "{}"))
    rows.append(("grid points left NaN", f"{len(impossible)} (attribute impossible_cells)"))
    rows.append(("cells with notes", f"{len(notes)} (attribute cell_notes)"))
    return rows


def markdown(
    ds: xr.Dataset,
    table: pd.DataFrame | None = None,
    claims: pd.DataFrame | None = None,
    rec: pd.DataFrame | None = None,
) -> str:
    """``report.md``: the recommendation first (a row per setting and load), a few
    sentences, the winners on stability per setting, the stability verdicts, theory
    against simulation, the claims, the provenance."""
    points = decision_table(ds)
    table = winners_table(ds, points) if table is None else table
    rec = recommendations(ds, points) if rec is None else rec
    claims = claims_table(ds) if claims is None else claims
    sure, agreement = resample_agreement(ds, rec)
    table, rec = at_the_trace(ds, table), at_the_trace(ds, rec)
    attrs = ds.attrs
    lines = [
        f"# Study `{attrs.get('study', '?')}`: which policy to use",
        "",
        headline_lead(ds, rec),
        "",
        *[f"- {s}" for s in headline.sentences(rec, _shown(ds, rec)) + undetermined_sentences(rec)],
        "",
        "Every value is an interval from its best evidence (exact, a bound, the simulation's CI); a "
        "policy is named alone where the rule in the basis column picks it, else the tie set is listed. "
        "Extra load: the server time a job takes beyond one copy at full speed. `winners.csv` has every "
        "criterion at every point, `report.html` the figures.",
        "",
    ]
    answer = answer_sentences(ds, rec, points)
    if answer:
        lines += ["## The answer to the study's question", ""]
        lines += [f"- {s}" for s in answer]
        lines += [""]
    lines += [
        "## Recommendation",
        "",
        _markdown_table(recommendation_table(ds, rec)),
        "",
    ]
    lines += [f"- {s}" for s in summary(ds, table, rec, claims)]
    lines += ["", BASIS_WORDS, ""]
    breaking = break_even_frame(ds)
    if not breaking.empty:
        lines += ["", "## Break-even cancellation delays", "", BREAK_EVEN_WORDS, "", _markdown_table(breaking), ""]
    said, differences = law_differences(ds, rec)
    if said:
        lines += ["", "## Where the size law changes the answer", ""]
        lines += [f"- {s}" for s in said]
        if not differences.empty:
            lines += ["", _markdown_table(differences)]
    if sure:
        lines += ["", "## How sure the answer is: resamples of the trace", ""]
        lines += [f"- {s}" for s in sure]
        lines += ["", _markdown_table(agreement)]
    lines += [
        "",
        "## Stability: the largest stable load",
        "",
        _markdown_table(criterion_table(ds, table, "stability")),
    ]
    lines += _verdict_lines(ds)
    located = located_table(ds)
    if not located.empty:
        lines += ["", "## Located frontiers", "", LOCATED_WORDS, "", _markdown_table(located)]
    tuned = tuned_table(ds)
    if not tuned.empty:
        lines += ["", "## Tuned knobs", "", TUNED_WORDS, "", _markdown_table(tuned)]
    theory = theory_table(ds)
    if not theory.empty:
        lines += ["", "## Theory against simulation", "", _markdown_table(theory)]
    disagreements = disagreement_table(ds)
    if not disagreements.empty:
        lines += ["", DISAGREEMENT_WORDS, "", _markdown_table(disagreements)]
    if claims is not None and len(claims):
        lines += ["", "## Claims of the paper", ""]
        for r in claims.itertuples(index=False):
            lines.append(
                f"- **{r.verdict}** `{r.claim}` ({r.source}): {r.statement} Test: {r.test}. Evidence: {r.evidence}"
            )
    lines += ["", "## Provenance", ""]
    lines += [f"- {k}: `{v}`" for k, v in _provenance_rows(ds)]
    return "\n".join(lines) + "\n"


BASIS_WORDS = (
    "`basis`: what picked the recommendation (`E[T]`: it beats every other E[T] interval; "
    "`E[T] tie`: the contenders that could be fastest; `E[T] tie, then E[C]`: of those, the ones "
    "no other is proven cheaper than; `P99 (E[T] undecidable: infinite variance)`: a contender of the E[T] "
    "tie has a response time of infinite variance, so its simulated E[T] cannot be trusted, and the P99's "
    "intervals (which need no finite variance) decide among the tied; `P99 tie (...)`: they overlap too, and "
    "the tie stays whole; `E[T] undetermined: unreliable CI of P`: P could be the fastest "
    "but its simulated E[T] cannot be trusted (the run had not settled), so the tie is left whole; with an SLO "
    "or a budget, the fastest on the SLO's metric among the contenders that meet both (on the P99 where E[T] "
    "cannot decide); `E[C] 5 % lower, E[T] within 5 % of P`: the "
    "cheaper-policy rule preferred a cheaper policy to P, the fastest). `tail`: the "
    "response-time quantile at the SLO's level (P99 without one). "
    + " ".join(
        f"`{term}`: {TERMS[term]}." for term in ("extra load", "hedges", "decided by", "margin", "cheaper-policy rule")
    )
    + " `what would change it`: the fastest contender a constraint rules out and by how "
    "much it misses; where none qualifies, the nearest miss of each constraint."
)
"""The legend under the recommendation table."""


LOCATED_WORDS = (
    "Searched between the grid's loads (decision.resolution): stable at a frontier's low end and "
    "not at its high end, the SLO met at the low end and not at the high end. An interval wider "
    "than the resolution says where the simulation could not tell (capacity.csv has every row, "
    "crossovers.csv the loads where the winners change)."
)

DISAGREEMENT_WORDS = (
    "Every point where an exact value lies outside the simulation's CI, in the first class that "
    "applies. `heavy tail`: the size law's tail gives the response time (E[T]) or the server time per "
    "job (E[C]) an infinite variance, so the CI under-covers: the decisions use the exact value. "
    "`not settled`: the run was still drifting (MSER). `chance`: a light tail and a settled run, and "
    "the gap is not significant once the study's number of comparisons is counted (Student-t p-value "
    "times that number, above 0.05): a 95 % CI misses one true value in twenty. `unexplained`: any "
    "other gap; a correct simulator and analysis leave none."
)

TUNED_WORDS = (
    "Each tuned knob was searched per setting and load on the workload's common random numbers: "
    "the best value has the least simulated E[T], or the least quantile its objective names "
    "(objective: p99); the range holds the values whose paired difference from it the simulation "
    "cannot tell from 0. The simulation agrees with the analysis's optimum where that optimum "
    "lies in the range (the analyses' optima minimise the mean: none is compared with a tail)."
)

SECTIONS = ("summary", "stability", "latency", "cost", "tradeoffs", "theory", "claims", "provenance")
"""The sections of ``report.html``, in order."""


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

    from .catalog import figure_caption, figure_section

    points = decision_table(ds)
    table = winners_table(ds, points) if table is None else table
    rec = recommendations(ds, points)
    claims = claims_table(ds) if claims is None else claims
    sure, agreement = resample_agreement(ds, rec)
    table, rec = at_the_trace(ds, table), at_the_trace(ds, rec)
    counts_v, need, flagged = verdict_summary(ds)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("straggler.outputs", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # the decision figures sit under the answer, on the first screen of the summary
    figs: dict[str, list] = {s: [] for s in (*SECTIONS, "decision", "maps")}
    for name, path in (figures or {}).items():
        # the winner maps sit under the first lines: the picture of the answer
        where = "maps" if name.startswith("winners_") else figure_section(name)
        figs[where].append({"name": name, "uri": _data_uri(path), "caption": figure_caption(name)})
    simulated = "latency_mean" in ds and bool(np.isfinite(np.asarray(ds["latency_mean"].values, float)).any())
    said, differences = law_differences(ds, rec)
    context = {
        "study": ds.attrs.get("study", "?"),
        "headline_lead": headline_lead(ds, rec),
        "headline": headline.sentences(rec, _shown(ds, rec)) + undetermined_sentences(rec),
        "recommendation_groups": [
            {"title": title, "table": _table_html(rows)}
            for title, rows in headline.grouped(recommendation_table(ds, rec), rec, _shown(ds, rec))
        ],
        "answer": answer_sentences(ds, rec, points),
        "basis_words": BASIS_WORDS.replace("`", ""),
        "terms": [(term, text[0].upper() + text[1:] + ".") for term, text in TERMS.items()],
        "summary": summary(ds, table, rec, claims),
        "figures": figs,
        "stability_table": _table_html(criterion_table(ds, table, "stability"), 200),
        "cost_table": _table_html(criterion_table(ds, table, "cost"), 400),
        "latency_table": _table_html(criterion_table(ds, table, "latency"), 400),
        "verdict_counts": _table_html(counts_v),
        "undetermined": _table_html(need, 100),
        "contradictions": flagged,
        "theory_table": _table_html(theory_table(ds)),
        "disagreement_words": DISAGREEMENT_WORDS,
        "disagreement_table": _table_html(disagreement_table(ds), 400),
        "claims": [] if claims is None else claims.to_dict("records"),
        "provenance": _provenance_rows(ds),
        "config": ds.attrs.get("config", ""),
        "simulated": simulated,
        "frontier": frontier_counts(ds, points),
        "law_sentences": said,
        "law_table": _table_html(differences, 200),
        "resample_sentences": sure,
        "resample_table": _table_html(agreement, 200),
        "located_words": LOCATED_WORDS,
        "located_table": _table_html(located_table(ds), 400),
        "tuned_words": TUNED_WORDS,
        "tuned_table": _table_html(tuned_table(ds), 400),
        "break_even_words": BREAK_EVEN_WORDS,
        "break_even_table": _table_html(break_even_frame(ds), 400),
    }
    return env.get_template("report.html.j2").render(**context)


def claims_table(ds: xr.Dataset) -> pd.DataFrame:
    from ..decide.claims import check_claims

    return check_claims(ds)


def write_report(
    ds: xr.Dataset, markdown_path, csv_path, html_path=None, claims_path=None, figures: dict[str, Path] | None = None
) -> None:
    """Write ``report.md``, ``winners.csv`` and, when given paths, ``report.html`` (with
    ``figures`` embedded) and ``claims.csv``."""
    points = decision_table(ds)
    table = winners_table(ds, points)
    claims = claims_table(ds)
    write_text(csv_path, table.to_csv(index=False))
    write_text(markdown_path, markdown(ds, table, claims, recommendations(ds, points)))
    if claims_path is not None:
        from ..decide.claims import COLUMNS

        write_text(claims_path, claims.reindex(columns=list(COLUMNS)).to_csv(index=False))
    if html_path is not None:
        write_text(html_path, html(ds, figures, table, claims))


# ------------------------------------------------------------------ best at a point


def parse_point(items: list[str]) -> dict[str, str]:
    """``["r_slow=0.3", "distribution=pareto"]`` -> ``{"r_slow": "0.3", ...}``; a
    ValueError for an item that is not AXIS=VALUE or an axis given twice."""
    point: dict[str, str] = {}
    for item in items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise ValueError(f"--at {item!r} is not AXIS=VALUE; expected e.g. r_slow=0.5 load=0.5")
        if key in point and point[key] != value:
            raise ValueError(f"--at gives {key} twice ({point[key]}, {value}); expected one value per axis")
        point[key] = value
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


def best_at(ds: xr.Dataset, point: dict[str, str]) -> tuple[list[str], bool]:
    """The answer at ``point`` (axis -> value, ``load`` included): the recommendation
    (the constrained answer when the study states an SLO or a budget), then each
    criterion's winner or tie set with its interval and evidence, then every
    contender's intervals and verdict; False when the point is not on the grid (the
    lines then say which values exist). A swept policy axis (``d``, a policy's
    parameter) left out of the point is answered over: ``CoC d=3`` is a contender."""
    from ..decide.assumption import point_words
    from ..decide.decision import answer, constraints, criteria, decide_criterion, metric_name
    from ..decide.winners import candidate_axes

    dims = setting_dims(ds) + ["load"]
    over = candidate_axes(ds)
    sel, problems = {}, []
    for key, text in point.items():
        if key not in dims:
            close = difflib.get_close_matches(key, dims, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(f"{key} is not an axis of this dataset (axes: {', '.join(dims)}){hint}")
            continue
        value = _match(ds, key, text)
        if value is None:
            have = ", ".join(_fmt_value(v) for v in ds[key].values)
            problems.append(f"{key} = {text} is not one of its values ({have})")
            continue
        sel[key] = value
    free = [d for d in dims if d not in point and ds.sizes[d] > 1 and d not in over]
    problems += [f"{d} needs a value (one of {', '.join(_fmt_value(v) for v in ds[d].values)})" for d in free]
    if problems:
        return ["the point is not on the grid:"] + [f"  {p}" for p in problems], False
    # a policy axis the point fixes is no longer chosen over
    ds = ds.sel({a: [sel[a]] for a in over if a in sel})
    points = decision_table(ds)
    for d in points.dims + ["load"]:
        sel.setdefault(d, ds[d].values[0])
    index = tuple(list(ds[d].values).index(sel[d]) for d in points.dims)
    li = list(ds["load"].values).index(sel["load"])
    c = constraints(ds)
    shown = [k for k in (*points.dims, "load") if ds.sizes[k] > 1 or k in point]
    where = ", ".join(f"{k} = {_fmt_value(sel[k])}" for k in shown)
    if points.candidate_axes:
        where += f" (over {', '.join(points.candidate_axes)})"
    r = answer(points, index, li)
    tail_name = metric_name(c.tail_level)
    lines = [f"At {where}:"]
    lines.append(f"  rule: {c.rule_words()}")
    lines.append(f"  assumes: {point_words(ds, sel)}")
    if r["recommended"]:
        text = f"  recommended: {r['recommended']} ({r['basis']})"
        text += f", E[T] {r['E[T]'] or 'unknown'} ({r['E[T] evidence'] or '-'})"
        text += f", {tail_name} {r['tail'] or 'unknown'}, extra load {r['extra load'] or 'unknown'}"
        if c.budgeted and r["hedges"] and r["hedges"] != "0":  # with a budget: what a stack's budget counts
            text += f", hedges per job {r['hedges']}"
        text += f", E[C] {r['E[C]'] or 'unknown'}"
        if r["decided by"].startswith(CHEAPER_RULE):
            text += f"; the fastest {r['runner_up']}, E[C] saved {r['margin']:.3g}"
        elif r["runner_up"] and np.isfinite(r["margin"]):
            text += f"; runner-up {r['runner_up']}, margin {r['margin']:.3g}"
        if r["binding"]:
            text += f"; binding: {r['binding']}"
        lines.append(text)
    else:
        lines.append(f"  recommended: none ({r['basis']})")
    for crit in (*CRITERIA, *criteria(c, "latency_quantile" in ds)):
        at = index if crit == "stability" else (*index, li)
        dec = points.decide(crit, at) if crit in CRITERIA else decide_criterion(points, crit, at)
        label = f"{crit} ({UNITS.get(crit) or _criterion_unit(crit, c)})"
        if not dec.winners:
            lines.append(f"  {label}: no winner ({dec.evidence})")
            continue
        head = "winner" if dec.decided else "tie"
        text = f"  {label}: {head} {', '.join(dec.winners)}, {fmt_interval(dec.low, dec.high)} ({dec.evidence})"
        if dec.runner_up and np.isfinite(dec.margin):
            text += f"; runner-up {dec.runner_up}, margin {dec.margin:.3g}"
        if dec.undetermined:
            text += f"; undetermined: {', '.join(dec.undetermined)}"
        lines.append(text)
        if crit in CRITERIA and any(p in ORACLES for p in points.policy_of):
            w = points.decide(crit, at, with_oracles=True)
            if w.winners != dec.winners:
                lines.append(f"    with the oracles: {', '.join(w.winners)} ({fmt_interval(w.low, w.high)})")
    lines += _contender_lines(points, index, li, c.budgeted, tail_name)
    lines += located_lines(points, index, c)
    lines.append(f"  times: {unit_words(c.unit)}")
    return lines, True


def _contender_lines(points, index: tuple, li: int, budgeted: bool, tail_name: str) -> list[str]:
    """``best``'s every contender at a setting and load: its stability, E[T], extra load
    (and hedges per job, where the study states a budget), E[C] and tail intervals, and
    its verdict."""
    ds = points.ds
    lines: list[str] = []
    hedged = ("hedges",) if budgeted else ()  # the extra copies per job, beside a budget
    lines.append(
        f"  every contender (stability; E[T]; extra load; {'hedges per job; ' if hedged else ''}E[C]; "
        f"{tail_name} of T at this load; verdict):"
    )
    source = points.flat(ds["verdict_source"], [*points.dims, "load"]) if "verdict_source" in ds else None
    for k, p in enumerate(points.policies):
        if not bool(points.arrays["stability"]["present"][(*index, k)]):
            lines.append(f"    {p}: not evaluated here")
            continue
        parts = []
        for crit in ("stability", "latency", "extra_load", *hedged, "cost", "tail"):
            a = points.arrays[crit]
            at = (*index, k) if crit == "stability" else (*index, li, k)
            fmt = fmt_signed if crit in ("extra_load", "hedges") else fmt_interval
            iv = fmt(float(a["low"][at]), float(a["high"][at])) or "unknown"
            parts.append(f"{iv} ({a['evidence'][at]})")
        v = points.arrays["latency"]["verdict"][(*index, li, k)] or "no verdict"
        src = "" if source is None else str(source[(*index, li, k)])
        tag = " (oracle)" if points.policy_of[k] in ORACLES else ""
        lines.append(f"    {p}{tag}: " + "; ".join(parts) + f"; {v}" + (f" ({src})" if src else ""))
    return lines


def unit_words(unit: str) -> str:
    """Where the study's times are: ``in ms``, or unit-free (its laws state none)."""
    return f"in {unit}" if unit else "unit-free: the size laws state no unit (unit: ms on a law states one)"


def located_lines(points, index: tuple, c: Constraints) -> list[str]:
    """The located frontiers of each contender at a setting (a dataset with
    ``capacity.csv`` attached, :func:`straggler.decide.frontier.attach`), for ``best``."""
    ds = points.ds
    if "located_stability_low" not in ds:
        return []
    got = {
        name: points.flat(ds[f"located_{name}"], points.dims)
        for name in ("stability_low", "stability_high", "stability_evidence", "slo_low", "slo_high", "slo_evidence")
    }
    lines = [
        "  located between the grid's loads (capacity.csv: stable at the low end, not at the high one"
        + (f"; {c.slo_words()} met at the low end, not at the high one" if c.target is not None else "")
        + "):"
    ]
    for k, p in enumerate(points.policies):
        at = (*index, k)
        low, high = float(got["stability_low"][at]), float(got["stability_high"][at])
        if math.isnan(low) and math.isnan(high):
            continue
        text = f"    {p}: stability frontier {fmt_interval(low, high)} ({got['stability_evidence'][at]})"
        s_low, s_high = float(got["slo_low"][at]), float(got["slo_high"][at])
        if c.target is not None and not (math.isnan(s_low) and math.isnan(s_high)):
            text += f"; {c.slo_words()} up to {fmt_interval(s_low, s_high)} ({got['slo_evidence'][at]})"
        lines.append(text)
    return lines


def _criterion_unit(crit: str, c: Constraints) -> str:
    """How ``best`` names a decision criterion's value."""
    from ..decide.decision import metric_name

    if crit == "tail":
        return metric_name(c.tail_level)
    if crit == "slo":
        return f"E[C] among {c.slo_words()}"
    return f"{metric_name(c.level)} within {c.budget_words()}"
