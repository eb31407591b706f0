"""Layout: the panels of a figure, their labels, its legends, its log axes and ranges."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from .selection import case_name, fmt_value
from .style import BOUNDS, KIND_STYLE, kind_ls, kind_names, policy_title, style_of

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


def backend():
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


def make_panels(nrows: int, ncols: int, sharey="row", sharex="col", width_ratios=None, figsize=None):
    plt = backend()
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


def label_grid(axes, rows: list[str], cols: list[str], xlabel: str, ylabel: str) -> None:
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


def case_facets(cases: list, cols: list, col: str | None):
    """Panels for ``cases`` x ``cols``: a row per case and a column per value of
    ``col``, or, without a column axis, the cases wrapped two to a row. Returns
    (fig, axes, [(ax, case, column value)], labeller(xlabel, ylabel))."""
    if col is None and len(cases) > 1:
        ncols = 2
        nrows = math.ceil(len(cases) / ncols)
        fig, axes = make_panels(nrows, ncols, sharey=False, sharex=True)
        cells = [(axes[n // ncols, n % ncols], case, None) for n, case in enumerate(cases)]
        for n in range(len(cases), nrows * ncols):
            axes[n // ncols, n % ncols].set_axis_off()

        def label_cases(xlabel, ylabel):
            for ax, case, _ in cells:
                ax.set_title(case_name(case))
            for ax in axes[:, 0]:
                ax.set_ylabel(ylabel)
            for n in range(ncols):  # the lowest panel in use of each column
                used = [cells[k][0] for k in range(n, len(cells), ncols)]
                used[-1].set_xlabel(xlabel)
                used[-1].xaxis.set_tick_params(labelbottom=True)

        return fig, axes, cells, label_cases
    fig, axes = make_panels(len(cases), len(cols))
    cells = [(axes[i, j], case, c) for i, case in enumerate(cases) for j, c in enumerate(cols)]

    def label(xlabel, ylabel):
        label_grid(
            axes,
            [case_name(c) for c in cases],
            [f"{col} = {fmt_value(c)}" for c in cols] if col else [""],
            xlabel,
            ylabel,
        )

    return fig, axes, cells, label


def side_label(ax, text: str, x: float = 1.04) -> None:
    """A row's label, turned, to the right of its last panel ``ax``."""
    ax.annotate(text, xy=(x, 0.5), xycoords="axes fraction", rotation=-90, va="center", ha="left", fontsize=7)


STRIP_PITCH = 5.0
"""Points between two rows of the verdict strip under a panel (one row per policy)."""


def strip_room(ax, rows: int) -> None:
    """Room for ``rows`` rows of the verdict strip under panel ``ax`` (or for as many as
    it already has): its x tick labels move below them."""
    rows = max(getattr(ax, "_strip_rows", 0), rows)
    ax._strip_rows = rows
    _labels_below(ax, rows)


def _labels_below(ax, rows: int) -> None:
    ax.tick_params(axis="x", pad=STRIP_PITCH * rows + 3)
    ax.xaxis.set_tick_params(labelbottom=True)  # the labels under the strip make room for it


def align_strips(fig) -> None:
    """The x tick labels of a row of panels at one height: every panel of a row that
    has a verdict strip somewhere puts its labels under the row's deepest strip (else a
    panel with fewer rows of marks, or none, has them higher than its neighbour's)."""
    deepest: dict[tuple, int] = {}
    panels = []
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None or not (ax.get_visible() and ax.axison):
            continue
        row = (id(spec.get_gridspec()), spec.rowspan.stop)
        deepest[row] = max(deepest.get(row, 0), getattr(ax, "_strip_rows", 0))
        panels.append((ax, row))
    for ax, row in panels:
        if deepest[row]:
            _labels_below(ax, deepest[row])


ESTIMATE_BARS = {"ms": 4.5, "ls": "none", "elinewidth": 0.7, "capsize": 1.5, "zorder": 4}
"""How a point with its intervals as error bars is drawn (``ax.errorbar`` keywords)."""


