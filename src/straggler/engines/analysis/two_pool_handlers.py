"""The analyses of the threshold paper's two-pool policies: ZRed, KT, FRed, Rer, Rep, KS."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...model.cell_model import CellModel
from ...model.two_pools import Bound, assignment_fractions, belief_matrix, optimal_assignment_no_redundancy
from . import known_sizes, queues, threshold, threshold_search
from .cancel_delay import vouch
from .cell_setting import pools_of
from .notes import Time
from .result import AnalyticResult
from .single_copy import CentralQueue, central_latency, homogeneous_single_copy


def analyze_zero_redundancy(model: CellModel, knowledge: str | None = None) -> AnalyticResult:
    """ZRed (the system's type knowledge) and KT (known types): eq. 5 with the
    assignment that maximises the stability bound (a linear programme)."""
    system = model.system
    if system is None:
        return homogeneous_single_copy(model)
    if knowledge is not None:
        J = system.n_types
        system = replace(system, belief=belief_matrix(knowledge, J))
    bound = optimal_assignment_no_redundancy(system, model.size, model.dependence)
    alpha = assignment_fractions(system, bound.q)
    result = _from_work(model, system, bound, kind="exact")
    result.q_opt = float(np.dot(system.p, alpha[0]))
    result.alpha = alpha
    if model.queueing == "per_server":
        result.latency_approx = np.array([_random_dispatch_latency(model, system, alpha, lam) for lam in model.rates()])
        result.latency_approx_kind = "exact"
    else:
        central_latency(model, result, _pool_queues(model, system, alpha))
    return result


def _pool_queues(model: CellModel, system, alpha) -> list[CentralQueue]:
    """Each pool's central queue: pool i receives the share ``sum_j p_j alpha_ij`` of the
    arrivals (Poisson, by thinning), a type-j job of it with probability proportional to
    ``p_j alpha_ij``, served at speed ``r_ij``."""
    p = np.asarray(system.p)
    out = []
    for i in range(2):
        weights = p * alpha[i]
        classes = [(weights[j], model.size.of_type(j), system.speeds[i][j]) for j in range(system.n_types)]
        share = float(weights.sum())
        if share > 0:
            out.append(CentralQueue.of(f"pool {i + 1}", system.n[i], share, classes, model.dependence))
    return out


def analyze_known_types(model: CellModel) -> AnalyticResult:
    """KT: ZRed with the job types known to the dispatcher (:func:`analyze_zero_redundancy`)."""
    return analyze_zero_redundancy(model, knowledge="known")


def _single_server_pools(model: CellModel) -> bool:
    """One server per pool (the threshold paper's Section 6 setting): per-server and
    central queueing are then the same system."""
    return model.system is not None and tuple(model.system.n) == (1, 1)


def analyze_full_redundancy(model: CellModel) -> AnalyticResult:
    """FRed: eq. 6. The paper proves the load condition necessary and conjectures
    it sufficient (Section 3), hence the kind ``necessary``; see
    :func:`_as_full_redundancy` for one server per pool (a single queue, exact)."""
    system = pools_of(model)
    bound = threshold.full_redundancy_bound(system, model.size, model.dependence, model.cancel_delay)
    kind = _replication_kind(model)
    result = _from_work(model, system, bound, kind=kind, cost_kind=_cost_kind(kind))
    if model.cancel_delay > 0.0:
        _race_with_cancel_delay_note(model, result)
    elif result.lambda_max_kind == "approximate":
        result.add_note(
            "per-server queues: the two copies do not start together, so eq. 6 (central "
            "queues, simultaneous service) is an approximation here",
            about=("lambda_max", "cost"),
        )
    return _as_full_redundancy(model, result)


def _as_full_redundancy(model: CellModel, result: AnalyticResult) -> AnalyticResult:
    """FRed, and Rep with thresholds (0, 0), which the threshold paper calls full
    redundancy (Section 2): one system, one set of values and kinds.

    With one server per pool every job holds both servers from its start to its
    first completion (FRed: both copies join the two FIFO queues, which therefore
    empty together; Rep at tau = 0: a job that starts is replicated at once, with
    priority, so at most one job is in service), so the system is a single M/G/1
    queue whose service is ``M = min(X_1 / r_1j, X_2 / r_2j)``: stable iff
    ``lam E[M] < 1`` (eq. 6 with n_1 = n_2 = 1, exact), cost ``2 E[M]`` (exact) and,
    FCFS, the threshold paper's Section 6 latency at tau = 0,
    ``E[T] = E[M] + lam E[M^2] / (2 (1 - lam E[M]))``, exact there ("the Poisson
    assumption is exact in the extreme cases of tau = 0"); PS: ``E[M] / (1 - lam E[M])``
    (M/G/1-PS). Larger pools: the paper's kinds (:func:`_replication_kind`), and its
    Section 6 latency needs one server per pool.

    With a cancellation delay the loser's server is held after the job has left, so the
    copies of the next job no longer start together: none of the above is exact, and
    the result keeps the (approximate) loads only.
    """
    if model.cancel_delay > 0.0:
        result.add_note(
            "latency_approx is NaN: with cancel_delay > 0 the losing copy holds its server after the job "
            "left, so a job's two copies no longer start together (not a single M/G/1 queue, nor Section 6's)",
            about="latency_approx",
        )
        return vouch(result, ("lambda_max", "cost"))
    if not _single_server_pools(model):
        result.add_note(
            "latency_approx is NaN: the threshold paper's latency approximation (Section 6) needs one server per pool",
            about="latency_approx",
        )
        return result
    system, X, dep = pools_of(model), model.size, model.dependence
    result.lambda_max_kind = "exact"
    result.lambda_sufficient = result.lambda_max
    result.cost_kind = "exact"
    alpha = result.alpha if result.alpha is not None else assignment_fractions(system, [0.5] * len(system.belief[0]))
    if model.discipline == "FCFS":
        result.latency_approx = np.asarray(
            threshold.latency_replication(system, X, dep, alpha, (0.0, 0.0), model.rates()), dtype=float
        )
    else:
        m = float(threshold.expected_work_full_redundancy(system, X, dep)[0])
        result.latency_approx = np.array([queues.mg1_response(lam, m, math.nan, m, "PS") for lam in model.rates()])
    result.latency_approx_kind = "exact"
    result.add_note(
        "full redundancy on one server per pool: a single M/G/1 queue with "
        "service min(X_1/r_1j, X_2/r_2j) (threshold paper, eq. 6 and Section 6 "
        "at tau = 0): stability, cost and latency exact",
        about=("lambda_max", "cost", "latency_approx"),
    )
    return result


def _replication_kind(model: CellModel) -> str:
    """Replicas in both pools run simultaneously in the threshold paper's model (one
    central queue per pool, preemptive-resume priority for replicated jobs). On
    per-server FCFS queues with more than one server in a pool a job's two copies
    start at different times, so the work per pool differs from eqs. 4 and 6: the
    bound is then an approximation. With one server per pool the two queueings are
    the same system. A cancellation delay breaks the simultaneous service in every
    queueing (a losing copy holds its server after the job left): approximate."""
    if model.cancel_delay > 0.0:
        return "approximate"
    if model.queueing == "central" or _single_server_pools(model):
        return "necessary"
    return "approximate"


def _race_with_cancel_delay_note(model: CellModel, result: AnalyticResult) -> None:
    """Why Rep's and FRed's loads are approximations with a cancellation delay."""
    result.add_note(
        "cancel_delay {c}: the losing copy (with work left) keeps its server that long, counted in the work "
        "per pool; eqs. 4 and 6 assume the two copies race in simultaneous service, which a server held by a "
        "cancelled copy breaks, so lambda_max and the cost are approximations",
        about=("lambda_max", "cost"),
        c=Time(model.cancel_delay),
    )


def _cost_kind(replication_kind: str) -> str:
    """The threshold paper's work per pool is exact in its own model (central
    queues; checked against simulation at 90 % of the bound) and an approximation
    on per-server queues, like its stability bound."""
    return "approximation" if replication_kind == "approximate" else "exact"


def threshold_policy(model: CellModel, policy: str) -> AnalyticResult:
    """Rer (Prop. 1) and Rep (Prop. 2) with the threshold of the config, or with the
    (q, tau) that maximise the stability bound when ``tau: opt``. The paper shows
    the load condition necessary and conjectures it sufficient (Section 3).
    Rep whose thresholds are both 0 (given, or chosen by the optimisation) is full
    redundancy (the paper's Section 2), with FRed's values and kinds
    (:func:`_as_full_redundancy`)."""
    system, c = pools_of(model), model.cancel_delay
    tau = model.params.get("tau", "opt")
    if tau == "opt":
        optimise = (
            threshold_search.optimal_rerouting if policy == "rerouting" else (threshold_search.optimal_replication)
        )
        bound = optimise(system, model.size, model.dependence, c)
    else:
        bound = threshold_search.bound_at_threshold(system, model.size, model.dependence, policy, tau, c)
    kind = "necessary" if policy == "rerouting" else _replication_kind(model)
    result = _from_work(
        model, system, bound, kind=kind, cost_kind="exact" if policy == "rerouting" else _cost_kind(kind)
    )
    if c > 0.0:
        vouch(result, ("lambda_max", "cost", "latency_approx"))
        if policy == "rerouting":
            result.add_note(
                "cancel_delay {c}: a run killed at its threshold keeps its server that long, counted in the "
                "work per pool (Prop. 1's accounting is pathwise: the load condition stays necessary) and in "
                "the latency approximation's moments",
                about=("lambda_max", "cost"),
                c=Time(c),
            )
        else:
            _race_with_cancel_delay_note(model, result)
    elif kind == "approximate":
        result.add_note(
            "per-server queues: a job's replicas do not start together, so the threshold "
            "paper's work per pool (central queues with priority) is an approximation here",
            about=("lambda_max", "cost"),
        )
    result.tau_opt = bound.tau[0]
    result.tau_opt_pool2 = bound.tau[1]
    alpha = assignment_fractions(system, bound.q)
    result.alpha = alpha
    result.q_opt = float(np.dot(system.p, alpha[0]))
    if policy == "replication" and bound.tau[0] == 0.0 and bound.tau[1] == 0.0:
        return _as_full_redundancy(model, result)
    if _single_server_pools(model) and model.discipline == "FCFS":
        latency = threshold.latency_rerouting if policy == "rerouting" else (threshold.latency_replication)
        result.latency_approx = np.asarray(
            latency(system, model.size, model.dependence, alpha, bound.tau, model.rates(), c),
            dtype=float,
        )
        result.latency_approx_kind = "approximation"
    else:
        result.add_note(
            "latency_approx is NaN: the latency approximation of the threshold paper "
            "(Section 6) needs one FCFS server per pool",
            about="latency_approx",
        )
    return result


def analyze_replication(model: CellModel) -> AnalyticResult:
    """Rep: the threshold paper's replication (:func:`threshold_policy`)."""
    return threshold_policy(model, "replication")


def analyze_known_sizes(model: CellModel) -> AnalyticResult:
    """KS: size-aware rerouting or replication (Props. 3-4), the larger bound, computed
    exactly through LP duality over the rational thresholds (Lemma 1, Remark 2)."""
    system = pools_of(model)
    bound = known_sizes.known_sizes_bound(system, model.size, model.dependence)
    per_server = 1.0 / bound.rate
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(bound.rate),
        lambda_max_kind="necessary",
        rho=model.rates() * per_server,
    )
    result.add_note(f"KS bound attained by size-aware {bound.policy}", about="lambda_max")
    if 0.0 < bound.weight < 1.0:
        # an interior optimal dual weight saturates both pools (complementary
        # slackness): E[B_i] / n_i = 1 / lambda_max for i = 1, 2, so the server time
        # per job of the optimal size-aware policy is sum_i E[B_i] = N / lambda_max
        result.cost = system.servers / bound.rate
        result.cost_kind = "exact"
    else:
        result.add_note(
            "cost is NaN: KS has one pool not saturated at the optimum, so "
            "the dual does not give the optimal policy's cost",
            about="cost",
        )
    return result


def _from_work(model, system, bound: Bound, kind: str, cost_kind: str = "exact") -> AnalyticResult:
    per_server = max(bound.work[0] / system.n[0], bound.work[1] / system.n[1])
    return AnalyticResult(
        model.loads,
        lambda_max=model.to_load(bound.rate),
        lambda_max_kind=kind,
        q_opt=bound.q[0] if len(bound.q) == 1 else math.nan,
        rho=model.rates() * per_server,
        cost=float(sum(bound.work)),
        cost_kind=cost_kind,
    )


def _random_dispatch_latency(model, system, alpha, lam: float) -> float:
    """Exact mean response time of random dispatch to per-server queues.

    By Poisson thinning each server of pool i is an M/G/1 queue with rate
    lambda sum_j p_j alpha_ij / n_i and a service time that is X_i / r_ij (X the type's
    own law when each type has one) with probability proportional to p_j alpha_ij; Pollaczek-Khinchine (FCFS) or the
    M/G/1-PS slowdown 1 / (1 - rho) gives each type's response time.
    """
    moments = [model.dependence.replica_marginal_moments(model.size.of_type(j)) for j in range(system.n_types)]
    m1, m2 = (np.array(m) for m in zip(*moments))
    p = np.asarray(system.p)
    r = np.asarray(system.speeds)
    total = 0.0
    for i in range(2):
        weights = p * alpha[i]
        share = weights.sum()
        if share <= 0:
            continue
        lam_i = lam * share / system.n[i]
        used = weights > 0  # 0 * inf (an infinite second moment) must not become nan
        s1 = float(np.dot(weights[used], m1[used] / r[i][used]) / share)
        s2 = float(np.dot(weights[used], m2[used] / r[i][used] ** 2) / share)
        for j in range(system.n_types):
            if weights[j] > 0:
                total += weights[j] * queues.mg1_response(lam_i, s1, s2, m1[j] / r[i][j], model.discipline)
    return total
