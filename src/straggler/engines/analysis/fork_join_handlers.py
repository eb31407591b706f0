"""The analysis of FJ, the generalised (n, r_f, r, k) fork-join, from the fork-join paper."""

from __future__ import annotations

import math

import numpy as np

from ...model.cell_model import CellModel
from ...model.dependence import IID
from ...model.distributions import Exponential
from . import forkjoin, queues
from .bounds import PaperCost, fill_bounds, partial_fork_cost, tightest_bounds
from .cancel_delay import vouch
from .cell_setting import copies, homogeneous, per_load
from .notes import Load, Time
from .result import AnalyticResult


def analyze_fork_join(model: CellModel) -> AnalyticResult:
    """FJ, the generalised (n, r_f, r, k) fork-join of section 8.1 with n = N,
    r_f = d and r = keep, on i.i.d. tasks (with ``split: shift`` the task law is
    already ``ShiftedExp(Delta / k, mu)``, section 7.2).

    - d = 1 (whatever keep): one task on a random server, N M/G/1 queues (exact);
    - d = N, keep = d (plain (n, k) fork-join): exact for k = 1 (section 5.1);
      otherwise the tighter of Theorem 4's split-merge upper bound and, for k = n,
      Lemma 8's (``latency_approx``, kind ``upper_bound``), Theorem 4's lower
      bound (``latency_lower``), the cost bounds of section 7.1 (``cost_lower``,
      ``cost_upper``) and necessary stability; exponential tasks: the closed forms
      of the (n, k) fork-join literature instead (:func:`_exponential_latency`:
      a tighter lower bound, Lemma 8 without a lattice, the exact (2, 2) value);
    - d = N, keep = k (fork-early-cancel, section 7.3): cost k E[X]; k = 1 is
      M/G/n (section 5.2);
    - otherwise (r_f < n, or k < keep < d): the paper gives the latency of the
      group-based (n, r, k) system only, its section 8.2 estimate ``T_hat(r)``,
      stored as ``latency_group`` (not ``latency_approx``: the simulated system
      picks a random r_f of the n servers); cost bounds of section 6.1 for k = 1
      (:func:`partial_fork_cost`, ``r = keep``), the stability bound they imply;
    - keep = opt: the section 8.2 strategy chooses keep at each load
      (:func:`_fork_join_strategy`);
    - job-server affinity, PS, or dependent tasks: the bounds of
      :mod:`.replica_bounds`; what the paper leaves open falls back to them too
      (:func:`fill_bounds`, the tightest of both).

    Loads are in the model's load unit (with ``split: shift`` the unsplit job),
    so stability bounds are converted with :attr:`CellModel.load_mean`.

    A cancellation delay with d > 1: :func:`_with_cancel_delay` (the paper's results
    assume instant cancellation; bounds that carry the delay replace them).
    """
    d = model.d
    k = int(model.params.get("k", 1))
    keep = model.params.get("keep", "d")
    # the first k to start run in full, chosen before their sizes are known
    choice = "start" if (model.params.get("early") or keep == k) else "completion"
    if not homogeneous(model):
        result = tightest_bounds(model, "no paper analyses FJ with job-server affinity", k, choice)
        result.add_note(
            "latency_approx is NaN: no paper gives the latency of FJ with job-server affinity", about="latency_approx"
        )
        return result
    if model.params.get("early"):
        keep = k
    elif keep == "d":
        keep = d
    if not isinstance(model.dependence, IID) or model.discipline != "FCFS":
        result = tightest_bounds(model, "the fork-join paper's results need FCFS and i.i.d. tasks", k, choice)
        result.add_note(
            "latency_approx is NaN: the fork-join paper's results need FCFS and i.i.d. tasks", about="latency_approx"
        )
        return result
    if d == 1:  # r_f = r = k = 1 whatever keep says: one task on a random server
        result = _fork_join_paper(model, 1, 1)[0]
        if keep == "opt":
            result.keep_opt = np.ones(len(model.loads))
            result.add_note(
                "section 8.2 strategy with r_f = d = 1: keep 1 at every load (one "
                "task on a random server, the same system as keep: d)"
            )
        return vouch(result) if model.cancel_delay > 0.0 else result  # one task: nothing is cancelled
    if keep == "opt":
        result, paper = _fork_join_strategy(model, k)
    else:
        result, paper = _fork_join_paper(model, k, int(keep))
    if model.cancel_delay > 0.0:
        return _with_cancel_delay(model, result, k, keep, choice)
    return fill_bounds(
        result,
        model,
        k,
        choice,
        "the fork-join paper leaves this open" if paper is None else "FJ, the fork-join paper's partial fork",
        paper,
    )


