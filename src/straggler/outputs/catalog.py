"""The figure catalog: the table of figure kinds (:data:`FIGURE_KINDS`) and the names of
the figures a study produces, known from its grid before any job runs (Snakemake
declares them as outputs).

Every reader of a figure kind reads the table: the names of a study's figures
(:func:`figure_names`), the function that draws one (:func:`straggler.outputs.figures.make_figure`),
its caption in ``report.html`` (:func:`figure_caption`), its section there
(:func:`figure_section`) and its caption file in the Snakemake report
(:func:`figure_family`: ``workflow/report/figures/<family>.rst``). Light: the
Snakefile's parse imports this module, so it imports nothing heavier than the standard
library, and names the drawing functions rather than importing them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

NAMED_AXES = ("policy", "distribution", "dependence", "r_slow", "d", "N")
CASE_DIMS = ("distribution", "dependence")
"""The axes that make a figure's rows (a case: a job-size law and a dependence)."""

AXIS = "<axis>"
"""The end of the name of a kind drawn once per axis (``stability_vs_<axis>``)."""


def numeric(values) -> bool:
    """All values are real numbers (a bool is not)."""
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) and type(v).__name__ != "bool_" for v in values)


def _extra_axes(axes: dict[str, list]) -> list[str]:
    """The swept numeric axes but r_slow (which the base figures have on their x axis);
    an axis with an infinite value (a budget of .inf) has no place on an x axis: its
    values are variants."""
    return [
        name
        for name, values in axes.items()
        if name not in ("policy", "distribution", "dependence", "r_slow")
        and len(values) > 1
        and numeric(values)
        and all(math.isfinite(v) for v in values)
    ]


def _threshold_axes(axes: dict[str, list]) -> list[str]:
    return [name for name in _extra_axes(axes) if name == "tau" or name.endswith(".tau")]


def _parameter_axes(axes: dict[str, list]) -> list[str]:
    # a swept policy or distribution parameter (FJ.k, ...): cost against it
    return [name for name in _extra_axes(axes) if name not in ("d", "N")]


def _has_variants(axes: dict[str, list]) -> bool:
    # any swept parameter axis: one line per variant (every swept axis but the case)
    # (against the load: for studies that simulate, whose loads are many; an analytic
    # study has the same values against the swept parameter itself, cost_vs_<param>)
    return any(name not in NAMED_AXES and len(values) > 1 for name, values in axes.items())


def _has_laws(axes: dict[str, list]) -> bool:
    # simulated latencies per law: only when the study simulates
    return len(axes.get("distribution", [])) > 1


def map_axes(axes: dict[str, list]) -> list[str]:
    """The axes that get a winner map (``winners_<axis>``: that axis against the
    load): every swept axis but the policy and the case, or, when there is none, the
    swept case axis; none with a single policy (nothing to compare)."""
    if len(axes.get("policy", [])) < 2:
        return []
    swept = [n for n, v in axes.items() if n != "policy" and len(v) > 1]
    main = [n for n in swept if n not in CASE_DIMS]
    return main or [n for n in CASE_DIMS if n in swept][:1]


@dataclass(frozen=True)
class FigureKind:
    """A kind of figure: its name (``stability``) or, for a kind drawn once per axis,
    its name with :data:`AXIS` at the end (``stability_vs_<axis>``)."""

    name: str
    draw: str
    """The function that draws it, ``module:function`` in :mod:`straggler.outputs.figures`
    (called with the dataset, then :attr:`args`, then the axis of a per-axis kind)."""
    args: tuple[str, ...] = ()
    simulated: bool = False
    """Drawn only when the study simulates."""
    decision: bool = False
    """Drawn only for a study with a ``decision`` section (an SLO, a budget)."""
    located: bool = False
    """Drawn from ``capacity.csv`` by the ``locate`` rule (a study with
    ``decision.resolution``, :mod:`straggler.decide.frontier`), never by the figures rules."""
    axes: Callable[[dict[str, list]], list[str]] | None = None
    """A per-axis kind: the axes of a grid that get one."""
    when: Callable[[dict[str, list]], bool] | None = None
    """A kind with one name: whether a grid gets it (None: always)."""
    section: str = "summary"
    """Its section of ``report.html``."""
    family: str = ""
    """Its caption in the Snakemake report: ``workflow/report/figures/<family>.rst``."""
    caption: str = ""
    """What it shows, in words (``report.html``); :data:`AXIS` stands for the axis."""

    @property
    def per_axis(self) -> bool:
        return self.name.endswith(AXIS)

    @property
    def prefix(self) -> str:
        return self.name.removesuffix(AXIS)

    def names(self, axes: dict[str, list]) -> list[str]:
        """The names of the figures of this kind that a grid with these axes gets."""
        if self.axes is not None:
            return [self.prefix + name for name in self.axes(axes)]
        return [self.name] if self.when is None or self.when(axes) else []


