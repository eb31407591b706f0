"""The analytic answers for one grid cell, whatever its policy.

Each policy maps to the best result that theory gives, with its kind
(``lambda_max_kind``: exact, necessary, sufficient, conjectured, approximate;
``latency_approx_kind``: exact, approximation, upper_bound, lower_bound). A policy
whose analysis is not implemented yet returns NaN with a note that says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..model import CellModel
from . import queues, threshold


@dataclass
class AnalyticResult:
    loads: np.ndarray
    lambda_max: float = math.nan
    lambda_max_kind: str = ""
    tau_opt: float = math.nan
    q_opt: float = math.nan
    rho: np.ndarray | None = None
    cost: float = math.nan
    latency_approx: np.ndarray | None = None
    latency_approx_kind: str = ""
    tau_opt_pool2: float = math.nan
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        nan = np.full(len(self.loads), math.nan)
        if self.rho is None:
            self.rho = nan.copy()
        if self.latency_approx is None:
            self.latency_approx = nan.copy()


def analyze(model: CellModel) -> AnalyticResult:
    handler = _HANDLERS.get(model.policy)
    if handler is None:
        result = AnalyticResult(model.loads)
        result.notes.append(f"no analysis of {model.policy} yet")
        return result
    result = handler(model)
    _explain_infinite_latency(model, result)
    return result


def _explain_infinite_latency(model: CellModel, result: AnalyticResult) -> None:
    """Say why a latency is +inf (it is a value, not an error)."""
    infinite = np.isinf(result.latency_approx)
    if not infinite.any():
        return
    _, m2 = model.dependence.replica_marginal_moments(model.size)
    if math.isinf(m2):
        result.notes.append(
            "latency_approx is +inf: the replica size has an infinite second moment, so the "
            "Pollaczek-Khinchine waiting time is infinite"
        )
    overloaded = model.loads[infinite & (result.rho >= 1.0)]
    if overloaded.size:
        result.notes.append(
            f"latency_approx is +inf at loads {overloaded.tolist()}: rho >= 1 (unstable)"
        )


def _zero_redundancy(model: CellModel, knowledge: str | None = None) -> AnalyticResult:
    """ZRed (the system's type knowledge) and KT (known types): eq. 5 with the
    assignment that maximises the stability bound (a linear programme)."""
    system = model.system
    if system is None:
        return _homogeneous_single_copy(model)
    if knowledge is not None:
        J = system.n_types
        system = replace(system, belief=threshold.belief_matrix(knowledge, J))
    bound = threshold.optimal_assignment_no_redundancy(system, model.size, model.dependence)
    alpha = threshold.assignment_fractions(system, bound.q)
    result = _from_work(model, system, bound, kind="exact")
    result.q_opt = float(np.dot(system.p, alpha[0]))
    if model.queueing == "per_server":
        result.latency_approx = np.array(
            [_random_dispatch_latency(model, system, alpha, lam) for lam in model.rates()]
        )
        result.latency_approx_kind = "exact"
    return result


def _full_redundancy(model: CellModel) -> AnalyticResult:
    """FRed: eq. 6. The paper proves the load condition necessary and conjectures
    it sufficient (Section 3), hence the kind ``necessary``."""
    bound = threshold.full_redundancy_bound(model.system, model.size, model.dependence)
    return _from_work(model, model.system, bound, kind="necessary")


def _threshold_policy(model: CellModel, policy: str) -> AnalyticResult:
    """Rer (Prop. 1) and Rep (Prop. 2) with the threshold of the config, or with the
    (q, tau) that maximise the stability bound when ``tau: opt``. The paper shows
    the load condition necessary and conjectures it sufficient (Section 3)."""
    system = model.system
    tau = model.params.get("tau", "opt")
    if tau == "opt":
        optimise = threshold.optimal_rerouting if policy == "rerouting" else (
            threshold.optimal_replication)
        bound = optimise(system, model.size, model.dependence)
    else:
        bound = threshold.bound_at_threshold(system, model.size, model.dependence, policy, tau)
    result = _from_work(model, system, bound, kind="necessary")
    result.tau_opt = bound.tau[0]
    result.tau_opt_pool2 = bound.tau[1]
    alpha = threshold.assignment_fractions(system, bound.q)
    result.q_opt = float(np.dot(system.p, alpha[0]))
    if system.n == (1, 1) and model.discipline == "FCFS" and model.queueing == "per_server":
        latency = threshold.latency_rerouting if policy == "rerouting" else (
            threshold.latency_replication)
        result.latency_approx = np.asarray(
            latency(system, model.size, model.dependence, alpha, bound.tau, model.rates()),
            dtype=float,
        )
        result.latency_approx_kind = "approximation"
    else:
        result.notes.append(
            "the latency approximation of the threshold paper (Section 6) needs one FCFS "
            "server per pool"
        )
    return result


def _known_sizes(model: CellModel) -> AnalyticResult:
    """KS: size-aware rerouting or replication (Props. 3-4), the larger bound, computed
    exactly through LP duality over the rational thresholds (Lemma 1, Remark 2)."""
    system = model.system
    bound = threshold.known_sizes_bound(system, model.size, model.dependence)
    per_server = 1.0 / bound.rate
    result = AnalyticResult(
        model.loads,
        lambda_max=threshold.to_load_units(bound.rate, model.size, model.dependence, model.N),
        lambda_max_kind="necessary",
        rho=model.rates() * per_server,
    )
    result.notes.append(f"KS bound attained by size-aware {bound.policy}")
    return result


def _from_work(model, system, bound: threshold.Bound, kind: str) -> AnalyticResult:
    per_server = max(bound.work[0] / system.n[0], bound.work[1] / system.n[1])
    return AnalyticResult(
        model.loads,
        lambda_max=threshold.to_load_units(bound.rate, model.size, model.dependence, model.N),
        lambda_max_kind=kind,
        q_opt=bound.q[0] if len(bound.q) == 1 else math.nan,
        rho=model.rates() * per_server,
        cost=float(sum(bound.work)),
    )


def _homogeneous_single_copy(model: CellModel) -> AnalyticResult:
    """One copy on a random one of N identical servers: N M/G/1 queues."""
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    rates = model.rates()
    result = AnalyticResult(model.loads, lambda_max=1.0, lambda_max_kind="exact",
                            rho=rates * m1 / model.N, cost=m1)
    if model.queueing == "per_server":
        result.latency_approx = np.array(
            [_mg1_response(lam / model.N, m1, m2, m1, model.discipline) for lam in rates]
        )
        result.latency_approx_kind = "exact"
    return result


def _mg1_response(lam: float, m1: float, m2: float, job_mean: float, discipline: str) -> float:
    """Mean response time of a job with mean size ``job_mean`` at an M/G/1 station
    whose service times have moments (m1, m2)."""
    if discipline == "PS":
        return job_mean * queues.mg1_ps_slowdown(lam, m1)
    return job_mean + queues.mg1_waiting_time(lam, m1, m2)


def _random_dispatch_latency(model, system, alpha, lam: float) -> float:
    """Exact mean response time of random dispatch to per-server queues.

    By Poisson thinning each server of pool i is an M/G/1 queue with rate
    lambda sum_j p_j alpha_ij / n_i and a service time that is X_i / r_ij with
    probability proportional to p_j alpha_ij; Pollaczek-Khinchine (FCFS) or the
    M/G/1-PS slowdown 1 / (1 - rho) gives each type's response time.
    """
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    p = np.asarray(system.p)
    r = np.asarray(system.speeds)
    total = 0.0
    for i in range(2):
        weights = p * alpha[i]
        share = weights.sum()
        if share <= 0:
            continue
        lam_i = lam * share / system.n[i]
        s1 = float(np.dot(weights, m1 / r[i]) / share)
        s2 = float(np.dot(weights, m2 / r[i] ** 2) / share)
        for j in range(system.n_types):
            if weights[j] > 0:
                total += weights[j] * _mg1_response(lam_i, s1, s2, m1 / r[i][j], model.discipline)
    return total


_HANDLERS = {
    "ZRed": _zero_redundancy,
    "KT": lambda model: _zero_redundancy(model, knowledge="known"),
    "FRed": _full_redundancy,
    "Rer": lambda model: _threshold_policy(model, "rerouting"),
    "Rep": lambda model: _threshold_policy(model, "replication"),
    "KS": _known_sizes,
}
