"""The job-size families (DESIGN.md, "Distribution families"): one frozen dataclass
each, with the closed forms it has; the rest is the base class's quadrature."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import (
    Distribution,
    ParameterError,
    check_d,
    check_factor,
    erfc_vec,
    exp_or_inf,
    expint,
    format_value,
    is_number,
    norm_cdf,
    scalar_or_array,
)
from .sampling import (
    BOUNDED_PARETO_CODE,
    DETERMINISTIC_CODE,
    DISCRETE_CODE,
    ERLANG_CODE,
    EXPONENTIAL_CODE,
    HYPEREXPONENTIAL_CODE,
    LOGNORMAL_CODE,
    PARETO_CODE,
    SHIFTED_EXPONENTIAL_CODE,
    UNIFORM_CODE,
    WEIBULL_CODE,
)

# ----------------------------------------------------------------------------------
# families
# ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exponential(Distribution):
    """Exponential with mean ``mean_value`` (config: ``mean``)."""

    mean_value: float = 1.0
    family: ClassVar[str] = "exponential"
    code: ClassVar[int] = EXPONENTIAL_CODE
    _config_names: ClassVar[dict[str, str]] = {"mean": "mean_value"}

    def __post_init__(self):
        self._positive("mean_value")

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return scalar_or_array(x, np.exp(-np.maximum(x, 0.0) / self.mean_value))

    def _sf_scalar(self, x: float) -> float:
        return math.exp(-max(x, 0.0) / self.mean_value)

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        m = self.mean_value
        return scalar_or_array(x, np.where(x < 0, 0.0, np.exp(-np.maximum(x, 0.0) / m) / m))

    def mean(self) -> float:
        return self.mean_value

    def second_moment(self) -> float:
        return 2.0 * self.mean_value**2

    def scaled(self, factor: float) -> Exponential:
        return replace(self, mean_value=self.mean_value * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        return np.array([self.mean_value], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    def mean_min(self, t: float) -> float:
        m = self.mean_value
        return 0.0 if t <= 0 else -m * math.expm1(-t / m)

    def second_moment_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        m = self.mean_value
        # int_0^t 2x e^{-x/m} dx = 2 m^2 (1 - e^{-t/m} (1 + t/m))
        if math.isinf(t):
            return 2.0 * m * m
        u = t / m
        return 2.0 * m * m * (-math.expm1(-u) - u * math.exp(-u))

    def partial_mean(self, c: float) -> float:
        c = max(c, 0.0)
        if math.isinf(c):
            return 0.0
        return (c + self.mean_value) * math.exp(-c / self.mean_value)

    def partial_second_moment(self, c: float) -> float:
        c = max(c, 0.0)
        if math.isinf(c):
            return 0.0
        m = self.mean_value
        return (c * c + 2 * c * m + 2 * m * m) * math.exp(-c / m)

    def mean_min_of(self, d: int) -> float:
        return self.mean_value / check_d(d)

    def tail_class(self, on_support: bool = False) -> str:
        return "both"


@dataclass(frozen=True)
class Deterministic(Distribution):
    """X = ``value`` with probability 1."""

    value: float = 1.0
    family: ClassVar[str] = "deterministic"
    code: ClassVar[int] = DETERMINISTIC_CODE

    def __post_init__(self):
        self._positive("value")

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return scalar_or_array(x, np.where(x < self.value, 1.0, 0.0))

    def _sf_scalar(self, x: float) -> float:
        return 1.0 if x < self.value else 0.0

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        return scalar_or_array(x, np.zeros_like(x))

    def point_masses(self):
        return ((self.value, 1.0),)

    def mean(self) -> float:
        return self.value

    def second_moment(self) -> float:
        return self.value**2

    def scaled(self, factor: float) -> Deterministic:
        return replace(self, value=self.value * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        return np.array([self.value], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (self.value, self.value)

    def mean_min(self, t: float) -> float:
        return min(max(t, 0.0), self.value)

    def second_moment_min(self, t: float) -> float:
        return min(max(t, 0.0), self.value) ** 2

    def partial_mean(self, c: float) -> float:
        return self.value if c < self.value else 0.0

    def partial_second_moment(self, c: float) -> float:
        return self.value**2 if c < self.value else 0.0

    def mean_min_of(self, d: int) -> float:
        check_d(d)
        return self.value

    def tail_class(self, on_support: bool = False) -> str:
        return "log-concave"


@dataclass(frozen=True)
class Pareto(Distribution):
    """Pareto type I: P(X > x) = (xm / x)^alpha for x >= xm.

    ``alpha > 1`` is required (finite mean); E[X^2] is infinite for alpha <= 2.
    """

    xm: float
    alpha: float
    family: ClassVar[str] = "pareto"
    code: ClassVar[int] = PARETO_CODE

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


@dataclass(frozen=True)
class ShiftedExponential(Distribution):
    """``shift + Exp``, where ``tail_mean`` is the mean of the exponential part:
    E[X] = shift + tail_mean.

    In the config, ``mean`` is E[X] as in every family (so ``mean > shift``);
    :meth:`from_config` turns it into ``tail_mean = mean - shift``. The fields keep
    the exponential part's mean because the closed forms are written in it.
    """

    shift: float
    tail_mean: float
    family: ClassVar[str] = "shifted_exponential"
    code: ClassVar[int] = SHIFTED_EXPONENTIAL_CODE

    def __post_init__(self):
        self._positive("shift", allow_zero=True)
        self._positive("tail_mean")

    @classmethod
    def config_parameters(cls) -> tuple[str, ...]:
        return ("shift", "mean")

    @classmethod
    def from_config(cls, params: dict) -> ShiftedExponential:
        shift, mean = params["shift"], params["mean"]
        for name, value, allow_zero in (("shift", shift, True), ("mean", mean, False)):
            if not is_number(value) or not math.isfinite(float(value)) or value < 0 or (value == 0 and not allow_zero):
                what = "a non-negative" if allow_zero else "a positive"
                raise ValueError(f"{cls.family}: {name} must be {what} finite number, got {format_value(value)}")
        if not mean > shift:
            # the old spelling read mean as the exponential part's mean: say so, and how to keep a law
            raise ParameterError(
                "mean",
                f"{cls.family}: mean {format_value(mean)} is not allowed: mean is E[X] and must exceed "
                f"shift = {format_value(shift)}; changed: mean used to be the mean of the exponential part "
                f"alone (E[X] = shift + mean), so the law written before as shift: {format_value(shift)}, "
                f"mean: {format_value(mean)} is now mean: {format_value(shift + mean)}",
            )
        return cls(shift=shift, tail_mean=mean - shift)

    def config_values(self) -> dict:
        return {"shift": self.shift, "mean": self.shift + self.tail_mean}

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        out = np.exp(-np.maximum(x - self.shift, 0.0) / self.tail_mean)
        return scalar_or_array(x, out)

    def _sf_scalar(self, x: float) -> float:
        return math.exp(-max(x - self.shift, 0.0) / self.tail_mean)

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        m = self.tail_mean
        out = np.where(x < self.shift, 0.0, np.exp(-np.maximum(x - self.shift, 0.0) / m) / m)
        return scalar_or_array(x, out)

    def mean(self) -> float:
        return self.shift + self.tail_mean

    def second_moment(self) -> float:
        return self.tail_mean**2 + (self.shift + self.tail_mean) ** 2

    def scaled(self, factor: float) -> ShiftedExponential:
        f = check_factor(factor)
        return replace(self, shift=self.shift * f, tail_mean=self.tail_mean * f)

    def sampler_params(self) -> np.ndarray:
        return np.array([self.shift, self.tail_mean], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (self.shift, math.inf)

    def mean_min(self, t: float) -> float:
        s, m = self.shift, self.tail_mean
        if t <= s:
            return max(t, 0.0)
        if math.isinf(t):
            return self.mean()
        return s - m * math.expm1(-(t - s) / m)

    def second_moment_min(self, t: float) -> float:
        s, m = self.shift, self.tail_mean
        if t <= s:
            return max(t, 0.0) ** 2
        if math.isinf(t):
            return self.second_moment()
        u = (t - s) / m
        e = math.exp(-u)
        # s^2 + int_0^{t-s} 2 (y + s) e^{-y/m} dy
        return s * s + 2.0 * m * m * (-math.expm1(-u) - u * e) - 2.0 * s * m * math.expm1(-u)

    def partial_mean(self, c: float) -> float:
        s, m = self.shift, self.tail_mean
        if c < s:
            return self.mean()
        if math.isinf(c):
            return 0.0
        return (c + m) * math.exp(-(c - s) / m)

    def partial_second_moment(self, c: float) -> float:
        s, m = self.shift, self.tail_mean
        if c < s:
            return self.second_moment()
        if math.isinf(c):
            return 0.0
        return (c * c + 2 * c * m + 2 * m * m) * math.exp(-(c - s) / m)

    def mean_min_of(self, d: int) -> float:
        return self.shift + self.tail_mean / check_d(d)

    def tail_class(self, on_support: bool = False) -> str:
        # log P(X > x) is 0 up to the shift, then linear: concave on x >= 0,
        # strictly so (r E[X_{1:r}] = r shift + mean grows with r) unless
        # shift = 0; on the support alone it is linear
        return "log-concave" if (self.shift > 0 and not on_support) else "both"


@dataclass(frozen=True)
class Hyperexponential(Distribution):
    """Mixture of exponentials: with probability ``p[i]`` an Exp of rate ``rates[i]``."""

    p: tuple[float, ...]
    rates: tuple[float, ...]
    family: ClassVar[str] = "hyperexponential"
    code: ClassVar[int] = HYPEREXPONENTIAL_CODE

    def __post_init__(self):
        p = self._probabilities("p")
        raw = self.rates
        rates = self._vector("rates")
        if any(r <= 0 for r in rates):
            self._fail(f"rates must be positive, got {format_value(raw)}")
        if len(p) != len(rates):
            self._fail(f"p and rates must have the same length, got {len(p)} and {len(rates)}")

    def _components(self) -> list[tuple[float, float]]:
        return [(p, r) for p, r in zip(self.p, self.rates) if p > 0]

    def sf(self, x):
        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        out = sum(p * np.exp(-r * x) for p, r in self._components())
        return scalar_or_array(x, np.asarray(out, dtype=float))

    def _sf_scalar(self, x: float) -> float:
        x = max(x, 0.0)
        return math.fsum(p * math.exp(-r * x) for p, r in self._components())

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        xs = np.maximum(x, 0.0)
        out = sum(p * r * np.exp(-r * xs) for p, r in self._components())
        return scalar_or_array(x, np.where(x < 0, 0.0, out))

    def mean(self) -> float:
        return math.fsum(p / r for p, r in self._components())

    def second_moment(self) -> float:
        return math.fsum(2.0 * p / (r * r) for p, r in self._components())

    def scaled(self, factor: float) -> Hyperexponential:
        f = check_factor(factor)
        return replace(self, rates=tuple(r / f for r in self.rates))

    def sampler_params(self) -> np.ndarray:
        # [n, p_1..p_n, rate_1..rate_n] over the components with p > 0
        comps = self._components()
        return np.array([len(comps), *(p for p, _ in comps), *(r for _, r in comps)], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    def mean_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        return math.fsum(-p / r * math.expm1(-r * t) for p, r in self._components())

    def second_moment_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        return math.fsum(
            2.0 * p / (r * r) * (-math.expm1(-r * t) - r * t * math.exp(-r * t)) for p, r in self._components()
        )

    def partial_mean(self, c: float) -> float:
        c = max(c, 0.0)
        if math.isinf(c):
            return 0.0
        return math.fsum(p * (c + 1.0 / r) * math.exp(-r * c) for p, r in self._components())

    def partial_second_moment(self, c: float) -> float:
        c = max(c, 0.0)
        if math.isinf(c):
            return 0.0
        return math.fsum(p * (c * c + 2.0 * c / r + 2.0 / (r * r)) * math.exp(-r * c) for p, r in self._components())

    def mean_min_of(self, d: int) -> float:
        """Exact: expand (sum_i p_i e^{-r_i x})^d multinomially and integrate each
        term; every term is positive, so there is no cancellation. Falls back to
        quadrature when the expansion has more than 200 000 terms."""
        d = check_d(d)
        comps = self._components()
        n = len(comps)
        if math.comb(d + n - 1, n - 1) > 200_000:
            return super().mean_min_of(d)
        terms: list[float] = []

        def expand(i: int, remaining: int, weight: float, rate: float) -> None:
            p, r = comps[i]
            if i == n - 1:
                terms.append(weight * p**remaining / (rate + remaining * r))
                return
            for k in range(remaining + 1):
                w = weight * math.comb(remaining, k) * p**k
                if w > 0:
                    expand(i + 1, remaining - k, w, rate + k * r)

        expand(0, d, 1.0, 0.0)
        return math.fsum(terms)

    def tail_class(self, on_support: bool = False) -> str:
        # a mixture of exponentials is log-convex; one distinct rate is exponential
        if len({r for _, r in self._components()}) <= 1:
            return "both"
        return "log-convex"


@dataclass(frozen=True)
class Erlang(Distribution):
    """Sum of ``k`` i.i.d. exponentials with total mean ``mean_value`` (config: ``mean``)."""

    k: int
    mean_value: float
    family: ClassVar[str] = "erlang"
    code: ClassVar[int] = ERLANG_CODE
    _config_names: ClassVar[dict[str, str]] = {"mean": "mean_value"}

    def __post_init__(self):
        k = self.k
        if not (is_number(k) and math.isfinite(float(k)) and float(k).is_integer() and k >= 1):
            self._fail(f"k must be a positive integer, got {format_value(k)}")
        object.__setattr__(self, "k", int(k))
        self._positive("mean_value")

    @property
    def rate(self) -> float:
        """Rate of each exponential stage: k / mean."""
        return self.k / self.mean_value

    def sf(self, x):
        from scipy import special

        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        return scalar_or_array(x, np.asarray(special.gammaincc(self.k, self.rate * x), dtype=float))

    def _sf_scalar(self, x: float) -> float:
        from scipy import special

        return float(special.gammaincc(self.k, self.rate * max(x, 0.0)))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        k, lam = self.k, self.rate
        xs = np.maximum(x, 1e-300)
        with np.errstate(divide="ignore"):
            logf = k * math.log(lam) + (k - 1) * np.log(xs) - lam * xs - math.lgamma(k)
        out = np.where(x < 0, 0.0, np.exp(logf))
        if k == 1:
            out = np.where(x == 0, lam, out)
        return scalar_or_array(x, out)

    def _pdf_scalar(self, x: float) -> float:
        if x < 0 or (x == 0 and self.k > 1):
            return 0.0
        k, lam = self.k, self.rate
        return math.exp(k * math.log(lam) + (k - 1) * math.log(x) - lam * x - math.lgamma(k)) if x > 0 else lam

    def _moment(self, m: int) -> float:
        """E[X^m] = k (k+1) ... (k+m-1) / rate^m."""
        return math.prod(range(self.k, self.k + m)) / self.rate**m

    def mean(self) -> float:
        return self.mean_value

    def second_moment(self) -> float:
        return self._moment(2)

    def scaled(self, factor: float) -> Erlang:
        return replace(self, mean_value=self.mean_value * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        return np.array([self.k, self.mean_value], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    # E[X^m 1{X <= t}] = E[X^m] P(k + m, rate t) with P the regularised lower gamma
    def mean_min(self, t: float) -> float:
        from scipy import special

        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.mean()
        z = self.rate * t
        return self.mean_value * float(special.gammainc(self.k + 1, z)) + t * float(special.gammaincc(self.k, z))

    def second_moment_min(self, t: float) -> float:
        from scipy import special

        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        z = self.rate * t
        return self._moment(2) * float(special.gammainc(self.k + 2, z)) + t * t * float(special.gammaincc(self.k, z))

    def partial_mean(self, c: float) -> float:
        from scipy import special

        c = max(c, 0.0)
        if math.isinf(c):
            return 0.0
        return self.mean_value * float(special.gammaincc(self.k + 1, self.rate * c))

    def partial_second_moment(self, c: float) -> float:
        from scipy import special

        c = max(c, 0.0)
        if math.isinf(c):
            return 0.0
        return self._moment(2) * float(special.gammaincc(self.k + 2, self.rate * c))

    def mean_min_of(self, d: int) -> float:
        d = check_d(d)
        if self.k == 1:
            return self.mean_value / d
        return super().mean_min_of(d)  # quadrature

    def tail_class(self, on_support: bool = False) -> str:
        return "both" if self.k == 1 else "log-concave"


@dataclass(frozen=True)
class Weibull(Distribution):
    """P(X > x) = exp(-(x / scale)^shape)."""

    shape: float
    scale: float
    family: ClassVar[str] = "weibull"
    code: ClassVar[int] = WEIBULL_CODE

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
class Uniform(Distribution):
    """Uniform on [low, high], 0 <= low < high."""

    low: float
    high: float
    family: ClassVar[str] = "uniform"
    code: ClassVar[int] = UNIFORM_CODE

    def __post_init__(self):
        self._positive("low", allow_zero=True)
        self._positive("high")
        if not self.low < self.high:
            self._fail(f"low must be < high, got low={format_value(self.low)}, high={format_value(self.high)}")

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return scalar_or_array(x, np.clip((self.high - x) / (self.high - self.low), 0.0, 1.0))

    def _sf_scalar(self, x: float) -> float:
        return min(1.0, max(0.0, (self.high - x) / (self.high - self.low)))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        out = np.where((x < self.low) | (x > self.high), 0.0, 1.0 / (self.high - self.low))
        return scalar_or_array(x, out)

    def mean(self) -> float:
        return 0.5 * (self.low + self.high)

    def second_moment(self) -> float:
        l, h = self.low, self.high
        return (l * l + l * h + h * h) / 3.0

    def scaled(self, factor: float) -> Uniform:
        f = check_factor(factor)
        return replace(self, low=self.low * f, high=self.high * f)

    def sampler_params(self) -> np.ndarray:
        return np.array([self.low, self.high], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)

    def mean_min(self, t: float) -> float:
        l, h = self.low, self.high
        if t <= l:
            return max(t, 0.0)
        if t >= h:
            return self.mean()
        return ((t * t - l * l) / 2.0 + t * (h - t)) / (h - l)

    def second_moment_min(self, t: float) -> float:
        l, h = self.low, self.high
        if t <= l:
            return max(t, 0.0) ** 2
        if t >= h:
            return self.second_moment()
        return ((t**3 - l**3) / 3.0 + t * t * (h - t)) / (h - l)

    def partial_mean(self, c: float) -> float:
        l, h = self.low, self.high
        if c < l:
            return self.mean()
        if c >= h:
            return 0.0
        return (h * h - c * c) / (2.0 * (h - l))

    def partial_second_moment(self, c: float) -> float:
        l, h = self.low, self.high
        if c < l:
            return self.second_moment()
        if c >= h:
            return 0.0
        return (h**3 - c**3) / (3.0 * (h - l))

    def mean_min_of(self, d: int) -> float:
        return self.low + (self.high - self.low) / (check_d(d) + 1.0)

    def tail_class(self, on_support: bool = False) -> str:
        # log((high - x) / (high - low)) is concave, and so is the kink at low
        return "log-concave"


@dataclass(frozen=True)
class Discrete(Distribution):
    """X = ``values[i]`` with probability ``p[i]`` (e.g. the bimodal slowdown)."""

    values: tuple[float, ...]
    p: tuple[float, ...]
    family: ClassVar[str] = "discrete"
    code: ClassVar[int] = DISCRETE_CODE

    def __post_init__(self):
        raw = self.values
        values = self._vector("values")
        if any(v < 0 for v in values):
            self._fail(f"values must be >= 0, got {format_value(raw)}")
        p = self._probabilities("p")
        if len(p) != len(values):
            self._fail(f"values and p must have the same length, got {len(values)} and {len(p)}")
        if not math.fsum(v * q for v, q in zip(values, p)) > 0:
            self._fail(f"values must have a positive mean, got values={format_value(raw)} with p={format_value(p)}")

    def point_masses(self) -> tuple[tuple[float, float], ...]:
        """Distinct values with positive probability, sorted, with their masses."""
        masses: dict[float, float] = {}
        for v, q in zip(self.values, self.p):
            if q > 0:
                masses[v] = masses.get(v, 0.0) + q
        return tuple(sorted(masses.items()))

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        out = np.zeros_like(x)
        for v, q in self.point_masses():
            out = out + q * (x < v)
        return scalar_or_array(x, np.clip(out, 0.0, 1.0))

    def _sf_scalar(self, x: float) -> float:
        return min(1.0, math.fsum(q for v, q in self.point_masses() if x < v))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        return scalar_or_array(x, np.zeros_like(x))

    def _sum(self, g) -> float:
        return math.fsum(q * g(v) for v, q in self.point_masses())

    def mean(self) -> float:
        return self._sum(lambda v: v)

    def second_moment(self) -> float:
        return self._sum(lambda v: v * v)

    def scaled(self, factor: float) -> Discrete:
        f = check_factor(factor)
        return replace(self, values=tuple(v * f for v in self.values))

    def sampler_params(self) -> np.ndarray:
        # [n, p_1..p_n, value_1..value_n] over the distinct values with p > 0
        pm = self.point_masses()
        return np.array([len(pm), *(q for _, q in pm), *(v for v, _ in pm)], dtype=np.float64)

    def support(self) -> tuple[float, float]:
        pm = self.point_masses()
        return (pm[0][0], pm[-1][0])

    def mean_min(self, t: float) -> float:
        t = max(t, 0.0)
        return self._sum(lambda v: min(v, t))

    def second_moment_min(self, t: float) -> float:
        t = max(t, 0.0)
        return self._sum(lambda v: min(v, t) ** 2)

    def partial_mean(self, c: float) -> float:
        return self._sum(lambda v: v if v > c else 0.0)

    def partial_second_moment(self, c: float) -> float:
        return self._sum(lambda v: v * v if v > c else 0.0)

    def mean_min_of(self, d: int) -> float:
        # int_0^inf P(X > x)^d dx, with P(X > x) = P(X >= v_j) on [v_{j-1}, v_j)
        d = check_d(d)
        pm = self.point_masses()
        prev = 0.0
        terms = []
        for j, (v, _) in enumerate(pm):
            tail = min(math.fsum(q for _, q in pm[j:]), 1.0)  # P(X >= v_j)
            terms.append((v - prev) * tail**d)
            prev = v
        return math.fsum(terms)

    def tail_class(self, on_support: bool = False) -> str:
        # one value is deterministic; with several, log P(X > x) is a staircase
        return "log-concave" if len(self.point_masses()) == 1 else "neither"


@dataclass(frozen=True)
class Lognormal(Distribution):
    """exp(N(mu, sigma^2)) parametrised by its mean ``mean_value`` (config: ``mean``)
    and coefficient of variation ``cv``: sigma^2 = log(1 + cv^2),
    mu = log(mean) - sigma^2 / 2."""

    mean_value: float
    cv: float
    family: ClassVar[str] = "lognormal"
    code: ClassVar[int] = LOGNORMAL_CODE
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
