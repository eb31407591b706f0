"""The functionals of one job's replicas under any dependence: :func:`pair` (two
replicas; docs: reference results, section 1) and :func:`mean_min_replicas` (the first of ``d``)."""

from __future__ import annotations

from ..distributions import Distribution
from .base import Dependence, Pair
from .expectations import atomic_law, check_time_factor
from .identical import Identical, IdenticalPair
from .iid import IID, IIDPair
from .kinds import KINDS
from .mixture import Mixture
from .sx import SX, MixturePair, SXPair


def mean_min_replicas(X: Distribution, dep: Dependence, d: int) -> float:
    """``E[min(X_1, ..., X_d)]`` of one job's ``d`` replicas (PS paper, section 3.4).

    identical: ``E[X]``; iid: ``E[X_{1:d}]`` (:meth:`Distribution.mean_min_of`);
    sx: ``E[X] E[min(S_1..S_d)]``; mixture: ``c E[X] + (1 - c) E[X_{1:d}]``.
    """
    if isinstance(dep, Mixture):
        return sum(w * mean_min_replicas(X, branch, d) for w, branch in dep.branches() if w > 0)
    if isinstance(dep, IID):
        return X.mean_min_of(int(d))
    if isinstance(dep, SX):
        return X.mean() * dep.slowdown.mean_min_of(int(d))
    if isinstance(dep, Identical):
        return X.mean()
    raise ValueError(f"unknown dependence {dep!r}")


def pair(dep: Dependence, X: Distribution, a: float = 1.0, b: float = 1.0) -> Pair:
    """Two-replica functionals for ``A = a X_i``, ``B = b X_l`` under ``dep``.

    ``a = 1/r_ij`` and ``b = 1/r_lj`` (docs: reference results, section 1). Returns an
    :class:`IdenticalPair`, :class:`IIDPair`, or for ``sx`` an exact
    :class:`MixturePair` (atomic slowdown: of identical pairs ``(a s, b s')``;
    atomic ``X``: of i.i.d. slowdown pairs ``(a x, b x)``) or an :class:`SXPair`.
    """
    a = check_time_factor(a, "a")
    b = check_time_factor(b, "b")
    if not isinstance(X, Distribution):
        raise ValueError(f"X must be a Distribution, got {X!r}")
    if isinstance(dep, Identical):
        return IdenticalPair(X, a, b)
    if isinstance(dep, IID):
        return IIDPair(X, a, b)
    if isinstance(dep, Mixture):  # linear in the joint law: c identical + (1 - c) i.i.d.
        return MixturePair(tuple((w, pair(branch, X, a, b)) for w, branch in dep.branches()), a, b)
    if isinstance(dep, SX):
        S = dep.slowdown
        law_s = atomic_law(S)
        if law_s is not None:
            v, p = law_s
            comps: tuple[tuple[float, Pair], ...] = tuple(
                (float(pi * pj), IdenticalPair(X, a * float(si), b * float(sj)))
                for si, pi in zip(v, p)
                for sj, pj in zip(v, p)
            )
            return MixturePair(comps, a, b)
        law_x = atomic_law(X)
        if law_x is not None:
            v, p = law_x
            comps = tuple((float(pk), IIDPair(S, a * float(xk), b * float(xk))) for xk, pk in zip(v, p))
            return MixturePair(comps, a, b)
        return SXPair(X, S, a, b)
    raise ValueError(f"unknown dependence {dep!r}; allowed kinds: {sorted(KINDS)}")
