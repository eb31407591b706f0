"""Figures of a study dataset (matplotlib; PNG and SVG side by side).

What a reader can rely on in every figure of every study:

- a policy has one colour and one marker (:func:`policy_style`, from the policy
  registry), whatever the figure and whatever else it shows; series that are not
  policies (loads, variants, job-size laws of one policy) are shades of that
  policy's colour;
- what a value is shows in how it is drawn (:data:`KIND_STYLE`): an exact value is a
  solid line, an approximation dashed (as the threshold paper draws its Fig. 6), an
  upper bound dotted and a lower bound dash-dotted, each with hollow markers and a
  grey ring around a point that is only a bound; a simulated estimate is a filled
  marker with its confidence interval. A line joins only consecutive values of the
  same kind, so a bound is never on one line with exact values. Legends say "upper
  bound", "lower bound", "approximation", never "analysis";
- a simulated load without an estimate (its verdict is not ``stable``) gets a mark
  in a strip under the panel, outside the data area (:data:`VERDICT_MARKS`: x
  unstable, ? undetermined, ∞ an infinite mean; a row per policy); CIs are clipped
  at 0; what was measured there
  (``latency_sample_mean``) is never drawn as an estimate;
- panels: one row per (distribution, dependence) case in the study's order, columns
  for a second swept axis or for loads in increasing order; every other dimension is
  sliced at its first value and the title says where. Figures are at most 7 inches
  wide with 7-8 pt text, so that they stay legible at a paper's (double) column width.

The names of a study's figures follow from its grid's axes
(:func:`straggler.catalog.figure_names`), so that Snakemake can declare them before
any job runs.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any, Literal

import numpy as np
import xarray as xr

from .catalog import BASE_FIGURES, SIMULATED_FIGURES, figure_names, map_axes  # noqa: F401
from .catalog import CASE_DIMS as _CASE_DIMS
from .catalog import numeric as _numeric
from .files import atomic_write
from .policies import value_name

_MAX_LOAD_PANELS = 4
"""Figures with a column per load show at most this many loads (evenly spread)."""
_MAX_COLUMNS = 4

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
"""Markers in the order of the policy registry (one per canonical policy)."""

WIDTH = 7.0
"""Largest figure width in inches (a paper's full text width)."""
_PANEL = (2.35, 1.75)
"""Largest panel size in inches."""


def load_label(ds: xr.Dataset) -> str:
    """The load axis label: rho~ when the study's loads are the PS paper's
    redundancy load (``load_basis: redundancy``), else the nominal load."""
    if ds.attrs.get("load_basis", "nominal") == "redundancy":
        return "load rho~ = lambda d E[X_min] / N"
    return "load"


# ------------------------------------------------------------------ styles


def policy_style() -> dict[str, dict]:
    """One fixed colour and marker per canonical policy (in the order of the policy
    registry), the same in every figure of every study: ``{policy: {"colour",
    "marker"}}``."""
    return {p: dict(s) for p, s in _policy_style().items()}


@functools.lru_cache(maxsize=1)
def _policy_style() -> dict[str, dict]:
    # built once: seaborn's palettes take a millisecond, and a figure asks per series
    import seaborn as sns

    from .policies import POLICIES

    colours = list(sns.color_palette("tab10", n_colors=10))
    colours[7] = (0.224, 0.231, 0.475)  # tab10's grey is kept for "no winner" in the maps
    colours += list(sns.color_palette("Dark2", n_colors=8))  # should the registry grow
    return {p: {"colour": tuple(c), "marker": m} for p, c, m in zip(POLICIES, colours, MARKERS)}


def policy_colours() -> dict:
    """One fixed colour per canonical policy, the same in every figure of every study."""
    return {p: s["colour"] for p, s in policy_style().items()}


def policy_markers() -> dict:
    """One fixed marker per canonical policy, the same in every figure of every study."""
    return {p: s["marker"] for p, s in policy_style().items()}


def _style(policy) -> dict:
    return dict(_policy_style().get(str(policy), {"colour": (0.3, 0.3, 0.3), "marker": "o"}))


def _shades(colour, n: int) -> list:
    """``n`` shades of ``colour`` from light to dark (series of one policy)."""
    if n <= 1:
        return [tuple(colour)]
    c = np.asarray(colour, dtype=float)
    out = []
    for t in np.linspace(0.0, 1.0, n):
        if t < 0.5:  # lighter: towards white
            mix = 0.55 * (1 - 2 * t)
            out.append(tuple(c + (1 - c) * mix))
        else:  # darker: towards black
            mix = 0.45 * (2 * t - 1)
            out.append(tuple(c * (1 - mix)))
    return out


KIND_STYLE: dict[str, dict[str, Any]] = {
    "exact": {"ls": "-", "label": "exact"},
    "approximation": {"ls": "--", "label": "approximation"},
    "upper bound": {"ls": ":", "label": "upper bound"},
    "lower bound": {"ls": (0, (4, 1.5, 1, 1.5, 1, 1.5)), "label": "lower bound"},
    "conjecture": {"ls": (0, (7, 2)), "label": "conjecture"},
}
"""Line style of an analytic value by what it is (simulation: filled markers with CI)."""
BOUNDS = ("upper bound", "lower bound")

_KIND_NAMES = {
    "exact": "exact",
    "approximation": "approximation",
    "approximate": "approximation",
    "upper_bound": "upper bound",
    "lower_bound": "lower bound",
    "conjectured": "conjecture",
    # lambda_max: a necessary condition caps the stable loads (an upper bound on the
    # capacity), a sufficient one guarantees them (a lower bound)
    "necessary": "upper bound",
    "sufficient": "lower bound",
    "necessary (simulation)": "upper bound",
}
_INVERSE = {"upper bound": "lower bound", "lower bound": "upper bound"}


def kind_label(kind, inverse: bool = False) -> str:
    """The legend word for a ``*_kind`` value (``inverse``: of a quantity that falls
    as the bound rises, e.g. rho = load / lambda_max)."""
    kind = str(kind)
    name = _KIND_NAMES.get(kind, kind.replace("_", " ") if kind else "")
    return _INVERSE.get(name, name) if inverse else name


def _kind_ls(label: str):
    return KIND_STYLE.get(label, {"ls": "-."})["ls"]


VERDICT_MARKS = {"unstable": "x", "undetermined": "$?$"}
"""How a simulated load without an estimate is drawn: a mark in the strip under the
panel (x: unstable, ?: undetermined), never a point on the curve."""
VERDICT_NOTE = "strip under each panel: x unstable, ? undetermined (no estimate), ∞ infinite mean; a row per policy"


# ------------------------------------------------------------------ backend and layout


def _backend():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 7.5,
            "axes.titlesize": 7.5,
            "axes.labelsize": 7.5,
            "xtick.labelsize": 6.5,
            "ytick.labelsize": 6.5,
            "legend.fontsize": 6.5,
            "legend.title_fontsize": 7,
            "figure.titlesize": 8.5,
            "axes.grid": True,
            "grid.color": "0.9",
            "grid.linewidth": 0.5,
            "axes.edgecolor": "0.3",
            "axes.linewidth": 0.6,
            "svg.hashsalt": "straggler",
            "lines.linewidth": 1.1,
        }
    )
    return plt


def _panels(nrows: int, ncols: int, sharey="row", sharex="col", width_ratios=None, figsize=None):
    plt = _backend()
    pw = min(_PANEL[0], WIDTH / max(ncols, 1))
    ph = 2.2 if nrows == 1 else _PANEL[1]
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=figsize or (pw * ncols, ph * nrows + 0.3),
        squeeze=False,
        sharey=sharey,
        sharex=sharex,
        gridspec_kw={"width_ratios": width_ratios} if width_ratios else None,
    )
    return fig, axes


def _label_panels(axes, rows: list[str], cols: list[str], xlabel: str, ylabel: str) -> None:
    """Column titles on top, row titles on the right, axis labels on the outer panels."""
    nrows, ncols = axes.shape
    for j, name in enumerate(cols):
        if name:
            axes[0, j].set_title(name)
    for i, name in enumerate(rows):
        if name:
            axes[i, -1].annotate(
                name, xy=(1.03, 0.5), xycoords="axes fraction", rotation=-90, va="center", ha="left", fontsize=7
            )
    for ax in axes[-1, :]:
        ax.set_xlabel(xlabel)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)


