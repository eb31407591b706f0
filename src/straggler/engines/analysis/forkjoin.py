"""Fork-join with redundancy: latency, cost and stability (order statistics: :mod:`.order_statistics`).

Joshi, Soljanin, Wornell, *Efficient Redundancy Techniques for Latency Reduction
in Cloud Systems* (arXiv 1508.03599v3; ACM TOMPECS 2(2), 2017), read from a
summary of the paper, which gives the results in words; the formulas below are the
paper's as the project restates them (docs: reference results, section 4), and where
the summary does not show a formula the docstring says what is implemented and why.

Model (paper section 2): ``n`` statistically identical servers with FCFS queues;
an ``(n, k)`` fork-join job forks one task to every server and is done when any
``k`` tasks finish (the rest are cancelled); task sizes are i.i.d. copies of ``X``
(section 2.1). ``X_{k:n}`` is the k-th smallest of ``n`` i.i.d. copies. Latency
``T`` is the response time, cost ``C`` the server time spent on a job, waiting
excluded (section 2.2), the same cost as the project's (docs/background/model.md, "Cost").

Rates are job arrival rates ``lam``; a result's ``load`` field, where present, is
in the project's load units (docs/background/model.md, "Load": ``lam E[X] / n`` with
``n`` the number of servers). ``inf`` is returned for an overloaded queue or an
infinite moment, never an exception.

Kinds (docs/background/contracts.md): ``exact``, ``necessary``, ``sufficient`` (stability);
``exact``, ``approximation``, ``upper_bound``, ``lower_bound`` (latency, cost).

Mapping of the project's policies (docs/background/contracts.md; FCFS, one queue per
server, ``N`` servers):

- ``CoC`` with ``d = N`` is the (N, 1) fork-join (full replication with
  cancellation): :func:`coc_full_replication` (exact, for every replica
  dependence, because all replicas of a job start together);
- ``CoS`` with ``d = N`` is the (N, 1) fork-early-cancel, an M/G/N queue
  (section 5.2): :func:`fork_early_cancel_n1`; ``CoS`` with any ``d`` is
  least-left-workload-d (speculation paper: Anselmi and Walton, arXiv 2104.10426), whose
  stability region
  is ``lam E[X_i] / N < 1``: :func:`cos_stability`;
- ``FJ`` with ``d = N``: the (N, k) results (:func:`fork_join_bounds`,
  :func:`fork_join_stability`; exponential tasks: the closed forms of the literature
  beyond the paper, :func:`fork_join_lower_bound_exponential`,
  :func:`fork_join_split_merge_exponential`, :func:`fork_join_nn_upper_bound_exponential`
  and the exact (2, 2) :func:`fork_join_22_exponential`); ``early: true``: :func:`fork_early_cancel_cost`,
  :func:`fork_early_cancel_stability`. With ``d < N`` (random d of N servers:
  the paper's *uniform random* partial fork) the paper gives cost bounds only
  (:func:`uniform_partial_fork_cost_bounds`); the *group-based* (n, r, k)
  results (:func:`partial_fork_group`) are an approximation of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model.dependence import IID, Dependence
from ...model.distributions import (
    Distribution,
    Exponential,
)
from . import queues
from .order_statistics import (
    check_kn,
    order_statistic_mean,
    order_statistic_moment,
    order_statistic_second_moment,
    replica_min_moment,
)

__all__ = [
    "order_statistic_moment",
    "order_statistic_mean",
    "order_statistic_second_moment",
    "replica_min_moment",
    "Estimate",
    "Stability",
    "fork_join_n1",
    "coc_full_replication",
    "fork_early_cancel_n1",
    "fork_join_bounds",
    "fork_join_nn_upper_bound_exponential",
    "fork_join_lower_bound_exponential",
    "fork_join_split_merge_exponential",
    "fork_join_22_exponential",
    "MaxResponse",
    "mean_max_mg1_response",
    "fork_join_nn_upper_bound",
    "CostBounds",
    "fork_join_cost_bounds",
    "fork_join_stability",
    "fork_early_cancel_cost",
    "fork_early_cancel_stability",
    "cos_stability",
    "partial_fork_group",
    "uniform_partial_fork_cost_bounds",
    "replication_cost_curve",
    "dichotomy",
    "optimal_r",
    "StrategyChoice",
    "general_strategy",
    "strategy_estimates",
]


# =====================================================================================
# Results
# =====================================================================================


@dataclass(frozen=True)
class Estimate:
    """Mean latency and cost of one policy at one arrival rate, with their kinds."""

    latency: float
    latency_kind: str
    cost: float
    cost_kind: str
    note: str = ""


@dataclass(frozen=True)
class Stability:
    """A stability bound: ``rate`` (jobs per unit time) with its kind, and ``load``
    in the project's load units (``rate * E[replica size] / servers``)."""

    rate: float
    kind: str
    load: float
    note: str = ""


def _rate(x: float) -> float:
    return math.inf if x <= 0.0 else 1.0 / x


# =====================================================================================
# (n, 1): full replication, cancel on complete / cancel on start
# =====================================================================================


