"""Stability and cost bounds for policies that send a job's replicas to d random
servers of N (the policies that use d: cancel on complete or start, copies to idle
servers, k-of-d fork-join), on any speeds, with any dependence.

None of the four papers analyses these policies with job-server affinity
(``r_slow < 1``), nor CoC on FCFS queues with ``1 < d < N`` in general. What can be
said for every such cell comes from two accounting arguments, both
work-conserving, so they hold for FCFS and PS servers alike:

*Necessary* (an upper bound on ``lambda_max``). A job is done only when ``k`` of
its replicas have received their full service ``X_s / r_s``, so pool ``i``
receives at least ``W_i`` = the full sizes of the completing replicas it holds,
and a stable system needs ``lambda E[W_i] <= n_i``. For any weights ``w_i >= 0``
with ``sum_i n_i w_i = 1`` this gives ``lambda E[sum_i w_i W_i] <= 1``, and
``sum_i w_i W_i`` is at least the sum of the ``k`` smallest of the weighted full
sizes ``w_{pool(s)} X_s / r_{pool(s) j}`` of the job's replicas. Hence

    lambda_max <= 1 / max_w  E[ sum of the k smallest of  w_pool(s) X_s / r_pool(s) j ]

(the expectation over the type ``j``, the pools of the ``d`` sampled servers, which
are hypergeometric, and the replica sizes). The maximand is an expectation of a
minimum of linear functions of ``w``, so it is concave and the search over the one
free weight is a unimodal one. This is the PS paper's argument (Raaijmakers, Borst
and Boxma, arXiv 1912.00681, section 3, "at least one replica is fully served")
carried over to pools and speeds; with one pool of identical servers it reads ``lambda E[X_{1:d}] < N``
(k = 1).

CoS, and FJ with ``keep = k`` (fork-early-cancel), choose the replicas that run
before their sizes are drawn (by the queues' state, which does not depend on the
new job's sizes), so there the completing replicas' full sizes average ``E[X] /
r``: the same bound holds with ``E[X] / r`` in place of ``X_s / r``.

*Sufficient* (a lower bound on ``lambda_max``). Serving every replica in full only
adds work, and each server then receives replicas at rate ``lambda d / N`` (the d
servers are uniform), so the system is stable if every such server's load
``lambda d / N sum_j p_j E[X] / r_ij`` is below 1 (the PS paper's section 3.5
upper-bound system; on FCFS queues the workload recursion is monotone in the
service amounts).

The cost (server time per job, every replica) lies between the same two
quantities with unit weights: at least the ``k`` smallest full sizes, at most
all ``d``. When a bound pair coincides (``d = 1``, or CoS with identical servers),
the value is exact.

*A cancellation delay* c (a copy cancelled in service keeps its server c longer,
``CellModel.cancel_delay``) only adds work, so the necessary bound and the lower cost
hold unchanged; the sufficient bound serves every replica in full *and* c
(``cancel_delay`` of :func:`bounds`: the per-server load
``lambda d / N (sum_j p_j E[X] / r_ij + c)``), the same M/G/1 argument. The cost's
upper end is the caller's to raise (:func:`straggler.engines.analysis.bounds.tightest_bounds`:
by c times the copies that may be cancelled in service).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...common.numerics import RELATIVE_1E10, integrate_split
from ...model.dependence import IID, SX, Dependence, Identical, Mixture, over_branches, survival
from ...model.distributions import Distribution
from ...model.distributions.pieces import quadrature_between_breaks, quadrature_sum

#: relative gap under which a lower and an upper bound are reported as exact
EXACT_RTOL = 1e-9


@dataclass(frozen=True)
class Pools:
    """Servers per pool, type probabilities and speeds ``speeds[i][j]``."""

    n: tuple[int, ...]
    p: tuple[float, ...]
    speeds: tuple[tuple[float, ...], ...]

    @classmethod
    def single(cls, N: int) -> Pools:
        """One pool of N identical servers."""
        return cls(n=(int(N),), p=(1.0,), speeds=((1.0,),))

    @classmethod
    def of(cls, system, N: int) -> Pools:
        """From a :class:`~straggler.model.two_pools.TwoPoolSystem` (or None:
        one pool of N identical servers, as is a system whose speeds are all 1)."""
        if system is None or all(r == 1.0 for row in system.speeds for r in row):
            return cls.single(N)
        return cls(n=tuple(system.n), p=tuple(system.p), speeds=tuple(system.speeds))

    @property
    def servers(self) -> int:
        """The number of servers over all pools."""
        return sum(self.n)


@dataclass(frozen=True)
class ReplicaBounds:
    """Bounds for one (policy, cell); rates are job arrival rates."""

    necessary_rate: float
    sufficient_rate: float
    cost_lower: float
    cost_upper: float

    @property
    def exact_rate(self) -> bool:
        """Do the necessary and sufficient rates meet (within EXACT_RTOL)?"""
        return _same(self.necessary_rate, self.sufficient_rate)

    @property
    def exact_cost(self) -> bool:
        """Do the cost's lower and upper bounds meet (within EXACT_RTOL)?"""
        return _same(self.cost_lower, self.cost_upper)


