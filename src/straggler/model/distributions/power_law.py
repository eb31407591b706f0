"""The power-law families: Pareto type I and the Pareto truncated to a bounded interval."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import Distribution, check_d, check_factor, expint, format_value, scalar_or_array
from .codes import BOUNDED_PARETO_CODE, PARETO_CODE
from .parameters import positive


@dataclass(frozen=True)
class Pareto(Distribution):
    """Pareto type I: P(X > x) = (xm / x)^alpha for x >= xm.

    ``alpha > 1`` is required (finite mean); E[X^2] is infinite for alpha <= 2.
    """

    xm: float
    alpha: float
    family: ClassVar[str] = "pareto"
    code: ClassVar[int] = PARETO_CODE
    schema: ClassVar[dict] = {
        "xm": positive(
            "Scale, the smallest size; the mean is alpha xm / (alpha - 1), so for a mean m set "
            "xm = m (alpha - 1) / alpha or add scale_to_mean: m (Pareto takes no mean)."
        ),
        "alpha": {"type": "number", "exclusiveMinimum": 1, "description": "Tail index; > 1 for a finite mean."},
    }

    def __post_init__(self):
        self._positive("xm")
        self._positive("alpha")
        if not self.alpha > 1:
            self._fail(f"alpha must be > 1 so that the mean is finite, got {format_value(self.alpha)}")

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore"):
            out = np.where(x < self.xm, 1.0, (self.xm / np.maximum(x, self.xm)) ** self.alpha)
        return scalar_or_array(x, out)

    def _sf_scalar(self, x: float) -> float:
        return 1.0 if x < self.xm else (self.xm / x) ** self.alpha

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        xs = np.maximum(x, self.xm)
        out = np.where(x < self.xm, 0.0, self.alpha / xs * (self.xm / xs) ** self.alpha)
        return scalar_or_array(x, out)

    def _pdf_scalar(self, x: float) -> float:
        return 0.0 if x < self.xm else self.alpha / x * (self.xm / x) ** self.alpha

    def mean(self) -> float:
        return self.alpha * self.xm / (self.alpha - 1.0)

    def second_moment(self) -> float:
        a = self.alpha
        return a * self.xm**2 / (a - 2.0) if a > 2 else math.inf

    def scaled(self, factor: float) -> Pareto:
        return replace(self, xm=self.xm * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        return np.array([self.xm, self.alpha], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (self.xm, math.inf)

    def mean_min(self, t: float) -> float:
        if t <= self.xm:
            return max(t, 0.0)
        if math.isinf(t):
            return self.mean()
        xm, a = self.xm, self.alpha
        # xm + int_xm^t (xm/x)^a dx, with x = xm e^s
        return xm + xm * expint(1.0 - a, math.log(t / xm))

    def second_moment_min(self, t: float) -> float:
        if t <= self.xm:
            return max(t, 0.0) ** 2
        if math.isinf(t):
            return self.second_moment()
        xm, a = self.xm, self.alpha
        return xm * xm + 2.0 * xm * xm * expint(2.0 - a, math.log(t / xm))

    def partial_mean(self, c: float) -> float:
        if c < self.xm:
            return self.mean()
        if math.isinf(c):
            return 0.0
        a = self.alpha
        return a / (a - 1.0) * c * (self.xm / c) ** a

    def partial_second_moment(self, c: float) -> float:
        a = self.alpha
        if a <= 2:
            return math.inf
        if c < self.xm:
            return self.second_moment()
        if math.isinf(c):
            return 0.0
        return a / (a - 2.0) * c * c * (self.xm / c) ** a

    def tail_index(self) -> float:
        return self.alpha

    def mean_min_of(self, d: int) -> float:
        # the minimum of d i.i.d. Pareto(xm, alpha) is Pareto(xm, d alpha)
        da = check_d(d) * self.alpha
        return da * self.xm / (da - 1.0)

    def tail_class(self, on_support: bool = False) -> str:
        # log P(X > x) = alpha log(xm / x) is convex on the support [xm, inf), but
        # it is 0 on [0, xm): the kink at xm is concave, so on x >= 0 the tail is
        # neither (r E[X_{1:r}] = r^2 alpha xm / (r alpha - 1) falls, then rises).
        return "log-convex" if on_support else "neither"


@dataclass(frozen=True)
class BoundedPareto(Distribution):
    """Pareto truncated to [low, high]: density proportional to x^-(alpha+1) there.

    Any ``alpha > 0`` is allowed (all moments are finite).
    """

    low: float
    high: float
    alpha: float
    family: ClassVar[str] = "bounded_pareto"
    code: ClassVar[int] = BOUNDED_PARETO_CODE
    schema: ClassVar[dict] = {
        "low": positive("Smallest size."),
        "high": positive("Largest size (> low)."),
        "alpha": positive("Tail index."),
    }

    def __post_init__(self):
        self._positive("low")
        self._positive("high")
        self._positive("alpha")
        if not self.low < self.high:
            self._fail(f"low must be < high, got low={format_value(self.low)}, high={format_value(self.high)}")

    # normalising constant: C = alpha / (1 - (low/high)^alpha)
    def _c(self) -> float:
        return self.alpha / -math.expm1(-self.alpha * math.log(self.high / self.low))

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        L, H, a = self.low, self.high, self.alpha
        xs = np.clip(x, L, H)
        # ((L/x)^a - (L/H)^a) / (1 - (L/H)^a), written without cancellation near H
        body = (L / xs) ** a * -np.expm1(-a * np.log(H / xs)) * self._c() / a
        out = np.where(x < L, 1.0, np.where(x >= H, 0.0, body))
        return scalar_or_array(x, out)

    def _sf_scalar(self, x: float) -> float:
        L, H, a = self.low, self.high, self.alpha
        if x < L:
            return 1.0
        if x >= H:
            return 0.0
        return (L / x) ** a * -math.expm1(-a * math.log(H / x)) * self._c() / a

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        L, H, a = self.low, self.high, self.alpha
        xs = np.clip(x, L, H)
        out = np.where((x < L) | (x > H), 0.0, self._c() / xs * (L / xs) ** a)
        return scalar_or_array(x, out)

    def _pdf_scalar(self, x: float) -> float:
        if x < self.low or x > self.high:
            return 0.0
        return self._c() / x * (self.low / x) ** self.alpha

    def _lower(self, m: int, t: float) -> float:
        """E[X^m 1{X <= t}] for low <= t <= high."""
        L, a = self.low, self.alpha
        return self._c() * L**m * expint(m - a, math.log(t / L))

    def _upper(self, m: int, c: float) -> float:
        """E[X^m 1{X > c}] for low <= c <= high."""
        L, H, a = self.low, self.high, self.alpha
        return self._c() * c**m * (L / c) ** a * expint(m - a, math.log(H / c))

    def mean(self) -> float:
        return self._lower(1, self.high)

    def second_moment(self) -> float:
        return self._lower(2, self.high)

    def scaled(self, factor: float) -> BoundedPareto:
        f = check_factor(factor)
        return replace(self, low=self.low * f, high=self.high * f)

    def sampler_params(self) -> np.ndarray:
        # [low, high, alpha, 1 - (low/high)^alpha]
        one_minus_r = -math.expm1(-self.alpha * math.log(self.high / self.low))
        return np.array([self.low, self.high, self.alpha, one_minus_r], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)

    def mean_min(self, t: float) -> float:
        if t <= self.low:
            return max(t, 0.0)
        if t >= self.high:
            return self.mean()
        return self._lower(1, t) + t * self._sf_scalar(t)

    def second_moment_min(self, t: float) -> float:
        if t <= self.low:
            return max(t, 0.0) ** 2
        if t >= self.high:
            return self.second_moment()
        return self._lower(2, t) + t * t * self._sf_scalar(t)

    def partial_mean(self, c: float) -> float:
        if c < self.low:
            return self.mean()
        if c >= self.high:
            return 0.0
        return self._upper(1, c)

    def partial_second_moment(self, c: float) -> float:
        if c < self.low:
            return self.second_moment()
        if c >= self.high:
            return 0.0
        return self._upper(2, c)

    # mean_min_of: quadrature (base class)

    def tail_class(self, on_support: bool = False) -> str:
        # log P(X > x) = log(x^-a - H^-a) + const has second derivative of the sign
        # of 1 - (a + 1) (x / H)^a: convex (Pareto-like) for x < H (a+1)^(-1/a) and
        # concave near the upper bound, where the survival function drops to 0. So
        # the tail is "neither" unless the support starts past the inflection point,
        # in which case it is log-concave on the whole support (and on x >= 0: the
        # kink at low is concave).
        if self.low >= self.high * (1.0 + self.alpha) ** (-1.0 / self.alpha):
            return "log-concave"
        return "neither"