def fork_join_n1(lam: float, X: Distribution, n: int) -> Estimate:
    """(n, 1) fork-join with cancellation (full replication, cancel on complete).

    Fork-join paper section 5.1 (docs: reference results, section 4): all ``n`` tasks of a job
    start together, so the system is an M/G/1 FCFS queue with service
    ``X_{1:n}``. Exact:

        E[T] = E[X_{1:n}] + lam E[X_{1:n}^2] / (2 (1 - lam E[X_{1:n}]))   (P-K)
        E[C] = n E[X_{1:n}]

    Exponential(mu): ``E[T] = 1 / (n mu - lam)`` and ``E[C] = 1/mu = E[X]``.
    """
    return coc_full_replication(lam, X, IID(), n)


def coc_full_replication(lam: float, X: Distribution, dep: Dependence, N: int) -> Estimate:
    """``CoC`` with ``d = N`` on FCFS per-server queues, for any replica dependence.

    The fork-join paper's (n, 1) argument (section 5.1) does not use independence:
    every job's replicas start together on all ``N`` servers and the job leaves
    when its smallest replica is done, so the system is an M/G/1 FCFS queue with
    service ``M = min(X_1..X_N)`` (:func:`replica_min_moment`). Exact:
    ``E[T] = E[M] + lam E[M^2] / (2 (1 - lam E[M]))``, ``E[C] = N E[M]``.
    Identical replicas: ``M = X`` (cost ``N E[X]``).
    """
    m1 = replica_min_moment(X, dep, N, 1)
    m2 = replica_min_moment(X, dep, N, 2)
    return Estimate(latency=queues.mg1_fcfs_latency(lam, m1, m2), latency_kind="exact", cost=N * m1, cost_kind="exact")


def fork_early_cancel_n1(lam: float, X: Distribution, n: int) -> Estimate:
    """(n, 1) fork-early-cancel = ``CoS`` with ``d = n``: an M/G/n queue with service X.

    Fork-join paper section 5.2: the job's single surviving task is served by the
    first server that becomes idle, so ``E[C] = E[X]`` exactly. M/G/n has no
    closed-form mean; the summary does not show the paper's formula, so this uses
    the Lee-Longton approximation
    ``E[T] ~ E[X] + (1 + c_X^2)/2 * C(n, lam E[X]) / (n/E[X] - lam)`` (Erlang C),
    exact for exponential ``X`` (M/M/n), hence kind ``exact`` there and
    ``approximation`` otherwise.
    """
    m1, m2 = X.mean(), X.second_moment()
    kind = "exact" if isinstance(X, Exponential) else "approximation"
    if lam * m1 >= n or math.isinf(m2):
        lat = math.inf
    else:
        mu = 1.0 / m1
        w_mmn = queues.erlang_c(n, lam * m1) / (n * mu - lam) if lam > 0 else 0.0
        scv = m2 / (m1 * m1) - 1.0
        lat = m1 + 0.5 * (1.0 + scv) * w_mmn
    return Estimate(
        latency=lat,
        latency_kind=kind,
        cost=m1,
        cost_kind="exact",
        note="M/G/n by Lee-Longton" if kind != "exact" else "M/M/n",
    )


def cos_stability(X: Distribution, dep: Dependence, N: int) -> Stability:
    """``CoS`` (cancel on start) with any ``d``: stable iff ``lam E[X_i] < N``.

    Speculation paper (Anselmi and Walton, arXiv 2104.10426, section 5.3, remark on
    CoS-d): CoS-d is
    least-left-workload-d, and its stability condition is that of standard load
    balancing, ``lam E[eta_1] < 1`` per queue; exactly one replica is served, so
    ``E[C] = E[X_i]``. Kind ``exact``; ``load = 1``.
    """
    m = dep.replica_mean(X)
    return Stability(rate=N / m, kind="exact", load=1.0)


# =====================================================================================
# (n, k) fork-join
# =====================================================================================


def fork_join_bounds(lam: float, X: Distribution, n: int, k: int) -> tuple[float, float]:
    """``(lower, upper)`` bounds on ``E[T]`` of the (n, k) fork-join system.

    Fork-join paper section 7.1, Theorem 4 (proof in Appendix C):

    - upper (split-merge): an M/G/1 queue with service ``X_{k:n}``,
      ``E[X_{k:n}] + lam E[X_{k:n}^2] / (2 (1 - lam E[X_{k:n}]))``;
    - lower: every preceding job needs one task only (waiting of an M/G/1 with
      service ``X_{1:n}``) plus the job's own ``E[X_{k:n}]``,
      ``E[X_{k:n}] + lam E[X_{1:n}^2] / (2 (1 - lam E[X_{1:n}]))``.

    Both are exact for ``k = 1``. The upper bound grows looser with ``k``; for
    ``k = n`` and exponential ``X`` see :func:`fork_join_nn_upper_bound_exponential`.
    ``inf`` where the bounding queue is overloaded.
    """
    k, n = check_kn(k, n)
    mk1, mk2 = order_statistic_moment(X, k, n, 1), order_statistic_moment(X, k, n, 2)
    m11, m12 = order_statistic_moment(X, 1, n, 1), order_statistic_moment(X, 1, n, 2)
    upper = queues.mg1_fcfs_latency(lam, mk1, mk2)
    wait_lo = queues.mg1_fcfs_latency(lam, m11, m12) - m11
    lower = mk1 + wait_lo
    return lower, upper


