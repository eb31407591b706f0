"""The decision figure: the SLO's metric against the extra load, a panel per setting,
with the operator's SLO and budget (the study's ``decision`` section) and the answer
(:func:`straggler.decide.decision.answer`) ringed.

One panel holds one setting at one load: a marker per load in one panel would put up to
five points per contender there, their bars crossing, while the answer itself changes
with the load. A study of one setting (an operator's question) gets a column per load; one
of at most :data:`_GRID_SETTINGS` settings gets a column per setting and a row per load (at most four, evenly spread, as the other figures). A larger
one gets a panel per setting at its deciding load (:func:`deciding_load`: the highest
load at which a contender qualifies), in a grid of its setting axes (the last ones that
fit in :data:`_COLUMNS` columns across, e.g. r_slow, the cases down), else wrapped
:data:`_COLUMNS` to a row; at most :data:`_MAX_PANELS` panels, other setting axes taken
at the value with the most estimates. A row or column without a point is left out, and
the title says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import xarray as xr

from ...decide.assumption import at_assumed
from ...decide.decision import Constraints, answer, constraints, decision_table, metric_name
from ...decide.deploy import is_deployable
from ...decide.winners import ORACLES, PointTable
from ..catalog import CASE_DIMS
from .layout import ESTIMATE_BARS, WIDTH, backend, empty_figure, finish, load_label, plain_log_labels, side_label
from .selection import fmt_value, shown_loads
from .style import policy_title, style_of

_GRID_SETTINGS = 4
"""Up to this many settings: a column per setting and a row per load."""

_MAX_PANELS = 24
"""At most this many panels (six rows of four): other setting axes are sliced beyond it."""

_COLUMNS = 4

_LABEL_SIZE = 5.5
"""Point labels, in points."""

FEASIBLE = "#dcefdc"
"""The corner where both constraints hold (a pale green, lighter than any policy's)."""

SLO_STYLE: dict[str, Any] = {"color": "0.15", "ls": "--", "lw": 0.9}
BUDGET_STYLE: dict[str, Any] = {"color": "0.15", "ls": (0, (1, 1.2)), "lw": 1.1}

LEFT_OUT_MARKS = {"unstable": "x", "undetermined": "?", "infinite": "∞", "none": "-"}
"""How a contender that has no finite point is named in its panel's corner note."""


@dataclass(frozen=True)
class Point:
    """One contender in one panel: its extra load and SLO metric with their intervals."""

    name: str
    policy: str
    x: float
    x_low: float
    x_high: float
    y: float
    y_low: float
    y_high: float


@dataclass
class Panel:
    """One setting at one load: its points, the contenders left out, and the answer."""

    index: tuple
    li: int
    points: list[Point] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    answer: dict = field(default_factory=dict)
    over_hedges: set = field(default_factory=set)
    """The contenders surely over the budget of hedges per job (the x axis cannot show it)."""

    @property
    def chosen(self) -> list[str]:
        return [n for n in str(self.answer.get("recommended", "")).split(", ") if n]


def y_criterion(c: Constraints) -> str:
    """The criterion on the y axis: the SLO's quantile (``tail``), or E[T] (``latency``)
    for a mean SLO or none."""
    return "tail" if c.target is not None and c.level is not None else "latency"


def y_name(c: Constraints) -> str:
    """``P99``, ``E[T]``."""
    return metric_name(c.level) if y_criterion(c) == "tail" else "E[T]"


def _place(low: float, high: float, estimate: float) -> float:
    """Where a point sits in its interval: the estimate, clipped into the interval (an
    exact value with a simulated estimate beside it sits at the exact value)."""
    if math.isfinite(estimate):
        return min(max(estimate, low), high)
    return (low + high) / 2


def panel_points(table: PointTable, crit: str, at: tuple) -> tuple[list[Point], list[tuple[str, str]]]:
    """The contenders at one (setting..., load) point with a finite extra load and a
    finite ``crit`` interval, and the others (not the oracles, nor impossible cells) with
    why they are left out (a key of :data:`LEFT_OUT_MARKS`)."""
    xs = {c.name: c for c in table.candidates("extra_load", at)}
    ys = {c.name: c for c in table.candidates(crit, at)}
    present = table.arrays[crit]["present"]
    verdicts = table.arrays["latency"].get("verdict")
    points, left_out = [], []
    for k, name in enumerate(table.policies):
        policy = table.policy_of[k]
        if policy in ORACLES or not bool(present[(*at, k)]):
            continue
        x, y = xs.get(name), ys.get(name)
        ends = [] if x is None or y is None else [x.low, x.high, y.low, y.high]
        if ends and all(math.isfinite(v) for v in ends):
            points.append(
                Point(
                    name,
                    policy,
                    _place(x.low, x.high, x.estimate),
                    x.low,
                    x.high,
                    _place(y.low, y.high, y.estimate),
                    y.low,
                    y.high,
                )
            )
            continue
        verdict = str(verdicts[(*at, k)]) if verdicts is not None else ""
        if verdict in ("unstable", "undetermined"):
            left_out.append((name, verdict))
        elif any(math.isinf(v) for v in ends):
            left_out.append((name, "infinite"))
        else:
            left_out.append((name, "none"))
    return points, left_out


def deciding_load(panels: list[Panel]) -> Panel | None:
    """Of one setting's panels (one per load, increasing), the one a reader needs when
    only one fits: the highest load at which a contender qualifies (where the
    constraints bind hardest and still have an answer), else the lowest load with a
    point (the constraints rule out every contender: it shows by how much), else None."""
    drawn = [p for p in panels if p.points]
    answered = [p for p in drawn if p.chosen]
    if answered:
        return answered[-1]
    return drawn[0] if drawn else None


def _setting_indices(ds: xr.Dataset, table: PointTable) -> tuple[list[tuple], str]:
    """The settings drawn: every one, or, beyond :data:`_MAX_PANELS`, the case axes and
    as many other setting axes as fit, the rest at the value with the most points
    (the title suffix says which)."""
    sizes = [ds.sizes[d] for d in table.dims]
    kept, n = [], 1
    for dim, size in sorted(zip(table.dims, sizes), key=lambda t: t[0] not in CASE_DIMS):
        if n * size <= _MAX_PANELS or dim in CASE_DIMS:
            kept.append(dim)
            n *= size
    fixed: dict[str, int] = {}
    for dim in table.dims:
        if dim not in kept:
            counts = _point_counts(ds, table, dim)
            fixed[dim] = int(np.argmax(counts))
    indices = [index for index in np.ndindex(*sizes) if all(index[table.dims.index(d)] == i for d, i in fixed.items())]
    where = ", ".join(f"{d} = {fmt_value(ds[d].values[i])}" for d, i in fixed.items())
    return [tuple(int(i) for i in index) for index in indices], (f" at {where}" if where else "")


def _point_counts(ds: xr.Dataset, table: PointTable, dim: str) -> np.ndarray:
    """Per value of ``dim``, how many (setting, load, contender) have a finite E[T] interval."""
    high = np.asarray(table.arrays["latency"]["high"], dtype=float)
    finite = np.isfinite(high)
    axis = table.dims.index(dim)
    return finite.sum(axis=tuple(k for k in range(finite.ndim) if k != axis))


def dim_words(ds: xr.Dataset, dims: list[str], values: dict[str, int]) -> str:
    """``pareto, iid, r_slow=0.3``: the values of ``dims`` (indices in ``values``)."""
    out = []
    for dim in dims:
        value = fmt_value(ds[dim].values[values[dim]])
        out.append(value if dim in CASE_DIMS else f"{dim}={value}")
    return ", ".join(out)


def answer_words(panel: Panel, limit: int = 26) -> str:
    """The panel's answer in at most about ``limit`` characters: ``→ CoC d=3``, ``→ tie:
    CoS d=2, CoS d=3``, ``→ none qualifies``, ``→ none (SLO binds)``."""
    a, chosen = panel.answer, panel.chosen
    if not chosen:
        binding = {"slo": "SLO binds", "budget": "budget binds", "both": "both bind"}.get(str(a.get("binding", "")), "")
        return f"→ none ({binding})" if binding else "→ none qualifies"
    if len(chosen) == 1:
        return f"→ {chosen[0]}" + ("" if a.get("decided", True) else " (undecided)")
    words = f"→ tie: {', '.join(chosen)}"
    if len(words) > limit:
        words = f"→ tie of {len(chosen)}: {chosen[0]}, ..."
    return words


@dataclass
class Layout:
    """The panels in rows (None: no panel), the labels of the rows (right) and columns
    (top), and per panel the words its title gives before the answer."""

    rows: list[list[Panel | None]]
    row_labels: list[str]
    col_labels: list[str]
    context: dict[int, str] = field(default_factory=dict)
    """id(panel) -> the words of its title's first line (none: the answer alone)."""
    note: str = ""
    """Said under the figure's title (settings left out)."""


def _split_dims(sizes: dict[str, int]) -> tuple[list[str], list[str]] | None:
    """(row dims, column dims) of a grid of settings over the setting axes that vary
    (``sizes``: how many values each takes, in the dataset's order): the last ones whose
    values fit in :data:`_COLUMNS` columns, the others down the rows; None when the last
    takes more values than that."""
    cols: list[str] = []
    n = 1
    for dim in reversed(list(sizes)):
        if n * sizes[dim] > _COLUMNS:
            break
        cols.insert(0, dim)
        n *= sizes[dim]
    if not cols:
        return None
    return [d for d in sizes if d not in cols], cols


def _empty(p: Panel | None) -> bool:
    return p is None or not p.points


def _without_empty_bands(lay: Layout) -> tuple[Layout, list[str]]:
    """``lay`` without the rows and the columns in which no panel has a point, and the
    labels of those left out."""
    keep_rows = [i for i, row in enumerate(lay.rows) if not all(_empty(p) for p in row)]
    ncols = max((len(row) for row in lay.rows), default=0)
    keep_cols = [j for j in range(ncols) if not all(_empty(lay.rows[i][j]) for i in range(len(lay.rows)))]
    gone = [lay.row_labels[i] for i in range(len(lay.row_labels)) if i not in keep_rows]
    gone += [lay.col_labels[j] for j in range(len(lay.col_labels)) if j not in keep_cols]
    lay.rows = [[lay.rows[i][j] for j in keep_cols] for i in keep_rows]
    lay.row_labels = [lay.row_labels[i] for i in keep_rows] if lay.row_labels else []
    lay.col_labels = [lay.col_labels[j] for j in keep_cols] if lay.col_labels else []
    return lay, [g for g in gone if g]


def layout(ds: xr.Dataset, table: PointTable, settings: list[tuple], by_setting: dict, lname: str) -> Layout:
    """Where each panel goes (see the module docstring): rows and columns without a
    point anywhere are left out, and the title's note says how many panels they held."""
    loads = list(ds["load"].values)

    def load_words(p: Panel) -> str:
        return f"{lname} {fmt_value(loads[p.li])}"

    sizes = {d: len({s[k] for s in settings}) for k, d in enumerate(table.dims)}
    varying = [d for d in table.dims if sizes[d] > 1]
    split = _split_dims({d: sizes[d] for d in varying})
    if len(settings) == 1:  # one system, as an operator's question: the loads across
        shown = [loads.index(v) for v in shown_loads(ds)]
        (only,) = settings
        lay = Layout(
            [[by_setting[only][li] for li in shown]],
            [dim_words(ds, varying, dict(zip(table.dims, only)))] if varying else [],
            [f"{lname} = {fmt_value(loads[li])}" for li in shown],
        )
    elif len(settings) <= _GRID_SETTINGS:
        shown = [loads.index(v) for v in shown_loads(ds)]
        lay = Layout(
            [[by_setting[s][li] for s in settings] for li in shown],
            [f"{lname} = {fmt_value(loads[li])}" for li in shown],
            [dim_words(ds, varying, dict(zip(table.dims, s))) for s in settings],
        )
    elif split is not None:
        chosen = {s: deciding_load(_answered(table, by_setting[s])) for s in settings}
        row_dims, col_dims = split
        at = {s: dict(zip(table.dims, s)) for s in settings}
        row_keys = list(dict.fromkeys(tuple(at[s][d] for d in row_dims) for s in settings))
        col_keys = list(dict.fromkeys(tuple(at[s][d] for d in col_dims) for s in settings))
        grid: list[list[Panel | None]] = [[None] * len(col_keys) for _ in row_keys]
        for s in settings:
            i = row_keys.index(tuple(at[s][d] for d in row_dims))
            j = col_keys.index(tuple(at[s][d] for d in col_dims))
            grid[i][j] = chosen[s] or Panel(s, -1)
        lay = Layout(
            grid,
            [dim_words(ds, row_dims, dict(zip(row_dims, k))) for k in row_keys] if row_dims else [],
            [dim_words(ds, col_dims, dict(zip(col_dims, k))) for k in col_keys],
        )
        lay.context = {id(p): load_words(p) for row in grid for p in row if p is not None and p.li >= 0}
    else:
        chosen = {s: deciding_load(_answered(table, by_setting[s])) for s in settings}
        flat = [p for p in chosen.values() if p is not None]
        lay = Layout([list(flat[k : k + _COLUMNS]) for k in range(0, len(flat), _COLUMNS)], [], [])
        lay.context = {
            id(p): f"{dim_words(ds, varying, dict(zip(table.dims, p.index)))}, {load_words(p)}\n" for p in flat
        }
        missing = len(settings) - len(flat)
        if missing:
            lay.note = f"{missing} setting{'s' if missing > 1 else ''} without a point at any load left out"
        return lay
    lay, gone = _without_empty_bands(lay)
    if gone:
        lay.note = "no point at " + "; ".join(gone)
    return lay


def decision_figure(ds: xr.Dataset):
    """The ``decision`` figure (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    c = constraints(ds)
    if c.any:  # an operator's question: the answer's picture, at the c it assumes (its sweep checks it)
        ds = at_assumed(ds)
    crit = y_criterion(c)
    asked = " and ".join(w.replace("<=", "≤") for w in (c.slo_words(), c.budget_words()) if w)
    title = f"{y_name(c)} against the extra load: the fastest contender" + (f" with {asked}" if asked else "")
    table = decision_table(ds, c)
    settings, where = _setting_indices(ds, table)
    by_setting: dict[tuple, list[Panel]] = {}
    for index in settings:
        for li in range(ds.sizes["load"]):
            points, left_out = panel_points(table, crit, (*index, li))
            over = {
                x.name for x in table.candidates("hedges", (*index, li)) if c.hedges is not None and x.low > c.hedges
            }
            by_setting.setdefault(index, []).append(Panel(index, li, points, left_out, over_hedges=over))
    lname = load_label(ds).split(" = ")[0]
    lay = layout(ds, table, settings, by_setting, lname)
    if not any(p is not None and p.points for row in lay.rows for p in row):
        return empty_figure(title + where, f"contender with a finite extra load and {y_name(c)}")
    for row in lay.rows:
        _answered(table, [p for p in row if p is not None and p.li >= 0])
    if lay.note:
        where += f"\n({lay.note})"
    return _draw(c, lay, title + where, table)


def _answered(table: PointTable, panels: list[Panel]) -> list[Panel]:
    """``panels`` with their answers (computed once)."""
    for p in panels:
        if not p.answer:
            p.answer = answer(table, p.index, p.li)
    return panels


@dataclass
class _Seen:
    policies: list = field(default_factory=list)
    left_out: set = field(default_factory=set)
    ringed: bool = False


def _draw(c: Constraints, lay: Layout, title: str, table: PointTable):
    plt = backend()
    nrows, ncols = len(lay.rows), max(len(row) for row in lay.rows)
    # a question's few panels are drawn large: at least as large as the legend under them
    pw = min(_PANEL_WIDTH.get(ncols, 2.35), WIDTH / ncols)
    ph = max(1.9, 0.78 * pw) if nrows == 1 else 1.9
    fig, axes = plt.subplots(nrows, ncols, figsize=(pw * ncols, ph * nrows + 0.3), squeeze=False)
    seen = _Seen()
    labels = []
    ylabel = y_name(c) + (" (response time" if y_criterion(c) == "tail" else " (mean response time")
    ylabel += f", {c.unit})" if c.unit else ")"
    for i, row in enumerate(lay.rows):
        for j in range(ncols):
            ax = axes[i, j]
            panel = row[j] if j < len(row) else None
            if panel is None:
                ax.set_axis_off()
                continue
            head = lay.col_labels[j] + "\n" if i == 0 and lay.col_labels and lay.col_labels[j] else ""
            if panel.li < 0:
                ax.text(
                    0.5, 0.5, "no point\nat any load", ha="center", va="center", transform=ax.transAxes, color="0.4"
                )
                ax.set_xticks([])
                ax.set_yticks([])
                ax.set_title(head, fontsize=6.5)
                continue
            labels.append((ax, _draw_panel(ax, panel, c, seen)))
            context = lay.context.get(id(panel), "")
            sep = "" if not context or context.endswith("\n") else " "
            # about 3.6 pt a character at 6.5 pt
            limit = int(pw * 72 / 3.6) - (len(context) + 1 if sep else 0)
            ax.set_title(f"{head}{context}{sep}{answer_words(panel, limit)}", fontsize=6.5)
            below = lay.rows[i + 1][j] if i + 1 < nrows and j < len(lay.rows[i + 1]) else None
            if below is None or below.li < 0:
                ax.set_xlabel("extra load E[C]/E[X] - 1")
            if j == 0:
                ax.set_ylabel(ylabel)
        if lay.row_labels:
            last = max(k for k, p in enumerate(row) if p is not None)
            side_label(axes[i, last], lay.row_labels[i])
    finish(fig, title, [])
    _legend(fig, _handles(c, seen, table))
    for ax, items in labels:
        place_labels(ax, items, (c.target, c.budget))
    return fig


_PANEL_WIDTH = {1: 4.6, 2: 3.5, 3: 2.35}
"""The width of a panel (inches) when a row has that many: one answer's panel large."""


def _legend(fig, handles: list) -> None:
    """One legend under the panels, in as many columns (four at most) as fit in the
    figure's width."""
    renderer = fig.canvas.get_renderer()
    width = fig.get_window_extent(renderer).width
    for ncol in (4, 3, 2, 1):
        legend = fig.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=ncol,
            frameon=False,
            handlelength=2.6,
            columnspacing=1.0,
        )
        if ncol == 1 or legend.get_window_extent(renderer).width <= width:
            return
        legend.remove()


