"""The two-pool system with job-server affinity, and its first-pool assignments.

Raaijmakers, Borst, Boxma, *Threshold-based rerouting and replication for
resolving job-server affinity relations* (arXiv 2005.13353; docs: reference
results, section 1) define the two-pool system: pools ``i`` in {0, 1} here (1 and 2 in the
paper), job types ``j`` with probability ``p_j`` and speed ``r_ij`` in pool ``i``,
``alpha_ij`` the fraction of type-j jobs first assigned to pool ``i``, ``E[B_i]``
the expected service requirement that a job brings to pool ``i``, and the
stability bound ``lambda_max = 1 / max_i (E[B_i] / n_i)``. Here: the system
(:class:`TwoPoolSystem`), the beliefs of Corollaries 1-3 (:func:`belief_matrix`),
the assignment they imply (:func:`assignment_fractions`), zero redundancy
(eq. 5) and its optimal assignment, KT (:func:`optimal_assignment_no_redundancy`),
which analysis and simulation both use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .dependence import Dependence
from .distributions import Distribution

KNOWLEDGE = ("unknown", "partial", "known")

ONE_POOL = 1
"""``system.pools: 1``: all N servers form one pool (with central queueing, one FCFS
queue of N servers)."""


def pool_sizes(pools, N: int) -> tuple[int, int] | None:
    """The sizes ``(n_1, n_2)`` of the two pools at ``N`` servers, or None for one pool
    of all N: ``system.pools`` given as ``[n_1, n_2]``, as :data:`ONE_POOL`, or None
    (the default: N/2 each when N is even, one pool when N is odd, which the config
    allows on identical servers only)."""
    if pools == ONE_POOL:
        return None
    if pools is None:
        return None if N % 2 else (N // 2, N // 2)
    return int(pools[0]), int(pools[1])


def central_queue_words(pools, N: int) -> str:
    """How many central queues (one per pool) ``N`` servers have, and of how many servers
    each, in words (``1 queue of 10 servers``; ``2 queues (one per pool) of 5 servers``)."""
    sizes = pool_sizes(pools, N)
    if sizes is None:
        return f"1 queue of {N} server{'s' if N > 1 else ''}"
    n1, n2 = sizes
    each = f"{n1}" if n1 == n2 else f"{n1} and {n2}"
    return f"2 queues (one per pool) of {each} server{'s' if max(n1, n2) > 1 else ''}"


@dataclass(frozen=True)
class TwoPoolSystem:
    """Pools, job types and what the dispatcher knows of a job's type."""

    n: tuple[int, int]
    """Servers per pool (n_1, n_2)."""
    p: tuple[float, ...]
    """Type probabilities p_j."""
    speeds: tuple[tuple[float, ...], tuple[float, ...]]
    """speeds[i][j] = r_ij, the speed of a type-j job in pool i."""
    belief: tuple[tuple[float, ...], ...]
    """belief[j][c] = P(a type-j job is believed to be of class c) (Cor. 1-3):
    one class for unknown types, the identity for known types."""

    @property
    def n_types(self) -> int:
        """The number of job types J."""
        return len(self.p)

    @property
    def servers(self) -> int:
        """The number of servers N = n_1 + n_2."""
        return self.n[0] + self.n[1]

    @classmethod
    def affinity(
        cls, N: int, r_slow: float, p=(0.5, 0.5), knowledge="unknown", belief=1.0, pools=None, speeds=None
    ) -> TwoPoolSystem:
        """The common system (docs/background/model.md): type 1 runs at speed 1 in pool 1 and
        ``r_slow`` in pool 2, type 2 the reverse (or a given speed matrix)."""
        p = tuple(float(x) for x in p)
        J = len(p)
        if pools is None:
            if N % 2:
                raise ValueError(f"two pools need an even N, got N = {N} (set system.pools)")
            pools = (N // 2, N // 2)
        pools = (int(pools[0]), int(pools[1]))
        if speeds is None:
            if J != 2:
                raise ValueError(f"system.speeds is required when there are J = {J} != 2 types")
            speeds = ((1.0, r_slow), (r_slow, 1.0))
        speeds = tuple(tuple(float(r) for r in row) for row in speeds)
        return cls(n=pools, p=p, speeds=speeds, belief=belief_matrix(knowledge, J, belief))


def belief_matrix(knowledge: str, J: int, belief=1.0) -> tuple[tuple[float, ...], ...]:
    """The matrix p_{j -> c} of Corollaries 1-3.

    ``unknown``: every job is in the single class (alpha_ij = q_i, Cor. 1);
    ``known``: the identity (alpha_ij = q_ij, Cor. 3); ``partial``: ``belief`` is
    either the matrix itself or the scalar p_{j->j}, the rest spread evenly over
    the other types (Cor. 2).
    """
    if knowledge == "unknown":
        return tuple((1.0,) for _ in range(J))
    if knowledge == "known":
        return tuple(tuple(1.0 if c == j else 0.0 for c in range(J)) for j in range(J))
    if knowledge == "partial":
        if np.ndim(belief) == 0:
            b = float(belief)
            off = (1.0 - b) / (J - 1) if J > 1 else 0.0
            return tuple(tuple(b if c == j else off for c in range(J)) for j in range(J))
        return tuple(tuple(float(x) for x in row) for row in belief)
    raise ValueError(f"knowledge must be one of {KNOWLEDGE}, got {knowledge!r}")


def assignment_fractions(system: TwoPoolSystem, q) -> np.ndarray:
    """alpha_ij = sum_c p_{j->c} q_ic (Corollary 2; Cor. 1 and 3 are special cases).

    ``q[c]`` is the fraction of class-c jobs sent first to pool 1; returns the
    2 x J matrix alpha.
    """
    B = np.asarray(system.belief, dtype=float)  # J x C
    q1 = np.asarray(q, dtype=float).reshape(-1)
    a1 = B @ q1
    return np.vstack([a1, 1.0 - a1])


def replica_work(system: TwoPoolSystem, X: Distribution, dep: Dependence) -> np.ndarray:
    """w_ij = E[X_i / r_ij]: the work of a type-j job that runs to completion in pool i
    (X_i a replica of the type's size law, :meth:`Distribution.of_type`)."""
    m = np.array([dep.replica_mean(X.of_type(j)) for j in range(system.n_types)])
    r = np.asarray(system.speeds, dtype=float)
    return m / r


def expected_work_zero_redundancy(system, X, dep, alpha) -> np.ndarray:
    """E[B_i] = sum_j p_j alpha_ij E[X_i / r_ij] (Remark 1, eq. 5)."""
    return (np.asarray(alpha) * replica_work(system, X, dep)) @ np.asarray(system.p)


@dataclass(frozen=True)
class Bound:
    """A stability bound (job arrival rate) and the assignment that attains it."""

    rate: float
    q: tuple[float, ...]
    """Fraction of each believed class sent first to pool 1."""
    work: tuple[float, float]
    """E[B_1], E[B_2] at the chosen assignment."""


def optimal_assignment_no_redundancy(system: TwoPoolSystem, X, dep) -> Bound:
    """Maximise 1 / max_i (E[B_i] / n_i) over q for zero redundancy (eq. 5 with Cor. 1-3).

    E[B_i] is linear in q, so this is the linear programme
    min t  s.t.  sum_j p_j alpha_ij(q) w_ij / n_i <= t (i = 1, 2),  0 <= q <= 1.
    With known types it is the KT policy of the paper (and of its ref. [15]).
    """
    from scipy.optimize import linprog  # lazy: scipy import is slow

    w = replica_work(system, X, dep)  # 2 x J
    p = np.asarray(system.p)
    B = np.asarray(system.belief)  # J x C
    C = B.shape[1]
    n = np.asarray(system.n, dtype=float)
    # pool-1 work is linear in q: g1 . q; pool 2: const2 - g2 . q
    g1 = (p * w[0]) @ B / n[0]
    g2 = (p * w[1]) @ B / n[1]
    const2 = float(p @ w[1]) / n[1]
    # variables (q_1..q_C, t)
    c = np.zeros(C + 1)
    c[-1] = 1.0
    A_ub = np.vstack([np.append(g1, -1.0), np.append(-g2, -1.0)])
    b_ub = np.array([0.0, -const2])
    bounds = [(0.0, 1.0)] * C + [(0.0, None)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if not res.success:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"assignment LP failed: {res.message}")
    q = res.x[:C]
    alpha = assignment_fractions(system, q)
    work = expected_work_zero_redundancy(system, X, dep, alpha)
    t = max(work[0] / n[0], work[1] / n[1])
    return Bound(
        rate=1.0 / t if t > 0 else math.inf, q=tuple(float(x) for x in q), work=(float(work[0]), float(work[1]))
    )
