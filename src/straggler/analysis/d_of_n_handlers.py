"""The analyses of the policies that copy a job to d of N servers: Rer, CoC, CoS, RIQ."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..cell_model import CellModel
from ..dependence import IID, SX
from . import forkjoin, redundancy_ps, speculation
from .bounds import fill_bounds, partial_fork_cost, tightest_bounds
from .cell_setting import copies, homogeneous, per_load
from .result import AnalyticResult
from .single_copy import homogeneous_single_copy
from .two_pool_handlers import threshold_policy


def analyze_rerouting(model: CellModel) -> AnalyticResult:
    """Rer: on identical servers the speculation paper's SLB (Theorems 1-2 and 4);
    with affinity the threshold paper's rerouting."""
    if not homogeneous(model):
        if model.params.get("resume"):
            result = AnalyticResult(model.loads)
            result.add_note(
                "lambda_max, cost and latency_approx are NaN: the threshold paper "
                "analyses kill-and-restart only (Rer resume: true needs r_slow = 1)",
                about=("lambda_max", "cost", "latency_approx"),
            )
            return result
        return threshold_policy(model, "rerouting")
    if model.size.per_type and isinstance(model.dependence, IID):
        result = AnalyticResult(model.loads)
        result.add_note(
            "lambda_max, cost and latency_approx are NaN: on identical servers Rer is the speculation "
            "paper's, whose restarted copy is a fresh draw of one size law; with a law per job type and "
            "i.i.d. replicas it is a draw of the job's own type's law (the cell is simulated only)",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result
    X, dep, N = model.size, model.dependence, model.N
    resume = bool(model.params.get("resume", False))
    bound = speculation.stability_bound(
        X, dep, N, tau=model.params.get("tau", "opt"), resume=resume, discipline=model.discipline
    )
    result = AnalyticResult(
        model.loads,
        lambda_max=bound.load,
        lambda_max_kind=bound.kind,
        tau_opt=bound.tau,
        cost=speculation.expected_work(bound.tau, X, dep, resume),
        cost_kind="exact",
    )
    result.rho = model.loads / bound.load
    result.add_note(f"speculation paper: {bound.note}", about="lambda_max")
    if model.discipline == "FCFS" and model.queueing == "per_server":
        result.latency_approx = per_load(
            model, lambda lam: speculation.latency_approx(lam, bound.tau, X, dep, N, resume)
        )
        # tau = inf never re-routes: random dispatch, N M/G/1 queues (exact), as ZRed
        result.latency_approx_kind = "exact" if math.isinf(bound.tau) else "approximation"
    else:
        result.add_note(
            "latency_approx is NaN: the SLB latency approximation is for FCFS per-server queues", about="latency_approx"
        )
    return result


def analyze_cancel_on_complete(model: CellModel) -> AnalyticResult:
    """CoC: redundancy-d with PS (PS paper); with FCFS the (N,1) fork-join queue
    when d = N (fork-join paper, section 5.1), the mean-field result for i.i.d.
    exponential replicas (Gardner et al. 2017; docs: reference results, section 5), and for
    1 < d < N the fork-join paper's (n, r, 1) partial fork with uniform random
    choice (section 6.1 cost bounds, with the stability bound they imply) where
    its conditions hold (:func:`partial_fork_cost`)."""
    X, dep, N = model.size, model.dependence, model.N
    if model.params.get("ps_bound") not in (None, "none"):
        result = AnalyticResult(model.loads)
        result.add_note(
            "lambda_max, cost and latency_approx are NaN: the PS bound systems are simulated only",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result
    if not homogeneous(model):
        result = tightest_bounds(model, "no paper analyses CoC with job-server affinity")
        result.add_note(
            "latency_approx is NaN: no paper gives the latency of CoC with job-server affinity", about="latency_approx"
        )
        return result
    d = copies(model)
    if model.discipline == "PS":
        bound = redundancy_ps.stability_bound(X, dep, N, d)
        result = AnalyticResult(
            model.loads,
            lambda_max=bound.load,
            lambda_max_kind=bound.kind,
            lambda_sufficient=redundancy_ps.stability_sufficient(X, dep, N, d).load,
        )
        result.rho = model.loads / bound.load
        kinds = set()

        def latency(lam):
            value, kind = redundancy_ps.latency(lam, X, dep, N, d)
            kinds.add(kind)
            return value

        result.latency_approx = per_load(model, latency)
        result.latency_approx_kind = kinds.pop() if len(kinds) == 1 else ""
        result.add_note(f"PS paper: {bound.note}", about="lambda_max")
        return fill_bounds(result, model, 1, "completion", "the PS paper gives no server time per job")
    if d == 1:
        return homogeneous_single_copy(model)  # one copy on a random server: M/G/1 each
    if d == N:
        rate = 1.0 / forkjoin.replica_min_moment(X, dep, N, 1)
        result = AnalyticResult(
            model.loads,
            lambda_max=model.to_load(rate),
            lambda_max_kind="exact",
            cost=N / rate,
            cost_kind="exact",
        )
        result.rho = model.rates() / rate
        result.latency_approx = per_load(model, lambda lam: forkjoin.coc_full_replication(lam, X, dep, N).latency)
        result.latency_approx_kind = "exact"
        return result
    if isinstance(dep, IID) and X.family == "exponential":
        mu = 1.0 / X.mean()
        result = AnalyticResult(
            model.loads,
            lambda_max=1.0,
            lambda_max_kind="exact",
            cost=X.mean(),
            cost_kind="exact",
            rho=model.loads.copy(),
        )
        result.latency_approx = np.array([_mean_field_coc(rho, d) / mu for rho in model.loads])
        result.latency_approx_kind = "approximation"
        result.add_note(
            "i.i.d. exponential CoC: stability and cost exact (fork-join paper, "
            "section 6.1: E[C] = E[X]), latency the N -> infinity mean-field limit "
            "(Gardner et al. 2017)",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result
    paper, reason = partial_fork_cost(model, d)
    where = (
        "CoC on FCFS queues with 1 < d < N, the fork-join paper's (n, r, 1) partial "
        "fork with uniform random choice (section 6, r = d)"
    )
    result = tightest_bounds(model, where if paper else f"{where}; {reason}", paper=paper)
    result.add_note(
        "latency_approx is NaN: the fork-join paper gives the latency of the "
        "group-based (n, r, 1) partial fork only (section 6.1), not of uniform random "
        "choice (CoC), which section 6.3 compares with it in low traffic only",
        about="latency_approx",
    )
    return result


def _mean_field_coc(rho: float, d: int, terms: int = 100000) -> float:
    """E[T] mu = sum_n rho^n / (n (d - 1) + d): CoC with i.i.d. exponential replicas
    as N -> infinity (Gardner et al., Operations Research 65(4), 2017)."""
    if rho >= 1.0:
        return math.inf
    n = np.arange(terms, dtype=float)
    return float(np.sum(rho**n / (n * (d - 1) + d)))


def analyze_cancel_on_start(model: CellModel) -> AnalyticResult:
    """CoS: one replica is served, so stability is that of load balancing
    (speculation paper, remark on CoS-d = LLW-d); d = N is M/G/N (fork-join
    paper, section 5.2: fork-early-cancel with k = 1)."""
    if not homogeneous(model):
        result = tightest_bounds(model, "no paper analyses CoS with job-server affinity", choice="start")
        result.add_note(
            "latency_approx is NaN: no paper gives the latency of CoS with job-server affinity", about="latency_approx"
        )
        return result
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    bound = forkjoin.cos_stability(X, dep, N)
    result = AnalyticResult(
        model.loads,
        lambda_max=bound.load,
        lambda_max_kind=bound.kind,
        cost=dep.replica_mean(X),
        cost_kind="exact",
        rho=model.loads / bound.load,
    )
    if d == N and model.discipline == "FCFS" and not isinstance(dep, SX):
        estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
        result.latency_approx = np.array([e.latency for e in estimates])
        result.latency_approx_kind = estimates[0].latency_kind
    else:
        result.add_note(
            "latency_approx is NaN: the four papers give the latency of CoS only "
            "for d = N on FCFS queues (M/G/N, fork-join paper section 5.2)",
            about="latency_approx",
        )
    return result


def analyze_redundant_to_idle(model: CellModel) -> AnalyticResult:
    """Copies to the idle servers among d sampled: the speculation paper simulates
    it (Fig. 2) but gives no analysis; at least one replica is served in full, so the full-service bounds apply. On
    identical FCFS servers with i.i.d. replicas a job gets R in 1..d replicas
    (the idle ones among the d sampled, or one), all starting at once, so its
    cost is ``R E[X_{1:R}]`` (fork-join paper, section 5.1) with R independent of
    its sizes, and ``r E[X_{1:r}]`` is monotone in r (section 4.2): E[C] lies
    between ``E[X]`` and ``d E[X_{1:d}]``, the section 6.1 bounds with r = d."""
    why = f"none of the four papers analyses {model.policy} (the speculation paper simulates it)"
    paper = None
    if homogeneous(model):
        paper, reason = partial_fork_cost(model, copies(model), source=None)
        if paper is not None:
            paper = replace(
                paper,
                source="fork-join paper, sections 4.2 and 5.1 (R replicas "
                "started together cost R E[X_{1:R}], monotone in R <= d)",
            )
    result = tightest_bounds(model, why, paper=paper)
    result.add_note(
        f"latency_approx is NaN: none of the four papers gives the latency of {model.policy}", about="latency_approx"
    )
    return result