def _note(left_out: list[tuple[str, str]], width: int = 34, lines: int = 3) -> list[str]:
    """The contenders left out of a panel, by reason, a name never cut: ``x FRed, CoC
    d=2``, ``? Rer``; at most ``lines`` lines of about ``width`` characters."""
    out = []
    for why, mark in LEFT_OUT_MARKS.items():
        names = [n for n, w in left_out if w == why]
        line = mark
        for k, name in enumerate(names):
            word = f"{name}," if k < len(names) - 1 else name
            if len(line) + 1 + len(word) > width and line.strip() != mark:
                out.append(line)
                line = "  "
            line += " " + word
        if names:
            out.append(line)
    if len(out) > lines:
        out = out[: lines - 1] + [f"(+ more: {len(left_out)} in all)"]
    return out


def _draw_panel(ax, panel: Panel, c: Constraints, seen: _Seen) -> list:
    """The panel's constraints, feasible corner and points, and the note of the
    contenders left out (in headroom above the points); returns the point labels to
    place once the layout is final."""
    pts = panel.points
    note = _note(panel.left_out)
    xlim = _x_range(pts, c)
    ylim = _y_range(pts, c)
    if note:  # headroom for the note: about 7 pt a line of a panel about 95 pt high
        f = min(0.5, (7.0 * len(note) + 4.0) / 95.0)
        lo, hi = math.log(ylim[0]), math.log(ylim[1])
        ylim = (ylim[0], math.exp(hi + (hi - lo) * f / (1 - f)))
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    plain_log_labels(ax, np.asarray(ylim))
    if c.target is not None or c.budget is not None:
        from matplotlib.patches import Rectangle

        right = c.budget if c.budget is not None else xlim[1]
        top = c.target if c.target is not None else ylim[1]
        ax.add_patch(Rectangle((xlim[0], ylim[0]), right - xlim[0], top - ylim[0], facecolor=FEASIBLE, lw=0, zorder=0))
    if c.target is not None:
        ax.axhline(c.target, zorder=2, **SLO_STYLE)
    if c.budget is not None:
        ax.axvline(c.budget, zorder=2, **BUDGET_STYLE)
    chosen = set(panel.chosen)
    items = []
    for p in pts:
        s = style_of(p.policy)
        ax.errorbar(
            [p.x],
            [p.y],
            xerr=[[p.x - p.x_low], [p.x_high - p.x]],
            yerr=[[p.y - p.y_low], [p.y_high - p.y]],
            color=s["colour"],
            marker=s["marker"],
            **ESTIMATE_BARS,
            **_face(p.policy),
        )
        if p.name in chosen:
            ax.scatter([p.x], [p.y], s=95, facecolors="none", edgecolors="black", lw=1.1, zorder=5)
            seen.ringed = True
        if p.policy not in seen.policies:
            seen.policies.append(p.policy)
        # a contender over the hedges budget is named so: the extra load on x cannot show it
        named = replace(p, name=f"{p.name} (hedges > budget)") if p.name in panel.over_hedges else p
        items.append((named, s["colour"], p.name in chosen))
    if note:
        seen.left_out |= {why for _, why in panel.left_out}
        ax.text(
            0.98,
            0.975,
            "\n".join(note),
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=5,
            color="0.3",
            zorder=7,
            linespacing=1.15,
        )
    return items


