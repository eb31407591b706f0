"""Figures of a study dataset (seaborn; PNG and SVG side by side).

Every figure has one line per policy and one row of panels per
(distribution, dependence) case. A second swept axis with a few values
(``r_slow`` in a ``types.p1`` sweep, say) becomes the panel columns, as in the
threshold paper's figures; every other dimension is sliced at its first value
and the title says where.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .catalog import BASE_FIGURES, figure_names  # noqa: F401  (the names the rules declare)
from .catalog import NAMED_AXES as _NAMED
from .catalog import numeric as _numeric

_MAX_LOAD_PANELS = 4
"""Latency against another axis shows at most this many loads (evenly spread)."""

_MAX_COLUMNS = 4
_CASE = "case"


def load_label(ds: xr.Dataset) -> str:
    """The load axis label: rho~ when the study's loads are the PS paper's
    redundancy load (``load_basis: redundancy``), else the nominal load."""
    if ds.attrs.get("load_basis", "nominal") == "redundancy":
        return "load rho~ = lambda d E[X_min] / N"
    return "load"


def policy_colours() -> dict:
    """One fixed colour per canonical policy, the same in every figure of every study."""
    import seaborn as sns

    from .policies import POLICIES

    return dict(zip(POLICIES, sns.color_palette("tab10", n_colors=len(POLICIES))))


VERDICT_MARKS = {"unstable": "x", "undetermined": "$?$"}
"""How a simulated load without an estimate is drawn: a mark at the foot of the panel
(x: unstable, ?: undetermined), never a point on the curve."""
VERDICT_NOTE = "marks at the foot: x unstable, ? undetermined (no estimate); ∞ infinite mean"


def _draw_verdicts(ax, part: pd.DataFrame, x: str, colour, slot: int = 0) -> bool:
    """Mark the loads of ``part`` (columns ``x``, ``verdict`` and optionally
    ``mean_kind``) that have no finite estimate, in row ``slot`` at the foot of the
    panel (one row per series, so that marks of several series do not hide each
    other); True if anything was drawn."""
    drawn = False
    if "verdict" not in part:
        return drawn
    for verdict, marker in VERDICT_MARKS.items():
        at = part[part["verdict"] == verdict]
        if len(at):
            ax.scatter(at[x], np.full(len(at), 0.03 + 0.045 * slot),
                       transform=ax.get_xaxis_transform(),
                       marker=marker, s=28, color=colour, lw=1.0, zorder=6, clip_on=False)
            drawn = True
    if "mean_kind" in part:
        at = part[part["mean_kind"] == "infinite"]
        if len(at):
            ax.scatter(at[x], np.full(len(at), 0.95), transform=ax.get_xaxis_transform(),
                       marker="$\\infty$", s=60, color=colour, zorder=6, clip_on=False)
            drawn = True
    return drawn


def _backend():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(context="paper", style="whitegrid")
    return plt, sns


def _grid_dims(ds: xr.Dataset) -> list[str]:
    return [d for d in ds["lambda_max"].dims if d not in ("policy", "distribution", "dependence")]


def _column_axis(ds: xr.Dataset, x: str) -> str | None:
    """A second swept axis with a few values, shown as panel columns."""
    for dim in _grid_dims(ds):
        if dim != x and 1 < ds.sizes[dim] <= _MAX_COLUMNS:
            return dim
    return None


def _frame(ds: xr.Dataset, var: str, x: str):
    """Long-form data of ``var`` against ``x``; returns (frame, column axis, title suffix)."""
    col = _column_axis(ds, x)
    keep = {x, col, "load"} if var in ("rho", "latency_approx") else {x, col}
    fixed = {d: ds[d].values[0] for d in _grid_dims(ds) if d not in keep}
    sub = ds[var].sel(fixed)
    df = sub.to_dataframe().reset_index()
    kind = f"{var}_kind"
    if kind in ds:
        df["kind"] = ds[kind].sel(fixed).broadcast_like(sub).transpose(*sub.dims).values.ravel()
    df[_CASE] = df["distribution"].astype(str) + ", " + df["dependence"].astype(str)
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return df, col, (f" at {where}" if where else "")


def _fmt(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def _facets(df, x: str, y: str, title: str, ylabel: str, col: str | None = None,
            logy: bool = False):
    plt, sns = _backend()
    df = df[np.isfinite(df[y].astype(float))]
    if df.empty:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.text(0.5, 0.5, f"no {y} values in this study\n(not computed for these policies)",
                ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        fig.suptitle(title)
        return fig
    # one panel per case (wrapped) or, with a column axis, one row of panels per case;
    # each case keeps its own y scale, since bounds differ by an order of magnitude
    layout = (
        {"col": _CASE, "col_wrap": min(2, df[_CASE].nunique())}
        if col is None else {"row": _CASE, "col": col}
    )
    grid = sns.relplot(
        data=df, x=x, y=y, hue="policy", style="policy", kind="line", markers=True,
        dashes=False, height=2.6, aspect=1.3, palette=policy_colours(),
        facet_kws={"sharey": False if col is None else "row", "margin_titles": col is not None},
        **layout,
    )
    grid.set_axis_labels(x, ylabel)
    if logy:
        _log_y(grid.axes.flat)
    two_lines = _mark_bounds(grid, df, x, y, col)
    if two_lines:
        title += "\n(circled: a bound only, the policy can do no better)"
    grid.figure.suptitle(title, y=1.06 if two_lines else 1.02)
    return grid.figure


def _log_y(axes) -> None:
    """A log y axis on each panel that has a positive value (a panel without one,
    e.g. a case the analysis does not cover, keeps its linear axis: matplotlib
    cannot place log ticks there)."""
    for ax in axes:
        ys = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]
        ys += [np.asarray(c.get_offsets(), dtype=float)[:, 1] for c in ax.collections
               if len(c.get_offsets())]
        values = np.concatenate(ys) if ys else np.empty(0)
        if (np.isfinite(values) & (values > 0)).any():
            ax.set_yscale("log")


#: kinds of lambda_max and cost that are one-sided: circled in the figures
BOUND_KINDS = ("necessary", "sufficient", "lower_bound", "upper_bound")


def _mark_bounds(grid, df, x: str, y: str, col: str | None) -> bool:
    """Circle the points whose value is only a bound (the ``kind`` column)."""
    if "kind" not in df:
        return False
    bound = df[df["kind"].isin(BOUND_KINDS)]
    if bound.empty:
        return False
    for key, ax in grid.axes_dict.items():
        if col is None:
            part = bound[bound[_CASE] == key]
        else:
            row, column = key
            part = bound[(bound[_CASE] == row) & (bound[col] == column)]
        ax.scatter(part[x], part[y], s=90, facecolors="none", edgecolors="0.15", lw=0.9,
                   zorder=5)
    return True


def stability_figure(ds: xr.Dataset, x: str = "r_slow"):
    """lambda_max against ``x``, one line per policy."""
    df, col, where = _frame(ds, "lambda_max", x)
    units = "rho~ units" if ds.attrs.get("load_basis", "nominal") == "redundancy" else "load units"
    return _facets(df, x, "lambda_max", f"Stability bound (analysis){where}",
                   f"lambda_max ({units})", col)


def load_figure(ds: xr.Dataset):
    """Effective load of the busiest server against the nominal load."""
    df, col, where = _frame(ds, "rho", "load")
    fig = _facets(df, "load", "rho", f"Effective load of the busiest server (analysis){where}",
                  "rho", col)
    for ax in fig.axes:
        if ax.get_xlabel() == "load":
            ax.set_xlabel(load_label(ds))
    return fig


def cost_figure(ds: xr.Dataset):
    """Expected server time per job against r_slow, or against the first other swept
    numeric axis (d, say) when r_slow has one value."""
    x = "r_slow"
    if ds.sizes["r_slow"] == 1:
        swept = [d for d in _grid_dims(ds) if ds.sizes[d] > 1 and ds[d].dtype.kind in "if"]
        x = swept[0] if swept else x
    df, col, where = _frame(ds, "cost", x)
    return _facets(df, x, "cost", f"Server time per job (analysis){where}",
                   "E[server time per job]", col)


def latency_figure(ds: xr.Dataset):
    """Mean response time against load (log scale): the analysis as solid lines, the
    simulation as dashed lines with markers, one colour per policy; a simulated load
    that is unstable or undetermined has no estimate and gets a mark at the foot of
    its panel instead (:data:`VERDICT_MARKS`)."""
    frames = []
    for var, source in (("latency_approx", "analysis"), ("latency_mean", "simulation")):
        df, col, where = _frame(ds, var, "load")
        frames.append(df.rename(columns={var: "latency"}).assign(source=source))
    df = pd.concat(frames, ignore_index=True)
    df = df[np.isfinite(df["latency"].astype(float))]
    title = f"Mean response time{where}"
    if df.empty:
        return _facets(df.assign(latency=[]), "load", "latency", title, "E[T]")
    plt, sns = _backend()
    layout = (
        {"col": _CASE, "col_wrap": min(2, df[_CASE].nunique())}
        if col is None else {"row": _CASE, "col": col}
    )
    grid = sns.relplot(
        data=df, x="load", y="latency", hue="policy", style="source", kind="line",
        markers={"analysis": ".", "simulation": "o"}, dashes={"analysis": "", "simulation": (3, 2)},
        height=2.6, aspect=1.3, palette=policy_colours(),
        facet_kws={"sharey": False if col is None else "row", "margin_titles": col is not None},
        **layout,
    )
    _log_y(grid.axes.flat)
    if _mark_simulated_verdicts(ds, grid, col):
        title += f"\n({VERDICT_NOTE})"
    grid.set_axis_labels(load_label(ds), "E[T]")
    grid.figure.suptitle(title, y=1.06 if "\n" in title else 1.02)
    return grid.figure


def _mark_simulated_verdicts(ds: xr.Dataset, grid, col: str | None) -> bool:
    """Verdict marks on a latency-against-load facet grid made from :func:`_frame`."""
    if "verdict" not in ds or "jobs" not in ds:
        return False
    df, _, _ = _frame(ds, "verdict", "load")
    jobs, _, _ = _frame(ds, "jobs", "load")
    kind, _, _ = _frame(ds, "latency_mean_kind", "load")
    df["mean_kind"] = kind["latency_mean_kind"].values
    # only loads the simulation covered (ran, or skipped above an unstable one)
    simulated = ds["jobs"].notnull().any("load")
    df = df[(jobs["jobs"].values > 0) | (df["verdict"] == "unstable")]
    colours = policy_colours()
    slots = {p: i for i, p in enumerate(str(v) for v in ds["policy"].values)}
    drawn = False
    for key, ax in grid.axes_dict.items():
        if col is None:
            part = df[df[_CASE] == key]
        else:
            row, column = key
            part = df[(df[_CASE] == row) & (df[col] == column)]
        for policy, sub in part.groupby("policy"):
            if not bool(simulated.sel(policy=policy).any()):
                continue
            drawn |= _draw_verdicts(ax, sub, "load", colours.get(policy, "0.3"),
                                    slots[str(policy)])
    return drawn


def _confidence(ds: xr.Dataset) -> float:
    """The CI level of the study (its config travels in the dataset attrs)."""
    import yaml

    try:
        return float(yaml.safe_load(ds.attrs["config"])["simulation"]["confidence"])
    except (KeyError, TypeError, ValueError, yaml.YAMLError):
        return 0.95  # the config default


def _shown_loads(ds: xr.Dataset) -> np.ndarray:
    loads = ds["load"].values
    if len(loads) <= _MAX_LOAD_PANELS:
        return loads
    return loads[np.unique(np.linspace(0, len(loads) - 1, _MAX_LOAD_PANELS).round().astype(int))]


def _with_verdicts(frame: pd.DataFrame, sub: xr.Dataset) -> pd.DataFrame:
    """``frame`` (one row per point of ``sub``'s variables, in their order) with the
    columns ``verdict`` and ``mean_kind`` for the loads the simulation covered
    (``""`` elsewhere: nothing to mark)."""
    if "verdict" not in sub or "jobs" not in sub:
        return frame
    shape = sub["latency_mean"].dims
    verdict = sub["verdict"].transpose(*shape).values.ravel().astype(object)
    jobs = sub["jobs"].transpose(*shape).values.ravel()
    covered = (jobs > 0) | ((verdict == "unstable") & np.isfinite(jobs))
    frame = frame.copy()
    frame["verdict"] = np.where(covered, verdict, "")
    if "latency_mean_kind" in sub:
        kind = sub["latency_mean_kind"].transpose(*shape).values.ravel().astype(object)
        frame["mean_kind"] = np.where(covered, kind, "")
    return frame


def _latency_frame(ds: xr.Dataset, keep: set) -> tuple[pd.DataFrame, str]:
    """Analysis and simulation (with CI half-widths) in long form, every grid
    dimension outside ``keep`` sliced at its first value; returns (frame, title suffix)."""
    fixed = {d: ds[d].values[0] for d in _grid_dims(ds) if d not in keep}
    sub = ds.sel(fixed).sel(load=_shown_loads(ds))
    sim = sub[["latency_mean", "latency_mean_ci"]].to_dataframe().reset_index()
    sim = sim.rename(columns={"latency_mean": "latency", "latency_mean_ci": "ci"})
    sim = _with_verdicts(sim, sub)
    ana = sub["latency_approx"].to_dataframe().reset_index().rename(
        columns={"latency_approx": "latency"})
    parts = [ana.assign(source="analysis", ci=np.nan), sim.assign(source="simulation")]
    if "latency_lower" in sub and np.isfinite(sub["latency_lower"].values).any():
        low = sub["latency_lower"].to_dataframe().reset_index().rename(
            columns={"latency_lower": "latency"})
        parts.append(low.assign(source="analysis, lower bound", ci=np.nan))
    df = pd.concat(parts, ignore_index=True)
    # an infinite bound (overload of the bound system) or a missing value stays as a gap
    # in its line: dropping the row would draw a straight line across it
    df["latency"] = df["latency"].astype(float).where(np.isfinite(df["latency"].astype(float)))
    df[_CASE] = df["distribution"].astype(str) + ", " + df["dependence"].astype(str)
    df["load_panel"] = [f"{load_label(ds).split(' = ')[0]} = {_fmt(v)}" for v in df["load"]]
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return df, (f" at {where}" if where else "")


def _empty(title: str, what: str):
    plt, _ = _backend()
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.text(0.5, 0.5, f"no {what} in this study", ha="center", va="center",
            transform=ax.transAxes)
    ax.set_axis_off()
    fig.suptitle(title)
    return fig


def latency_vs_figure(ds: xr.Dataset, x: str):
    """Mean response time against a swept axis (``d``, ``FJ.k``), one row of panels
    per (distribution, dependence) case and one column per load (at most four): the
    analysis as solid lines (a lower bound dotted), the simulation dashed with its CI
    as error bars (log y, as latencies near saturation span orders of magnitude)."""
    df, where = _latency_frame(ds, {x})
    title = f"Mean response time against {x}{where}"
    if not df["latency"].notna().any():
        return _empty(title, "latency values")
    plt, sns = _backend()
    colours = policy_colours()
    slots = {p: i for i, p in enumerate(dict.fromkeys(df["policy"]))}
    marked = []

    def draw(data, **_):
        ax = plt.gca()
        for (policy, source), part in data.groupby(["policy", "source"], sort=False):
            part = part.sort_values(x)
            simulated = source == "simulation"
            if simulated:
                marked.append(_draw_verdicts(ax, part, x, colours[policy], slots[policy]))
            style = "--" if simulated else (":" if "lower" in source else "-")
            ax.errorbar(part[x], part["latency"], yerr=part["ci"] if simulated else None,
                        color=colours[policy], ls=style,
                        marker="o" if simulated else ".", ms=4, capsize=2, lw=1,
                        label=f"{policy} ({source})")

    grid = sns.FacetGrid(df, row=_CASE, col="load_panel", height=2.6, aspect=1.3,
                         sharey="row", margin_titles=True)
    grid.map_dataframe(draw)
    _log_y(grid.axes.flat)
    grid.set_axis_labels(x, "E[T]")
    grid.set_titles(row_template="{row_name}", col_template="{col_name}")
    handles, labels = grid.axes.flat[0].get_legend_handles_labels()
    grid.figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.9))
    if any(marked):
        title += f"\n({VERDICT_NOTE})"
    grid.figure.suptitle(title, y=1.06 if any(marked) else 1.02)
    return grid.figure


def latency_by_distribution_figure(ds: xr.Dataset):
    """Simulated mean response time with its CI per job-size law (in the study's
    order, e.g. by increasing variance), one panel per load (at most four), one
    colour per (policy, dependence): the near-insensitivity of the PS paper's Fig. 5.
    The y axis is not forced to 0, so differences of a percent stay visible."""
    df, where = _latency_frame(ds, {"distribution"})
    df = df[df["source"] == "simulation"]
    if "verdict" in df:
        df = df[df["latency"].notna() | df["verdict"].isin(list(VERDICT_MARKS))]
    else:
        df = df[df["latency"].notna()]
    title = (f"Simulated mean response time per job-size law ({_confidence(ds):.0%} CI bars)"
             f"{where}")
    if df.empty:
        return _empty(title, "simulated latency")
    plt, sns = _backend()
    df = df.assign(series=df["policy"].astype(str) + ", " + df["dependence"].astype(str))
    order = [str(v) for v in ds["distribution"].values]
    series = list(dict.fromkeys(df["series"]))
    colours = dict(zip(series, sns.color_palette(n_colors=len(series))))
    offsets = dict(zip(series, np.linspace(-0.15, 0.15, len(series)) if len(series) > 1 else [0.0]))
    marked = []

    def draw(data, **_):
        ax = plt.gca()
        for name, part in data.groupby("series", sort=False):
            pos = np.array([order.index(str(v)) for v in part["distribution"]]) + offsets[name]
            marked.append(_draw_verdicts(ax, part.assign(pos=pos), "pos", colours[name],
                                         series.index(name)))
            ax.errorbar(pos, part["latency"], yerr=part["ci"], color=colours[name], ls="none",
                        marker="o", ms=4, capsize=3, label=name)
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order, rotation=30)

    grid = sns.FacetGrid(df, col="load_panel", col_wrap=min(2, df["load_panel"].nunique()),
                         height=2.8, aspect=1.3, sharey=False)
    grid.map_dataframe(draw)
    grid.set_axis_labels("job-size law", "E[T]")
    grid.set_titles(col_template="{col_name}")
    handles, labels = grid.axes.flat[0].get_legend_handles_labels()
    grid.figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.9))
    if any(marked):
        title += f"\n({VERDICT_NOTE})"
    grid.figure.suptitle(title, y=1.06 if any(marked) else 1.02)
    return grid.figure


def load_ratio_figure(ds: xr.Dataset, x: str):
    """1 / lambda_max against a threshold on a log axis, one line per job-size law and
    one panel per dependence and policy: on identical servers this is the speculation
    paper's load ratio L(tau) = rho(tau) / rho(inf) (its Fig. 1), since there
    lambda_max(inf) = 1 in load units; L < 1 means the timeout gains capacity."""
    plt, sns = _backend()
    fixed = {d: ds[d].values[0] for d in _grid_dims(ds) if d != x}
    df = ds["lambda_max"].sel(fixed).to_dataframe().reset_index()
    df = df[np.isfinite(df["lambda_max"]) & (df[x] > 0)]
    df["L"] = 1.0 / df["lambda_max"]
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    title = "Load ratio L(tau) = 1 / lambda_max (analysis)" + (f" at {where}" if where else "")
    if df.empty:
        return _facets(df.assign(policy=[]), x, "L", title, "L")
    df["panel"] = df["policy"].astype(str) + ", " + df["dependence"].astype(str)
    grid = sns.relplot(data=df, x=x, y="L", hue="distribution", style="distribution",
                       col="panel", col_wrap=min(2, df["panel"].nunique()), kind="line",
                       markers=True, dashes=False, height=2.6, aspect=1.3,
                       facet_kws={"sharey": False})
    for ax in grid.axes.flat:
        ax.set_xscale("log")
        ax.axhline(1.0, color="0.4", lw=0.8, ls="--")
    grid.set_axis_labels(x, "L(tau)")
    grid.figure.suptitle(title, y=1.02)
    return grid.figure


def _simulated_and_analytic(ds: xr.Dataset, what: str):
    """(simulation variable, its CI, analytic variables with their labels) of
    ``what`` (latency or cost)."""
    if what == "latency":
        return "latency_mean", "latency_mean_ci", (("latency_approx", "analysis"),
                                                   ("latency_lower", "analysis, lower bound"))
    return "cost_mean", "cost_mean_ci", (("cost_lower", "analysis, lower bound"),
                                         ("cost_upper", "analysis, upper bound"))


def _long(ds: xr.Dataset, what: str, keep: set[str]) -> tuple[pd.DataFrame, str]:
    """Simulated and analytic ``what`` in long form over the dims in ``keep`` (and the
    case), every other grid dim sliced at its first value."""
    sim_var, ci_var, analytic = _simulated_and_analytic(ds, what)
    fixed = {d: ds[d].values[0] for d in _grid_dims(ds) if d not in keep}
    frames = []
    for var, source in ((sim_var, "simulation"),) + analytic:
        if var not in ds:
            continue
        sub = ds[var].sel(fixed)
        if "load" not in sub.dims:
            sub = sub.expand_dims(load=ds["load"].values)
        df = sub.to_dataframe(name="value").reset_index()
        if var == sim_var:
            df["ci"] = ds[ci_var].sel(fixed).to_dataframe(name="ci").reset_index()["ci"].values
            df = _with_verdicts(df, ds.sel(fixed))
        frames.append(df.assign(source=source))
    df = pd.concat(frames, ignore_index=True)
    keep = np.isfinite(df["value"].astype(float))
    if "verdict" in df:  # a simulated load without an estimate keeps its row for its mark
        keep |= df["verdict"].isin(list(VERDICT_MARKS)).to_numpy()
    df = df[keep]
    df[_CASE] = df["distribution"].astype(str) + ", " + df["dependence"].astype(str)
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return df, (f" at {where}" if where else "")


def against_axis_figure(ds: xr.Dataset, what: str, x: str):
    """Mean cost (or latency) against a swept parameter ``x`` (e.g. FJ.k): one panel per
    case and policy, one colour per load; simulation with markers and CI bars,
    analytic values and bounds as lines."""
    plt, sns = _backend()
    df, where = _long(ds, what, {x, "policy", "load"})
    ylabel = "E[T]" if what == "latency" else "E[server time per job]"
    title = f"Mean {'response time' if what == 'latency' else 'server time per job'} against {x}{where}"
    if df.empty:
        return _facets(df.assign(policy=[], value=[]), x, "value", title, ylabel)
    df["panel"] = df[_CASE] + ", " + df["policy"].astype(str)
    df["load"] = df["load"].map(_fmt)
    loads = list(dict.fromkeys(df["load"]))
    palette = dict(zip(loads, sns.color_palette(n_colors=len(loads))))
    grid = sns.relplot(data=df, x=x, y="value", hue="load", style="source", kind="line",
                       markers=True, col="panel", col_wrap=min(2, df["panel"].nunique()),
                       height=2.8, aspect=1.3, facet_kws={"sharey": False}, palette=palette)
    marked = False
    for (panel, load), part in df[df["source"] == "simulation"].groupby(["panel", "load"]):
        ax = grid.axes_dict[panel]
        ax.errorbar(part[x], part["value"], yerr=part["ci"], fmt="none", ecolor="0.3", lw=0.8)
        marked |= _draw_verdicts(ax, part, x, palette[load], loads.index(load))
    if what == "latency":
        _log_y(grid.axes.flat)
    grid.set_axis_labels(x, ylabel)
    if marked:
        title += f"\n({VERDICT_NOTE})"
    grid.figure.suptitle(title, y=1.06 if marked else 1.02)
    return grid.figure


def by_variant_figure(ds: xr.Dataset, what: str):
    """Mean latency or cost against load, one line per variant (a combination of the
    swept grid axes other than the case, e.g. ``d = 4, FJ.keep = opt``): simulation
    solid with markers, analysis dashed."""
    plt, sns = _backend()
    swept = [d for d in _grid_dims(ds) if ds.sizes[d] > 1] + ["policy"]
    df, where = _long(ds, what, set(swept) | {"load"})
    ylabel = "E[T]" if what == "latency" else "E[server time per job]"
    title = f"Mean {'response time' if what == 'latency' else 'server time per job'} by variant{where}"
    if df.empty:
        return _facets(df.assign(policy=[], value=[]), "load", "value", title, ylabel)
    df["variant"] = df[swept].astype(str).apply(
        lambda row: ", ".join(f"{k}={v}" for k, v in row.items() if k != "policy"
                              or ds.sizes["policy"] > 1), axis=1)
    variants = list(dict.fromkeys(df["variant"]))
    palette = dict(zip(variants, sns.color_palette(n_colors=len(variants))))
    grid = sns.relplot(data=df, x="load", y="value", hue="variant", style="source", kind="line",
                       markers=True, col=_CASE, col_wrap=min(2, df[_CASE].nunique()),
                       height=3.2, aspect=1.4, facet_kws={"sharey": False}, palette=palette)
    marked = False
    for (case, variant), part in df[df["source"] == "simulation"].groupby([_CASE, "variant"]):
        marked |= _draw_verdicts(grid.axes_dict[case], part, "load", palette[variant],
                                 variants.index(variant))
    if what == "latency":
        _log_y(grid.axes.flat)
    grid.set_axis_labels("load", ylabel)
    if marked:
        title += f"\n({VERDICT_NOTE})"
    grid.figure.suptitle(title, y=1.06 if marked else 1.02)
    return grid.figure


def make_figure(ds: xr.Dataset, name: str):
    if name.startswith("cost_vs_"):
        return against_axis_figure(ds, "cost", name.removeprefix("cost_vs_"))
    for what in ("latency", "cost"):
        if name == f"{what}_by_variant":
            return by_variant_figure(ds, what)
    if name.startswith("load_ratio_vs_"):
        return load_ratio_figure(ds, name.removeprefix("load_ratio_vs_"))
    if name.startswith("stability_vs_"):
        return stability_figure(ds, name.removeprefix("stability_vs_"))
    if name.startswith("latency_vs_"):
        return latency_vs_figure(ds, name.removeprefix("latency_vs_"))
    return {
        "latency_by_distribution": latency_by_distribution_figure,
        "stability": stability_figure,
        "load": load_figure,
        "cost": cost_figure,
        "latency": latency_figure,
    }[name](ds)


def write_figures(ds: xr.Dataset, outdir, names=None) -> list[Path]:
    """Write the figures as PNG and SVG into ``outdir``; return the paths."""
    plt, _ = _backend()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if names is None:
        names = figure_names({d: list(ds[d].values) for d in _grid_dims(ds)})
    written = []
    for name in names:
        fig = make_figure(ds, name)
        for ext in ("png", "svg"):
            path = outdir / f"{name}.{ext}"
            fig.savefig(path, dpi=150, bbox_inches="tight", metadata=_metadata(ext))
            written.append(path)
        plt.close(fig)
    return written


def _metadata(ext: str) -> dict:
    # no timestamps, so that figures are byte-reproducible
    if ext == "svg":
        return {"Date": None}
    return {"Software": None}
