"""The fleet figure: how the answer moves with the number of servers N, the simulation at
each N beside the mean-field limit N -> infinity.

Two rows of panels per case, a column per load: the SLO's quantile of the response time
(P99 by default; a study without a quantile SLO, P99) and the extra load ``E[C] / E[X] - 1``
against N on a log axis. Each policy's simulated estimates at each N are its filled markers
with CI bars; its mean-field limit (``latency_approx_quantile``, ``cost_approx``; exact for
ZRed, whose servers are M/G/1 queues at any N) is a horizontal line in the kind's line style
across the panel, ending in a hollow marker at the right edge: where the markers reach the
line, the fleet behaves as its limit.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import empty_figure, finish, kind_handles, label_grid, load_label, log_x, make_panels, policy_handles
from .primitives import draw_simulated
from .selection import case_name, cases_of, confidence_level, fixed_elsewhere, fmt_value, left_out_loads, shown_loads
from .style import kind_label, kind_ls, style_of

DEFAULT_LEVEL = 0.99
"""The quantile drawn when the study's SLO names none."""


def _asked(ds: xr.Dataset) -> tuple[float, float | None, float | None]:
    """(the quantile level drawn, the SLO's target on it, the extra-load budget): the
    study's decision section's, else :data:`DEFAULT_LEVEL` and no lines."""
    from ...decide.decision import constraints

    c = constraints(ds)
    if c.level is None:
        return DEFAULT_LEVEL, None, c.budget
    return float(c.level), c.target, c.budget


def _at(series: xr.Dataset, name: str, level: float | None = None) -> np.ndarray:
    if name not in series:
        return np.full(series.sizes["N"], math.nan)
    v = series[name]
    if level is not None:
        v = v.sel(quantile=level, method="nearest")
    return np.asarray(v.values, dtype=float)


def _limit(ax, xs: np.ndarray, value: float, kind: str, policy: str) -> str | None:
    """The policy's limit as a horizontal line across the N axis with a hollow marker at its
    right end; the kind's legend word, or None where there is no finite value."""
    if not math.isfinite(value):
        return None
    s = style_of(policy)
    label = kind_label(kind) or "mean-field limit"
    lo, hi = float(np.min(xs)), float(np.max(xs))
    ax.plot([lo, hi * 1.6], [value, value], color=s["colour"], ls=kind_ls(label), lw=1.0, zorder=2)
    ax.plot([hi * 1.6], [value], color=s["colour"], marker=s["marker"], ms=4, markerfacecolor="white", zorder=3)
    return label


def fleet_figure(ds: xr.Dataset):
    """The ``fleet`` figure (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    level, target, budget = _asked(ds)
    metric = f"P{level * 100:g}"
    title = f"{metric} and extra load against the number of servers N, the simulation and the N -> infinity limit"
    fixed, where = fixed_elsewhere(ds, {"N", *CASE_DIMS, "policy"})
    sub = ds.sel(fixed)
    if "latency_quantile" not in sub or sub.sizes.get("N", 1) < 2:
        return empty_figure(title + where, "simulated quantiles at several N")
    loads = shown_loads(ds)
    cases = cases_of(ds)
    fig, axes = make_panels(2 * len(cases), len(loads), sharey="row")
    xs = np.asarray(sub["N"].values, dtype=float)
    kinds: set[str] = set()
    simulated = False
    policies: list[str] = []
    for i, case in enumerate(cases):
        for j, load in enumerate(loads):
            top, bottom = axes[2 * i, j], axes[2 * i + 1, j]
            for policy in sub["policy"].values:
                series = sub.sel(dict(zip(CASE_DIMS, case), policy=policy, load=load))
                stable = _at(series, "stable") == 1.0
                size = _at(series, "copy_mean" if "copy_mean" in series else "size_mean")
                p = np.where(stable, _at(series, "latency_quantile", level), math.nan)
                p_ci = np.where(stable, _at(series, "latency_quantile_ci", level), math.nan)
                extra = np.where(stable, _at(series, "cost_mean") / size - 1.0, math.nan)
                extra_ci = np.where(stable, _at(series, "cost_mean_ci") / size, math.nan)
                drew = draw_simulated(top, xs, p, p_ci, str(policy))
                drew |= draw_simulated(bottom, xs, extra, extra_ci, str(policy), floor=-1.0)
                simulated |= drew
                # the limit does not depend on N: its value at the largest N that has one
                limit_p = _at(series, "latency_approx_quantile", level)
                limit_c = _at(series, "cost_approx") / size - 1.0
                kind = (
                    str(series["latency_approx_quantile_kind"].values.ravel()[-1])
                    if "latency_approx_quantile_kind" in series
                    else ""
                )
                got = [
                    k
                    for k in (_last(top, xs, limit_p, kind, str(policy)), _last(bottom, xs, limit_c, kind, str(policy)))
                    if k
                ]
                kinds |= set(got)
                if (drew or got) and str(policy) not in policies:
                    policies.append(str(policy))
            top.set_yscale("log")
            if target is not None:
                top.axhline(target, color="0.3", ls="--", lw=0.8, zorder=1)
            if budget is not None:
                bottom.axhline(budget, color="0.3", ls=":", lw=0.8, zorder=1)
    if not policies:
        return empty_figure(title + where, "simulated quantiles at several N")
    log_x(axes, np.append(xs, xs.max() * 1.6))
    lname = load_label(ds).split(" = ")[0]
    rows = []
    for case in cases:
        rows += [f"{case_name(case)}: {metric}", f"{case_name(case)}: extra load"]
    label_grid(axes, rows, [f"{lname} = {fmt_value(v)}" for v in loads], "N (servers); right end: N -> infinity", "")
    for i in range(len(cases)):
        axes[2 * i, 0].set_ylabel(metric)
        axes[2 * i + 1, 0].set_ylabel("extra load")
    title += where + left_out_loads(ds)
    finish(fig, title, policy_handles(policies) + kind_handles(kinds, simulated, confidence_level(ds), ds=ds))
    return fig


def _last(ax, xs: np.ndarray, values: np.ndarray, kind: str, policy: str) -> str | None:
    """:func:`_limit` at the value of the largest N that has a finite one."""
    finite = np.isfinite(values)
    if not finite.any():
        return None
    order = np.argsort(xs)
    value = float(values[order][finite[order]][-1])
    return _limit(ax, xs, value, kind or "mean-field", policy)
