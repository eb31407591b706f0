"""The common interface of the replica dependence models: :class:`Dependence` (a
model) and :class:`Pair` (its two-replica functionals), with the models' codes that
the kernels read."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from ..distributions import Deterministic, Distribution
from .expectations import check_threshold, survival

IDENTICAL_CODE = 0
IID_CODE = 1
SX_CODE = 2
MIXTURE_CODE = 3
PAIRS_CODE = 4


@dataclass(frozen=True)
class Dependence(ABC):
    """How the replica sizes of one job relate (see :mod:`straggler.model.dependence`)."""

    kind: ClassVar[str]
    code: ClassVar[int]

    @abstractmethod
    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        """``(E[X_i], E[X_i^2])`` of the size of one replica (speed 1)."""

    def replica_mean(self, X: Distribution) -> float:
        """``E[X_i]``: the size of one replica, the unit of ``load`` (docs/background/model.md)."""
        return self.replica_marginal_moments(X)[0]

    def replica_quantile(self, X: Distribution, q: float) -> float:
        """The q-quantile of one replica's size (speed 1): X's own, but under ``sx`` a copy
        takes ``X S``, which is what a client measures and times a hedge by."""
        return float(X.quantile(q))

    def slowdown_or_dummy(self) -> Distribution:
        """The slowdown law (``sx``) or a deterministic 1 (what the sampler reads)."""
        return Deterministic(1.0)

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        """Tail index (:meth:`Distribution.tail_index`) of the k-th smallest of ``r``
        replica sizes of one job (``r = k = 1``: one replica). Identical replicas
        keep X's; the k-th smallest of r i.i.d. sizes exceeds x only if r - k + 1 of
        them do, so P(X_{k:r} > x) is of the order of P(X > x)^(r-k+1) and its index
        is (r - k + 1) times X's."""
        return X.tail_index()

    def to_spec(self) -> dict:
        """The config form of the dependence (what :func:`~straggler.model.dependence.from_spec` reads)."""
        return {"kind": self.kind}


class Pair(ABC):
    """Two-replica functionals of ``A = a X_i`` and ``B = b X_l``.

    ``a = 1/r_ij`` and ``b = 1/r_lj``: the time per unit size of the job's
    replica in pool ``i`` and in the other pool ``l``. All arguments ``t``, ``y``
    are thresholds ``>= 0`` (``inf`` allowed). Notation (docs: reference results, section 1):
    ``k(m, y)`` is ``k^m_{il,j}(y)``.
    """

    a: float
    b: float

    # marginal of A
    @abstractmethod
    def mean_A(self) -> float:
        """``E[A]``."""

    @abstractmethod
    def second_A(self) -> float:
        """``E[A^2]`` (``inf`` when it does not exist)."""

    @abstractmethod
    def mean_min_A(self, t: float) -> float:
        """``E[min(A, t)]``."""

    @abstractmethod
    def second_min_A(self, t: float) -> float:
        """``E[min(A, t)^2]``."""

    @abstractmethod
    def prob_A_exceeds(self, t: float) -> float:
        """``P(A > t)``."""

    # joint
    @abstractmethod
    def mean_A_B_exceeds(self, t: float) -> float:
        """``E[A 1{B > t}]`` (rerouting from the other pool, eq. 2)."""

    @abstractmethod
    def second_A_B_exceeds(self, t: float) -> float:
        """``E[A^2 1{B > t}]`` (``inf`` when it does not exist)."""

    @abstractmethod
    def k(self, m: int, y: float) -> float:
        """``k^m(y) = E[min(A - y, B)^m 1{A > y}]`` for ``m = 1, 2`` (eq. 4); ``k(m, inf) = 0``.

        Equivalently ``int_0^inf m s^(m-1) P(A > y + s, B > s) ds``.
        """

    @abstractmethod
    def mean_min_AB(self) -> float:
        """``E[min(A, B)] = k(1, 0)`` (full redundancy, eq. 6)."""


class MarginalAX(Pair):
    """Marginal functionals of ``A = a X`` (shared by the identical and i.i.d. pairs)."""

    X: Distribution

    def mean_A(self) -> float:
        return self.a * self.X.mean()

    def second_A(self) -> float:
        return self.a * self.a * self.X.second_moment()

    def mean_min_A(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return self.mean_A()
        return self.a * self.X.mean_min(t / self.a)

    def second_min_A(self, t: float) -> float:
        t = check_threshold(t, "t")
        if math.isinf(t):
            return self.second_A()
        return self.a * self.a * self.X.second_moment_min(t / self.a)

    def prob_A_exceeds(self, t: float) -> float:
        t = check_threshold(t, "t")
        return 0.0 if math.isinf(t) else survival(self.X, t / self.a)
