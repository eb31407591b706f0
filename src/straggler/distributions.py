"""Job-size distributions (DESIGN.md, "Distribution families").

Every family is a frozen dataclass deriving from :class:`Distribution`. The base
class evaluates every functional by quadrature of the survival function, which
is exact enough for any law; families override a functional with its closed form
where one exists, and the tests check the two against each other and against
Monte Carlo.

Families (config name, parameters in the config's spelling):

==========================  ===========================  ==========================
``exponential``             ``mean``                     :class:`Exponential`
``deterministic``           ``value``                    :class:`Deterministic`
``pareto``                  ``xm, alpha`` (type I)       :class:`Pareto`
``bounded_pareto``          ``low, high, alpha``         :class:`BoundedPareto`
``shifted_exponential``     ``shift, mean``              :class:`ShiftedExponential`
``hyperexponential``        ``p, rates`` (lists)         :class:`Hyperexponential`
``erlang``                  ``k, mean`` (total mean)     :class:`Erlang`
``weibull``                 ``shape, scale``             :class:`Weibull`
``uniform``                 ``low, high``                :class:`Uniform`
``discrete``                ``values, p`` (lists)        :class:`Discrete`
``lognormal``               ``mean, cv``                 :class:`Lognormal`
==========================  ===========================  ==========================

A parameter called ``mean`` in the config is stored as the field ``mean_value``
(``mean`` is a method). ``mean`` is E[X] in every family: a
``shifted_exponential`` has ``mean > shift`` and stores the exponential part's mean
as ``tail_mean = mean - shift``. Any family also accepts
``scale_to_mean: m`` in :func:`from_spec` (rescale so that ``E[X] = m``).

All families are scale families, so ``X / r`` (a replica on a server of speed
``r``) is again a member: :meth:`Distribution.scaled`.

Closed forms: every family has closed-form ``sf``, ``pdf``, moments and the
truncated functionals ``mean_min``, ``second_moment_min``, ``partial_mean``,
``partial_second_moment`` (Erlang and Weibull through the regularised incomplete
gamma function of scipy.special). ``mean_min_of(d)`` is closed-form or an exact
finite sum except for ``bounded_pareto``, ``lognormal`` and ``erlang`` with
k >= 2, which use the base-class quadrature. The quadrature integrates power-law
tails on a logarithmic scale, so it stays accurate for heavy tails such as
Pareto(1, 10/9) (mean 10, infinite variance).

Tail classes (:meth:`Distribution.tail_class`) describe log P(X > x) on the
half-line x >= 0, the convention of the fork-join paper: a Pareto type I is
"neither" there (it is log-convex only on its support, ``on_support=True``).

Sampling inside numba: each family has an integer ``code`` and a float64
parameter vector ``sampler_params()``; :func:`sample` draws one variate from
``(code, params, rng)`` in nopython mode, where ``rng`` is a
``numpy.random.Generator``. :func:`sample_many` is the Python convenience.

scipy is imported lazily (inside functions): it costs ~0.5 s per process and
every Snakemake job pays the import time of this module.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields, replace
from typing import Callable, ClassVar

import numpy as np

from .kernel_cache import kernel
from .numerics import RELATIVE_1E11, integrate_resolving_start

__all__ = [
    "Distribution",
    "Exponential",
    "Deterministic",
    "Pareto",
    "BoundedPareto",
    "ShiftedExponential",
    "Hyperexponential",
    "Erlang",
    "Weibull",
    "Uniform",
    "Discrete",
    "Lognormal",
    "FAMILIES",
    "ParameterError",
    "PARAMETERS",
    "from_spec",
    "sample",
    "sample_many",
]

# Tolerance on sum(p) == 1 for probability vectors.
_P_SUM_TOL = 1e-9


# ----------------------------------------------------------------------------------
# numerical helpers
# ----------------------------------------------------------------------------------


def _expint(k: float, L: float) -> float:
    """int_0^L e^{k s} ds, accurate for k near 0."""
    if k == 0.0:
        return L
    return math.expm1(k * L) / k


def _exp_or_inf(y: float) -> float:
    return math.inf if y > 709.0 else math.exp(y)


def _norm_cdf(z: float) -> float:
    """Standard normal cdf, accurate in both tails."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


_erfc_vec = np.vectorize(math.erfc, otypes=[float])


