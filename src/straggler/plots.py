"""Figures of a study dataset (seaborn; PNG and SVG side by side).

Each figure function takes the study dataset and returns a matplotlib figure;
:func:`write_figures` saves them. Dimensions that a figure does not show are
sliced at their first value, and the figure title says where.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

FIGURES = ("stability", "load", "cost", "latency")
"""Figure names; each is written as <name>.png and <name>.svg."""

_SHOWN = {"policy", "distribution", "dependence"}


def _backend():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(context="paper", style="whitegrid")
    return plt, sns


def _slice(ds: xr.Dataset, keep: set[str]) -> tuple[xr.Dataset, str]:
    """Select the first value of every grid dimension that the figure does not show."""
    hidden = [
        dim for dim in ds["lambda_max"].dims
        if dim not in keep | _SHOWN | {"load", "quantile"}
    ]
    fixed = {dim: ds[dim].values[0] for dim in hidden}
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return ds.sel(fixed), where


def _fmt(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def _facets(df, x: str, y: str, title: str, ylabel: str, style: str | None = None,
            logy: bool = False):
    plt, sns = _backend()
    if df[y].notna().sum() == 0:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.text(0.5, 0.5, f"no {y} values in this study\n(not computed for these policies)",
                ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        fig.suptitle(title)
        return fig
    df = df[df[y].notna()]
    grid = sns.relplot(
        data=df, x=x, y=y, hue="policy", style=style, col="distribution", row="dependence",
        kind="line", marker="o", height=2.6, aspect=1.2,
        facet_kws={"sharey": not logy, "margin_titles": True},
    )
    grid.set_axis_labels(x, ylabel)
    if logy:
        for ax in grid.axes.flat:
            ax.set_yscale("log")
    grid.figure.suptitle(title, y=1.02)
    return grid.figure


def stability_figure(ds: xr.Dataset):
    """lambda_max against r_slow, one line per policy, faceted by distribution and dependence."""
    style = "d" if ds.sizes.get("d", 1) > 1 else None
    sub, where = _slice(ds, {"r_slow", "d"} if style else {"r_slow"})
    df = sub["lambda_max"].to_dataframe().reset_index()
    title = "Stability bound (analysis)" + (f" at {where}" if where else "")
    return _facets(df, "r_slow", "lambda_max", title, "lambda_max (load units)", style)


def load_figure(ds: xr.Dataset):
    """Effective load of the most loaded server against the nominal load, at the
    smallest r_slow (the most unbalanced speeds)."""
    sub, where = _slice(ds, {"load"})
    df = sub["rho"].to_dataframe().reset_index()
    title = "Effective load of the busiest server (analysis)" + (f" at {where}" if where else "")
    return _facets(df, "load", "rho", title, "rho")


def cost_figure(ds: xr.Dataset):
    """Expected server time per job against r_slow."""
    sub, where = _slice(ds, {"r_slow"})
    df = sub["cost"].to_dataframe().reset_index()
    title = "Server time per job (analysis)" + (f" at {where}" if where else "")
    return _facets(df, "r_slow", "cost", title, "E[server time per job]")


def latency_figure(ds: xr.Dataset):
    """Analytic mean response time against load (log scale)."""
    sub, where = _slice(ds, {"load"})
    df = sub["latency_approx"].to_dataframe().reset_index()
    df = df[np.isfinite(df["latency_approx"])]
    title = "Mean response time (analysis)" + (f" at {where}" if where else "")
    return _facets(df, "load", "latency_approx", title, "E[T]", logy=True)


_MAKERS = {
    "stability": stability_figure,
    "load": load_figure,
    "cost": cost_figure,
    "latency": latency_figure,
}


def write_figures(ds: xr.Dataset, outdir) -> list[Path]:
    """Write every figure as PNG and SVG into ``outdir``; return the paths."""
    plt, _ = _backend()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in FIGURES:
        fig = _MAKERS[name](ds)
        for ext in ("png", "svg"):
            path = outdir / f"{name}.{ext}"
            fig.savefig(path, dpi=150, bbox_inches="tight", metadata=_metadata(ext))
            written.append(path)
        plt.close(fig)
    return written


def _metadata(ext: str) -> dict:
    # fixed metadata so that figures are byte-reproducible
    if ext == "svg":
        return {"Date": None}
    return {"Software": None}
