"""Speculative load balancing: timeouts, load, capacity gain, optimal timeout.

Anselmi, Walton, *Stability and Optimization of Speculative Queueing Networks*
(arXiv 2104.10426; docs: reference results, section 2). The text of the paper that
the project worked from lost the displayed equations; where an equation number is
cited below, the formula is the one the reference results restate or the one that
the surrounding text defines, and the docstring says which.

Model (paper section 3): parallel single-server queues with speeds ``mu_i`` and
work-conserving head-of-the-line disciplines (FCFS included, PS excluded). A job
is dispatched to queue ``i`` with probability ``p_{0,i}``; when its service
starts a timeout ``tau_i`` is set; if the job has not completed by then it is
killed and re-routed to queue ``j`` with probability ``p_{1,j}`` (the same vector
whatever the source queue, the paper's assumption ``p_{i,j} = p_{1,j}``), where it
runs to completion. Its work in the first run is ``eta_1`` and in the second
``eta_2`` (at unit speed); ``eta_1`` and ``eta_2`` may be dependent.

Here ``(eta_1, eta_2)`` are the first two replica sizes of a job under a replica
dependence (:mod:`straggler.model.dependence`):

- kill-and-restart (default): ``eta_2`` is a second replica: ``identical``
  (``eta_2 = eta_1``: no gain possible), ``iid``, or ``sx`` (``eta_i = X S_i``,
  the paper's Assumption 2);
- stop-and-resume (``resume=True``): ``eta_2 = eta_1 - tau`` (the remaining work),
  as the paper's second scenario. On homogeneous servers this leaves the load
  unchanged, ``L(tau) = 1`` for every ``tau``.

Units: ``lam`` is always the *total* job arrival rate. The paper's ``lambda`` is
per queue (arrivals at rate ``lambda N``), so its condition ``lambda E[eta_1] < 1``
reads ``lam E[eta_1] / N < 1`` here, and the per-queue load of the homogeneous
network is ``rho(tau) = lam (E[min(eta_1, tau)] + E[eta_2 1{eta_1 > tau}]) / N``.
The load ratio ``L(tau) = rho(tau) / rho(inf)`` is unit-free, and the stability
bound in the project's load units (``lam E[eta_1] / N``) is ``1 / L(tau)``.

Cancellation delay (``cancel_delay`` c, not in the paper): a run killed at its timeout
keeps its server c longer, so a job brings ``c P(eta_1 > tau)`` more work to its first
queue (:func:`expected_work`), which the load, its optimal timeout, the stability bound
and the latency approximation carry. The paper's Theorem 1 moves a timed-out job on
when its first queue is done with it; here the job moves on at the kill while the
queue is still held, which its proof does not cover: the load condition stays
necessary (a queue cannot do more than its capacity), its sufficiency is not claimed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...model.dependence import IID, SX, Dependence, Identical, Mixture, over_branches, pair
from ...model.distributions import (
    Deterministic,
    Discrete,
    Distribution,
    Erlang,
    Exponential,
    Hyperexponential,
    Pareto,
    pieces,
)
from . import queues

__all__ = [
    "expected_work",
    "nominal_load",
    "load_ratio",
    "load_ratio_curve",
    "capacity_difference",
    "theorem2_terms",
    "gains_capacity",
    "network_loads",
    "network_stability_rate",
    "timeout_set",
    "timeout_set_closed_form",
    "hazard_rule_timeout",
    "OptimalTimeout",
    "optimal_timeout",
    "SpeculationBound",
    "stability_bound",
    "latency_approx",
]

_REL_TOL = 1e-12  # |D(tau)| below this fraction of E[eta_1] counts as no change
_TAIL = 1e-10  # the grid of an unbounded eta_1 ends where P(eta_1 > tau) = _TAIL


# =====================================================================================
# Homogeneous queues: load with a timeout
# =====================================================================================


def _pair(X: Distribution, dep: Dependence):
    """(A, B) = (eta_2, eta_1) at unit speed; the dependences are exchangeable, so
    ``mean_A_B_exceeds(t) = E[eta_2 1{eta_1 > t}]`` and the marginal functionals of A
    are those of ``eta_1``."""
    return pair(dep, X, 1.0, 1.0)


def _tau(tau) -> float:
    t = float(tau)
    if math.isnan(t) or t < 0:
        raise ValueError(f"tau must be >= 0 (inf allowed), got {tau!r}")
    return t


def expected_work(
    tau: float, X: Distribution, dep: Dependence, resume: bool = False, cancel_delay: float = 0.0
) -> float:
    """``E[min(eta_1, tau)] + E[eta_2 1{eta_1 > tau}]``: the work one job brings.

    The bracket of the paper's nominal load (section 4, the load ``rho_i`` of
    Theorem 1 in the homogeneous case; docs: reference results, section 2). With ``resume=True``, ``eta_2 = eta_1 - tau``
    and the work is ``E[eta_1]`` whatever ``tau``. ``tau = inf``: ``E[eta_1]``.
    ``cancel_delay`` c > 0 (module docstring): plus ``c P(eta_1 > tau)``, the killed
    run's server held c longer (also with ``resume``).
    """
    t = _tau(tau)
    P = _pair(X, dep)
    if math.isinf(t):
        return P.mean_A()
    work = P.mean_A() if resume else P.mean_min_A(t) + P.mean_A_B_exceeds(t)
    if cancel_delay > 0.0:
        work += cancel_delay * P.prob_A_exceeds(t)
    return work


def nominal_load(lam: float, tau: float, X: Distribution, dep: Dependence, N: int = 1, resume: bool = False) -> float:
    """``rho(tau) = lam (E[min(eta_1, tau)] + E[eta_2 1{eta_1 > tau}]) / N``.

    Per-queue nominal load of ``N`` homogeneous unit-speed queues with random
    dispatch and random re-routing (the paper's ``rho_i`` of Theorem 1 with
    ``mu_i = 1``, ``p_0 = p_1`` uniform). ``lam`` is the total arrival rate; with ``N = 1`` this
    is the paper's formula with its per-queue ``lambda``.
    """
    return lam * expected_work(tau, X, dep, resume) / N


def load_ratio(tau: float, X: Distribution, dep: Dependence, resume: bool = False, cancel_delay: float = 0.0) -> float:
    """``L(tau) = rho(tau) / rho(inf)`` (paper section 5.1, the function of Fig. 1).

    ``L < 1`` is the factor by which the timeout reduces the load, and
    ``1 / L(tau)`` the capacity relative to no speculation (``cancel_delay``: see
    :func:`expected_work`).
    """
    P = _pair(X, dep)
    return expected_work(tau, X, dep, resume, cancel_delay) / P.mean_A()


def load_ratio_curve(
    taus: Sequence[float] | np.ndarray,
    X: Distribution,
    dep: Dependence,
    resume: bool = False,
    cancel_delay: float = 0.0,
) -> np.ndarray:
    """:func:`load_ratio` at each of ``taus``: for a tabulated law (a trace, a quantile
    table, a discrete law) with identical, i.i.d. or mixed replicas, every tau at once from the
    law's pieces (:func:`..distributions.pieces.truncated_curves`), so that a grid over a
    trace's 10^5 values costs prefix sums, not 10^5 sums over the trace."""
    if isinstance(dep, Mixture) and not resume:
        # L is linear in a job's joint law of its two runs (over one mean): c times the
        # identical branch's curve plus 1 - c times the i.i.d. one's
        return over_branches(dep, lambda branch: load_ratio_curve(taus, X, branch, resume, cancel_delay))
    linear = X.quantile_pieces()
    if linear is None or resume or not isinstance(dep, (IID, Identical)):
        return np.array([load_ratio(t, X, dep, resume, cancel_delay) for t in taus], dtype=float)
    t = np.asarray(taus, dtype=float)
    mean_min, partial = pieces.truncated_curves(linear, np.where(np.isinf(t), np.finfo(float).max, t))
    # the second replica's work when the first is cut at tau: E[eta_2 1{eta_1 > tau}]
    second = X.mean() * np.asarray(X.sf(t), dtype=float) if isinstance(dep, IID) else partial
    if cancel_delay > 0.0:  # the killed run's server held c longer (expected_work)
        second = second + cancel_delay * np.where(np.isinf(t), 0.0, np.asarray(X.sf(t), dtype=float))
    return (mean_min + second) / X.mean()


