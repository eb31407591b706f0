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

from ..dependence import IID, SX
from ..model import CellModel
from . import forkjoin, queues, redundancy_ps, speculation, threshold


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
    alpha: np.ndarray | None = None
    """alpha[i, j]: fraction of type-j jobs first sent to pool i, as chosen by the
    analysis (the simulation uses the same assignment)."""
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
    if model.load_basis != "nominal":
        return _in_basis(model, handler)
    result = handler(model)
    _explain_infinite_latency(model, result)
    return result


def _in_basis(model: CellModel, handler) -> AnalyticResult:
    """Run ``handler`` in nominal units and express its load-valued answers in the
    model's basis: the handlers (and their papers' formulas) all speak nominal load.

    Only ``lambda_max`` is a load; ``rho`` (busiest server's utilisation), latencies
    and costs are per arrival rate, which is the same in both bases.
    """
    nominal = replace(model, loads=model.nominal_loads, load_basis="nominal")
    result = handler(nominal)
    _explain_infinite_latency(nominal, result)
    result.loads = model.loads
    result.lambda_max = result.lambda_max * model.load_factor
    result.notes = [note.replace(" at loads ", " at nominal loads ") for note in result.notes]
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
    result.alpha = alpha
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
    result = _from_work(model, model.system, bound, kind=_replication_kind(model))
    if result.lambda_max_kind == "approximate":
        result.notes.append(
            "per-server queues: the two copies do not start together, so eq. 6 (central "
            "queues, simultaneous service) is an approximation here"
        )
    return result


def _replication_kind(model: CellModel) -> str:
    """Replicas in both pools run simultaneously in the threshold paper's model (one
    central queue per pool, preemptive-resume priority for replicated jobs). On
    per-server FCFS queues a job's two copies start at different times, so the
    work per pool differs from eqs. 4 and 6: the bound is then an approximation."""
    if model.queueing == "central":
        return "necessary"
    return "approximate"


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
    kind = "necessary" if policy == "rerouting" else _replication_kind(model)
    result = _from_work(model, system, bound, kind=kind)
    if kind == "approximate":
        result.notes.append(
            "per-server queues: a job's replicas do not start together, so the threshold "
            "paper's work per pool (central queues with priority) is an approximation here"
        )
    result.tau_opt = bound.tau[0]
    result.tau_opt_pool2 = bound.tau[1]
    alpha = threshold.assignment_fractions(system, bound.q)
    result.alpha = alpha
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
    if 0.0 < bound.weight < 1.0:
        # an interior optimal dual weight saturates both pools (complementary
        # slackness): E[B_i] / n_i = 1 / lambda_max for i = 1, 2, so the server time
        # per job of the optimal size-aware policy is sum_i E[B_i] = N / lambda_max
        result.cost = system.servers / bound.rate
    else:
        result.notes.append("KS: one pool is not saturated at the optimum, so the dual "
                            "does not give the optimal policy's cost")
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
        used = weights > 0  # 0 * inf (an infinite second moment) must not become nan
        s1 = float(np.dot(weights[used], m1 / r[i][used]) / share)
        s2 = float(np.dot(weights[used], m2 / r[i][used] ** 2) / share)
        for j in range(system.n_types):
            if weights[j] > 0:
                total += weights[j] * _mg1_response(lam_i, s1, s2, m1 / r[i][j], model.discipline)
    return total


def _homogeneous(model: CellModel) -> bool:
    """All servers run every job at speed 1: the model of the speculation,
    PS-redundancy and fork-join papers."""
    if model.system is None:
        return True
    return all(r == 1.0 for row in model.system.speeds for r in row)


def _needs_homogeneous(model: CellModel, source: str) -> AnalyticResult | None:
    if _homogeneous(model):
        return None
    result = AnalyticResult(model.loads)
    result.notes.append(
        f"no analysis of {model.policy} with job-server affinity (r_slow < 1): {source} "
        "assumes identical servers"
    )
    return result


def _per_load(model: CellModel, fn) -> np.ndarray:
    return np.array([fn(lam) for lam in model.rates()], dtype=float)


