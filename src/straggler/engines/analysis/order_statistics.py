"""Order statistics of task sizes: moments of X_{k:n} and of the fastest of d replicas.

``X_{k:n}`` is the k-th smallest of ``n`` i.i.d. copies of ``X`` (fork-join paper,
Joshi, Soljanin, Wornell, arXiv 1508.03599v3, section 2); :mod:`.forkjoin` builds
its latency and cost results on them.
"""

from __future__ import annotations

import math

import numpy as np

from ...common.numerics import RELATIVE_1E11, integrate_resolving_start
from ...model.dependence import IID, SX, Dependence, Identical, Mixture, over_branches
from ...model.distributions import (
    Deterministic,
    Distribution,
    Exponential,
    Pareto,
    ShiftedExponential,
    Uniform,
    Weibull,
    pieces,
)

__all__ = [
    "check_kn",
    "order_statistic_moment",
    "order_statistic_mean",
    "order_statistic_second_moment",
    "replica_min_moment",
]


def check_kn(k: int, n: int) -> tuple[int, int]:
    """``(k, n)`` as ints, after checking that they are integers with ``1 <= k <= n``."""
    if not (float(n).is_integer() and float(k).is_integer() and 1 <= k <= n):
        raise ValueError(f"need integers 1 <= k <= n, got k = {k!r}, n = {n!r}")
    return int(k), int(n)


def _exp_order_moments(theta: float, k: int, n: int) -> tuple[float, float]:
    """``(E[Y_{k:n}], E[Y_{k:n}^2])`` for Y ~ Exp(mean theta): Renyi's representation
    ``Y_{k:n} = theta sum_{i<k} E_i / (n - i)`` with independent standard exponentials."""
    m1 = theta * math.fsum(1.0 / (n - i) for i in range(k))
    var = theta * theta * math.fsum(1.0 / (n - i) ** 2 for i in range(k))
    return m1, var + m1 * m1


def _closed_form(X: Distribution, k: int, n: int, m: int) -> float | None:
    """Closed forms of ``E[X_{k:n}^m]`` (m = 1, 2), or ``None``."""
    if isinstance(X, Exponential):
        return _exp_order_moments(X.mean_value, k, n)[m - 1]
    if isinstance(X, ShiftedExponential):
        e1, e2 = _exp_order_moments(X.tail_mean, k, n)
        d = X.shift
        return d + e1 if m == 1 else d * d + 2.0 * d * e1 + e2
    if isinstance(X, Deterministic):
        return X.value**m
    if isinstance(X, Uniform):
        lo, w = X.low, X.high - X.low
        u1 = k / (n + 1.0)  # U_{k:n} ~ Beta(k, n - k + 1)
        u2 = k * (k + 1.0) / ((n + 1.0) * (n + 2.0))
        return lo + w * u1 if m == 1 else lo * lo + 2.0 * lo * w * u1 + w * w * u2
    if isinstance(X, Pareto):
        # X = xm U^(-1/alpha); X_{k:n} = xm U_{(n-k+1):n}^(-1/alpha), and
        # E[U_{j:n}^-s] = n! Gamma(j - s) / ((j - 1)! Gamma(n + 1 - s)) for s < j
        j, s = n - k + 1, m / X.alpha
        if not j > s:
            return math.inf
        lg = math.lgamma(n + 1) + math.lgamma(j - s) - math.lgamma(j) - math.lgamma(n + 1 - s)
        return X.xm**m * math.exp(lg)
    if isinstance(X, Weibull) and k == 1:
        # the minimum of n Weibulls is Weibull(shape, scale n^(-1/shape))
        c = X.shape
        return (X.scale * n ** (-1.0 / c)) ** m * math.gamma(1.0 + m / c)
    if k == 1 and m == 1:
        return X.mean_min_of(n)  # closed form or exact sum in most families
    return None


def _atomic(X: Distribution) -> tuple[np.ndarray, np.ndarray] | None:
    pm = [(float(v), float(q)) for v, q in X.point_masses() if q > 0]
    if pm and abs(sum(q for _, q in pm) - 1.0) < 1e-9:
        v, q = zip(*sorted(pm))
        return np.asarray(v), np.asarray(q) / sum(q)
    return None