def capacity_difference(tau: float, X: Distribution, dep: Dependence, resume: bool = False) -> float:
    """``D(tau) = E[eta_2 1{eta_1 > tau}] - E[(eta_1 - tau)^+] = E[eta_1] (L(tau) - 1)``.

    Its sign decides Theorem 2 (``D < 0`` iff the timeout gains capacity); computed
    from the two terms directly so that it stays accurate where both are small.
    """
    t = _tau(tau)
    if resume or math.isinf(t):
        return 0.0
    P = _pair(X, dep)
    excess = max(P.mean_A() - P.mean_min_A(t), 0.0)
    return P.mean_A_B_exceeds(t) - excess


def theorem2_terms(tau: float, X: Distribution, dep: Dependence, resume: bool = False) -> tuple[float, float]:
    """``(E[eta_2 | eta_1 > tau], E[eta_1 - tau | eta_1 > tau])``: the two sides of
    Theorem 2's criterion (eq. (13)). ``(nan, nan)`` when ``P(eta_1 > tau) = 0``."""
    t = _tau(tau)
    P = _pair(X, dep)
    p = P.prob_A_exceeds(t)
    if not p > 0.0:
        return math.nan, math.nan
    rhs = max(P.mean_A() - P.mean_min_A(t), 0.0) / p
    lhs = rhs if resume else P.mean_A_B_exceeds(t) / p
    return lhs, rhs