def fork_join_nn_upper_bound_exponential(lam: float, mu: float, n: int) -> float:
    """Lemma 8 of the fork-join paper (section 7.1) for ``k = n`` and exponential tasks.

    The response times at the ``n`` queues are associated, so ``E[T]`` is at most
    the mean maximum of ``n`` independent M/M/1 response times, each Exp(mu - lam):

        E[T] <= H_n / (mu - lam)

    (Nelson and Tantawi, IEEE Trans. Computers 37(6), 1988, the upper bound of their
    scaling approximation; Joshi, Liu and Soljanin, IEEE JSAC 32(5), 2014, quote it for
    the (n, n) system). The closed form of :func:`mean_max_mg1_response`, whose lattice
    puts the same value 0.05-0.1 % higher; for general ``X`` the M/G/1 response-time
    law is not closed form and :func:`fork_join_nn_upper_bound` uses the lattice.
    """
    if lam >= mu:
        return math.inf
    return _harmonic(int(n)) / (mu - lam)


def _harmonic(m: int, power: int = 1) -> float:
    """``H_m^(power) = sum_{i=1}^{m} 1 / i^power`` (0 for m = 0)."""
    return math.fsum(1.0 / i**power for i in range(1, m + 1))


def fork_join_lower_bound_exponential(lam: float, mu: float, n: int, k: int) -> float:
    """Lower bound on ``E[T]`` of the (n, k) fork-join system with Exp(mu) tasks,
    Poisson arrivals at rate ``lam``, all ``n`` tasks of a job forked together to ``n``
    FCFS servers and the other ``n - k`` cancelled at the k-th completion (Joshi, Liu
    and Soljanin, *Coding for fast content download*, Allerton 2012, and *On the
    delay-storage trade-off in content download from coded distributed storage
    systems*, IEEE JSAC 32(5), 2014, lower-bound theorem):

        E[T] >= sum_{j=0}^{k-1} 1 / ((n - j) mu - lam)

    Why: a job's service passes through k stages, stage j ending at its (j + 1)-th
    task completion; during stage j at most its ``n - j`` unfinished tasks are in
    service, so by memorylessness the stage lasts at least an Exp((n - j) mu) time.
    Giving every job its ``n - j`` servers at stage j, whatever the other jobs hold,
    only speeds it up, and turns the system into a tandem of k M/M/1 queues of rates
    ``(n - j) mu`` (Poisson input to each, Burke), whose mean response time is the sum.

    For exponential tasks it is never below Theorem 4's lower bound of
    :func:`fork_join_bounds` (``E[X_{k:n}]`` plus the M/M/1 wait at rate ``n mu``:
    each term ``1 / (a - lam) - 1 / a`` grows as ``a`` falls), and both are exact for
    ``k = 1`` (``1 / (n mu - lam)``). ``inf`` once the last stage is overloaded,
    ``lam >= (n - k + 1) mu``, which is beyond the necessary stability bound
    ``n mu / k`` (``k (n - k + 1) >= n``), so the system's own mean is infinite there too.
    """
    k, n = check_kn(k, n)
    rates = [(n - j) * mu - lam for j in range(k)]
    if min(rates) <= 0.0:
        return math.inf
    return math.fsum(1.0 / r for r in rates)


def fork_join_split_merge_exponential(lam: float, mu: float, n: int, k: int) -> float:
    """Split-merge upper bound on ``E[T]`` of the (n, k) fork-join system with Exp(mu)
    tasks, in closed form (Joshi, Liu and Soljanin 2012/2014, upper-bound theorem; the
    fork-join paper's Theorem 4 for general ``X``, :func:`fork_join_bounds`):

        E[T] <= (H_n - H_{n-k}) / mu
                + lam [(H_n^(2) - H_{n-k}^(2)) + (H_n - H_{n-k})^2]
                  / (2 mu^2 (1 - lam (H_n - H_{n-k}) / mu))

    with ``H_m^(2) = sum_{i<=m} 1/i^2``. Why: blocking every job until the previous one
    has left (split-merge) can only delay it, and makes the system an M/G/1 queue whose
    service is ``X_{k:n}``, of mean ``(H_n - H_{n-k}) / mu`` and variance
    ``(H_n^(2) - H_{n-k}^(2)) / mu^2`` (Renyi); the bound is its Pollaczek-Khinchine mean.
    ``inf`` when that queue is overloaded, ``lam (H_n - H_{n-k}) >= mu``.
    """
    k, n = check_kn(k, n)
    m1 = (_harmonic(n) - _harmonic(n - k)) / mu
    var = (_harmonic(n, 2) - _harmonic(n - k, 2)) / (mu * mu)
    return queues.mg1_fcfs_latency(lam, m1, var + m1 * m1)


