"""The ``sx`` dependence (the S&X model of the speculation paper, Anselmi and Walton,
arXiv 2104.10426): a shared size times i.i.d. slowdowns, and its two-replica functionals."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..distributions import Distribution
from .base import SX_CODE, Dependence, Pair
from .expectations import check_moment_order, check_threshold, expect, survival, zero_safe_product
from .iid import IIDPair


@dataclass(frozen=True)
class SX(Dependence):
    """S&X model: ``X_i = X S_i``, ``X`` shared, slowdowns ``S_i`` i.i.d. ~ ``slowdown``."""

    slowdown: Distribution
    kind: ClassVar[str] = "sx"
    code: ClassVar[int] = SX_CODE

    def __post_init__(self):
        s = self.slowdown
        if not isinstance(s, Distribution):
            raise ValueError(f"sx slowdown must be a Distribution, got {s!r}")
        lo, _ = s.support()
        m = s.mean()
        if not (lo >= 0 and math.isfinite(m) and m > 0):
            raise ValueError(f"sx slowdown must be non-negative with a finite positive mean, got {s!r}")
        if float(s.sf(0.0)) < 1.0 - 1e-12:
            raise ValueError(f"sx slowdown must satisfy P(S > 0) = 1, got {s!r}")

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        s = self.slowdown
        return X.mean() * s.mean(), X.second_moment() * s.second_moment()

    def slowdown_or_dummy(self) -> Distribution:
        return self.slowdown

    def replica_quantile(self, X: Distribution, q: float) -> float:
        # P(X S <= t) = E_S[F_X(t / S)], increasing in t: bracketed between the q-quantiles of
        # X times S's least and largest values that matter (S > 0 surely)
        from scipy.optimize import brentq  # here: the model's import stays free of scipy

        s = self.slowdown
        if not 0.0 < q < 1.0:
            raise ValueError(f"a quantile level must be in (0, 1), got {q!r}")

        def below(t: float) -> float:
            return expect(s, lambda v: 1.0 - survival(X, t / v)) - q

        lo = float(X.quantile(q)) * float(s.quantile(1e-9))
        hi = float(X.quantile(q)) * float(s.quantile(1.0 - 1e-9))
        lo, hi = max(lo * 0.5, 0.0), hi * 2.0
        if below(lo) >= 0.0:
            return lo
        return float(brentq(below, lo, hi, xtol=1e-12 * hi, rtol=1e-12))

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        # E[(X S_{k:r})^p] = E[X^p] E[S_{k:r}^p] (independent factors): finite iff
        # both are, and S_{k:r} has r - k + 1 times the slowdown's index
        return min(X.tail_index(), (int(r) - int(k) + 1) * self.slowdown.tail_index())

    def to_spec(self) -> dict:
        return {"kind": self.kind, "slowdown": self.slowdown.to_spec()}


@dataclass(frozen=True)
class MixturePair(Pair):
    """A finite mixture ``sum_c w_c pair_c`` of pairs (all with the same ``a``, ``b``
    meaning): used for ``sx`` when the slowdown or ``X`` is atomic. Every functional
    is linear in the joint law, so it is the weighted sum of the components'."""

    components: tuple[tuple[float, Pair], ...]
    a: float
    b: float

    def _sum(self, name: str, *args) -> float:
        total = 0.0
        for w, p in self.components:
            total += zero_safe_product(w, getattr(p, name)(*args))
        return total

    def mean_A(self) -> float:
        return self._sum("mean_A")

    def second_A(self) -> float:
        return self._sum("second_A")

    def mean_min_A(self, t: float) -> float:
        return self._sum("mean_min_A", t)

    def second_min_A(self, t: float) -> float:
        return self._sum("second_min_A", t)

    def prob_A_exceeds(self, t: float) -> float:
        return self._sum("prob_A_exceeds", t)

    def mean_A_B_exceeds(self, t: float) -> float:
        return self._sum("mean_A_B_exceeds", t)

    def second_A_B_exceeds(self, t: float) -> float:
        return self._sum("second_A_B_exceeds", t)

    def k(self, m: int, y: float) -> float:
        return self._sum("k", m, y)

    def mean_min_AB(self) -> float:
        return self._sum("mean_min_AB")


