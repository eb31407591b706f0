"""The dispatcher: the analytic answers for one grid cell, whatever its policy.

Each policy maps to the best result that theory gives, with its kind
(``lambda_max_kind``: exact, necessary, sufficient, conjectured, approximate;
``cost_kind`` and ``latency_approx_kind``: exact, approximation, upper_bound,
lower_bound), through its family's handler (:data:`HANDLERS`): the threshold
paper's two-pool policies (:mod:`.two_pool_handlers`), the policies that copy a job
to d of N servers (:mod:`.d_of_n_handlers`), fork-join (:mod:`.fork_join_handlers`),
hedged requests (:mod:`.hedging_handlers`); where several valid bounds exist, the
tightest is kept (:mod:`.bounds`). Notes (:mod:`.notes`) say which paper applies, and
why a value is NaN or +inf; they are rendered in the dataset's load basis in one place
(:func:`analyze`), which also applies the rules every result obeys (a value derived for
instant cancellation is dropped where a cancelled copy keeps its server,
:mod:`.cancel_delay`; an exact value is its own bound; no NaN without a note).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ...model.cell_model import CellModel
from ...model.dependence import MeasuredPairs
from ...model.policies import POLICIES
from .cancel_delay import restrict
from .cell_setting import homogeneous
from .d_of_n_handlers import (
    analyze_cancel_on_complete,
    analyze_cancel_on_start,
    analyze_redundant_to_idle,
    analyze_rerouting,
)
from .fork_join_handlers import analyze_fork_join
from .hedging_handlers import analyze_hedging
from .mean_field_tier import add_mean_field
from .notes import Load, LoadUnit
from .result import AnalyticResult
from .two_pool_handlers import (
    analyze_full_redundancy,
    analyze_known_sizes,
    analyze_known_types,
    analyze_replication,
    analyze_zero_redundancy,
)

__all__ = ["HANDLERS", "AnalyticResult", "analyze"]


def analyze(model: CellModel) -> AnalyticResult:
    """The analysis of one cell. Handlers (and their papers' formulas) speak nominal
    load; a cell in another basis (``load_basis: redundancy``) is analysed in nominal
    units and converted here, the one place where loads change basis: the load-valued
    answers (``lambda_max``, ``lambda_sufficient``) and every :class:`.notes.Load`
    in the notes (rendered with the basis factor). ``rho`` (busiest server's
    utilisation), latencies and costs are per arrival rate, the same in both bases.
    """
    nominal = model
    if model.load_basis != "nominal":
        nominal = replace(model, loads=model.nominal_loads, load_basis="nominal")
    handler = HANDLERS.get(POLICIES[model.policy].analysis) if model.policy in POLICIES else None
    if handler is not None and isinstance(model.dependence, MeasuredPairs) and _copies(model) > 1:
        result = AnalyticResult(nominal.loads)
        result.add_note(
            "lambda_max, cost and latency_approx are NaN: with measured pairs replayed (kind pairs) the copies "
            "have the pairs' joint law, which no paper's analysis takes; the cell is simulated only (a fitted "
            "S&X or mixture has an analysis)",
            about=("lambda_max", "cost", "latency_approx"),
        )
    elif handler is not None and model.size.per_type and not POLICIES[model.policy].sizes_by_type:
        result = AnalyticResult(nominal.loads)
        result.add_note(
            f"lambda_max, cost and latency_approx are NaN: the analysis of {model.policy} has one size law for "
            "every job type; with a law per type (by_type) the cell is simulated only",
            about=("lambda_max", "cost", "latency_approx"),
        )
    elif handler is None:
        result = AnalyticResult(nominal.loads)
        result.add_note(
            f"lambda_max, cost and latency_approx are NaN: no analysis of {model.policy} yet",
            about=("lambda_max", "cost", "latency_approx"),
        )
    else:
        result = add_mean_field(nominal, restrict(nominal, handler(nominal)))
    _explain_infinite_latency(nominal, result)
    _exact_cost_is_both_bounds(result)
    _explain_missing(nominal, result)
    result = _proven(result)
    if model.load_basis != "nominal":
        result.loads = model.loads
        result.lambda_max = result.lambda_max * model.load_factor
        result.lambda_sufficient = result.lambda_sufficient * model.load_factor
        result.load_unit = LoadUnit(model.load_basis, model.load_factor)
    return result


def _copies(model: CellModel) -> int:
    """The copies a job of the cell may send (d, or the policy's own count)."""
    spec = POLICIES[model.policy]
    return int(model.d or 1) if spec.uses_d else int(spec.replicas)


def _proven(result: AnalyticResult) -> AnalyticResult:
    """An exact stability bound is also a sufficient one."""
    if result.lambda_max_kind == "exact" and math.isnan(result.lambda_sufficient):
        result.lambda_sufficient = result.lambda_max
    return result


def _exact_cost_is_both_bounds(result: AnalyticResult) -> None:
    """An exact cost is its own lower and upper bound (docs/reference/outputs.md: exact cells have
    ``cost_lower = cost_upper = cost``), so checks can read the bounds alone."""
    if result.cost_kind == "exact" and math.isfinite(result.cost):
        result.cost_lower = result.cost_upper = result.cost


def _explain_infinite_latency(model: CellModel, result: AnalyticResult) -> None:
    """Say why a latency is +inf (it is a value, not an error)."""
    latency, rho = result.latency_approx, result.rho
    assert latency is not None and rho is not None  # AnalyticResult.__post_init__ fills them
    infinite = np.isinf(latency)
    if not infinite.any():
        return
    _, m2 = model.dependence.replica_marginal_moments(model.size)
    if math.isinf(m2):
        result.add_note(
            "latency_approx is +inf: the replica size has an infinite second moment, so the "
            "Pollaczek-Khinchine waiting time is infinite",
            about="latency_approx",
        )
    overloaded = model.loads[infinite & (rho >= 1.0)]
    if overloaded.size:
        result.add_note(
            "latency_approx is +inf at {loads}: rho >= 1 (unstable)",
            about="latency_approx",
            loads=Load(overloaded.tolist()),
        )
    rest = model.loads[infinite & ~(rho >= 1.0)]
    if rest.size and not math.isinf(m2) and not result.explains("latency_approx"):
        result.add_note(
            "latency_approx is +inf at {loads}: the system the analysis uses for it is "
            "overloaded there (its kind says what it is)",
            about="latency_approx",
            loads=Load(rest.tolist()),
        )


def _explain_missing(model: CellModel, result: AnalyticResult) -> None:
    """No analytic value is NaN without a note: where a handler left one of the main
    values NaN and said nothing, say that no paper (and no project bound) gives it."""
    what = {"lambda_max": "a stability bound", "cost": "a server time per job", "latency_approx": "a mean latency"}
    for name, phrase in what.items():
        value = np.atleast_1d(getattr(result, name))
        said = any(name in item.about and name in item.text for item in result.note_items)
        if np.isnan(value).any() and not said:
            result.add_note(
                f"{name} is NaN: none of the four papers gives {phrase} for {model.policy} "
                f"in this setting ({_setting(model)})",
                about=name,
            )


def _setting(model: CellModel) -> str:
    parts = [f"{model.discipline}", f"{model.queueing} queues"]
    if model.system is not None:
        parts.append(f"pools {tuple(model.system.n)}")
    parts.append("identical servers" if homogeneous(model) else "job-server affinity")
    if model.d is not None:
        parts.append(f"d = {model.d} of N = {model.N}")
    return ", ".join(parts)


HANDLERS: dict[str, Callable[[CellModel], AnalyticResult]] = {
    "zero_redundancy": analyze_zero_redundancy,
    "known_types": analyze_known_types,
    "full_redundancy": analyze_full_redundancy,
    "rerouting": analyze_rerouting,
    "replication": analyze_replication,
    "known_sizes": analyze_known_sizes,
    "cancel_on_complete": analyze_cancel_on_complete,
    "cancel_on_start": analyze_cancel_on_start,
    "fork_join": analyze_fork_join,
    "redundant_to_idle": analyze_redundant_to_idle,
    "hedging": analyze_hedging,
}
"""The analyses by name: a policy names its own in the registry (PolicySpec.analysis)."""
