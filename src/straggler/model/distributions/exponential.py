"""The families built from exponentials: the exponential, shifted by a constant,
mixed (hyperexponential) and summed (Erlang)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import Distribution, ParameterError, check_d, check_factor, format_value, is_number, scalar_or_array
from .codes import ERLANG_CODE, EXPONENTIAL_CODE, HYPEREXPONENTIAL_CODE, SHIFTED_EXPONENTIAL_CODE
from .parameters import non_negative, positive, positive_list, probabilities


@dataclass(frozen=True)
class Exponential(Distribution):
    """Exponential with mean ``mean_value`` (config: ``mean``)."""

    mean_value: float = 1.0
    family: ClassVar[str] = "exponential"
    code: ClassVar[int] = EXPONENTIAL_CODE
    schema: ClassVar[dict] = {"mean": positive("Mean.")}
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
    schema: ClassVar[dict] = {
        "shift": non_negative("The constant part."),
        "mean": positive("Mean E[X] (> shift: the exponential part has mean - shift)."),
    }

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
    schema: ClassVar[dict] = {
        "p": probabilities("Phase probabilities (summing to 1)."),
        "rates": positive_list("Phase rates, each > 0, one per phase."),
    }

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
    schema: ClassVar[dict] = {
        "k": {"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Number of phases, at most 10^6."},
        "mean": positive("Mean."),
    }
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
