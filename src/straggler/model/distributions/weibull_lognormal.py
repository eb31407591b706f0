"""The Weibull and lognormal families: continuous laws on (0, inf) with closed forms
through the incomplete gamma function and the normal distribution."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import Distribution, check_d, check_factor, erfc_vec, exp_or_inf, norm_cdf, scalar_or_array
from .codes import LOGNORMAL_CODE, WEIBULL_CODE
from .parameters import positive


@dataclass(frozen=True)
class Weibull(Distribution):
    """P(X > x) = exp(-(x / scale)^shape)."""

    shape: float
    scale: float
    family: ClassVar[str] = "weibull"
    code: ClassVar[int] = WEIBULL_CODE
    schema: ClassVar[dict] = {"shape": positive("Shape."), "scale": positive("Scale.")}

    def __post_init__(self):
        self._positive("shape")
        self._positive("scale")

    def sf(self, x):
        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        return scalar_or_array(x, np.exp(-((x / self.scale) ** self.shape)))

    def _sf_scalar(self, x: float) -> float:
        if x <= 0:
            return 1.0
        y = self.shape * math.log(x / self.scale)
        return 0.0 if y > 700.0 else math.exp(-math.exp(y))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        k, s = self.shape, self.scale
        z = np.maximum(x, 0.0) / s
        with np.errstate(divide="ignore", invalid="ignore"):
            out = k / s * z ** (k - 1.0) * np.exp(-(z**k))
        return scalar_or_array(x, np.where(x < 0, 0.0, out))

    def _pdf_scalar(self, x: float) -> float:
        if x < 0:
            return 0.0
        k, s = self.shape, self.scale
        z = x / s
        if z == 0:
            return math.inf if k < 1 else (1.0 / s if k == 1 else 0.0)
        y = k * math.log(z)
        if y > 700.0:
            return 0.0
        return k / s * z ** (k - 1.0) * math.exp(-math.exp(y))

    def _moment(self, m: int) -> float:
        """E[X^m] = scale^m Gamma(1 + m / shape)."""
        return exp_or_inf(m * math.log(self.scale) + math.lgamma(1.0 + m / self.shape))

    def mean(self) -> float:
        return self._moment(1)

    def second_moment(self) -> float:
        return self._moment(2)

    def scaled(self, factor: float) -> Weibull:
        return replace(self, scale=self.scale * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        return np.array([self.shape, self.scale], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    # E[X^m 1{X <= t}] = E[X^m] P(1 + m/shape, (t/scale)^shape)
    def _truncated(self, m: int, t: float, upper: bool) -> float:
        from scipy import special

        a = 1.0 + m / self.shape
        z = (max(t, 0.0) / self.scale) ** self.shape
        frac = special.gammaincc(a, z) if upper else special.gammainc(a, z)
        return self._moment(m) * float(frac)

    def mean_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.mean()
        return self._truncated(1, t, upper=False) + t * self._sf_scalar(t)

    def second_moment_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        return self._truncated(2, t, upper=False) + t * t * self._sf_scalar(t)

    def partial_mean(self, c: float) -> float:
        if math.isinf(c):
            return 0.0
        return self._truncated(1, c, upper=True)

    def partial_second_moment(self, c: float) -> float:
        if math.isinf(c):
            return 0.0
        return self._truncated(2, c, upper=True)

    def mean_min_of(self, d: int) -> float:
        # the minimum of d i.i.d. copies is Weibull(shape, scale d^(-1/shape))
        return self._moment(1) * check_d(d) ** (-1.0 / self.shape)

    def tail_class(self, on_support: bool = False) -> str:
        # log P(X > x) = -(x/scale)^shape: concave for shape >= 1, convex for <= 1
        if self.shape == 1:
            return "both"
        return "log-concave" if self.shape > 1 else "log-convex"


@dataclass(frozen=True)
class Lognormal(Distribution):
    """exp(N(mu, sigma^2)) parametrised by its mean ``mean_value`` (config: ``mean``)
    and coefficient of variation ``cv``: sigma^2 = log(1 + cv^2),
    mu = log(mean) - sigma^2 / 2."""

    mean_value: float
    cv: float
    family: ClassVar[str] = "lognormal"
    code: ClassVar[int] = LOGNORMAL_CODE
    schema: ClassVar[dict] = {"mean": positive("Mean."), "cv": positive("Coefficient of variation.")}
    _config_names: ClassVar[dict[str, str]] = {"mean": "mean_value"}

    def __post_init__(self):
        self._positive("mean_value")
        self._positive("cv")

    @property
    def sigma(self) -> float:
        return math.sqrt(math.log1p(self.cv**2))

    @property
    def mu(self) -> float:
        return math.log(self.mean_value) - 0.5 * math.log1p(self.cv**2)

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore"):
            z = (np.log(np.maximum(x, 0.0)) - self.mu) / self.sigma
        return scalar_or_array(x, 0.5 * erfc_vec(z / math.sqrt(2.0)))

    def _sf_scalar(self, x: float) -> float:
        if x <= 0:
            return 1.0
        return 0.5 * math.erfc((math.log(x) - self.mu) / (self.sigma * math.sqrt(2.0)))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        s, mu = self.sigma, self.mu
        xs = np.maximum(x, 1e-300)
        out = np.exp(-0.5 * ((np.log(xs) - mu) / s) ** 2) / (xs * s * math.sqrt(2 * math.pi))
        return scalar_or_array(x, np.where(x <= 0, 0.0, out))

    def _pdf_scalar(self, x: float) -> float:
        if x <= 0:
            return 0.0
        s = self.sigma
        return math.exp(-0.5 * ((math.log(x) - self.mu) / s) ** 2) / (x * s * math.sqrt(2 * math.pi))

    def _moment(self, m: int) -> float:
        return self.mean_value**m * (1.0 + self.cv**2) ** (m * (m - 1) / 2)

    def mean(self) -> float:
        return self.mean_value

    def second_moment(self) -> float:
        return self._moment(2)

    def scaled(self, factor: float) -> Lognormal:
        return replace(self, mean_value=self.mean_value * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        # [mu, sigma] of the underlying normal
        return np.array([self.mu, self.sigma], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    # E[X^m 1{X <= t}] = E[X^m] Phi((log t - mu - m sigma^2) / sigma)
    def mean_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.mean()
        s = self.sigma
        return self._moment(1) * norm_cdf((math.log(t) - self.mu - s * s) / s) + t * self._sf_scalar(t)

    def second_moment_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        s = self.sigma
        return self._moment(2) * norm_cdf((math.log(t) - self.mu - 2 * s * s) / s) + t * t * self._sf_scalar(t)

    def partial_mean(self, c: float) -> float:
        if c <= 0:
            return self.mean()
        if math.isinf(c):
            return 0.0
        s = self.sigma
        return self._moment(1) * norm_cdf((self.mu + s * s - math.log(c)) / s)

    def partial_second_moment(self, c: float) -> float:
        if c <= 0:
            return self.second_moment()
        if math.isinf(c):
            return 0.0
        s = self.sigma
        return self._moment(2) * norm_cdf((self.mu + 2 * s * s - math.log(c)) / s)

    # mean_min_of: quadrature (base class)

    def tail_class(self, on_support: bool = False) -> str:
        # the hazard rate rises and then falls: log P(X > x) is concave, then convex
        return "neither"
