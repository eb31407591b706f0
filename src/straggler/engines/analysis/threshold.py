"""Two server pools with job-server affinity: the threshold paper's formulas, the work
each pool gets under full redundancy, rerouting and replication, its second moments and
the latency approximation (their bounds optimised over the thresholds: :mod:`.threshold_search`).

Raaijmakers, Borst, Boxma, *Threshold-based rerouting and replication for
resolving job-server affinity relations* (arXiv 2005.13353; restated cleanly in
docs: reference results, section 1). Notation follows the paper: pools ``i`` in {0, 1} here
(1 and 2 in the paper), ``l`` the other pool, job types ``j`` with probability
``p_j`` and speed ``r_ij`` in pool ``i``, ``alpha_ij`` the fraction of type-j jobs
first assigned to pool ``i``, ``E[B_i]`` the expected service requirement that a
job brings to pool ``i``; the effective load per server is
``rho_i = lambda E[B_i] / n_i`` and the stability bound is
``lambda_max = 1 / max_i (E[B_i] / n_i)`` maximised over the assignment.

Rates here are job arrival rates; :func:`to_load_units` converts them to the
project's load units (docs/background/model.md, "Load": ``load = lambda E[replica size] / N``).

The system itself, the beliefs of Cor. 1-3, zero redundancy (eq. 5) and KT live in
:mod:`straggler.model.two_pools`, which the simulation shares. Contents: full redundancy
(eq. 6); rerouting and
replication after a threshold (:func:`expected_work_rerouting`, Prop. 1;
:func:`expected_work_replication`, Prop. 2; :func:`expected_work_rerouting_multi`,
Prop. 5 of Appendix B); the second moments and the latency approximation of
Section 6 (n_1 = n_2 = 1). The stability bounds optimised over the assignment and
the thresholds are :mod:`.threshold_search`; the known-sizes bound KS (Props. 3-4,
Lemma 1, Remark 2) is :mod:`.known_sizes`.

Cancellation delay (``cancel_delay`` c, not in the paper: a copy cancelled in service
keeps its server c longer). The work a job brings to a pool gains c for each of its
copies cancelled there with work left: Rer's run killed at tau_i, ``c P(A_ij > tau_i)``
(Prop. 1's accounting is pathwise, whatever the timing); Rep's and FRed's losing copy,
``c P(A_ij - tau_i > A_lj)`` in pool i and ``c P(A_lj > A_ij - tau_i > 0)`` in pool l
(:func:`.cancel_delay.strict_losses`; a tie finishes together and is not charged).
Prop. 2 and eq. 6 count the race of two copies in simultaneous service, which a copy
holding its server c breaks (the other pool's server may be held when the replica
arrives): the handlers call those loads approximations when c > 0. Every function
below takes ``cancel_delay`` (default 0: the paper's values, bit for bit).
"""

from __future__ import annotations

import math

import numpy as np

from ...model.dependence import Dependence, pair
from ...model.distributions import Distribution
from ...model.two_pools import Bound, TwoPoolSystem
from .cancel_delay import strict_losses


def expected_work_full_redundancy(system, X, dep, cancel_delay: float = 0.0) -> np.ndarray:
    """E[B_i] = sum_j p_j E[min(X_i / r_ij, X_l / r_lj)] (Remark 1, eq. 6).

    Both replicas start at once and each pool works until the first finishes, so
    the work is the same in both pools and independent of the assignment.
    ``cancel_delay`` c > 0: pool i also gets ``c sum_j p_j P(A_ij > A_lj)``, its copy
    losing with work left (module docstring).
    """
    r = system.speeds
    per_type = [pair(dep, X.of_type(j), 1.0 / r[0][j], 1.0 / r[1][j]).mean_min_AB() for j in range(system.n_types)]
    work = float(np.dot(system.p, per_type))
    if cancel_delay > 0.0:
        lost = [
            strict_losses(pair(dep, X.of_type(j), 1.0 / r[0][j], 1.0 / r[1][j]), 0.0) for j in range(system.n_types)
        ]
        extra = [cancel_delay * float(np.dot(system.p, [loss[i] for loss in lost])) for i in range(2)]
        return np.array([work + extra[0], work + extra[1]])
    return np.array([work, work])


