"""A claim test's reading of a study's dataset, simulated values compared within their error.

Values at points of the grid (:class:`~straggler.decide.claims.claim.NotTested` where the grid
lacks them), the configuration and job-size laws the dataset records, and differences
of simulated means with their CIs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from .claim import NotTested
from .formatting import fmt


def at(ds: xr.Dataset, var: str, **sel) -> xr.DataArray:
    """``var`` at ``sel`` (dims of size one squeezed away); NotTested when a key
    or value is not on the grid."""
    if var not in ds:
        raise NotTested(f"the dataset has no variable {var}")
    da = ds[var]
    for key, value in sel.items():
        if key not in da.dims:
            raise NotTested(f"the dataset has no axis {key}")
        coord = da[key]
        try:
            if coord.dtype.kind in "if" and not isinstance(value, (list, tuple, np.ndarray)):
                da = da.sel({key: value}, method="nearest", tolerance=1e-9)
            else:
                da = da.sel({key: value})
        except KeyError:
            raise NotTested(f"{key} = {value} is not on the grid") from None
    return da.squeeze([d for d in da.dims if da.sizes[d] == 1], drop=True)


def value(ds: xr.Dataset, var: str, **sel) -> float:
    da = at(ds, var, **sel)
    if da.size != 1:
        raise NotTested(f"{var} at {sel} is not one value (dims {list(da.dims)})")
    return float(da.values)


def value_str(ds: xr.Dataset, var: str, **sel) -> str:
    """A text variable (a verdict) at one point."""
    da = at(ds, var, **sel)
    if da.size != 1:
        raise NotTested(f"{var} at {sel} is not one value (dims {list(da.dims)})")
    return str(da.values.item() if hasattr(da.values, "item") else da.values)


def stable_loads(ds: xr.Dataset, **sel) -> np.ndarray:
    """The loads whose verdict is ``stable`` at ``sel`` (a 1-d selection)."""
    v = at(ds, "verdict", **sel)
    if list(v.dims) != ["load"]:
        raise NotTested(f"verdicts at {sel} are not one series over the load")
    return v["load"].values[np.asarray(v.values) == "stable"]


def largest_stable(ds: xr.Dataset, **sel) -> float:
    loads = stable_loads(ds, **sel)
    return float(loads.max()) if len(loads) else math.nan


def estimate(ds: xr.Dataset, var: str, **sel) -> tuple[float, float]:
    """(simulated estimate, CI half-width) at one point; NaN where the load is not
    stable."""
    return value(ds, var, **sel), value(ds, f"{var}_ci", **sel)


def study_config(ds: xr.Dataset) -> dict:
    """The resolved configuration the dataset records (attribute ``config``)."""
    import yaml

    try:
        cfg = yaml.safe_load(ds.attrs["config"])
    except (KeyError, yaml.YAMLError) as err:
        raise NotTested(f"the dataset records no readable configuration ({err})") from None
    if not isinstance(cfg, dict):
        raise NotTested("the dataset records no configuration")
    return cfg


def law(ds: xr.Dataset, name: str):
    """The job-size law ``name`` of the study (a :class:`~straggler.model.distributions.Distribution`)."""
    from ...model.distributions import from_spec

    spec = (study_config(ds).get("distributions") or {}).get(name)
    if spec is None:
        raise NotTested(f"the configuration does not define the distribution {name}")
    return from_spec(spec)


def scv(ds: xr.Dataset, name: str) -> float:
    """Squared coefficient of variation of the job-size law ``name``."""
    X = law(ds, name)
    return X.variance() / X.mean() ** 2


def by_variance(ds: xr.Dataset) -> list[str]:
    """The study's job-size laws from the smallest to the largest scv."""
    return sorted(values_of(ds, "distribution"), key=lambda name: scv(ds, name))


def _level(ds: xr.Dataset) -> float:
    try:
        return float(study_config(ds)["simulation"]["confidence"])
    except (NotTested, KeyError, TypeError, ValueError):
        return 0.95


REPLICATION_MEANS = {"latency_mean": "latency_replication_mean", "cost_mean": "cost_replication_mean"}


@dataclass(frozen=True)
class Difference:
    """A simulated ``a - b`` with its CI (``low``, ``high``) and how it was formed."""

    estimate: float
    low: float
    high: float
    how: str

    @property
    def below(self) -> bool:
        """``a < b`` beyond the statistical error."""
        return self.high < 0

    @property
    def above(self) -> bool:
        """``a > b`` beyond the statistical error."""
        return self.low > 0

    def text(self) -> str:
        return f"{fmt(self.estimate)} [{fmt(self.low)}, {fmt(self.high)}] ({self.how})"


def difference(ds: xr.Dataset, var: str, a: dict, b: dict) -> Difference:
    """``var`` at ``a`` minus ``var`` at ``b`` (a simulated mean, ``latency_mean`` or
    ``cost_mean``), with the paired Student-t CI of the per-replication means where
    both points have them (the study's confidence level), else the interval from the
    two CI half-widths added (conservative). NaN where either point has no estimate."""
    from ...engines.simulation.statistics import paired_ci

    ma, mb = value(ds, var, **a), value(ds, var, **b)
    if not (np.isfinite(ma) and np.isfinite(mb)):
        return Difference(math.nan, math.nan, math.nan, "no estimate")
    rep = REPLICATION_MEANS.get(var)
    if rep in ds:
        ra, rb = at(ds, rep, **a).values, at(ds, rep, **b).values
        if ra.ndim == 1 and ra.shape == rb.shape:
            ci = paired_ci(ra, rb, _level(ds))
            if ci is not None:
                return Difference(ma - mb, ci[0], ci[1], "paired")
    half = value(ds, f"{var}_ci", **a) + value(ds, f"{var}_ci", **b)
    return Difference(ma - mb, ma - mb - half, ma - mb + half, "CIs added")


def fastest(ds: xr.Dataset, var: str, points: dict, best) -> tuple[list, list]:
    """Which of ``points`` (label -> selection) are faster than (have a smaller ``var``
    than) the point ``best`` beyond the statistical error, and which are not
    separated from it: (faster, not separated), the labels."""
    faster, unseparated = [], []
    for label, sel in points.items():
        if label == best:
            continue
        diff = difference(ds, var, points[best], sel)
        if not np.isfinite(diff.estimate):
            continue
        if diff.above:
            faster.append(label)
        elif not diff.below:
            unseparated.append(label)
    return faster, unseparated


def need(x: float, what: str) -> float:
    if not np.isfinite(x):
        raise NotTested(f"no value for {what}")
    return x


def values_of(ds: xr.Dataset, dim: str) -> list:
    if dim not in ds.dims:
        raise NotTested(f"the dataset has no axis {dim}")
    return list(ds[dim].values)