def fork_join_22_exponential(lam: float, mu: float) -> float:
    """Exact ``E[T]`` of the (2, 2) fork-join system: Poisson arrivals at rate ``lam``,
    each job forked into two tasks on two FCFS servers, Exp(mu) task sizes, the job done
    when both are (Flatto and Hahn, SIAM J. Appl. Math. 44(5), 1984; in this form Nelson
    and Tantawi, IEEE Trans. Computers 37(6), 1988):

        E[T] = (12 - rho) / 8 * 1 / (mu - lam),   rho = lam / mu

    (each server's utilisation). ``lam -> 0``: ``3 / (2 mu) = E[X_{2:2}]``. Between
    :func:`fork_join_lower_bound_exponential` ``1 / (2 mu - lam) + 1 / (mu - lam)`` and
    :func:`fork_join_nn_upper_bound_exponential` ``3 / (2 (mu - lam))``. ``inf`` for
    ``lam >= mu``.
    """
    if lam >= mu:
        return math.inf
    return (12.0 - lam / mu) / 8.0 / (mu - lam)


@dataclass(frozen=True)
class MaxResponse:
    """``E[max(T_1..T_n)]`` of ``n`` independent M/G/1 FCFS response times, bracketed
    (see :func:`mean_max_mg1_response`)."""

    upper: float
    """From the response time rounded up to the lattice ``step``: never below the
    exact value (the bound to use)."""
    lower: float
    """From the response time rounded down: never above the exact value."""
    step: float
    points: int
    """Lattice points kept (the truncation point is ``points * step``)."""


def _lattice_up_down(cdf_at, n_points: int, h: float, atoms=()) -> tuple[np.ndarray, np.ndarray]:
    """pmfs of ``h ceil(Z / h)`` and ``h floor(Z / h)`` on ``0, h, ..., (n-1) h`` for a
    law ``Z >= 0`` given by its right-continuous cdf (vectorised) and its atoms.

    up[j] = P((j - 1) h < Z <= j h) (up[0] = P(Z = 0));
    down[j] = P(j h <= Z < (j + 1) h), with P(Z < x) = cdf(x) - P(Z = x).
    Mass beyond the lattice is left out (the pmfs are defective there)."""
    grid = h * np.arange(n_points + 1, dtype=float)
    F = np.asarray(cdf_at(grid), dtype=float)
    up = np.empty(n_points)
    up[0] = F[0]
    up[1:] = np.diff(F[:n_points])
    F_left = F.copy()
    for x, q in atoms:
        j = x / h
        if q > 0 and abs(j - round(j)) < 1e-9 and 0 <= round(j) <= n_points:
            F_left[int(round(j))] -= q
    down = np.diff(F_left)
    return np.clip(up, 0.0, 1.0), np.clip(down, 0.0, 1.0)


def mean_max_mg1_response(
    lam: float, X: Distribution, n: int, step: float | None = None, tail: float = 1e-10, max_points: int = 2**20
) -> MaxResponse:
    """``E[max(T_1, ..., T_n)]`` for ``n`` independent M/G/1 FCFS queues with arrival
    rate ``lam`` and service ``X``: the right-hand side of the fork-join paper's
    Lemma 8 (section 7.1, proof in Appendix C).

    The response time is ``T = W + X`` with the waiting time independent of the own
    service, and by Pollaczek-Khinchine ``W`` is a geometric sum: ``W = Y_1 + ...
    + Y_G`` with ``P(G = m) = (1 - rho) rho^m`` and ``Y`` of the equilibrium law of
    ``X``, ``P(Y <= y) = E[min(X, y)] / E[X]``. Both ``Y`` and ``X`` are put on a
    lattice of step ``h`` twice, rounded up and rounded down; rounding up gives a
    response time stochastically larger than ``T`` and rounding down a smaller one
    (the geometric sum and the maximum of independent copies keep the order), so
    ``lower <= E[max T_i] <= upper``. The lattice laws are computed exactly:
    the compound geometric by FFT (``(1 - rho) / (1 - rho P_Y(z))``, on twice the
    kept length), ``W + X`` by an FFT convolution, and ``E[max] = h sum_j (1 -
    P(T <= j h)^n)``. The lattice is extended (doubled) until ``P(T > L) < tail`` or
    ``max_points``; what lies beyond ``L`` is added to ``upper`` as ``n E[(T - L)^+]``
    (a bound on it, from ``E[T_up] <= E[X] + h + rho / (1 - rho) (E[X^2] / (2 E[X]) + h)``),
    so ``upper`` stays an upper bound even when the tail is heavy.

    ``step`` defaults to ``min(E[X], E[T]) / 2048``; the gap ``upper - lower`` is
    the discretisation error (about ``h (1 + rho / (1 - rho))``). ``inf`` when the
    queue is overloaded (``lam E[X] >= 1``) or ``E[X^2] = inf``.
    """
    n = int(n)
    m1, m2 = X.mean(), X.second_moment()
    rho = lam * m1
    if rho >= 1.0 or math.isinf(m2):
        return MaxResponse(math.inf, math.inf, math.nan, 0)
    if lam <= 0.0:
        e = order_statistic_moment(X, n, n, 1)
        return MaxResponse(e, e, 0.0, 0)
    mean_t = m1 + lam * m2 / (2.0 * (1.0 - rho))
    h = float(step) if step else min(m1, mean_t) / 2048.0
    atoms = tuple((float(v), float(q)) for v, q in X.point_masses() if q > 0)
    mean_min = np.vectorize(X.mean_min, otypes=[float])

    def equilibrium_cdf(y):
        return np.minimum(mean_min(y) / m1, 1.0)

    points = 1 << max(10, math.ceil(math.log2(16.0 * mean_t / h)))
    while True:
        y_up, y_down = _lattice_up_down(equilibrium_cdf, points, h)  # Y has no atoms
        x_up, x_down = _lattice_up_down(X.cdf, points, h, atoms)
        results = []
        for y, x in ((y_up, x_up), (y_down, x_down)):
            size = 2 * points
            wz = (1.0 - rho) / (1.0 - rho * np.fft.rfft(y, size))
            tz = wz * np.fft.rfft(x, size)
            pmf = np.clip(np.fft.irfft(tz, size)[:points], 0.0, None)
            results.append(np.minimum(np.cumsum(pmf), 1.0))
        F_up, F_down = results
        if 1.0 - F_up[-1] < tail or points >= max_points:
            break
        points *= 2
    partial_up = h * float(np.sum(1.0 - F_up))
    mean_up = (m1 + h) + rho / (1.0 - rho) * (m2 / (2.0 * m1) + h)
    beyond = max(mean_up - partial_up, 0.0)
    upper = h * float(np.sum(1.0 - F_up**n)) + n * beyond
    lower = h * float(np.sum(1.0 - F_down**n))
    return MaxResponse(upper=upper, lower=lower, step=h, points=points)


