"""The analytic answers for one grid cell, whatever its policy.

Each policy maps to the best result that theory gives, with its kind
(``lambda_max_kind``: exact, necessary, sufficient, conjectured, approximate;
``cost_kind`` and ``latency_approx_kind``: exact, approximation, upper_bound,
lower_bound). Where no paper covers a cell of CoC, CoS, RIQ or FJ (affinity,
FCFS with 1 < d < N), :mod:`.replica_bounds` gives a necessary stability bound
and a lower bound on the cost, with the sufficient bounds in the notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..dependence import IID, SX
from ..model import CellModel
from . import forkjoin, queues, redundancy_ps, replica_bounds, speculation, threshold


@dataclass
class AnalyticResult:
    loads: np.ndarray
    lambda_max: float = math.nan
    lambda_max_kind: str = ""
    lambda_sufficient: float = math.nan
    """A load below which stability is proven (a sufficient condition); equal to
    lambda_max when that is exact, NaN when no sufficient condition is known."""
    tau_opt: float = math.nan
    q_opt: float = math.nan
    rho: np.ndarray | None = None
    cost: float = math.nan
    cost_kind: str = ""
    latency_approx: np.ndarray | None = None
    latency_approx_kind: str = ""
    tau_opt_pool2: float = math.nan
    keep_opt: np.ndarray | None = None
    """FJ ``keep: opt``: the tasks kept (r of section 8.1) that the strategy of
    section 8.2 chose at each load (the simulation uses the same)."""
    latency_lower: np.ndarray | None = None
    """An analytic lower bound on the mean latency, where one is known besides
    ``latency_approx`` (FJ: Theorem 4's lower bound)."""
    cost_lower: float = math.nan
    cost_upper: float = math.nan
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
        if self.keep_opt is None:
            self.keep_opt = nan.copy()
        if self.latency_lower is None:
            self.latency_lower = nan.copy()


def analyze(model: CellModel) -> AnalyticResult:
    handler = _HANDLERS.get(model.policy)
    if handler is None:
        result = AnalyticResult(model.loads)
        result.notes.append(f"no analysis of {model.policy} yet")
        return result
    if model.load_basis != "nominal":
        return _proven(_in_basis(model, handler))
    result = handler(model)
    _explain_infinite_latency(model, result)
    return _proven(result)


def _proven(result: AnalyticResult) -> AnalyticResult:
    """An exact stability bound is also a sufficient one."""
    if result.lambda_max_kind == "exact" and math.isnan(result.lambda_sufficient):
        result.lambda_sufficient = result.lambda_max
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
    result.lambda_sufficient = result.lambda_sufficient * model.load_factor
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
    kind = _replication_kind(model)
    result = _from_work(model, model.system, bound, kind=kind, cost_kind=_cost_kind(kind))
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


def _cost_kind(replication_kind: str) -> str:
    """The threshold paper's work per pool is exact in its own model (central
    queues; checked against simulation at 90 % of the bound) and an approximation
    on per-server queues, like its stability bound."""
    return "approximation" if replication_kind == "approximate" else "exact"


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
    result = _from_work(model, system, bound, kind=kind,
                        cost_kind="exact" if policy == "rerouting" else _cost_kind(kind))
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
        lambda_max=model.to_load(bound.rate),
        lambda_max_kind="necessary",
        rho=model.rates() * per_server,
    )
    result.notes.append(f"KS bound attained by size-aware {bound.policy}")
    if 0.0 < bound.weight < 1.0:
        # an interior optimal dual weight saturates both pools (complementary
        # slackness): E[B_i] / n_i = 1 / lambda_max for i = 1, 2, so the server time
        # per job of the optimal size-aware policy is sum_i E[B_i] = N / lambda_max
        result.cost = system.servers / bound.rate
        result.cost_kind = "exact"
    else:
        result.notes.append("KS: one pool is not saturated at the optimum, so the dual "
                            "does not give the optimal policy's cost")
    return result


def _from_work(model, system, bound: threshold.Bound, kind: str,
               cost_kind: str = "exact") -> AnalyticResult:
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


def _homogeneous_single_copy(model: CellModel) -> AnalyticResult:
    """One copy on a random one of N identical servers: N M/G/1 queues."""
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    rates = model.rates()
    result = AnalyticResult(model.loads, lambda_max=1.0, lambda_max_kind="exact",
                            rho=rates * m1 / model.N, cost=m1, cost_kind="exact")
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


