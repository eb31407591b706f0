"""The by-variant figures: a mean against load, one line per variant of a policy."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import empty_figure, finish, kind_handles, load_label, log_y, make_panels
from .primitives import draw_analytic, draw_simulated, draw_verdicts, verdict_arrays
from .selection import (
    case_name,
    cases_of,
    confidence_level,
    fixed_elsewhere,
    grid_dims,
    has_values,
    value_vars,
    variant_points,
)
from .style import VERDICT_NOTE, kind_label, shades_of, style_of


def by_variant_figure(ds: xr.Dataset, what: str):
    """The ``latency_by_variant`` and ``cost_by_variant`` figures: ``what`` against load, a
    line per variant (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    from matplotlib.lines import Line2D

    swept = [d for d in grid_dims(ds) if ds.sizes[d] > 1]
    fixed, where = fixed_elsewhere(ds, set(swept))
    sub = ds.sel(fixed)
    sim_var, ci_var, analytic = value_vars(ds, what)
    ylabel = "E[T]" if what == "latency" else "E[server time per job]"
    title = f"Mean {'response time' if what == 'latency' else 'server time per job'} by variant"
    if not any(has_values(sub, v) for v in (sim_var, *(a for a, _ in analytic))):
        return empty_figure(title + where, f"{what} values")
    cases = cases_of(ds)
    ncols = min(2, len(cases))
    nrows = math.ceil(len(cases) / ncols)
    fig, axes = make_panels(nrows, ncols, sharey=False, sharex=True)
    points = variant_points(sub, swept)
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
            colour = shades_of(style_of(policy)["colour"], per_policy[policy])[k]
            at = sub.sel(dict(zip(CASE_DIMS, case), policy=policy, **sel))
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
            simulated |= draw_simulated(ax, xs, at[sim_var].values, at[ci_var].values, policy, colour=colour)
            verdicts = verdict_arrays(at)
            if verdicts is not None:
                marked |= draw_verdicts(ax, xs, verdicts[0], verdicts[1], colour, slot)
            # a legend entry per variant, or, for many, the first and last shade
            if n == 0 and (per_policy[policy] <= 6 or k in (0, per_policy[policy] - 1)):
                name = f"{policy}, {label}" if ds.sizes["policy"] > 1 or not label else label
                if per_policy[policy] > 6 and k == per_policy[policy] - 1:
                    name = f"... {name}"
                handles.append(Line2D([], [], color=colour, marker=style_of(policy)["marker"], ms=3.5, label=name))
        ax.set_title(case_name(case))
        if what == "latency":
            log_y([ax])
    for n in range(len(cases), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(load_label(ds))
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    finish(fig, title, handles + kind_handles(kinds, simulated, confidence_level(ds), ds=ds), n_legend_cols=4)
    return fig
