"""The cost-against-a-parameter figure: a mean against a swept parameter, a shade per load."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import empty_figure, finish, kind_handles, load_label, log_x, log_y, make_panels
from .primitives import draw_analytic, draw_simulated, draw_verdicts, verdict_arrays
from .selection import case_name, cases_of, confidence_level, fixed_elsewhere, fmt_value, has_values, value_vars
from .style import VERDICT_NOTE, kind_label, shades_of, style_of


def against_axis_figure(ds: xr.Dataset, what: str, x: str):
    """The ``cost_vs_<axis>`` figures: ``what`` against the swept parameter ``x`` (what it
    shows, in words: its kind's caption in :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    from matplotlib.lines import Line2D

    fixed, where = fixed_elsewhere(ds, {x})
    sub = ds.sel(fixed)
    sim_var, ci_var, analytic = value_vars(ds, what)
    ylabel = "E[T]" if what == "latency" else "E[server time per job]"
    title = f"Mean {'response time' if what == 'latency' else 'server time per job'} against {x}"
    floor = 0.0
    if what == "cost" and _extra_load_axis(x) and np.isfinite(np.asarray(sub.get(_unit(sub), np.nan), float)).all():
        # against a system's axis (cancel_delay), what an operator budgets: the server time
        # beyond one copy of each job; a policy's own parameter (FJ.k) keeps E[C], as the
        # papers draw it
        sub = _as_extra_load(sub, [sim_var, *(a for a, _ in analytic)], ci_var)
        ylabel = "extra load E[C]/E[X] - 1"
        title = f"Extra load (server time beyond one copy a job) against {x}"
        floor = -1.0  # no server time at all
    panels = [(case, p) for case in cases_of(ds) for p in sub["policy"].values]
    if not any(has_values(sub, v) for v in (sim_var, *(a for a, _ in analytic))):
        return empty_figure(title + where, f"{what} values")
    loads = np.sort(sub["load"].values)
    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = make_panels(nrows, ncols, sharey=False, sharex=True)
    kinds, simulated, marked = set(), False, False
    for n, (case, policy) in enumerate(panels):
        ax = axes[n // ncols, n % ncols]
        shades = shades_of(style_of(policy)["colour"], len(loads))
        part = sub.sel(dict(zip(CASE_DIMS, case), policy=policy))
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
                colour = shades[k] if "load" in part[var].dims else style_of(policy)["colour"]
                kinds |= draw_analytic(ax, xs, at[var].values, labels, policy, colour=colour)
            simulated |= draw_simulated(
                ax, xs, at[sim_var].values, at[ci_var].values, policy, colour=shades[k], floor=floor
            )
            verdicts = verdict_arrays(at)
            if verdicts is not None:
                marked |= draw_verdicts(ax, xs, verdicts[0], verdicts[1], shades[k], k)
        ax.set_title(f"{case_name(case)}, {policy}")
        if what == "latency":
            log_y([ax])
        if sub[x].dtype.kind in "if":
            log_x([ax], sub[x].values)
    for n in range(len(panels), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(x)
    handles = []
    for policy in dict.fromkeys(p for _, p in panels):
        shades = shades_of(style_of(policy)["colour"], len(loads))
        handles += [
            Line2D(
                [],
                [],
                color=shades[k],
                marker=style_of(policy)["marker"],
                ms=3.5,
                label=f"{policy}, {load_label(ds).split(' = ')[0]} {fmt_value(v)}",
            )
            for k, v in enumerate(loads)
        ]
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    finish(fig, title, handles + kind_handles(kinds, simulated, confidence_level(ds), ds=ds))
    return fig


def _extra_load_axis(x: str) -> bool:
    """Is ``x`` an axis the cost is drawn against as the extra load (not a policy's own
    parameter)?"""
    from ...model.policies import POLICIES

    return x.split(".")[0] not in POLICIES


def _as_extra_load(sub: xr.Dataset, means: list[str], half_width: str) -> xr.Dataset:
    """``sub`` with its cost means in units of E[X] less one (the extra load) and the CI
    half-width in units of E[X]."""
    size = sub[_unit(sub)]
    out = sub.copy()
    for var in means:
        if var in out:
            out[var] = out[var] / size - 1.0
    if half_width in out:
        out[half_width] = out[half_width] / size
    return out


def _unit(sub: xr.Dataset) -> str:
    """The extra load's unit: ``copy_mean`` (one copy, X S under S&X), or ``size_mean`` in
    a dataset older than it."""
    return "copy_mean" if "copy_mean" in sub else "size_mean"