def _replica_bounds(model: CellModel, why: str, k: int = 1,
                    choice: str = "completion") -> AnalyticResult:
    """The bounds of :mod:`.replica_bounds` for a cell that no paper covers
    (``why`` says which): lambda_max necessary (exact when it meets the sufficient
    bound), cost a lower bound (exact when it meets the upper one)."""
    X, dep, N = model.size, model.dependence, model.N
    b = replica_bounds.bounds(X, dep, replica_bounds.Pools.of(model.system, N), model.d, k, choice)
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(b.necessary_rate),
        lambda_max_kind="exact" if b.exact_rate else "necessary",
        lambda_sufficient=model.to_load(b.sufficient_rate),
        rho=model.rates() / b.necessary_rate,
        cost=b.cost_lower,
        cost_kind="exact" if b.exact_cost else "lower_bound",
        cost_lower=b.cost_lower,
        cost_upper=b.cost_upper,
    )
    _bound_notes(result, model, b, why)
    return result


def _bound_notes(result: AnalyticResult, model: CellModel, b, why: str) -> None:
    result.notes.append(
        f"{why}: bounds from full-service accounting (replica_bounds): stable below load "
        f"{model.to_load(b.sufficient_rate):.6g} (sufficient), "
        f"unstable above {model.to_load(b.necessary_rate):.6g} "
        f"(necessary); server time per job between {b.cost_lower:.6g} and {b.cost_upper:.6g}"
    )


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
        cost=speculation.expected_work(bound.tau, X, dep, resume), cost_kind="exact",
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
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    if model.params.get("ps_bound") not in (None, "none"):
        result = AnalyticResult(model.loads)
        result.notes.append("the PS bound systems are simulated only")
        return result
    if not _homogeneous(model):
        return _replica_bounds(model, "no paper analyses CoC with job-server affinity")
    if model.discipline == "PS":
        bound = redundancy_ps.stability_bound(X, dep, N, d)
        result = AnalyticResult(model.loads, lambda_max=bound.load, lambda_max_kind=bound.kind,
                                lambda_sufficient=redundancy_ps.stability_sufficient(
                                    X, dep, N, d).load)
        result.rho = model.loads / bound.load
        kinds = set()

        def latency(lam):
            value, kind = redundancy_ps.latency(lam, X, dep, N, d)
            kinds.add(kind)
            return value

        result.latency_approx = _per_load(model, latency)
        result.latency_approx_kind = kinds.pop() if len(kinds) == 1 else ""
        result.notes.append(f"PS paper: {bound.note}")
        _with_replica_bounds(result, model, 1, "completion",
                             "the PS paper gives no server time per job")
        return result
    if d == 1:
        return _homogeneous_single_copy(model)  # one copy on a random server: M/G/1 each
    if d == N:
        rate = 1.0 / forkjoin.replica_min_moment(X, dep, N, 1)
        result = AnalyticResult(
            model.loads, lambda_max=model.to_load(rate),
            lambda_max_kind="exact", cost=N / rate, cost_kind="exact",
        )
        result.rho = model.rates() / rate
        result.latency_approx = _per_load(
            model, lambda lam: forkjoin.coc_full_replication(lam, X, dep, N).latency)
        result.latency_approx_kind = "exact"
        return result
    if isinstance(dep, IID) and X.family == "exponential":
        mu = 1.0 / X.mean()
        result = AnalyticResult(model.loads, lambda_max=1.0, lambda_max_kind="exact",
                                cost=X.mean(), cost_kind="exact", rho=model.loads.copy())
        result.latency_approx = np.array(
            [_mean_field_coc(rho, d) / mu for rho in model.loads])
        result.latency_approx_kind = "approximation"
        result.notes.append("i.i.d. exponential CoC: stability and cost exact, latency the "
                            "N -> infinity mean-field limit (Gardner et al. 2017)")
        return result
    return _replica_bounds(model, "no paper analyses CoC on FCFS queues with 1 < d < N "
                                  "beyond i.i.d. exponential replicas")


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
    if not _homogeneous(model):
        return _replica_bounds(model, "no paper analyses CoS with job-server affinity",
                               choice="start")
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    bound = forkjoin.cos_stability(X, dep, N)
    result = AnalyticResult(model.loads, lambda_max=bound.load, lambda_max_kind=bound.kind,
                            cost=dep.replica_mean(X), cost_kind="exact",
                            rho=model.loads / bound.load)
    if d == N and model.discipline == "FCFS" and not isinstance(dep, SX):
        estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
        result.latency_approx = np.array([e.latency for e in estimates])
        result.latency_approx_kind = estimates[0].latency_kind
    return result


