"""The load-ratio figure: 1 / lambda_max against a threshold (the speculation paper's L(tau))."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from .layout import empty_figure, finish, kind_handles, make_panels
from .primitives import draw_analytic
from .selection import fixed_elsewhere
from .style import kind_label, shades_of, style_of


def load_ratio_figure(ds: xr.Dataset, x: str):
    """The ``load_ratio_vs_<axis>`` figures: 1 / lambda_max against the threshold ``x``
    (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    from matplotlib.lines import Line2D

    fixed, where = fixed_elsewhere(ds, {x})
    sub = ds.sel(fixed)
    title = "Load ratio L(tau) = 1 / lambda_max"
    lm = np.asarray(sub["lambda_max"].values, dtype=float)
    if not np.isfinite(lm).any():
        return empty_figure(title + where, "stability bounds")
    panels = [(p, dep) for p in sub["policy"].values for dep in sub["dependence"].values]
    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = make_panels(nrows, ncols, sharey=False, sharex=True)
    laws = [str(v) for v in sub["distribution"].values]
    kinds, handles = set(), []
    for n, (policy, dep) in enumerate(panels):
        ax = axes[n // ncols, n % ncols]
        shades = shades_of(style_of(policy)["colour"], len(laws))
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
        shades = shades_of(style_of(policy)["colour"], len(laws))
        handles += [
            Line2D(
                [],
                [],
                color=shades[k],
                marker=style_of(policy)["marker"],
                ms=3.5,
                markerfacecolor="white",
                label=f"{policy}, size {law}",
            )
            for k, law in enumerate(laws)
        ]
    finish(fig, title + where, handles + kind_handles(kinds))
    return fig