def _case_facets(cases: list, cols: list, col: str | None):
    """Panels for ``cases`` x ``cols``: a row per case and a column per value of
    ``col``, or, without a column axis, the cases wrapped two to a row. Returns
    (fig, axes, [(ax, case, column value)], labeller(xlabel, ylabel))."""
    if col is None and len(cases) > 1:
        ncols = 2
        nrows = math.ceil(len(cases) / ncols)
        fig, axes = _panels(nrows, ncols, sharey=False, sharex=True)
        cells = [(axes[n // ncols, n % ncols], case, None) for n, case in enumerate(cases)]
        for n in range(len(cases), nrows * ncols):
            axes[n // ncols, n % ncols].set_axis_off()

        def label_cases(xlabel, ylabel):
            for ax, case, _ in cells:
                ax.set_title(_case_name(case))
            for ax in axes[:, 0]:
                ax.set_ylabel(ylabel)
            for n in range(ncols):  # the lowest panel in use of each column
                used = [cells[k][0] for k in range(n, len(cells), ncols)]
                used[-1].set_xlabel(xlabel)
                used[-1].xaxis.set_tick_params(labelbottom=True)

        return fig, axes, cells, label_cases
    fig, axes = _panels(len(cases), len(cols))
    cells = [(axes[i, j], case, c) for i, case in enumerate(cases) for j, c in enumerate(cols)]

    def label(xlabel, ylabel):
        _label_panels(
            axes, [_case_name(c) for c in cases], [f"{col} = {_fmt(c)}" for c in cols] if col else [""], xlabel, ylabel
        )

    return fig, axes, cells, label


def _finish(fig, title: str, handles: list, n_legend_cols: int | None = None) -> None:
    """Suptitle on top and one legend under the panels."""
    fig.suptitle(title, y=1.0, va="bottom")
    fig.tight_layout(pad=0.4, h_pad=0.6, w_pad=0.5)
    if handles:
        ncol = n_legend_cols or min(len(handles), 5)
        fig.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=ncol,
            frameon=False,
            handlelength=3.4,
            columnspacing=1.2,
        )


def _policy_handles(policies) -> list:
    from matplotlib.lines import Line2D

    out = []
    for p in policies:
        s = _style(p)
        out.append(Line2D([], [], color=s["colour"], marker=s["marker"], ls="-", ms=4.5, label=str(p)))
    return out


PS_UPPER_BOUND = "upper bound: all replicas served"
"""The legend name of the analytic upper bound of CoC with PS servers (the PS paper's
Section 3.5 system: each server an M/X/1/PS queue), which is not the simulated
upper-bound system of ``CoC.ps_bound = upper``."""


def _kind_names(ds: xr.Dataset | None) -> dict[str, str]:
    """Legend names of analytic kinds that a study makes more specific."""
    import yaml

    if ds is None or "CoC" not in [str(p) for p in ds["policy"].values]:
        return {}
    try:
        discipline = yaml.safe_load(ds.attrs["config"])["system"]["discipline"]
    except (KeyError, TypeError, ValueError, yaml.YAMLError):
        return {}
    return {"upper bound": PS_UPPER_BOUND} if discipline == "PS" else {}


def _kind_handles(
    kinds, simulated: bool = False, confidence: float | None = None, ringed: bool = True, ds=None
) -> list:
    from matplotlib.lines import Line2D

    names = _kind_names(ds)

    out = [
        Line2D(
            [],
            [],
            color="0.35",
            ls=_kind_ls(k),
            marker="o",
            ms=3.5,
            markerfacecolor="white",
            label=names.get(k, KIND_STYLE.get(k, {"label": k})["label"]),
        )
        for k in _ordered_kinds(kinds)
    ]
    if ringed and any(k in BOUNDS for k in kinds):
        out.append(
            Line2D(
                [],
                [],
                color="none",
                marker="o",
                ms=8,
                markerfacecolor="none",
                markeredgecolor="0.35",
                label="ringed: a bound only",
            )
        )
    if simulated:
        ci = f" ({confidence:.0%} CI)" if confidence else ""
        out.append(Line2D([], [], color="0.35", ls="-", lw=0.7, marker="o", ms=3.5, label=f"simulation{ci}"))
    return out


def _ordered_kinds(kinds) -> list[str]:
    order = list(KIND_STYLE)
    kinds = {k for k in kinds if k}
    return [k for k in order if k in kinds] + sorted(k for k in kinds if k not in order)


def _empty(title: str, what: str):
    plt = _backend()
    fig, ax = plt.subplots(figsize=(4.5, 1.6))
    ax.text(0.5, 0.5, f"no {what} in this study", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    fig.suptitle(title)
    return fig


# ------------------------------------------------------------------ data selection


def _grid_dims(ds: xr.Dataset) -> list[str]:
    return [str(d) for d in ds["lambda_max"].dims if d not in ("policy", "distribution", "dependence")]


def _fmt(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def _sorted_values(ds: xr.Dataset, dim: str) -> list:
    values = list(ds[dim].values)
    return sorted(values) if _numeric(values) else values


def _cases(ds: xr.Dataset) -> list[tuple]:
    """(distribution, dependence) pairs in the study's order."""
    return [(a, b) for a in ds["distribution"].values for b in ds["dependence"].values]


def _case_name(case) -> str:
    return ", ".join(str(v) for v in case)


def _column_axis(ds: xr.Dataset, x: str) -> str | None:
    """A second swept axis with a few values, shown as panel columns."""
    for dim in _grid_dims(ds):
        if dim != x and 1 < ds.sizes[dim] <= _MAX_COLUMNS:
            return dim
    return None


def _fixed(ds: xr.Dataset, keep) -> tuple[dict, str]:
    """Every grid dimension outside ``keep`` at its first value, and the title suffix."""
    fixed = {d: ds[d].values[0] for d in _grid_dims(ds) if d not in keep}
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return fixed, (f" at {where}" if where else "")


def shown_loads(ds: xr.Dataset) -> np.ndarray:
    loads = np.sort(ds["load"].values)
    if len(loads) <= _MAX_LOAD_PANELS:
        return loads
    return loads[np.unique(np.linspace(0, len(loads) - 1, _MAX_LOAD_PANELS).round().astype(int))]


def _confidence(ds: xr.Dataset) -> float:
    """The CI level of the study (its config travels in the dataset attrs)."""
    import yaml

    try:
        return float(yaml.safe_load(ds.attrs["config"])["simulation"]["confidence"])
    except (KeyError, TypeError, ValueError, yaml.YAMLError):
        return 0.95  # the config default


def _has(ds: xr.Dataset, var: str) -> bool:
    return var in ds and bool(np.isfinite(np.asarray(ds[var].values, dtype=float)).any())


# ------------------------------------------------------------------ drawing primitives


def draw_analytic(ax, x, y, labels, policy, colour=None, marker=None, ring: bool = True) -> set:
    """An analytic series: consecutive points of one kind joined in that kind's line
    style (never a line between points of different kinds), hollow markers, a grey
    ring around bound-only points. ``labels`` are :func:`kind_label` words per point.
    Returns the kinds drawn."""
    s = _style(policy)
    colour = s["colour"] if colour is None else colour
    marker = s["marker"] if marker is None else marker
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    labels = np.asarray(labels, dtype=object)
    order = np.argsort(x, kind="stable")
    x, y, labels = x[order], y[order], labels[order]
    ok = np.isfinite(y) & np.isfinite(x)
    drawn = set()
    i = 0
    while i < len(x):
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(x) and ok[j + 1] and labels[j + 1] == labels[i]:
            j += 1
        label = labels[i] or "exact"
        ax.plot(
            x[i : j + 1],
            y[i : j + 1],
            color=colour,
            ls=_kind_ls(label),
            marker=marker,
            ms=3.5,
            markerfacecolor="white",
            markeredgewidth=0.9,
            lw=1.1,
            zorder=3,
        )
        if ring and label in BOUNDS:
            ax.scatter(x[i : j + 1], y[i : j + 1], s=60, facecolors="none", edgecolors="0.45", lw=0.6, zorder=2)
        drawn.add(label)
        i = j + 1
    return drawn


def _draw_simulated(ax, x, y, ci, policy, colour=None, marker=None) -> bool:
    """Simulated estimates: filled markers with CI bars, joined by a thin line."""
    s = _style(policy)
    colour = s["colour"] if colour is None else colour
    marker = s["marker"] if marker is None else marker
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ci = None if ci is None else np.asarray(ci, dtype=float)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    ci = None if ci is None else ci[order]
    ok = np.isfinite(y)
    if not ok.any():
        return False
    if ci is not None:  # a CI is clipped at 0 (a time or a cost is not negative)
        half = np.nan_to_num(ci[ok])
        yerr = np.vstack([np.minimum(half, y[ok]), half])
    ax.errorbar(
        x[ok],
        y[ok],
        yerr=None if ci is None else yerr,
        color=colour,
        marker=marker,
        ms=3.8,
        lw=0.7,
        elinewidth=0.8,
        capsize=1.8,
        ls="-",
        alpha=0.9,
        zorder=4,
    )
    return True


STRIP_PITCH = 5.0
"""Points between two rows of the verdict strip under a panel (one row per policy)."""


def _draw_verdicts(ax, x, verdict, mean_kind, colour, slot: int = 0) -> bool:
    """Mark the loads at ``x`` whose ``verdict`` is not stable (x unstable, ?
    undetermined, ∞ an infinite mean) in row ``slot`` of a strip under the panel,
    outside the data area (one row per series, so that marks of several series do not
    hide each other); the x tick labels move below the strip. True if anything was
    drawn."""
    from matplotlib import transforms

    drawn = False
    x = np.asarray(x, dtype=float)
    verdict = np.asarray(verdict, dtype=object)
    offset = transforms.ScaledTranslation(0, -(STRIP_PITCH * (slot + 1)) / 72, ax.figure.dpi_scale_trans)
    where = transforms.blended_transform_factory(ax.transData, ax.transAxes) + offset
    marks = dict(VERDICT_MARKS)
    kinds = {k: verdict == k for k in marks}
    if mean_kind is not None:
        marks["infinite"] = "$\\infty$"
        kinds["infinite"] = (np.asarray(mean_kind, dtype=object) == "infinite") & (verdict != "unstable")
    for name, marker in marks.items():
        at = kinds[name]
        if at.any():
            ax.scatter(
                x[at],
                np.zeros(int(at.sum())),
                transform=where,
                marker=marker,
                s=14 if name != "infinite" else 22,
                color=colour,
                lw=0.8,
                zorder=6,
                clip_on=False,
            )
            drawn = True
    if drawn:
        rows = max(getattr(ax, "_strip_rows", 0), slot + 1)
        ax._strip_rows = rows
        ax.tick_params(axis="x", pad=STRIP_PITCH * rows + 3)
        ax.xaxis.set_tick_params(labelbottom=True)  # the labels under the strip make room for it
    return drawn


def _strip_slots(sub: xr.Dataset) -> dict[str, int]:
    """A strip row per policy that has a load without an estimate somewhere in ``sub``."""
    if "verdict" not in sub:
        return {}
    v = sub["verdict"].transpose("policy", ...).values.astype(str)
    flat = v.reshape(v.shape[0], -1)
    rows = [str(p) for p, r in zip(sub["policy"].values, flat) if np.isin(r, list(VERDICT_MARKS)).any()]
    return {p: k for k, p in enumerate(rows)}


def _verdict_arrays(sub: xr.Dataset) -> tuple[np.ndarray, np.ndarray] | None:
    """(verdict, latency_mean_kind) of a 1-d (load) selection, blank where the
    simulation did not cover the load; None without verdicts."""
    if "verdict" not in sub or "jobs" not in sub:
        return None
    verdict = np.asarray(sub["verdict"].values, dtype=object)
    jobs = np.asarray(sub["jobs"].values, dtype=float)
    covered = (jobs > 0) | ((verdict == "unstable") & np.isfinite(jobs))
    verdict = np.where(covered, verdict, "")
    kind = (
        np.asarray(sub["latency_mean_kind"].values, dtype=object)
        if "latency_mean_kind" in sub
        else np.full(len(verdict), "", dtype=object)
    )
    return verdict, np.where(covered, kind, "")


def _x_range(axes, values) -> None:
    """Every panel spans the axis' values (a panel with marks only would not)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return
    lo, hi = float(v.min()), float(v.max())
    pad = 0.05 * (hi - lo) if hi > lo else 0.05 * (abs(hi) or 1.0)
    for ax in np.ravel(axes):
        ax.set_xlim(lo - pad, hi + pad)


def _log_x(axes, values) -> None:
    """A log x axis where the axis' values are positive and span two decades or more
    (timeouts swept over 0.1 .. 10^4, say)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size > 2 and (v > 0).all() and v.max() / v.min() >= 100:
        for ax in np.ravel(axes):
            ax.set_xscale("log")


def _log_y(axes) -> None:
    """A log y axis on each panel that has a positive value (a panel without one,
    e.g. a case the analysis does not cover, keeps its linear axis: matplotlib
    cannot place log ticks there)."""

    def positive(ax):
        ys = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]
        values = np.concatenate(ys) if ys else np.empty(0)
        return values[np.isfinite(values) & (values > 0)]

    def bar_ends(ax):
        from matplotlib.collections import LineCollection

        ends = [
            np.asarray(seg)[:, 1] for c in ax.collections if isinstance(c, LineCollection) for seg in c.get_segments()
        ]
        values = np.concatenate(ends) if ends else np.empty(0)
        return values[np.isfinite(values) & (values > 0)]

    for ax in np.ravel(axes):
        own = positive(ax)
        if own.size:
            ax.set_yscale("log")
            # panels that share the y axis share its ticks: label by the whole row's span
            siblings = ax.get_shared_y_axes().get_siblings(ax)
            values = np.concatenate([positive(a) for a in siblings])
            _plain_log_labels(ax, values)
            # the range of the values and of the CIs near them: a CI reaching 0 (or a
            # decade beyond the values) runs off the panel instead of stretching it
            lo, hi = values.min(), values.max()
            bars = np.concatenate([bar_ends(a) for a in siblings])
            bars = bars[(bars >= lo / 4) & (bars <= hi * 4)]
            lo, hi = min(lo, bars.min(initial=lo)), max(hi, bars.max(initial=hi))
            ax.set_ylim(lo / 1.15, hi * 1.15)


def _plain_log_labels(ax, values) -> None:
    """Tick labels 2, 5, 10, 200 rather than 2 x 10^0; the minor ticks labelled too when
    the panel spans less than a decade (else there would be one label or none)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    span = values.max() / values.min()
    if span < 10:  # within a decade: 1, 1.5, 2, 3, 5, 7 times a power of ten
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0)))
    elif span < 300:  # 1, 2, 5, 10, 20, 50: a label in every panel of a shared row
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(NullFormatter())


# ------------------------------------------------------------------ analytic figures


def _analytic_against(
    ds: xr.Dataset,
    var: str,
    x: str,
    title: str,
    ylabel: str,
    inverse: bool = False,
    extra_var: str | None = None,
    logy=False,
):
    """``var`` (and optionally ``extra_var``, drawn as its own kind) against ``x``,
    one row of panels per case, columns for a second swept axis; lines by kind."""
    col = _column_axis(ds, x)
    keep = {x, col} | ({"load"} if "load" in ds[var].dims else set())
    fixed, where = _fixed(ds, keep)
    cols = _sorted_values(ds, col) if col else [None]
    cases = _cases(ds)
    sub = ds.sel(fixed)
    if not np.isfinite(np.asarray(sub[var].values, dtype=float)).any():
        return _empty(title + where, f"{var} values")
    fig, axes, cells, label_panels = _case_facets(cases, cols, col)
    kinds = set()
    policies = []
    # one value of x (nothing swept): the policies side by side, a point each
    by_policy = sub.sizes.get(x, 0) == 1 and "load" not in sub[var].dims
    names = [str(p) for p in sub["policy"].values]
    for ax, case, c in cells:
        for n_policy, policy in enumerate(sub["policy"].values):
            sel = dict(zip(_CASE_DIMS, case), policy=policy)
            if col:
                sel[col] = c
            series = sub.sel(sel)
            for name in (var, extra_var):
                if not name or name not in series:
                    continue
                values = series[name]
                if name != var and np.allclose(values.values, series[var].values, equal_nan=True):
                    continue
                xs = series[x].values
                ys = np.broadcast_to(np.asarray(values.values, dtype=float), xs.shape)
                if name == var:
                    kk = series[f"{var}_kind"].values if f"{var}_kind" in series else ""
                    label = np.array([kind_label(v, inverse) or "exact" for v in np.broadcast_to(kk, xs.shape)])
                else:
                    label = np.full(len(xs), "upper bound")
                if by_policy:  # a lone point: its kind in words beside it
                    xs = np.full(len(ys), float(n_policy))
                    if np.isfinite(ys).any():
                        ax.annotate(
                            str(label[0]),
                            (xs[0], ys[0]),
                            xytext=(6, -2),
                            textcoords="offset points",
                            fontsize=5.5,
                            color="0.3",
                        )
                if np.isfinite(ys).any():
                    kinds |= draw_analytic(ax, xs, ys, label, policy)
                    if policy not in policies:
                        policies.append(policy)
        if by_policy:
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=30)
            ax.set_xlim(-0.6, len(names) - 0.4)
    if logy:
        _log_y(axes)
    if not by_policy and sub[x].dtype.kind in "if":
        _log_x(axes, sub[x].values)
    if by_policy:
        where += f" ({x} = {_fmt(sub[x].values.item())})" if x in sub.coords else ""
    label_panels("policy" if by_policy else x, ylabel)
    _finish(fig, title + where, _policy_handles(policies) + _kind_handles(kinds))
    return fig


def _half_line(ax, x, end, towards, colour) -> None:
    """A one-sided bound at ``x``: a tick at its proven ``end`` and a dotted arrow
    pointing ``towards`` the side where the value may lie."""
    ax.annotate(
        "",
        xy=(x, towards),
        xytext=(x, end),
        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 0.9, "ls": ":", "mutation_scale": 6},
        zorder=3,
    )
    ax.plot([x], [end], color=colour, marker="_", ms=6, ls="none", zorder=3)


def stability_figure(ds: xr.Dataset, x: str = "r_slow"):
    """Each policy's largest stable load as an interval against ``x``: a filled
    marker on a solid line where it is exact; a bar from the proven low end (a
    sufficient bound, a load the simulation found stable) to the proven high end (a
    necessary bound, a load found unstable); a one-sided bound as a dotted arrow from
    its end towards the side that is not known (up: at least, down: at most); an
    approximation that proves nothing as a small hollow marker. Policies are dodged
    side by side at each value."""
    from .intervals import stability_intervals

    units = "rho~ units" if ds.attrs.get("load_basis", "nominal") == "redundancy" else "load units"
    if ds.sizes.get(x, 0) == 1:  # r_slow not swept: against the first swept numeric axis
        x = _first_swept(ds) or x
    title = "Stability: the largest stable load, as proven (interval) or estimated"
    if x not in ds.dims or ds[x].dtype.kind not in "if":
        return _analytic_against(ds, "lambda_max", x, title, f"lambda_max ({units})")
    fixed, where = _fixed(ds, {x})
    sub = ds.sel(fixed)
    iv = stability_intervals(sub)
    if not (np.isfinite(iv["low"].values) & (iv["low"].values > 0)).any() and not np.isfinite(iv["high"].values).any():
        return _empty(title + where, "stability bounds")
    cases = _cases(ds)
    fig, axes, cells, label_panels = _case_facets(cases, [None], None)
    xs_all = np.asarray(sorted(sub[x].values), dtype=float)
    span = (xs_all.max() - xs_all.min()) or 1.0
    names = [str(p) for p in sub["policy"].values]
    step = 0.012 * span if len(names) < 8 else 0.008 * span
    finite = np.concatenate([iv["low"].values.ravel(), iv["high"].values.ravel(), iv["estimate"].values.ravel()])
    finite = finite[np.isfinite(finite)]
    top = float(finite.max()) if finite.size else 1.0
    arrow = 0.14 * top
    seen = {"exact": False, "interval": False, "at least": False, "at most": False, "estimate": False}
    for ax, case, _ in cells:
        for k, policy in enumerate(names):
            st = _style(policy)
            one = iv.sel(dict(zip(_CASE_DIMS, case), policy=policy))
            order = np.argsort(one[x].values)
            xv = np.asarray(one[x].values, float)[order] + (k - (len(names) - 1) / 2) * step
            lo = np.asarray(one["low"].values, float)[order]
            hi = np.asarray(one["high"].values, float)[order]
            est = np.asarray(one["estimate"].values, float)[order]
            exact = np.isfinite(lo) & (lo == hi)
            ex_y = np.where(exact, lo, np.nan)
            if exact.any():
                ax.plot(xv, ex_y, color=st["colour"], marker=st["marker"], ms=3.8, lw=1.0, zorder=4)
                seen["exact"] = True
            for xi, a, b, e, is_exact in zip(xv, lo, hi, est, exact):
                if not is_exact:
                    _stability_mark(ax, xi, a, b, e, st, arrow, seen)
        ax.set_ylim(0, top * 1.12)
        ax.set_xlim(xs_all.min() - 0.06 * span, xs_all.max() + 0.06 * span)
    label_panels(x, f"largest stable load ({units})")
    _finish(fig, title + where, _policy_handles(names) + _stability_handles(seen))
    return fig


def _stability_mark(ax, x, low, high, estimate, st, arrow, seen) -> None:
    """One policy's stability at one ``x`` that is not exact: a bar from its proven
    low end to its proven high end, or a half-line from the one end it has, and its
    estimate (proving nothing) as a small hollow marker; ``seen`` notes what was drawn."""
    has_lo, has_hi = low > 0, np.isfinite(high)
    if has_lo and has_hi:
        ax.plot([x, x], [low, high], color=st["colour"], lw=2.2, alpha=0.75, solid_capstyle="butt", zorder=3)
        ax.plot([x, x], [low, high], color=st["colour"], marker="_", ms=5, ls="none", zorder=3)
        seen["interval"] = True
    elif has_lo:
        _half_line(ax, x, low, low + arrow, st["colour"])
        seen["at least"] = True
    elif has_hi:
        _half_line(ax, x, high, max(high - arrow, 0.0), st["colour"])
        seen["at most"] = True
    if np.isfinite(estimate):
        ax.plot(
            [x],
            [estimate],
            color=st["colour"],
            marker=st["marker"],
            ms=2.8,
            ls="none",
            markerfacecolor="white",
            markeredgewidth=0.7,
            zorder=5,
        )
        seen["estimate"] = True


def _stability_handles(seen: dict) -> list:
    """The legend entries of the kinds the stability figure drew."""
    from matplotlib.lines import Line2D

    entries: dict[str, dict[str, Any]] = {
        "exact": dict(color="0.35", marker="o", ms=3.8, label="exact"),
        "interval": dict(color="0.35", lw=2.2, alpha=0.75, label="proven interval"),
        "at least": dict(color="0.35", ls=":", marker="^", ms=3, label="at least (proven low end)"),
        "at most": dict(color="0.35", ls=":", marker="v", ms=3, label="at most (proven high end)"),
        "estimate": dict(
            color="0.35", ls="none", marker="o", ms=3, markerfacecolor="white", label="estimate (proves nothing)"
        ),
    }
    return [Line2D([], [], **entries[kind]) for kind in entries if seen[kind]]


def _first_swept(ds: xr.Dataset) -> str | None:
    swept = [d for d in _grid_dims(ds) if ds.sizes[d] > 1 and ds[d].dtype.kind in "if"]
    return swept[0] if swept else None


def load_figure(ds: xr.Dataset):
    """Effective load of the busiest server against the nominal load (a bound on the
    capacity makes it the opposite bound on the effective load)."""
    fig = _analytic_against(ds, "rho", "load", "Effective load of the busiest server", "rho", inverse=True)
    for ax in fig.axes:
        if ax.get_xlabel() == "load":
            ax.set_xlabel(load_label(ds))
    return fig


def cost_figure(ds: xr.Dataset):
    """Expected server time per job against r_slow, or against the first other swept
    numeric axis (d, say) when r_slow has one value: the analysis by kind (an exact
    value solid; a lower bound and ``cost_upper`` as the two ends of an interval,
    dash-dotted and dotted) and, just right of it, the simulated E[C] with its CI
    (clipped at 0) at the lightest load where the policy is stable (filled markers)."""
    x = "r_slow"
    if ds.sizes["r_slow"] == 1:
        x = _first_swept(ds) or x
    fig = _analytic_against(ds, "cost", x, "Server time per job E[C]", "E[server time per job]", extra_var="cost_upper")
    if "cost_mean" not in ds or not _has(ds, "cost_mean") or x not in ds.dims or ds[x].dtype.kind not in "if":
        return fig
    fixed, _ = _fixed(ds, {x} | ({_column_axis(ds, x)} if _column_axis(ds, x) else set()))
    if _column_axis(ds, x):  # the analytic panels have columns: leave them as they are
        return fig
    sub = ds.sel(fixed)
    cases = _cases(ds)
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison][: len(cases)]
    xs = np.asarray(sub[x].values, dtype=float)
    span = (np.nanmax(xs) - np.nanmin(xs)) or 1.0
    names = [str(p) for p in sub["policy"].values]
    drawn = False
    for ax, case in zip(axes, cases):
        for k, policy in enumerate(names):
            one = sub.sel(dict(zip(_CASE_DIMS, case), policy=policy))
            mean = np.asarray(one["cost_mean"].transpose(x, "load").values, dtype=float)
            ci = np.asarray(one["cost_mean_ci"].transpose(x, "load").values, dtype=float)
            first = np.argmax(np.isfinite(mean), axis=1)  # the lightest load with an estimate
            rows = np.arange(len(xs))
            y, e = mean[rows, first], ci[rows, first]
            if not np.isfinite(y).any():
                continue
            off = 0.012 * span * (1 + k % 3)
            drawn |= _draw_simulated(ax, xs + off, y, e, policy)
    if drawn:
        from matplotlib.lines import Line2D

        old = fig.legends[0] if fig.legends else None
        handles = list(old.legend_handles) if old is not None else []
        for h, t in zip(handles, old.get_texts() if old is not None else []):
            h.set_label(t.get_text())
        if old is not None:
            old.remove()
        handles.append(
            Line2D([], [], color="0.35", marker="o", ms=3.5, lw=0.7, label="simulation, lightest stable load (CI)")
        )
        fig.legend(
            handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(handles), 5), frameon=False
        )
    return fig


# rho's kind: lambda_max_kind, inverted (see load_figure)
def _with_rho_kind(ds: xr.Dataset) -> xr.Dataset:
    if "lambda_max_kind" in ds and "rho_kind" not in ds:
        ds = ds.assign(rho_kind=ds["lambda_max_kind"])
    return ds


# ------------------------------------------------------------------ latency figures


def _latency_series(
    ax,
    series: xr.Dataset,
    x: str,
    policy,
    slot: int,
    colour=None,
    marker=None,
    var: str = "latency_mean",
    analytic: bool = True,
) -> tuple[set, bool, bool]:
    """Analysis (by kind) and simulation of one policy against ``x`` in ``ax``;
    returns (kinds drawn, simulated drawn, verdict marks drawn)."""
    kinds = set()
    xs = series[x].values
    if analytic and "latency_approx" in series:
        kind = series["latency_approx_kind"].values if "latency_approx_kind" in series else ""
        kind_arr = np.asarray(kind, dtype=object) if np.ndim(kind) else np.full(len(xs), kind, dtype=object)
        labels = np.array([kind_label(k) or "exact" for k in kind_arr])
        y = np.asarray(series["latency_approx"].values, dtype=float)
        y = np.where(np.isfinite(y), y, np.nan)
        kinds |= draw_analytic(ax, xs, y, labels, policy, colour, marker)
        if "latency_lower" in series:
            low = np.asarray(series["latency_lower"].values, dtype=float)
            if np.isfinite(low).any():
                kinds |= draw_analytic(ax, xs, low, np.full(len(xs), "lower bound"), policy, colour, marker)
    sim = False
    if var in series:
        y = np.asarray(series[var].values, dtype=float)
        ci = series[f"{var}_ci"].values if f"{var}_ci" in series else None
        sim = _draw_simulated(ax, xs, np.where(np.isfinite(y), y, np.nan), ci, policy, colour, marker)
    marks = False
    verdicts = _verdict_arrays(series)
    if verdicts is not None and x == "load":
        c = _style(policy)["colour"] if colour is None else colour
        marks = _draw_verdicts(ax, xs, verdicts[0], verdicts[1], c, slot)
    elif verdicts is not None:
        c = _style(policy)["colour"] if colour is None else colour
        marks = _draw_verdicts(ax, xs, verdicts[0], verdicts[1], c, slot)
    return kinds, sim, marks


def latency_figure(ds: xr.Dataset):
    """Mean response time against load (log scale): the analysis in its kind's line
    style, the simulation as filled markers with CI bars, one colour and marker per
    policy; a simulated load that is unstable or undetermined has no estimate and
    gets a mark at the foot of its panel instead (:data:`VERDICT_MARKS`)."""
    return _against_load(ds, "latency_mean", "Mean response time E[T]", "E[T]", analytic=True)


def tail_figure(ds: xr.Dataset):
    """The tail: the simulated 99th percentile of the response time against load
    (log scale), marks where the verdict is not stable."""
    if "latency_quantile" not in ds or 0.99 not in list(np.round(ds["quantile"].values, 6)):
        return _empty("Tail: p99 of the response time", "simulated quantiles")
    q = ds["latency_quantile"].sel(quantile=0.99, method="nearest").drop_vars("quantile")
    ds = ds.assign(latency_p99=q)
    if "latency_quantile_ci" in ds:  # the CI bars: over the replications' own p99
        ds = ds.assign(
            latency_p99_ci=ds["latency_quantile_ci"].sel(quantile=0.99, method="nearest").drop_vars("quantile")
        )
    return _against_load(ds, "latency_p99", "Tail: 99th percentile of the response time", "p99 of T", analytic=False)


def _against_load(ds: xr.Dataset, var: str, title: str, ylabel: str, analytic: bool):
    col = _column_axis(ds, "load")
    fixed, where = _fixed(ds, {col} if col else set())
    sub = ds.sel(fixed)
    cols = _sorted_values(ds, col) if col else [None]
    cases = _cases(ds)
    values = [np.asarray(sub[var].values, dtype=float)]
    if analytic and "latency_approx" in sub:
        values.append(np.asarray(sub["latency_approx"].values, dtype=float))
    has_marks = "verdict" in sub and (np.asarray(sub["verdict"].values) != "").any()
    if not any(np.isfinite(v).any() for v in values) and not has_marks:
        return _empty(title + where, f"{ylabel} values")
    fig, axes, cells, label_panels = _case_facets(cases, cols, col)
    kinds, simulated, marked, policies = set(), False, False, []
    slots = _strip_slots(sub)
    for ax, case, c in cells:
        for policy in sub["policy"].values:
            sel = dict(zip(_CASE_DIMS, case), policy=policy)
            if col:
                sel[col] = c
            series = sub.sel(sel)
            k, s, m = _latency_series(ax, series, "load", policy, slots.get(str(policy), 0), var=var, analytic=analytic)
            kinds |= k
            simulated |= s
            marked |= m
            if (k or s or m) and policy not in policies:
                policies.append(policy)
    _log_y(axes)
    _x_range([ax for ax, _, _ in cells], ds["load"].values)
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    label_panels(load_label(ds), ylabel)
    _finish(fig, title, _policy_handles(policies) + _kind_handles(kinds, simulated, _confidence(ds), ds=ds))
    return fig


def latency_vs_figure(ds: xr.Dataset, x: str):
    """Mean response time against a swept axis (``d``, ``FJ.k``), one row of panels
    per case and one column per load (at most four, increasing): the analysis by kind
    (a lower bound dash-dotted), the simulation with CI bars (log y, as latencies
    near saturation span orders of magnitude)."""
    fixed, where = _fixed(ds, {x})
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    cases = _cases(ds)
    title = f"Mean response time E[T] against {x}"
    finite = [
        np.isfinite(np.asarray(sub[v].values, dtype=float)).any()
        for v in ("latency_mean", "latency_approx", "latency_lower")
        if v in sub
    ]
    if not any(finite):
        return _empty(title + where, "latency values")
    fig, axes = _panels(len(cases), len(loads))
    kinds, simulated, marked, policies = set(), False, False, []
    slots = _strip_slots(sub)
    for i, case in enumerate(cases):
        for j, load in enumerate(loads):
            ax = axes[i, j]
            for policy in sub["policy"].values:
                series = sub.sel(dict(zip(_CASE_DIMS, case), policy=policy, load=load))
                k, s, m = _latency_series(ax, series, x, policy, slots.get(str(policy), 0))
                kinds |= k
                simulated |= s
                marked |= m
                if (k or s or m) and policy not in policies:
                    policies.append(policy)
    _log_y(axes)
    if ds[x].dtype.kind in "if":
        _x_range(axes, ds[x].values)
        _log_x(axes, ds[x].values)
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    lname = load_label(ds).split(" = ")[0]
    _label_panels(axes, [_case_name(c) for c in cases], [f"{lname} = {_fmt(v)}" for v in loads], x, "E[T]")
    _finish(fig, title, _policy_handles(policies) + _kind_handles(kinds, simulated, _confidence(ds), ds=ds))
    return fig


def latency_by_distribution_figure(ds: xr.Dataset):
    """Simulated mean response time with its CI per job-size law (in the study's
    order, e.g. by increasing variance), one panel per load (at most four), each
    policy in its colour and marker, dependences told apart by the marker's fill
    (filled, hollow, half): the near-insensitivity of the PS paper's Fig. 5. The y
    axis is not forced to 0, so differences of a percent stay visible. Other axes are
    taken at the value with the most estimates (the title says which)."""
    fixed, where = _most_estimated(ds, {"distribution", "dependence"})
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    title = f"Simulated mean response time per job-size law ({_confidence(ds):.0%} CI bars)"
    has = np.isfinite(np.asarray(sub["latency_mean"].values, dtype=float)).any()
    if not has and not ("verdict" in sub and (np.asarray(sub["verdict"].values) != "").any()):
        return _empty(title + where, "simulated latency")
    from matplotlib.lines import Line2D

    laws = [str(v) for v in ds["distribution"].values]
    deps = [str(v) for v in ds["dependence"].values]
    policies = [str(p) for p in sub["policy"].values]
    fills: list[Literal["full", "none", "left", "bottom", "right", "top"]] = [
        "full",
        "none",
        "left",
        "bottom",
        "right",
        "top",
    ]
    series = [(p, dep) for p in policies for dep in deps]
    offsets = dict(zip(series, np.linspace(-0.25, 0.25, len(series)) if len(series) > 1 else [0.0]))
    ncols = min(2, len(loads))
    nrows = math.ceil(len(loads) / ncols)
    fig, axes = _panels(nrows, ncols, sharey=False, sharex=True)
    marked, shown = False, []
    for n, load in enumerate(loads):
        ax = axes[n // ncols, n % ncols]
        for policy, dep in series:
            part = sub.sel(policy=policy, dependence=dep, load=load)
            pos = np.arange(len(laws)) + offsets[(policy, dep)]
            y = np.asarray(part["latency_mean"].values, dtype=float)
            ci = np.asarray(part["latency_mean_ci"].values, dtype=float)
            s = _style(policy)
            ok = np.isfinite(y)
            if ok.any():
                ax.errorbar(
                    pos[ok],
                    y[ok],
                    yerr=np.nan_to_num(ci[ok]),
                    color=s["colour"],
                    marker=s["marker"],
                    fillstyle=fills[deps.index(dep) % len(fills)],
                    ls="none",
                    ms=4,
                    capsize=2,
                    elinewidth=0.8,
                )
                if (policy, dep) not in shown:
                    shown.append((policy, dep))
            verdicts = _verdict_arrays(part.transpose("distribution", ...))
            if verdicts is not None:  # the series' offset already sets its marks apart
                drew = _draw_verdicts(ax, pos, verdicts[0], verdicts[1], s["colour"], 0)
                marked |= drew
                if drew and (policy, dep) not in shown:
                    shown.append((policy, dep))
        ax.set_xticks(range(len(laws)))
        ax.set_xticklabels(laws, rotation=30)
        ax.set_title(f"{load_label(ds).split(' = ')[0]} = {_fmt(load)}")
    for n in range(len(loads), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("E[T]")
    for ax in axes[-1, :]:
        ax.set_xlabel("job-size law")
    handles = _policy_handles(dict.fromkeys(p for p, _ in shown))
    if len(deps) > 1:
        handles += [
            Line2D(
                [],
                [],
                color="0.35",
                marker="o",
                ls="none",
                ms=4,
                fillstyle=fills[k % len(fills)],
                label=f"{dep} replicas",
            )
            for k, dep in enumerate(deps)
        ]
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    _finish(fig, title, handles)
    return fig


def load_ratio_figure(ds: xr.Dataset, x: str):
    """1 / lambda_max against a threshold on a log axis, one line per job-size law
    (shades of the policy's colour) and one panel per dependence and policy: on
    identical servers this is the speculation paper's load ratio
    L(tau) = rho(tau) / rho(inf) (its Fig. 1), since there lambda_max(inf) = 1 in load
    units; L < 1 means the timeout gains capacity."""
    from matplotlib.lines import Line2D

    fixed, where = _fixed(ds, {x})
    sub = ds.sel(fixed)
    title = "Load ratio L(tau) = 1 / lambda_max"
    lm = np.asarray(sub["lambda_max"].values, dtype=float)
    if not np.isfinite(lm).any():
        return _empty(title + where, "stability bounds")
    panels = [(p, dep) for p in sub["policy"].values for dep in sub["dependence"].values]
    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = _panels(nrows, ncols, sharey=False, sharex=True)
    laws = [str(v) for v in sub["distribution"].values]
    kinds, handles = set(), []
    for n, (policy, dep) in enumerate(panels):
        ax = axes[n // ncols, n % ncols]
        shades = _shades(_style(policy)["colour"], len(laws))
        for k, law in enumerate(laws):
            part = sub.sel(policy=policy, dependence=dep, distribution=law)
            xs = np.asarray(part[x].values, dtype=float)
            L = 1.0 / np.asarray(part["lambda_max"].values, dtype=float)
            L[~(xs > 0)] = np.nan
            labels = [
                kind_label(v, inverse=True) or "exact"
                for v in np.broadcast_to(part["lambda_max_kind"].values, xs.shape)
            ]
            kinds |= draw_analytic(ax, xs, L, labels, policy, colour=shades[k])
        ax.set_xscale("log")
        ax.axhline(1.0, color="0.4", lw=0.7, ls="-")
        ax.set_title(f"{policy}, {dep}")
    for n in range(len(panels), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("L(tau)")
    for ax in axes[-1, :]:
        ax.set_xlabel(x)
    policies = list(dict.fromkeys(p for p, _ in panels))
    for policy in policies:
        shades = _shades(_style(policy)["colour"], len(laws))
        handles += [
            Line2D(
                [],
                [],
                color=shades[k],
                marker=_style(policy)["marker"],
                ms=3.5,
                markerfacecolor="white",
                label=f"{policy}, size {law}",
            )
            for k, law in enumerate(laws)
        ]
    _finish(fig, title + where, handles + _kind_handles(kinds))
    return fig


# ------------------------------------------------------------------ per-variant figures


def _value(ds: xr.Dataset, what: str):
    """(simulated var, its CI, analytic vars with their kind words) of ``what``."""
    if what == "latency":
        return "latency_mean", "latency_mean_ci", (("latency_approx", None), ("latency_lower", "lower bound"))
    return "cost_mean", "cost_mean_ci", (("cost", None), ("cost_lower", "lower bound"), ("cost_upper", "upper bound"))


def against_axis_figure(ds: xr.Dataset, what: str, x: str):
    """Mean cost (or latency) against a swept parameter ``x`` (e.g. FJ.k): one panel
    per case and policy, one shade of the policy's colour per load (light: low load);
    simulation with filled markers and CI bars, analytic values and bounds by kind."""
    from matplotlib.lines import Line2D

    fixed, where = _fixed(ds, {x})
    sub = ds.sel(fixed)
    sim_var, ci_var, analytic = _value(ds, what)
    ylabel = "E[T]" if what == "latency" else "E[server time per job]"
    title = f"Mean {'response time' if what == 'latency' else 'server time per job'} against {x}"
    panels = [(case, p) for case in _cases(ds) for p in sub["policy"].values]
    if not any(_has(sub, v) for v in (sim_var, *(a for a, _ in analytic))):
        return _empty(title + where, f"{what} values")
    loads = np.sort(sub["load"].values)
    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = _panels(nrows, ncols, sharey=False, sharex=True)
    kinds, simulated, marked = set(), False, False
    for n, (case, policy) in enumerate(panels):
        ax = axes[n // ncols, n % ncols]
        shades = _shades(_style(policy)["colour"], len(loads))
        part = sub.sel(dict(zip(_CASE_DIMS, case), policy=policy))
        for k, load in enumerate(loads):
            at = part.sel(load=load) if "load" in part.dims else part
            xs = at[x].values
            for var, label in analytic:
                if var not in at or not np.isfinite(np.asarray(at[var].values, float)).any():
                    continue
                if "load" not in part[var].dims and k > 0:
                    continue  # a per-cell value, drawn once
                if label is None:
                    kinds_here = at[f"{var}_kind"].values if f"{var}_kind" in at else ""
                    labels = [kind_label(v) or "exact" for v in np.broadcast_to(kinds_here, np.shape(xs))]
                else:
                    labels = [label] * len(xs)
                colour = shades[k] if "load" in part[var].dims else _style(policy)["colour"]
                kinds |= draw_analytic(ax, xs, at[var].values, labels, policy, colour=colour)
            simulated |= _draw_simulated(ax, xs, at[sim_var].values, at[ci_var].values, policy, colour=shades[k])
            verdicts = _verdict_arrays(at)
            if verdicts is not None:
                marked |= _draw_verdicts(ax, xs, verdicts[0], verdicts[1], shades[k], k)
        ax.set_title(f"{_case_name(case)}, {policy}")
        if what == "latency":
            _log_y([ax])
        if sub[x].dtype.kind in "if":
            _log_x([ax], sub[x].values)
    for n in range(len(panels), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(x)
    handles = []
    for policy in dict.fromkeys(p for _, p in panels):
        shades = _shades(_style(policy)["colour"], len(loads))
        handles += [
            Line2D(
                [],
                [],
                color=shades[k],
                marker=_style(policy)["marker"],
                ms=3.5,
                label=f"{policy}, {load_label(ds).split(' = ')[0]} {_fmt(v)}",
            )
            for k, v in enumerate(loads)
        ]
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    _finish(fig, title, handles + _kind_handles(kinds, simulated, _confidence(ds), ds=ds))
    return fig


def _variant_dims(ds: xr.Dataset) -> list[str]:
    """Swept grid dims that make variants of a policy (d and policy parameters)."""
    from .policies import POLICIES

    return [d for d in _grid_dims(ds) if ds.sizes[d] > 1 and (d == "d" or d.split(".")[0] in POLICIES)]


def _varies(policy: str, dim: str) -> bool:
    """Whether ``policy``'s values change along ``dim`` (a policy that ignores ``d``, or
    another policy's parameter, is repeated along it)."""
    from .policies import POLICIES

    if dim == "d":
        return POLICIES[policy].uses_d if policy in POLICIES else True
    head = dim.split(".")[0]
    return head == policy or head not in POLICIES


def _variant_points(ds: xr.Dataset, dims: list[str]):
    """(policy, {dim: value}, label) for every policy and combination of ``dims``; an
    axis the policy ignores is taken at its first value and left out of the label."""
    import itertools

    out = []
    for policy in ds["policy"].values:
        policy = str(policy)
        own = [d for d in dims if _varies(policy, d)]
        fixed = {d: ds[d].values[0] for d in dims if d not in own}
        for combo in itertools.product(*(ds[d].values for d in own)):
            sel = dict(zip(own, combo))
            label = ", ".join(value_name(d, v) or f"{d}={_fmt(v)}" for d, v in sel.items())
            out.append((policy, {**fixed, **sel}, label))
    return out


def _short_label(policy: str, sel: dict, dims: list[str]) -> str:
    """A point's variant by its values alone (``4/opt``), for labels on the data."""
    return "/".join(_fmt(sel[d]) for d in dims if d in sel and _varies(policy, d))


def by_variant_figure(ds: xr.Dataset, what: str):
    """Mean latency or cost against load, one line per variant (a combination of the
    swept grid axes other than the case, e.g. ``d = 4, FJ.keep = opt``) in shades of
    its policy's colour: simulation with filled markers, analysis by kind."""
    from matplotlib.lines import Line2D

    swept = [d for d in _grid_dims(ds) if ds.sizes[d] > 1]
    fixed, where = _fixed(ds, set(swept))
    sub = ds.sel(fixed)
    sim_var, ci_var, analytic = _value(ds, what)
    ylabel = "E[T]" if what == "latency" else "E[server time per job]"
    title = f"Mean {'response time' if what == 'latency' else 'server time per job'} by variant"
    if not any(_has(sub, v) for v in (sim_var, *(a for a, _ in analytic))):
        return _empty(title + where, f"{what} values")
    cases = _cases(ds)
    ncols = min(2, len(cases))
    nrows = math.ceil(len(cases) / ncols)
    fig, axes = _panels(nrows, ncols, sharey=False, sharex=True)
    points = _variant_points(sub, swept)
    per_policy: dict = {}
    for policy, _, _ in points:
        per_policy[policy] = per_policy.get(policy, 0) + 1
    kinds, simulated, marked, handles = set(), False, False, []
    for n, case in enumerate(cases):
        ax = axes[n // ncols, n % ncols]
        counters: dict = {}
        drawn_analytic: list = []
        for slot, (policy, sel, label) in enumerate(points):
            k = counters.get(policy, 0)
            counters[policy] = k + 1
            colour = _shades(_style(policy)["colour"], per_policy[policy])[k]
            at = sub.sel(dict(zip(_CASE_DIMS, case), policy=policy, **sel))
            xs = at["load"].values
            for var, kind in analytic:
                if var not in at or not np.isfinite(np.asarray(at[var].values, float)).any():
                    continue
                values = np.broadcast_to(np.asarray(at[var].values, float), xs.shape)
                if kind is None:
                    kk = at[f"{var}_kind"].values if f"{var}_kind" in at else ""
                    labels = [kind_label(v) or "exact" for v in np.broadcast_to(kk, xs.shape)]
                else:
                    labels = [kind] * len(xs)
                # a value the variants share (the analysis ignores the axis) is drawn once
                key = (policy, var, tuple(np.round(np.nan_to_num(values), 12)))
                if key in drawn_analytic:
                    continue
                drawn_analytic.append(key)
                kinds |= draw_analytic(ax, xs, values, labels, policy, colour=colour)
            simulated |= _draw_simulated(ax, xs, at[sim_var].values, at[ci_var].values, policy, colour=colour)
            verdicts = _verdict_arrays(at)
            if verdicts is not None:
                marked |= _draw_verdicts(ax, xs, verdicts[0], verdicts[1], colour, slot)
            # a legend entry per variant, or, for many, the first and last shade
            if n == 0 and (per_policy[policy] <= 6 or k in (0, per_policy[policy] - 1)):
                name = f"{policy}, {label}" if ds.sizes["policy"] > 1 or not label else label
                if per_policy[policy] > 6 and k == per_policy[policy] - 1:
                    name = f"... {name}"
                handles.append(Line2D([], [], color=colour, marker=_style(policy)["marker"], ms=3.5, label=name))
        ax.set_title(_case_name(case))
        if what == "latency":
            _log_y([ax])
    for n in range(len(cases), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(load_label(ds))
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    _finish(fig, title, handles + _kind_handles(kinds, simulated, _confidence(ds), ds=ds), n_legend_cols=4)
    return fig


# ------------------------------------------------------------------ trade-off


def _estimates(at: xr.Dataset) -> tuple[float, float, float, float, str]:
    """(E[C], its CI, E[T], its CI, source) at one grid point and load: the
    simulation where it has an estimate, else the analysis (source: its kind)."""
    t = float(at["latency_mean"]) if "latency_mean" in at else math.nan
    c = float(at["cost_mean"]) if "cost_mean" in at else math.nan
    if math.isfinite(t) and math.isfinite(c):
        return (c, float(at["cost_mean_ci"]), t, float(at["latency_mean_ci"]), "simulation")
    t = float(at["latency_approx"]) if "latency_approx" in at else math.nan
    c = float(at["cost"]) if "cost" in at else math.nan
    if math.isfinite(t) and math.isfinite(c):
        kinds = {kind_label(at[k].values.item()) for k in ("latency_approx_kind", "cost_kind") if k in at}
        kind = "exact" if kinds <= {"exact", ""} else " / ".join(sorted(kinds - {"exact"}))
        return c, math.nan, t, math.nan, kind
    return math.nan, math.nan, math.nan, math.nan, ""


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points (cost, latency) that no other point beats in both (the
    Pareto frontier of the latency-cost trade-off), by increasing cost."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front, best = [], math.inf
    for i in order:
        if points[i][1] < best:
            front.append(i)
            best = points[i][1]
    return front


def frontier_of_boxes(boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Indices of the points (cost low, cost high, latency low, latency high) that no
    other point dominates: another dominates when its cost and latency intervals both
    lie at or below this one's, strictly for one (overlapping CIs dominate nothing, so
    noise does not push a point off the frontier)."""
    out = []
    for i, (cl, _, tl, _) in enumerate(boxes):
        beaten = False
        for j, (_, ch2, _, th2) in enumerate(boxes):
            if j != i and ch2 <= cl and th2 <= tl and (ch2 < cl or th2 < tl):
                beaten = True
                break
        if not beaten:
            out.append(i)
    return out


def _most_estimated(ds: xr.Dataset, keep: set) -> tuple[dict, str]:
    """Every grid dimension outside ``keep`` at the value with the most simulated
    estimates (the first value when none has any), and the title suffix."""
    fixed = {}
    finite = np.isfinite(np.asarray(ds["latency_mean"].values, float)) if "latency_mean" in ds else None
    dims = list(ds["latency_mean"].dims) if finite is not None else []
    for d in _grid_dims(ds):
        if d in keep:
            continue
        value = ds[d].values[0]
        if finite is not None and ds.sizes[d] > 1 and finite.any():
            axis = dims.index(d)
            counts = finite.sum(axis=tuple(k for k in range(finite.ndim) if k != axis))
            value = ds[d].values[int(np.argmax(counts))]
        fixed[d] = value
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return fixed, (f" at {where}" if where else "")


def _draw_frontier(ax, drawn: list, boxes: list) -> None:
    """Ring the points no other point's E[T] and E[C] intervals both beat
    (:func:`frontier_of_boxes`) and draw the estimates' Pareto front as a step line."""
    on = frontier_of_boxes(boxes)
    ax.scatter(
        [drawn[k][0] for k in on],
        [drawn[k][1] for k in on],
        s=70,
        facecolors="none",
        edgecolors="black",
        lw=0.7,
        zorder=5,
    )
    front = [drawn[k] for k in pareto_front(drawn)]
    ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="black", lw=0.6, alpha=0.6, zorder=3)


def _fit_x(ax, xs: list) -> None:
    """The x range of the points and marks at hand (the marks, drawn in axes
    coordinates, would not widen it), and a readable range around a single point."""
    if xs:
        lo, hi = min(xs), max(xs)
        pad = 0.08 * (hi - lo) if hi > lo else 0.05 * abs(hi) or 0.05
        ax.set_xlim(lo - pad, hi + pad)
    lo, hi = ax.get_xlim()
    mid = (lo + hi) / 2
    if hi - lo < 0.1 * abs(mid):
        ax.set_xlim(mid * 0.95, mid * 1.05)


def tradeoff_figure(ds: xr.Dataset):
    """The latency-cost trade-off: E[T] against E[C] at each load (a column per load,
    at most four), a point per policy and variant (d, policy parameters), the
    simulation's estimates with CI bars where it has them, else the analysis (hollow,
    by kind); the Pareto frontier (no other point is both faster and cheaper) as a
    black step line through ringed points. A policy without an estimate at a load
    gets its verdict mark (x unstable, ? undetermined) at the foot of the panel, at
    its analytic E[C]. Other system axes (r_slow, N, ...) are taken at the value where
    the simulation has the most estimates; the title says which."""
    variants = _variant_dims(ds)
    fixed, where = _most_estimated(ds, set(variants))
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    cases = _cases(ds)
    title = "Latency-cost trade-off: E[T] against E[C] (ringed: on the frontier)"
    points = _variant_points(sub, variants)
    slots = {str(p): i for i, p in enumerate(sub["policy"].values)}
    fig, axes = _panels(len(cases), len(loads), sharey="row", sharex=False)
    anything, kinds, simulated, marked, policies = False, set(), False, False, []
    for i, case in enumerate(cases):
        for j, load in enumerate(loads):
            ax = axes[i, j]
            drawn, boxes, unplaced, mark_x = [], [], [], []
            for policy, sel, label in points:
                at = sub.sel(dict(zip(_CASE_DIMS, case), policy=policy, load=load, **sel))
                c, cci, t, tci, source = _estimates(at)
                s = _style(policy)
                if not (math.isfinite(c) and math.isfinite(t)):
                    v = str(at["verdict"].values.item()) if "verdict" in at else ""
                    jobs = float(at["jobs"]) if "jobs" in at else math.nan
                    covered = jobs > 0 or (v == "unstable" and math.isfinite(jobs))
                    if v in VERDICT_MARKS and covered:
                        cost = float(at["cost"]) if "cost" in at else math.nan
                        if math.isfinite(cost):
                            marked |= _draw_verdicts(ax, [cost], [v], None, s["colour"], slots[policy])
                            mark_x.append(cost)
                        else:
                            short = _short_label(policy, sel, variants)
                            unplaced.append(f"{policy}{' ' + short if short else ''} {'x' if v == 'unstable' else '?'}")
                        if policy not in policies:
                            policies.append(policy)
                    continue
                if source == "simulation":
                    ax.errorbar(
                        [c],
                        [t],
                        xerr=[np.nan_to_num(cci)],
                        yerr=[np.nan_to_num(tci)],
                        color=s["colour"],
                        marker=s["marker"],
                        ms=4.5,
                        ls="none",
                        elinewidth=0.7,
                        capsize=1.5,
                        zorder=4,
                    )
                    simulated = True
                else:
                    ax.plot(
                        [c],
                        [t],
                        color=s["colour"],
                        marker=s["marker"],
                        ms=4.5,
                        ls="none",
                        markerfacecolor="white",
                        zorder=4,
                    )
                    kinds |= {k.strip() for k in source.split("/")}
                if label:  # the variant's values; the legend names the axes
                    short = _short_label(policy, sel, variants)
                    ax.annotate(
                        short, (c, t), xytext=(3, 2), textcoords="offset points", fontsize=5.5, color=s["colour"]
                    )
                drawn.append((c, t))
                cc, tt = (0.0 if not math.isfinite(v) else v for v in (cci, tci))
                boxes.append((c - cc, c + cc, t - tt, t + tt))
                if policy not in policies:
                    policies.append(policy)
            if drawn:
                anything = True
                _draw_frontier(ax, drawn, boxes)
            _fit_x(ax, [p[0] for p in drawn] + mark_x)
            if unplaced:
                ax.text(
                    0.98,
                    0.97,
                    "no analytic E[C]:\n" + "\n".join(unplaced[:5]),
                    transform=ax.transAxes,
                    ha="right",
                    va="top",
                    fontsize=5.5,
                    color="0.3",
                )
    if not anything and not marked:
        import matplotlib.pyplot as plt

        plt.close(fig)
        return _empty(title + where, "pairs of latency and cost values")
    lname = load_label(ds).split(" = ")[0]
    _label_panels(
        axes,
        [_case_name(c) for c in cases],
        [f"{lname} = {_fmt(v)}" for v in loads],
        "E[C] (server time per job)",
        "E[T]",
    )
    from matplotlib.lines import Line2D

    handles = _policy_handles(policies) + _kind_handles(kinds, simulated, _confidence(ds), ds=ds)
    handles.append(
        Line2D(
            [], [], color="black", lw=0, marker="o", markerfacecolor="none", ms=6, label="on the frontier (intervals)"
        )
    )
    if variants:
        handles.append(Line2D([], [], color="none", label="point labels: " + " / ".join(variants)))
    title += where
    if marked:
        title += "\n(strip under each panel, at the policy's analytic E[C]: x unstable, ? undetermined)"
    _finish(fig, title, handles)
    return fig


# ------------------------------------------------------------------ theory vs simulation


def relative_error(theory, mean, ci):
    """(theory / simulation - 1, and its interval from the simulation's CI)."""
    theory = np.asarray(theory, dtype=float)
    mean = np.asarray(mean, dtype=float)
    ci = np.nan_to_num(np.asarray(ci, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        err = theory / mean - 1.0
        low = theory / (mean + ci) - 1.0
        high = np.where(mean - ci > 0, theory / (mean - ci) - 1.0, np.inf)
    return err, low, high


def _percent_ticks(axes) -> None:
    """Relative errors as percentages on a symmetric-log axis."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    ticks = [-1.0, -0.2, -0.05, 0.0, 0.05, 0.2, 1.0, 5.0, 20.0, 100.0]
    for ax in np.ravel(axes):
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_minor_locator(FixedLocator([]))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "0" if v == 0 else f"{v:+.0%}"))


def theory_vs_simulation_figure(ds: xr.Dataset):
    """Theory against simulation: the relative error theory / simulation - 1 of the
    mean response time (left) and of the server time per job (right) against load,
    with its interval from the simulation's CI, a line per policy and grid setting in
    the style of the analytic value's kind (an upper bound should sit above 0, a
    lower bound below); symmetric-log y axis."""
    swept = [d for d in _grid_dims(ds) if ds.sizes[d] > 1]
    cases = _cases(ds)
    title = "Theory against simulation: relative error theory / simulation - 1"
    metrics = (
        ("E[T]", "latency_approx", "latency_mean", "latency_mean_ci"),
        ("E[C]", "cost", "cost_mean", "cost_mean_ci"),
    )
    fig, axes = _panels(len(cases), 2, sharey="row", sharex=True)
    anything, kinds, policies = False, set(), []
    ds = ds.sel(_fixed(ds, set(swept))[0])
    points = _variant_points(ds, swept)
    for i, case in enumerate(cases):
        for j, (_, theory_var, sim_var, ci_var) in enumerate(metrics):
            ax = axes[i, j]
            ax.axhline(0.0, color="0.3", lw=0.6)
            ax.axhspan(-0.05, 0.05, color="0.92", zorder=0)
            for policy, sel, _ in points:
                at = ds.sel(dict(zip(_CASE_DIMS, case), policy=policy, **sel))
                if theory_var not in at or sim_var not in at:
                    continue
                xs = at["load"].values
                theory = np.broadcast_to(np.asarray(at[theory_var].values, float), xs.shape)
                err, low, high = relative_error(theory, at[sim_var].values, at[ci_var].values)
                ok = np.isfinite(err)
                if not ok.any():
                    continue
                kind_var = f"{theory_var}_kind"
                kk = at[kind_var].values if kind_var in at else ""
                labels = np.array([kind_label(v) or "exact" for v in np.broadcast_to(kk, xs.shape)])
                s = _style(policy)
                high_c = np.where(np.isfinite(high), high, err)
                ax.errorbar(
                    xs[ok],
                    err[ok],
                    yerr=[err[ok] - low[ok], high_c[ok] - err[ok]],
                    color=s["colour"],
                    ls="none",
                    elinewidth=0.7,
                    capsize=1.5,
                    zorder=3,
                )
                kinds |= draw_analytic(ax, xs, np.where(ok, err, np.nan), labels, policy, ring=False)
                anything = True
                if policy not in policies:
                    policies.append(policy)
            ax.set_yscale("symlog", linthresh=0.05, linscale=0.6)
    _percent_ticks(axes)
    if not anything:
        import matplotlib.pyplot as plt

        plt.close(fig)
        return _empty(title, "grid points with both an analytic and a simulated value")
    fixed_note = (
        f"\n(one line per setting of {', '.join(swept)}; grey band: within 5 %)"
        if swept
        else "\n(grey band: within 5 %)"
    )
    _label_panels(
        axes, [_case_name(c) for c in cases], [m[0] for m in metrics], load_label(ds), "theory / simulation - 1"
    )
    _finish(fig, title + fixed_note, _policy_handles(policies) + _kind_handles(kinds, False, ringed=False))
    return fig


# ------------------------------------------------------------------ winner maps


def winner_map_figure(ds: xr.Dataset, axis: str):
    """Which policy wins where, over ``axis`` (rows of each map) and the load
    (columns): the smallest E[T] and the smallest E[C] at each load and the largest
    stable load (one column: it does not depend on the load), each decided by
    dominance of intervals (exact values, bounds, the simulation's CIs). A cell in a
    policy's colour with its marker: that policy beats every other contender. A
    hatched grey cell with several markers: a tie, every policy that could be best
    (+n: more of them). x: no policy stable at that load. The oracles (KT, KS) are
    not contenders."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    from .winners import ORACLES, winners

    rows_dims = [d for d in _CASE_DIMS if d != axis]
    fixed, where = _fixed(ds, {axis})
    sub = ds.sel({k: [v] for k, v in fixed.items()})
    simulated = "latency_mean" in sub and (
        np.isfinite(np.asarray(sub["latency_mean"].values, float)).any()
        or ("verdict" in sub and (np.asarray(sub["verdict"].values).astype(str) != "").any())
    )
    table = winners(sub)
    oracles = [p for p in ds["policy"].values if p in ORACLES]
    ys = list(ds[axis].values)
    loads = np.sort(ds["load"].values)
    row_keys = [tuple(v) for v in _row_keys(ds, rows_dims)]
    metrics = (["latency"] if simulated else []) + ["cost", "stability"]
    widths = [len(loads) if m != "stability" else 1.2 for m in metrics]
    nrows, ncols = len(row_keys), len(metrics)
    width = min(WIDTH, 0.3 * sum(widths) + 2.4)
    height = nrows * max(1.2, 0.17 * len(ys) + 0.55) + 0.6
    fig, axes = _panels(nrows, ncols, sharey=True, sharex=False, width_ratios=widths, figsize=(width, height))
    policies_seen, notes = [], set()

    def cell(ax, x0, y0, names: str, decided: bool, text: str = ""):
        plist = [p for p in names.split(", ") if p]
        if plist:
            if decided:
                face = _style(plist[0])["colour"]
                ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), 1, 1, facecolor=(*face[:3], 0.3), lw=0))
            else:
                ax.add_patch(
                    Rectangle((x0 - 0.5, y0 - 0.5), 1, 1, facecolor="0.93", hatch="////", edgecolor="0.7", lw=0)
                )
                notes.add("tie")
            shown = plist if len(plist) <= 3 else plist[:2]
            step = 0.28
            for k, p in enumerate(shown):
                off = (k - (len(shown) - 1) / 2) * step
                ax.plot(
                    [x0 + off],
                    [y0],
                    marker=_style(p)["marker"],
                    color=_style(p)["colour"],
                    ms=4.0 if decided else 3.4,
                    ls="none",
                    markeredgecolor="black",
                    markeredgewidth=0.3,
                )
            for p in plist:
                if p not in policies_seen:
                    policies_seen.append(p)
            if len(shown) < len(plist):
                ax.text(x0 + 0.45, y0 - 0.45, f"+{len(plist) - len(shown)}", fontsize=5, ha="right", va="bottom")
        elif text:
            ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), 1, 1, facecolor="0.85", lw=0))
            ax.text(x0, y0, text, ha="center", va="center", fontsize=7, color="0.2")
            notes.add(text)

    for i, key in enumerate(row_keys):
        match = dict(zip(rows_dims, key))
        for j, metric in enumerate(metrics):
            ax = axes[i, j]
            rows = table[table["criterion"] == metric]
            for yi, yv in enumerate(ys):
                if metric == "stability":
                    r = _rows(rows, {**match, axis: yv})
                    if r is not None:
                        cell(ax, 0, yi, r["winners"], r["decided"] == "true")
                    continue
                for xi, load in enumerate(loads):
                    r = _rows(rows, {**match, axis: yv, "load": load})
                    if r is None:
                        continue
                    if r["winners"]:
                        cell(ax, xi, yi, r["winners"], r["decided"] == "true")
                    elif r["evidence"] == "no policy stable":
                        cell(ax, xi, yi, "", False, "x")
            if metric != "stability":
                ax.set_xlim(-0.5, len(loads) - 0.5)
                ax.set_xticks(range(len(loads)))
                ax.set_xticklabels([_fmt(v) for v in loads], rotation=90 if len(loads) > 6 else 0)
                ax.set_xlabel(load_label(ds).split(" = ")[0] if i == len(row_keys) - 1 else "")
            else:
                ax.set_xlim(-0.5, 0.5)
                ax.set_xticks([])
            ax.set_ylim(-0.5, len(ys) - 0.5)
            ax.set_yticks(range(len(ys)))
            ax.set_yticklabels([_fmt(v) for v in ys])
            ax.grid(False)
            if i == 0:
                ax.set_title(
                    {"latency": "smallest E[T]", "cost": "smallest E[C]", "stability": "largest\nstable load"}[metric]
                )
        axes[i, 0].set_ylabel(axis)
        if key:
            axes[i, -1].annotate(
                ", ".join(str(k) for k in key),
                xy=(1.08, 0.5),
                xycoords="axes fraction",
                rotation=-90,
                va="center",
                ha="left",
                fontsize=7,
            )
    handles = _policy_handles(policies_seen)
    if "tie" in notes:
        handles.append(
            Patch(facecolor="0.93", hatch="////", edgecolor="0.7", lw=0, label="tie: every policy that could be best")
        )
    if "x" in notes:
        handles.append(Patch(facecolor="0.85", label="x: no policy stable"))
    handles.append(Line2D([], [], ls="none", label="filled: proven best"))
    title = f"Which policy wins where, by {axis} and load" + where
    if oracles:
        title += f"\n(decided by dominance of intervals; the oracles {', '.join(map(str, oracles))} left out)"
    _finish(fig, title, handles)
    return fig


def _kind_of_winner(ds: xr.Dataset, metric: str, sel: dict, won: str) -> str:
    """The kind of the value with which ``won`` (its first policy) wins ``metric``."""
    policy = won.split(", ")[0]
    var = "lambda_max_kind" if metric == "stability" else "cost_kind"
    if not policy or var not in ds:
        return ""
    v = ds[var].sel({k: x for k, x in {**sel, "policy": policy}.items() if k in ds[var].dims})
    return str(np.ravel(v.values)[0])


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


def _all_unstable(ds: xr.Dataset, match: dict, axis: str, value, load, skip=()) -> bool:
    if "verdict" not in ds:
        return False
    if skip:
        ds = ds.sel(policy=[p for p in ds["policy"].values if p not in skip])
    sel = {**match, axis: value, "load": load}
    v = ds["verdict"].sel({k: x for k, x in sel.items() if k in ds["verdict"].dims})
    values = [str(x) for x in np.ravel(v.values) if str(x)]
    return bool(values) and all(x == "unstable" for x in values)


# ------------------------------------------------------------------ dispatch


def _figure_function(name: str):
    for prefix, fn in (
        ("cost_vs_", against_axis_figure),
        ("load_ratio_vs_", load_ratio_figure),
        ("stability_vs_", stability_figure),
        ("latency_vs_", latency_vs_figure),
        ("winners_", winner_map_figure),
    ):
        if name.startswith(prefix):
            return fn
    if name.endswith("_by_variant"):
        return by_variant_figure
    return {
        "latency_by_distribution": latency_by_distribution_figure,
        "stability": stability_figure,
        "load": load_figure,
        "cost": cost_figure,
        "latency": latency_figure,
        "tail": tail_figure,
        "tradeoff": tradeoff_figure,
        "theory_vs_simulation": theory_vs_simulation_figure,
    }.get(name)


def figure_caption(name: str) -> str:
    """What a figure shows, in words (the docstring of the function that draws it)."""
    import inspect

    fn = _figure_function(name)
    doc = " ".join(((inspect.getdoc(fn) if fn else "") or name).split("\n\n")[0].split())
    for prefix in ("cost_vs_", "load_ratio_vs_", "stability_vs_", "latency_vs_", "winners_"):
        if name.startswith(prefix):
            axis = name.removeprefix(prefix)
            doc = doc.replace("``x``", axis).replace("``axis``", axis)
    if name.endswith("_by_variant"):
        doc = doc.replace("latency or cost", name.removesuffix("_by_variant"))
    return doc.replace("``", "")


def make_figure(ds: xr.Dataset, name: str):
    ds = _with_rho_kind(ds)
    if name.startswith("cost_vs_"):
        return against_axis_figure(ds, "cost", name.removeprefix("cost_vs_"))
    for what in ("latency", "cost"):
        if name == f"{what}_by_variant":
            return by_variant_figure(ds, what)
    if name.startswith("load_ratio_vs_"):
        return load_ratio_figure(ds, name.removeprefix("load_ratio_vs_"))
    if name.startswith("stability_vs_"):
        return stability_figure(ds, name.removeprefix("stability_vs_"))
    if name.startswith("latency_vs_"):
        return latency_vs_figure(ds, name.removeprefix("latency_vs_"))
    if name.startswith("winners_"):
        return winner_map_figure(ds, name.removeprefix("winners_"))
    return {
        "latency_by_distribution": latency_by_distribution_figure,
        "stability": stability_figure,
        "load": load_figure,
        "cost": cost_figure,
        "latency": latency_figure,
        "tail": tail_figure,
        "tradeoff": tradeoff_figure,
        "theory_vs_simulation": theory_vs_simulation_figure,
    }[name](ds)


def simulated(ds: xr.Dataset) -> bool:
    """Whether the study behind ``ds`` simulates (its config's ``evaluate``)."""
    import yaml

    try:
        return "simulation" in yaml.safe_load(ds.attrs["config"])["evaluate"]
    except (KeyError, TypeError, yaml.YAMLError):
        return bool("jobs" in ds and np.isfinite(np.asarray(ds["jobs"].values, float)).any())


def write_figures(ds: xr.Dataset, outdir, names=None) -> list[Path]:
    """Write the figures as PNG and SVG into ``outdir``; return the paths."""
    plt = _backend()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if names is None:
        names = figure_names(
            {d: list(ds[d].values) for d in ["policy", "distribution", "dependence", *_grid_dims(ds)]}, simulated(ds)
        )
    written = []
    for name in names:
        fig = make_figure(ds, name)
        for ext in ("png", "svg"):
            path = outdir / f"{name}.{ext}"
            atomic_write(path, functools.partial(_save, fig, ext))
            written.append(path)
        plt.close(fig)
    return written


def _save(fig, ext: str, path: Path) -> None:
    fig.savefig(path, format=ext, dpi=200, bbox_inches="tight", metadata=_metadata(ext))


def _metadata(ext: str) -> dict:
    # no timestamps, so that figures are byte-reproducible
    if ext == "svg":
        return {"Date": None}
    return {"Software": None}
