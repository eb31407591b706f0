"""The tightest stability and cost bounds of a cell: the papers' and full-service accounting's.

Where several valid bounds exist, the tightest is kept (:func:`tightest_bounds`):
the fork-join paper's cost bounds for a symmetric policy that sends r replicas and
cancels on the first completion (section 6.1, Appendix B:
``E[X] <= E[C] <= r E[X_{1:r}]`` for log-concave tails, the reverse for log-convex
ones; FCFS, i.i.d. replicas), the stability bound they imply (``lambda E[C] < N``,
section 4.1), and the full-service bounds of :mod:`.replica_bounds`, which hold for
every cell (any speeds, dependence and discipline).

With a cancellation delay c > 0 (``CellModel.cancel_delay``: a copy cancelled in service
keeps its server c longer) every bound here is carried: a lower cost end and the
necessary bound only gain (c adds server time), an upper cost end adds c for each copy
that may be cancelled in service (:func:`.cancel_delay.orphans`), the sufficient bound
serves every replica in full and c (:func:`.replica_bounds.bounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...model.cell_model import CellModel
from ...model.dependence import IID, Mixture
from . import forkjoin, replica_bounds
from .cancel_delay import orphans, vouch
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

    A cancellation delay c > 0 leaves the start times independent of the job's sizes,
    so the paper's bounds hold for the server time above; each of the at most r - 1
    tasks cancelled in service adds c, hence the upper end ``+ (r - 1) c``.

    A mixture (copies one draw with probability c, else i.i.d.): the job's coin is its
    own, so the start times stay independent of it and of its sizes, and the bounds hold
    on each branch given the start times. On the identical branch the first task to
    start ends first, at ``X``, and a task that started at ``t_i`` has run
    ``(X - t_i)^+``: ``X <= C <= r X``. Hence ``c E[X] + (1 - c) lo <= E[C] <= c r E[X]
    + (1 - c) hi`` with the i.i.d. branch's ``[lo, hi]``.
    """
    X = model.size
    if model.discipline != "FCFS":
        return None, "the fork-join paper's cost bounds (section 6.1) need FCFS queues"
    if isinstance(model.dependence, Mixture):
        from dataclasses import replace

        iid, reason = partial_fork_cost(replace(model, dependence=IID()), r, source)
        if iid is None:
            return None, reason
        c, mean = model.dependence.identical, X.mean()
        lo = c * mean + (1.0 - c) * iid.lower
        hi = c * r * mean + (1.0 - c) * iid.upper
        if model.cancel_delay > 0.0:
            hi = c * (r * mean + (r - 1) * model.cancel_delay) + (1.0 - c) * iid.upper
        return PaperCost(
            lo, hi, f"{iid.source}, on the mixture's i.i.d. branch; its identical branch costs X <= C <= r X"
        ), ""
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
    if model.cancel_delay > 0.0:
        hi += (r - 1) * model.cancel_delay
        src += " + (r - 1) cancel_delay for the tasks cancelled in service"
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

    With a cancellation delay every value is carried (module docstring) and vouched for
    (:func:`.cancel_delay.vouch`). The note says which bound came from where; ``why``
    names the setting.
    """
    N = model.N
    pools = replica_bounds.Pools.of(model.system, N)
    b, (lower, lower_src), (upper, upper_src) = _full_service(model, pools, k, choice)
    if paper is not None:
        if paper.lower > lower * (1.0 + replica_bounds.EXACT_RTOL):
            lower, lower_src = paper.lower, paper.source
        if paper.upper < upper * (1.0 - replica_bounds.EXACT_RTOL):
            upper, upper_src = paper.upper, paper.source
    memoryless = (
        replica_bounds.memoryless_cost_lower(model.size, model.dependence, pools, k)
        if choice == "completion"
        else math.nan
    )
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
    _bounds_note(model, result, why, (lower, lower_src), (upper, upper_src), (necessary, nec_src), b.sufficient_rate)
    if model.cancel_delay > 0.0:
        vouch(result, ("lambda_max", "lambda_sufficient", "cost", "cost_lower", "cost_upper"))
    return result


def _full_service(model: CellModel, pools, k: int, choice: str):
    """The full-service bounds (:func:`.replica_bounds.bounds`) and the cost's ends
    ``(value, source)``, a cancellation delay carried: the sufficient bound holds every
    replica c longer, the lower cost gains c for each copy cancelled in service for
    certain, the upper one for each that may be (:func:`.cancel_delay.orphans`)."""
    d, c = copies(model), model.cancel_delay
    if c <= 0.0:
        b = replica_bounds.bounds(model.size, model.dependence, pools, d, k, choice)
        return b, (b.cost_lower, FULL_SERVICE), (b.cost_upper, FULL_SERVICE)
    certain, possible = orphans(model, d, k, choice)
    b = replica_bounds.bounds(model.size, model.dependence, pools, d, k, choice, c if possible else 0.0)
    return b, (b.cost_lower + certain * c, FULL_SERVICE), (b.cost_upper + possible * c, FULL_SERVICE)


def _bounds_note(model: CellModel, result: AnalyticResult, why: str, lower, upper, necessary, sufficient) -> None:
    """The note of :func:`tightest_bounds`: which bound came from where (each a
    ``(value, source)``), and the cancellation delay where it is carried."""
    (lo, lower_src), (hi, upper_src), (nec, nec_src) = lower, upper, necessary
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
    if model.cancel_delay > 0.0:
        text += (
            "; cancel_delay {delay} carried (each replica of the sufficient bound holds its server that long "
            "too, the cost counts it for each copy cancelled in service)"
        )
    result.add_note(
        text,
        about=("lambda_max", "cost"),
        why=why,
        cost=Time((lo, hi)),
        lower_src=lower_src,
        upper_src=upper_src,
        necessary=Load(model.to_load(nec)),
        nec_src=nec_src,
        sufficient=Load(model.to_load(sufficient)),
        **({"delay": Time(model.cancel_delay)} if model.cancel_delay > 0.0 else {}),
    )


def fill_bounds(
    result: AnalyticResult, model: CellModel, k: int, choice: str, why: str, paper: PaperCost | None = None
) -> AnalyticResult:
    """Fill what a paper's analysis of the cell leaves open (the stability bound, the
    cost) with :func:`tightest_bounds` (what it fills holds with a cancellation delay:
    it carries it)."""
    if math.isfinite(result.lambda_max) and math.isfinite(result.cost):
        return result
    bounds = tightest_bounds(model, why, k, choice, paper)
    filled: tuple[str, ...] = ()
    if not math.isfinite(result.lambda_max):
        result.lambda_max, result.lambda_max_kind = bounds.lambda_max, bounds.lambda_max_kind
        result.lambda_sufficient = bounds.lambda_sufficient
        result.rho = bounds.rho
        filled += ("lambda_max", "lambda_sufficient")
    if not math.isfinite(result.cost):
        result.cost, result.cost_kind = bounds.cost, bounds.cost_kind
        result.cost_lower, result.cost_upper = bounds.cost_lower, bounds.cost_upper
        filled += ("cost", "cost_lower", "cost_upper")
    result.note_items.extend(bounds.note_items)
    if model.cancel_delay > 0.0:
        vouch(result, filled)
    return result