def _x_range(pts: list[Point], c: Constraints) -> tuple[float, float]:
    """The extra loads of the intervals, 0 (no redundancy) and the budget."""
    values = [0.0] + [v for p in pts for v in (p.x_low, p.x_high)]
    if c.budget is not None:
        values.append(c.budget)
    lo, hi = min(values), max(values)
    span = hi - lo if hi > lo else 0.1
    # the left margin is wide enough for the labels of points on the budget line's left
    return lo - 0.15 * span, hi + 0.3 * span


def _y_range(pts: list[Point], c: Constraints) -> tuple[float, float]:
    """The points and their intervals (an interval a decade beyond the points runs off
    the panel instead of stretching it) and the SLO target, on a log axis."""
    ys = [p.y for p in pts if p.y > 0]
    if c.target is not None:
        ys.append(c.target)
    if not ys:
        return 0.1, 10.0
    lo, hi = min(ys), max(ys)
    ends = [v for p in pts for v in (p.y_low, p.y_high) if lo / 10 <= v <= hi * 10 and v > 0]
    lo, hi = min([lo, *ends]), max([hi, *ends])
    if hi / lo < 1.5:
        mid = math.sqrt(hi * lo)
        lo, hi = mid / 1.25, mid * 1.25
    return lo / 1.45, hi * 1.45


