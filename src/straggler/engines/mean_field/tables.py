"""The job-size law on the mean-field grid: the integrals of ``S(x) = P(X > x)`` that the
march of :mod:`.kernels` reads, computed once per grid.

The march only ever integrates ``S`` (over a cell, or against the hat of two cells), so
these are exact integrals, not samples: each cell is cut at the law's break points (its
atoms, the kinks of an interpolated sample, the ends of its support), and each piece is
integrated by 4-point Gauss-Legendre, exact for the piecewise linear survival functions
of the tabulated laws and accurate to ``O(h^8)`` elsewhere. One vectorised call of
:meth:`~straggler.model.distributions.Distribution.sf` evaluates every node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model.distributions import Distribution

_GL_X, _GL_W = np.polynomial.legendre.leggauss(4)


@dataclass(frozen=True)
class Tables:
    """``S`` on the grid ``w_k = k h``, ``k = 0..n``, and on its ``n`` cells.

    ``A[k]``: the average of ``S`` over cell ``k``; ``delta[m]``: the integral of ``S``
    against the hat centred on ``w_m`` over two cells, over ``h^2`` (``delta[0]``: the
    half hat ``int_0^h (h - x) S(x) dx / h^2``), cut where it vanishes; ``S_points``:
    ``S(w_k)``; ``tail1[k]``: the cell average of ``int_x^inf S``; ``powers[i][k]``: the
    cell average of ``S^(i+1)``, and ``x_powers[i]``: ``int_0^W 2 x S^(i+1)`` (for the
    least of i + 1 i.i.d. copies, up to ``powers_up_to``).
    """

    h: float
    n: int
    A: np.ndarray
    delta: np.ndarray
    S_points: np.ndarray
    tail1: np.ndarray
    powers: tuple[np.ndarray, ...]
    x_powers: tuple[float, ...]


def build(X: Distribution, h: float, n: int, powers_up_to: int = 1) -> Tables:
    """The tables of ``X`` on ``n`` cells of width ``h``."""
    W = n * h
    grid = h * np.arange(n + 1)
    lo, hi = X.support()
    extra = [x for x in (*X.breaks(), lo, hi) if 0.0 < x < W and math.isfinite(x)]
    knots = np.union1d(grid, np.asarray(extra, dtype=float))
    left, right = knots[:-1], knots[1:]
    keep = right > left
    left, right = left[keep], right[keep]
    cell = np.minimum(np.searchsorted(grid, left, side="right") - 1, n - 1)
    half = 0.5 * (right - left)
    nodes = (0.5 * (left + right))[:, None] + half[:, None] * _GL_X[None, :]
    weights = half[:, None] * _GL_W[None, :]
    s = np.clip(np.asarray(X.sf(nodes.ravel()), dtype=float).reshape(nodes.shape), 0.0, 1.0)
    offset = nodes - grid[cell][:, None]  # x - w_k within cell k

    def per_cell(values: np.ndarray) -> np.ndarray:
        return np.bincount(cell, weights=(weights * values).sum(axis=1), minlength=n)

    a = per_cell(s)  # int_cell S
    r = per_cell(s * (h - offset))  # int_cell (w_{k+1} - x) S(x) dx
    l = per_cell(s * offset)  # int_cell (x - w_k) S(x) dx
    delta = np.empty(n)
    delta[0] = r[0]
    delta[1:] = l[:-1] + r[1:]
    delta /= h * h
    nonzero = np.flatnonzero(delta > 0.0)
    delta = delta[: (nonzero[-1] + 1 if nonzero.size else 1)].copy()
    A = a / h
    mean = X.mean()
    integral_to = np.concatenate(([0.0], np.cumsum(a)))  # int_0^{w_k} S
    tail1 = np.maximum(mean - integral_to[:-1] - r / h, 0.0)
    S_points = np.clip(np.asarray(X.sf(grid), dtype=float), 0.0, 1.0)
    powers = []
    x_powers = []
    for i in range(1, powers_up_to + 1):
        si = s**i
        powers.append(per_cell(si) / h)
        x_powers.append(float(2.0 * (per_cell(si * nodes)).sum()))
    return Tables(
        h=float(h),
        n=int(n),
        A=A,
        delta=delta,
        S_points=S_points,
        tail1=tail1,
        powers=tuple(powers),
        x_powers=tuple(x_powers),
    )