def fork_join_nn_upper_bound(lam: float, X: Distribution, n: int) -> float:
    """Lemma 8 of the fork-join paper (section 7.1, proof in Appendix C): for the
    (n, n) fork-join system (every task must finish), ``E[T] <= E[max_i T'_i]`` with
    ``T'_i`` independent M/G/1 response times of service ``X`` and rate ``lam``.

    With ``k = n`` nothing is cancelled, so each server is an M/G/1 queue with
    rate ``lam`` and service ``X``; its response times are associated, and the
    maximum of associated variables is stochastically smaller than that of
    independent copies (the argument does not carry over to the k-th order
    statistic, k < n, Appendix C). Tighter than Theorem 4's split-merge bound,
    which is infinite once ``lam E[X_{n:n}] >= 1`` although the system is stable for
    ``lam E[X] < 1``. Exponential ``X``: ``H_n / (mu - lam)`` in closed form
    (:func:`fork_join_nn_upper_bound_exponential`); other laws: computed by
    :func:`mean_max_mg1_response` (its ``upper``, so the value is an upper bound on
    Lemma 8's right-hand side too).
    """
    if isinstance(X, Exponential):
        return fork_join_nn_upper_bound_exponential(lam, 1.0 / X.mean(), n)
    return mean_max_mg1_response(lam, X, n).upper


@dataclass(frozen=True)
class CostBounds:
    """Bounds on ``E[C]`` of the (n, k) fork-join system (see :func:`fork_join_cost_bounds`)."""

    lower: float
    upper: float
    simultaneous: float
    """``sum_{i<=k} E[X_{i:n}] + (n - k) E[X_{k:n}]``: all n tasks start together."""
    staggered: float
    """``(k - 1) E[X] + (n - k + 1) E[X_{1:n-k+1}]``: the k - 1 early tasks have long finished."""
    tail_class: str
    kind: str
    """``exact`` (exponential, or k = 1, or k = n), ``bounds`` (log-concave or
    log-convex tail), ``none`` (the paper's theorem does not apply: nan bounds)."""


