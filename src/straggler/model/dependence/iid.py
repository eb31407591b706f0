"""The ``iid`` dependence: the replica sizes are independent copies of the job's,
and its two-replica functionals."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...common.numerics import RELATIVE_1E10, integrate_split
from .. import distributions as _distributions
from ..distributions import Distribution, Exponential
from ..distributions.pieces import quadrature_between_breaks, quadrature_sum
from .base import IID_CODE, Dependence, MarginalAX
from .expectations import atomic_law, check_moment_order, check_threshold, survival, zero_safe_product


@dataclass(frozen=True)
class IID(Dependence):
    """The replica sizes are independent copies of ``X``."""

    kind: ClassVar[str] = "iid"
    code: ClassVar[int] = IID_CODE

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        return X.mean(), X.second_moment()

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        return (int(r) - int(k) + 1) * X.tail_index()


def _exponential_phases(X: Distribution) -> list[tuple[float, float]] | None:
    """``[(p_i, mean_i)]`` when ``X`` is an exponential or a hyperexponential, else ``None``."""
    if isinstance(X, Exponential):
        return [(1.0, X.mean())]
    if isinstance(X, _distributions.Hyperexponential):
        return [(float(p), 1.0 / float(r)) for p, r in zip(X.p, X.rates) if p > 0]
    return None


FEW_ATOMS = 256
"""An atomic law with at most this many atoms takes the exact double sum over them (O(n^2));
a law with more, or any other tabulated law, the exact sum over its knots (O(n log n))."""


def _sf_knots(X: Distribution) -> np.ndarray | None:
    """The points between which ``P(X > x)`` is linear or constant (a tabulated law's
    quantile pieces' ends), or None for a law without them."""
    q = X.quantile_pieces()
    if q is None:
        return None
    return np.unique(np.concatenate((q.x0, q.x1)))


def _kappa(m: int, y: float, alpha, beta):
    """``min(alpha - y, beta)^m 1{alpha > y}``: ``k`` for deterministic sizes (vectorised)."""
    alpha = np.asarray(alpha, dtype=float)
    beta = np.asarray(beta, dtype=float)
    return np.where(alpha > y, np.minimum(alpha - y, beta), 0.0) ** m


@dataclass(frozen=True)
class IIDPair(MarginalAX):
    """``A = a X_1``, ``B = b X_2`` with ``X_1, X_2`` i.i.d. ~ ``X``.

    - marginal functionals as for identical replicas;
    - ``E[A 1{B > t}] = a E[X] P(X > t/b)``, ``E[A^2 1{B > t}] = a^2 E[X^2] P(X > t/b)``;
    - ``k^m(y) = int_0^inf m s^(m-1) P(X > (y+s)/a) P(X > s/b) ds``: closed form for
      exponential ``X`` with mean ``mu`` (``theta = 1/(a mu) + 1/(b mu)``):
      ``k^m(y) = m! e^(-y/(a mu)) / theta^m``, and its double sum over the phases
      for a hyperexponential; an exact double sum for ``X`` with few atoms; an exact
      sum over the knots of a tabulated ``X`` (a trace, a quantile table, many atoms);
      otherwise one adaptive quadrature split at the atoms and support ends.
      ``k^2`` is finite whenever ``E[X]`` is (``s P(X > s) -> 0``).
    - ``E[min(A, B)] = k^1(0)``; exponential: ``mu a b / (a + b)``.
    """

    X: Distribution
    a: float
    b: float

    def _prob_B_exceeds(self, t: float) -> float:
        return 0.0 if math.isinf(t) else survival(self.X, t / self.b)

    def mean_A_B_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        return zero_safe_product(self.a * self.X.mean(), self._prob_B_exceeds(t))

    def second_A_B_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        return zero_safe_product(self.a * self.a * self.X.second_moment(), self._prob_B_exceeds(t))

    def k(self, m: int, y: float) -> float:
        m = check_moment_order(m)
        y = check_threshold(y, "y")
        if math.isinf(y):
            return 0.0
        X, a, b = self.X, self.a, self.b
        phases = _exponential_phases(X)
        if phases is not None:
            # mixture of exponentials: sum_ij p_i p_j m! e^{-y/(a mu_i)} / (1/(a mu_i) + 1/(b mu_j))^m
            total = 0.0
            for pi, mi in phases:
                head = pi * math.factorial(m) * math.exp(-y / (a * mi))
                if head == 0.0:
                    continue
                for pj, mj in phases:
                    total += head * pj / (1.0 / (a * mi) + 1.0 / (b * mj)) ** m
            return total
        many = len(X.point_masses()) > FEW_ATOMS
        law = atomic_law(X) if not many else None
        if law is not None:
            v, p = law
            kap = _kappa(m, y, a * v[:, None], b * v[None, :])
            return float(p @ kap @ p)
        tables = self._atomic_tables(m) if many else None
        if tables is not None:
            return _k_from_tables(tables, m, y)
        lo, hi = X.support()
        upper = min(a * hi - y, b * hi)
        if not upper > 0:
            return 0.0
        knots = _sf_knots(X)
        if knots is not None:
            # P(X > x) is linear (or constant) between the knots, so the integrand is a
            # polynomial of degree m + 1 between the points where (y + s) / a or s / b
            # crosses one: Gauss-Legendre is exact there, O(n log n) for n knots
            cuts = np.concatenate(([0.0, upper], a * knots - y, b * knots))
            cuts = np.unique(cuts[(cuts >= 0.0) & (cuts <= upper)])

            def g(s: np.ndarray) -> np.ndarray:
                return m * s ** (m - 1) * np.asarray(X.sf((y + s) / a)) * np.asarray(X.sf(s / b))

            nodes, weights = quadrature_between_breaks(cuts, m + 1)
            return quadrature_sum(weights, g(nodes))
        pts: list[float] = [a * lo - y, b * lo]
        for atom in X.atoms():
            pts += [a * atom - y, b * atom]

        def f(s: float) -> float:
            pa = survival(X, (y + s) / a)
            if pa == 0.0:
                return 0.0
            pb = survival(X, s / b)
            return (m * s ** (m - 1)) * pa * pb

        return integrate_split(f, 0.0, upper, RELATIVE_1E10, pts, scale=min(a, b) * X.mean())

    def _atomic_tables(self, m: int):
        """For a purely atomic X with many atoms (a trace): its values times a and b,
        their masses, and the sums that :func:`_k_from_tables` reads, computed once per
        pair and moment (None: X is not purely atomic)."""
        cache = self.__dict__.setdefault("_tables", {})
        if m not in cache:
            law = atomic_law(self.X)
            if law is None:
                cache[m] = None
            else:
                v, p = law
                order = np.argsort(v, kind="stable")
                v, p = v[order], p[order]
                bv = self.b * v
                below = np.concatenate(([0.0], np.cumsum(p * bv**m)))  # sum_{j<k} p_j (b v_j)^m
                at_or_above = np.concatenate((np.cumsum(p[::-1])[::-1], [0.0]))  # sum_{j>=k} p_j
                cache[m] = (self.a * v, p, bv, below, at_or_above)
        return cache[m]

    def mean_min_AB(self) -> float:
        return self.k(1, 0.0)


def _k_from_tables(tables, m: int, y: float) -> float:
    """``k^m(y) = sum_i p_i 1{a v_i > y} E[min(a v_i - y, b X)^m]`` for an atomic X, the
    inner expectation ``sum_{b v_j < alpha} p_j (b v_j)^m + alpha^m P(b X >= alpha)`` read
    from prefix sums (:func:`straggler.model.dependence.atomic_sums.k_sum`, compiled: imported
    here, so that an analysis without a trace imports no numba): O(n) a call, no pass over
    pairs of atoms."""
    from .atomic_sums import k_sum

    av, p, bv, below, at_or_above = tables
    return float(k_sum(av, p, bv, below, at_or_above, m, float(y)))