def _face(policy: str) -> dict:
    """A contender a client alone can run is drawn filled, one that needs the servers'
    help hollow (:mod:`straggler.decide.deploy`)."""
    return {} if is_deployable(policy) else {"markerfacecolor": "white"}


def _handles(c: Constraints, seen: _Seen, table: PointTable) -> list:
    """The legend: the policies spelled out, the constraints, the feasible corner, the
    answer's ring, the bars, the marks of the contenders left out."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = []
    for p in seen.policies:
        s = style_of(p)
        title = policy_title(p)
        handles.append(
            Line2D(
                [],
                [],
                color=s["colour"],
                marker=s["marker"],
                ls="none",
                ms=4.5,
                label=f"{p} – {title.split(' (')[0]}" if title else p,
                **_face(p),
            )
        )
    if any(not is_deployable(p) for p in seen.policies):
        handles.append(
            Line2D(
                [],
                [],
                color="0.3",
                marker="o",
                ls="none",
                ms=4.5,
                markerfacecolor="white",
                label="hollow: needs the servers",
            )
        )
    if c.target is not None:
        handles.append(Line2D([], [], label=f"SLO: {c.slo_words().replace('<=', '≤')}", **SLO_STYLE))
    if c.budget is not None:
        handles.append(Line2D([], [], label=f"budget: {c.budget_words().replace('<=', '≤')}", **BUDGET_STYLE))
    if c.target is not None or c.budget is not None:
        what = (
            "meets both"
            if c.target is not None and c.budget is not None
            else "meets the SLO"
            if c.target is not None
            else "within the budget"
        )
        handles.append(Patch(facecolor=FEASIBLE, edgecolor="none", label=what))
    if seen.ringed:
        handles.append(
            Line2D(
                [],
                [],
                color="none",
                marker="o",
                ms=8,
                markerfacecolor="none",
                markeredgecolor="black",
                label="the answer",
            )
        )
    handles.append(
        Line2D(
            [], [], color="0.35", lw=0.7, marker="|", ms=4, label=f"bars: {table.level:.0%} CI, bound or exact value"
        )
    )
    if seen.left_out:
        marks = ", ".join(f"{LEFT_OUT_MARKS[w]} {w}" for w in LEFT_OUT_MARKS if w in seen.left_out)
        handles.append(Line2D([], [], color="none", label=f"not drawn: {marks}"))
    return handles


def place_labels(ax, items: list, lines: tuple = (None, None)) -> None:
    """Name each point beside it, where the name covers the least of the other names,
    the markers, the notes, the bars and the constraint lines (in that order of weight)
    and stays in the panel: right, left, above, below, the corners, then further out
    with a thin leader line; the answer's name in bold, every name with a white halo.
    ``items``: (:class:`Point`, colour, bold); ``lines``: the SLO target and the budget
    (None: no line)."""
    if not items:
        return
    from matplotlib import patheffects

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    scale = fig.dpi / 72.0
    box = ax.get_window_extent(renderer)
    xy = [ax.transData.transform((p.x, p.y)) for p, *_ in items]
    obstacles: list[tuple[tuple, float]] = []
    for (_, _, bold), (px, py) in zip(items, xy):
        half = (5.0 if bold else 3.0) * scale
        obstacles.append(((px - half, py - half, px + half, py + half), 2.0))
    markers = len(obstacles)
    for note in list(ax.texts):  # the corner's note of the contenders not drawn
        e = note.get_window_extent(renderer)
        obstacles.append(((e.x0, e.y0, e.x1, e.y1), 3.0))
    bar = 0.8 * scale
    for p, *_ in items:
        (x0, y0), (x1, y1) = ax.transData.transform([(p.x_low, p.y), (p.x_high, p.y)])
        obstacles.append(((x0, y0 - bar, x1, y1 + bar), 0.35))
        (x0, y0), (x1, y1) = ax.transData.transform([(p.x, max(p.y_low, 1e-300)), (p.x, p.y_high)])
        obstacles.append(((x0 - bar, max(y0, box.y0), x1 + bar, min(y1, box.y1)), 0.35))
    target, budget = lines
    if target is not None:
        y = ax.transData.transform((items[0][0].x, target))[1]
        obstacles.append(((box.x0, y - bar, box.x1, y + bar), 0.2))
    if budget is not None:
        x = ax.transData.transform((budget, items[0][0].y))[0]
        obstacles.append(((x - bar, box.y0, x + bar, box.y1), 0.2))
    near = [(5.0, 0.0), (-5.0, 0.0), (0.0, 5.0), (0.0, -5.0), (4.0, 4.0), (4.0, -4.0), (-4.0, 4.0), (-4.0, -4.0)]
    near += [(5.0, 2.5), (5.0, -2.5), (-5.0, 2.5), (-5.0, -2.5)]
    candidates = [(dx, dy, 0) for dx, dy in near]
    far = ((1, 2.2), (2, 3.4), (3, 4.6), (4, 6.0), (5, 7.6), (6, 9.4))
    candidates += [(dx * k, dy * k, level) for level, k in far for dx, dy in near]
    order = sorted(range(len(items)), key=lambda k: (-items[k][2], -xy[k][1]))
    placed: list[tuple] = []  # the names' boxes so far: a name never covers another
    gap = 1.0 * scale
    crowded = []
    for k in order:
        p, colour, bold = items[k]
        px, py = xy[k]
        weight = "bold" if bold else "normal"
        probe = ax.text(0, 0, p.name, fontsize=_LABEL_SIZE, fontweight=weight)
        ext = probe.get_window_extent(renderer)
        probe.remove()
        w, h = ext.width, ext.height
        best, best_cost = None, math.inf
        for dx, dy, level in candidates:
            if bold:  # clear of the ring
                dx, dy = dx * 1.3, dy * 1.3
            ox, oy = dx * scale, dy * scale
            left = px + ox if dx > 0 else px + ox - w if dx < 0 else px - w / 2
            bottom = py + oy if dy > 0 else py + oy - h if dy < 0 else py - h / 2
            rect = (left, bottom, left + w, bottom + h)
            if any(_overlap((rect[0] - gap, rect[1] - gap, rect[2] + gap, rect[3] + gap), r) for r in placed):
                continue
            cost = 0.1 * level * w * h + 4.0 * _outside(rect, box)
            cost += sum(wt * _overlap(rect, o) for n, (o, wt) in enumerate(obstacles) if n != k or n >= markers)
            if cost < best_cost - 1e-9:
                best, best_cost = (dx, dy, level, rect), cost
            if cost == 0:
                break
        if best is None:  # every place within reach covers a name: named in the panel's note instead
            crowded.append(p.name)
            continue
        dx, dy, level, rect = best
        obstacles.append((rect, 3.0))
        placed.append(rect)
        ax.annotate(
            p.name,
            (p.x, p.y),
            xytext=(dx, dy),
            textcoords="offset points",
            ha="left" if dx > 0 else "right" if dx < 0 else "center",
            va="bottom" if dy > 0 else "top" if dy < 0 else "center",
            fontsize=_LABEL_SIZE,
            fontweight=weight,
            color=colour,
            zorder=6,
            path_effects=[patheffects.withStroke(linewidth=1.6, foreground="white")],
            arrowprops={"arrowstyle": "-", "color": colour, "lw": 0.4, "shrinkA": 0, "shrinkB": 3} if level else None,
        )
    if crowded:
        ax.set_xlabel(ax.get_xlabel() + "\n(not named, too crowded: " + ", ".join(crowded) + ")", fontsize=6)


def _overlap(a: tuple, b: tuple) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _outside(rect: tuple, box) -> float:
    """The area of ``rect`` outside the panel's box."""
    inside = _overlap(rect, (box.x0, box.y0, box.x1, box.y1))
    return (rect[2] - rect[0]) * (rect[3] - rect[1]) - inside
