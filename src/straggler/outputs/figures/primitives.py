"""Drawing primitives shared by the figures: an analytic series, simulated estimates, the verdict strip."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import (
    STRIP_PITCH,
    case_facets,
    empty_figure,
    finish,
    kind_handles,
    log_x,
    log_y,
    policy_handles,
    strip_room,
)
from .selection import cases_of, column_axis, fixed_elsewhere, fmt_value, sorted_values
from .style import BOUNDS, VERDICT_MARKS, kind_label, kind_ls, style_of


def draw_analytic(ax, x, y, labels, policy, colour=None, marker=None, ring: bool = True) -> set:
    """An analytic series: consecutive points of one kind joined in that kind's line
    style (never a line between points of different kinds), hollow markers, a grey
    ring around bound-only points. ``labels`` are :func:`kind_label` words per point.
    Returns the kinds drawn."""
    s = style_of(policy)
    colour = s["colour"] if colour is None else colour
    marker = s["marker"] if marker is None else marker
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    labels = np.asarray(labels, dtype=object)
    order = np.argsort(x, kind="stable")
    x, y, labels = x[order], y[order], labels[order]
    ok = np.isfinite(y) & np.isfinite(x)
    drawn = set()
    i = 0
    while i < len(x):
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(x) and ok[j + 1] and labels[j + 1] == labels[i]:
            j += 1
        label = labels[i] or "exact"
        ax.plot(
            x[i : j + 1],
            y[i : j + 1],
            color=colour,
            ls=kind_ls(label),
            marker=marker,
            ms=3.5,
            markerfacecolor="white",
            markeredgewidth=0.9,
            lw=1.1,
            zorder=3,
        )
        if ring and label in BOUNDS:
            ax.scatter(x[i : j + 1], y[i : j + 1], s=60, facecolors="none", edgecolors="0.45", lw=0.6, zorder=2)
        drawn.add(label)
        i = j + 1
    return drawn


def draw_simulated(ax, x, y, ci, policy, colour=None, marker=None, floor: float = 0.0) -> bool:
    """Simulated estimates: filled markers with CI bars, joined by a thin line; a bar
    stops at ``floor``, the least value the quantity takes (a time or a cost: 0; an
    extra load: -1)."""
    s = style_of(policy)
    colour = s["colour"] if colour is None else colour
    marker = s["marker"] if marker is None else marker
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ci = None if ci is None else np.asarray(ci, dtype=float)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    ci = None if ci is None else ci[order]
    ok = np.isfinite(y)
    if not ok.any():
        return False
    if ci is not None:
        half = np.nan_to_num(ci[ok])
        yerr = np.vstack([np.minimum(half, y[ok] - floor), half])
    ax.errorbar(
        x[ok],
        y[ok],
        yerr=None if ci is None else yerr,
        color=colour,
        marker=marker,
        ms=3.8,
        lw=0.7,
        elinewidth=0.8,
        capsize=1.8,
        ls="-",
        alpha=0.9,
        zorder=4,
    )
    return True


def draw_verdicts(ax, x, verdict, mean_kind, colour, slot: int = 0) -> bool:
    """Mark the loads at ``x`` whose ``verdict`` is not stable (x unstable, ?
    undetermined, ∞ an infinite mean) in row ``slot`` of a strip under the panel,
    outside the data area (one row per series, so that marks of several series do not
    hide each other); the x tick labels move below the strip (:func:`strip_room`). True
    if anything was drawn."""
    from matplotlib import transforms

    drawn = False
    x = np.asarray(x, dtype=float)
    verdict = np.asarray(verdict, dtype=object)
    offset = transforms.ScaledTranslation(0, -(STRIP_PITCH * (slot + 1)) / 72, ax.figure.dpi_scale_trans)
    where = transforms.blended_transform_factory(ax.transData, ax.transAxes) + offset
    marks = dict(VERDICT_MARKS)
    kinds = {k: verdict == k for k in marks}
    if mean_kind is not None:
        marks["infinite"] = "$\\infty$"
        kinds["infinite"] = (np.asarray(mean_kind, dtype=object) == "infinite") & (verdict != "unstable")
    for name, marker in marks.items():
        at = kinds[name]
        if at.any():
            ax.scatter(
                x[at],
                np.zeros(int(at.sum())),
                transform=where,
                marker=marker,
                s=14 if name != "infinite" else 22,
                color=colour,
                lw=0.8,
                zorder=6,
                clip_on=False,
            )
            drawn = True
    if drawn:
        strip_room(ax, slot + 1)
    return drawn


def strip_slots(sub: xr.Dataset) -> dict[str, int]:
    """A strip row per policy that has a load without an estimate somewhere in ``sub``."""
    if "verdict" not in sub:
        return {}
    v = sub["verdict"].transpose("policy", ...).values.astype(str)
    flat = v.reshape(v.shape[0], -1)
    rows = [str(p) for p, r in zip(sub["policy"].values, flat) if np.isin(r, list(VERDICT_MARKS)).any()]
    return {p: k for k, p in enumerate(rows)}


def verdict_arrays(sub: xr.Dataset) -> tuple[np.ndarray, np.ndarray] | None:
    """(verdict, latency_mean_kind) of a 1-d (load) selection, blank where the
    simulation did not cover the load; None without verdicts."""
    if "verdict" not in sub or "jobs" not in sub:
        return None
    verdict = np.asarray(sub["verdict"].values, dtype=object)
    jobs = np.asarray(sub["jobs"].values, dtype=float)
    covered = (jobs > 0) | ((verdict == "unstable") & np.isfinite(jobs))
    verdict = np.where(covered, verdict, "")
    kind = (
        np.asarray(sub["latency_mean_kind"].values, dtype=object)
        if "latency_mean_kind" in sub
        else np.full(len(verdict), "", dtype=object)
    )
    return verdict, np.where(covered, kind, "")


def analytic_against(
    ds: xr.Dataset,
    var: str,
    x: str,
    title: str,
    ylabel: str,
    inverse: bool = False,
    extra_var: str | None = None,
    logy=False,
):
    """``var`` (and optionally ``extra_var``, drawn as its own kind) against ``x``,
    one row of panels per case, columns for a second swept axis; lines by kind."""
    col = column_axis(ds, x)
    keep = {x, col} | ({"load"} if "load" in ds[var].dims else set())
    fixed, where = fixed_elsewhere(ds, keep)
    cols = sorted_values(ds, col) if col else [None]
    cases = cases_of(ds)
    sub = ds.sel(fixed)
    if not np.isfinite(np.asarray(sub[var].values, dtype=float)).any():
        return empty_figure(title + where, f"{var} values")
    fig, axes, cells, label_panels = case_facets(cases, cols, col)
    kinds = set()
    policies = []
    # one value of x (nothing swept): the policies side by side, a point each
    by_policy = sub.sizes.get(x, 0) == 1 and "load" not in sub[var].dims
    names = [str(p) for p in sub["policy"].values]
    for ax, case, c in cells:
        for n_policy, policy in enumerate(sub["policy"].values):
            sel = dict(zip(CASE_DIMS, case), policy=policy)
            if col:
                sel[col] = c
            series = sub.sel(sel)
            for name in (var, extra_var):
                if not name or name not in series:
                    continue
                values = series[name]
                if name != var and np.allclose(values.values, series[var].values, equal_nan=True):
                    continue
                xs = series[x].values
                ys = np.broadcast_to(np.asarray(values.values, dtype=float), xs.shape)
                if name == var:
                    kk = series[f"{var}_kind"].values if f"{var}_kind" in series else ""
                    label = np.array([kind_label(v, inverse) or "exact" for v in np.broadcast_to(kk, xs.shape)])
                else:
                    label = np.full(len(xs), "upper bound")
                if by_policy:  # a lone point: its kind in words beside it
                    xs = np.full(len(ys), float(n_policy))
                    if np.isfinite(ys).any():
                        ax.annotate(
                            str(label[0]),
                            (xs[0], ys[0]),
                            xytext=(6, -2),
                            textcoords="offset points",
                            fontsize=5.5,
                            color="0.3",
                        )
                if np.isfinite(ys).any():
                    kinds |= draw_analytic(ax, xs, ys, label, policy)
                    if policy not in policies:
                        policies.append(policy)
        if by_policy:
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=30)
            ax.set_xlim(-0.6, len(names) - 0.4)
    if logy:
        log_y(axes)
    if not by_policy and sub[x].dtype.kind in "if":
        log_x(axes, sub[x].values)
    if by_policy:
        where += f" ({x} = {fmt_value(sub[x].values.item())})" if x in sub.coords else ""
    label_panels("policy" if by_policy else x, ylabel)
    finish(fig, title + where, policy_handles(policies) + kind_handles(kinds))
    return fig