def _same(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= EXACT_RTOL * max(abs(a), abs(b))


def compositions(pools: Pools, d: int) -> list[tuple[tuple[int, ...], float]]:
    """``(m, P(m))``: how many of the d sampled servers (distinct, uniform) fall in
    each pool (multivariate hypergeometric)."""
    N = pools.servers
    if not 1 <= d <= N:
        raise ValueError(f"need 1 <= d <= N, got d = {d}, N = {N}")
    total = math.comb(N, d)
    out: list[tuple[tuple[int, ...], float]] = []
    if len(pools.n) == 1:
        return [((d,), 1.0)]
    n0, n1 = pools.n
    for m0 in range(max(0, d - n1), min(d, n0) + 1):
        out.append(((m0, d - m0), math.comb(n0, m0) * math.comb(n1, d - m0) / total))
    return out


def mean_sum_smallest(Y: Distribution, groups, k: int) -> float:
    """``E[sum of the k smallest of c_g Y_s]``: ``groups`` is a list of ``(c_g,
    m_g)``, ``m_g`` independent copies of ``Y >= 0`` scaled by ``c_g >= 0``.

    ``sum_{i<=k} Z_(i) = int_0^inf (k - N_t)^+ dt`` with ``N_t = #{s: Z_s <= t}``, a
    sum of independent binomials ``Bin(m_g, F(t / c_g))``. For a tabulated law (a
    sample, a quantile table, a discrete law: :meth:`Distribution.quantile_pieces`)
    every F(t / c_g) is linear between the scaled break points, so the integrand is a
    polynomial of degree sum m_g there, integrated exactly (:mod:`..distributions.pieces`).
    Otherwise by adaptive quadrature split at the scaled atoms of ``Y``.
    """
    groups = [(float(c), int(m)) for c, m in groups if m > 0]
    total = sum(m for _, m in groups)
    if not 1 <= k <= total:
        raise ValueError(f"need 1 <= k <= {total} replicas, got k = {k}")
    zero = sum(m for c, m in groups if c == 0.0)
    if zero >= k:
        return 0.0
    k -= zero
    groups = [(c, m) for c, m in groups if c > 0.0]
    lo = Y.support()[0]
    below = k * min(c for c, _ in groups) * lo  # no replica can finish before its scaled lower end
    start = min(c for c, _ in groups) * lo
    q = Y.quantile_pieces()
    if q is not None:
        knots = np.unique(np.concatenate((q.x0, q.x1)))
        breaks = np.unique(np.concatenate([c * knots for c, _ in groups] + [[start]]))
        degree = sum(m for _, m in groups)
        nodes, weights = quadrature_between_breaks(breaks[breaks >= start], degree)
        return below + quadrature_sum(weights, _shortfall(Y, groups, k, nodes))
    atoms = [float(v) for v, q in Y.point_masses() if q > 0]
    points = [c * v for c, _ in groups for v in atoms]
    scale = max(c for c, _ in groups) * Y.mean()

    def shortfall(t: float) -> float:
        # pmf of N_t truncated at k (only counts below k matter)
        pmf = np.zeros(k)
        pmf[0] = 1.0
        for c, m in groups:
            f = 1.0 - survival(Y, t / c)
            if f <= 0.0:
                continue
            j = np.arange(min(m, k - 1) + 1)
            b = np.array([math.comb(m, int(i)) for i in j]) * f**j * (1.0 - f) ** (m - j)
            pmf = np.convolve(pmf, b)[:k]
        return float(np.dot(k - np.arange(k), pmf))

    return below + integrate_split(shortfall, start, math.inf, RELATIVE_1E10, points, scale=scale)


def _shortfall(Y: Distribution, groups, k: int, t: np.ndarray) -> np.ndarray:
    """E[(k - N_t)^+] at each of the times ``t`` (:func:`mean_sum_smallest`), vectorised:
    the pmf of N_t truncated at k, one binomial convolved in per group."""
    pmf = np.zeros((t.size, k))
    pmf[:, 0] = 1.0
    for c, m in groups:
        s = np.asarray(Y.sf(t / c), dtype=float)
        f = 1.0 - s
        top = min(m, k - 1)
        binom = np.stack([math.comb(m, j) * f**j * s ** (m - j) for j in range(top + 1)], axis=1)
        mixed = np.zeros_like(pmf)
        for j in range(top + 1):
            mixed[:, j:] += pmf[:, : k - j] * binom[:, j : j + 1]
        pmf = mixed
    return pmf @ (k - np.arange(k, dtype=float))


def scaled_sum(X: Distribution, dep: Dependence, groups, k: int) -> float:
    """``E[sum of the k smallest of c_g X_s]`` over a job's replicas under ``dep``."""
    if isinstance(dep, Mixture):
        return over_branches(dep, lambda branch: scaled_sum(X, branch, groups, k))
    if isinstance(dep, Identical):
        cs = sorted(c for c, m in groups for _ in range(m))
        return X.mean() * math.fsum(cs[:k])
    if isinstance(dep, IID):
        return mean_sum_smallest(X, groups, k)
    if isinstance(dep, SX):  # X_s = X S_s with X shared: E[X] E[k smallest of c S]
        return X.mean() * mean_sum_smallest(dep.slowdown, groups, k)
    raise ValueError(f"unknown dependence {dep!r}")


def per_job(pools: Pools, d: int, k: int, weights, per_replica) -> float:
    """``E[sum of the k smallest weighted replica works]`` over types and pools;
    ``per_replica(groups, k)`` takes ``(c, m)`` per pool (``c = w_i / r_ij``)."""
    total = 0.0
    for m, pm in compositions(pools, d):
        for j, pj in enumerate(pools.p):
            groups = [(weights[i] / pools.speeds[i][j], m[i]) for i in range(len(pools.n))]
            total += pj * pm * per_replica(groups, k)
    return total


def bounds(
    X: Distribution,
    dep: Dependence,
    pools: Pools,
    d: int,
    k: int = 1,
    choice: str = "completion",
    cancel_delay: float = 0.0,
) -> ReplicaBounds:
    """Stability and cost bounds (module docstring) for ``d`` replicas of which
    ``k`` must finish. ``choice="completion"`` (cancel on completion): which replicas
    finish may depend on their sizes; ``choice="start"`` (CoS, FJ keeping the
    first k to start): the ``k`` replicas served in full are chosen before the
    sizes are known, so they cost ``E[X] / r`` each. ``cancel_delay`` > 0: every
    replica of the sufficient bound's system also holds its server that long."""
    d, k = int(d), int(k)
    if not 1 <= k <= d:
        raise ValueError(f"need 1 <= k <= d, got k = {k}, d = {d}")
    if choice == "completion":

        def per_replica(groups, kk):
            return scaled_sum(X, dep, groups, kk)
    elif choice == "start":
        mean = dep.replica_mean(X)

        def per_replica(groups, kk):
            return mean * math.fsum(sorted(c for c, m in groups for _ in range(m))[:kk])
    else:
        raise ValueError(f"choice must be 'completion' or 'start', got {choice!r}")

    n = pools.n
    if len(n) == 1:
        necessary = n[0] / per_job(pools, d, k, (1.0,), per_replica)
    else:

        def work(w0: float) -> float:
            return per_job(pools, d, k, (w0, (1.0 - n[0] * w0) / n[1]), per_replica)

        necessary = 1.0 / _maximise_concave(work, 0.0, 1.0 / n[0])
    mean = dep.replica_mean(X)
    per_server = [sum(pj / pools.speeds[i][j] for j, pj in enumerate(pools.p)) * mean for i in range(len(n))]
    if cancel_delay > 0.0:  # every replica served in full and held c (module docstring)
        sufficient = pools.servers / (d * max(w + cancel_delay for w in per_server))
    else:
        sufficient = pools.servers / (d * max(per_server))
    ones = (1.0,) * len(n)
    cost_lower = per_job(pools, d, k, ones, per_replica)
    if choice == "start":  # the k served in full are at worst the k slowest of the d
        cost_upper = per_job(
            pools, d, k, ones, lambda groups, kk: mean * math.fsum(sorted(c for c, m in groups for _ in range(m))[-kk:])
        )
    else:  # every replica served in full, on a uniform server
        share = [ni / pools.servers for ni in n]
        cost_upper = d * math.fsum(s * w for s, w in zip(share, per_server))
    return ReplicaBounds(
        necessary_rate=necessary, sufficient_rate=sufficient, cost_lower=cost_lower, cost_upper=cost_upper
    )


def memoryless_cost_lower(X: Distribution, dep: Dependence, pools: Pools, k: int = 1) -> float:
    """A lower bound on the server time per job of a policy that cancels on
    completion (CoC, RIQ, FJ needing ``k`` of its replicas) with i.i.d. exponential
    replicas: ``k E[X] sum_j p_j / max_i r_ij`` (NaN where it does not apply).

    Proof. Take one job of type ``j``. While a set of its replicas is in service, each
    accrues server time at rate 1 (on PS: its share ``1/m`` of the server, and its
    service at ``r / m``) and, its remaining size being exponential with mean ``E[X]``
    whatever it has received (memoryless, independent of the others), completes at
    rate ``r_i / E[X]`` (``r_i / (m E[X])`` on PS). So server time accrues at least
    ``E[X] / max_i r_ij`` times as fast as the cumulative completion intensity
    ``Lambda`` of the job's replicas. The job ends at its ``k``-th completion ``tau``,
    and ``E[Lambda(tau)] = E[completions by tau] = k`` (the completions less their
    intensity are a martingale; optional stopping at ``tau``). Hence ``E[C | j] >= k
    E[X] / max_i r_ij``. With speeds at most 1 this is ``E[C] >= k E[X]``, and since the
    N servers supply at most N of server time per unit time, ``lambda E[C] <= N`` gives
    ``lambda_max <= 1 / k`` in load units, where the full-service bound allowed more
    (CoC with i.i.d. exponential replicas, r_slow = 0.5: 1.42)."""
    from ...model.distributions.families import Exponential

    if not (isinstance(dep, IID) and isinstance(X, Exponential)):
        return math.nan
    fastest = [max(pools.speeds[i][j] for i in range(len(pools.n))) for j in range(len(pools.p))]
    return int(k) * X.mean() * math.fsum(pj / r for pj, r in zip(pools.p, fastest))


def _maximise_concave(f, lo: float, hi: float, tol: float = 1e-8) -> float:
    """max of a concave function on [lo, hi] by golden-section search (the ends
    included, where the maximum of a piecewise-linear concave function may sit)."""
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = lo, hi
    c, e = b - g * (b - a), a + g * (b - a)
    fc, fe = f(c), f(e)
    while b - a > tol * max(1.0, hi - lo):
        if fc < fe:
            a, c, fc = c, e, fe
            e = a + g * (b - a)
            fe = f(e)
        else:
            b, e, fe = e, c, fc
            c = b - g * (b - a)
            fc = f(c)
    return max(fc, fe, f(lo), f(hi))
