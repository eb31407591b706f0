"""The capacity figure: per setting, each contender's largest load under the SLO (or,
without an SLO, its stability frontier) as the interval the search located
(``capacity.csv``, :mod:`straggler.decide.frontier`).

A panel per case (job-size law and dependence), the other setting axes down the y axis
(r_slow first), a row of contenders per setting; a bar spans ``[low, high]``: the SLO
is met at ``low`` and fails at ``high`` (stable at ``low``, unstable at ``high``), so a
bar at most the resolution wide is a located frontier and a wider one says where the
simulation could not tell. The stability frontier is drawn faint behind it: the SLO's
capacity never exceeds it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...decide.frontier import CAPACITY_COLUMNS
from ..catalog import CASE_DIMS
from .layout import WIDTH, backend, finish
from .style import style_of

NAME = "capacity"
"""The figure's file name (``figures/capacity.png``, ``.svg``)."""


def _finite_or(value: float, fallback: float) -> float:
    return value if math.isfinite(value) else fallback


def capacity_figure(capacity):
    """The figure of a ``capacity.csv`` table."""
    plt = backend()
    frame = capacity.copy()
    for col in ("stability_low", "stability_high", "slo_low", "slo_high"):
        frame[col] = frame[col].astype(float)
    has_slo = bool(np.isfinite(frame["slo_high"]).any() or np.isfinite(frame["slo_low"]).any())
    cases = [c for c in CASE_DIMS if c in frame.columns]
    rest = [c for c in frame.columns if c not in (*cases, *CAPACITY_COLUMNS) and not _own_axis(frame, c)]
    own = [c for c in frame.columns if _own_axis(frame, c)]
    groups = list(frame.groupby(cases, sort=False)) if cases else [((), frame)]
    ncols = min(2, len(groups))
    nrows = math.ceil(len(groups) / ncols)
    names = list(dict.fromkeys(_name(r, own) for r in frame.to_dict("records")))
    per_setting = len(names) + 1
    height = max(2.2, 0.09 * per_setting * max(len(g) // max(len(names), 1) for _, g in groups) + 0.8)
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH, height * nrows), squeeze=False, sharex=True)
    top = float(
        np.nanmax(np.where(np.isfinite(frame["stability_high"]), frame["stability_high"], frame["stability_low"]))
    )
    top = max(top, 0.1) * 1.05
    handles = {}
    for ax, (key, group) in zip(axes.flat, groups):
        settings = list(dict.fromkeys(tuple(r[c] for c in rest) for r in group.to_dict("records")))
        ticks, labels = [], []
        for si, setting in enumerate(settings):
            rows = [r for r in group.to_dict("records") if tuple(r[c] for c in rest) == setting]
            base = si * per_setting
            ticks.append(base + (len(names) - 1) / 2)
            labels.append(", ".join(f"{c}={v}" for c, v in zip(rest, setting) if c != "N" or len(set(frame[c])) > 1))
            for r in rows:
                y = base + names.index(_name(r, own))
                st = style_of(r["policy"])
                colour = st["colour"]
                s_low, s_high = r["stability_low"], r["stability_high"]
                if math.isfinite(s_low) and s_low == s_high:  # exact: a tick, not a bar
                    ax.plot([s_low], [y], marker="|", ms=7, mew=2.5, color=colour, alpha=0.35, ls="none")
                elif math.isfinite(s_low):
                    ax.plot(
                        [s_low, _finite_or(s_high, top)],
                        [y, y],
                        color=colour,
                        alpha=0.25,
                        lw=3.5,
                        solid_capstyle="butt",
                    )
                low, high = (r["slo_low"], r["slo_high"]) if has_slo else (s_low, s_high)
                if math.isfinite(low):
                    ax.plot([low, _finite_or(high, top)], [y, y], color=colour, lw=1.4, solid_capstyle="butt")
                    line = ax.plot(
                        [low], [y], marker=st["marker"], color=colour, ms=3.2, ls="none", label=_name(r, own)
                    )[0]
                    handles.setdefault(_name(r, own), line)
        ax.set_yticks(ticks, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, top)
        ax.grid(axis="x", lw=0.4, alpha=0.5)
        title = ", ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        ax.set_title(title)
        ax.set_xlabel("largest load under the SLO (faint: stability frontier)" if has_slo else "stability frontier")
    for ax in list(axes.flat)[len(groups) :]:
        ax.set_visible(False)
    what = "SLO capacity" if has_slo else "stability frontier"
    finish(fig, f"Located {what} per setting: met at the bar's left end, fails at its right", list(handles.values()))
    return fig


def _own_axis(frame, column: str) -> bool:
    """A contender's own policy axis (``d``, a parameter): between ``policy`` and the
    frontier columns."""
    cols = list(frame.columns)
    return "policy" in cols and cols.index("policy") < cols.index(column) < cols.index("stability_low")


def _name(row: dict, own: list[str]) -> str:
    parts = [f"{a}={row[a]}" for a in own if str(row.get(a, "")) not in ("", "nan")]
    return " ".join([str(row["policy"]), *parts])


def write_capacity_figure(capacity, figure_dir) -> list[Path]:
    """``capacity.png`` and ``capacity.svg`` in ``figure_dir``."""
    from .writer import save_figure

    plt = backend()
    fig = capacity_figure(capacity)
    out = []
    for ext in ("png", "svg"):
        path = Path(figure_dir) / f"{NAME}.{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        save_figure(fig, path)
        out.append(path)
    plt.close(fig)
    return out