def gains_capacity(tau: float, X: Distribution, dep: Dependence, resume: bool = False) -> bool:
    """Theorem 2: the timeout ``tau`` enlarges the stability region (``L(tau) < 1``)
    iff ``E[eta_2 | eta_1 > tau] < E[eta_1 - tau | eta_1 > tau]`` (eq. (13)).

    Evaluated through :func:`capacity_difference` (equivalent whenever
    ``P(eta_1 > tau) > 0``), with differences below ``1e-12 E[eta_1]`` counted as
    no change."""
    P = _pair(X, dep)
    return capacity_difference(tau, X, dep, resume) < -_REL_TOL * P.mean_A()


# =====================================================================================
# The general network (heterogeneous speeds, routing p_0 and p_1)
# =====================================================================================


def network_loads(
    lam: float,
    X: Distribution,
    dep: Dependence,
    speeds: Sequence[float],
    taus: Sequence[float],
    p0: Sequence[float],
    p1: Sequence[float],
    resume: bool = False,
) -> np.ndarray:
    """Nominal load ``rho_i`` of every queue of the speculative network (section 4,
    the display before Theorem 1, whose condition is ``rho_i < 1``; the extraction
    lost the formula, which is rebuilt here from the model of section 3).

    ``lam`` is the total arrival rate (the paper's ``lambda N``); ``speeds[i] = mu_i``;
    ``taus[i]`` the timeout of queue ``i`` (time units; ``inf`` for none); ``p0`` the
    dispatch and ``p1`` the re-routing probability vectors. A job first served at
    ``j`` times out iff ``eta_1 / mu_j > tau_j``, then brings ``eta_2 / mu_i`` to the
    queue ``i`` it is re-routed to:

        rho_i = lam [ p0_i E[min(eta_1/mu_i, tau_i)]
                      + p1_i sum_j p0_j E[(eta_2/mu_i) 1{eta_1/mu_j > tau_j}] ].

    Stop-and-resume: ``eta_2 = eta_1 - mu_j tau_j`` (the work left after ``tau_j`` at
    speed ``mu_j``). With unit speeds, equal timeouts and uniform ``p0 = p1`` every
    ``rho_i`` equals :func:`nominal_load` with ``N = len(speeds)``.
    """
    mu = np.asarray(speeds, dtype=float)
    t = np.asarray(taus, dtype=float)
    q0 = np.asarray(p0, dtype=float)
    q1 = np.asarray(p1, dtype=float)
    n = mu.size
    if not (t.size == q0.size == q1.size == n):
        raise ValueError("speeds, taus, p0 and p1 must have the same length")
    if np.any(mu <= 0) or np.any(t < 0) or np.any(q0 < 0) or np.any(q1 < 0):
        raise ValueError("speeds must be > 0; taus, p0 and p1 must be >= 0")
    if abs(q0.sum() - 1.0) > 1e-9 or abs(q1.sum() - 1.0) > 1e-9:
        raise ValueError("p0 and p1 must each sum to 1")
    P = _pair(X, dep)
    m = P.mean_A()
    # work limits in unit-speed work: a run at queue j is cut after mu_j tau_j of work
    cut = mu * t
    first = np.array([P.mean_min_A(c) for c in cut]) / mu
    if resume:
        excess = np.array([max(m - P.mean_min_A(c), 0.0) for c in cut])
        rerouted = float(q0 @ excess)
    else:
        rerouted = float(q0 @ np.array([P.mean_A_B_exceeds(c) for c in cut]))
    return lam * (q0 * first + q1 * rerouted / mu)


