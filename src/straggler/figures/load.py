"""The load figure: the effective load of the busiest server."""

from __future__ import annotations

import xarray as xr

from .layout import load_label
from .primitives import analytic_against


def load_figure(ds: xr.Dataset):
    """Effective load of the busiest server against the nominal load (a bound on the
    capacity makes it the opposite bound on the effective load)."""
    fig = analytic_against(ds, "rho", "load", "Effective load of the busiest server", "rho", inverse=True)
    for ax in fig.axes:
        if ax.get_xlabel() == "load":
            ax.set_xlabel(load_label(ds))
    return fig