def _rerouting(model: CellModel) -> AnalyticResult:
    """Rer: on identical servers the speculation paper's SLB (Theorems 1-2 and 4);
    with affinity the threshold paper's rerouting."""
    if not _homogeneous(model):
        if model.params.get("resume"):
            result = AnalyticResult(model.loads)
            result.notes.append("the threshold paper analyses kill-and-restart only "
                                "(Rer resume: true needs r_slow = 1)")
            return result
        return _threshold_policy(model, "rerouting")
    X, dep, N = model.size, model.dependence, model.N
    resume = bool(model.params.get("resume", False))
    bound = speculation.stability_bound(X, dep, N, tau=model.params.get("tau", "opt"),
                                        resume=resume, discipline=model.discipline)
    result = AnalyticResult(
        model.loads, lambda_max=bound.load, lambda_max_kind=bound.kind, tau_opt=bound.tau,
        cost=speculation.expected_work(bound.tau, X, dep, resume),
    )
    result.rho = model.loads / bound.load
    result.notes.append(f"speculation paper: {bound.note}")
    if model.discipline == "FCFS" and model.queueing == "per_server":
        result.latency_approx = _per_load(
            model, lambda lam: speculation.latency_approx(lam, bound.tau, X, dep, N, resume))
        result.latency_approx_kind = "approximation"
    return result


def _cancel_on_complete(model: CellModel) -> AnalyticResult:
    """CoC: redundancy-d with PS (PS paper), or with FCFS the (N,1) fork-join queue
    when d = N (fork-join paper, section 5.1) and the mean-field result for i.i.d.
    exponential replicas (Gardner et al. 2017, REFERENCES.md section 5)."""
    refused = _needs_homogeneous(model, "redundancy-d analysis")
    if refused:
        return refused
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    if model.params.get("ps_bound") not in (None, "none"):
        result = AnalyticResult(model.loads)
        result.notes.append("the PS bound systems are simulated only")
        return result
    if model.discipline == "PS":
        bound = redundancy_ps.stability_bound(X, dep, N, d)
        result = AnalyticResult(model.loads, lambda_max=bound.load, lambda_max_kind=bound.kind)
        result.rho = model.loads / bound.load
        kinds = set()

        def latency(lam):
            value, kind = redundancy_ps.latency(lam, X, dep, N, d)
            kinds.add(kind)
            return value

        result.latency_approx = _per_load(model, latency)
        result.latency_approx_kind = kinds.pop() if len(kinds) == 1 else ""
        result.notes.append(f"PS paper: {bound.note}; server time per job under PS not given")
        return result
    if d == 1:
        return _homogeneous_single_copy(model)  # one copy on a random server: M/G/1 each
    if d == N:
        rate = 1.0 / forkjoin.replica_min_moment(X, dep, N, 1)
        result = AnalyticResult(
            model.loads, lambda_max=threshold.to_load_units(rate, X, dep, N),
            lambda_max_kind="exact", cost=N / rate,
        )
        result.rho = model.rates() / rate
        result.latency_approx = _per_load(
            model, lambda lam: forkjoin.coc_full_replication(lam, X, dep, N).latency)
        result.latency_approx_kind = "exact"
        return result
    if isinstance(dep, IID) and X.family == "exponential":
        mu = 1.0 / X.mean()
        result = AnalyticResult(model.loads, lambda_max=1.0, lambda_max_kind="exact",
                                cost=X.mean(), rho=model.loads.copy())
        result.latency_approx = np.array(
            [_mean_field_coc(rho, d) / mu for rho in model.loads])
        result.latency_approx_kind = "approximation"
        result.notes.append("i.i.d. exponential CoC: stability and cost exact, latency the "
                            "N -> infinity mean-field limit (Gardner et al. 2017)")
        return result
    result = AnalyticResult(model.loads)
    result.notes.append("no analysis of CoC on FCFS queues for d < N beyond i.i.d. exponential")
    return result


