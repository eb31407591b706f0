"""The analysis of Hedge (hedged requests): its two limits, zero redundancy and cancel on
complete, and otherwise the pathwise bounds and light-traffic values of :mod:`.hedging`."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...model.cell_model import CellModel
from ...model.policies import POLICIES
from ...model.two_pools import assignment_fractions, optimal_assignment_no_redundancy
from . import hedging, replica_bounds
from .cancel_delay import vouch
from .cell_setting import copies, homogeneous
from .d_of_n_handlers import analyze_cancel_on_complete
from .mean_field_tier import add_mean_field
from .notes import Load, Time
from .result import AnalyticResult
from .two_pool_handlers import analyze_zero_redundancy

#: the policies Hedge becomes at its limits: never hedging, and all d copies at once
ZERO_REDUNDANCY = "ZRed"
CANCEL_ON_COMPLETE = "CoC"


def analyze_hedging(model: CellModel) -> AnalyticResult:
    """Hedge with d copies ``delay`` apart and the budget ``max_extra_load`` b.

    - ``delay = inf``, ``d = 1`` or ``b = 0``: no job is ever hedged, so it is zero
      redundancy: ZRed's analysis of the same cell (:func:`_as_zero_redundancy`);
    - ``delay = 0`` without a budget that binds (``b >= d - 1``: a job's tokens arrive
      with it, before its hedges) and with CoC's placement (one pool, or d = N): all d
      copies at once on d distinct random servers, cancelled on the first completion:
      CoC's analysis of the same cell (:func:`_as_cancel_on_complete`);
    - otherwise the bounds of :mod:`.hedging` (:func:`_hedge_bounds`).
    """
    d = copies(model)
    delay = float(model.params.get("delay", 1.0))
    budget = float(model.params.get("max_extra_load", math.inf))
    if d == 1 or math.isinf(delay) or budget == 0.0:
        why = "d = 1" if d == 1 else "delay = inf" if math.isinf(delay) else "max_extra_load = 0"
        return _as_zero_redundancy(model, why)
    unbudgeted = budget >= d - 1
    if delay == 0.0 and unbudgeted and (_identical_pools(model) or d == model.N):
        return _as_cancel_on_complete(model)
    result = _hedge_bounds(model, d, delay, unbudgeted)
    if delay == 0.0 and unbudgeted:
        result.add_note(
            "delay = 0 sends the d copies at once, but not CoC's placement: with two pools of different "
            "speeds the first hedge goes to the other pool, so CoC's analysis (d distinct servers at random) "
            "is not taken"
        )
    return result


def _identical_pools(model: CellModel) -> bool:
    """One pool, or two whose speeds are the same for every type: the hedges then go to
    servers without a copy drawn among all N, as CoC's copies do."""
    if model.system is None:
        return True
    speeds = np.asarray(model.system.speeds, dtype=float)
    return bool(np.all(speeds == speeds[0:1, :]))


def _as_zero_redundancy(model: CellModel, why: str) -> AnalyticResult:
    """A Hedge that never hedges is ZRed (one copy, a pool drawn with ZRed's assignment,
    which the simulation takes from the result): ZRed's analysis, whose values hold
    whatever the cancellation delay (nothing is cancelled)."""
    zred = replace(model, policy=ZERO_REDUNDANCY, params=dict(POLICIES[ZERO_REDUNDANCY].parameters))
    result = vouch(add_mean_field(zred, analyze_zero_redundancy(zred)))
    result.add_note(f"Hedge with {why} never hedges: zero redundancy, the analysis of {ZERO_REDUNDANCY}")
    return result


def _as_cancel_on_complete(model: CellModel) -> AnalyticResult:
    """Hedge sending its d copies at once (delay 0, no binding budget) on one pool or on
    all N servers is CoC with d copies: CoC's analysis (which says what holds with a
    cancellation delay)."""
    coc = replace(model, policy=CANCEL_ON_COMPLETE, params=dict(POLICIES[CANCEL_ON_COMPLETE].parameters))
    result = add_mean_field(coc, analyze_cancel_on_complete(coc))
    result.add_note(
        f"Hedge with delay = 0 and no binding budget sends its d copies at once: {CANCEL_ON_COMPLETE} with "
        f"d copies, its analysis"
    )
    return result


