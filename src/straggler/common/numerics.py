"""Quadrature and its tolerances: the one numerical toolbox of the package.

Every integral of the package is computed here, by one of a few schemes, each
call site naming its tolerance explicitly: the schemes and tolerances are the ones
each site used when it had its own copy, so every result is the same to the bit.

Tolerances (:class:`Tolerance`, QUADPACK's ``limit``, ``epsabs``, ``epsrel``):

- :data:`RELATIVE_1E11`: purely relative, 400 subintervals; the functionals of the
  job-size families, the threshold paper's known-sizes integrals;
- :data:`RELATIVE_1E10`: with an absolute floor of 1e-14, 200 subintervals; the
  two-replica expectations of the dependence models.

Schemes:

- :func:`quadpack`: one adaptive QUADPACK call;
- :func:`integrate_log_pieces`: ``x = lo e^s``, in doubling pieces of ``s``, an
  infinite tail extrapolated from its decay (power-law tails such as a Pareto
  with ``alpha`` near 1);
- :func:`integrate_log`: ``u = log(x / lo)`` in one call;
- :func:`integrate_resolving_start`: split at break points and near the start of
  the range (a narrow feature near ``a``), wide pieces and tails on a log scale;
- :func:`integrate_split`: split at break points, tails and pieces spanning many
  decades on a log scale;
- :func:`integrate_edges`: over given edges, an infinite last piece in ``x = a e^s``.

scipy is imported lazily: it costs ~0.5 s per process, which every Snakemake job
would pay.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

Integrand = Callable[[float], float]


@dataclass(frozen=True)
class Tolerance:
    """QUADPACK's subinterval limit and absolute and relative error targets."""

    limit: int
    epsabs: float
    epsrel: float


RELATIVE_1E11 = Tolerance(limit=400, epsabs=0.0, epsrel=1e-11)
RELATIVE_1E10 = Tolerance(limit=200, epsabs=1e-14, epsrel=1e-10)


def quadpack(f: Integrand, lo: float, hi: float, tolerance: Tolerance) -> float:
    """``int_lo^hi f`` by one adaptive QUADPACK call (``hi`` may be inf)."""
    from scipy import integrate

    with warnings.catch_warnings():
        # At these tight tolerances QUADPACK often reports round-off although the
        # result is accurate to ~1e-10 or better; the tests check the accuracy
        # against closed forms and Monte Carlo instead.
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return float(
            integrate.quad(f, lo, hi, limit=tolerance.limit, epsabs=tolerance.epsabs, epsrel=tolerance.epsrel)[0]
        )


def _log_integrand(f: Integrand, lo: float) -> Integrand:
    """g(s) = f(lo e^s) lo e^s, the integrand after x = lo e^s."""
    log_lo = math.log(lo)

    def g(s: float) -> float:
        y = log_lo + s
        if y > 709.0:
            return 0.0
        x = math.exp(y)
        v = f(x)
        return v * x if v != 0.0 else 0.0

    return g


# x = lo e^s is followed up to lo e^LOG_TAIL_END (~ lo * 1e100), far enough that
# survival functions have not yet underflowed; the rest is extrapolated.
LOG_TAIL_END = 230.0


def integrate_log_pieces(f: Integrand, lo: float, hi: float, tolerance: Tolerance) -> float:
    """int_lo^hi f(x) dx with x = lo e^s (lo > 0, hi may be inf).

    Power-law tails become exponentials in s and light tails become
    double-exponentials, both of which QUADPACK integrates accurately. An
    infinite range is integrated in doubling pieces up to s = 230, and the rest
    is extrapolated from the local decay rate of the integrand there (exact for
    a power-law tail, negligible for lighter ones; ``inf`` if it does not decay).
    """
    g = _log_integrand(f, lo)
    if math.isfinite(hi):
        # break points at distances 2, 4, 8, ... from either end, so that mass
        # near either end is resolved however many decades the range spans
        S = math.log(hi) - math.log(lo)
        pts = {0.0, S}
        w = 2.0
        while w < S:
            pts.update((w, S - w))
            w *= 2.0
        edges = sorted(pts)
        return math.fsum(quadpack(g, u, v, tolerance) for u, v in zip(edges[:-1], edges[1:]))
    total, a, b = 0.0, 0.0, 2.0
    while a < LOG_TAIL_END:
        part = quadpack(g, a, b, tolerance)
        total += part
        a, b = b, min(2.0 * b, LOG_TAIL_END)
        if total != 0.0 and abs(part) <= 1e-17 * abs(total) and g(a) == 0.0:
            return total
    g1, g2 = g(LOG_TAIL_END - 5.0), g(LOG_TAIL_END)
    if g2 == 0.0:
        return total
    if not g1 > g2:
        return math.inf  # the integrand does not decay: the integral diverges
    return total + g2 * 5.0 / math.log(g1 / g2)


