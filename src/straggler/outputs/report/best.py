"""``straggler best``: the answer at one point of a study's grid, in lines for the
terminal.

:func:`parse_point` reads the command's ``--at AXIS=VALUE`` items; :func:`best_at`
gives the recommendation there, each criterion's winner or tie set and every
contender's intervals, with the located frontiers (:func:`located_lines`) where the
dataset has them, or says which values exist when the point is not on the grid.
"""

from __future__ import annotations

import difflib
import math

import numpy as np
import xarray as xr

from ...decide.decision import CHEAPER_RULE, Constraints, decision_table
from ...decide.intervals import CRITERIA, UNITS, fmt_interval, fmt_signed
from ...decide.winners import ORACLES, setting_dims
from .words import unit_words


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


def _fmt_value(v) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def best_at(ds: xr.Dataset, point: dict[str, str]) -> tuple[list[str], bool]:
    """The answer at ``point`` (axis -> value, ``load`` included): the recommendation
    (the constrained answer when the study states an SLO or a budget), then each
    criterion's winner or tie set with its interval and evidence, then every
    contender's intervals and verdict; False when the point is not on the grid (the
    lines then say which values exist). A swept policy axis (``d``, a policy's
    parameter) left out of the point is answered over: ``CoC d=3`` is a contender."""
    from ...decide.assumption import point_words
    from ...decide.decision import answer, constraints, criteria, decide_criterion, metric_name
    from ...decide.winners import candidate_axes

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
    from ...decide.decision import metric_name

    if crit == "tail":
        return metric_name(c.tail_level)
    if crit == "slo":
        return f"E[C] among {c.slo_words()}"
    return f"{metric_name(c.level)} within {c.budget_words()}"
