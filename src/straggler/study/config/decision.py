"""The ``decision`` section: the operator's question, an SLO on the response time
(``decision.slo``), a cost budget (``decision.budget``), the rule for a cheaper policy and the
load resolution of located answers, as frozen :class:`.section.Section` classes.

It weighs the report's answer and ``winners.csv`` and changes no simulated or analytic number;
its checks are in :mod:`.checks.decision`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...common.quantiles import QUANTILES
from .section import OPTIONAL, Section, held


@dataclass(frozen=True, kw_only=True)
class SloConfig(Section):
    """``decision.slo``: a response-time quantile at most a target, or the mean at most one."""

    quantile: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The response-time quantile the target bounds, one of the levels the "
                "simulation estimates (default 0.99 when a target is given)."
            ),
            "enum": list(QUANTILES),
        },
    )
    target: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": "The largest acceptable value of that quantile, > 0, in the job sizes' unit.",
            "type": "number",
            "exclusiveMinimum": 0,
        },
    )
    mean: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "Instead of a quantile and a target: the largest acceptable mean response "
                "time E[T], > 0, in the job sizes' unit."
            ),
            "type": "number",
            "exclusiveMinimum": 0,
        },
    )

    SCHEMA_EXTRA: ClassVar[dict] = {
        # the default level applies to a target only: {mean: 2} stays as it is written
        "if": {"required": ["target"]},
        "then": {"properties": {"quantile": {"description": "0.99 unless given, with a target.", "default": 0.99}}},
    }

    @property
    def level(self) -> float | None:
        """The quantile level the SLO bounds, or None for the mean."""
        return None if self.mean is not None else self.quantile

    @property
    def bound(self) -> float:
        """The target value (of the quantile, or of the mean)."""
        return float(self.mean if self.mean is not None else self.target)  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class BudgetConfig(Section):
    """``decision.budget``: the server time a policy may spend beyond one copy of each job,
    the extra copies it may send per job, or both."""

    extra_load: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The largest acceptable extra load E[C] / E[X] - 1, >= 0: the server time "
                "per job E[C] relative to one copy of the job at full speed (0.1: at most "
                "10 % more server time than running each job once, on a fast server)."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 1000,
        },
    )
    hedges: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The most extra copies a job may send on average, >= 0: copies_mean - 1, the "
                "budget of a hedging stack (Finagle's maxExtraLoad, gRPC's and Envoy's hedges "
                "counted per request). A copy counts whether it ran or was cancelled before it "
                "started, so a hedge of a request stuck in a queue costs a hedge but little "
                "server time: extra_load counts that time."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 1000,
        },
    )

    SCHEMA_EXTRA: ClassVar[dict] = {"minProperties": 1}


@dataclass(frozen=True, kw_only=True)
class DecisionConfig(Section):
    """The ``decision`` section: the operator's constraints, which the report's answer and
    ``winners.csv`` weigh (they change no simulated or analytic number)."""

    slo: SloConfig | None = held(
        OPTIONAL,
        section=SloConfig,
        filled=False,
        default=None,
        schema={
            "description": (
                "The service-level objective: {quantile: q, target: t} (P_q of the response "
                "time at most t; q defaults to 0.99) or {mean: t} (E[T] at most t). Absent: "
                "no SLO."
            ),
        },
    )
    budget: BudgetConfig | None = held(
        OPTIONAL,
        section=BudgetConfig,
        filled=False,
        default=None,
        schema={
            "description": (
                "The cost budget: {extra_load: b} (server time), {hedges: h} (extra copies per "
                "job), or both. Absent: no budget."
            )
        },
    )
    prefer_cheaper_within: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The rule for a cheaper policy, x (0.05: 5 %): a policy within x of the "
                "fastest that costs at least x less E[C] is recommended instead (the "
                "cheapest such), both judged at the high ends of the intervals (E[T], or "
                "the SLO's quantile; E[C]). Default 0.05 without an SLO or a budget; 0 "
                "with either, where the budget says what cost is acceptable "
                "(docs/guide/decisions.md)."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 0.5,
        },
    )
    resolution: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The load resolution of located answers (e.g. 0.01): with it the study "
                "searches, per setting, each policy's stability and SLO frontiers and the "
                "loads where the recommendation changes, between the grid's loads, and "
                "writes capacity.csv and crossovers.csv (docs/guide/frontiers.md). Absent: "
                "answers only at the grid's loads."
            ),
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 0.5,
        },
    )
    max_jobs: int | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The cap on a probe of a located answer (a frontier, a crossover, a break-even "
                "delay): the measured jobs it may use at its load, all replications together. "
                "A probe whose confidence interval straddles what it is judged against is run "
                "on more replications (the ones already run are reused) until the interval "
                "clears it or this cap is reached. Default 16 times simulation.jobs x "
                "simulation.replications: a 4 times narrower interval (docs/guide/frontiers.md). "
                "An integer >= 1; at most jobs x replications: probes are never run longer."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 10000000000000,
        },
    )
    """Absent (None) unless given: 16 times the study's jobs per load."""
    dependence_source: str | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "Where the study's dependence between a request's copies was measured, in words "
                "(straggler fit --pairs -o writes it: the family, the file of pairs, how many, and "
                "whether the family fits them); the answer's assumption names it."
            ),
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
        },
    )
