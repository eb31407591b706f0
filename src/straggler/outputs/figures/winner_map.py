"""The winner maps: which policy wins where, over an axis and the load."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import WIDTH, finish, load_label, make_panels, policy_handles, side_label
from .selection import fixed_elsewhere, fmt_value
from .style import policy_style, style_of

_MAP_TITLES = {"latency": "smallest E[T]", "cost": "smallest E[C]", "stability": "largest\nstable load"}


@dataclass
class _Seen:
    """What the maps drew, for the legend: the policies in their order, and the notes
    (``tie``, ``x``)."""

    policies: list = field(default_factory=list)
    notes: set = field(default_factory=set)


def winner_map_figure(ds: xr.Dataset, axis: str):
    """The ``winners_<axis>`` figures: which policy wins where, over ``axis`` and the
    load (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    from ...decide.winners import ORACLES, PointTable, winners

    rows_dims = [d for d in CASE_DIMS if d != axis]
    fixed, where = fixed_elsewhere(ds, {axis})
    sub = ds.sel({k: [v] for k, v in fixed.items()})
    simulated = "latency_mean" in sub and (
        np.isfinite(np.asarray(sub["latency_mean"].values, float)).any()
        or ("verdict" in sub and (np.asarray(sub["verdict"].values).astype(str) != "").any())
    )
    # the map's axis may be d: each policy is drawn at each d, not chosen over it
    table = winners(sub, PointTable(sub, over_candidates=False))
    oracles = [p for p in ds["policy"].values if p in ORACLES]
    ys = list(ds[axis].values)
    loads = np.sort(ds["load"].values)
    row_keys = [tuple(v) for v in _row_keys(ds, rows_dims)]
    metrics = (["latency"] if simulated else []) + ["cost", "stability"]
    widths = [len(loads) if m != "stability" else 1.2 for m in metrics]
    nrows, ncols = len(row_keys), len(metrics)
    width = min(WIDTH, 0.3 * sum(widths) + 2.4)
    height = nrows * max(1.2, 0.17 * len(ys) + 0.55) + 0.6
    fig, axes = make_panels(nrows, ncols, sharey=True, sharex=False, width_ratios=widths, figsize=(width, height))
    seen = _Seen()
    for i, key in enumerate(row_keys):
        match = dict(zip(rows_dims, key))
        for j, metric in enumerate(metrics):
            ax = axes[i, j]
            _map_cells(ax, table[table["criterion"] == metric], match, axis, ys, loads, metric, seen)
            xlabel = load_label(ds).split(" = ")[0] if i == len(row_keys) - 1 else ""
            _map_ticks(ax, metric, ys, loads, xlabel, title=i == 0)
        axes[i, 0].set_ylabel(axis)
        if key:
            side_label(axes[i, -1], ", ".join(str(k) for k in key), x=1.08)
    title = f"Which policy wins where, by {axis} and load" + where
    if oracles:
        title += f"\n(the oracles {', '.join(map(str, oracles))} left out)"
    finish(fig, title, _map_handles(seen), beside=True)  # the key with the first row of panels
    return fig


def _map_cells(ax, rows, match: dict, axis: str, ys: list, loads, metric: str, seen: _Seen) -> None:
    """The cells of one map: a row per value of ``axis``, a column per load (one
    column for the stability, which does not depend on the load)."""
    for yi, yv in enumerate(ys):
        if metric == "stability":
            r = _rows(rows, {**match, axis: yv})
            if r is not None:
                _cell(ax, 0, yi, r["winners"], r["decided"] == "true", seen)
            continue
        for xi, load in enumerate(loads):
            r = _rows(rows, {**match, axis: yv, "load": load})
            if r is None:
                continue
            if r["winners"]:
                _cell(ax, xi, yi, r["winners"], r["decided"] == "true", seen)
            elif r["evidence"] == "no policy stable":
                _cell(ax, xi, yi, "", False, seen, "x")


def _cell(ax, x0, y0, names: str, decided: bool, seen: _Seen, text: str = "") -> None:
    """One cell: in the winner's colour with its marker, hatched grey with the markers
    of a tie (+n: more of them), or grey with ``text`` where no policy wins."""
    from matplotlib.patches import Rectangle

    plist = [p for p in names.split(", ") if p]
    if plist:
        if decided:
            face = style_of(plist[0])["colour"]
            ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), 1, 1, facecolor=(*face[:3], 0.3), lw=0))
        else:
            ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), 1, 1, facecolor="0.93", hatch="////", edgecolor="0.7", lw=0))
            seen.notes.add("tie")
        shown = plist if len(plist) <= 3 else plist[:2]
        step = 0.28
        for k, p in enumerate(shown):
            off = (k - (len(shown) - 1) / 2) * step
            ax.plot(
                [x0 + off],
                [y0],
                marker=style_of(p)["marker"],
                color=style_of(p)["colour"],
                ms=4.0 if decided else 3.4,
                ls="none",
                markeredgecolor="black",
                markeredgewidth=0.3,
            )
        for p in plist:
            if p not in seen.policies:
                seen.policies.append(p)
        if len(shown) < len(plist):
            ax.text(x0 + 0.45, y0 - 0.45, f"+{len(plist) - len(shown)}", fontsize=5, ha="right", va="bottom")
    elif text:
        ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), 1, 1, facecolor="0.85", lw=0))
        ax.text(x0, y0, text, ha="center", va="center", fontsize=7, color="0.2")
        seen.notes.add(text)


def _map_ticks(ax, metric: str, ys: list, loads, xlabel: str, title: bool) -> None:
    """The ticks of one map (the loads across, the axis' values down) and, on the top
    row (``title``), what it decides."""
    if metric != "stability":
        ax.set_xlim(-0.5, len(loads) - 0.5)
        ax.set_xticks(range(len(loads)))
        ax.set_xticklabels([fmt_value(v) for v in loads], rotation=90 if len(loads) > 6 else 0)
        ax.set_xlabel(xlabel)
    else:
        ax.set_xlim(-0.5, 0.5)
        ax.set_xticks([])
    ax.set_ylim(-0.5, len(ys) - 0.5)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([fmt_value(v) for v in ys])
    ax.grid(False)
    if title:
        ax.set_title(_MAP_TITLES[metric])


def _map_handles(seen: _Seen) -> list:
    """The legend: the policies that won somewhere, in words, a tie, no policy stable."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    order = list(policy_style())  # the registry's order, as in the glossary
    policies = sorted(seen.policies, key=lambda p: order.index(p) if p in order else len(order))
    handles = policy_handles(policies, words=True)
    if "tie" in seen.notes:
        handles.append(
            Patch(facecolor="0.93", hatch="////", edgecolor="0.7", lw=0, label="tie: every policy that could be best")
        )
    if "x" in seen.notes:
        handles.append(Patch(facecolor="0.85", label="x: no policy stable"))
    handles.append(Line2D([], [], ls="none", label="filled: proven best"))
    return handles


def _row_keys(ds: xr.Dataset, dims: list[str]):
    import itertools

    return list(itertools.product(*(list(ds[d].values) for d in dims)))


def _rows(table, match: dict):
    """The one row of ``table`` whose columns equal ``match`` (None if none)."""
    if table is None or table.empty:
        return None
    keep = np.ones(len(table), dtype=bool)
    for k, v in match.items():
        if k not in table:
            continue
        col = table[k]
        if isinstance(v, (float, np.floating)) and col.dtype.kind in "if":
            keep &= np.isclose(col.astype(float), float(v))
        else:
            keep &= col.astype(str).to_numpy() == str(v)
    hits = table[keep]
    return None if hits.empty else hits.iloc[0]
