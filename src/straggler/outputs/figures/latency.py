"""The latency and tail figures: the mean and the 99th percentile of the response time against load."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import case_facets, empty_figure, finish, kind_handles, load_label, log_y, policy_handles, x_range
from .primitives import draw_analytic, draw_simulated, draw_verdicts, strip_slots, verdict_arrays
from .selection import cases_of, column_axis, confidence_level, fixed_elsewhere, sorted_values
from .style import VERDICT_NOTE, kind_label, style_of


def latency_series(
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
        sim = draw_simulated(ax, xs, np.where(np.isfinite(y), y, np.nan), ci, policy, colour, marker)
    marks = False
    verdicts = verdict_arrays(series)
    if verdicts is not None and x == "load":
        c = style_of(policy)["colour"] if colour is None else colour
        marks = draw_verdicts(ax, xs, verdicts[0], verdicts[1], c, slot)
    elif verdicts is not None:
        c = style_of(policy)["colour"] if colour is None else colour
        marks = draw_verdicts(ax, xs, verdicts[0], verdicts[1], c, slot)
    return kinds, sim, marks


def latency_figure(ds: xr.Dataset):
    """The ``latency`` figure: the mean response time against load (what it shows, in
    words: its kind's caption in :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    return _against_load(ds, "latency_mean", "Mean response time E[T]", "E[T]", analytic=True)


def tail_figure(ds: xr.Dataset):
    """The ``tail`` figure: the simulated p99 of the response time against load (what it
    shows, in words: its kind's caption in :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    if "latency_quantile" not in ds or 0.99 not in list(np.round(ds["quantile"].values, 6)):
        return empty_figure("Tail: p99 of the response time", "simulated quantiles")
    q = ds["latency_quantile"].sel(quantile=0.99, method="nearest").drop_vars("quantile")
    ds = ds.assign(latency_p99=q)
    if "latency_quantile_ci" in ds:  # the CI bars: over the replications' own p99
        ds = ds.assign(
            latency_p99_ci=ds["latency_quantile_ci"].sel(quantile=0.99, method="nearest").drop_vars("quantile")
        )
    return _against_load(ds, "latency_p99", "Tail: 99th percentile of the response time", "p99 of T", analytic=False)


def _against_load(ds: xr.Dataset, var: str, title: str, ylabel: str, analytic: bool):
    col = column_axis(ds, "load")
    fixed, where = fixed_elsewhere(ds, {col} if col else set())
    sub = ds.sel(fixed)
    cols = sorted_values(ds, col) if col else [None]
    cases = cases_of(ds)
    values = [np.asarray(sub[var].values, dtype=float)]
    if analytic and "latency_approx" in sub:
        values.append(np.asarray(sub["latency_approx"].values, dtype=float))
    has_marks = "verdict" in sub and (np.asarray(sub["verdict"].values) != "").any()
    if not any(np.isfinite(v).any() for v in values) and not has_marks:
        return empty_figure(title + where, f"{ylabel} values")
    fig, axes, cells, label_panels = case_facets(cases, cols, col)
    kinds, simulated, marked, policies = set(), False, False, []
    slots = strip_slots(sub)
    for ax, case, c in cells:
        for policy in sub["policy"].values:
            sel = dict(zip(CASE_DIMS, case), policy=policy)
            if col:
                sel[col] = c
            series = sub.sel(sel)
            k, s, m = latency_series(ax, series, "load", policy, slots.get(str(policy), 0), var=var, analytic=analytic)
            kinds |= k
            simulated |= s
            marked |= m
            if (k or s or m) and policy not in policies:
                policies.append(policy)
    log_y(axes)
    x_range([ax for ax, _, _ in cells], ds["load"].values)
    title += where + (f"\n({VERDICT_NOTE})" if marked else "")
    label_panels(load_label(ds), ylabel)
    finish(fig, title, policy_handles(policies) + kind_handles(kinds, simulated, confidence_level(ds), ds=ds))
    return fig