def full_redundancy_bound(system: TwoPoolSystem, X, dep, cancel_delay: float = 0.0) -> Bound:
    """lambda_max of full redundancy: 1 / max_i (E[B_i] / n_i) with eq. 6."""
    work = expected_work_full_redundancy(system, X, dep, cancel_delay)
    t = max(work[0] / system.n[0], work[1] / system.n[1])
    return Bound(rate=1.0 / t, q=(math.nan,), work=(float(work[0]), float(work[1])))


def to_load_units(rate: float, X: Distribution, dep: Dependence, N: int) -> float:
    """Convert a job arrival rate to load units: lambda E[replica size] / N (docs/background/model.md)."""
    return rate * dep.replica_mean(X) / N


# =====================================================================================
# Threshold policies: rerouting and replication after tau (Props. 1, 2, 5)
# =====================================================================================
#
# Conventions (as above): pools 0/1 (1/2 in the paper), A_ij = X_i / r_ij the time a
# type-j job needs in pool i, alpha[i][j] the fraction of type-j jobs first sent to
# pool i, tau = (tau_1, tau_2) the threshold applied in the pool where the job
# started, each in [0, inf]. The pair functionals come from straggler.model.dependence:
# ``pair(dep, X, 1/r_ij, 1/r_lj)`` is (A, B) = (A_ij, A_lj).

POLICIES = ("rerouting", "replication")


def _times(x: float, y: float) -> float:
    """``x * y`` with ``0 * inf = 0`` (an event of probability 0 carries no mass)."""
    return 0.0 if x == 0.0 or y == 0.0 else x * y


def _dot(u, v) -> float:
    """``sum_k u_k v_k`` with ``0 * inf = 0``."""
    return math.fsum(_times(float(a), float(b)) for a, b in zip(u, v))


def check_tau(tau) -> tuple[float, float]:
    """``(tau_1, tau_2)`` from a pair of thresholds, or one for both pools, each in [0, inf]."""
    first, second = (float(x) for x in np.broadcast_to(np.asarray(tau, dtype=float), (2,)))
    t = (first, second)
    for x in t:
        if math.isnan(x) or x < 0:
            raise ValueError(f"thresholds tau must be in [0, inf], got {tau!r}")
    return t


def _check_alpha(system: TwoPoolSystem, alpha) -> np.ndarray:
    a = np.asarray(alpha, dtype=float)
    J = system.n_types
    if a.shape != (2, J):
        raise ValueError(f"alpha must be a 2 x J = 2 x {J} matrix, got shape {a.shape}")
    if np.any(a < -1e-12) or np.any(np.abs(a.sum(axis=0) - 1.0) > 1e-9):
        raise ValueError(f"alpha must be non-negative with columns summing to 1, got {a.tolist()}")
    return np.clip(a, 0.0, 1.0)


def pool_pairs(system: TwoPoolSystem, X: Distribution, dep: Dependence):
    """``P[i][j] = pair(dep, X_j, 1/r_ij, 1/r_lj)``: A = A_ij (pool i), B = A_lj, X_j the
    type's size law (:meth:`Distribution.of_type`)."""
    r = system.speeds
    return [
        [pair(dep, X.of_type(j), 1.0 / r[i][j], 1.0 / r[1 - i][j]) for j in range(system.n_types)] for i in range(2)
    ]


def work_profile(P, policy: str, i: int, tau: float, moment: int = 1, per_job: bool = False, cancel_delay: float = 0.0):
    """Per-type work of a job that *starts* in pool ``i`` with threshold ``tau``.

    Returns ``(own, cross)``, arrays over j: the m-th moment of the work in pool i
    (``own``) and in the other pool l (``cross``). With ``m = 1``:

    - rerouting (Prop. 1): own = E[min(A_ij, tau)], cross = E[A_lj 1{A_ij > tau}];
    - replication (Prop. 2): own = E[min(A_ij, tau)] + k^1_{il,j}(tau),
      cross = k^1_{il,j}(tau) (both pools work until the first replica finishes).

    ``m = 2`` gives the second moments of Section 6 (see
    :func:`second_moment_work_replication` for ``per_job``). ``cancel_delay`` > 0:
    :func:`_with_cancel_delay`.
    """
    J = len(P[0])
    own = np.empty(J)
    cross = np.empty(J)
    l = 1 - i
    for j in range(J):
        Pi, Pl = P[i][j], P[l][j]
        if policy == "rerouting":
            if moment == 1:
                own[j] = Pi.mean_min_A(tau)
                cross[j] = Pl.mean_A_B_exceeds(tau)
            else:
                own[j] = Pi.second_min_A(tau)
                cross[j] = Pl.second_A_B_exceeds(tau)
        elif policy == "replication":
            if moment == 1:
                k1 = Pi.k(1, tau)
                own[j] = Pi.mean_min_A(tau) + k1
                cross[j] = k1
            else:
                k2 = Pi.k(2, tau)
                own[j] = Pi.second_min_A(tau) + k2
                if per_job and 0.0 < tau < math.inf:
                    own[j] += 2.0 * tau * Pi.k(1, tau)
                cross[j] = k2
        else:
            raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    if cancel_delay > 0.0:
        if per_job:
            raise ValueError("the per-job second moment with a cancellation delay is not implemented")
        _with_cancel_delay(P, policy, i, tau, moment, cancel_delay, own, cross)
    return own, cross