def _fork_join(model: CellModel) -> AnalyticResult:
    """FJ, the generalised (n, r_f, r, k) fork-join of section 8.1 with n = N,
    r_f = d and r = keep, on i.i.d. tasks (with ``split: shift`` the task law is
    already ``ShiftedExp(Delta / k, mu)``, section 7.2).

    - d = N, keep = d (plain (n, k) fork-join): exact for k = 1 (section 5.1);
      otherwise Theorem 4's split-merge upper bound (``latency_approx``) and lower
      bound (``latency_lower``) on E[T], the cost bounds of section 7.1
      (``cost_lower``, ``cost_upper``) and necessary stability;
    - d = N, keep = k (fork-early-cancel, section 7.3): cost k E[X]; k = 1 is
      M/G/n (section 5.2);
    - d = 1: one task on a random server, N M/G/1 queues (exact);
    - otherwise (r_f < n, or k < keep < d): the section 8.2 estimates
      (:func:`forkjoin.strategy_estimates`), kind ``approximation``;
    - keep = opt: the section 8.2 strategy chooses keep at each load
      (:func:`_fork_join_strategy`);
    - job-server affinity, PS, or dependent tasks: the bounds of
      :mod:`.replica_bounds`; a cost the paper does not give falls back to its
      lower bound there too.

    Loads are in the model's load unit (with ``split: shift`` the unsplit job),
    so stability bounds are converted with :attr:`CellModel.load_mean`.
    """
    X, N, d = model.size, model.N, model.d
    k = int(model.params.get("k", 1))
    keep = model.params.get("keep", "d")
    # the first k to start run in full, chosen before their sizes are known
    choice = "start" if (model.params.get("early") or keep == k) else "completion"
    if not _homogeneous(model):
        return _replica_bounds(model, "no paper analyses FJ with job-server affinity", k, choice)
    if model.params.get("early"):
        keep = k
    elif keep == "d":
        keep = d
    if not isinstance(model.dependence, IID) or model.discipline != "FCFS":
        return _replica_bounds(model, "the fork-join paper's results need FCFS and i.i.d. "
                               "tasks", k, choice)
    if keep == "opt":
        result = _fork_join_strategy(model, k)
    else:
        result = _fork_join_paper(model, k, int(keep))
    return _with_replica_bounds(result, model, k, choice, "the fork-join paper leaves this open")


def _fork_join_paper(model: CellModel, k: int, keep: int) -> AnalyticResult:
    """The fork-join paper's results for FJ (see :func:`_fork_join`)."""
    X, N, d = model.size, model.N, model.d
    result = AnalyticResult(model.loads)

    def set_stability(rate: float, kind: str) -> None:
        result.lambda_max, result.lambda_max_kind = model.to_load(rate), kind
        result.rho = model.loads / result.lambda_max

    if d == 1:  # one task, k = keep = 1: N independent M/G/1 queues
        m1, m2 = X.mean(), X.second_moment()
        set_stability(N / m1, "exact")
        result.cost = result.cost_lower = result.cost_upper = m1
        result.cost_kind = "exact"
        result.latency_approx = _per_load(model, lambda lam: forkjoin._pk(lam / N, m1, m2))
        result.latency_approx_kind = "exact"
        return result
    if d == N and keep == d:
        necessary, sufficient = forkjoin.fork_join_stability(X, N, k)
        set_stability(necessary.rate, necessary.kind)
        result.lambda_sufficient = model.to_load(sufficient.rate)
        bounds = [forkjoin.fork_join_bounds(lam, X, N, k) for lam in model.rates()]
        result.latency_lower = np.array([b[0] for b in bounds])
        if k == 1:
            estimates = [forkjoin.fork_join_n1(lam, X, N) for lam in model.rates()]
            result.latency_approx = np.array([e.latency for e in estimates])
            result.latency_approx_kind = "exact"
            result.cost = result.cost_lower = result.cost_upper = estimates[0].cost
            result.cost_kind = "exact"
            return result
        result.latency_approx = np.array([b[1] for b in bounds])
        result.latency_approx_kind = "upper_bound"
        cb = forkjoin.fork_join_cost_bounds(X, N, k)
        result.cost_lower, result.cost_upper = cb.lower, cb.upper
        result.cost = cb.lower
        # shifted exponential: both bounds are n Delta + k / mu, equal up to rounding
        if math.isclose(cb.lower, cb.upper, rel_tol=1e-12):
            result.cost_kind = "exact"
        elif math.isfinite(cb.lower):
            result.cost_kind = "lower_bound"
            result.notes.append(f"cost between {cb.lower} and {cb.upper} ({cb.tail_class} tail)")
        return result
    if d == N and keep == k:
        bound = forkjoin.fork_early_cancel_stability(X, N, k)
        set_stability(bound.rate, bound.kind)
        result.cost = result.cost_lower = result.cost_upper = forkjoin.fork_early_cancel_cost(X, k)
        result.cost_kind = "exact"
        if k == 1:
            estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
            result.latency_approx = np.array([e.latency for e in estimates])
            result.latency_approx_kind = estimates[0].latency_kind
        return result
    # r_f = d < n, or k < keep < d: the paper gives the section 8.2 estimates only
    estimates = [forkjoin.strategy_estimates(lam, X, N, keep, k) for lam in model.rates()]
    result.latency_approx = np.array([e[0] for e in estimates])
    result.latency_approx_kind = "approximation"
    result.notes.append(
        f"(n, r_f, r, k) = ({N}, {d}, {keep}, {k}): latency is the section 8.2 estimate "
        f"T_hat(r = {keep}) (r tasks starting together, rate lam r / n per group); "
        f"C_hat = {estimates[0][1]:.6g}")
    if k == 1:
        lo, hi, tc = forkjoin.uniform_partial_fork_cost_bounds(X, keep)
        result.cost_lower, result.cost_upper, result.cost = lo, hi, lo
        result.cost_kind = "exact" if lo == hi else "lower_bound"
    return result