def integrate_resolving_start(
    f: Integrand, a: float, b: float, tolerance: Tolerance, points: Iterable[float] = (), scale: float = 1.0
) -> float:
    """Adaptive quadrature of ``f`` over ``[a, b]`` (``b`` may be inf).

    ``points`` are interior break points (atoms, kinks) that must not be straddled;
    ``scale`` is the natural length scale of the integrand (e.g. the mean). The
    range is cut at ``a + scale * 4^-j`` (j = 0..15), so that a feature much
    narrower than ``scale`` near its start (a fast component of a mixture) is
    not missed; beyond ``a + scale``, a piece spanning more than a factor 64 is
    integrated on a logarithmic scale (:func:`integrate_log_pieces`), and an
    infinite tail is split off at ``scale`` past its start and integrated on a
    logarithmic scale too.
    """
    if not b > a:
        return 0.0
    scale = scale if (math.isfinite(scale) and scale > 0) else 1.0
    cuts = {float(p) for p in points if math.isfinite(p)}
    cuts.update(a + scale * 4.0**-j for j in range(16))
    pts = sorted(p for p in cuts if a < p < b)
    edges = [float(a), *pts, float(b)]
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        if math.isinf(hi):
            head = lo + scale
            total += quadpack(f, lo, head, tolerance)
            total += integrate_log_pieces(f, head, math.inf, tolerance)
        elif lo > 0 and hi / lo > 64.0:
            total += integrate_log_pieces(f, lo, hi, tolerance)
        else:
            total += quadpack(f, lo, hi, tolerance)
    return total


def integrate_log(f: Integrand, lo: float, hi: float, tolerance: Tolerance) -> float:
    """``int_lo^hi f(x) dx`` in ``u = log(x / lo)`` (``lo > 0``, ``hi`` may be inf),
    one QUADPACK call: power tails (Pareto with ``alpha`` near 1) become
    exponential in ``u``."""

    def g(u: float) -> float:
        if u > 700.0:
            return 0.0
        x = lo * math.exp(u)
        v = f(x)
        return v * x if v != 0.0 else 0.0

    return quadpack(g, 0.0, math.log(hi / lo) if math.isfinite(hi) else math.inf, tolerance)


def integrate_split(
    f: Integrand, lo: float, hi: float, tolerance: Tolerance, points: Iterable[float] = (), scale: float = 1.0
) -> float:
    """``int_lo^hi f`` by adaptive quadrature, split at ``points`` (atoms, kinks).

    ``scale`` is the integrand's natural length (a mean): an infinite tail is split
    off at ``scale`` beyond its start, and it and any finite piece spanning many
    decades are integrated on a logarithmic scale (:func:`integrate_log`).
    """
    if not hi > lo:
        return 0.0
    scale = scale if (math.isfinite(scale) and scale > 0) else 1.0
    pts = sorted({float(p) for p in points if lo < p < hi and math.isfinite(p)})
    edges = [float(lo), *pts, float(hi)]
    total = 0.0
    for left, right in zip(edges[:-1], edges[1:]):
        if math.isinf(right) or (left <= 0 and right > 64.0 * scale):
            head = left + scale
            total += quadpack(f, left, head, tolerance) + integrate_log(f, head, right, tolerance)
        elif left > 0 and right / left > 64.0:
            total += integrate_log(f, left, right, tolerance)
        else:
            total += quadpack(f, left, right, tolerance)
    return total


def integrate_edges(f: Integrand, edges: Sequence[float], tolerance: Tolerance) -> float:
    """``int f`` over consecutive ``edges`` (sorted); an infinite last piece
    ``[a, inf)`` is integrated in ``x = a e^s`` (``a > 0``)."""
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if math.isinf(b):
            g = lambda s, a=a: f(a * math.exp(s)) * a * math.exp(s) if s < 700 else 0.0  # noqa: E731
            total += quadpack(g, 0.0, math.inf, tolerance)
        elif b > a:
            total += quadpack(f, a, b, tolerance)
    return total