def network_stability_rate(X: Distribution, dep: Dependence, speeds, taus, p0, p1, resume: bool = False) -> float:
    """Theorem 1: the network is stable iff every ``rho_i < 1`` (sufficiency is the
    theorem, for head-of-the-line disciplines; necessity is the usual work
    argument), so the largest total arrival rate is ``1 / max_i rho_i(lam = 1)``."""
    rho = network_loads(1.0, X, dep, speeds, taus, p0, p1, resume)
    top = float(rho.max())
    return math.inf if top <= 0 else 1.0 / top


# =====================================================================================
# Timeouts that gain capacity
# =====================================================================================


def _eta1_support(X: Distribution, dep: Dependence) -> tuple[float, float]:
    lo, hi = X.support()
    if isinstance(dep, SX):
        slo, shi = dep.slowdown.support()
        return lo * slo, hi * shi
    return lo, hi


def _purely_atomic(D: Distribution) -> bool:
    return abs(sum(q for _, q in D.point_masses()) - 1.0) < 1e-9


def _eta1_atoms(X: Distribution, dep: Dependence) -> list[float]:
    """Atoms of the law of ``eta_1`` (where ``L`` jumps)."""
    if isinstance(dep, SX):
        if not _purely_atomic(X):
            return []
        S = dep.slowdown
        if not _purely_atomic(S):
            return []
        return sorted({x * s for x in X.atoms() for s in S.atoms()})
    return sorted(X.atoms()) if _purely_atomic(X) else []


def _grid(X: Distribution, dep: Dependence, points_per_decade: int) -> tuple[np.ndarray, list[float]]:
    """Log grid over the range of ``eta_1`` plus its atoms (and points just below them).

    From the lower end of the support (``1e-6 E[eta_1]`` when it is 0) to the upper
    end, or, for an unbounded support, to where ``P(eta_1 > tau) <= 1e-10``
    (at most ``1e13 E[eta_1]``)."""
    P = _pair(X, dep)
    m = P.mean_A()
    lo, hi = _eta1_support(X, dep)
    t_lo = lo if lo > 0 else 1e-6 * m
    if math.isfinite(hi):
        t_hi = hi
    else:
        # the tau where P(eta_1 > tau) = 1e-10: doubling, then bisection in log tau,
        # so that D(tau) there (~1e-10 (E[eta_2] - mean residual life)) is still
        # far above round-off
        t_hi = max(m, t_lo)
        while P.prob_A_exceeds(t_hi) > _TAIL and t_hi < 1e13 * m:
            t_hi *= 2.0
        if t_hi > max(m, t_lo):
            a, b = t_hi / 2.0, t_hi
            for _ in range(30):
                c = math.sqrt(a * b)
                if P.prob_A_exceeds(c) > _TAIL:
                    a = c
                else:
                    b = c
            t_hi = b
    n = max(3, int(math.ceil(math.log10(t_hi / t_lo) * points_per_decade)) + 1)
    pts = set(np.geomspace(t_lo, t_hi, n).tolist())
    atoms = _eta1_atoms(X, dep)
    for a in atoms:
        if a > 0:
            pts.update((a, a * (1.0 - 1e-9)))
    return np.array(sorted(p for p in pts if p > 0)), atoms


