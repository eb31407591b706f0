"""The trade-off figure: E[T] against E[C] with its Pareto frontier."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import empty_figure, finish, kind_handles, label_grid, load_label, make_panels, policy_handles
from .primitives import draw_verdicts
from .selection import (
    case_name,
    cases_of,
    confidence_level,
    fmt_value,
    most_estimated,
    short_label,
    shown_loads,
    variant_dims,
    variant_points,
)
from .style import VERDICT_MARKS, kind_label, style_of


def _estimates(at: xr.Dataset) -> tuple[float, float, float, float, str]:
    """(E[C], its CI, E[T], its CI, source) at one grid point and load: the
    simulation where it has an estimate, else the analysis (source: its kind)."""
    t = float(at["latency_mean"]) if "latency_mean" in at else math.nan
    c = float(at["cost_mean"]) if "cost_mean" in at else math.nan
    if math.isfinite(t) and math.isfinite(c):
        return (c, float(at["cost_mean_ci"]), t, float(at["latency_mean_ci"]), "simulation")
    t = float(at["latency_approx"]) if "latency_approx" in at else math.nan
    c = float(at["cost"]) if "cost" in at else math.nan
    if math.isfinite(t) and math.isfinite(c):
        kinds = {kind_label(at[k].values.item()) for k in ("latency_approx_kind", "cost_kind") if k in at}
        kind = "exact" if kinds <= {"exact", ""} else " / ".join(sorted(kinds - {"exact"}))
        return c, math.nan, t, math.nan, kind
    return math.nan, math.nan, math.nan, math.nan, ""


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points (cost, latency) that no other point beats in both (the
    Pareto frontier of the latency-cost trade-off), by increasing cost."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front, best = [], math.inf
    for i in order:
        if points[i][1] < best:
            front.append(i)
            best = points[i][1]
    return front


def frontier_of_boxes(boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Indices of the points (cost low, cost high, latency low, latency high) that no
    other point dominates: another dominates when its cost and latency intervals both
    lie at or below this one's, strictly for one (overlapping CIs dominate nothing, so
    noise does not push a point off the frontier)."""
    out = []
    for i, (cl, _, tl, _) in enumerate(boxes):
        beaten = False
        for j, (_, ch2, _, th2) in enumerate(boxes):
            if j != i and ch2 <= cl and th2 <= tl and (ch2 < cl or th2 < tl):
                beaten = True
                break
        if not beaten:
            out.append(i)
    return out


def _draw_frontier(ax, drawn: list, boxes: list) -> None:
    """Ring the points no other point's E[T] and E[C] intervals both beat
    (:func:`frontier_of_boxes`) and draw the estimates' Pareto front as a step line."""
    on = frontier_of_boxes(boxes)
    ax.scatter(
        [drawn[k][0] for k in on],
        [drawn[k][1] for k in on],
        s=70,
        facecolors="none",
        edgecolors="black",
        lw=0.7,
        zorder=5,
    )
    front = [drawn[k] for k in pareto_front(drawn)]
    ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="black", lw=0.6, alpha=0.6, zorder=3)


def _fit_x(ax, xs: list) -> None:
    """The x range of the points and marks at hand (the marks, drawn in axes
    coordinates, would not widen it), and a readable range around a single point."""
    if xs:
        lo, hi = min(xs), max(xs)
        pad = 0.08 * (hi - lo) if hi > lo else 0.05 * abs(hi) or 0.05
        ax.set_xlim(lo - pad, hi + pad)
    lo, hi = ax.get_xlim()
    mid = (lo + hi) / 2
    if hi - lo < 0.1 * abs(mid):
        ax.set_xlim(mid * 0.95, mid * 1.05)


