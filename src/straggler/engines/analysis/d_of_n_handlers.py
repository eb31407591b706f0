"""The analyses of the policies that copy a job to d of N servers: Rer, CoC, CoS, RIQ."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...model.cell_model import CellModel
from ...model.dependence import IID, SX, Identical
from . import forkjoin, redundancy_ps, speculation
from .bounds import fill_bounds, partial_fork_cost, tightest_bounds
from .cancel_delay import vouch
from .cell_setting import copies, homogeneous, per_load
from .notes import Time
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
    X, dep, N, c = model.size, model.dependence, model.N, model.cancel_delay
    resume = bool(model.params.get("resume", False))
    bound = speculation.stability_bound(
        X, dep, N, tau=model.params.get("tau", "opt"), resume=resume, discipline=model.discipline, cancel_delay=c
    )
    result = AnalyticResult(
        model.loads,
        lambda_max=bound.load,
        lambda_max_kind=bound.kind,
        tau_opt=bound.tau,
        cost=speculation.expected_work(bound.tau, X, dep, resume, c),
        cost_kind="exact",
    )
    result.rho = model.loads / bound.load
    result.add_note(f"speculation paper: {bound.note}", about="lambda_max")
    if c > 0.0:
        vouch(result)  # the kill's held server is in the work, the cost and the latency approximation
        result.add_note(
            "cancel_delay {c}: a killed run keeps its server that long, carried in the work per job (the "
            "load, its optimal timeout, the cost) and in the latency approximation",
            about=("lambda_max", "cost"),
            c=Time(c),
        )
    if model.discipline == "FCFS" and model.queueing == "per_server":
        result.latency_approx = per_load(
            model, lambda lam: speculation.latency_approx(lam, bound.tau, X, dep, N, resume, c)
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
    its conditions hold (:func:`partial_fork_cost`).

    A cancellation delay (:func:`_coc_with_cancel_delay`) leaves these results standing
    only where no copy is ever cancelled with work left (:func:`_never_cancelled`)."""
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
    if model.cancel_delay > 0.0:
        if not _never_cancelled(model, d):
            return _coc_with_cancel_delay(model, d)
        result = vouch(_coc_homogeneous(model, d))
        result.add_note(
            "cancel_delay does not apply: "
            + ("one copy per job" if d == 1 else "identical copies on every server start and finish together")
            + ", so no copy is ever cancelled with work left"
        )
        return result
    return _coc_homogeneous(model, d)


def _never_cancelled(model: CellModel, d: int) -> bool:
    """No copy of CoC is ever cancelled with work left: one copy (d = 1), or identical
    copies on all N servers (every server holds every job, so the copies start
    together, FCFS or PS, and end together: a tie, which the delay does not charge)."""
    return d == 1 or (d == model.N and isinstance(model.dependence, Identical))


def _coc_with_cancel_delay(model: CellModel, d: int) -> AnalyticResult:
    """CoC with a cancellation delay where copies are cancelled with work left: the
    papers' results assume instant cancellation (the PS paper's bound systems, the
    (N, 1) fork-join queue whose copies start together, the mean-field limit), so the
    tightest full-service and partial-fork bounds carrying the delay
    (:func:`tightest_bounds`) replace them; on PS the latency of the PS paper's
    alternative upper-bound system with every replica served in full and held the
    delay (:func:`redundancy_ps.upper_bound_latency`), an upper bound."""
    why = (
        "CoC with cancel_delay > 0 (a copy cancelled in service keeps its server; the papers' results "
        "assume instant cancellation)"
    )
    if model.discipline == "PS":
        result = tightest_bounds(model, why)
        X, dep, N, c = model.size, model.dependence, model.N, model.cancel_delay
        result.latency_approx = per_load(model, lambda lam: redundancy_ps.upper_bound_latency(lam, X, dep, N, d, c))
        result.latency_approx_kind = "upper_bound"
        result.add_note(
            "latency_approx: the PS paper's alternative upper-bound system (section 3.5) with every replica "
            "served in full and held cancel_delay, an upper bound",
            about="latency_approx",
        )
        return vouch(result, "latency_approx")
    paper, reason = partial_fork_cost(model, d)
    result = tightest_bounds(model, why if paper else f"{why}; {reason}", paper=paper)
    result.add_note(
        "latency_approx is NaN: the fork-join paper's latency of CoC (d = N: one M/G/1 queue) needs the copies "
        "to start together, which a cancelled copy holding its server prevents",
        about="latency_approx",
    )
    return result


def _coc_homogeneous(model: CellModel, d: int) -> AnalyticResult:
    """CoC on identical servers (:func:`analyze_cancel_on_complete`)."""
    X, dep, N = model.size, model.dependence, model.N
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
    paper, section 5.2: fork-early-cancel with k = 1).

    A cancellation delay c: on PS every copy starts when it joins and the d - 1 not
    kept are cancelled in service at once (:func:`_cos_ps_with_cancel_delay`); on FCFS
    queues those that start at the same instant as the kept one (idle servers at
    arrival) are, a number that depends on the load, so the full-service bounds carrying
    c (:func:`tightest_bounds`) replace the exact values."""
    if model.cancel_delay > 0.0 and homogeneous(model):
        if model.discipline == "PS":
            return _cos_ps_with_cancel_delay(model)
        result = tightest_bounds(
            model,
            "CoS on FCFS queues with cancel_delay > 0 (the copies that start with the kept one, on servers "
            "idle at the same instant, are cancelled in service and keep their servers)",
            choice="start",
        )
        result.add_note(
            "latency_approx is NaN: M/G/N (fork-join paper, section 5.2) has no copy cancelled in service",
            about="latency_approx",
        )
        return result
    return _cos(model)


def _cos_ps_with_cancel_delay(model: CellModel) -> AnalyticResult:
    """CoS on identical PS servers with a cancellation delay c: a job's kept copy goes
    to the first of its d sampled servers, the other d - 1 start and are cancelled at
    once, each leaving c of work on its server. Each server is then an M/G/1-PS queue
    with Poisson arrivals of copies (rate lambda / N, size X) and of cancelled copies
    (rate lambda (d - 1) / N, size c): stable iff ``lambda (E[X] + (d - 1) c) / N < 1``,
    exact (at c = 0 the load-balancing condition of :func:`forkjoin.cos_stability`),
    and the cost is ``E[X] + (d - 1) c`` exactly."""
    X, dep, N, d, c = model.size, model.dependence, model.N, copies(model), model.cancel_delay
    work = dep.replica_mean(X) + (d - 1) * c
    rate = N / work
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(rate),
        lambda_max_kind="exact",
        cost=work,
        cost_kind="exact",
        rho=model.rates() / rate,
    )
    result.add_note(
        "CoS on PS with cancel_delay {c}: the d - 1 copies not kept start and are cancelled at once, each "
        "holding its server c; M/G/1-PS per server, stable iff lambda (E[X] + (d - 1) c) / N < 1 (exact), "
        "cost E[X] + (d - 1) c",
        about=("lambda_max", "cost"),
        c=Time(c),
    )
    result.add_note(
        "latency_approx is NaN: the four papers give the latency of CoS only for d = N on FCFS queues "
        "(M/G/N, fork-join paper section 5.2)",
        about="latency_approx",
    )
    return vouch(result)


def _cos(model: CellModel) -> AnalyticResult:
    """CoS with instant cancellation (:func:`analyze_cancel_on_start`)."""
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