def _with_replica_bounds(result: AnalyticResult, model: CellModel, k: int, choice: str,
                         why: str) -> AnalyticResult:
    """Fill what a paper leaves open (FJ: stability for r_f < n, the cost for k > 1;
    CoC on PS: the cost) with the bounds of :mod:`.replica_bounds`."""
    if math.isfinite(result.lambda_max) and math.isfinite(result.cost):
        return result
    bounds = _replica_bounds(model, why, k, choice)
    if not math.isfinite(result.lambda_max):
        result.lambda_max, result.lambda_max_kind = bounds.lambda_max, bounds.lambda_max_kind
        result.lambda_sufficient = bounds.lambda_sufficient
        result.rho = bounds.rho
    if not math.isfinite(result.cost):
        result.cost, result.cost_kind = bounds.cost, bounds.cost_kind
        result.cost_lower, result.cost_upper = bounds.cost_lower, bounds.cost_upper
    result.notes.extend(bounds.notes)
    return result


def _fork_join_strategy(model: CellModel, k: int) -> AnalyticResult:
    """FJ ``keep: opt``: the general strategy of section 8.2 at each load.

    ``r_f = d`` (the network limit; the paper conjectures the largest allowed
    r_f is best) and r = keep minimises the estimated latency ``T_hat(r)``
    subject to ``C_hat(r) <= cost_limit`` (:func:`forkjoin.general_strategy`);
    ``latency_approx`` is ``T_hat`` of the chosen r (kind ``approximation``),
    ``cost`` is ``C_hat`` when the same r is chosen at every load.
    """
    X, N, d = model.size, model.N, model.d
    c_max = float(model.params.get("cost_limit", math.inf))
    result = AnalyticResult(model.loads)
    if k > d:
        result.notes.append(f"keep: opt needs k <= d, got k = {k}, d = {d}")
        return result
    choices = [forkjoin.general_strategy(lam, X, N, k, c_max, rf_max=d) for lam in model.rates()]
    result.keep_opt = np.array([c.r for c in choices], dtype=float)
    result.latency_approx = np.array([c.latency_estimate for c in choices])
    result.latency_approx_kind = "approximation"
    costs = {c.cost_estimate for c in choices}
    if len(costs) == 1:
        result.cost, result.cost_kind = costs.pop(), "approximation"
    result.notes.append(
        f"section 8.2 strategy, r_f = d = {d}, cost limit {c_max:g}: keep "
        f"{[c.r for c in choices]} at loads {model.loads.tolist()} "
        f"(C_hat {[round(c.cost_estimate, 4) for c in choices]})")
    infeasible = [float(lo) for lo, c in zip(model.loads, choices) if not c.feasible]
    if infeasible:
        result.notes.append(f"no keep meets the cost limit at loads {infeasible}: the cheapest is used")
    return result


def _redundant_to_idle(model: CellModel) -> AnalyticResult:
    """RIQ: the speculation paper simulates it (Fig. 2) but gives no analysis; at
    least one replica is served in full, so the CoC bounds apply."""
    return _replica_bounds(model, "none of the four papers analyses RIQ")


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
    "RIQ": _redundant_to_idle,
}