def _kept_cost(model: CellModel, r: int, k: int) -> tuple[PaperCost | None, str]:
    """Cost bounds for FJ keeping ``r`` of its tasks (cancelling the others before
    they start) until ``k`` finish: ``r = k``: each kept task is served in full,
    ``k E[X]`` (section 7.3, fork-early-cancel); ``k = 1``: section 6.1
    (:func:`partial_fork_cost`: the r kept tasks start at times that do not depend
    on their sizes); otherwise the paper gives none for r < n."""
    if model.cancel_delay > 0.0:
        return _kept_cost_with_delay(model, r, k)
    if r == k:
        c = k * model.size.mean()
        return PaperCost(c, c, "fork-join paper, section 7.3 (the k kept tasks are served in full: k E[X])"), ""
    if k == 1:
        return partial_fork_cost(model, r)
    return None, "the fork-join paper gives cost bounds for k > 1 with all n tasks only"


def _kept_cost_with_delay(model: CellModel, r: int, k: int) -> tuple[PaperCost | None, str]:
    """:func:`_kept_cost` with a cancellation delay c: the kept tasks' server time obeys
    the same bounds (their start times still do not depend on their sizes); c adds for
    each task cancelled in service, at most the ``d - r`` not kept that start with the
    r-th kept one and the ``r - k`` kept ones cut (:func:`partial_fork_cost` adds the
    latter), so the upper end gains at most ``(d - k) c``."""
    d, c = copies(model), model.cancel_delay
    if r == k:
        lo = k * model.size.mean()
        src = (
            "fork-join paper, section 7.3 (the k kept tasks are served in full: k E[X]) + at most (d - k) cancel_delay"
        )
        return PaperCost(lo, lo + (d - k) * c, src), ""
    if k == 1:
        paper, reason = partial_fork_cost(model, r)
        if paper is None:
            return None, reason
        return PaperCost(paper.lower, paper.upper + (d - r) * c, paper.source + " + (d - r) cancel_delay"), ""
    return None, "the fork-join paper gives cost bounds for k > 1 with all n tasks only"


def _with_cancel_delay(model: CellModel, result: AnalyticResult, k: int, keep, choice: str) -> AnalyticResult:
    """FJ (d > 1, FCFS, i.i.d. tasks) with a cancellation delay: the (n, k) results need
    the tasks to start together or a cancelled task to free its server at once, and the
    group-based estimates assume instant cancellation, so what stays is the bounds that
    carry the delay: the full-service ones and the cost bounds of :func:`_kept_cost`
    (:func:`tightest_bounds`), and a lower bound on the latency that only uses that
    queueing adds: the kept tasks are chosen before their sizes are known (the first
    ``r`` to start) and the job needs ``k`` of them, each served in full from its start,
    so ``T >= X_{k:r}`` (``r`` the tasks kept at each load). ``keep_opt`` stays (the
    simulation runs it)."""
    chosen = np.asarray(result.keep_opt, dtype=float)
    if keep == "opt" and np.isnan(chosen).any():
        return result  # no keep chosen (the note says why): nothing to carry
    rs = [int(r) for r in chosen] if keep == "opt" else [int(keep)] * len(model.loads)
    costs = [_kept_cost(model, r, k) for r in sorted(set(rs))]
    found = [c for c, _ in costs if c is not None]
    paper = None
    if found and len(found) == len(costs):
        paper = PaperCost(min(c.lower for c in found), max(c.upper for c in found), "; ".join(c.source for c in found))
    out = tightest_bounds(
        model, "FJ with cancel_delay > 0 (a task cancelled in service keeps its server)", k, choice, paper
    )
    out.keep_opt = result.keep_opt
    out.latency_lower = np.array([forkjoin.order_statistic_moment(model.size, k, r, 1) for r in rs])
    out.add_note(
        "latency_approx is NaN: the fork-join paper's latencies assume instant cancellation; latency_lower is "
        "E[X_{k:r}] with r the tasks kept (queueing only adds)",
        about=("latency_approx", "latency_lower"),
    )
    return vouch(out, "latency_lower")