@dataclass(frozen=True)
class SXPair(Pair):
    """``A = a X S_1``, ``B = b X S_2`` (S&X) for continuous ``X`` and a non-atomic
    slowdown ``S``: given ``X = x`` the replicas are an i.i.d. pair of ``S`` with
    factors ``(a x, b x)`` (:class:`IIDPair`), and every functional is
    ``E_X[ IIDPair(S, a X, b X).functional ]``, one quadrature over the density of
    ``X`` split where the conditional functional has kinks (``x = t/(a s)``,
    ``t/(b s)`` for the support ends and atoms ``s`` of ``S``). Exact by
    homogeneity: ``E[A] = a E[X] E[S]``, ``E[A^2] = a^2 E[X^2] E[S^2]``,
    ``E[min(A, B)] = E[X] E[min(a S_1, b S_2)]``.

    Infinite second-order quantities: ``E[A^2 1{B > t}] = inf`` iff ``E[X^2]`` or
    ``E[S^2]`` is; ``k^2(y) = inf`` iff ``E[X^2]`` is (given ``X = x`` it is
    ``x^2 k^2_S(y/x)`` with ``k^2_S(0) > 0``; it is finite in ``S`` alone).
    """

    X: Distribution
    S: Distribution
    a: float
    b: float

    def _given(self, x: float) -> IIDPair:
        return IIDPair(self.S, self.a * x, self.b * x)

    def _kinks(self, t: float, factors: tuple[float, ...]) -> tuple[float, ...]:
        lo, hi = self.S.support()
        ss = [s for s in (lo, hi, *self.S.atoms()) if 0 < s < math.inf]
        return tuple(t / (f * s) for f in factors for s in ss)

    def _outer(self, name: str, t: float, factors: tuple[float, ...], *args) -> float:
        def h(x: float) -> float:
            if x <= 0.0:
                return 0.0
            return getattr(self._given(x), name)(*args)

        return expect(self.X, h, self._kinks(t, factors) if t > 0 else ())

    def mean_A(self) -> float:
        return self.a * self.X.mean() * self.S.mean()

    def second_A(self) -> float:
        return self.a * self.a * self.X.second_moment() * self.S.second_moment()

    def mean_min_A(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return self.mean_A()
        return self._outer("mean_min_A", t, (self.a,), t)

    def second_min_A(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return self.second_A()
        return self._outer("second_min_A", t, (self.a,), t)

    def prob_A_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return 0.0
        if t == 0.0:
            return 1.0  # P(S > 0) = 1 (checked by SX) and X > 0 a.s. on the density part
        return self._outer("prob_A_exceeds", t, (self.a,), t)

    def mean_A_B_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return 0.0
        return self._outer("mean_A_B_exceeds", t, (self.b,), t)

    def second_A_B_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return 0.0
        if math.isinf(self.X.second_moment()) or math.isinf(self.S.second_moment()):
            return math.inf
        return self._outer("second_A_B_exceeds", t, (self.b,), t)

    def k(self, m: int, y: float) -> float:
        m = check_moment_order(m)
        y = check_threshold(y, "y")
        if math.isinf(y):
            return 0.0
        if m == 2 and math.isinf(self.X.second_moment()):
            return math.inf
        if y == 0.0:
            return _homogeneous_k0(self, m)
        return self._outer("k", y, (self.a,), m, y)

    def mean_min_AB(self) -> float:
        return self.X.mean() * IIDPair(self.S, self.a, self.b).mean_min_AB()


def _homogeneous_k0(p: SXPair, m: int) -> float:
    """``k^m(0) = E[min(A, B)^m] = E[X^m] E[min(a S_1, b S_2)^m]``."""
    xm = p.X.mean() if m == 1 else p.X.second_moment()
    return zero_safe_product(xm, IIDPair(p.S, p.a, p.b).k(m, 0.0))


COPY_LEVELS = tuple(
    sorted(
        {round(k / 1000, 6) for k in range(1, 1000)}
        | {round(1 - 10 ** (-e / 10), 10) for e in range(31, 61)}
        | {round(10 ** (-e / 10), 10) for e in range(31, 61)}
    )
)
"""The quantile levels of :func:`copy_law_spec`'s table: every 0.1 %, and ten a decade into
both tails down to 1e-6 (the table's mean then within 0.1 % of E[X] E[S] on the shipped
S&X fit: linear pieces over a convex quantile function overshoot)."""


def copy_law_spec(X: Distribution, dependence: SX, levels=COPY_LEVELS) -> dict:
    """The law of one copy under S&X, ``X S``, as a quantile table (``{family: quantiles}``,
    linear between :data:`COPY_LEVELS`) scaled to its exact mean E[X] E[S]: the size law
    under which i.i.d. or identical copies keep the S&X copy's marginal, so that the answer
    can be checked against those two. Its ends are the 1e-6 and 1 - 1e-6 quantiles where
    X S is unbounded (a table has finite ends)."""
    values = [dependence.replica_quantile(X, q) for q in levels]
    lo = float(X.support()[0]) * float(dependence.slowdown.support()[0])
    hi = float(X.support()[1]) * float(dependence.slowdown.support()[1])
    first = lo if math.isfinite(lo) else values[0]
    last = hi if math.isfinite(hi) else values[-1]
    points = {0.0: first, **dict(zip(levels, values)), 1.0: max(last, values[-1])}
    table = {float(p): float(f"{v:.6g}") for p, v in points.items()}
    return {"family": "quantiles", "quantiles": table, "scale_to_mean": float(f"{dependence.replica_mean(X):.10g}")}
