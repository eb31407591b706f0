"""What a measured sample looks like, and the parametric families that could stand in
for it (``straggler fit``).

:func:`describe` gives the sample's size, mean, squared coefficient of variation,
quantiles and a Hill estimate of its tail index. :func:`fit_families` fits the families a
paper would have used, each by its standard estimator:

================  ==================================================================
hyperexponential  two balanced phases matching the mean and the scv (scv > 1 only)
lognormal         maximum likelihood: the mean and variance of log x
weibull           maximum likelihood (scipy's ``weibull_min.fit`` with location 0)
pareto            maximum likelihood: xm = the smallest value, alpha = n / sum log(x / xm)
bounded_pareto    low and high the sample's extremes, alpha by maximum likelihood
shifted_exp       the shift the smallest value, the mean the sample's
================  ==================================================================

and measures each fit's distance to the sample: Kolmogorov-Smirnov (the largest gap
between the two distribution functions) and Wasserstein-1 (the area between them, in the
sizes' unit), both computed against the sample's own step function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .base import Distribution
from .exponential import Hyperexponential, ShiftedExponential
from .power_law import BoundedPareto, Pareto
from .weibull_lognormal import Lognormal, Weibull

QUANTILES = (0.5, 0.9, 0.99, 0.999)
"""The quantiles :func:`describe` reports (and the smallest and largest value)."""

HILL_SHARE = 0.05
"""The Hill estimator's share of the sample: the largest 5 % of the values."""


@dataclass(frozen=True)
class Summary:
    """A sample described: its size, first two moments, quantiles and tail."""

    n: int
    mean: float
    scv: float
    minimum: float
    maximum: float
    quantiles: dict[float, float]
    hill_alpha: float
    """The Hill estimate of the tail index alpha (P(X > x) ~ x^-alpha) from the largest
    ``hill_k`` values; NaN when there are not enough positive values."""
    hill_k: int


@dataclass(frozen=True)
class Fit:
    """One family fitted to a sample, or why it could not be."""

    family: str
    law: Distribution | None
    ks: float
    wasserstein: float
    why_not: str = ""


def describe(xs: np.ndarray) -> Summary:
    """The sample ``xs`` (sorted, >= 0) described."""
    n = xs.size
    mean = float(np.mean(xs))
    scv = float(np.var(xs) / mean**2) if mean > 0 else math.nan
    quantiles = {q: float(np.quantile(xs, q)) for q in QUANTILES}
    k = max(int(HILL_SHARE * n), 2)
    alpha = math.nan
    if n > k and xs[n - k - 1] > 0:
        top = xs[n - k :]
        alpha = float(1.0 / np.mean(np.log(top / xs[n - k - 1])))
    return Summary(n, mean, scv, float(xs[0]), float(xs[-1]), quantiles, alpha, k)


def fit_families(xs: np.ndarray) -> list[Fit]:
    """Every family fitted to the sorted sample ``xs``, best first (by KS, then W1);
    the families that cannot be fitted last, each with why."""
    fits = []
    for family, fitter in FITTERS.items():
        try:
            law = fitter(xs)
        except (ValueError, FloatingPointError, RuntimeError) as err:
            fits.append(Fit(family, None, math.nan, math.nan, str(err)))
            continue
        fits.append(Fit(family, law, ks_distance(xs, law), wasserstein_distance(xs, law)))
    fits.sort(key=lambda f: (f.law is None, f.ks if f.law is not None else 0.0, f.wasserstein))
    return fits


def _positive(xs: np.ndarray, family: str) -> np.ndarray:
    if xs[0] <= 0:
        raise ValueError(f"{family} needs sizes > 0; the sample has {int(np.sum(xs <= 0))} of 0")
    return xs


def fit_hyperexponential(xs: np.ndarray) -> Hyperexponential:
    """Two phases with balanced means (p_1 / rate_1 = p_2 / rate_2) matching the sample's
    mean m and scv c^2 > 1: p_1 = (1 + sqrt((c^2 - 1) / (c^2 + 1))) / 2, rate_i = 2 p_i / m."""
    m = float(np.mean(xs))
    scv = float(np.var(xs)) / m**2
    if not scv > 1:
        raise ValueError(f"a hyperexponential has an scv > 1; the sample's is {scv:.3g}")
    p1 = 0.5 * (1.0 + math.sqrt((scv - 1.0) / (scv + 1.0)))
    p = (p1, 1.0 - p1)
    return Hyperexponential(p, tuple(2.0 * pi / m for pi in p))


