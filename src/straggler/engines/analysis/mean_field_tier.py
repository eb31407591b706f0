"""The mean-field tier in a cell's analysis: the N -> infinity equilibrium of its policy
(:mod:`straggler.engines.mean_field`) at each load, where the tier solves the cell.

What it adds to the cell's :class:`~.result.AnalyticResult`:

- ``mean_field``: the equilibria, one per load (a fleet of servers may start from their
  workload, :mod:`straggler.study.fleet`);
- ``latency_approx`` of kind ``mean-field`` where the papers give no mean latency, or only
  the exponential mean-field closed form of Gardner et al. (2017), which the tier's
  value reproduces and which is relabelled ``mean-field`` (what it is: the limit, not
  the finite N's value); an ``exact`` value (ZRed's M/G/1, CoC with d = N) stays;
- ``latency_approx_quantile``, the response time's quantiles at the dataset's levels, of
  the same kind as ``latency_approx`` (ZRed's M/G/1 quantiles are exact at any N);
- ``cost_approx``, the limit's server time per job at each load (it depends on the load:
  the work of copies cut short), beside the papers' load-free ``cost`` and its bounds.

Where it applies: identical FCFS servers with a queue each (two equal pools for FRed),
copies cancelled at once, one size law for every job, fewer copies than servers (the
limit holds d fixed as N grows; d = N is one M/G/1 queue, exact elsewhere), and a solve
that reaches its tolerance (:data:`MAX_ERROR`).
"""

from __future__ import annotations

import math

import numpy as np

from ...common.quantiles import QUANTILES
from ...model.cell_model import CellModel
from ...model.policies import COC_CODE, FRED_CODE, ZRED_CODE
from ...model.policies import POLICIES as POLICY_SPECS
from .cell_setting import homogeneous
from .result import AnalyticResult

TOLERANCE = 1e-3
"""The relative error of E[T] each solve is asked for."""

MAX_ERROR = 1e-2
"""A solve whose estimated error exceeds this (a tail too heavy for its grid) adds nothing."""

KIND = "mean-field"


def copies_of(model: CellModel) -> int:
    """The copies a job of the cell sends: one (ZRed), one per pool (FRed: two), or d."""
    code = POLICY_SPECS[model.policy].kernel_code
    return 1 if code == ZRED_CODE else 2 if code == FRED_CODE else int(model.d or 1)


def applies(model: CellModel) -> str | None:
    """None where the tier solves the cell, else why not (in words)."""
    from ..mean_field import POLICIES, covered

    if model.policy not in POLICIES:
        return f"the mean-field tier does not solve {model.policy}"
    if model.discipline != "FCFS" or model.queueing != "per_server":
        return "the mean-field tier solves FCFS servers with a queue each"
    if not homogeneous(model) or (model.system is not None and len(set(model.system.n)) != 1):
        return "the mean-field tier solves identical servers (and equal pools)"
    if model.cancel_delay > 0.0:
        return "the mean-field tier assumes copies cancelled at once"
    if model.params.get("ps_bound") not in (None, "none"):
        return "a PS bound system"
    if model.size.per_type:
        return "a law per job type"
    code = POLICY_SPECS[model.policy].kernel_code
    if code == FRED_CODE and model.system is None:
        return f"{model.policy} needs two pools"
    d = copies_of(model)
    if d >= model.N:
        return f"d = {d} copies on N = {model.N} servers (the limit holds d fixed as N grows)"
    return covered(model.policy, model.dependence.to_spec())


def add_mean_field(model: CellModel, result: AnalyticResult) -> AnalyticResult:
    """``result`` with the tier's values (see the module docstring); as it was where the
    tier does not apply. ``model`` is in nominal load units."""
    if applies(model) is not None:
        return result
    from ..mean_field import solve

    d = int(model.d or 1)
    equilibria = []
    for load in np.asarray(model.loads, dtype=float):
        eq = solve(model.policy, d, model.size, model.dependence, float(load), TOLERANCE)
        equilibria.append(eq if (not eq.stable or eq.error <= MAX_ERROR) else None)
    if all(eq is None for eq in equilibria):
        return result
    result.mean_field = tuple(equilibria)
    mean = np.array([math.nan if eq is None else eq.latency_mean for eq in equilibria])
    quantiles = np.array(
        [
            np.full(len(QUANTILES), math.nan) if eq is None else eq.latency_quantile(np.array(QUANTILES))
            for eq in equilibria
        ]
    )
    one = POLICY_SPECS[model.policy].kernel_code == ZRED_CODE
    where = "each server an M/G/1 queue" if one else f"N -> infinity with d = {copies_of(model)} fixed"
    if result.latency_approx_kind == "exact":
        result.latency_approx_quantile = quantiles
        result.latency_approx_quantile_kind = "exact"
        result.add_note(
            "latency_approx_quantile: the response time's quantiles of the exact value's system "
            f"({where}), solved numerically to a relative error of {TOLERANCE:g}",
            about="latency_approx_quantile",
        )
    else:
        assert result.latency_approx is not None
        result.latency_approx_quantile = quantiles
        result.latency_approx_quantile_kind = KIND
        if not (np.isnan(result.latency_approx).all() or _closed_form(model, result)):
            # another analysis's approximation or bound stays; the limit's quantiles beside it
            result.add_note(
                f"latency_approx_quantile: the mean-field limit ({where}), solved to a relative error of {TOLERANCE:g}",
                about="latency_approx_quantile",
            )
            return _with_cost(result, equilibria)
        if not _closed_form(model, result):
            result.latency_approx = mean
        result.latency_approx_kind = KIND
        result.add_note(
            f"latency_approx (and its quantiles): the mean-field limit ({where}; Hellemans, Bodas and Van "
            f"Houdt 2019, Gardner et al. 2017), solved to a relative error of {TOLERANCE:g}; at finite N the "
            "servers interact and the value differs by O(1/N)",
            about=("latency_approx", "latency_approx_quantile"),
        )
    return _with_cost(result, equilibria)


def _closed_form(model: CellModel, result: AnalyticResult) -> bool:
    """The handler's value is the exponential closed form of the same limit (CoC with
    i.i.d. exponential copies, Gardner et al. 2017): kept, and labelled what it is."""
    from ...model.dependence import IID

    return (
        POLICY_SPECS[model.policy].kernel_code == COC_CODE
        and isinstance(model.dependence, IID)
        and model.size.family == "exponential"
        and result.latency_approx_kind == "approximation"
    )


def _with_cost(result: AnalyticResult, equilibria: list) -> AnalyticResult:
    # the limit's server time per job depends on the load (the work of copies cut short):
    # a variable by load, beside the load-free analytic cost and its bounds
    result.cost_approx = np.array([math.nan if eq is None else eq.cost for eq in equilibria])
    return result
