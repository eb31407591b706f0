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
    log_y,
    make_panels,
    policy_handles,
)
from .primitives import draw_verdicts, strip_slots
from .selection import (
    case_name,
    cases_of,
    confidence_level,
    fmt_value,
    left_out_loads,
    left_out_values,
    most_estimated,
    short_label,
    shown_loads,
    shown_values,
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


COLUMN_AXIS = "r_slow"
"""The system axis the trade-off is drawn over where a study sweeps it: the slow pool's
speed is what makes redundancy cost server time (at r_slow = 1 every policy's E[C] is
about one job's size, and the trade-off is hardly one)."""


@dataclass
class _Columns:
    """The slice the trade-off figure draws: a column per value of ``dim`` (r_slow, or
    the load), every other grid dimension at ``fixed`` (the load among them when the
    columns are r_slow), and the title's words for it (``where``, ``why``)."""

    dim: str
    values: list
    fixed: dict
    where: str
    why: str = ""


def tradeoff_columns(ds: xr.Dataset, variants: list[str]) -> _Columns:
    """Where a study sweeps r_slow, a column per value of it (at most four) at one load
    (:func:`estimated_load`); else a column per load (at most four). Every other system
    axis is at the value with the most simulated estimates."""
    if ds.sizes.get(COLUMN_AXIS, 0) > 1:
        fixed, where = most_estimated(ds, set(variants) | {COLUMN_AXIS})
        values = list(shown_values(ds, COLUMN_AXIS))
        load = estimated_load(ds.sel(fixed), COLUMN_AXIS, values)
        at = [f"{load_label(ds).split(' = ')[0]} = {fmt_value(load)}", where.removeprefix(" at ")]
        where = " at " + ", ".join(a for a in at if a) + left_out_values(ds, COLUMN_AXIS)
        why = f"the heaviest load at which half the policies have an estimate at every {COLUMN_AXIS}"
        return _Columns(COLUMN_AXIS, values, {**fixed, "load": load}, where, why)
    fixed, where = most_estimated(ds, set(variants))
    return _Columns("load", list(shown_loads(ds)), fixed, where + left_out_loads(ds))


def estimated_load(sub: xr.Dataset, dim: str, values: list) -> float:
    """The load to draw ``dim``'s ``values`` at: the heaviest at which, at each value,
    at least half the points (policies, cases, variants) have both an E[T] and an E[C]
    (:func:`_estimated`); the one with the most of them where no load has that many."""
    est = _estimated(sub).sel({dim: values})
    share = est.mean([d for d in est.dims if d not in (dim, "load")])
    loads = np.sort(sub["load"].values)
    enough = [v for v in loads if bool((share.sel(load=v) >= 0.5).all())]
    if enough:
        return float(enough[-1])
    counts = est.sum([d for d in est.dims if d != "load"])
    return float(counts["load"].values[int(np.argmax(counts.values))])


def _estimated(sub: xr.Dataset) -> xr.DataArray:
    """Where a point has an E[T] and an E[C] to draw: simulated ones, or, in a study
    that simulates nothing, the analysis's."""

    def finite(name: str) -> xr.DataArray:
        return xr.apply_ufunc(np.isfinite, sub[name])

    if "latency_mean" in sub and "cost_mean" in sub:
        simulated = finite("latency_mean") & finite("cost_mean")
        if simulated.any():
            return simulated
    return finite("latency_approx") & finite("cost")


def tradeoff_figure(ds: xr.Dataset):
    """The ``tradeoff`` figure: E[T] against E[C] at each r_slow (or each load), with
    the Pareto frontier (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    variants = variant_dims(ds)
    columns = tradeoff_columns(ds, variants)
    sub = ds.sel(columns.fixed)
    cases = cases_of(ds)
    by = f" by {columns.dim}" if columns.dim != "load" else ""
    title = f"Latency-cost trade-off{by}: E[T] against E[C] (ringed: on the frontier)"
    points = variant_points(sub, variants)
    slots = strip_slots(sub)
    fig, axes = make_panels(len(cases), len(columns.values), sharey="row", sharex=False)
    seen = _Drawn()
    for i, case in enumerate(cases):
        for j, value in enumerate(columns.values):
            at = sub.sel({**dict(zip(CASE_DIMS, case)), columns.dim: value})
            _tradeoff_panel(axes[i, j], at, points, variants, slots, seen)
    if not seen.anything and not seen.marked:
        import matplotlib.pyplot as plt

        plt.close(fig)
        return empty_figure(title + columns.where, "pairs of latency and cost values")
    log_y(axes)  # E[T] spans decades across r_slow (and loads): a point near 1 stays readable
    name = load_label(ds).split(" = ")[0] if columns.dim == "load" else columns.dim
    label_grid(
        axes,
        [case_name(c) for c in cases],
        [f"{name} = {fmt_value(v)}" for v in columns.values],
        "E[C] (server time per job)",
        "E[T]",
    )
    notes = [columns.why] if columns.why else []
    if seen.marked:
        notes.append("strip under each panel, at the policy's analytic E[C]: x unstable, ? undetermined")
    title += columns.where + "".join(f"\n({note})" for note in notes)
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
        seen.marked |= draw_verdicts(ax, [cost], [v], None, style_of(policy)["colour"], slots.get(policy, 0))
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
