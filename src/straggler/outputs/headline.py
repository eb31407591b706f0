"""The report's first screen: which policy to use where, in a sentence per case, and
the recommendation table grouped by setting with runs of "no policy stable" folded.

A case is a job-size law and a dependence (:data:`straggler.outputs.catalog.CASE_DIMS`); a
setting is a case and the other swept axes (``r_slow``, ``d``, ...); along a setting the
loads are read in order, and consecutive loads with the same recommendation are one run:
"FRed at loads 0.1-0.3 (extra load 1.02 to 1.09)". The words come from the
recommendation rows of :func:`straggler.decide.decision.recommendations`, nothing else: the
rule that picked each one is the table's ``basis``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..decide.winners import NONE_STABLE, on_tail, plain
from .catalog import CASE_DIMS

NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|-?inf")


def interval_numbers(text) -> tuple[float, float]:
    """``(low, high)`` of a shown interval ``[a, b]``, a value ``a`` (both ends) or ""
    (NaN, NaN)."""
    found = [float(x) for x in NUMBER.findall(str(text))]
    if not found:
        return np.nan, np.nan
    return found[0], found[-1]


def runs(rows: pd.DataFrame) -> list[tuple[str, list[float], pd.DataFrame]]:
    """The rows of one setting, in load order, cut where the recommendation changes:
    ``(recommended, loads, rows)`` per run (``""``: none recommended)."""
    rows = rows.sort_values("load")
    out: list[tuple[str, list[float], pd.DataFrame]] = []
    start = 0
    names = [_name(r) for r in rows.itertuples(index=False)]
    for i in range(1, len(rows) + 1):
        if i == len(rows) or names[i] != names[start]:
            part = rows.iloc[start:i]
            out.append((names[start], [float(x) for x in part["load"]], part))
            start = i
    return out


QUANTILE = re.compile(r"\bP\d+(?:\.\d+)?\b")
"""A quantile's name in a basis (``P99``)."""


def _name(row) -> str:
    """A row's recommendation as the sentences name it: ``FRed``, ``{CoC, CoS}``, and
    ``FRed (by P99)`` where E[T] could not decide and the P99 did."""
    rec = str(row.recommended)
    if rec in ("", "-"):
        return NONE_STABLE if row.basis == NONE_STABLE else "no policy qualifies"
    name = "{" + rec + "}" if "," in rec else rec
    if on_tail(row.basis):
        quantile = QUANTILE.search(str(row.basis))
        name += f" (by {quantile.group(0) if quantile else 'the tail'})"
    return name


def _loads(loads: list[float]) -> str:
    return f"{loads[0]:g}" if len(loads) == 1 else f"{loads[0]:g}-{loads[-1]:g}"


def _extra(part: pd.DataFrame) -> str:
    """The span of a run's extra load intervals, in per cent of one copy's server time
    ("" when none is known)."""
    ends = np.array([interval_numbers(x) for x in part["extra load"]], dtype=float).ravel()
    ends = ends[np.isfinite(ends)]
    if not len(ends):
        return ""
    lo, hi = (f"{100 * v:+.0f} %".replace("-0 %", "+0 %") for v in (ends.min(), ends.max()))
    return f" (extra load {lo})" if lo == hi else f" (extra load {lo} to {hi})"


def run_words(name: str, loads: list[float], part: pd.DataFrame, top: bool = False) -> str:
    """One run in words: ``FRed at loads 0.1-0.3 (extra load +100 % to +110 %)``, ``no
    policy stable from load 0.5`` (``top``: the run reaches the study's largest load),
    ``tie {CoC, CoS} at load 0.7``."""
    where = f"at load {loads[0]:g}" if len(loads) == 1 else f"at loads {_loads(loads)}"
    if name in (NONE_STABLE, "no policy qualifies"):
        return f"{name} {f'from load {loads[0]:g}' if top and len(loads) > 1 else where}"
    tie = "tie " if name.startswith("{") else ""
    return f"{tie}{name} {where}{_extra(part)}"


def _said(setting_runs: list, top: float) -> str:
    return ", ".join(run_words(n, loads, part, loads[-1] == top) for n, loads, part in setting_runs)


def setting_axes(rec: pd.DataFrame, swept: list[str]) -> tuple[list[str], list[str]]:
    """(the case axes, the other setting axes) among ``swept`` (the load excluded)."""
    case = [a for a in swept if a in CASE_DIMS and a in rec.columns]
    other = [a for a in swept if a not in CASE_DIMS and a != "load" and a in rec.columns]
    return case, other


def _value(v) -> str:
    v = plain(v)
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _label(axes: list[str], key, with_names: bool) -> str:
    values = key if isinstance(key, tuple) else (key,)
    if with_names:
        return ", ".join(f"{a} {_value(v)}" for a, v in zip(axes, values))
    return ", ".join(_value(v) for v in values)


def sentences(rec: pd.DataFrame, swept: list[str]) -> list[str]:
    """One sentence per case: for each setting of it, its runs of loads; settings whose
    runs are the same (the same recommendations at the same loads) are said once, with
    the extra load over all of them. ``swept``: the study's swept setting axes."""
    if rec.empty:
        return []
    case, other = setting_axes(rec, swept)
    top = float(rec["load"].max())
    groups = rec.groupby(case, sort=False) if case else [((), rec)]
    out = []
    for key, rows in groups:
        head = _label(case, key, False) if case else "Everywhere"
        settings = list(rows.groupby(other, sort=False)) if other else [((), rows)]
        shapes = {tuple((n, tuple(loads)) for n, loads, _ in runs(srows)) for _, srows in settings}
        if len(settings) > 1 and len(shapes) == 1:
            merged = [(n, loads, rows[rows["load"].isin(loads)]) for n, loads, _ in runs(settings[0][1])]
            out.append(f"{head}, at every {', '.join(other)}: {_said(merged, top)}.")
            continue
        parts = [
            (f"{_label(other, skey, True)}: " if other else "") + _said(runs(srows), top) for skey, srows in settings
        ]
        out.append(f"{head}: " + "; ".join(parts) + ".")
    return out


def grouped(frame: pd.DataFrame, rec: pd.DataFrame, swept: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """The display table (:func:`straggler.outputs.report.recommendation_table`, rows aligned
    with ``rec``) cut by setting: ``(title, rows)`` per setting, the title its runs in
    words, and every run of "no policy stable" one row whose load is the run's range."""
    case, other = setting_axes(rec, swept)
    by = case + other
    out = []
    groups = rec.groupby(by, sort=False) if by else [((), rec)]
    for key, rows in groups:
        title_runs = runs(rows)
        keep = []
        for name, loads, part in title_runs:
            shown = frame.loc[part.index].copy()
            if name == NONE_STABLE and len(part) > 1:
                shown = shown.iloc[:1].copy()
                shown["load"] = _loads(loads)
            keep.append(shown)
        label = _label(by, key, True) if by else "every setting"
        words = _said(title_runs, float(rec["load"].max()))
        table = pd.concat(keep).drop(columns=[c for c in by if c in frame.columns])
        out.append((f"{label}: {words}", table.reset_index(drop=True)))
    return out
