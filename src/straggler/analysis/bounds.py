"""The tightest stability and cost bounds of a cell: the papers' and full-service accounting's.

Where several valid bounds exist, the tightest is kept (:func:`tightest_bounds`):
the fork-join paper's cost bounds for a symmetric policy that sends r replicas and
cancels on the first completion (section 6.1, Appendix B:
``E[X] <= E[C] <= r E[X_{1:r}]`` for log-concave tails, the reverse for log-convex
ones; FCFS, i.i.d. replicas), the stability bound they imply (``lambda E[C] < N``,
section 4.1), and the full-service bounds of :mod:`.replica_bounds`, which hold for
every cell (any speeds, dependence and discipline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..cell_model import CellModel
from ..dependence import IID
from . import forkjoin, replica_bounds
from .cell_setting import copies
from .notes import Load, Time
from .result import AnalyticResult

FULL_SERVICE = "full-service accounting (replica_bounds)"


@dataclass(frozen=True)
class PaperCost:
    """A paper's bounds on the server time per job, with where they come from."""

    lower: float
    upper: float
    source: str


def _same(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= replica_bounds.EXACT_RTOL * max(abs(a), abs(b))


def partial_fork_cost(model: CellModel, r: int, source: str | None = None) -> tuple[PaperCost | None, str]:
    """The fork-join paper's cost bounds for a symmetric policy that gives a job r
    tasks of which the first to finish cancels the rest, the tasks possibly
    starting at different times (its (n, r, 1) partial fork with any symmetric
    choice of the r servers, e.g. uniform random; section 6.1, proof in Appendix
    B): ``E[X] <= E[C] <= r E[X_{1:r}]`` for a log-concave tail of X, the reverse
    for a log-convex one, ``E[C] = E[X]`` for the exponential
    (:func:`forkjoin.uniform_partial_fork_cost_bounds`).

    The proof writes the cost as ``C = S + sum_i (S - t_i)^+`` with ``t_i`` the
    tasks' start times relative to the first and ``S`` the first completion, and
    needs the start times to be independent of the job's own task sizes (true on
    FCFS queues, where they depend on the earlier jobs only), i.i.d. task sizes
    (section 2.1) and FCFS service (a task runs at full speed once started). So
    ``(None, reason)`` for PS, for identical or S&X replicas (the paper does not
    treat correlated tasks), and for a tail that is neither log-concave nor
    log-convex (Pareto type I, lognormal, ...), where the paper gives no bound.
    """
    X = model.size
    if model.discipline != "FCFS":
        return None, "the fork-join paper's cost bounds (section 6.1) need FCFS queues"
    if not isinstance(model.dependence, IID):
        return None, (
            "the fork-join paper assumes i.i.d. tasks (section 2.1), so its cost "
            "bounds (section 6.1) do not cover these replicas"
        )
    lo, hi, tc = forkjoin.uniform_partial_fork_cost_bounds(X, r)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None, (
            f"the fork-join paper's cost bounds (section 6.1) need a log-concave or "
            f"log-convex tail; the {X.family} tail is neither"
        )
    src = source or (
        f"fork-join paper, section 6.1 and Appendix B ({tc} tail: "
        + (
            "E[X] <= E[C] <= r E[X_{1:r}]"
            if tc == "log-concave"
            else "r E[X_{1:r}] <= E[C] <= E[X]"
            if tc == "log-convex"
            else "E[C] = E[X]"
        )
        + f", r = {r})"
    )
    return PaperCost(lo, hi, src), ""


MEMORYLESS = (
    "i.i.d. exponential replicas: server time accrues at least E[X] / r_max times as fast "
    "as the completion intensity (replica_bounds.memoryless_cost_lower)"
)


def tightest_bounds(
    model: CellModel, why: str, k: int = 1, choice: str = "completion", paper: PaperCost | None = None
) -> AnalyticResult:
    """Stability and cost bounds of a replicating policy: the tightest of the
    full-service bounds of :mod:`.replica_bounds` (valid for every cell) and a
    paper's cost bounds ``paper`` where one applies.

    - cost: ``cost_lower`` the larger lower bound, ``cost_upper`` the smaller upper
      one; ``cost`` is ``cost_lower`` (kind ``lower_bound``), ``exact`` when they meet;
    - stability: the servers must carry ``lambda E[C] < N`` (fork-join paper,
      section 4.1), so on identical servers ``N / cost_lower`` is a necessary
      bound on the arrival rate (with the full-service lower cost it is
      :mod:`.replica_bounds`' own necessary bound; with affinity that one, optimised
      over pool weights, is kept); sufficient: every replica served in full
      (replica_bounds). Kind ``exact`` when the two meet.

    The note says which bound came from where; ``why`` names the setting.
    """
    X, dep, N = model.size, model.dependence, model.N
    pools = replica_bounds.Pools.of(model.system, N)
    b = replica_bounds.bounds(X, dep, pools, copies(model), k, choice)
    lower, lower_src = b.cost_lower, FULL_SERVICE
    upper, upper_src = b.cost_upper, FULL_SERVICE
    if paper is not None:
        if paper.lower > lower * (1.0 + replica_bounds.EXACT_RTOL):
            lower, lower_src = paper.lower, paper.source
        if paper.upper < upper * (1.0 - replica_bounds.EXACT_RTOL):
            upper, upper_src = paper.upper, paper.source
    memoryless = replica_bounds.memoryless_cost_lower(X, dep, pools, k) if choice == "completion" else math.nan
    if memoryless > lower * (1.0 + replica_bounds.EXACT_RTOL):
        lower, lower_src = memoryless, MEMORYLESS
    necessary, nec_src = b.necessary_rate, FULL_SERVICE
    if (len(pools.n) == 1 or lower_src == MEMORYLESS) and lower_src != FULL_SERVICE and N / lower < necessary:
        # the N servers supply at most N of server time per unit time, whatever their speeds
        necessary = N / lower
        nec_src = "lambda E[C] < N (fork-join paper, section 4.1) with the lower cost bound"
    exact_rate = _same(necessary, b.sufficient_rate)
    exact_cost = _same(lower, upper)
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(necessary),
        lambda_max_kind="exact" if exact_rate else "necessary",
        lambda_sufficient=model.to_load(b.sufficient_rate),
        rho=model.rates() / necessary,
        cost=lower,
        cost_kind="exact" if exact_cost else "lower_bound",
        cost_lower=lower,
        cost_upper=upper,
    )
    sources = {lower_src, upper_src, nec_src} - {FULL_SERVICE}
    if sources:
        cost_src = "both: {lower_src}" if lower_src == upper_src else "lower: {lower_src}; upper: {upper_src}"
        text = (
            "{why}: server time per job in {cost} (" + cost_src + "); unstable above "
            "{necessary} (necessary: {nec_src}); stable below {sufficient} (sufficient: "
            "every replica served in full, replica_bounds)"
        )
    else:
        text = (
            "{why}: bounds from full-service accounting (replica_bounds): stable below "
            "{sufficient} (sufficient), unstable above {necessary} (necessary); server "
            "time per job in {cost}"
        )
    result.add_note(
        text,
        about=("lambda_max", "cost"),
        why=why,
        cost=Time((lower, upper)),
        lower_src=lower_src,
        upper_src=upper_src,
        necessary=Load(model.to_load(necessary)),
        nec_src=nec_src,
        sufficient=Load(model.to_load(b.sufficient_rate)),
    )
    return result


def fill_bounds(
    result: AnalyticResult, model: CellModel, k: int, choice: str, why: str, paper: PaperCost | None = None
) -> AnalyticResult:
    """Fill what a paper's analysis of the cell leaves open (the stability bound, the
    cost) with :func:`tightest_bounds`."""
    if math.isfinite(result.lambda_max) and math.isfinite(result.cost):
        return result
    bounds = tightest_bounds(model, why, k, choice, paper)
    if not math.isfinite(result.lambda_max):
        result.lambda_max, result.lambda_max_kind = bounds.lambda_max, bounds.lambda_max_kind
        result.lambda_sufficient = bounds.lambda_sufficient
        result.rho = bounds.rho
    if not math.isfinite(result.cost):
        result.cost, result.cost_kind = bounds.cost, bounds.cost_kind
        result.cost_lower, result.cost_upper = bounds.cost_lower, bounds.cost_upper
    result.note_items.extend(bounds.note_items)
    return result