def _with_cancel_delay(P, policy: str, i: int, tau: float, moment: int, c: float, own, cross) -> None:
    """Add a cancellation delay ``c`` to the per-type work of a job starting in pool
    ``i`` (module docstring), in place. Rerouting: the killed run occupies
    ``min(A_ij, tau) + c 1{A_ij > tau}``, so ``own`` gains ``c P(A_ij > tau)`` (m = 1) or
    ``(2 tau c + c^2) P(A_ij > tau)`` (m = 2). Replication: the losing copy's ``c`` is,
    as the paper treats the parts of a replicated job (Section 6), one more customer of
    its pool: ``c`` (m = 1), ``c^2`` (m = 2) times the probability that the copy in
    that pool loses with work left (:func:`.cancel_delay.strict_losses`)."""
    if math.isinf(tau):
        return  # never rerouted or replicated: nothing is cancelled
    for j in range(len(P[0])):
        if policy == "rerouting":
            killed = P[i][j].prob_A_exceeds(tau)
            own[j] += (c if moment == 1 else 2.0 * tau * c + c * c) * killed
        else:
            original, replica = strict_losses(P[i][j], tau)
            unit = c if moment == 1 else c * c
            own[j] += unit * original
            cross[j] += unit * replica


def _work_from_profiles(system: TwoPoolSystem, alpha: np.ndarray, prof) -> np.ndarray:
    """E[B_i] = sum_j p_j (alpha_ij own_ij + alpha_lj cross_lj) (eqs. 2 and 4)."""
    p = np.asarray(system.p, dtype=float)
    out = np.empty(2)
    for i in range(2):
        l = 1 - i
        own_i, _ = prof[i]
        _, cross_l = prof[l]
        out[i] = _dot(p * alpha[i], own_i) + _dot(p * alpha[l], cross_l)
    return out


def _expected(system, X, dep, alpha, tau, policy, moment=1, per_job=False, cancel_delay=0.0) -> np.ndarray:
    alpha = _check_alpha(system, alpha)
    tau = check_tau(tau)
    P = pool_pairs(system, X, dep)
    prof = [work_profile(P, policy, i, tau[i], moment, per_job, cancel_delay) for i in range(2)]
    return _work_from_profiles(system, alpha, prof)


def expected_work_rerouting(system: TwoPoolSystem, X, dep, alpha, tau, cancel_delay: float = 0.0) -> np.ndarray:
    """E[B_i^Rer(A, tau)] of Proposition 1, eq. (2), for i = 1, 2.

    E[B_i] = sum_j p_j alpha_ij E[min(X_i/r_ij, tau_i)]
           + sum_j p_j alpha_lj E[(X_i/r_ij) 1{X_l/r_lj > tau_l}].

    A job starting in pool i is processed there for up to tau_i, then killed and
    restarted from scratch in pool l, where it runs to completion. ``tau`` is
    ``(tau_1, tau_2)`` with entries in [0, inf] (a scalar applies to both);
    ``tau = inf`` gives eq. (5) (zero redundancy). Any J, speed matrix, pool sizes
    and dependence (the expectations come from :func:`straggler.model.dependence.pair`).
    ``cancel_delay``: the module docstring.
    """
    return _expected(system, X, dep, alpha, tau, "rerouting", cancel_delay=cancel_delay)