def fork_join_cost_bounds(X: Distribution, n: int, k: int, tail: str | None = None) -> CostBounds:
    """Bounds on ``E[C]`` of the (n, k) fork-join system (section 7.1, cost theorem;
    proof in Appendix C).

    After the previous job's k-th completion cancels its other tasks, at least
    ``n - k + 1`` of the job's tasks start together and at most ``k - 1`` may have
    started earlier. The two extremes of that head start give

        simultaneous:  sum_{i=1}^{k} E[X_{i:n}] + (n - k) E[X_{k:n}]
        staggered:     (k - 1) E[X] + (n - k + 1) E[X_{1:n-k+1}]           (eq. 20)

    and, as for the k = 1 bounds of section 6.1, the tail decides the order:
    log-concave ``staggered <= E[C] <= simultaneous``; log-convex
    ``simultaneous <= E[C] <= staggered`` (so that, section 7.3, with a log-convex
    tail the fork-join cost is at most eq. (20) ``<= k E[X]``, the cost of
    fork-early-cancel). Both are tight at ``k = 1`` (``n E[X_{1:n}]``) and
    ``k = n`` (``n E[X]``); exponential: both ``k E[X]``, exact.

    The summary does not show which expression bounds from which side; this order
    is the one consistent with its statements, and the tests check it against a
    simulation of the FCFS fork-join queue (the cost moves from the simultaneous
    value in light traffic towards the staggered one in heavy traffic). A tail
    that is neither (Pareto type I on ``x >= 0``, lognormal, ...) gets ``nan``
    bounds, kind ``none``: a lognormal's cost does leave the interval. ``tail``
    overrides :meth:`Distribution.tail_class` (e.g. ``X.tail_class(on_support=True)``
    treats a Pareto as log-convex, as the paper's Pareto examples do).
    """
    k, n = check_kn(k, n)
    tc = X.tail_class() if tail is None else tail
    sim = math.fsum(order_statistic_moment(X, i, n, 1) for i in range(1, k + 1))
    sim += (n - k) * order_statistic_moment(X, k, n, 1)
    stag = (k - 1) * X.mean() + (n - k + 1) * order_statistic_moment(X, 1, n - k + 1, 1)
    if k in (1, n) or tc == "both":
        v = 0.5 * (sim + stag)
        return CostBounds(v, v, sim, stag, tc, "exact")
    if tc == "log-concave":
        return CostBounds(stag, sim, sim, stag, tc, "bounds")
    if tc == "log-convex":
        return CostBounds(sim, stag, sim, stag, tc, "bounds")
    return CostBounds(math.nan, math.nan, sim, stag, tc, "none")


def fork_join_stability(X: Distribution, n: int, k: int, tail: str | None = None) -> tuple[Stability, Stability]:
    """``(necessary, sufficient)`` stability bounds of the (n, k) fork-join system.

    - necessary: ``lam < n / C_lo`` (section 4.1: the ``n`` servers must carry
      ``lam E[C]`` of work per unit time) with ``C_lo`` the lower cost bound of
      :func:`fork_join_cost_bounds`, or, when the tail is neither log-concave nor
      log-convex, the bound valid for every law ``sum_{i<=k} E[X_{i:n}]`` (the k
      tasks that complete are served in full, and any k of the n sizes sum to at
      least the k smallest); and ``lam < 1 / E[X_{1:n}]``, where Theorem 4's lower
      bound on ``E[T]`` becomes infinite. Exponential: ``n mu / k``
      (docs: reference results, section 4).
    - sufficient: the split-merge system (Theorem 4's upper bound) is stable,
      ``lam < 1 / E[X_{k:n}]``.

    For ``k = 1`` both equal ``1 / E[X_{1:n}]`` and the kind is ``exact``.
    ``load`` is ``rate E[X] / n``.
    """
    k, n = check_kn(k, n)
    m = X.mean()
    suf = _rate(order_statistic_moment(X, k, n, 1))
    if k == 1:
        s = Stability(rate=suf, kind="exact", load=suf * m / n)
        return s, s
    cb = fork_join_cost_bounds(X, n, k, tail)
    c_lo = cb.lower if cb.kind != "none" else math.fsum(order_statistic_moment(X, i, n, 1) for i in range(1, k + 1))
    nec = min(n / c_lo, _rate(order_statistic_moment(X, 1, n, 1)))
    return (
        Stability(rate=nec, kind="necessary", load=nec * m / n),
        Stability(rate=suf, kind="sufficient", load=suf * m / n),
    )


def fork_early_cancel_cost(X: Distribution, k: int) -> float:
    """``E[C] = k E[X]`` of the (n, k) fork-early-cancel system (exact).

    Fork-join paper section 7.3 and Appendix C: exactly ``k`` tasks are served,
    the others are cancelled before they start.
    """
    return int(k) * X.mean()


def fork_early_cancel_stability(X: Distribution, n: int, k: int) -> Stability:
    """Stability of the (n, k) fork-early-cancel system: ``lam k E[X] < n``.

    Necessary by the work argument of section 4.1 with ``E[C] = k E[X]``; for
    ``k = 1`` it is the M/G/n condition, hence ``exact`` (section 5.2); for
    ``k > 1`` the paper gives no proof of sufficiency: ``necessary``.
    """
    k, n = check_kn(k, n)
    rate = n / (k * X.mean())
    return Stability(rate=rate, kind="exact" if k == 1 else "necessary", load=rate * X.mean() / n)


# =====================================================================================
# Partial forking (n, r, k)
# =====================================================================================


def partial_fork_group(lam: float, X: Distribution, n: int, r: int, k: int = 1) -> Estimate:
    """Group-based random (n, r, k) partial fork: ``n/r`` groups of ``r`` servers,
    each job to one group chosen at random (section 6; requires ``r | n``).

    Each group is an (r, k) fork-join system with arrival rate ``lam r / n``.
    ``k = 1``: exact (section 6.1; the summary: each group is an independent (r, 1) system):
    ``E[T] = E[X_{1:r}] + (lam r/n) E[X_{1:r}^2] / (2 (1 - (lam r/n) E[X_{1:r}]))``,
    ``E[C] = r E[X_{1:r}]``. ``k > 1``: the split-merge upper bound of Theorem 4
    for the group and the upper cost bound of :func:`fork_join_cost_bounds` with
    ``n -> r`` (``nan`` when the tail is neither log-concave nor log-convex).
    """
    n, r = int(n), int(r)
    k, _ = check_kn(k, r)
    if r < 1 or r > n or n % r:
        raise ValueError(f"group-based partial forking needs r | n, got n = {n}, r = {r}")
    lam_g = lam * r / n
    if k == 1:
        e = fork_join_n1(lam_g, X, r)
        return Estimate(e.latency, "exact", e.cost, "exact")
    _, upper = fork_join_bounds(lam_g, X, r, k)
    cb = fork_join_cost_bounds(X, r, k)
    return Estimate(
        upper,
        "upper_bound",
        cb.upper,
        {"exact": "exact", "bounds": "upper_bound"}.get(cb.kind, ""),
        note="" if cb.kind != "none" else "no cost bound for this tail",
    )


