"""The report's words: the sentences it says about a study and the legends under its
tables (plain text, placed by :mod:`.pages`).

The lead and the answer to the study's question (:func:`headline_lead`,
:func:`answer_sentences`), where E[T] could not decide (:func:`undetermined_sentences`),
the short sentences under the recommendation (:func:`summary`: how much is decided, what
keeps the rest open, unreliable CIs, theory's conflicts with the simulation, the claims),
when to hedge or replicate (:func:`redundancy_sentences`), how far the search between the
grid's loads got (:func:`located_sentences`), the study's time unit in words
(:func:`unit_words`) and the legends (:data:`BASIS_WORDS`, :data:`LOCATED_WORDS`,
:data:`DISAGREEMENT_WORDS`, :data:`TUNED_WORDS`).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import xarray as xr

from ...decide.break_even import sentences as break_even_sentences
from ...decide.decision import changed, constraints, decision_section, recommendations, winners_table
from ...decide.intervals import one_copy_words
from ...decide.winners import NONE_STABLE, ORACLES, PointTable, on_tail, plain
from ...model.policies import redundancy_kind
from ..glossary import TERMS
from .tables import counts, metric_label, plural, shown_axes, verdict_summary


def headline_lead(ds: xr.Dataset, rec: pd.DataFrame | None = None) -> str:
    """What the first lines answer: the operator's question when the study asks one, else
    the least E[T] (the winner maps below draw each criterion alone), and what it assumes of
    a job's copies (:func:`straggler.decide.assumption.study_sentence`); with the recommendation
    rows ``rec``, where E[T] could not decide and the tail quantile did."""
    from ...decide.assumption import study_sentence

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
        f"Asked: {asked} (extra load: server time per job E[C] / {one_copy_words(ds)} - 1, against one copy at "
        f"full speed; times {unit_words(c.unit)}).",
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
            f"At {plural(n, 'point')} E[T] cannot decide: a contender's response time has an infinite variance "
            f"(a heavy tail), so its simulated CI under-covers. The {name} decides there instead, by its own "
            f"interval, among the policies E[T] does not rule out: one policy at {n - ties}, a {name} tie at {ties} "
            f"(basis '{name} (E[T] undecidable: infinite variance)')."
        )
    n = int(basis.str.startswith("E[T] undetermined").sum())
    if n:
        out.append(
            f"At {plural(n, 'point')} a tie holds a policy whose simulated E[T] cannot be trusted: the mean "
            "cannot decide there, and neither can a quantile (the run had not settled, or the study has no "
            "quantiles): the tie is left whole."
        )
    return out


NUMBER_LABEL = re.compile(r"\bP\d+(?:\.\d+)?\b")
"""A quantile's name in a basis (``P99``)."""


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
    axes = [a for a in shown_axes(ds, rec) if a != "load"]
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
        out.append(f"Theory and simulation disagree at {plural(len(flagged), 'cell')} (listed below).")
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


def unreliable_sentences(ds: xr.Dataset) -> list[str]:
    """How many simulated E[T] the decisions set aside as unreliable (``ci_reliable`` =
    0), and what stands in for them."""
    from ...decide.intervals import EXACT, UNRELIABLE, latency_intervals

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
        f"At {plural(n, '(policy, setting, load) point')} the simulation's CI of E[T] cannot be trusted "
        f"(ci_reliable = 0: a heavy tail, or a run not settled) and decides nothing: an exact value stands in at "
        f"{exact}, the analysis's bounds alone at {open_} (evidence '{UNRELIABLE}')."
    ]


def conflict_sentences(ds: xr.Dataset) -> list[str]:
    """Where an exact value lies outside the simulation's CI, by class
    (:mod:`straggler.decide.disagreements`: heavy tail, not settled, chance, unexplained), and
    what the decisions believe there."""
    from ...decide.disagreements import CLASSES, classify, comparisons

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
        f"An exact value lies outside the simulation's CI at {plural(len(found), 'point')} ({per} compared): "
        f"{classes} (listed under Theory against simulation)"
    )
    heavy = found[(found["class"] == "heavy tail") & (found["criterion"] == "E[T]")]
    if len(heavy):
        text += f"; at the {len(heavy)} heavy-tailed E[T] the exact value stands alone, since that CI under-covers"
    if "chance" in by:
        text += "; a 95 % CI misses at about one point in twenty, and where it can be trusted its interval is used"
    return [text + "."]


def unit_words(unit: str) -> str:
    """Where the study's times are: ``in ms``, or unit-free (its laws state none)."""
    return f"in {unit}" if unit else "unit-free: the size laws state no unit (unit: ms on a law states one)"


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
