"""The base class of the job-size families and the helpers they share.

:class:`Distribution` evaluates every functional by quadrature of the survival
function (:mod:`straggler.common.numerics`), which is exact enough for any law; a family
overrides a functional with its closed form where one exists.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from ...common.numerics import RELATIVE_1E11, integrate_resolving_start
from .pieces import QuantilePieces

# Tolerance on sum(p) == 1 for probability vectors.
PROBABILITY_SUM_TOLERANCE = 1e-9


# ----------------------------------------------------------------------------------
# numerical helpers
# ----------------------------------------------------------------------------------


def expint(k: float, L: float) -> float:
    """int_0^L e^{k s} ds, accurate for k near 0."""
    if k == 0.0:
        return L
    return math.expm1(k * L) / k


def exp_or_inf(y: float) -> float:
    """``exp(y)``, or ``inf`` where it would overflow."""
    return math.inf if y > 709.0 else math.exp(y)


def norm_cdf(z: float) -> float:
    """Standard normal cdf, accurate in both tails."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


erfc_vec = np.vectorize(math.erfc, otypes=[float])


def scalar_or_array(x: np.ndarray, out: np.ndarray):
    """Return a float for scalar input, an array otherwise."""
    return float(out) if np.ndim(x) == 0 else out


def format_value(v) -> str:
    """A value as a user wrote it: lists in brackets, numbers without numpy noise."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(format_value(u) for u in v) + "]"
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    return repr(v)


def is_number(v) -> bool:
    """Whether ``v`` is a real number (not a bool)."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


