"""Laws whose quantile function is piecewise linear: the exact sums their analysis rests on.

The tabulated laws (a measured sample, with or without interpolation; a table of
quantiles; a discrete law) have a quantile function Q(u) that is linear (or constant: an
atom) on each of finitely many intervals of u, and a distribution function that is linear
(or constant) between finitely many break points of x. Every functional the analysis
needs is then an integral of a polynomial over each piece, and Gauss-Legendre
quadrature with g nodes integrates a polynomial of degree 2 g - 1 exactly: the sums here
are exact up to rounding, whatever the number of pieces, with no adaptive quadrature.
A sample of 10^4 values costs a few vectorised operations.

- :func:`order_statistic_moment`: E[X_{k:n}^m] = int_0^1 Q(u)^m b_{k, n-k+1}(u) du, with
  b the Beta(k, n - k + 1) density (the k-th smallest of n uniforms), a polynomial of
  degree n - 1: on a constant piece, x^m times the piece's Beta probability; on a linear
  piece, Gauss-Legendre with enough nodes for degree n - 1 + m.
- :func:`quadrature_between_breaks` and :func:`quadrature_sum`: int f(t) dt where f, on
  each interval between break points, is a polynomial of a known degree in the
  distribution functions F(t / c) of scaled copies (each linear there): the replica-cost
  sums of :mod:`straggler.engines.analysis.replica_bounds`.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np


class QuantilePieces(NamedTuple):
    """Q(u) = x0 + (u - u0) (x1 - x0) / (u1 - u0) on each [u0, u1] (x0 = x1: an atom of
    mass u1 - u0). The pieces are sorted by u, cover [0, 1] and have positive width."""

    u0: np.ndarray
    u1: np.ndarray
    x0: np.ndarray
    x1: np.ndarray


def pieces(u0, u1, x0, x1) -> QuantilePieces:
    """The pieces with positive width, as float arrays."""
    u0, u1, x0, x1 = (np.asarray(a, dtype=float) for a in (u0, u1, x0, x1))
    keep = u1 > u0
    return QuantilePieces(u0[keep], u1[keep], x0[keep], x1[keep])


@functools.lru_cache(maxsize=32)
def _nodes(g: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(g)


def gauss_legendre(lo: np.ndarray, hi: np.ndarray, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes (pieces x g) and weights (pieces x g) of the g-point Gauss-Legendre rule on
    each [lo_i, hi_i], g the fewest nodes exact for polynomials of ``degree``."""
    g = degree // 2 + 1
    xi, wi = _nodes(g)
    half = 0.5 * (hi - lo)
    mid = 0.5 * (hi + lo)
    return mid[:, None] + half[:, None] * xi[None, :], half[:, None] * wi[None, :]


def order_statistic_moment(q: QuantilePieces, k: int, n: int, m: int) -> float:
    """E[X_{k:n}^m] of the law with quantile pieces ``q`` (module docstring)."""
    from scipy.special import betainc, betaln  # lazy: scipy costs ~0.5 s of import

    a, b = float(k), float(n - k + 1)
    flat = q.x1 == q.x0
    terms = []
    if flat.any():  # an atom: x^m times P(u0 < U_{k:n} <= u1)
        mass = betainc(a, b, q.u1[flat]) - betainc(a, b, q.u0[flat])
        terms.append(q.x0[flat] ** m * mass)
    sloped = ~flat
    if sloped.any():
        u0, u1, x0, x1 = q.u0[sloped], q.u1[sloped], q.x0[sloped], q.x1[sloped]
        u, w = gauss_legendre(u0, u1, n - 1 + m)
        x = x0[:, None] + (u - u0[:, None]) * ((x1 - x0) / (u1 - u0))[:, None]
        log_density = (a - 1.0) * np.log(u) + (b - 1.0) * np.log1p(-u) - betaln(a, b)
        terms.append(np.sum(w * x**m * np.exp(log_density), axis=1))
    return math.fsum(np.concatenate(terms).tolist())


def quadrature_between_breaks(breaks: np.ndarray, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """The nodes (flat) and weights (pieces x g) of Gauss-Legendre rules on the intervals
    between consecutive ``breaks``, exact for an integrand that is a polynomial of at most
    ``degree`` on each: evaluate the integrand at the nodes and give the values to
    :func:`quadrature_sum`. The caller evaluates the integrand rather than passing it
    down: a function of the analysis's, called from here, would run its code from this
    lower layer."""
    lo, hi = breaks[:-1], breaks[1:]
    keep = hi > lo
    t, w = gauss_legendre(lo[keep], hi[keep], degree)
    return t.ravel(), w


def quadrature_sum(weights: np.ndarray, values) -> float:
    """int f(t) dt from ``values`` = f at the nodes of :func:`quadrature_between_breaks`
    (0 over no interval)."""
    if weights.size == 0:
        return 0.0
    values = np.asarray(values, dtype=float).reshape(weights.shape)
    return math.fsum(np.sum(weights * values, axis=1).tolist())


def truncated_curves(q: QuantilePieces, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(E[min(X, t)], E[X 1{X > t}])`` at every ``t`` at once, O((n + len(t)) log n):
    the pieces wholly below t, wholly above it (prefix and suffix sums) and the one piece
    that straddles it, where Q(u) = t at u_c (the speculation paper's load ratio L(tau)
    on a whole grid of timeouts)."""
    t = np.asarray(t, dtype=float)
    width = q.u1 - q.u0
    means = 0.5 * (q.x0 + q.x1) * width  # int Q over each piece
    below_sum = np.concatenate(([0.0], np.cumsum(means)))
    above_width = np.concatenate((np.cumsum(width[::-1])[::-1], [0.0]))
    above_sum = np.concatenate((np.cumsum(means[::-1])[::-1], [0.0]))
    below = np.searchsorted(q.x1, t, side="right")  # pieces 0..below-1 end at or below t
    above = np.searchsorted(q.x0, t, side="right")  # pieces above..n-1 start above t
    mean_min = below_sum[below] + t * above_width[above]
    partial = above_sum[above].copy()
    # pieces below..above-1 straddle t (x0 <= t < x1): at most one, Q being monotone
    mid = below < above
    if mid.any():
        i = below[mid]
        tt = t[mid]
        x0, x1, u0, u1 = q.x0[i], q.x1[i], q.u0[i], q.u1[i]
        uc = u0 + (tt - x0) / (x1 - x0) * (u1 - u0)
        mean_min[mid] += 0.5 * (x0 + tt) * (uc - u0) + tt * (u1 - uc)
        partial[mid] += 0.5 * (tt + x1) * (u1 - uc)
    return mean_min, partial