def _group_latency(model: CellModel, result: AnalyticResult, rs, k: int) -> None:
    """``latency_group``: the section 8.2 estimate ``T_hat(r)`` at each load (``rs``:
    the r of each load), with its kind for the group-based system and a note."""
    N = model.N
    X = model.size
    values = [forkjoin.strategy_estimates(lam, X, N, int(r), k)[0] for lam, r in zip(model.rates(), rs)]
    result.latency_group = np.asarray(values, dtype=float)
    kinds = {("exact" if k == 1 else "upper_bound") if N % int(r) == 0 else "approximation" for r in rs}
    result.latency_group_kind = kinds.pop() if len(kinds) == 1 else "approximation"
    result.add_note(
        "latency_group is the fork-join paper's section 8.2 estimate T_hat(r) (r tasks "
        "starting together on one of n / r groups, rate lam r / n per group: group-based "
        "random (n, r, k), section 6), not the latency of the simulated system, which sends "
        "the tasks to a random r_f = d of the n servers",
        about="latency_group",
    )
    over = np.isinf(result.latency_group)
    if over.any():
        result.add_note(
            "latency_group is +inf at {loads}: a group of r servers is overloaded there (lam r / n E[X_{{k:r}}] >= 1)",
            about="latency_group",
            loads=Load(model.loads[over].tolist()),
        )


def _fork_join_paper(model: CellModel, k: int, keep: int) -> tuple[AnalyticResult, PaperCost | None]:
    """The fork-join paper's results for FJ (see :func:`analyze_fork_join`), and the cost
    bounds to combine with the full-service ones where the paper's are partial."""
    d, N = model.d, model.N
    if d == 1:  # one task, k = keep = 1: N independent M/G/1 queues
        return _single_task(model), None
    if d == N and keep == d:
        return _full_fork_join(model, k), None
    if d == N and keep == k:
        return _fork_early_cancel(model, k), None
    return _partial_fork(model, k, keep)


def _set_stability(model: CellModel, result: AnalyticResult, rate: float, kind: str) -> None:
    """``lambda_max`` (in the model's load unit) with its kind, and ``rho`` against it."""
    result.lambda_max, result.lambda_max_kind = model.to_load(rate), kind
    result.rho = model.loads / result.lambda_max


def _single_task(model: CellModel) -> AnalyticResult:
    """d = 1: one task on a random server, N independent M/G/1 queues (exact)."""
    X, N = model.size, model.N
    result = AnalyticResult(model.loads)
    m1, m2 = X.mean(), X.second_moment()
    _set_stability(model, result, N / m1, "exact")
    result.cost = result.cost_lower = result.cost_upper = m1
    result.cost_kind = "exact"
    result.latency_approx = per_load(model, lambda lam: queues.mg1_fcfs_latency(lam / N, m1, m2))
    result.latency_approx_kind = "exact"
    return result


def _full_fork_join(model: CellModel, k: int) -> AnalyticResult:
    """d = N, keep = d: the (n, k) fork-join (sections 5.1, 7.1 and Theorem 4)."""
    X, N = model.size, model.N
    result = AnalyticResult(model.loads)
    necessary, sufficient = forkjoin.fork_join_stability(X, N, k)
    _set_stability(model, result, necessary.rate, necessary.kind)
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
    split_merge = np.array([b[1] for b in bounds])
    result.latency_approx = split_merge
    result.latency_approx_kind = "upper_bound"
    if isinstance(X, Exponential):
        _exponential_latency(model, result, k)
    elif k == N:
        lemma8 = per_load(model, lambda lam: forkjoin.fork_join_nn_upper_bound(lam, X, N))
        _lemma8_latency(model, result, split_merge, lemma8, "E[max of n independent M/G/1 response times]")
    over = np.isinf(result.latency_approx)
    # an exact lambda_max (exponential, k = n): latency_approx is finite below it, and
    # the +inf above it is explained with rho >= 1 (analysis.cell)
    if over.any() and result.lambda_max_kind != "exact":
        result.add_note(
            "latency_approx is +inf at {loads}: the bounding system is overloaded there "
            "(split-merge: lam E[X_{{k:n}}] >= 1); the fork-join system is stable up to at "
            "most lambda_max (necessary)",
            about="latency_approx",
            loads=Load(model.loads[over].tolist()),
        )
    _full_fork_join_cost(model, result, k)
    return result


