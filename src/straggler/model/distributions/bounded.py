"""The elementary families of bounded support: deterministic, uniform and discrete
(the bounded Pareto is a power law: :mod:`.power_law`)."""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import Distribution, check_d, check_factor, format_value, scalar_or_array
from .codes import DETERMINISTIC_CODE, DISCRETE_CODE, UNIFORM_CODE
from .parameters import non_negative, positive, probabilities
from .pieces import QuantilePieces, pieces


@dataclass(frozen=True)
class Deterministic(Distribution):
    """X = ``value`` with probability 1."""

    value: float = 1.0
    family: ClassVar[str] = "deterministic"
    code: ClassVar[int] = DETERMINISTIC_CODE
    schema: ClassVar[dict] = {"value": positive("The constant size.")}

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
class Uniform(Distribution):
    """Uniform on [low, high], 0 <= low < high."""

    low: float
    high: float
    family: ClassVar[str] = "uniform"
    code: ClassVar[int] = UNIFORM_CODE
    schema: ClassVar[dict] = {"low": non_negative("Lower end (>= 0)."), "high": positive("Upper end (> low).")}

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


def discrete_guide_table(cumulative, m: int) -> list[int]:
    """The guide table of m buckets over the nondecreasing floats ``cumulative`` (c_0..c_(n-1)):
    g_0 = 0 and g_j the first i with c_i > (j - 1) / m, n - 1 if none.

    The comparisons are exact (c_i = a / b as integers: c_i > (j - 1) / m iff a m > (j - 1) b):
    a float c_i * m can round onto the boundary, and the sampler's proof needs every index
    skipped to have c_i <= (j - 1) / m exactly (``sampling.pick_guided``)."""
    n = len(cumulative)
    if n < 1 or m < 1:
        raise ValueError(f"a guide table needs n >= 1 and m >= 1, got n={n}, m={m}")
    ratios = [float(c).as_integer_ratio() for c in cumulative]
    guide = [0] * m
    i = 0
    for j in range(1, m):
        # the thresholds rise with j and the c_i with i: one forward pass
        while i < n - 1 and ratios[i][0] * m <= (j - 1) * ratios[i][1]:
            i += 1
        guide[j] = i
    return guide


@dataclass(frozen=True)
class Discrete(Distribution):
    """X = ``values[i]`` with probability ``p[i]`` (e.g. the bimodal slowdown)."""

    values: tuple[float, ...]
    p: tuple[float, ...]
    family: ClassVar[str] = "discrete"
    code: ClassVar[int] = DISCRETE_CODE
    schema: ClassVar[dict] = {
        "values": {
            "description": "The possible sizes, each >= 0, one per probability.",
            "type": "array",
            "minItems": 1,
            "items": {"type": "number", "minimum": 0},
        },
        "p": probabilities("Their probabilities (summing to 1)."),
    }

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
        return self._masses

    @functools.cached_property
    def _masses(self) -> tuple[tuple[float, float], ...]:
        # built once: the quadratures ask for P(X > x) at every point, which reads them
        masses: dict[float, float] = {}
        for v, q in zip(self.values, self.p):
            if q > 0:
                masses[v] = masses.get(v, 0.0) + q
        return tuple(sorted(masses.items()))

    @functools.cached_property
    def _tails(self) -> tuple[np.ndarray, list[float]]:
        """The distinct values, sorted, and P(X >= v_j) for each, then 0: each tail the
        correctly rounded sum of its masses (what ``math.fsum`` gives), all of them in
        O(n), so that P(X > x) is a bisection and the sums below are O(n), not O(n^2)."""
        pm = self.point_masses()
        tails = [min(t, 1.0) for t in _exact_suffix_sums([q for _, q in pm])]
        return np.array([v for v, _ in pm]), tails + [0.0]

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        values, tails = self._tails
        out = np.asarray(tails)[np.searchsorted(values, x, side="right")]
        return scalar_or_array(x, out)

    def _sf_scalar(self, x: float) -> float:
        # the quadratures call this per point: a bisection of a list, no numpy call
        return self._tails[1][bisect.bisect_right(self._value_list, x)]

    @functools.cached_property
    def _value_list(self) -> list[float]:
        return [v for v, _ in self.point_masses()]

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
        # [n, c_1..c_n, value_1..value_n, m, g_0..g_(m-1)] over the distinct values with
        # p > 0: c_i the cumulative probabilities summed in order (the first i with u < c_i
        # is then the index that scanning and summing the p_i picks: the same draws), and
        # a guide table (Chen and Asau's indexed search) of m = n buckets, g_j the first
        # index with c_i > (j - 1) / m (n - 1 if none; g_0 = 0), as integers stored as
        # floats (exact below 2^53). The sampler (sampling.pick_guided) starts its scan
        # for u in bucket j at g_j: why that is the binary search's index is said there.
        return self._sampler_params.copy()

    @functools.cached_property
    def _sampler_params(self) -> np.ndarray:
        pm = self.point_masses()
        cumulative, acc = [], 0.0
        for _, q in pm:
            acc += q
            cumulative.append(acc)
        guide = discrete_guide_table(cumulative, len(cumulative))
        return np.array(
            [len(pm), *cumulative, *(v for v, _ in pm), len(guide), *guide],
            dtype=np.float64,
        )

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
        prev = 0.0
        terms = []
        for v, tail in zip(self._value_list, self._tails[1]):
            terms.append((v - prev) * tail**d)
            prev = v
        return math.fsum(terms)

    def quantile_pieces(self) -> QuantilePieces:
        # each distinct value an atom: Q(u) = v_j for P(X < v_j) < u <= P(X <= v_j)
        values, tails = self._tails
        below = 1.0 - np.asarray(tails)
        return pieces(below[:-1], below[1:], values, values)

    def tail_class(self, on_support: bool = False) -> str:
        # one value is deterministic; with several, log P(X > x) is a staircase
        return "log-concave" if len(self.point_masses()) == 1 else "neither"


def _exact_suffix_sums(q: list[float]) -> list[float]:
    """The sums q[j] + ... + q[n-1] for every j, each correctly rounded (as ``math.fsum``
    rounds it), in O(n): every float is an integer over a power of 2, so the suffix sums
    are exact integers over the largest of those powers, and Python divides two integers
    with correct rounding."""
    ratios = [float(v).as_integer_ratio() for v in q]
    den = max((r[1] for r in ratios), default=1)
    out = [0.0] * len(q)
    acc = 0
    for j in range(len(q) - 1, -1, -1):
        num, d = ratios[j]
        acc += num * (den // d)
        out[j] = acc / den
    return out