def _snap(x: float, atoms: list[float]) -> float:
    for a in atoms:
        if abs(x - a) <= 1e-7 * a:
            return a
    return x


def timeout_set(
    X: Distribution, dep: Dependence, resume: bool = False, points_per_decade: int = 16
) -> list[tuple[float, float]]:
    """The timeouts that gain capacity, ``{tau : L(tau) < 1}``, as a list of intervals.

    Theorem 2's set, found numerically: the sign of :func:`capacity_difference` on
    a log grid over the range of ``eta_1`` (:func:`_grid`), the ends of each
    negative run refined by Brent's method between grid points (at an atom of
    ``eta_1``, where ``L`` jumps, the end is the atom). An interval that starts at
    the grid's first point is reported from 0 when ``eta_1`` has support down to 0
    (from the support's lower end otherwise); one that is still open at the last
    grid point of an unbounded support (where ``P(eta_1 > tau) <= 1e-10``) is
    reported up to ``inf``. Endpoints only: whether an endpoint itself belongs to
    the set is not tracked (bimodal: the paper writes ``(s_m, p (s_M - s_m))``;
    here ``L(s_m) < 1`` too, because a job of size exactly ``s_m`` completes).
    Intervals narrower than the grid spacing can be missed.
    ``resume=True``: always empty on homogeneous servers.
    """
    if resume:
        return []
    from scipy.optimize import brentq  # lazy

    grid, atoms = _grid(X, dep, points_per_decade)
    m = _pair(X, dep).mean_A()
    tol = _REL_TOL * m

    def D(t: float) -> float:
        return capacity_difference(t, X, dep)

    def h(t: float) -> float:
        return D(t) + tol

    def root(a: float, b: float) -> float:
        # the root of D itself when D changes sign strictly (no bias from tol);
        # of the shifted h when D only reaches 0 (past the support, at an atom)
        da, db = D(a), D(b)
        f = D if da * db < 0 else h
        return _snap(brentq(f, a, b, xtol=1e-15 * b, rtol=1e-15, maxiter=200), atoms)

    vals = np.array([h(t) for t in grid])
    neg = vals < 0
    lo_supp, hi_supp = _eta1_support(X, dep)
    out: list[tuple[float, float]] = []
    i, n = 0, len(grid)
    while i < n:
        if not neg[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and neg[j + 1]:
            j += 1
        if i == 0:
            left = 0.0 if lo_supp <= 0 else float(grid[0])
        else:
            left = root(grid[i - 1], grid[i])
        if j == n - 1:
            right = math.inf if math.isinf(hi_supp) else float(grid[-1])
        else:
            right = root(grid[j], grid[j + 1])
        out.append((float(left), float(right)))
        i = j + 1
    return out


def timeout_set_closed_form(S: Distribution) -> list[tuple[float, float]]:
    """The paper's closed-form timeout sets for ``X = 1`` and i.i.d. slowdowns ``S``
    (section 5.1, the list after Theorem 3; docs: reference results, section 2):

    - bimodal ``S`` (``s_m`` w.p. ``p``, ``s_M > s_m`` w.p. ``1 - p``; a
      :class:`Discrete` with two values): ``(s_m, (s_M - s_m) p)``, empty when
      ``(s_M - s_m) p <= s_m``;
    - non-degenerate hyperexponential: ``(0, inf)``;
    - ``Pareto(alpha, s_m)``: ``(alpha s_m, inf)``;
    - Erlang ("more deterministic"): empty; also exponential (``L = 1``) and
      deterministic ``S``.

    Raises ``ValueError`` for other laws (use :func:`timeout_set`).
    """
    if isinstance(S, Discrete):
        pm = S.point_masses()
        if len(pm) == 1:
            return []
        if len(pm) == 2:
            (s_m, p), (s_M, _) = pm
            hi = (s_M - s_m) * p
            return [(s_m, hi)] if hi > s_m else []
    if isinstance(S, Hyperexponential):
        rates = {r for p, r in zip(S.p, S.rates) if p > 0}
        return [(0.0, math.inf)] if len(rates) > 1 else []
    if isinstance(S, Pareto):
        return [(S.alpha * S.xm, math.inf)]
    if isinstance(S, (Erlang, Exponential, Deterministic)):
        return []
    raise ValueError(
        f"no closed-form timeout set for {S.family}; allowed: bimodal discrete, "
        "hyperexponential, pareto, erlang, exponential, deterministic (use timeout_set)"
    )


# =====================================================================================
# Optimal timeout
# =====================================================================================


def _independent_eta1(X: Distribution, dep: Dependence) -> Distribution:
    """The law of ``eta_1`` when ``eta_1`` and ``eta_2`` are independent, else ValueError."""
    if isinstance(dep, IID):
        return X
    if isinstance(dep, SX) and _purely_atomic(X) and len(X.point_masses()) == 1:
        return dep.slowdown.scaled(X.point_masses()[0][0])
    raise ValueError(
        "the hazard-rate rule (Definition 2) needs eta_1 and eta_2 independent: "
        "dependence iid, or sx with a deterministic X"
    )


def hazard_rule_timeout(X: Distribution, dep: Dependence, points_per_decade: int = 16) -> float:
    """Definition 2 / Theorem 4 under independence: the timeout where the hazard
    rate of ``eta_1`` equals ``1 / E[eta_2]``.

    ``rho'(tau) = lam P(eta_1 > tau) (1 - h(tau) E[eta_2])`` when ``eta_2`` is
    independent of ``eta_1``, so local minima of the load are the crossings of
    ``h(tau) E[eta_2]`` from above 1 to below 1. Every such crossing on the grid
    of :func:`timeout_set` is refined by Brent's method; the one with the least
    ``L`` is returned if it gains capacity (``L < 1``), else ``inf`` (never time
    out). Under the paper's assumption of section 5.2 (the hazard (17) of
    ``eta_1`` non-increasing, i.e. log-convex ``P(eta_1 > t)``, and (18)
    non-decreasing, trivially so under independence) there is at most one crossing
    and it is the optimum (Theorem 4). Needs independence (``iid``, or ``sx`` with deterministic ``X``)
    and a density (``ValueError`` otherwise). Pareto(alpha, x_m) i.i.d.:
    ``tau* = alpha^2 x_m / (alpha - 1)``.
    """
    from scipy.optimize import brentq  # lazy

    eta1 = _independent_eta1(X, dep)
    if _purely_atomic(eta1):
        raise ValueError("the hazard-rate rule needs a density; eta_1 is atomic (use optimal_timeout)")
    e2 = eta1.mean()
    grid, _ = _grid(X, dep, points_per_decade)

    def g(t: float) -> float:
        return float(eta1.hazard(t)) * e2 - 1.0

    vals = np.array([g(t) for t in grid])
    best_tau, best_L = math.inf, 1.0
    for i in range(len(grid) - 1):
        if vals[i] > 0.0 and vals[i + 1] < 0.0:
            t = brentq(g, grid[i], grid[i + 1], xtol=1e-15 * grid[i + 1], rtol=1e-15, maxiter=200)
            L = load_ratio(t, X, dep)
            if L < best_L:
                best_tau, best_L = float(t), L
    return best_tau if best_L < 1.0 - _REL_TOL else math.inf


@dataclass(frozen=True)
class OptimalTimeout:
    """The timeout that minimises the load and the load ratio there."""

    tau: float
    """``inf`` when no timeout reduces the load (never time out)."""
    L: float
    method: str


def optimal_timeout(
    X: Distribution, dep: Dependence, resume: bool = False, points_per_decade: int = 16, cancel_delay: float = 0.0
) -> OptimalTimeout:
    """The timeout that minimises ``rho(tau)``, i.e. maximises the stability region
    (Definition 2 and Theorem 4 of the paper; ``tau: opt``, docs/background/contracts.md).

    Direct numerical minimisation of :func:`load_ratio`, robust for any dependence:
    ``L`` on the grid of :func:`timeout_set` (atoms of ``eta_1`` included, where
    ``L`` jumps down), then a bounded Brent search around the best grid point; the
    best of these and ``tau = inf`` (``L = 1``) wins. So ``tau = inf`` whenever no
    timeout gains capacity (identical replicas, Erlang, exponential, resume).
    Under independence and a density this agrees with :func:`hazard_rule_timeout`.
    ``cancel_delay`` > 0: the load counts the killed run's held server
    (:func:`expected_work`).
    """
    if resume:
        return OptimalTimeout(math.inf, 1.0, "resume: L(tau) = 1 on homogeneous servers")
    from scipy.optimize import minimize_scalar  # lazy

    grid, atoms = _grid(X, dep, points_per_decade)
    vals = load_ratio_curve(grid, X, dep, cancel_delay=cancel_delay)
    i = int(np.argmin(vals))
    best_tau, best_L = float(grid[i]), float(vals[i])
    a = float(grid[max(i - 1, 0)])
    b = float(grid[min(i + 1, len(grid) - 1)])
    if b > a:
        res = minimize_scalar(
            lambda t: load_ratio(t, X, dep, cancel_delay=cancel_delay),
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-12 * b, "maxiter": 500},
        )
        if res.fun < best_L:
            best_tau, best_L = float(res.x), float(res.fun)
    for at in atoms:  # L jumps down at an atom: the value at the atom itself
        if a <= at <= b:
            v = load_ratio(at, X, dep, cancel_delay=cancel_delay)
            if v <= best_L:
                best_tau, best_L = at, v
    if not best_L < 1.0 - _REL_TOL:
        return OptimalTimeout(math.inf, 1.0, "no timeout reduces the load")
    return OptimalTimeout(best_tau, best_L, "numerical minimisation of L")


