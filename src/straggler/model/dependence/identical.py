"""The ``identical`` dependence: every replica has the job's size, and the closed
forms of its two-replica functionals."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..distributions import Distribution
from .base import IDENTICAL_CODE, Dependence, MarginalAX
from .expectations import check_moment_order, check_threshold, tail_integral1, tail_integral2, zero_safe_product


@dataclass(frozen=True)
class Identical(Dependence):
    """``X_i = X`` for every replica."""

    kind: ClassVar[str] = "identical"
    code: ClassVar[int] = IDENTICAL_CODE

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        return X.mean(), X.second_moment()


@dataclass(frozen=True)
class IdenticalPair(MarginalAX):
    """``A = a X``, ``B = b X`` (identical replicas). All closed forms in partial
    moments of ``X``; write ``c = t/a`` or ``y/a``, ``I1(c) = int_c^inf P(X>u) du =
    E[X 1{X>c}] - c P(X>c)``, ``I2(c) = int_c^inf 2u P(X>u) du = E[X^2 1{X>c}] - c^2 P(X>c)``.

    - ``E[min(A, t)] = a E[min(X, t/a)]``, ``E[min(A, t)^2] = a^2 E[min(X, t/a)^2]``,
      ``P(A > t) = P(X > t/a)``;
    - ``E[A 1{B > t}] = a E[X 1{X > t/b}]``, ``E[A^2 1{B > t}] = a^2 E[X^2 1{X > t/b}]``;
    - ``k``: ``P(A > y+s, B > s) = P(X > max((y+s)/a, s/b))``.
      If ``a <= b`` then ``(y+s)/a >= s/b`` always, ``min(A - y, B) = A - y`` and
      ``k^1 = a I1(y/a)``, ``k^2 = a^2 I2(y/a) - 2 a y I1(y/a)``.
      If ``a > b`` the two cross at ``X = d = y/(a-b)`` (``s = y b/(a-b)``): below,
      ``min = aX - y``; above, ``min = bX``; with ``c = y/a`` and
      ``J1 = I1(c) - I1(d)``, ``J2 = I2(c) - I2(d)`` (``int_c^d`` of ``P(X>u)``,
      ``2u P(X>u)``):
      ``k^1 = a J1 + b I1(d)``, ``k^2 = a^2 J2 - 2 a y J1 + b^2 I2(d)``.
      ``k(m, 0) = min(a, b)^m E[X^m]``.
    - ``E[min(A, B)] = min(a, b) E[X]``.
    """

    X: Distribution
    a: float
    b: float

    def mean_A_B_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return 0.0
        return self.a * self.X.partial_mean(t / self.b)

    def second_A_B_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return 0.0
        return zero_safe_product(self.a * self.a, self.X.partial_second_moment(t / self.b))

    def k(self, m: int, y: float) -> float:
        m = check_moment_order(m)
        y = check_threshold(y, "y")
        if math.isinf(y):
            return 0.0
        X, a, b = self.X, self.a, self.b
        c = y / a
        if a <= b:
            i1 = tail_integral1(X, c)
            if m == 1:
                return a * i1
            i2 = tail_integral2(X, c)
            if math.isinf(i2):
                return math.inf
            return max(a * a * i2 - 2.0 * a * y * i1, 0.0)
        d = y / (a - b)
        i1c, i1d = tail_integral1(X, c), tail_integral1(X, d)
        j1 = max(i1c - i1d, 0.0)
        if m == 1:
            return a * j1 + b * i1d
        i2d = tail_integral2(X, d)
        if math.isinf(i2d):
            return math.inf
        # int_c^d 2u P(X>u) du; through the finite head when the tails are infinite
        j2 = max(tail_integral2(X, c) - i2d, 0.0)
        return max(a * a * j2 - 2.0 * a * y * j1, 0.0) + b * b * i2d

    def mean_min_AB(self) -> float:
        return min(self.a, self.b) * self.X.mean()
