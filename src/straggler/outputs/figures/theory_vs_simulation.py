"""The theory-against-simulation figure: the relative error of the analysis."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import empty_figure, finish, kind_handles, label_grid, load_label, make_panels, policy_handles
from .primitives import draw_analytic
from .selection import case_name, cases_of, fixed_elsewhere, grid_dims, variant_points
from .style import kind_label, style_of


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
    """The ``theory_vs_simulation`` figure: the relative error of the analysis against
    the simulation (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    swept = [d for d in grid_dims(ds) if ds.sizes[d] > 1]
    cases = cases_of(ds)
    title = "Theory against simulation: relative error theory / simulation - 1"
    metrics = (
        ("E[T]", "latency_approx", "latency_mean", "latency_mean_ci"),
        ("E[C]", "cost", "cost_mean", "cost_mean_ci"),
    )
    fig, axes = make_panels(len(cases), 2, sharey="row", sharex=True)
    anything, kinds, policies = False, set(), []
    ds = ds.sel(fixed_elsewhere(ds, set(swept))[0])
    points = variant_points(ds, swept)
    for i, case in enumerate(cases):
        for j, (_, theory_var, sim_var, ci_var) in enumerate(metrics):
            ax = axes[i, j]
            ax.axhline(0.0, color="0.3", lw=0.6)
            ax.axhspan(-0.05, 0.05, color="0.92", zorder=0)
            for policy, sel, _ in points:
                at = ds.sel(dict(zip(CASE_DIMS, case), policy=policy, **sel))
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
                s = style_of(policy)
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
        return empty_figure(title, "grid points with both an analytic and a simulated value")
    fixed_note = (
        f"\n(one line per setting of {', '.join(swept)}; grey band: within 5 %)"
        if swept
        else "\n(grey band: within 5 %)"
    )
    label_grid(axes, [case_name(c) for c in cases], [m[0] for m in metrics], load_label(ds), "theory / simulation - 1")
    finish(fig, title + fixed_note, policy_handles(policies) + kind_handles(kinds, False, ringed=False))
    return fig