def expected_work_replication(system: TwoPoolSystem, X, dep, alpha, tau, cancel_delay: float = 0.0) -> np.ndarray:
    """E[B_i^Rep(A, tau)] of Proposition 2, eq. (4), for i = 1, 2.

    E[B_i] = sum_j p_j alpha_ij (E[min(X_i/r_ij, tau_i)] + k^1_{il,j}(tau_i))
           + sum_j p_j alpha_lj k^1_{li,j}(tau_l),
    k^m_{il,j}(y) = E[min(X_i/r_ij - y, X_l/r_lj)^m 1{X_i/r_ij > y}].

    After tau_i of processing a replica starts in the other pool (from scratch) and
    both pools work until the first replica finishes. ``tau = inf`` gives eq. (5),
    ``tau = 0`` gives eq. (6) (full redundancy, independent of alpha). ``cancel_delay``:
    the module docstring.
    """
    return _expected(system, X, dep, alpha, tau, "replication", cancel_delay=cancel_delay)


# ---------------------------------------------------------------- multi-threshold (App. B)


def _min_above(Y: Distribution, a: float, t: float, c: float) -> float:
    """E[min(a Y, t) 1{Y > c}] for ``c`` in [-inf, inf] (``-inf``: no condition)."""
    if c >= math.inf:
        return 0.0
    d = t / a  # min(aY, t) = aY for Y <= d, t above
    if c >= d:
        return _times(t, float(Y.sf(c)))
    head = Y.partial_mean(max(c, 0.0)) - (Y.partial_mean(d) if math.isfinite(d) else 0.0)
    tail = 0.0 if math.isinf(t) else _times(t, float(Y.sf(d)))
    return a * max(head, 0.0) + tail


def _joint_min_exceeds(P, t: float, s: float, u: float) -> float:
    """E[min(A, t) 1{A > s} 1{B > u}] for a pair ``P`` of :mod:`straggler.model.dependence`
    (``s``, ``u`` = -inf for no condition). Exact for identical, i.i.d. and mixture
    pairs (partial moments); one quadrature over X for the continuous S&X pair."""
    from ...model.dependence import IdenticalPair, IIDPair, MixturePair, SXPair

    if isinstance(P, IdenticalPair):
        c = max(s / P.a, u / P.b)
        return _min_above(P.X, P.a, t, c)
    if isinstance(P, IIDPair):
        pb = 1.0 if u == -math.inf else float(P.X.sf(u / P.b))
        return _times(_min_above(P.X, P.a, t, s / P.a), pb)
    if isinstance(P, MixturePair):
        return math.fsum(_times(w, _joint_min_exceeds(c, t, s, u)) for w, c in P.components)
    if isinstance(P, SXPair):
        return P.X.expect(lambda x: _joint_min_exceeds(IIDPair(P.S, P.a * x, P.b * x), t, s, u) if x > 0 else 0.0)
    raise TypeError(f"unsupported pair {type(P).__name__}")


def _threshold_rows(taus) -> tuple[tuple[float, ...], tuple[float, ...]]:
    seq = list(taus)
    if seq and all(np.ndim(x) == 1 for x in seq):
        if len(seq) != 2:
            raise ValueError("per-pool thresholds must be two sequences (rows of T)")
        rows = (tuple(float(x) for x in seq[0]), tuple(float(x) for x in seq[1]))
    else:
        row = tuple(float(x) for x in seq)
        rows = (row, row)
    for row in rows:
        if any(math.isnan(x) or x < 0 for x in row):
            raise ValueError(f"thresholds must be in [0, inf], got {taus!r}")
    return rows


