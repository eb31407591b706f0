"""The stability figure: each policy's largest stable load as an interval."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import case_facets, empty_figure, finish, policy_handles
from .primitives import analytic_against
from .selection import cases_of, first_swept, fixed_elsewhere
from .style import style_of


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
    """The ``stability`` and ``stability_vs_<axis>`` figures: each policy's largest stable load
    against ``x`` (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    from ...decide.intervals import stability_intervals

    units = "rho~ units" if ds.attrs.get("load_basis", "nominal") == "redundancy" else "load units"
    if ds.sizes.get(x, 0) == 1:  # r_slow not swept: against the first swept numeric axis
        x = first_swept(ds) or x
    title = "Stability: the largest stable load, as proven (interval) or estimated"
    if x not in ds.dims or ds[x].dtype.kind not in "if":
        return analytic_against(ds, "lambda_max", x, title, f"lambda_max ({units})")
    fixed, where = fixed_elsewhere(ds, {x})
    sub = ds.sel(fixed)
    iv = stability_intervals(sub)
    if not (np.isfinite(iv["low"].values) & (iv["low"].values > 0)).any() and not np.isfinite(iv["high"].values).any():
        return empty_figure(title + where, "stability bounds")
    cases = cases_of(ds)
    fig, axes, cells, label_panels = case_facets(cases, [None], None)
    xs_all = np.asarray(sorted(sub[x].values), dtype=float)
    span = (xs_all.max() - xs_all.min()) or 1.0
    names = [str(p) for p in sub["policy"].values]
    step = dodge_step(xs_all, len(names))
    finite = np.concatenate([iv["low"].values.ravel(), iv["high"].values.ravel(), iv["estimate"].values.ravel()])
    finite = finite[np.isfinite(finite)]
    top = float(finite.max()) if finite.size else 1.0
    arrow = 0.14 * top
    seen = {"exact": False, "interval": False, "at least": False, "at most": False, "estimate": False}
    for ax, case, _ in cells:
        for k, policy in enumerate(names):
            st = style_of(policy)
            one = iv.sel(dict(zip(CASE_DIMS, case), policy=policy))
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
                    _stability_mark(ax, (xi, BAR_FILL * step), (a, b, e), st, arrow, seen)
        ax.set_ylim(0, top * 1.12)
        half = len(names) * step / 2
        ax.set_xlim(xs_all.min() - half - 0.03 * span, xs_all.max() + half + 0.03 * span)
    label_panels(x, f"largest stable load ({units})")
    finish(fig, title + where, policy_handles(names) + _stability_handles(seen))
    return fig


BAR_FILL = 0.75
"""The share of its slot (:func:`dodge_step`) that a policy's bar fills."""


def dodge_step(xs, n: int) -> float:
    """The distance between the slots of ``n`` policies side by side at each value of
    ``xs``: the n slots of one value fill 80% of the narrowest gap between two values,
    so that no bar reaches into its neighbour's slot or the next value's group."""
    values = np.unique(np.asarray(xs, dtype=float))
    values = values[np.isfinite(values)]
    gap = float(np.diff(values).min()) if len(values) > 1 else 1.0
    return 0.8 * gap / max(n, 1)


def _stability_mark(ax, at: tuple, values: tuple, st, arrow, seen) -> None:
    """One policy's stability at one x that is not exact (``at``: the x and the bar's
    width; ``values``: low, high, estimate): a bar from its proven low end to its proven
    high end, or a half-line from the one end it has, and its estimate (proving
    nothing) as a small hollow marker; ``seen`` notes what was drawn."""
    x, width = at
    low, high, estimate = values
    has_lo, has_hi = low > 0, np.isfinite(high)
    if has_lo and has_hi:
        ax.bar(x, high - low, width=width, bottom=low, color=st["colour"], alpha=0.75, lw=0, zorder=3)
        ax.hlines([low, high], x - width / 2, x + width / 2, color=st["colour"], lw=1.0, zorder=3)
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
        "interval": dict(color="0.35", lw=4.0, alpha=0.75, solid_capstyle="butt", label="proven interval"),
        "at least": dict(color="0.35", ls=":", marker="^", ms=3, label="at least (proven low end)"),
        "at most": dict(color="0.35", ls=":", marker="v", ms=3, label="at most (proven high end)"),
        "estimate": dict(
            color="0.35", ls="none", marker="o", ms=3, markerfacecolor="white", label="estimate (proves nothing)"
        ),
    }
    return [Line2D([], [], **entries[kind]) for kind in entries if seen[kind]]
