"""The cost figure: the server time per job, analytic and simulated."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .primitives import analytic_against, draw_simulated
from .selection import cases_of, column_axis, first_swept, fixed_elsewhere, has_values


def cost_figure(ds: xr.Dataset):
    """The ``cost`` figure: the server time per job, analytic and simulated (what it shows,
    in words: its kind's caption in :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    x = "r_slow"
    if ds.sizes["r_slow"] == 1:
        x = first_swept(ds) or x
    fig = analytic_against(ds, "cost", x, "Server time per job E[C]", "E[server time per job]", extra_var="cost_upper")
    if "cost_mean" not in ds or not has_values(ds, "cost_mean") or x not in ds.dims or ds[x].dtype.kind not in "if":
        return fig
    fixed, _ = fixed_elsewhere(ds, {x} | ({column_axis(ds, x)} if column_axis(ds, x) else set()))
    if column_axis(ds, x):  # the analytic panels have columns: leave them as they are
        return fig
    sub = ds.sel(fixed)
    cases = cases_of(ds)
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison][: len(cases)]
    xs = np.asarray(sub[x].values, dtype=float)
    span = (np.nanmax(xs) - np.nanmin(xs)) or 1.0
    names = [str(p) for p in sub["policy"].values]
    drawn = False
    for ax, case in zip(axes, cases):
        for k, policy in enumerate(names):
            one = sub.sel(dict(zip(CASE_DIMS, case), policy=policy))
            mean = np.asarray(one["cost_mean"].transpose(x, "load").values, dtype=float)
            ci = np.asarray(one["cost_mean_ci"].transpose(x, "load").values, dtype=float)
            first = np.argmax(np.isfinite(mean), axis=1)  # the lightest load with an estimate
            rows = np.arange(len(xs))
            y, e = mean[rows, first], ci[rows, first]
            if not np.isfinite(y).any():
                continue
            off = 0.012 * span * (1 + k % 3)
            drawn |= draw_simulated(ax, xs + off, y, e, policy)
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