def expected_work_rerouting_multi(system: TwoPoolSystem, X, dep, alpha, taus) -> np.ndarray:
    """E[B_i^Rer(A, T)] of the n-threshold rerouting policy (Appendix B, Prop. 5;
    Definition 1).

    ``taus`` is the rerouting vector (tau_1, ..., tau_n), used for both initial
    pools, or a pair of such vectors (the rows of the 2 x n matrix T, one per
    initial pool; their lengths may differ). A job that starts in pool s runs
    there for up to tau_1 of processing; if not finished it is killed and
    restarted *from scratch* in the other pool for up to tau_2 of processing in
    that run, then back in s for up to tau_3, ...; after the n-th reroute it runs
    to completion. Each tau_k is the processing time of run k alone (Definition 1),
    and the job's size in pool i is the same replica size X_i at every visit.

    Derivation: run k (in pool pi_k) is reached iff every earlier run did not finish,
    i.e. A_{i j} > M_i and A_{l j} > M_l where M_i is the largest threshold of the
    earlier runs in pool i; the run then brings min(A_{pi_k j}, tau_k) (tau_{n+1} =
    inf) to pool pi_k. So

        E[B_i] = sum_s sum_j p_j alpha_sj sum_{k: pi_k = i}
                 E[min(A_ij, tau_k) 1{A_ij > M_i(k)} 1{A_lj > M_l(k)}].

    With increasing thresholds (the paper's setting) M_i(k) and M_l(k) are the two
    previous thresholds, and this is exactly Prop. 5: the first term is run 1 from
    pool i, the m-th term the (m+1)-th run of a job that started in I(m), with the
    condition {tau_{m-1} < X_i/r_ij, tau_m < X_l/r_lj}. The general form above also
    covers non-monotone vectors (a run shorter than an earlier one in the same pool
    can never finish the job). One threshold per pool reproduces eq. (2) with
    tau = (T[0][0], T[1][0]); the empty vector is zero redundancy.
    """
    alpha = _check_alpha(system, alpha)
    rows = _threshold_rows(taus)
    P = pool_pairs(system, X, dep)
    p = np.asarray(system.p, dtype=float)
    work = np.zeros(2)
    for s in range(2):
        limits = rows[s] + (math.inf,)
        for j in range(system.n_types):
            weight = p[j] * alpha[s][j]
            if weight == 0.0:
                continue
            M = [-math.inf, -math.inf]  # largest earlier threshold in each pool
            for k, t in enumerate(limits):
                i = s if k % 2 == 0 else 1 - s
                work[i] += weight * _joint_min_exceeds(P[i][j], t, M[i], M[1 - i])
                M[i] = max(M[i], t)
    return work


# ---------------------------------------------------------------- second moments, latency


def second_moment_work_rerouting(system: TwoPoolSystem, X, dep, alpha, tau, cancel_delay: float = 0.0) -> np.ndarray:
    """E[(B_i^Rer)^2] of Section 6 (docs: reference results, section 1, latency approximation):

    sum_j p_j alpha_ij E[min(X_i/r_ij, tau_i)^2] + sum_j p_j alpha_lj E[(X_i/r_ij)^2 1{X_l/r_lj > tau_l}].

    A job brings work to pool i either in its first run or after rerouting, never
    both, so this is the exact second moment of the work per arriving job.
    ``inf`` when it does not exist (e.g. Pareto with alpha <= 2 and tau > 0 in use).
    """
    return _expected(system, X, dep, alpha, tau, "rerouting", moment=2, cancel_delay=cancel_delay)


def second_moment_work_replication(
    system: TwoPoolSystem, X, dep, alpha, tau, per_job: bool = False, cancel_delay: float = 0.0
) -> np.ndarray:
    """E[(B_i^Rep)^2] of Section 6 (docs: reference results, section 1, latency approximation):

    sum_j p_j alpha_ij (E[min(X_i/r_ij, tau_i)^2] + k^2_{il,j}(tau_i)) + sum_j p_j alpha_lj k^2_{li,j}(tau_l).

    This is the paper's expression. It treats the part before and the part after
    replication as separate (Poisson) customers, consistent with the paper's
    approximation that replicated traffic is Poisson. ``per_job=True`` gives the
    exact second moment of the whole work of a job in pool i instead, which adds
    the cross term 2 tau_i k^1_{il,j}(tau_i) for jobs that started in i. The two
    agree at tau = 0 and tau = inf.
    """
    return _expected(system, X, dep, alpha, tau, "replication", moment=2, per_job=per_job, cancel_delay=cancel_delay)


def _pk_wait(lam: float, m1: float, m2: float) -> float:
    """Pollaczek-Khinchine W(B) = lam E[B^2] / (2 (1 - lam E[B])); 0 for a pool
    that gets no work, inf when overloaded or E[B^2] = inf."""
    if lam == 0.0 or (m1 == 0.0 and m2 == 0.0):
        return 0.0
    rho = lam * m1
    if rho >= 1.0 or math.isinf(m2) or math.isnan(m2):
        return math.inf
    return lam * m2 / (2.0 * (1.0 - rho))


def _check_single_servers(system: TwoPoolSystem) -> None:
    if tuple(system.n) != (1, 1):
        raise ValueError(f"the Section 6 latency approximation needs n_1 = n_2 = 1, got {system.n}")


