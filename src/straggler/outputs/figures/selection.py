"""Selection: which slice of a study dataset a figure shows (cases, swept axes, loads, variants)."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ...model.policies import value_name
from ..catalog import numeric

_MAX_LOAD_PANELS = 4
"""Figures with a column per load show at most this many loads (evenly spread)."""


_MAX_COLUMNS = 4


def grid_dims(ds: xr.Dataset) -> list[str]:
    return [str(d) for d in ds["lambda_max"].dims if d not in ("policy", "distribution", "dependence")]


def fmt_value(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def sorted_values(ds: xr.Dataset, dim: str) -> list:
    values = list(ds[dim].values)
    return sorted(values) if numeric(values) else values


def cases_of(ds: xr.Dataset) -> list[tuple]:
    """(distribution, dependence) pairs in the study's order."""
    return [(a, b) for a in ds["distribution"].values for b in ds["dependence"].values]


def case_name(case) -> str:
    return ", ".join(str(v) for v in case)


def column_axis(ds: xr.Dataset, x: str) -> str | None:
    """A second swept axis with a few values, shown as panel columns."""
    for dim in grid_dims(ds):
        if dim != x and 1 < ds.sizes[dim] <= _MAX_COLUMNS:
            return dim
    return None


def fixed_elsewhere(ds: xr.Dataset, keep) -> tuple[dict, str]:
    """Every grid dimension outside ``keep`` at its first value, and the title suffix."""
    fixed = {d: ds[d].values[0] for d in grid_dims(ds) if d not in keep}
    where = ", ".join(f"{k} = {fmt_value(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return fixed, (f" at {where}" if where else "")


def shown_values(ds: xr.Dataset, dim: str) -> np.ndarray:
    """The values of ``dim`` that get a column of panels, in increasing order: at most
    four, evenly spread over them (the first and the last among them)."""
    values = np.sort(ds[dim].values)
    if len(values) <= _MAX_LOAD_PANELS:
        return values
    return values[np.unique(np.linspace(0, len(values) - 1, _MAX_LOAD_PANELS).round().astype(int))]


def shown_loads(ds: xr.Dataset) -> np.ndarray:
    return shown_values(ds, "load")


def left_out_values(ds: xr.Dataset, dim: str) -> str:
    """The values :func:`shown_values` leaves out, in words for a title ("" when none)."""
    shown = set(np.asarray(shown_values(ds, dim), dtype=float).tolist())
    out = [v for v in np.sort(ds[dim].values) if float(v) not in shown]
    if not out:
        return ""
    return f"; {dim} {', '.join(fmt_value(v) for v in out)} not drawn (at most {_MAX_LOAD_PANELS} panels)"


def left_out_loads(ds: xr.Dataset) -> str:
    """The loads :func:`shown_loads` leaves out, in words for a title ("" when none)."""
    return left_out_values(ds, "load")


def confidence_level(ds: xr.Dataset) -> float:
    """The CI level of the study (its config travels in the dataset attrs)."""
    import yaml

    try:
        return float(yaml.safe_load(ds.attrs["config"])["simulation"]["confidence"])
    except (KeyError, TypeError, ValueError, yaml.YAMLError):
        return 0.95  # the config default


def has_values(ds: xr.Dataset, var: str) -> bool:
    return var in ds and bool(np.isfinite(np.asarray(ds[var].values, dtype=float)).any())


def first_swept(ds: xr.Dataset) -> str | None:
    swept = [d for d in grid_dims(ds) if ds.sizes[d] > 1 and ds[d].dtype.kind in "if"]
    return swept[0] if swept else None


# rho's kind: lambda_max_kind, inverted (see load_figure)
def with_rho_kind(ds: xr.Dataset) -> xr.Dataset:
    if "lambda_max_kind" in ds and "rho_kind" not in ds:
        ds = ds.assign(rho_kind=ds["lambda_max_kind"])
    return ds


def most_estimated(ds: xr.Dataset, keep: set) -> tuple[dict, str]:
    """Every grid dimension outside ``keep`` at the value with the most simulated
    estimates (the first value when none has any), and the title suffix."""
    fixed = {}
    finite = np.isfinite(np.asarray(ds["latency_mean"].values, float)) if "latency_mean" in ds else None
    dims = list(ds["latency_mean"].dims) if finite is not None else []
    for d in grid_dims(ds):
        if d in keep:
            continue
        value = ds[d].values[0]
        if finite is not None and ds.sizes[d] > 1 and finite.any():
            axis = dims.index(d)
            counts = finite.sum(axis=tuple(k for k in range(finite.ndim) if k != axis))
            value = ds[d].values[int(np.argmax(counts))]
        fixed[d] = value
    where = ", ".join(f"{k} = {fmt_value(v)}" for k, v in fixed.items() if ds.sizes[k] > 1)
    return fixed, (f" at {where}" if where else "")


def value_vars(ds: xr.Dataset, what: str):
    """(simulated var, its CI, analytic vars with their kind words) of ``what``."""
    if what == "latency":
        return "latency_mean", "latency_mean_ci", (("latency_approx", None), ("latency_lower", "lower bound"))
    return "cost_mean", "cost_mean_ci", (("cost", None), ("cost_lower", "lower bound"), ("cost_upper", "upper bound"))


def variant_dims(ds: xr.Dataset) -> list[str]:
    """Swept grid dims that make variants of a policy (d and policy parameters)."""
    from ...model.policies import POLICIES

    return [d for d in grid_dims(ds) if ds.sizes[d] > 1 and (d == "d" or d.split(".")[0] in POLICIES)]


def _varies(policy: str, dim: str) -> bool:
    """Whether ``policy``'s values change along ``dim`` (a policy that ignores ``d``, or
    another policy's parameter, is repeated along it)."""
    from ...model.policies import POLICIES

    if dim == "d":
        return POLICIES[policy].uses_d if policy in POLICIES else True
    head = dim.split(".")[0]
    return head == policy or head not in POLICIES


def variant_points(ds: xr.Dataset, dims: list[str]):
    """(policy, {dim: value}, label) for every policy and combination of ``dims``; an
    axis the policy ignores is taken at its first value and left out of the label."""
    import itertools

    out = []
    for policy in ds["policy"].values:
        policy = str(policy)
        own = [d for d in dims if _varies(policy, d)]
        fixed = {d: ds[d].values[0] for d in dims if d not in own}
        for combo in itertools.product(*(ds[d].values for d in own)):
            sel = dict(zip(own, combo))
            label = ", ".join(value_name(d, v) or f"{d}={fmt_value(v)}" for d, v in sel.items())
            out.append((policy, {**fixed, **sel}, label))
    return out


def short_label(policy: str, sel: dict, dims: list[str]) -> str:
    """A point's variant by its values alone (``4/opt``), for labels on the data."""
    return "/".join(fmt_value(sel[d]) for d in dims if d in sel and _varies(policy, d))
