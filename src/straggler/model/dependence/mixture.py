"""The ``mixture`` dependence: a job's copies are all one draw with probability ``c``,
else independent draws, each from the size law. It keeps the measured law as every
copy's marginal and varies only how the copies relate: ``c = 0`` is ``iid``, ``c = 1``
is ``identical``, and Spearman's rho between two copies of a continuous law is ``c``
(:mod:`.measured` estimates it from paired durations).

Every quantity that is an expectation over one job's copies is linear in their joint
law, so it is ``c`` times the identical one plus ``1 - c`` times the i.i.d. one: the
pair functionals (:class:`~straggler.model.dependence.sx.MixturePair` of an identical and an
i.i.d. pair), ``E[min of d copies]``, the law of the smallest of ``d`` copies
(``P(min > x) = c P(X > x) + (1 - c) P(X > x)^d``), the server time a job takes. A
queue is not linear in its service law, but its service law is this mixture, so any
analysis that reads the service time's moments or law reads the mixture's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..distributions import Distribution
from .base import MIXTURE_CODE, Dependence


@dataclass(frozen=True)
class Mixture(Dependence):
    """With probability ``identical`` every copy is ``X`` (one draw), else the copies
    are independent copies of ``X``."""

    identical: float
    kind: ClassVar[str] = "mixture"
    code: ClassVar[int] = MIXTURE_CODE

    def __post_init__(self):
        c = self.identical
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0.0 <= float(c) <= 1.0):
            raise ValueError(f"identical: expected a probability in [0, 1], got {c!r}")
        object.__setattr__(self, "identical", float(c))

    def branches(self) -> tuple[tuple[float, Dependence], ...]:
        """``((c, Identical()), (1 - c, IID()))``: the two dependences it mixes."""
        from .identical import Identical
        from .iid import IID

        return ((self.identical, Identical()), (1.0 - self.identical, IID()))

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        return X.mean(), X.second_moment()

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        """The heavier of the branches' tails: with ``c > 0`` the identical branch's
        (X's own), since ``P(X_{k:r} > x) >= c P(X > x)``."""
        indices = [dep.order_tail_index(X, r, k) for w, dep in self.branches() if w > 0]
        return min(indices) if indices else math.inf

    def to_spec(self) -> dict:
        return {"kind": self.kind, "identical": self.identical}


def over_branches(dep: Dependence, expectation):
    """``expectation(dep)`` for a plain dependence; for a :class:`Mixture`, ``c`` times
    it under ``identical`` plus ``1 - c`` times it under ``iid``. Only for an expectation
    over one job's copies (linear in their joint law: a moment of the smallest copy, a
    job's server time, a light-traffic latency), never for a queue's response time."""
    if not isinstance(dep, Mixture):
        return expectation(dep)
    total = 0.0
    for w, branch in dep.branches():
        if w > 0.0:
            total = total + w * expectation(branch)
    return total