# =====================================================================================
# Stability bound and latency of SLB on N homogeneous queues
# =====================================================================================


@dataclass(frozen=True)
class SpeculationBound:
    """Stability bound of speculative load balancing (SLB = Rer on single servers)."""

    rate: float
    """Largest total job arrival rate."""
    load: float
    """The same in load units ``lam E[eta_1] / N``: ``1 / L(tau)``."""
    tau: float
    L: float
    kind: str
    note: str = ""


def stability_bound(
    X: Distribution,
    dep: Dependence,
    N: int,
    tau="opt",
    resume: bool = False,
    discipline: str = "FCFS",
    cancel_delay: float = 0.0,
) -> SpeculationBound:
    """``lambda_max`` of SLB on ``N`` homogeneous unit-speed queues with random
    dispatch and random re-routing, at the timeout ``tau`` (a number, ``inf``, or
    ``"opt"`` for :func:`optimal_timeout`).

    Stable iff the per-queue load ``lam E[B(tau)] / N < 1`` with
    ``E[B(tau)] = E[min(eta_1, tau)] + E[eta_2 1{eta_1 > tau}]``, so
    ``rate = N / E[B(tau)]`` and ``load = 1 / L(tau)``.

    Kind: Theorem 1 proves sufficiency (positive Harris recurrence) for
    work-conserving head-of-the-line disciplines such as FCFS, and ``rho > 1``
    makes a work-conserving queue unstable, hence ``exact`` for ``FCFS``. The
    theorem excludes PS (the authors believe it extends, section 3), hence
    ``necessary`` for ``PS``. Theorem 1 also assumes ``P(eta_1 <= tau) > 0``; a
    timeout below the support of ``eta_1`` is flagged in ``note``. ``cancel_delay``
    c > 0 with a timeout that may fire: the work carries c (:func:`expected_work`)
    and the kind is ``necessary`` (module docstring: Theorem 1 does not cover a killed
    run that keeps its server after its job moved on).
    """
    if isinstance(tau, str):
        if tau != "opt":
            raise ValueError(f"tau must be a number >= 0, inf or 'opt', got {tau!r}")
        opt = optimal_timeout(X, dep, resume, cancel_delay=cancel_delay)
        t, L = opt.tau, opt.L
    else:
        t = _tau(tau)
        L = load_ratio(t, X, dep, resume, cancel_delay)
    if discipline not in ("FCFS", "PS"):
        raise ValueError(f"discipline must be FCFS or PS, got {discipline!r}")
    work = expected_work(t, X, dep, resume, cancel_delay)
    rate = N / work
    kind = "exact" if discipline == "FCFS" else "necessary"
    note = (
        "Theorem 1 (HOL disciplines)"
        if discipline == "FCFS"
        else ("Theorem 1 excludes PS; the work condition is necessary")
    )
    if cancel_delay > 0.0 and _pair(X, dep).prob_A_exceeds(t) > 0.0:
        kind = "necessary"
        note = (
            "the load with the killed run's server held cancel_delay longer; necessary (work), "
            "Theorem 1 does not cover a killed run that keeps its server after its job moved on"
        )
    if t < _eta1_support(X, dep)[0]:
        note += "; tau below the support of eta_1 violates Theorem 1's P(eta_1 <= tau) > 0"
    return SpeculationBound(rate=rate, load=1.0 / L, tau=t, L=L, kind=kind, note=note)