def _zero_redundancy_assignment(model: CellModel) -> np.ndarray | None:
    """ZRed's assignment (the first copy's pool), which the simulation then uses too;
    None without pools."""
    if model.system is None:
        return None
    bound = optimal_assignment_no_redundancy(model.system, model.size, model.dependence)
    return assignment_fractions(model.system, bound.q)


def _hedge_bounds(model: CellModel, d: int, delay: float, unbudgeted: bool) -> AnalyticResult:
    """Hedge in general (:mod:`.hedging`): ``latency_approx`` the pathwise lower bound
    ``E[min_i ((i - 1) delay + A_i)]`` (kind ``lower_bound``; exact in light traffic on
    identical servers); the cost between the bounds of :func:`hedging.cost_bounds`,
    ``cost`` the light-traffic cost (kind ``approximation``: exact as the load -> 0)
    on identical servers without a binding budget, else the lower bound; stability:
    necessary ``lambda E[C] < N`` with the lower cost, sufficient with every copy
    served in full (:func:`hedging.sufficient_rate`)."""
    X, dep, N, c, system = model.size, model.dependence, model.N, model.cancel_delay, model.system
    lower, upper = hedging.cost_bounds(X, dep, system, N, d, c)
    memoryless = replica_bounds.memoryless_cost_lower(X, dep, replica_bounds.Pools.of(system, N), 1)
    lower = max(lower, memoryless) if math.isfinite(memoryless) else lower
    necessary, sufficient = N / lower, hedging.sufficient_rate(X, dep, system, N, d, c)
    exact_rate = math.isclose(necessary, sufficient, rel_tol=replica_bounds.EXACT_RTOL)
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(necessary),
        lambda_max_kind="exact" if exact_rate else "necessary",
        lambda_sufficient=model.to_load(sufficient),
        rho=model.rates() / necessary,
        cost=lower,
        cost_kind="lower_bound",
        cost_lower=lower,
        cost_upper=upper,
        alpha=_zero_redundancy_assignment(model),
    )
    light = hedging.light_traffic(X, dep, delay, d) if homogeneous(model) else None
    latency = light.latency if light is not None else hedging.latency_lower_bound(X, dep, system, delay, d)
    result.latency_approx = np.full(len(model.loads), latency)
    result.latency_approx_kind = "lower_bound"
    if light is not None and unbudgeted:
        result.cost, result.cost_kind = light.cost(c), "approximation"
    _notes(model, result, light, unbudgeted, (necessary, sufficient))
    return vouch(result)


def _notes(model: CellModel, result: AnalyticResult, light, unbudgeted: bool, rates) -> None:
    """What :func:`_hedge_bounds` gives and why (its sources, the light-traffic limit, the budget)."""
    necessary, sufficient = rates
    where = "on identical servers" if light is not None else "with every copy at its type's fastest speed"
    result.add_note(
        "hedging (no paper): latency_approx is the pathwise lower bound E[min_i ((i - 1) delay + A_i)] "
        + where
        + (", the exact light-traffic latency" if light is not None and unbudgeted else ""),
        about="latency_approx",
    )
    result.add_note(
        "stable below {sufficient} (sufficient: every copy sent and served in full, plus cancel_delay {c}), "
        "unstable above {necessary} (necessary: lambda E[C] < N with E[C] >= the winner's service); server "
        "time per job in {cost}",
        about=("lambda_max", "cost"),
        sufficient=Load(model.to_load(sufficient)),
        necessary=Load(model.to_load(necessary)),
        c=Time(model.cancel_delay),
        cost=Time((result.cost_lower, result.cost_upper)),
    )
    if result.cost_kind == "approximation":
        result.add_note(
            "cost is the light-traffic cost sum_i E[(T0 - (i - 1) delay)^+] + cancel_delay E[copies "
            "cancelled with work left] (exact as the load -> 0, an approximation above)",
            about="cost",
        )
    elif not unbudgeted:
        result.add_note(
            "the budget may bind (max_extra_load < d - 1): the bounds with d copies hold (fewer copies only "
            "lengthen a job), the light-traffic values do not; cost is the lower bound",
            about=("cost", "latency_approx"),
        )