def _exponential_latency(model: CellModel, result: AnalyticResult, k: int) -> None:
    """The (n, k) fork-join with Exp(mu) tasks, 1 < k <= n = N (all n tasks of a job
    start together on the n FCFS servers, the rest cancelled at the k-th completion:
    the model of the literature below), in closed form (:mod:`.forkjoin`):

    - n = k = 2: the exact mean of Flatto and Hahn / Nelson and Tantawi, kind ``exact``,
      in ``latency_approx`` and ``latency_lower`` both (the tightest lower bound);
    - otherwise ``latency_lower`` the lower bound of Joshi, Liu and Soljanin, never below
      Theorem 4's (which it replaces), and ``latency_approx`` the split-merge upper
      bound (Theorem 4, closed form), for k = n the smaller of it and Lemma 8's
      ``H_n / (mu - lam)`` (Nelson and Tantawi), closed form instead of the lattice that
      other laws need (:func:`_lemma8_latency`).

    k = n: the necessary stability bound ``lam < mu`` is also sufficient (the upper
    bound ``H_n / (mu - lam)`` is finite below it), so ``lambda_max`` is ``exact``.
    """
    N, mu = model.N, 1.0 / model.size.mean()
    if k == N:
        result.lambda_max_kind, result.lambda_sufficient = "exact", result.lambda_max
        result.add_note(
            "lambda_max is exact: with k = n nothing is cancelled, each server is an M/M/1 queue at the job "
            "rate, and the mean response time is at most H_n / (mu - lam), finite for every lam < mu",
            about="lambda_max",
        )
    if N == k == 2:
        exact = per_load(model, lambda lam: forkjoin.fork_join_22_exponential(lam, mu))
        result.latency_approx, result.latency_lower = exact, exact.copy()
        result.latency_approx_kind = "exact"
        result.add_note(
            "latency_approx and latency_lower: the exact mean response time of the (2, 2) fork-join "
            "with exponential tasks, (12 - rho) / 8 / (mu - lam) with rho = lam / mu (Flatto and Hahn "
            "1984; Nelson and Tantawi 1988)",
            about=("latency_approx", "latency_lower"),
        )
        return
    result.latency_lower = per_load(model, lambda lam: forkjoin.fork_join_lower_bound_exponential(lam, mu, N, k))
    result.add_note(
        "latency_lower: sum over j < k of 1 / ((n - j) mu - lam), the lower bound of Joshi, Liu and "
        "Soljanin (2012, 2014) for exponential tasks, tighter than the fork-join paper's Theorem 4",
        about="latency_lower",
    )
    split_merge = per_load(model, lambda lam: forkjoin.fork_join_split_merge_exponential(lam, mu, N, k))
    result.latency_approx = split_merge
    if k == N:
        lemma8 = per_load(model, lambda lam: forkjoin.fork_join_nn_upper_bound_exponential(lam, mu, N))
        _lemma8_latency(model, result, split_merge, lemma8, "H_n / (mu - lam) for exponential tasks")


def _lemma8_latency(
    model: CellModel, result: AnalyticResult, split_merge: np.ndarray, lemma8: np.ndarray, how: str
) -> None:
    """k = n: ``latency_approx`` the smaller of Theorem 4's split-merge upper bound and
    Lemma 8's (section 7.1; ``how`` it was computed), with a note saying which."""
    result.latency_approx = np.minimum(split_merge, lemma8)
    only = np.isinf(split_merge) & np.isfinite(lemma8)
    text = (
        "latency_approx: the smaller of Theorem 4's split-merge upper bound (M/G/1 "
        "with service X_{n:n}) and Lemma 8's for k = n (" + how + ", section 7.1)"
    )
    if only.any():
        result.add_note(
            text.replace("{", "{{").replace("}", "}}") + "; only Lemma 8's is finite at {loads}",
            about="latency_approx",
            loads=Load(model.loads[only].tolist()),
        )
    else:
        result.add_note(text, about="latency_approx")


def _full_fork_join_cost(model: CellModel, result: AnalyticResult, k: int) -> None:
    """The (n, k) fork-join's cost bounds (section 7.1), ``cost`` the lower one."""
    cb = forkjoin.fork_join_cost_bounds(model.size, model.N, k)
    result.cost_lower, result.cost_upper = cb.lower, cb.upper
    result.cost = cb.lower
    # shifted exponential: both bounds are n Delta + k / mu, equal up to rounding
    if math.isclose(cb.lower, cb.upper, rel_tol=1e-12):
        result.cost_kind = "exact"
    elif math.isfinite(cb.lower):
        result.cost_kind = "lower_bound"
        result.add_note(
            "server time per job in {cost} (fork-join paper, section 7.1 cost bounds, {tail} tail)",
            about="cost",
            cost=Time((cb.lower, cb.upper)),
            tail=cb.tail_class,
        )


