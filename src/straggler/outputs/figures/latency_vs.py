"""The latency-against-an-axis figure: the mean response time against a swept axis, a column per load."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .latency import latency_series
from .layout import (
    empty_figure,
    finish,
    integer_ticks,
    kind_handles,
    label_grid,
    load_label,
    log_x,
    log_y,
    make_panels,
    policy_handles,
    x_range,
)
from .primitives import strip_slots
from .selection import case_name, cases_of, confidence_level, fixed_elsewhere, fmt_value, left_out_loads, shown_loads
from .style import VERDICT_NOTE


def latency_vs_figure(ds: xr.Dataset, x: str):
    """The ``latency_vs_<axis>`` figures: the mean response time against the swept axis
    ``x`` (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    fixed, where = fixed_elsewhere(ds, {x})
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    cases = cases_of(ds)
    title = f"Mean response time E[T] against {x}"
    finite = [
        np.isfinite(np.asarray(sub[v].values, dtype=float)).any()
        for v in ("latency_mean", "latency_approx", "latency_lower")
        if v in sub
    ]
    if not any(finite):
        return empty_figure(title + where, "latency values")
    fig, axes = make_panels(len(cases), len(loads))
    kinds, simulated, marked, policies = set(), False, False, []
    slots = strip_slots(sub)
    for i, case in enumerate(cases):
        for j, load in enumerate(loads):
            ax = axes[i, j]
            for policy in sub["policy"].values:
                series = sub.sel(dict(zip(CASE_DIMS, case), policy=policy, load=load))
                k, s, m = latency_series(ax, series, x, policy, slots.get(str(policy), 0))
                kinds |= k
                simulated |= s
                marked |= m
                if (k or s or m) and policy not in policies:
                    policies.append(policy)
    log_y(axes)
    if ds[x].dtype.kind in "if":
        x_range(axes, ds[x].values)
        log_x(axes, ds[x].values)
        integer_ticks(axes, ds[x].values)
    title += where + left_out_loads(ds) + (f"\n({VERDICT_NOTE})" if marked else "")
    lname = load_label(ds).split(" = ")[0]
    label_grid(axes, [case_name(c) for c in cases], [f"{lname} = {fmt_value(v)}" for v in loads], x, "E[T]")
    finish(fig, title, policy_handles(policies) + kind_handles(kinds, simulated, confidence_level(ds), ds=ds))
    return fig