FIGURE_KINDS: tuple[FigureKind, ...] = (
    FigureKind(
        "stability",
        "stability:stability_figure",
        section="stability",
        family="stability",
        caption=(
            "Each policy's largest stable load as an interval against x: a filled marker on a solid line "
            "where it is exact; a bar from the proven low end (a sufficient bound, a load the simulation "
            "found stable) to the proven high end (a necessary bound, a load found unstable); a one-sided "
            "bound as a dotted arrow from its end towards the side that is not known (up: at least, down: at "
            "most); an approximation that proves nothing as a small hollow marker. Policies are dodged side "
            "by side at each value."
        ),
    ),
    FigureKind(
        "load",
        "load:load_figure",
        section="stability",
        family="load",
        caption=(
            "Effective load of the busiest server against the nominal load (a bound on the capacity makes it "
            "the opposite bound on the effective load); the dashed grey line at 1 is saturation: a policy "
            "above it is unstable at that load."
        ),
    ),
    FigureKind(
        "cost",
        "cost:cost_figure",
        section="cost",
        family="cost",
        caption=(
            "Expected server time per job against r_slow, or against the first other swept numeric axis (d, "
            "say) when r_slow has one value: the analysis by kind (an exact value solid; a lower bound and "
            "cost_upper as the two ends of an interval, dash-dotted and dotted) and, just right of it, the "
            "simulated E[C] with its CI (clipped at 0) at the lightest load where the policy is stable "
            "(filled markers)."
        ),
    ),
    FigureKind(
        "latency",
        "latency:latency_figure",
        section="latency",
        family="latency",
        caption=(
            "Mean response time against load (log scale): the analysis in its kind's line style (exact "
            "solid, an approximation dashed, an upper bound dotted, a lower bound dash-dotted, with hollow "
            "markers), the simulation as filled markers with CI bars joined by a thin line, one colour and "
            "marker per policy; a simulated load that is unstable or undetermined has no estimate and gets "
            "a mark in a strip under its panel instead (x unstable, ? undetermined, ∞ an infinite mean)."
        ),
    ),
    FigureKind(
        "tradeoff",
        "tradeoff:tradeoff_figure",
        section="tradeoffs",
        family="tradeoff",
        caption=(
            "The latency-cost trade-off: E[T] (log scale) against E[C], a column per value of r_slow (at "
            "most four) where the study sweeps it, at one load: the heaviest at which half the policies have "
            "an estimate at every r_slow (redundancy costs server time where the slow pool is slow; at "
            "r_slow = 1 every E[C] is about one job's size); else a column per load (at most four). A point "
            "per policy and variant (d, policy parameters), the simulation's estimates with CI bars where it "
            "has them, else the analysis (hollow, by kind); the Pareto frontier (no other point is both "
            "faster and cheaper) as a black step line through ringed points. A policy without an estimate "
            "there gets its verdict mark (x unstable, ? undetermined) at the foot of the panel, at its "
            "analytic E[C]. Other system axes (N, ...) are taken at the value where the simulation has the "
            "most estimates; the title says which, and at which load."
        ),
    ),
    FigureKind(
        "capacity",
        "capacity:capacity_figure",
        located=True,
        section="decision",
        family="capacity",
        caption=(
            "Drawn for a study with decision.resolution: per setting (a panel per case, the other "
            "setting axes down), each contender's largest load under the SLO as the interval the search "
            "located between the grid's loads, a bar from the last load where the SLO is met (marked) "
            "to the first where it fails; a bar wider than the resolution is a stretch where the "
            "simulation could not tell (capacity.csv's slo_evidence says so). Behind it, faint, the "
            "contender's located stability frontier (a tick where the analysis knows it exactly). "
            "Without an SLO the bars are the stability frontiers."
        ),
    ),
    FigureKind(
        "decision",
        "decision:decision_figure",
        decision=True,
        section="decision",
        family="decision",
        caption=(
            "Drawn for a study with a decision section: its question, answered per setting: the SLO's "
            "metric (its quantile, e.g. P99, or E[T] for a mean SLO or none; log scale) against the extra load E[C]/E[X] - 1 (server time per job "
            "beyond one copy of the job at full speed), a point per contender (a policy, or a policy and its "
            "d) in its policy's colour and marker, named beside it, with the intervals the answer is decided "
            "on as bars (the simulation's CIs, analytic bounds or exact values; the oracles KT and KS are not "
            "contenders). The SLO target is the dashed horizontal line, the budget the dotted vertical one, "
            "and the corner that meets both is shaded; the answer (the fastest contender that qualifies) is "
            "ringed and named in the panel's title (a tie: every member ringed; none: no contender "
            "qualifies, and which constraint binds). One panel is one setting at one load, since the answer "
            "changes with the load and a marker per load would cross the bars of one panel: one setting "
            "(an operator's question) has a column per load; with at most four settings, a column per "
            "setting and a row per load (at most four, evenly spread); with "
            "more, each setting at the highest load at which a contender qualifies (else its lowest load "
            "with a point), the cases down and the other setting axes across (at most 24 panels; further "
            "axes at the value with the most estimates, as the title says). A contender unstable (x), "
            "undetermined (?) or without a finite interval (∞) at that load is left out and named in the "
            "panel's corner; a row or column without a point is left out, as the title says. A filled "
            "marker is a policy a client-side RPC stack can run alone, a hollow one a policy that needs "
            "the servers' help. A question that checks its assumption over c is drawn at the c it "
            "assumes, its panels as large as its legend; no name covers another (one with no room is "
            "listed under its panel)."
        ),
    ),
    FigureKind(
        "fleet",
        "fleet:fleet_figure",
        simulated=True,
        when=lambda axes: len(axes.get("N", [])) > 1 and numeric(axes["N"]),
        section="latency",
        family="fleet",
        caption=(
            "How the answer moves with the number of servers: the SLO's quantile of the response time "
            "(P99 when the study has no quantile SLO; log scale, top row of each case) and the extra load "
            "E[C]/E[X] - 1 (bottom row) against N (log scale), a column per load. Filled markers with CI "
            "bars: the simulation at each N (a fleet of more than 100 servers starts in equilibrium, "
            "docs/guide/fleets.md). A horizontal line ending in a hollow marker at the right edge: the "
            "policy's N -> infinity limit from the mean-field tier (its line style says its kind: exact "
            "for one copy to a random server, each server then an M/G/1 queue at any N). Where the "
            "markers reach their line the fleet behaves as its limit. The SLO target is the dashed line, the budget the dotted one."
        ),
    ),
    FigureKind(
        "stability_vs_<axis>",
        "stability:stability_figure",
        axes=_extra_axes,
        section="stability",
        family="stability_vs",
        caption=(
            "Each policy's largest stable load as an interval against <axis>: a filled marker on a solid line "
            "where it is exact; a bar from the proven low end (a sufficient bound, a load the simulation "
            "found stable) to the proven high end (a necessary bound, a load found unstable); a one-sided "
            "bound as a dotted arrow from its end towards the side that is not known (up: at least, down: at "
            "most); an approximation that proves nothing as a small hollow marker. Policies are dodged side "
            "by side at each value."
        ),
    ),
    FigureKind(
        "load_ratio_vs_<axis>",
        "load_ratio:load_ratio_figure",
        axes=_threshold_axes,
        section="stability",
        family="load_ratio_vs",
        caption=(
            "1 / lambda_max against a threshold on a log axis, one line per job-size law (shades of the "
            "policy's colour) and one panel per dependence and policy: on identical servers this is the "
            "speculation paper's load ratio L(tau) = rho(tau) / rho(inf) (its Fig. 1), since there "
            "lambda_max(inf) = 1 in load units; L < 1 means the timeout gains capacity."
        ),
    ),
    FigureKind(
        "latency_vs_<axis>",
        "latency_vs:latency_vs_figure",
        axes=_extra_axes,
        section="latency",
        family="latency_vs",
        caption=(
            "Mean response time against a swept axis (d, FJ.k), one row of panels per case and one column per "
            "load (at most four, increasing): the analysis by kind (a lower bound dash-dotted), the "
            "simulation with CI bars (log y, as latencies near saturation span orders of magnitude)."
        ),
    ),
    FigureKind(
        "cost_vs_<axis>",
        "against_axis:against_axis_figure",
        args=("cost",),
        axes=_parameter_axes,
        section="cost",
        family="cost_vs",
        caption=(
            "Mean cost against a swept parameter <axis>: E[C] against a policy's parameter (e.g. FJ.k), as "
            "the papers draw it, and the extra load E[C]/E[X] - 1 (server time beyond one copy a job) against "
            "any other axis (e.g. cancel_delay): one panel per case and "
            "policy, one shade of the policy's colour per load (light: low load); simulation with filled "
            "markers and CI bars, analytic values and bounds by kind."
        ),
    ),
    FigureKind(
        "latency_by_variant",
        "by_variant:by_variant_figure",
        args=("latency",),
        simulated=True,
        when=_has_variants,
        section="latency",
        family="latency_by_variant",
        caption=(
            "Mean latency against load, one line per variant (a combination of the swept grid axes other than "
            "the case, e.g. d = 4, FJ.keep = opt) in shades of its policy's colour: simulation with filled "
            "markers, analysis by kind."
        ),
    ),
    FigureKind(
        "cost_by_variant",
        "by_variant:by_variant_figure",
        args=("cost",),
        simulated=True,
        when=_has_variants,
        section="cost",
        family="cost_by_variant",
        caption=(
            "Mean cost against load, one line per variant (a combination of the swept grid axes other than "
            "the case, e.g. d = 4, FJ.keep = opt) in shades of its policy's colour: simulation with filled "
            "markers, analysis by kind."
        ),
    ),
    FigureKind(
        "latency_by_distribution",
        "latency_by_distribution:latency_by_distribution_figure",
        simulated=True,
        when=_has_laws,
        section="latency",
        family="latency_by_distribution",
        caption=(
            "Simulated mean response time with its CI per job-size law (in the study's order, e.g. by "
            "increasing variance), one panel per load (at most four), each policy in its colour and marker, "
            "dependences told apart by the marker's fill (filled, hollow, half): the near-insensitivity of "
            "the PS paper's Fig. 5. The y axis is not forced to 0, so differences of a percent stay visible. "
            "Other axes are taken at the value with the most estimates (the title says which)."
        ),
    ),
    FigureKind(
        "tail",
        "latency:tail_figure",
        simulated=True,
        section="latency",
        family="tail",
        caption=(
            "The tail: the simulated 99th percentile of the response time against load (log scale), marks "
            "where the verdict is not stable."
        ),
    ),
    FigureKind(
        "theory_vs_simulation",
        "theory_vs_simulation:theory_vs_simulation_figure",
        simulated=True,
        section="theory",
        family="theory_vs_simulation",
        caption=(
            "Theory against simulation: the relative error theory / simulation - 1 of the mean response time "
            "(left) and of the server time per job (right) against load, with its interval from the "
            "simulation's CI, a line per policy and grid setting in the style of the analytic value's kind "
            "(an upper bound should sit above 0, a lower bound below); symmetric-log y axis."
        ),
    ),
    FigureKind(
        "winners_<axis>",
        "winner_map:winner_map_figure",
        axes=map_axes,
        section="summary",
        family="winners",
        caption=(
            "Which policy wins where, over <axis> (rows of each map) and the load (columns): the smallest "
            "E[T] and the smallest E[C] at each load and the largest stable load (one column: it does not "
            "depend on the load), each decided as the recommendation is: where both have simulated "
            "replications on common random numbers, by the paired CI of their difference; else by disjoint "
            "intervals (exact values, bounds, the simulation's CIs). A cell in a policy's colour with its marker: that policy beats every other "
            "contender. A hatched grey cell with several markers: a tie, every policy that could be best (+n: "
            "more of them). x: no policy stable at that load. The oracles (KT, KS) are not contenders. The legend says "
            "what each policy drawn is, in the glossary's words."
        ),
    ),
)
"""Every kind of figure, in the order of a study's figures."""