def latency_approx(
    lam: float, tau: float, X: Distribution, dep: Dependence, N: int, resume: bool = False, cancel_delay: float = 0.0
) -> float:
    """Mean response time of SLB on ``N`` homogeneous FCFS queues: an approximation.

    Not a result of the speculation paper (its section 6 states a conjecture that
    the text available here does not show). This is the Pollaczek-Khinchine
    decomposition that the threshold paper uses for rerouting (its Section 6; docs:
    reference results, section 1), applied to ``N`` queues with random dispatch and
    re-routing: each queue is treated as M/G/1 with Poisson visits (first runs at
    rate ``lam/N`` and re-routed runs at rate ``lam P(eta_1 > tau) / N``),

        W    = (lam/N) (E[min(eta_1,tau)^2] + E[eta_2^2 1{eta_1>tau}]) / (2 (1 - rho))
        E[T] = W + E[min(eta_1,tau)] + P(eta_1 > tau) W + E[eta_2 1{eta_1 > tau}].

    Exact for ``tau = inf`` (random dispatch, M/G/1 per queue); ``inf`` when
    ``rho >= 1`` or a second moment is infinite. Kind ``approximation``.

    ``cancel_delay`` c > 0: a killed run occupies its queue ``min(eta_1, tau) + c``,
    so ``rho`` carries c (:func:`expected_work`) and the first run's second moment
    gains ``(2 tau c + c^2) P(eta_1 > tau)``; the job's own time does not (it moves on
    at the kill).
    """
    t = _tau(tau)
    P = _pair(X, dep)
    rho = lam * expected_work(t, X, dep, resume, cancel_delay) / N
    if rho >= 1.0:
        return math.inf
    if math.isinf(t):
        return queues.mg1_fcfs_response_time(lam / N, P.mean_A(), P.second_A())
    m1 = P.mean_min_A(t)
    s1 = P.second_min_A(t)
    p_out = P.prob_A_exceeds(t)
    if resume:
        excess = max(P.mean_A() - m1, 0.0)
        m2_out = excess
        s2_out = max(P.second_A() - s1 - 2.0 * t * excess, 0.0)
    else:
        m2_out = P.mean_A_B_exceeds(t)
        s2_out = P.second_A_B_exceeds(t)
    if math.isinf(s1) or math.isinf(s2_out):
        return math.inf
    if cancel_delay > 0.0:
        s1 += (2.0 * t * cancel_delay + cancel_delay**2) * p_out
    w = (lam / N) * (s1 + s2_out) / (2.0 * (1.0 - rho))
    return w + m1 + p_out * w + m2_out
