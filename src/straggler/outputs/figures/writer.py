"""The writer: a figure drawn by its name (the table of figure kinds), saved as PNG and SVG."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import xarray as xr

from ...common.files import atomic_write
from ..catalog import figure_axis, figure_kind, figure_names
from .layout import backend
from .selection import grid_dims, with_rho_kind


def make_figure(ds: xr.Dataset, name: str):
    """The figure called ``name``, drawn by the function its kind names
    (:data:`straggler.outputs.catalog.FIGURE_KINDS`)."""
    kind = figure_kind(name)
    if kind is None:
        raise KeyError(name)
    module, function = kind.draw.split(":")
    # imported by name: the table is read at the Snakefile's parse, without matplotlib
    draw = getattr(importlib.import_module(f"{__package__}.{module}"), function)
    axis = figure_axis(name)
    return draw(with_rho_kind(ds), *kind.args, *([] if axis is None else [axis]))


def simulated(ds: xr.Dataset) -> bool:
    """Whether the study behind ``ds`` simulates (its config's ``evaluate``)."""
    import yaml

    try:
        return "simulation" in yaml.safe_load(ds.attrs["config"])["evaluate"]
    except (KeyError, TypeError, yaml.YAMLError):
        return bool("jobs" in ds and np.isfinite(np.asarray(ds["jobs"].values, float)).any())


def has_decision(ds: xr.Dataset) -> bool:
    """Whether the study behind ``ds`` has a ``decision`` section (its config's)."""
    import yaml

    try:
        return (yaml.safe_load(ds.attrs["config"]) or {}).get("decision") is not None
    except (KeyError, TypeError, AttributeError, yaml.YAMLError):
        return False


def write_figures(ds: xr.Dataset, outdir, names=None) -> list[Path]:
    """Write the figures as PNG and SVG into ``outdir``; return the paths."""
    plt = backend()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if names is None:
        names = figure_names(
            {d: list(ds[d].values) for d in ["policy", "distribution", "dependence", *grid_dims(ds)]},
            simulated(ds),
            has_decision(ds),
        )
    written = []
    for name in names:
        fig = make_figure(ds, name)
        for ext in ("png", "svg"):
            path = outdir / f"{name}.{ext}"
            with atomic_write(path) as tmp:
                _save(fig, ext, tmp)
            written.append(path)
        plt.close(fig)
    return written


def save_figure(fig, path: Path) -> None:
    """Write ``fig`` to ``path`` (its suffix: png or svg) as every figure is written:
    atomically, without timestamps."""
    with atomic_write(path) as tmp:
        _save(fig, path.suffix[1:], tmp)


def _save(fig, ext: str, path: Path) -> None:
    fig.savefig(path, format=ext, dpi=200, bbox_inches="tight", metadata=_metadata(ext))


def _metadata(ext: str) -> dict:
    # no timestamps, so that figures are byte-reproducible
    if ext == "svg":
        return {"Date": None}
    return {"Software": None}