# ----------------------------------------------------------------------------------
# base class
# ----------------------------------------------------------------------------------


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
    #: its parameters' JSON schema, by their config spelling (:mod:`.parameters`): the
    #: config schema's branch for the family is built from it
    schema: ClassVar[dict]
    #: the parameters that may be left out (their fields' defaults), in the config's spelling
    optional: ClassVar[tuple[str, ...]] = ()
    #: the parameter naming the data file that backs the law (None: a parametric law);
    #: the resolved config adds :meth:`resolved_extras` (the file's content digest)
    data_file: ClassVar[str | None] = None
    #: parameters that shape the study's grid, not the law (a trace's ``bootstrap``): a
    #: cell's spec leaves them out
    grid_only: ClassVar[tuple[str, ...]] = ()
    #: parameters that a grid axis may not sweep (set by the study itself)
    unswept: ClassVar[tuple[str, ...]] = ()
    #: True for a law per job type (:mod:`.by_type`): :meth:`of_type` differs by type
    per_type: ClassVar[bool] = False

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
    def scaled(self, factor: float) -> Distribution:
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

    def breaks(self) -> tuple[float, ...]:
        """Where P(X > x) is not smooth, the quadrature's break points: the atoms, and
        the kinks of a law that has them (an interpolated sample's order statistics)."""
        return self.atoms()

    def of_type(self, j: int) -> Distribution:
        """The size law of a type-``j`` job: this law, but for a law per job type."""
        return self

    def quantile_pieces(self) -> QuantilePieces | None:
        """The quantile function as linear pieces (:mod:`.pieces`) when it is piecewise
        linear: then order statistics and replica sums are exact finite sums. None for
        the other laws."""
        return None

    def quantile(self, q: float) -> float:
        """The q-quantile, ``inf {x : P(X <= x) >= q}`` for 0 < q < 1, by bisection on the
        survival function (exact to the float's resolution; an atom is hit exactly)."""
        if not 0.0 < q < 1.0:
            raise ValueError(f"a quantile level must be in (0, 1), got {q!r}")
        lo, hi = (float(v) for v in self.support())
        lo = max(lo, 0.0)
        if not math.isfinite(hi):
            hi = max(2.0 * self.mean(), 1.0) if math.isfinite(self.mean()) else 1.0
            while self._sf_scalar(hi) > 1.0 - q:
                hi *= 2.0
        if self._sf_scalar(lo) <= 1.0 - q:
            return lo
        for _ in range(200):  # P(X > lo) > 1 - q >= P(X > hi)
            mid = lo + (hi - lo) / 2
            if mid in (lo, hi):
                break
            if self._sf_scalar(mid) <= 1.0 - q:
                hi = mid
            else:
                lo = mid
        return hi

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
        return scalar_or_array(x, out)

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
            self._sf_scalar, a, min(t, hi), RELATIVE_1E11, self.breaks(), self._scale_hint()
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
            lambda x: 2.0 * x * self._sf_scalar(x), a, min(t, hi), RELATIVE_1E11, self.breaks(), self._scale_hint()
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
        return (
            c * self._sf_scalar(c)
            + head
            + integrate_resolving_start(self._sf_scalar, a, hi, RELATIVE_1E11, self.breaks(), self._scale_hint())
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
        return (
            c * c * self._sf_scalar(c)
            + head
            + integrate_resolving_start(
                lambda x: 2.0 * x * self._sf_scalar(x), a, hi, RELATIVE_1E11, self.breaks(), self._scale_hint()
            )
        )

    def mean_min_of(self, d: int) -> float:
        """E[min(X_1, ..., X_d)] for d i.i.d. copies: int_0^inf P(X > x)^d dx."""
        d = check_d(d)
        if d == 1:
            return self.mean()
        lo, hi = self.support()
        return lo + integrate_resolving_start(
            lambda x: self._sf_scalar(x) ** d, lo, hi, RELATIVE_1E11, self.breaks(), self._scale_hint()
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

            total += integrate_resolving_start(integrand, lo, hi, RELATIVE_1E11, self.breaks(), self._scale_hint())
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
        """The parameters in the config's spelling and meaning (an optional one only
        when it is not its default)."""
        values = {}
        for f in fields(self):
            v = getattr(self, f.name)
            name = self._config_name(f.name)
            if name in self.optional and v == f.default:
                continue
            values[name] = list(v) if isinstance(v, tuple) else v
        return values

    @classmethod
    def config_parameters(cls) -> tuple[str, ...]:
        """The family's required parameters in the config's spelling."""
        return tuple(n for n in (cls._config_name(f.name) for f in fields(cls)) if n not in cls.optional)

    @classmethod
    def resolved_extras(cls, spec: dict) -> dict:
        """Keys the resolved config adds to the config form ``spec``: nothing, but for a
        law backed by a data file its content's digest."""
        return {}

    @classmethod
    def from_config(cls, params: dict) -> Distribution:
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
        if not is_number(v) or not math.isfinite(float(v)) or v < 0 or (v == 0 and not allow_zero):
            self._fail(f"{self._config_name(name)} must be {what} finite number, got {format_value(v)}")
        object.__setattr__(self, name, float(v))

    def _vector(self, name: str) -> tuple[float, ...]:
        """Coerce field ``name`` to a non-empty tuple of finite floats."""
        v = getattr(self, name)
        if isinstance(v, np.ndarray):
            v = v.tolist()
        if not isinstance(v, (list, tuple)) or len(v) == 0:
            self._fail(f"{name} must be a non-empty list of numbers, got {format_value(v)}")
        if not all(is_number(u) and math.isfinite(float(u)) for u in v):
            self._fail(f"{name} must be a list of finite numbers, got {format_value(v)}")
        t = tuple(float(u) for u in v)
        object.__setattr__(self, name, t)
        return t

    def _probabilities(self, name: str = "p") -> tuple[float, ...]:
        raw = getattr(self, name)
        p = self._vector(name)
        if any(u < 0 for u in p) or abs(math.fsum(p) - 1.0) > PROBABILITY_SUM_TOLERANCE:
            self._fail(f"{name} must be non-negative and sum to 1, got {format_value(raw)}")
        return p


def check_d(d) -> int:
    """``d`` (a number of replicas) as an int ``>= 1``; a ValueError otherwise."""
    if not (is_number(d) and float(d).is_integer() and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {format_value(d)}")
    return int(d)


def check_factor(factor) -> float:
    """``factor`` (of :meth:`Distribution.scaled`) as a positive finite float; a ValueError otherwise."""
    if not (is_number(factor) and math.isfinite(float(factor)) and factor > 0):
        raise ValueError(f"scale factor must be a positive finite number, got {format_value(factor)}")
    return float(factor)
