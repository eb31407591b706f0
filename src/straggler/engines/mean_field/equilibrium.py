"""The mean-field equilibrium of one policy at one load: :class:`Equilibrium`, what
:func:`straggler.engines.mean_field.solve` returns, and its quantiles.

Light: numpy only. The workload's law on the grid is the one the solver computed with
(an atom ``1 - busy`` at 0, then uniform within each cell, so ``workload_sf`` is
piecewise linear); the latency's survival function is interpolated linearly between
its grid points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def _inverse_sf(sf: np.ndarray, step: float, level: np.ndarray) -> np.ndarray:
    """The smallest ``t`` on the piecewise linear interpolation of the non-increasing
    grid values ``sf`` (at ``k * step``) with ``sf(t) <= level``; nan where the grid ends
    above ``level``."""
    level = np.asarray(level, dtype=float)
    # searchsorted wants increasing values: the first index with sf <= level
    desc = -sf
    k = np.searchsorted(desc, -level, side="left")
    out = np.full(level.shape, math.nan)
    inside = k < sf.size
    k_in = k[inside]
    lv = level[inside]
    at_start = k_in == 0
    prev = np.maximum(k_in - 1, 0)
    s0, s1 = sf[prev], sf[k_in]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(s0 > s1, (s0 - lv) / (s0 - s1), 1.0)
    t = step * (prev + np.clip(frac, 0.0, 1.0))
    out[inside] = np.where(at_start, 0.0, t)
    return out


@dataclass(frozen=True)
class Equilibrium:
    """The equilibrium of one FCFS queue among infinitely many under one policy.

    ``rate`` is the arrival rate per server (``load / E[X]``). ``busy`` is ``b = P(U > 0)``
    and ``cost`` the server time per job ``E[C] = b / rate``. ``workload_sf[k]`` is
    ``P(U > k step)`` and ``latency_sf[k]`` is ``P(T > k step)`` on the finest grid solved;
    ``latency_mean`` is E[T] (Richardson's extrapolation of the two finest grids, where
    the grids give it), ``error`` its estimated relative error: the largest relative
    change between those grids of E[T], of the mean of the arrays' law of T and of
    ``busy``, plus the estimate of E[T]'s tail beyond the grid, so that it bounds the
    relative error of ``busy`` and ``cost`` as well (the finer grid's error is about a
    third of the change for this second-order scheme: the bound is conservative).
    ``tolerance`` is what the caller asked for and ``truncated`` the larger of
    ``P(U > W)`` and ``P(T > W)`` at the grid's end ``W``. ``stable`` is False when no fixed point with ``b < 1`` exists:
    then ``busy`` is 1, ``cost`` nan, ``latency_mean`` inf and the grids are empty.
    """

    policy: str
    d: int
    load: float
    rate: float
    stable: bool
    busy: float
    cost: float
    latency_mean: float
    step: float
    workload_sf: np.ndarray
    latency_sf: np.ndarray
    error: float
    tolerance: float
    truncated: float

    def latency_quantile(self, p):
        """The ``p``-quantile of the latency, vectorised over ``p`` in (0, 1): inf when
        unstable, nan where it lies beyond the grid (``P(T > W) > 1 - p``)."""
        q = np.asarray(p, dtype=float)
        if np.any((q <= 0.0) | (q >= 1.0)):
            raise ValueError(f"a quantile level must be in (0, 1), got {p!r}")
        if not self.stable:
            out = np.full(q.shape, math.inf)
        else:
            out = _inverse_sf(self.latency_sf, self.step, 1.0 - q)
        return float(out) if out.ndim == 0 else out

    def workload_quantile(self, u) -> np.ndarray:
        """Inverse transform: a uniform ``u`` in [0, 1) to a sample of ``U``, vectorised:
        0 when ``u < 1 - busy``, else the point where ``workload_sf`` falls to ``1 - u``
        (exact for the solver's law, uniform within each cell). Beyond the grid (mass
        ``workload_sf[-1]``) it returns the grid's end; inf when unstable."""
        u = np.asarray(u, dtype=float)
        if not self.stable:
            return np.full(u.shape, math.inf)
        level = 1.0 - u
        out = np.zeros(u.shape)
        busy = level < self.busy
        if np.any(busy):
            x = _inverse_sf(self.workload_sf, self.step, level[busy])
            end = self.step * (self.workload_sf.size - 1)
            out[busy] = np.where(np.isnan(x), end, x)
        return out