def figure_names(axes: dict[str, list], simulated: bool = True, decision: bool = False) -> list[str]:
    """Names of the figures of a study whose grid has these axes. ``simulated``: the
    study's ``evaluate`` includes the simulation (adds the kinds that need it);
    ``decision``: the study has a ``decision`` section (adds the decision figure)."""
    return [
        name
        for kind in FIGURE_KINDS
        if (simulated or not kind.simulated) and (decision or not kind.decision) and not kind.located
        for name in kind.names(axes)
    ]


def figure_kind(name: str) -> FigureKind | None:
    """The kind of the figure called ``name`` (None for a name of no kind)."""
    for kind in FIGURE_KINDS:
        if kind.name == name:
            return kind
    for kind in FIGURE_KINDS:
        if kind.per_axis and name.startswith(kind.prefix):
            return kind
    return None


def figure_axis(name: str) -> str | None:
    """The axis of a figure of a per-axis kind (``d`` of ``latency_vs_d``), else None."""
    kind = figure_kind(name)
    return name.removeprefix(kind.prefix) if kind is not None and kind.per_axis else None


def figure_caption(name: str) -> str:
    """What a figure shows, in words."""
    kind = figure_kind(name)
    if kind is None:
        return name.replace("``", "")
    axis = figure_axis(name)
    return kind.caption if axis is None else kind.caption.replace(AXIS, axis)


def figure_section(name: str) -> str:
    """The section of ``report.html`` a figure belongs to."""
    kind = figure_kind(name)
    return "summary" if kind is None else kind.section


def figure_family(name: str) -> str:
    """The caption file of a figure in the Snakemake report
    (``workflow/report/figures/<family>.rst``): one per kind."""
    kind = figure_kind(name)
    return name if kind is None else kind.family


def figure_parts(names: list[str]) -> list[list[str]]:
    """The figures cut into the jobs that draw them side by side (every second figure
    to the second job), once there are enough to share: a job's start-up, matplotlib's
    imports and the dataset, is about 1.5 s, and drawing takes most of a simulated
    study's time after its cells."""
    jobs = 2 if len(names) > 3 else 1
    return [list(names[i::jobs]) for i in range(jobs)]