def _ret(x: np.ndarray, out: np.ndarray):
    """Return a float for scalar input, an array otherwise."""
    return float(out) if np.ndim(x) == 0 else out


def _fmt(v) -> str:
    """A value as a user wrote it: lists in brackets, numbers without numpy noise."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_fmt(u) for u in v) + "]"
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    return repr(v)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


# ----------------------------------------------------------------------------------
# base class
# ----------------------------------------------------------------------------------


# The families' codes in the samplers (Distribution.code): distributions.sample and
# simulation.streams.refill_family branch on them. Plain ints, so that numba
# compiles a comparison with one as a constant.
(EXPONENTIAL_CODE, DETERMINISTIC_CODE, PARETO_CODE, BOUNDED_PARETO_CODE, SHIFTED_EXPONENTIAL_CODE,
 HYPEREXPONENTIAL_CODE, ERLANG_CODE, WEIBULL_CODE, UNIFORM_CODE, DISCRETE_CODE, LOGNORMAL_CODE) = range(11)


class ParameterError(ValueError):
    """A refused parameter value; ``parameter`` is its name in the config's spelling."""

    def __init__(self, parameter: str, message: str):
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class Distribution(ABC):
    """A non-negative job-size distribution with a finite, positive mean.

    Subclasses define ``family`` (the config name), ``code`` (numba sampler id),
    :meth:`sf`, :meth:`pdf`, :meth:`mean`, :meth:`second_moment`, :meth:`scaled`,
    :meth:`sampler_params` and :meth:`support`; everything else has a generic
    quadrature implementation that a subclass may replace by a closed form.
    """

    family: ClassVar[str]
    code: ClassVar[int]
    # config spelling -> field name, where they differ
    _config_names: ClassVar[dict[str, str]] = {}

    # -- what every family defines -------------------------------------------------
    @abstractmethod
    def sf(self, x):
        """Survival function P(X > x), vectorised over ``x`` (float for scalar x)."""

    @abstractmethod
    def pdf(self, x):
        """Density of the absolutely continuous part (0 for purely atomic laws)."""

    @abstractmethod
    def mean(self) -> float:
        """E[X]."""

    @abstractmethod
    def second_moment(self) -> float:
        """E[X^2] (``inf`` when it does not exist)."""

    @abstractmethod
    def scaled(self, factor: float) -> "Distribution":
        """The law of ``factor * X`` (a replica on a server of speed r is ``scaled(1/r)``)."""

    @abstractmethod
    def sampler_params(self) -> np.ndarray:
        """float64 parameters that :func:`sample` reads for this family's ``code``."""

    @abstractmethod
    def support(self) -> tuple[float, float]:
        """Smallest closed interval that holds all the mass."""

    def point_masses(self) -> tuple[tuple[float, float], ...]:
        """``(x, P(X = x))`` for every atom."""
        return ()

    def tail_index(self) -> float:
        """``sup {p : E[X^p] < inf}``: ``inf`` for every family but the Pareto, whose
        tail P(X > x) ~ x^-alpha has E[X^p] finite exactly for p < alpha."""
        return math.inf

    def atoms(self) -> tuple[float, ...]:
        """Points carrying positive probability (quadrature break points)."""
        return tuple(x for x, _ in self.point_masses())

    # -- derived quantities, generic by quadrature ----------------------------------
    def cdf(self, x):
        return 1.0 - self.sf(x)

    def hazard(self, x):
        """Hazard rate pdf(x) / P(X > x) of the continuous part (inf where sf = 0)."""
        x = np.asarray(x, dtype=float)
        s = np.asarray(self.sf(x), dtype=float)
        f = np.asarray(self.pdf(x), dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(s > 0, f / np.where(s > 0, s, 1.0), math.inf)
        return _ret(x, out)

    def variance(self) -> float:
        m2 = self.second_moment()
        return math.inf if math.isinf(m2) else m2 - self.mean() ** 2

    def scv(self) -> float:
        """Squared coefficient of variation Var[X] / E[X]^2."""
        return self.variance() / self.mean() ** 2

    def _sf_scalar(self, x: float) -> float:
        return float(self.sf(x))

    def _pdf_scalar(self, x: float) -> float:
        return float(self.pdf(x))

    def _scale_hint(self) -> float:
        return self.mean()

    def mean_min(self, t: float) -> float:
        """E[min(X, t)] = int_0^t P(X > x) dx."""
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.mean()
        lo, hi = self.support()
        a = min(t, lo)
        return a + integrate_resolving_start(
            self._sf_scalar, a, min(t, hi), RELATIVE_1E11, self.atoms(), self._scale_hint()
        )

    def second_moment_min(self, t: float) -> float:
        """E[min(X, t)^2] = int_0^t 2 x P(X > x) dx."""
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        lo, hi = self.support()
        a = min(t, lo)
        return a * a + integrate_resolving_start(
            lambda x: 2.0 * x * self._sf_scalar(x), a, min(t, hi), RELATIVE_1E11, self.atoms(), self._scale_hint()
        )

    def partial_mean(self, c: float) -> float:
        """E[X 1{X > c}] = c P(X > c) + int_c^inf P(X > x) dx."""
        c = max(float(c), 0.0)
        if math.isinf(c):
            return 0.0
        lo, hi = self.support()
        if c >= hi:
            return 0.0
        a = max(c, lo)
        # int_c^a P(X > x) dx = a - c because P(X > x) = 1 below lo
        head = a - c
        return c * self._sf_scalar(c) + head + integrate_resolving_start(
            self._sf_scalar, a, hi, RELATIVE_1E11, self.atoms(), self._scale_hint()
        )

    def partial_second_moment(self, c: float) -> float:
        """E[X^2 1{X > c}] = c^2 P(X > c) + int_c^inf 2 x P(X > x) dx."""
        c = max(float(c), 0.0)
        if math.isinf(c):
            return 0.0
        if math.isinf(self.second_moment()):
            return math.inf
        lo, hi = self.support()
        if c >= hi:
            return 0.0
        a = max(c, lo)
        head = a * a - c * c
        return c * c * self._sf_scalar(c) + head + integrate_resolving_start(
            lambda x: 2.0 * x * self._sf_scalar(x), a, hi, RELATIVE_1E11, self.atoms(), self._scale_hint()
        )

    def mean_min_of(self, d: int) -> float:
        """E[min(X_1, ..., X_d)] for d i.i.d. copies: int_0^inf P(X > x)^d dx."""
        d = _check_d(d)
        if d == 1:
            return self.mean()
        lo, hi = self.support()
        return lo + integrate_resolving_start(
            lambda x: self._sf_scalar(x) ** d, lo, hi, RELATIVE_1E11, self.atoms(), self._scale_hint()
        )

    def expect(self, g: Callable[[float], float]) -> float:
        """E[g(X)]: the atoms weighted by their mass plus the quadrature of
        ``g * pdf`` over the support. ``g`` takes and returns a float."""
        total = sum(p * float(g(x)) for x, p in self.point_masses() if p > 0)
        lo, hi = self.support()
        if hi > lo:

            def integrand(x: float) -> float:
                f = self._pdf_scalar(x)
                return 0.0 if f == 0.0 else float(g(x)) * f

            total += integrate_resolving_start(integrand, lo, hi, RELATIVE_1E11, self.atoms(), self._scale_hint())
        return total

    # -- tail shape ---------------------------------------------------------------
    def tail_class(self, on_support: bool = False) -> str:
        """``log-concave``, ``log-convex``, ``both`` (log-linear, i.e. exponential)
        or ``neither``: the shape of the survival function P(X > x).

        By default the shape on the whole half-line x >= 0, as in the fork-join
        paper (Joshi et al., Definition of log-concave/log-convex tails and
        Appendix A), where it decides the dichotomy: r E[X_{1:r}] is
        non-decreasing in r for log-concave tails and non-increasing for
        log-convex ones. A law whose support starts at ``lo > 0`` has
        log P(X > x) = 0 on [0, lo) and a concave kink at ``lo``: that is why a
        shifted exponential is log-concave, and why a Pareto type I is *not*
        log-convex (r E[X_{1:r}] falls and then rises; the paper treats Pareto
        as neither). ``on_support=True`` describes the shape on the support
        only (Pareto: ``log-convex``; shifted exponential: ``both``).
        """
        return "neither"

    def ageing_class(self) -> str:
        """``NBU`` (new better than used), ``NWU`` (new worse than used), ``both``
        (exponential) or ``neither``, implied by the tail class on x >= 0
        (log-concave => IFR => NBU; log-convex => DFR => NWU)."""
        tc = self.tail_class()
        return {"log-concave": "NBU", "log-convex": "NWU", "both": "both"}.get(tc, "neither")

    # -- helpers -------------------------------------------------------------------
    def to_spec(self) -> dict:
        """The config form of this distribution (family and parameters)."""
        return {"family": self.family, **self.config_values()}

    def config_values(self) -> dict:
        """The parameters in the config's spelling and meaning."""
        values = {}
        for f in fields(self):
            v = getattr(self, f.name)
            values[self._config_name(f.name)] = list(v) if isinstance(v, tuple) else v
        return values

    @classmethod
    def config_parameters(cls) -> tuple[str, ...]:
        """The family's parameters in the config's spelling, all required."""
        return tuple(cls._config_name(f.name) for f in fields(cls))

    @classmethod
    def from_config(cls, params: dict) -> "Distribution":
        """Build from the config's parameters (config spelling, every one present)."""
        return cls(**{cls._config_names.get(k, k): v for k, v in params.items()})

    def _fail(self, msg: str):
        raise ValueError(f"{self.family}: {msg}")

    @classmethod
    def _config_name(cls, field_name: str) -> str:
        """The config spelling of a field (``mean_value`` -> ``mean``)."""
        return {v: k for k, v in cls._config_names.items()}.get(field_name, field_name)

    def _positive(self, name: str, allow_zero: bool = False) -> None:
        """Coerce field ``name`` to float and check that it is finite and > 0 (>= 0)."""
        v = getattr(self, name)
        what = "a non-negative" if allow_zero else "a positive"
        if not _is_number(v) or not math.isfinite(float(v)) or v < 0 or (v == 0 and not allow_zero):
            self._fail(f"{self._config_name(name)} must be {what} finite number, got {_fmt(v)}")
        object.__setattr__(self, name, float(v))

    def _vector(self, name: str) -> tuple[float, ...]:
        """Coerce field ``name`` to a non-empty tuple of finite floats."""
        v = getattr(self, name)
        if isinstance(v, np.ndarray):
            v = v.tolist()
        if not isinstance(v, (list, tuple)) or len(v) == 0:
            self._fail(f"{name} must be a non-empty list of numbers, got {_fmt(v)}")
        if not all(_is_number(u) and math.isfinite(float(u)) for u in v):
            self._fail(f"{name} must be a list of finite numbers, got {_fmt(v)}")
        t = tuple(float(u) for u in v)
        object.__setattr__(self, name, t)
        return t

    def _probabilities(self, name: str = "p") -> tuple[float, ...]:
        raw = getattr(self, name)
        p = self._vector(name)
        if any(u < 0 for u in p) or abs(math.fsum(p) - 1.0) > _P_SUM_TOL:
            self._fail(f"{name} must be non-negative and sum to 1, got {_fmt(raw)}")
        return p


def _check_d(d) -> int:
    if not (_is_number(d) and float(d).is_integer() and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {_fmt(d)}")
    return int(d)


def _check_factor(factor) -> float:
    if not (_is_number(factor) and math.isfinite(float(factor)) and factor > 0):
        raise ValueError(f"scale factor must be a positive finite number, got {_fmt(factor)}")
    return float(factor)


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
        return _ret(x, np.exp(-np.maximum(x, 0.0) / self.mean_value))

    def _sf_scalar(self, x: float) -> float:
        return math.exp(-max(x, 0.0) / self.mean_value)

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        m = self.mean_value
        return _ret(x, np.where(x < 0, 0.0, np.exp(-np.maximum(x, 0.0) / m) / m))

    def mean(self) -> float:
        return self.mean_value

    def second_moment(self) -> float:
        return 2.0 * self.mean_value**2

    def scaled(self, factor: float) -> "Exponential":
        return replace(self, mean_value=self.mean_value * _check_factor(factor))

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
        return self.mean_value / _check_d(d)

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
        return _ret(x, np.where(x < self.value, 1.0, 0.0))

    def _sf_scalar(self, x: float) -> float:
        return 1.0 if x < self.value else 0.0

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        return _ret(x, np.zeros_like(x))

    def point_masses(self):
        return ((self.value, 1.0),)

    def mean(self) -> float:
        return self.value

    def second_moment(self) -> float:
        return self.value**2

    def scaled(self, factor: float) -> "Deterministic":
        return replace(self, value=self.value * _check_factor(factor))

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
        _check_d(d)
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
            self._fail(f"alpha must be > 1 so that the mean is finite, got {_fmt(self.alpha)}")

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore"):
            out = np.where(x < self.xm, 1.0, (self.xm / np.maximum(x, self.xm)) ** self.alpha)
        return _ret(x, out)

    def _sf_scalar(self, x: float) -> float:
        return 1.0 if x < self.xm else (self.xm / x) ** self.alpha

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        xs = np.maximum(x, self.xm)
        out = np.where(x < self.xm, 0.0, self.alpha / xs * (self.xm / xs) ** self.alpha)
        return _ret(x, out)

    def _pdf_scalar(self, x: float) -> float:
        return 0.0 if x < self.xm else self.alpha / x * (self.xm / x) ** self.alpha

    def mean(self) -> float:
        return self.alpha * self.xm / (self.alpha - 1.0)

    def second_moment(self) -> float:
        a = self.alpha
        return a * self.xm**2 / (a - 2.0) if a > 2 else math.inf

    def scaled(self, factor: float) -> "Pareto":
        return replace(self, xm=self.xm * _check_factor(factor))

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
        return xm + xm * _expint(1.0 - a, math.log(t / xm))

    def second_moment_min(self, t: float) -> float:
        if t <= self.xm:
            return max(t, 0.0) ** 2
        if math.isinf(t):
            return self.second_moment()
        xm, a = self.xm, self.alpha
        return xm * xm + 2.0 * xm * xm * _expint(2.0 - a, math.log(t / xm))

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
        da = _check_d(d) * self.alpha
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
            self._fail(f"low must be < high, got low={_fmt(self.low)}, high={_fmt(self.high)}")

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
        return _ret(x, out)

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
        return _ret(x, out)

    def _pdf_scalar(self, x: float) -> float:
        if x < self.low or x > self.high:
            return 0.0
        return self._c() / x * (self.low / x) ** self.alpha

    def _lower(self, m: int, t: float) -> float:
        """E[X^m 1{X <= t}] for low <= t <= high."""
        L, a = self.low, self.alpha
        return self._c() * L**m * _expint(m - a, math.log(t / L))

    def _upper(self, m: int, c: float) -> float:
        """E[X^m 1{X > c}] for low <= c <= high."""
        L, H, a = self.low, self.high, self.alpha
        return self._c() * c**m * (L / c) ** a * _expint(m - a, math.log(H / c))

    def mean(self) -> float:
        return self._lower(1, self.high)

    def second_moment(self) -> float:
        return self._lower(2, self.high)

    def scaled(self, factor: float) -> "BoundedPareto":
        f = _check_factor(factor)
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
    def from_config(cls, params: dict) -> "ShiftedExponential":
        shift, mean = params["shift"], params["mean"]
        for name, value, allow_zero in (("shift", shift, True), ("mean", mean, False)):
            if not _is_number(value) or not math.isfinite(float(value)) or value < 0 or (value == 0 and not allow_zero):
                what = "a non-negative" if allow_zero else "a positive"
                raise ValueError(f"{cls.family}: {name} must be {what} finite number, got {_fmt(value)}")
        if not mean > shift:
            # the old spelling read mean as the exponential part's mean: say so, and how to keep a law
            raise ParameterError(
                "mean",
                f"{cls.family}: mean {_fmt(mean)} is not allowed: mean is E[X] and must exceed "
                f"shift = {_fmt(shift)}; changed: mean used to be the mean of the exponential part "
                f"alone (E[X] = shift + mean), so the law written before as shift: {_fmt(shift)}, "
                f"mean: {_fmt(mean)} is now mean: {_fmt(shift + mean)}"
            )
        return cls(shift=shift, tail_mean=mean - shift)

    def config_values(self) -> dict:
        return {"shift": self.shift, "mean": self.shift + self.tail_mean}

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        out = np.exp(-np.maximum(x - self.shift, 0.0) / self.tail_mean)
        return _ret(x, out)

    def _sf_scalar(self, x: float) -> float:
        return math.exp(-max(x - self.shift, 0.0) / self.tail_mean)

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        m = self.tail_mean
        out = np.where(x < self.shift, 0.0, np.exp(-np.maximum(x - self.shift, 0.0) / m) / m)
        return _ret(x, out)

    def mean(self) -> float:
        return self.shift + self.tail_mean

    def second_moment(self) -> float:
        return self.tail_mean**2 + (self.shift + self.tail_mean) ** 2

    def scaled(self, factor: float) -> "ShiftedExponential":
        f = _check_factor(factor)
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
        return self.shift + self.tail_mean / _check_d(d)

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
            self._fail(f"rates must be positive, got {_fmt(raw)}")
        if len(p) != len(rates):
            self._fail(f"p and rates must have the same length, got {len(p)} and {len(rates)}")

    def _components(self) -> list[tuple[float, float]]:
        return [(p, r) for p, r in zip(self.p, self.rates) if p > 0]

    def sf(self, x):
        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        out = sum(p * np.exp(-r * x) for p, r in self._components())
        return _ret(x, np.asarray(out, dtype=float))

    def _sf_scalar(self, x: float) -> float:
        x = max(x, 0.0)
        return math.fsum(p * math.exp(-r * x) for p, r in self._components())

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        xs = np.maximum(x, 0.0)
        out = sum(p * r * np.exp(-r * xs) for p, r in self._components())
        return _ret(x, np.where(x < 0, 0.0, out))

    def mean(self) -> float:
        return math.fsum(p / r for p, r in self._components())

    def second_moment(self) -> float:
        return math.fsum(2.0 * p / (r * r) for p, r in self._components())

    def scaled(self, factor: float) -> "Hyperexponential":
        f = _check_factor(factor)
        return replace(self, rates=tuple(r / f for r in self.rates))

    def sampler_params(self) -> np.ndarray:
        # [n, p_1..p_n, rate_1..rate_n] over the components with p > 0
        comps = self._components()
        return np.array(
            [len(comps), *(p for p, _ in comps), *(r for _, r in comps)], dtype=np.float64
        )

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
            2.0 * p / (r * r) * (-math.expm1(-r * t) - r * t * math.exp(-r * t))
            for p, r in self._components()
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
        return math.fsum(
            p * (c * c + 2.0 * c / r + 2.0 / (r * r)) * math.exp(-r * c)
            for p, r in self._components()
        )

    def mean_min_of(self, d: int) -> float:
        """Exact: expand (sum_i p_i e^{-r_i x})^d multinomially and integrate each
        term; every term is positive, so there is no cancellation. Falls back to
        quadrature when the expansion has more than 200 000 terms."""
        d = _check_d(d)
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
        if not (_is_number(k) and math.isfinite(float(k)) and float(k).is_integer() and k >= 1):
            self._fail(f"k must be a positive integer, got {_fmt(k)}")
        object.__setattr__(self, "k", int(k))
        self._positive("mean_value")

    @property
    def rate(self) -> float:
        """Rate of each exponential stage: k / mean."""
        return self.k / self.mean_value

    def sf(self, x):
        from scipy import special

        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        return _ret(x, np.asarray(special.gammaincc(self.k, self.rate * x), dtype=float))

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
        return _ret(x, out)

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

    def scaled(self, factor: float) -> "Erlang":
        return replace(self, mean_value=self.mean_value * _check_factor(factor))

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
        return self.mean_value * float(special.gammainc(self.k + 1, z)) + t * float(
            special.gammaincc(self.k, z)
        )

    def second_moment_min(self, t: float) -> float:
        from scipy import special

        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        z = self.rate * t
        return self._moment(2) * float(special.gammainc(self.k + 2, z)) + t * t * float(
            special.gammaincc(self.k, z)
        )

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
        d = _check_d(d)
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
        return _ret(x, np.exp(-((x / self.scale) ** self.shape)))

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
        return _ret(x, np.where(x < 0, 0.0, out))

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
        return _exp_or_inf(m * math.log(self.scale) + math.lgamma(1.0 + m / self.shape))

    def mean(self) -> float:
        return self._moment(1)

    def second_moment(self) -> float:
        return self._moment(2)

    def scaled(self, factor: float) -> "Weibull":
        return replace(self, scale=self.scale * _check_factor(factor))

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
        return self._moment(1) * _check_d(d) ** (-1.0 / self.shape)

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
            self._fail(f"low must be < high, got low={_fmt(self.low)}, high={_fmt(self.high)}")

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return _ret(x, np.clip((self.high - x) / (self.high - self.low), 0.0, 1.0))

    def _sf_scalar(self, x: float) -> float:
        return min(1.0, max(0.0, (self.high - x) / (self.high - self.low)))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        out = np.where((x < self.low) | (x > self.high), 0.0, 1.0 / (self.high - self.low))
        return _ret(x, out)

    def mean(self) -> float:
        return 0.5 * (self.low + self.high)

    def second_moment(self) -> float:
        l, h = self.low, self.high
        return (l * l + l * h + h * h) / 3.0

    def scaled(self, factor: float) -> "Uniform":
        f = _check_factor(factor)
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
        return self.low + (self.high - self.low) / (_check_d(d) + 1.0)

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
            self._fail(f"values must be >= 0, got {_fmt(raw)}")
        p = self._probabilities("p")
        if len(p) != len(values):
            self._fail(f"values and p must have the same length, got {len(values)} and {len(p)}")
        if not math.fsum(v * q for v, q in zip(values, p)) > 0:
            self._fail(f"values must have a positive mean, got values={_fmt(raw)} with p={_fmt(p)}")

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
        return _ret(x, np.clip(out, 0.0, 1.0))

    def _sf_scalar(self, x: float) -> float:
        return min(1.0, math.fsum(q for v, q in self.point_masses() if x < v))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        return _ret(x, np.zeros_like(x))

    def _sum(self, g) -> float:
        return math.fsum(q * g(v) for v, q in self.point_masses())

    def mean(self) -> float:
        return self._sum(lambda v: v)

    def second_moment(self) -> float:
        return self._sum(lambda v: v * v)

    def scaled(self, factor: float) -> "Discrete":
        f = _check_factor(factor)
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
        d = _check_d(d)
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
        return _ret(x, 0.5 * _erfc_vec(z / math.sqrt(2.0)))

    def _sf_scalar(self, x: float) -> float:
        if x <= 0:
            return 1.0
        return 0.5 * math.erfc((math.log(x) - self.mu) / (self.sigma * math.sqrt(2.0)))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        s, mu = self.sigma, self.mu
        xs = np.maximum(x, 1e-300)
        out = np.exp(-0.5 * ((np.log(xs) - mu) / s) ** 2) / (xs * s * math.sqrt(2 * math.pi))
        return _ret(x, np.where(x <= 0, 0.0, out))

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

    def scaled(self, factor: float) -> "Lognormal":
        return replace(self, mean_value=self.mean_value * _check_factor(factor))

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
        return self._moment(1) * _norm_cdf((math.log(t) - self.mu - s * s) / s) + t * self._sf_scalar(t)

    def second_moment_min(self, t: float) -> float:
        if t <= 0:
            return 0.0
        if math.isinf(t):
            return self.second_moment()
        s = self.sigma
        return self._moment(2) * _norm_cdf(
            (math.log(t) - self.mu - 2 * s * s) / s
        ) + t * t * self._sf_scalar(t)

    def partial_mean(self, c: float) -> float:
        if c <= 0:
            return self.mean()
        if math.isinf(c):
            return 0.0
        s = self.sigma
        return self._moment(1) * _norm_cdf((self.mu + s * s - math.log(c)) / s)

    def partial_second_moment(self, c: float) -> float:
        if c <= 0:
            return self.second_moment()
        if math.isinf(c):
            return 0.0
        s = self.sigma
        return self._moment(2) * _norm_cdf((self.mu + 2 * s * s - math.log(c)) / s)

    # mean_min_of: quadrature (base class)

    def tail_class(self, on_support: bool = False) -> str:
        # the hazard rate rises and then falls: log P(X > x) is concave, then convex
        return "neither"


# ----------------------------------------------------------------------------------
# numba sampler
# ----------------------------------------------------------------------------------


@kernel()
def pick_component(params, n, u):
    """Index i of the mixture component for uniform u, probabilities params[1:1+n]."""
    acc = 0.0
    for i in range(n):
        acc += params[1 + i]
        if u < acc:
            return i
    return n - 1


@kernel()
def sample(code, params, rng):
    """One draw of the family ``code`` with parameters ``params`` (``sampler_params()``).

    ``rng`` is a ``numpy.random.Generator``; only ``random``, ``standard_exponential``,
    ``standard_normal`` and ``standard_gamma`` are used.
    """
    if code == EXPONENTIAL_CODE:  # exponential [mean]
        return params[0] * rng.standard_exponential()
    elif code == DETERMINISTIC_CODE:  # deterministic [value]
        return params[0]
    elif code == PARETO_CODE:  # pareto [xm, alpha]: xm * U^(-1/alpha) = xm * exp(E / alpha)
        return params[0] * np.exp(rng.standard_exponential() / params[1])
    elif code == BOUNDED_PARETO_CODE:  # bounded pareto [low, high, alpha, 1 - (low/high)^alpha]: inverse cdf
        x = params[0] * (1.0 - rng.random() * params[3]) ** (-1.0 / params[2])
        return min(x, params[1])
    elif code == SHIFTED_EXPONENTIAL_CODE:  # shifted exponential [shift, tail_mean]
        return params[0] + params[1] * rng.standard_exponential()
    elif code == HYPEREXPONENTIAL_CODE:  # hyperexponential [n, p..., rates...]
        n = int(params[0])
        i = pick_component(params, n, rng.random())
        return rng.standard_exponential() / params[1 + n + i]
    elif code == ERLANG_CODE:  # erlang [k, mean]
        return rng.standard_gamma(params[0]) * (params[1] / params[0])
    elif code == WEIBULL_CODE:  # weibull [shape, scale]
        return params[1] * rng.standard_exponential() ** (1.0 / params[0])
    elif code == UNIFORM_CODE:  # uniform [low, high]
        return params[0] + (params[1] - params[0]) * rng.random()
    elif code == DISCRETE_CODE:  # discrete [n, p..., values...]
        n = int(params[0])
        i = pick_component(params, n, rng.random())
        return params[1 + n + i]
    elif code == LOGNORMAL_CODE:  # lognormal [mu, sigma]
        return np.exp(params[0] + params[1] * rng.standard_normal())
    raise ValueError("unknown distribution code")


@kernel()
def _sample_many(code, params, n, rng):
    out = np.empty(n, dtype=np.float64)
    for j in range(n):
        out[j] = sample(code, params, rng)
    return out


def sample_many(dist: Distribution, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """``n`` i.i.d. draws of ``dist`` with the numba kernel :func:`sample`.

    ``rng`` is a ``numpy.random.Generator`` (or a seed for ``default_rng``)."""
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    return _sample_many(dist.code, dist.sampler_params(), int(n), rng)


# ----------------------------------------------------------------------------------
# registry and config
# ----------------------------------------------------------------------------------

FAMILIES: dict[str, type[Distribution]] = {
    cls.family: cls
    for cls in (
        Exponential,
        Deterministic,
        Pareto,
        BoundedPareto,
        ShiftedExponential,
        Hyperexponential,
        Erlang,
        Weibull,
        Uniform,
        Discrete,
        Lognormal,
    )
}

# Config parameter names per family, in the config's spelling (``mean`` is stored
# as the field ``mean_value`` because ``mean`` is a method). All are required.
PARAMETERS: dict[str, tuple[str, ...]] = {name: cls.config_parameters() for name, cls in FAMILIES.items()}


def from_spec(spec: dict) -> Distribution:
    """Build a distribution from its config form ``{family: ..., <params>, [scale_to_mean]}``.

    ``scale_to_mean: m`` rescales the law so that E[X] = m. Errors are ValueErrors
    that name the family or parameter, the value and what is allowed.
    """
    if isinstance(spec, Distribution):
        return spec
    if not isinstance(spec, dict):
        raise ValueError(f"a distribution must be a mapping with a 'family' key, got {spec!r}")
    spec = dict(spec)
    allowed_families = ", ".join(sorted(FAMILIES))
    if "family" not in spec:
        raise ValueError(f"distribution is missing 'family'; allowed: {allowed_families}")
    family = spec.pop("family")
    if family not in FAMILIES:
        raise ValueError(f"unknown distribution family {family!r}; allowed: {allowed_families}")
    cls = FAMILIES[family]
    params = PARAMETERS[family]
    scale_to_mean = spec.pop("scale_to_mean", None)
    unknown = sorted(set(spec) - set(params), key=str)
    if unknown:
        raise ValueError(
            f"{family}: unknown parameter {unknown[0]!r}; allowed: {', '.join(params)}, scale_to_mean"
        )
    missing = [p for p in params if p not in spec]
    if missing:
        raise ValueError(f"{family}: missing parameter {missing[0]!r}; required: {', '.join(params)}")
    dist = cls.from_config(spec)
    if scale_to_mean is not None:
        if not (_is_number(scale_to_mean) and math.isfinite(float(scale_to_mean)) and scale_to_mean > 0):
            raise ValueError(
                f"{family}: scale_to_mean must be a positive finite number, got {_fmt(scale_to_mean)}"
            )
        dist = dist.scaled(float(scale_to_mean) / dist.mean())
    return dist
