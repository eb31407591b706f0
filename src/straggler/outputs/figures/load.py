"""The load figure: the effective load of the busiest server."""

from __future__ import annotations

import xarray as xr

from .layout import load_label
from .primitives import analytic_against


def load_figure(ds: xr.Dataset):
    """The ``load`` figure: the effective load of the busiest server (what it shows, in
    words: its kind's caption in :data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    fig = analytic_against(ds, "rho", "load", "Effective load of the busiest server", "rho", inverse=True)
    for ax in fig.axes:
        if ax.get_xlabel() == "load":
            ax.set_xlabel(load_label(ds))
        if ax.get_lines():  # the busiest server saturates at 1: a policy above it is unstable there
            ax.axhline(1.0, color="0.25", lw=0.9, ls=(0, (5, 2)), zorder=1)
    return fig