def order_statistic_moment(X: Distribution, k: int, n: int, m: int = 1) -> float:
    """``E[X_{k:n}^m]`` (m = 1 or 2): the k-th smallest of ``n`` i.i.d. copies of ``X``.

    Fork-join paper, section 2.1 (notation ``X_{k:n}``; docs: reference results, section 4).
    Closed forms: exponential ``E[X_{k:n}] = (H_n - H_{n-k}) / mu`` and its second
    moment from Renyi's representation; shifted exponential (``Delta`` plus the
    exponential's); deterministic; uniform (Beta order statistics); Pareto type I
    (``xm^m n! Gamma(n-k+1-m/alpha) / ((n-k)! Gamma(n+1-m/alpha))``, ``inf`` when
    ``(n-k+1) alpha <= m``); Weibull minima; ``k = 1, m = 1`` through
    :meth:`Distribution.mean_min_of`. Purely atomic laws: an exact finite sum; laws
    with a piecewise linear quantile function (an interpolated sample, a quantile
    table): an exact sum over its pieces (:func:`..distributions.pieces.order_statistic_moment`).
    Otherwise ``int_0^inf m x^(m-1) P(X_{k:n} > x) dx`` by adaptive quadrature with
    the numerically stable form

        P(X_{k:n} > x) = sum_{i<k} C(n,i) F(x)^i S(x)^(n-i) = I_{S(x)}(n-k+1, k)

    (the regularised incomplete beta function of the survival function ``S``, so
    no ``1 - F`` cancellation in the tail).
    """
    k, n = check_kn(k, n)
    if m not in (1, 2):
        raise ValueError(f"m must be 1 or 2, got {m!r}")
    cf = _closed_form(X, k, n, m)
    if cf is not None:
        return float(cf)
    # Only Pareto has infinite moments among the families, and it is closed form above.
    from scipy.special import betainc  # lazy: scipy costs ~0.5 s of import

    law = _atomic(X)
    if law is not None:
        v, q = law
        sf_after = np.clip(1.0 - np.cumsum(q), 0.0, 1.0)  # P(X > v_j)
        cdf_y = 1.0 - betainc(n - k + 1, k, sf_after)  # P(X_{k:n} <= v_j)
        mass = np.diff(np.concatenate(([0.0], cdf_y)))
        return float(np.dot(mass, v**m))
    linear = X.quantile_pieces()
    if linear is not None:  # a tabulated law: an exact sum over its quantile function's pieces
        return pieces.order_statistic_moment(linear, k, n, m)

    def tail(x: float) -> float:
        s = X._sf_scalar(x)
        if s >= 1.0:
            return 1.0
        if s <= 0.0:
            return 0.0
        return float(betainc(n - k + 1, k, s))

    lo, hi = X.support()
    if m == 1:
        f = tail
    else:

        def f(x: float) -> float:
            t = tail(x)
            return 2.0 * x * t if t else 0.0

    head = lo**m  # P(X_{k:n} > x) = 1 below the support
    return head + integrate_resolving_start(f, lo, hi, RELATIVE_1E11, X.breaks(), X.mean())


def order_statistic_mean(X: Distribution, k: int, n: int) -> float:
    """``E[X_{k:n}]``: see :func:`order_statistic_moment`."""
    return order_statistic_moment(X, k, n, 1)


def order_statistic_second_moment(X: Distribution, k: int, n: int) -> float:
    """``E[X_{k:n}^2]``: see :func:`order_statistic_moment`."""
    return order_statistic_moment(X, k, n, 2)


def replica_min_moment(X: Distribution, dep: Dependence, d: int, m: int = 1) -> float:
    """``E[min(X_1, ..., X_d)^m]`` of the ``d`` replica sizes of one job (m = 1, 2).

    - identical: ``E[X^m]``;
    - iid: ``E[X_{1:d}^m]`` (:func:`order_statistic_moment`);
    - sx (``X_i = X S_i``): ``E[X^m] E[S_{1:d}^m]``;
    - mixture: ``c E[X^m] + (1 - c) E[X_{1:d}^m]`` (linear in the copies' joint law).

    This extends the fork-join paper's i.i.d. ``X_{1:n}`` to the project's replica
    dependences; the redundancy-d PS paper (Raaijmakers, Borst and Boxma, arXiv
    1912.00681, Conjecture 1) uses the
    first moment.
    """
    d = int(d)
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    if m not in (1, 2):
        raise ValueError(f"m must be 1 or 2, got {m!r}")
    if isinstance(dep, Mixture):
        return over_branches(dep, lambda branch: replica_min_moment(X, branch, d, m))
    xm = X.mean() if m == 1 else X.second_moment()
    if isinstance(dep, Identical):
        return xm
    if isinstance(dep, IID):
        return order_statistic_moment(X, 1, d, m)
    if isinstance(dep, SX):
        sm = order_statistic_moment(dep.slowdown, 1, d, m)
        return 0.0 if (xm == 0.0 or sm == 0.0) else xm * sm
    raise ValueError(f"unknown dependence {dep!r}")