def _mean_field_coc(rho: float, d: int, terms: int = 100000) -> float:
    """E[T] mu = sum_n rho^n / (n (d - 1) + d): CoC with i.i.d. exponential replicas
    as N -> infinity (Gardner et al., Operations Research 65(4), 2017)."""
    if rho >= 1.0:
        return math.inf
    n = np.arange(terms, dtype=float)
    return float(np.sum(rho**n / (n * (d - 1) + d)))


def _cancel_on_start(model: CellModel) -> AnalyticResult:
    """CoS: one replica is served, so stability is that of load balancing
    (speculation paper, remark on CoS-d = LLW-d); d = N is M/G/N (fork-join
    paper, section 5.2: fork-early-cancel with k = 1)."""
    refused = _needs_homogeneous(model, "CoS analysis")
    if refused:
        return refused
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    bound = forkjoin.cos_stability(X, dep, N)
    result = AnalyticResult(model.loads, lambda_max=bound.load, lambda_max_kind=bound.kind,
                            cost=dep.replica_mean(X), rho=model.loads / bound.load)
    if d == N and model.discipline == "FCFS" and not isinstance(dep, SX):
        estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
        result.latency_approx = np.array([e.latency for e in estimates])
        result.latency_approx_kind = estimates[0].latency_kind
    return result


def _fork_join(model: CellModel) -> AnalyticResult:
    """FJ k-of-d with d = N and i.i.d. tasks (fork-join paper): exact for k = 1,
    necessary stability, split-merge latency upper bound and cost bounds otherwise;
    fork-early-cancel: cost k E[X]."""
    refused = _needs_homogeneous(model, "the fork-join paper")
    if refused:
        return refused
    X, N, d = model.size, model.N, model.d
    k = int(model.params.get("k", 1))
    result = AnalyticResult(model.loads)
    if d != N or not isinstance(model.dependence, IID) or model.discipline != "FCFS":
        result.notes.append("the fork-join paper's results need d = N, FCFS and i.i.d. tasks")
        return result
    if model.params.get("early"):
        bound = forkjoin.fork_early_cancel_stability(X, N, k)
        result.lambda_max, result.lambda_max_kind = bound.load, bound.kind
        result.cost = forkjoin.fork_early_cancel_cost(X, k)
        result.rho = model.loads / bound.load
        if k == 1:
            estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
            result.latency_approx = np.array([e.latency for e in estimates])
            result.latency_approx_kind = estimates[0].latency_kind
        return result
    necessary, _ = forkjoin.fork_join_stability(X, N, k)
    result.lambda_max, result.lambda_max_kind = necessary.load, necessary.kind
    result.rho = model.loads / necessary.load
    if k == 1:
        estimates = [forkjoin.fork_join_n1(lam, X, N) for lam in model.rates()]
        result.latency_approx = np.array([e.latency for e in estimates])
        result.latency_approx_kind = "exact"
        result.cost = estimates[0].cost
    else:
        result.latency_approx = _per_load(model, lambda lam: forkjoin.fork_join_bounds(lam, X, N, k)[1])
        result.latency_approx_kind = "upper_bound"
        bounds = forkjoin.fork_join_cost_bounds(X, N, k)
        if bounds.lower == bounds.upper:
            result.cost = bounds.lower
        else:
            result.notes.append(f"cost between {bounds.lower} and {bounds.upper} "
                                f"({bounds.tail_class} tail)")
    return result


def _no_analysis(model: CellModel) -> AnalyticResult:
    result = AnalyticResult(model.loads)
    result.notes.append(f"none of the four papers analyses {model.policy}; simulation only")
    return result


_HANDLERS = {
    "ZRed": _zero_redundancy,
    "KT": lambda model: _zero_redundancy(model, knowledge="known"),
    "FRed": _full_redundancy,
    "Rer": _rerouting,
    "Rep": lambda model: _threshold_policy(model, "replication"),
    "KS": _known_sizes,
    "CoC": _cancel_on_complete,
    "CoS": _cancel_on_start,
    "FJ": _fork_join,
    "RIQ": _no_analysis,
}