def finish(fig, title: str, handles: list, n_legend_cols: int | None = None, beside: bool = False) -> None:
    """Suptitle on top and one legend under the panels (``beside``: right of them, its top
    at theirs, so that a tall figure shows its key with its first row); the x tick labels of
    a row of panels at one height (:func:`align_strips`)."""
    align_strips(fig)
    title_artist = fig.suptitle(title, y=1.0, va="bottom")
    fig.tight_layout(pad=0.4, h_pad=0.6, w_pad=0.5)
    # the title just above the panels' own titles: tight_layout leaves room for the
    # tallest column title in every column, which left an empty band under the title
    renderer = fig.canvas.get_renderer()
    tops = [
        ax.get_tightbbox(renderer).transformed(fig.transFigure.inverted()).y1 for ax in fig.axes if ax.get_visible()
    ]
    if tops:
        title_artist.set_y(max(tops) + 0.01)
    if handles and beside:
        fig.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(1.0, max(tops) if tops else 1.0),
            ncol=1,
            frameon=False,
            handlelength=2.4,
        )
    elif handles:
        _legend_below(fig, handles, n_legend_cols or min(len(handles), 5))


def _legend_below(fig, handles: list, ncol: int) -> None:
    """One legend under the panels in ``ncol`` columns, or in fewer where that would be
    wider than the figure (long entries: policies spelled out)."""
    renderer = fig.canvas.get_renderer()
    while True:
        legend = fig.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=ncol,
            frameon=False,
            handlelength=3.4,
            columnspacing=1.2,
        )
        if ncol == 1 or legend.get_window_extent(renderer).width <= fig.bbox.width:
            return
        legend.remove()
        ncol -= 1


WORDS_WIDTH = 34
"""Characters on a line of a legend entry that spells a policy out (longer ones wrap)."""


def policy_handles(policies, words: bool = False) -> list:
    """A legend entry per policy in its colour and marker; ``words``: named in words too
    (``FRed: full redundancy``, :func:`policy_title`), wrapped to a few lines."""
    import textwrap

    from matplotlib.lines import Line2D

    out = []
    for p in policies:
        s = style_of(p)
        title = policy_title(p) if words else ""
        label = textwrap.fill(f"{p}: {title}", WORDS_WIDTH, break_on_hyphens=False) if title else str(p)
        out.append(Line2D([], [], color=s["colour"], marker=s["marker"], ls="-", ms=4.5, label=label))
    return out


def kind_handles(kinds, simulated: bool = False, confidence: float | None = None, ringed: bool = True, ds=None) -> list:
    from matplotlib.lines import Line2D

    names = kind_names(ds)

    out = [
        Line2D(
            [],
            [],
            color="0.35",
            ls=kind_ls(k),
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


def empty_figure(title: str, what: str):
    plt = backend()
    fig, ax = plt.subplots(figsize=(4.5, 1.6))
    ax.text(0.5, 0.5, f"no {what} in this study", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    fig.suptitle(title)
    return fig


def x_range(axes, values) -> None:
    """Every panel spans the axis' values (a panel with marks only would not)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return
    lo, hi = float(v.min()), float(v.max())
    pad = 0.05 * (hi - lo) if hi > lo else 0.05 * (abs(hi) or 1.0)
    for ax in np.ravel(axes):
        ax.set_xlim(lo - pad, hi + pad)


def log_x(axes, values) -> None:
    """A log x axis where the axis' values are positive and span two decades or more
    (timeouts swept over 0.1 .. 10^4, say)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size > 2 and (v > 0).all() and v.max() / v.min() >= 100:
        for ax in np.ravel(axes):
            ax.set_xscale("log")


def integer_ticks(axes, values) -> None:
    """Ticks at the swept values themselves where they are a few integers (d, FJ.k: a
    tick at 2.5 copies means nothing) on a linear axis."""
    v = np.unique(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    if not 0 < v.size <= 12 or not np.all(v == np.round(v)):
        return
    for ax in np.ravel(axes):
        if ax.get_xscale() == "linear":
            ax.set_xticks(v)


def log_y(axes) -> None:
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
            plain_log_labels(ax, values)
            # the range of the values and of the CIs near them: a CI reaching 0 (or a
            # decade beyond the values) runs off the panel instead of stretching it
            lo, hi = values.min(), values.max()
            bars = np.concatenate([bar_ends(a) for a in siblings])
            bars = bars[(bars >= lo / 4) & (bars <= hi * 4)]
            lo, hi = min(lo, bars.min(initial=lo)), max(hi, bars.max(initial=hi))
            ax.set_ylim(lo / 1.15, hi * 1.15)


def plain_log_labels(ax, values) -> None:
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