def _latency(system, X, dep, alpha, tau, lam, policy, cancel_delay=0.0):
    _check_single_servers(system)
    alpha = _check_alpha(system, alpha)
    tau = check_tau(tau)
    P = pool_pairs(system, X, dep)
    p = np.asarray(system.p, dtype=float)
    c = cancel_delay
    m1 = _work_from_profiles(system, alpha, [work_profile(P, policy, i, tau[i], cancel_delay=c) for i in range(2)])
    m2 = _work_from_profiles(system, alpha, [work_profile(P, policy, i, tau[i], 2, cancel_delay=c) for i in range(2)])
    # per (pool, type): own processing, then (rerouting) the run in the other pool
    service = np.zeros((2, system.n_types))
    moved = np.zeros((2, system.n_types))  # P(rerouted) for rerouting
    for i in range(2):
        for j in range(system.n_types):
            Pi, Pl = P[i][j], P[1 - i][j]
            if policy == "rerouting":
                service[i, j] = Pi.mean_min_A(tau[i]) + Pl.mean_A_B_exceeds(tau[i])
                moved[i, j] = Pi.prob_A_exceeds(tau[i])
            else:
                service[i, j] = Pi.mean_min_A(tau[i]) + Pi.k(1, tau[i])
    lams = np.atleast_1d(np.asarray(lam, dtype=float))
    out = np.empty(lams.shape)
    for k, lm in enumerate(lams):
        W = [_pk_wait(float(lm), float(m1[i]), float(m2[i])) for i in range(2)]
        total = 0.0
        for i in range(2):
            for j in range(system.n_types):
                weight = p[j] * alpha[i][j]
                if weight == 0.0:
                    continue
                t_ij = W[i] + service[i, j] + _times(W[1 - i], moved[i, j])
                total += weight * t_ij
        out[k] = total
    return float(out[0]) if np.ndim(lam) == 0 else out


def latency_rerouting(system: TwoPoolSystem, X, dep, alpha, tau, lam, cancel_delay: float = 0.0):
    """Approximate mean latency E[T^Rer] of Section 6 (n_1 = n_2 = 1, FCFS).

    E[T_ij] = W(B_i) + E[min(X_i/r_ij, tau_i)] + E[(X_l/r_lj) 1{X_i/r_ij > tau_i}]
              + W(B_l) P(X_i/r_ij > tau_i),
    W(B) = lam E[B^2] / (2 (1 - lam E[B])) (Pollaczek-Khinchine with the moments of
    eq. 2 and :func:`second_moment_work_rerouting`), E[T] = sum_i sum_j p_j alpha_ij E[T_ij].

    The paper writes E[T_i] with sum_j p_j inside and then sums p_j alpha_ij E[T_i];
    we read it per type (E[T_ij]), which is the same for unknown types
    (alpha_ij = q_i) and the consistent reading for partly known ones.
    ``lam`` is the job arrival rate (scalar or array); the result is ``inf``
    (never an exception) when a pool is overloaded or a needed second moment is
    infinite. Exact (M/G/1 per pool) at tau = inf. ``cancel_delay`` c > 0: the moments
    of the work per pool carry it (:func:`_with_cancel_delay`); a job's own time does
    not (it leaves at the kill).
    """
    return _latency(system, X, dep, alpha, tau, lam, "rerouting", cancel_delay)


def latency_replication(system: TwoPoolSystem, X, dep, alpha, tau, lam, cancel_delay: float = 0.0):
    """Approximate mean latency E[T^Rep] of Section 6 (n_1 = n_2 = 1, FCFS):

    E[T_ij] = W(B_i) + E[min(X_i/r_ij, tau_i)] + k^1_{il,j}(tau_i),

    with the moments of eq. (4) and :func:`second_moment_work_replication` (the
    paper's form); replicas have preemptive priority, so the replica in the other
    pool does not wait. E[T] = sum_i sum_j p_j alpha_ij E[T_ij] (per-type reading,
    see :func:`latency_rerouting`). At tau = 0 this is one M/G/1 queue with service
    min(X_1/r_1j, X_2/r_2j); at tau = inf one M/G/1 per pool. ``inf`` when
    overloaded or when a second moment is infinite. ``cancel_delay``: as for
    :func:`latency_rerouting`.
    """
    return _latency(system, X, dep, alpha, tau, lam, "replication", cancel_delay)