def fit_lognormal(xs: np.ndarray) -> Lognormal:
    logs = np.log(_positive(xs, "a lognormal"))
    mu, sigma2 = float(np.mean(logs)), float(np.var(logs))
    return Lognormal(math.exp(mu + sigma2 / 2.0), math.sqrt(math.expm1(sigma2)))


def fit_weibull(xs: np.ndarray) -> Weibull:
    from scipy import stats

    shape, _, scale = stats.weibull_min.fit(_positive(xs, "a Weibull law"), floc=0.0)
    return Weibull(float(shape), float(scale))


def fit_pareto(xs: np.ndarray) -> Pareto:
    xm = float(_positive(xs, "a Pareto law")[0])
    total = float(np.sum(np.log(xs / xm)))
    if not total > 0:
        raise ValueError("a Pareto law needs more than one distinct value")
    alpha = xs.size / total
    if not alpha > 1:
        raise ValueError(f"the maximum-likelihood alpha is {alpha:.3g}, at most 1: a Pareto law this heavy has no mean")
    return Pareto(xm, alpha)


def fit_bounded_pareto(xs: np.ndarray) -> BoundedPareto:
    """low and high the extremes, alpha the root of the likelihood equation
    n / alpha + n r^alpha log r / (1 - r^alpha) = sum log(x / low), r = low / high."""
    from scipy import optimize

    low, high = float(_positive(xs, "a bounded Pareto law")[0]), float(xs[-1])
    if not high > low:
        raise ValueError("a bounded Pareto law needs more than one distinct value")
    n, s, log_r = xs.size, float(np.sum(np.log(xs / low))), math.log(low / high)

    def score(alpha: float) -> float:
        ra = math.exp(alpha * log_r)
        return n / alpha + n * ra * log_r / (1.0 - ra) - s

    lo, hi = 1e-6, 1.0
    while score(hi) > 0 and hi < 1e6:
        hi *= 2.0
    if score(lo) * score(hi) > 0:
        raise ValueError("the likelihood has no maximum in alpha in (0, 1e6]")
    return BoundedPareto(low, high, optimize.brentq(score, lo, hi, xtol=1e-12))


def fit_shifted_exponential(xs: np.ndarray) -> ShiftedExponential:
    shift, mean = float(xs[0]), float(np.mean(xs))
    if not mean > shift:
        raise ValueError("a shifted exponential needs more than one distinct value")
    return ShiftedExponential(shift, mean - shift)


FITTERS = {
    "hyperexponential": fit_hyperexponential,
    "lognormal": fit_lognormal,
    "weibull": fit_weibull,
    "pareto": fit_pareto,
    "bounded_pareto": fit_bounded_pareto,
    "shifted_exponential": fit_shifted_exponential,
}


def ks_distance(xs: np.ndarray, law: Distribution) -> float:
    """sup_x |F_n(x) - F(x)|: checked on both sides of every jump of F_n."""
    n = xs.size
    cdf = 1.0 - np.asarray(law.sf(xs), dtype=float)
    below = np.arange(n) / n  # F_n just left of x_(i)
    above = (np.arange(n) + 1.0) / n
    return float(max(np.max(np.abs(cdf - below)), np.max(np.abs(cdf - above))))


GAUSS_NODES, GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(8)


def wasserstein_distance(xs: np.ndarray, law: Distribution) -> float:
    """int_0^inf |F_n(x) - F(x)| dx: below the smallest value int F = x_(1) - E[min(X,
    x_(1))], above the largest int (1 - F) = E[X] - E[min(X, x_(n))], and between two
    consecutive values, where F_n is constant, 8-point Gauss-Legendre on |F_n - F|."""
    n = xs.size
    lo, hi = float(xs[0]), float(xs[-1])
    head = lo - law.mean_min(lo)
    tail = law.mean() - law.mean_min(hi)
    a, b = xs[:-1], xs[1:]
    wide = b > a
    a, b, level = a[wide], b[wide], (np.arange(1, n) / n)[wide]
    half, mid = 0.5 * (b - a), 0.5 * (b + a)
    x = mid[:, None] + half[:, None] * GAUSS_NODES[None, :]
    gap = np.abs(level[:, None] - (1.0 - np.asarray(law.sf(x), dtype=float)))
    body = float(np.sum(half * (gap @ GAUSS_WEIGHTS)))
    return head + body + tail