def uniform_partial_fork_cost_bounds(X: Distribution, r: int) -> tuple[float, float, str]:
    """``(lower, upper, tail_class)`` for ``E[C]`` of any symmetric (n, r, 1) policy
    whose tasks may start at different times (e.g. uniform random choice of r).

    Fork-join paper section 6.1 (proved in Appendix B): log-concave tail:
    ``E[X] <= E[C] <= r E[X_{1:r}]``; log-convex: ``r E[X_{1:r}] <= E[C] <= E[X]``;
    exponential: ``E[C] = E[X]``. Neither: ``(nan, nan)`` (the paper gives none).
    """
    tc = X.tail_class()
    a = X.mean()
    b = int(r) * order_statistic_moment(X, 1, int(r), 1)
    if tc == "log-concave":
        return a, b, tc
    if tc == "log-convex":
        return b, a, tc
    if tc == "both":
        return a, a, tc
    return math.nan, math.nan, tc


# =====================================================================================
# Log-concave / log-convex dichotomy and the choice of r
# =====================================================================================


def replication_cost_curve(X: Distribution, r_max: int) -> np.ndarray:
    """``r E[X_{1:r}]`` for ``r = 1..r_max``: the cost of (r, 1) full replication."""
    return np.array([r * order_statistic_moment(X, 1, r, 1) for r in range(1, int(r_max) + 1)])


def _trend(v: np.ndarray, rtol: float = 1e-9) -> str:
    dv = np.diff(v)
    tol = rtol * float(np.max(np.abs(v)))
    up = bool(np.all(dv >= -tol))
    down = bool(np.all(dv <= tol))
    if up and down:
        return "constant"
    if up:
        return "non-decreasing"
    if down:
        return "non-increasing"
    return "neither"


def dichotomy(X: Distribution, r_max: int = 10) -> dict:
    """The log-concavity dichotomy of section 4.2 (Lemma on ``r E[X_{1:r}]``).

    Returns ``{"tail_class", "trend", "expected", "consistent", "costs"}``: the
    tail class of ``P(X > x)`` on ``x >= 0`` (:meth:`Distribution.tail_class`),
    the observed monotonicity of ``r E[X_{1:r}]`` over ``r = 1..r_max``
    (``non-decreasing``, ``non-increasing``, ``constant`` or ``neither``), what the
    paper predicts (log-concave: non-decreasing; log-convex: non-increasing;
    exponential: constant; otherwise no prediction, ``None``) and whether the two
    agree. E.g. shifted exponential: ``r Delta + 1/mu`` (non-decreasing);
    hyperexponential: non-increasing; Pareto type I is neither log-concave nor
    log-convex on ``x >= 0`` and ``r E[X_{1:r}] = r^2 alpha xm / (r alpha - 1)`` is
    non-decreasing for ``alpha >= 2`` (Pareto(1, 2.2)) but falls, then rises, for
    ``alpha < 2``.
    """
    costs = replication_cost_curve(X, r_max)
    tc = X.tail_class()
    trend = _trend(costs)
    expected = {"log-concave": "non-decreasing", "log-convex": "non-increasing", "both": "constant"}.get(tc)
    if expected is None:
        consistent = None
    elif expected == "constant":
        consistent = trend == "constant"
    else:
        consistent = trend in (expected, "constant")
    return {"tail_class": tc, "trend": trend, "expected": expected, "consistent": consistent, "costs": costs}


def optimal_r(X: Distribution, n: int, traffic: str, r_max: int | None = None) -> tuple[int, str]:
    """Number of replicas ``r`` of the (n, r, 1) system that minimises ``E[T]``
    in low or heavy traffic, and the reason (fork-join paper section 6.2).

    - ``traffic="low"`` (``lam -> 0``): ``E[T] -> E[X_{1:r}]``, non-increasing in
      ``r`` for every distribution: ``r = r_max`` (``n`` by default).
    - ``traffic="heavy"``: the policy with the least ``E[C]`` has the least
      latency (section 4.1). Log-concave tail: ``r = 1``; log-convex:
      ``r = r_max``; exponential: any ``r`` has the same cost, and ``r_max``
      gives the least latency; otherwise the ``r`` that minimises
      ``r E[X_{1:r}]`` (the highest service capacity of group-based random,
      section 6.2), ties broken towards more replicas.
    """
    n = int(n)
    r_max = n if r_max is None else min(int(r_max), n)
    if traffic == "low":
        return r_max, "low traffic: E[X_{1:r}] is non-increasing in r (section 6.2)"
    if traffic != "heavy":
        raise ValueError(f"traffic must be 'low' or 'heavy', got {traffic!r}")
    tc = X.tail_class()
    if tc == "log-concave":
        return 1, "heavy traffic, log-concave tail: r = 1 minimises E[C] (section 6.2)"
    if tc in ("log-convex", "both"):
        return r_max, f"heavy traffic, {tc} tail: r = r_max minimises E[C] (section 6.2)"
    costs = replication_cost_curve(X, r_max)
    best = costs.min()
    r = int(max(i for i, c in enumerate(costs, start=1) if c <= best * (1 + 1e-12)))
    return r, "heavy traffic, tail neither log-concave nor log-convex: argmin r E[X_{1:r}]"


