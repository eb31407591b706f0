"""The latency-by-law figure: the simulated mean response time per job-size law."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import xarray as xr

from .layout import empty_figure, finish, load_label, make_panels, policy_handles
from .primitives import draw_verdicts, verdict_arrays
from .selection import confidence_level, fmt_value, left_out_loads, most_estimated, shown_loads
from .style import VERDICT_NOTE, style_of


def latency_by_distribution_figure(ds: xr.Dataset):
    """The ``latency_by_distribution`` figure: the simulated mean response time per
    job-size law (what it shows, in words: its kind's caption in
    :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    fixed, where = most_estimated(ds, {"distribution", "dependence"})
    sub = ds.sel(fixed)
    loads = shown_loads(ds)
    title = f"Simulated mean response time per job-size law ({confidence_level(ds):.0%} CI bars)"
    has = np.isfinite(np.asarray(sub["latency_mean"].values, dtype=float)).any()
    if not has and not ("verdict" in sub and (np.asarray(sub["verdict"].values) != "").any()):
        return empty_figure(title + where, "simulated latency")
    from matplotlib.lines import Line2D

    laws = [str(v) for v in ds["distribution"].values]
    deps = [str(v) for v in ds["dependence"].values]
    policies = [str(p) for p in sub["policy"].values]
    fills: list[Literal["full", "none", "left", "bottom", "right", "top"]] = [
        "full",
        "none",
        "left",
        "bottom",
        "right",
        "top",
    ]
    series = [(p, dep) for p in policies for dep in deps]
    offsets = dict(zip(series, np.linspace(-0.25, 0.25, len(series)) if len(series) > 1 else [0.0]))
    ncols = min(2, len(loads))
    nrows = math.ceil(len(loads) / ncols)
    fig, axes = make_panels(nrows, ncols, sharey=False, sharex=True)
    marked, shown = False, []
    for n, load in enumerate(loads):
        ax = axes[n // ncols, n % ncols]
        for policy, dep in series:
            part = sub.sel(policy=policy, dependence=dep, load=load)
            pos = np.arange(len(laws)) + offsets[(policy, dep)]
            y = np.asarray(part["latency_mean"].values, dtype=float)
            ci = np.asarray(part["latency_mean_ci"].values, dtype=float)
            s = style_of(policy)
            ok = np.isfinite(y)
            if ok.any():
                ax.errorbar(
                    pos[ok],
                    y[ok],
                    yerr=np.nan_to_num(ci[ok]),
                    color=s["colour"],
                    marker=s["marker"],
                    fillstyle=fills[deps.index(dep) % len(fills)],
                    ls="none",
                    ms=4,
                    capsize=2,
                    elinewidth=0.8,
                )
                if (policy, dep) not in shown:
                    shown.append((policy, dep))
            verdicts = verdict_arrays(part.transpose("distribution", ...))
            if verdicts is not None:  # the series' offset already sets its marks apart
                drew = draw_verdicts(ax, pos, verdicts[0], verdicts[1], s["colour"], 0)
                marked |= drew
                if drew and (policy, dep) not in shown:
                    shown.append((policy, dep))
        ax.set_xticks(range(len(laws)))
        ax.set_xticklabels(laws, rotation=30)
        ax.set_title(f"{load_label(ds).split(' = ')[0]} = {fmt_value(load)}")
    for n in range(len(loads), nrows * ncols):
        axes[n // ncols, n % ncols].set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("E[T]")
    for ax in axes[-1, :]:
        ax.set_xlabel("job-size law")
    handles = policy_handles(dict.fromkeys(p for p, _ in shown))
    if len(deps) > 1:
        handles += [
            Line2D(
                [],
                [],
                color="0.35",
                marker="o",
                ls="none",
                ms=4,
                fillstyle=fills[k % len(fills)],
                label=f"{dep} replicas",
            )
            for k, dep in enumerate(deps)
        ]
    title += where + left_out_loads(ds) + (f"\n({VERDICT_NOTE})" if marked else "")
    finish(fig, title, handles)
    return fig
