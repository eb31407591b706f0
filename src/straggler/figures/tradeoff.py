"""The trade-off figure: E[T] against E[C] with its Pareto frontier."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from ..catalog import CASE_DIMS
from .layout import (
    ESTIMATE_BARS,
    empty_figure,
    finish,
    kind_handles,
    label_grid,
    load_label,
    make_panels,
    policy_handles,
)
from .primitives import draw_verdicts
from .selection import (
    case_name,
    cases_of,
    confidence_level,
    fmt_value,
    left_out_loads,
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


@dataclass
class _Drawn:
    """What the panels of the trade-off figure drew, for its legend and title."""

    kinds: set = field(default_factory=set)
    simulated: bool = False
    marked: bool = False
    anything: bool = False
    policies: list = field(default_factory=list)

    def saw(self, policy) -> None:
        if policy not in self.policies:
            self.policies.append(policy)


def tradeoff_figure(ds: xr.Dataset):
    """The ``tradeoff`` figure: E[T] against E[C] at each load, with the Pareto
    frontier (what it shows, in words: its kind's caption in
    :data:`straggler.catalog.FIGURE_KINDS`)."""
    variants = variant_dims(ds)
    fixed, where = most_estimated(ds, set(variants))
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    cases = cases_of(ds)
    title = "Latency-cost trade-off: E[T] against E[C] (ringed: on the frontier)"
    points = variant_points(sub, variants)
    slots = {str(p): i for i, p in enumerate(sub["policy"].values)}
    fig, axes = make_panels(len(cases), len(loads), sharey="row", sharex=False)
    seen = _Drawn()
    for i, case in enumerate(cases):
        for j, load in enumerate(loads):
            at = sub.sel(dict(zip(CASE_DIMS, case), load=load))
            _tradeoff_panel(axes[i, j], at, points, variants, slots, seen)
    if not seen.anything and not seen.marked:
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
    title += where + left_out_loads(ds)
    if seen.marked:
        title += "\n(strip under each panel, at the policy's analytic E[C]: x unstable, ? undetermined)"
    finish(fig, title, _tradeoff_handles(ds, seen, variants))
    return fig


def _tradeoff_panel(ax, sub: xr.Dataset, points: list, variants: list[str], slots: dict, seen: _Drawn) -> None:
    """One case at one load (``sub``): a point per policy and variant, the verdict mark
    of one without an estimate, the frontier, and the policies without an analytic
    E[C] to place their mark at, named in a corner."""
    drawn: list[tuple[float, float]] = []
    boxes: list[tuple[float, float, float, float]] = []
    unplaced: list[str] = []
    mark_x: list[float] = []
    for policy, sel, label in points:
        at = sub.sel(dict(policy=policy, **sel))
        c, cci, t, tci, source = _estimates(at)
        if not (math.isfinite(c) and math.isfinite(t)):
            _tradeoff_mark(ax, at, policy, sel, variants, slots, seen, mark_x, unplaced)
            continue
        short = short_label(policy, sel, variants) if label else None
        _tradeoff_point(ax, (c, cci, t, tci, source), policy, short, seen)
        drawn.append((c, t))
        cc, tt = (0.0 if not math.isfinite(v) else v for v in (cci, tci))
        boxes.append((c - cc, c + cc, t - tt, t + tt))
        seen.saw(policy)
    if drawn:
        seen.anything = True
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


def _tradeoff_mark(ax, at, policy, sel: dict, variants: list[str], slots: dict, seen: _Drawn, mark_x, unplaced) -> None:
    """A policy without an estimate at this load: its verdict mark at its analytic E[C]
    (noted in ``mark_x``), or, without one, its name in ``unplaced``."""
    v = str(at["verdict"].values.item()) if "verdict" in at else ""
    jobs = float(at["jobs"]) if "jobs" in at else math.nan
    covered = jobs > 0 or (v == "unstable" and math.isfinite(jobs))
    if not (v in VERDICT_MARKS and covered):
        return
    cost = float(at["cost"]) if "cost" in at else math.nan
    if math.isfinite(cost):
        seen.marked |= draw_verdicts(ax, [cost], [v], None, style_of(policy)["colour"], slots[policy])
        mark_x.append(cost)
    else:
        short = short_label(policy, sel, variants)
        unplaced.append(f"{policy}{' ' + short if short else ''} {'x' if v == 'unstable' else '?'}")
    seen.saw(policy)


def _tradeoff_point(ax, estimates: tuple, policy, short: str | None, seen: _Drawn) -> None:
    """One point (E[C], E[T]): the simulation's with CI bars, else the analysis's,
    hollow; ``short``: the variant's values beside it (the legend names the axes;
    None: a point of no variant)."""
    c, cci, t, tci, source = estimates
    s = style_of(policy)
    if source == "simulation":
        ax.errorbar(
            [c],
            [t],
            xerr=[np.nan_to_num(cci)],
            yerr=[np.nan_to_num(tci)],
            color=s["colour"],
            marker=s["marker"],
            **ESTIMATE_BARS,
        )
        seen.simulated = True
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
        seen.kinds |= {k.strip() for k in source.split("/")}
    if short is not None:
        ax.annotate(short, (c, t), xytext=(3, 2), textcoords="offset points", fontsize=5.5, color=s["colour"])


def _tradeoff_handles(ds: xr.Dataset, seen: _Drawn, variants: list[str]) -> list:
    """The legend: the policies, the kinds drawn, the frontier's rings, the labels' axes."""
    from matplotlib.lines import Line2D

    handles = policy_handles(seen.policies) + kind_handles(seen.kinds, seen.simulated, confidence_level(ds), ds=ds)
    handles.append(
        Line2D(
            [], [], color="black", lw=0, marker="o", markerfacecolor="none", ms=6, label="on the frontier (intervals)"
        )
    )
    if variants:
        handles.append(Line2D([], [], color="none", label="point labels: " + " / ".join(variants)))
    return handles