def _fork_early_cancel(model: CellModel, k: int) -> AnalyticResult:
    """d = N, keep = k: (n, k) fork-early-cancel (section 7.3; k = 1 is M/G/n, section 5.2)."""
    X, N = model.size, model.N
    result = AnalyticResult(model.loads)
    bound = forkjoin.fork_early_cancel_stability(X, N, k)
    _set_stability(model, result, bound.rate, bound.kind)
    result.cost = result.cost_lower = result.cost_upper = forkjoin.fork_early_cancel_cost(X, k)
    result.cost_kind = "exact"
    if k == 1:
        estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
        result.latency_approx = np.array([e.latency for e in estimates])
        result.latency_approx_kind = estimates[0].latency_kind
    else:
        result.add_note(
            "latency_approx is NaN: the fork-join paper gives the latency of "
            "(n, k) fork-early-cancel only for k = 1 (M/G/n, section 5.2)",
            about="latency_approx",
        )
    return result


def _partial_fork(model: CellModel, k: int, keep: int) -> tuple[AnalyticResult, PaperCost | None]:
    """r_f = d < n, or k < keep < d: the paper gives the group-based estimate only."""
    N, d = model.N, model.d
    result = AnalyticResult(model.loads)
    _group_latency(model, result, [keep] * len(model.loads), k)
    result.add_note(
        f"latency_approx is NaN: the fork-join paper gives no latency for the simulated "
        f"(n, r_f, r, k) = ({N}, {d}, {keep}, {k}) system (a random r_f of the n servers); see "
        f"latency_group",
        about="latency_approx",
    )
    paper, reason = _kept_cost(model, keep, k)
    if paper is None:
        result.add_note(reason, about="cost")
    return result, paper


def _fork_join_strategy(model: CellModel, k: int) -> tuple[AnalyticResult, PaperCost | None]:
    """FJ ``keep: opt``: the general strategy of section 8.2 at each load.

    ``r_f = d`` (the network limit; the paper conjectures the largest allowed
    r_f is best) and r = keep minimises the estimated latency ``T_hat(r)``
    subject to ``C_hat(r) <= cost_limit`` (:func:`forkjoin.general_strategy`).
    ``T_hat`` and ``C_hat`` describe group-based random (n, r, k) (r tasks starting
    together; section 8.2 says they abstract from r_f and the start times), so
    ``T_hat`` goes to ``latency_group``; ``latency_approx`` only where the chosen
    system is the one ``T_hat`` describes (r = r_f = n: the (n, k) fork-join, exact
    for k = 1, split-merge upper bound otherwise). The cost: the bounds of
    :func:`_kept_cost` over the r chosen at the loads (the cell has one cost).
    """
    X, N, d = model.size, model.N, copies(model)
    c_max = float(model.params.get("cost_limit", math.inf))
    result = AnalyticResult(model.loads)
    if k > d:
        result.add_note(
            f"lambda_max, cost and latency_approx are NaN: keep: opt needs k <= d, got k = {k}, d = {d}",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result, None
    choices = [forkjoin.general_strategy(lam, X, N, k, c_max, rf_max=d) for lam in model.rates()]
    rs = [c.r for c in choices]
    result.keep_opt = np.array(rs, dtype=float)
    _group_latency(model, result, rs, k)
    full = np.array([r == d == N for r in rs])
    if full.any():
        assert result.latency_group is not None  # _group_latency set it
        result.latency_approx = np.where(full, result.latency_group, math.nan)
        result.latency_approx_kind = "exact" if k == 1 else "upper_bound"
    if not full.all():
        result.add_note(
            "latency_approx is NaN at {loads}: the fork-join paper gives no latency for the "
            "simulated (n, r_f, r, k) system with r_f = d = {d} (section 8.2's T_hat, in "
            "latency_group, is the group-based system's)",
            about="latency_approx",
            loads=Load(model.loads[~full].tolist()),
            d=d,
        )
    result.add_note(
        "section 8.2 strategy, r_f = d = {d}, cost limit {c_max}: keep {rs} at {loads} (C_hat {c_hat})",
        d=d,
        c_max=Time(c_max),
        rs=rs,
        loads=Load(tuple(model.loads.tolist())),
        c_hat=Time(tuple(c.cost_estimate for c in choices)),
    )
    infeasible = [float(lo) for lo, c in zip(model.loads, choices) if not c.feasible]
    if infeasible:
        result.add_note("no keep meets the cost limit at {loads}: the cheapest is used", loads=Load(tuple(infeasible)))
    costs = [_kept_cost(model, r, k) for r in sorted(set(rs))]
    found = [c for c, _ in costs if c is not None]
    if len(found) == len(costs):
        paper = PaperCost(
            min(c.lower for c in found),
            max(c.upper for c in found),
            "; ".join(c.source for c in found) + " (over the chosen keep)",
        )
        return result, paper
    result.add_note(next(reason for c, reason in costs if c is None), about="cost")
    return result, None