# =====================================================================================
# The general (n, r_f, r, k) strategy (section 8)
# =====================================================================================


@dataclass(frozen=True)
class StrategyChoice:
    """The (r_f, r) chosen by :func:`general_strategy` and its estimates."""

    r_f: int
    r: int
    latency_estimate: float
    cost_estimate: float
    feasible: bool
    """False when no r meets the cost limit (then r minimises the cost estimate)."""
    candidates: tuple[tuple[int, float, float], ...]
    """(r, T_hat(r), C_hat(r)) for every r considered."""
    latency_kind: str = "approximation"
    cost_kind: str = "approximation"


def strategy_estimates(lam: float, X: Distribution, n: int, r: int, k: int) -> tuple[float, float]:
    """``(T_hat(r), C_hat(r))``: the latency and cost estimates of section 8.2.

    The summary states that the strategy minimises an estimated latency subject to
    an estimated cost, both computable from the order statistics of ``X`` (or from
    traces); that the latency estimate is an upper bound for ``k > 1`` whose
    looseness grows with ``k`` and that both abstract from ``r_f`` and from the
    relative start times of the tasks; and that the actual cost is below ``C_hat``
    for log-concave tails and above it for log-convex ones. It does not show the
    formulas. The estimates consistent with all of these statements, used here,
    are those of ``r`` tasks that start together, each group of ``r`` servers seeing
    rate ``lam r / n``:

        T_hat(r) = E[X_{k:r}] + lam r E[X_{k:r}^2] / (2 (n - lam r E[X_{k:r}]))
        C_hat(r) = sum_{i=1}^{k} E[X_{i:r}] + (r - k) E[X_{k:r}]

    i.e. the split-merge bound (Theorem 4) of an (r, k) system and its
    simultaneous-start cost (which bounds the actual cost from above for
    log-concave and from below for log-convex tails, :func:`fork_join_cost_bounds`).
    For ``k = 1`` they are the exact latency and cost of group-based random
    (n, r, 1) (section 6.1), ``C_hat = r E[X_{1:r}]``.
    """
    k, r = check_kn(k, r)
    t_hat = queues.mg1_fcfs_latency(lam * r / n, order_statistic_moment(X, k, r, 1), order_statistic_moment(X, k, r, 2))
    c_hat = math.fsum(order_statistic_moment(X, i, r, 1) for i in range(1, k + 1))
    c_hat += (r - k) * order_statistic_moment(X, k, r, 1)
    return t_hat, c_hat


def general_strategy(
    lam: float, X: Distribution, n: int, k: int = 1, c_max: float = math.inf, rf_max: int | None = None
) -> StrategyChoice:
    """Choose ``(r_f, r)`` of the generalised (n, r_f, r, k) fork-join (section 8).

    Section 8.1: launch tasks on ``r_f`` servers, keep the first ``r`` that reach
    service (cancel the other ``r_f - r``), and cancel the rest once ``k`` finish.
    Section 8.2: ``r_f`` is set to the largest value the network limit allows,
    ``r_f = min(rf_max, n)`` (the paper's conjecture), and ``r`` minimises the
    latency estimate over ``k <= r <= r_f`` subject to the cost limit
    ``C_hat(r) <= c_max`` (:func:`strategy_estimates` for the estimates). Ties go
    to the smaller cost. When no ``r`` meets the cost limit, ``feasible`` is False
    and ``r`` is the one with the least cost estimate.
    """
    n = int(n)
    k = int(k)
    r_f = n if rf_max is None else min(int(rf_max), n)
    if r_f < k:
        raise ValueError(f"need r_f >= k, got r_f = {r_f}, k = {k}")
    cands = []
    for r in range(k, r_f + 1):
        t, c = strategy_estimates(lam, X, n, r, k)
        cands.append((r, t, c))
    feas = [c for c in cands if c[2] <= c_max]
    if feas:
        r, t, c = min(feas, key=lambda e: (e[1], e[2]))
        ok = True
    else:
        r, t, c = min(cands, key=lambda e: (e[2], e[1]))
        ok = False
    return StrategyChoice(r_f=r_f, r=r, latency_estimate=t, cost_estimate=c, feasible=ok, candidates=tuple(cands))