def tradeoff_figure(ds: xr.Dataset):
    """The latency-cost trade-off: E[T] against E[C] at each load (a column per load,
    at most four), a point per policy and variant (d, policy parameters), the
    simulation's estimates with CI bars where it has them, else the analysis (hollow,
    by kind); the Pareto frontier (no other point is both faster and cheaper) as a
    black step line through ringed points. A policy without an estimate at a load
    gets its verdict mark (x unstable, ? undetermined) at the foot of the panel, at
    its analytic E[C]. Other system axes (r_slow, N, ...) are taken at the value where
    the simulation has the most estimates; the title says which."""
    variants = variant_dims(ds)
    fixed, where = most_estimated(ds, set(variants))
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    cases = cases_of(ds)
    title = "Latency-cost trade-off: E[T] against E[C] (ringed: on the frontier)"
    points = variant_points(sub, variants)
    slots = {str(p): i for i, p in enumerate(sub["policy"].values)}
    fig, axes = make_panels(len(cases), len(loads), sharey="row", sharex=False)
    anything, kinds, simulated, marked, policies = False, set(), False, False, []
    for i, case in enumerate(cases):
        for j, load in enumerate(loads):
            ax = axes[i, j]
            drawn, boxes, unplaced, mark_x = [], [], [], []
            for policy, sel, label in points:
                at = sub.sel(dict(zip(CASE_DIMS, case), policy=policy, load=load, **sel))
                c, cci, t, tci, source = _estimates(at)
                s = style_of(policy)
                if not (math.isfinite(c) and math.isfinite(t)):
                    v = str(at["verdict"].values.item()) if "verdict" in at else ""
                    jobs = float(at["jobs"]) if "jobs" in at else math.nan
                    covered = jobs > 0 or (v == "unstable" and math.isfinite(jobs))
                    if v in VERDICT_MARKS and covered:
                        cost = float(at["cost"]) if "cost" in at else math.nan
                        if math.isfinite(cost):
                            marked |= draw_verdicts(ax, [cost], [v], None, s["colour"], slots[policy])
                            mark_x.append(cost)
                        else:
                            short = short_label(policy, sel, variants)
                            unplaced.append(f"{policy}{' ' + short if short else ''} {'x' if v == 'unstable' else '?'}")
                        if policy not in policies:
                            policies.append(policy)
                    continue
                if source == "simulation":
                    ax.errorbar(
                        [c],
                        [t],
                        xerr=[np.nan_to_num(cci)],
                        yerr=[np.nan_to_num(tci)],
                        color=s["colour"],
                        marker=s["marker"],
                        ms=4.5,
                        ls="none",
                        elinewidth=0.7,
                        capsize=1.5,
                        zorder=4,
                    )
                    simulated = True
                else:
                    ax.plot(
                        [c],
                        [t],
                        color=s["colour"],
                        marker=s["marker"],
                        ms=4.5,
                        ls="none",
                        markerfacecolor="white",
                        zorder=4,
                    )
                    kinds |= {k.strip() for k in source.split("/")}
                if label:  # the variant's values; the legend names the axes
                    short = short_label(policy, sel, variants)
                    ax.annotate(
                        short, (c, t), xytext=(3, 2), textcoords="offset points", fontsize=5.5, color=s["colour"]
                    )
                drawn.append((c, t))
                cc, tt = (0.0 if not math.isfinite(v) else v for v in (cci, tci))
                boxes.append((c - cc, c + cc, t - tt, t + tt))
                if policy not in policies:
                    policies.append(policy)
            if drawn:
                anything = True
                _draw_frontier(ax, drawn, boxes)
            _fit_x(ax, [p[0] for p in drawn] + mark_x)
            if unplaced:
                ax.text(
                    0.98,
                    0.97,
                    "no analytic E[C]:\n" + "\n".join(unplaced[:5]),
                    transform=ax.transAxes,
                    ha="right",
                    va="top",
                    fontsize=5.5,
                    color="0.3",
                )
    if not anything and not marked:
        import matplotlib.pyplot as plt

        plt.close(fig)
        return empty_figure(title + where, "pairs of latency and cost values")
    lname = load_label(ds).split(" = ")[0]
    label_grid(
        axes,
        [case_name(c) for c in cases],
        [f"{lname} = {fmt_value(v)}" for v in loads],
        "E[C] (server time per job)",
        "E[T]",
    )
    from matplotlib.lines import Line2D

    handles = policy_handles(policies) + kind_handles(kinds, simulated, confidence_level(ds), ds=ds)
    handles.append(
        Line2D(
            [], [], color="black", lw=0, marker="o", markerfacecolor="none", ms=6, label="on the frontier (intervals)"
        )
    )
    if variants:
        handles.append(Line2D([], [], color="none", label="point labels: " + " / ".join(variants)))
    title += where
    if marked:
        title += "\n(strip under each panel, at the policy's analytic E[C]: x unstable, ? undetermined)"
    finish(fig, title, handles)
    return fig
