"""The operator's question: which policy, with which d, meets an SLO within a budget.

A study's ``decision`` section states the constraints (:class:`Constraints`): an SLO on
the response time (a quantile at most a target, or the mean at most one) and a budget on
the extra load E[C] / E[X] - 1, the server time per job relative to one copy of the job
at full speed (:func:`straggler.decide.intervals.extra_load_intervals`). Each is checked with
the three-valued logic of the stability verdicts, on intervals:

- a contender **meets** a constraint when its whole interval (the quantile's CI, E[T]'s
  or the extra load's) is at most the bound, **fails** it when the whole interval is
  above, and is **undetermined** otherwise;
- a contender that fails is out; one that is undetermined may still be the answer, so it
  stays in the tie set unless a contender that surely qualifies beats it, and it never
  wins alone (:func:`straggler.decide.winners.decide` with ``sure``).

Three criteria join those of :mod:`straggler.decide.winners` in ``winners.csv``:

``tail``
    the smallest response-time quantile at the SLO's level (p99 without one), paired on
    the replications' own quantiles under common random numbers;
``slo``
    the cheapest contender (on E[C], paired) that meets the SLO; ``none meets`` when
    every one fails;
``budget``
    the fastest contender within the budget, on the SLO's quantile when one is given,
    otherwise on E[T]; ``none within budget`` when every one is over.

The answer (:func:`answer`) joins both constraints: the fastest contender, on the SLO's
quantile (E[T] for a mean SLO or none), among those that meet the SLO and keep within
the budget, a tie narrowed by E[C] among the tied; when none qualifies it says which
constraint binds. A contender is a policy, or a (policy, d) or (policy, parameter) pair
where the study sweeps d or a parameter (:class:`straggler.decide.winners.PointTable`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from ..model.distributions.units import with_unit
from .intervals import (
    copy_mean,
    extra_load_intervals,
    fmt_interval,
    fmt_signed,
    hedges_intervals,
    tail_intervals,
)
from .winners import (
    COLUMNS,
    NONE_STABLE,
    Decision,
    PointTable,
    decide,
    decided_by,
    decision_row,
    evidence_words,
    heavy_unknown,
    on_tail,
    plain,
    undecidable,
    winners,
)

DEFAULT_TAIL = 0.99
"""The quantile of the ``tail`` criterion when no SLO names one."""

DEFAULT_CHEAPER_WITHIN = 0.05
"""``decision.prefer_cheaper_within`` without an SLO or a budget: a policy at most 5 %
slower than the fastest is recommended when it is cheaper. With an SLO or a budget the
default is 0: the budget is the operator's own word on cost."""

MEETS, FAILS, UNDETERMINED = "meets", "fails", "undetermined"


@dataclass(frozen=True)
class Constraints:
    """A study's ``decision`` section: the SLO (``level`` None: on the mean) and the budget."""

    target: float | None = None
    """The SLO's bound (None: no SLO)."""
    level: float | None = None
    """The quantile the SLO bounds (None: the mean)."""
    budget: float | None = None
    """The largest extra load (None: no budget)."""
    cheaper_within: float = DEFAULT_CHEAPER_WITHIN
    """Within this fraction of the fastest, the cheapest is recommended (:func:`cheaper_near`)."""
    hedges: float | None = None
    """The most extra copies sent per job, ``copies_mean - 1`` (None: no such budget)."""
    unit: str = ""
    """The unit of the study's times (``ms``; ``""``: unit-free, :mod:`straggler.model.distributions.units`)."""

    @property
    def any(self) -> bool:
        return self.target is not None or self.budget is not None or self.hedges is not None

    @property
    def budgeted(self) -> bool:
        """A budget is stated: on the extra load, the hedges, or both."""
        return self.budget is not None or self.hedges is not None

    @property
    def tail_level(self) -> float:
        """The quantile of the ``tail`` criterion: the SLO's, else p99."""
        return self.level if self.level is not None else DEFAULT_TAIL

    @property
    def slo_criterion(self) -> str:
        """The criterion the SLO is read on: ``tail`` (a quantile) or ``latency`` (E[T])."""
        return "latency" if self.level is None else "tail"

    def slo_words(self) -> str:
        """``P99 <= 10``, ``E[T] <= 2``."""
        if self.target is None:
            return ""
        return f"{metric_name(self.level)} <= {self.target:g}" + (f" {self.unit}" if self.unit else "")

    def budget_words(self) -> str:
        """``extra load <= 0.1``, ``hedges per job <= 0.05``, or both."""
        words = [] if self.budget is None else [f"extra load <= {self.budget:g}"]
        if self.hedges is not None:
            words.append(f"hedges per job <= {self.hedges:g}")
        return " and ".join(words)

    def rule_words(self) -> str:
        """The rule that picks the answer, as applied (:func:`cheaper_near`), e.g. "the
        least E[T], unless a policy within 5 % of it costs at least 5 % less E[C] ..."."""
        metric = metric_name(self.level) if self.slo_criterion == "tail" else "E[T]"
        if self.any:
            asked = " and ".join(w for w in (self.slo_words(), self.budget_words()) if w)
            fastest = f"the least {metric} among the policies with {asked}"
        else:
            fastest = f"the least {metric}"
        if self.cheaper_within <= 0:
            return f"{fastest}, a tie broken by the least E[C]"
        x = percent(self.cheaper_within)
        return (
            f"{fastest}, unless a policy within {x} of it costs at least {x} less E[C] "
            "(judged at the high ends of the intervals): then the cheapest such"
        )


def percent(fraction: float) -> str:
    """``5 %`` for 0.05."""
    return f"{100 * fraction:.3g} %"


def metric_name(level: float | None) -> str:
    """``P99``, ``P99.9``, ``P50``; ``E[T]`` for None."""
    if level is None:
        return "E[T]"
    return f"P{100 * level:g}"


def decision_section(ds: xr.Dataset) -> dict:
    """The ``decision`` section of the study that made ``ds`` ({} without one)."""
    import yaml

    try:
        return dict((yaml.safe_load(ds.attrs["config"]) or {}).get("decision") or {})
    except (KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError):
        return {}


def constraints(ds: xr.Dataset) -> Constraints:
    """The constraints of the study that made ``ds`` (its config's ``decision``), its
    times in the dataset's ``time_unit``."""
    return constraints_of(decision_section(ds), str(ds.attrs.get("time_unit", "")))


def constraints_of(decision: dict, unit: str = "") -> Constraints:
    """:class:`Constraints` from a resolved ``decision`` section (a dict), its times in
    ``unit``."""
    slo = decision.get("slo") or {}
    budget = decision.get("budget") or {}
    if "mean" in slo:
        target, level = float(slo["mean"]), None
    elif "target" in slo:
        target, level = float(slo["target"]), float(slo.get("quantile", DEFAULT_TAIL))
    else:
        target, level = None, None
    extra, hedges = budget.get("extra_load"), budget.get("hedges")
    within = decision.get("prefer_cheaper_within")
    if within is None:
        within = DEFAULT_CHEAPER_WITHIN if target is None and extra is None and hedges is None else 0.0
    return Constraints(
        target,
        level,
        None if extra is None else float(extra),
        float(within),
        None if hedges is None else float(hedges),
        unit,
    )


def status(low: float, high: float, bound: float) -> str:
    """``meets`` (the whole interval at most ``bound``), ``fails`` (all above) or
    ``undetermined``."""
    if high <= bound:
        return MEETS
    if low > bound:
        return FAILS
    return UNDETERMINED


# ------------------------------------------------------------------ the table's criteria


def _with_place(iv: xr.Dataset, table: PointTable) -> xr.Dataset:
    """``iv`` with the ``present`` and ``verdict`` of the latency intervals."""
    lat = table.iv["latency"]
    return iv.assign(present=lat["present"], verdict=lat["verdict"])


def decision_table(ds: xr.Dataset, c: Constraints | None = None) -> PointTable:
    """The :class:`PointTable` of ``ds`` with the criteria ``tail`` (at the SLO's level,
    paired on the replications' quantiles) and ``extra_load`` added."""
    c = constraints(ds) if c is None else c
    table = PointTable(ds)
    tail = _with_place(tail_intervals(ds, c.tail_level), table)
    reps = None
    if "latency_replication_quantile" in ds and "quantile" in ds.dims:
        reps = ds["latency_replication_quantile"].sel(quantile=c.tail_level, method="nearest").drop_vars("quantile")
    table.add("tail", tail, reps)
    table.tail_label = metric_name(c.tail_level)
    extra_iv = extra_load_intervals(ds)
    extra = _with_place(extra_iv, table)
    reps = None
    if "cost_replication_mean" in ds:
        reps = (ds["cost_replication_mean"] / copy_mean(ds) - 1.0).where(extra_iv["reliable"])
    table.add("extra_load", extra, reps)
    table.add("hedges", _with_place(hedges_intervals(ds), table))
    table.constraints = c  # type: ignore[attr-defined]
    return table


def _statuses(table: PointTable, crit: str, at: tuple, bound: float) -> dict[str, str]:
    return {x.name: status(x.low, x.high, bound) for x in table.candidates(crit, at)}


def slo_statuses(table: PointTable, c: Constraints, at: tuple) -> dict[str, str]:
    """Per contender (stable at the load), whether it meets the SLO."""
    if c.target is None:
        return {}
    return _statuses(table, c.slo_criterion, at, c.target)


def budget_statuses(table: PointTable, c: Constraints, at: tuple) -> dict[str, str]:
    """Per contender, whether it keeps within the budget: its extra load, its hedges per
    job, or both (:func:`joined_statuses`)."""
    maps = []
    if c.budget is not None:
        maps.append(_statuses(table, "extra_load", at, c.budget))
    if c.hedges is not None:
        maps.append(_statuses(table, "hedges", at, c.hedges))
    return joined_statuses(*maps) if maps else {}


def _constrained(
    table: PointTable, crit: str, at: tuple, allowed: dict[str, str], label: str, none_word: str
) -> Decision:
    """The decision on ``crit`` among the contenders ``allowed`` does not rule out
    (``meets`` ones sure, ``undetermined`` ones possible)."""
    every = table.candidates(crit, at)
    cands = [x for x in every if allowed.get(x.name, FAILS) != FAILS]
    if not cands:
        stable = every or not table.arrays[crit]["present"][at].any()
        return Decision(label, (), False, math.nan, math.nan, none_word if stable else NONE_STABLE)
    sure = {n for n, s in allowed.items() if s == MEETS}
    d = decide(cands, label, table.level, table.paired, minimise=True, sure=sure)
    if not sure:
        d = Decision(
            label,
            d.winners,
            False,
            d.low,
            d.high,
            f"{none_word} surely; undetermined: " + evidence_words(x.evidence for x in cands),
            d.runner_up,
            d.margin,
            d.undetermined,
            d.contenders,
        )
    return d


def joined_statuses(*maps: dict[str, str]) -> dict[str, str]:
    """Contenders' statuses under several constraints: fails if any fails, meets if all
    meet, else undetermined (a contender missing from a map fails it)."""
    names = set(maps[0]).intersection(*maps[1:]) if maps else set()
    out = {}
    for n in names:
        s = [m[n] for m in maps]
        out[n] = FAILS if FAILS in s else MEETS if all(x == MEETS for x in s) else UNDETERMINED
    return out


def decide_criterion(table: PointTable, crit: str, at: tuple) -> Decision:
    """One of ``tail``, ``slo``, ``budget`` at a (setting, load) point."""
    c: Constraints = table.constraints  # type: ignore[attr-defined]
    if crit == "tail":
        return table.decide("tail", at)
    if crit == "slo":
        return _constrained(table, "cost", at, slo_statuses(table, c, at), "slo", "none meets")
    if crit == "budget":
        return _constrained(table, c.slo_criterion, at, budget_statuses(table, c, at), "budget", "none within budget")
    raise ValueError(f"not a decision criterion: {crit}")


def criteria(c: Constraints, simulated: bool = True) -> tuple[str, ...]:
    """The decision criteria of a study with constraints ``c``: ``tail`` when the
    quantiles were simulated, ``slo`` and ``budget`` when stated."""
    stated = {"tail": simulated, "slo": c.target is not None, "budget": c.budgeted}
    return tuple(name for name, given in stated.items() if given)


def _span(table: PointTable, crit: str, at: tuple, names) -> tuple[float, float, str]:
    """The hull (low, high) of the intervals of ``names`` on ``crit``, and their
    evidence; NaN and ``""`` without one."""
    xs = [x for x in table.candidates(crit, at, with_oracles=True) if x.name in set(names)]
    if not xs:
        return math.nan, math.nan, ""
    return min(x.low for x in xs), max(x.high for x in xs), evidence_words(x.evidence for x in xs)


def _extra_hull(table: PointTable, at: tuple, names) -> tuple[float, float]:
    low, high, _ = _span(table, "extra_load", at, names)
    return low, high


DECISION_COLUMNS = (*COLUMNS, "extra_load_low", "extra_load_high")
"""The columns of ``winners.csv`` after the setting's axes: :data:`straggler.decide.winners.COLUMNS`
and the extra load of the winners (the hull of their intervals; empty for stability)."""


def _simulated(ds: xr.Dataset) -> bool:
    return "latency_quantile" in ds and bool(np.isfinite(np.asarray(ds["latency_quantile"].values, float)).any())


def winners_table(ds: xr.Dataset, table: PointTable | None = None) -> pd.DataFrame:
    """``winners.csv``: every criterion of :func:`straggler.decide.winners.winners`, then
    ``tail``, ``slo`` and ``budget`` per load (:func:`criteria`), then the
    ``recommended`` answer per load (:func:`recommended_row`, its ``basis`` as the
    evidence), each row with the extra load of its winners."""
    table = decision_table(ds) if table is None else table
    c: Constraints = table.constraints  # type: ignore[attr-defined]
    base = winners(ds, table)
    extra = []
    for r in base.to_dict("records"):
        if r["load"] == "" or not r["winners"]:
            extra.append((math.nan, math.nan))
            continue
        index = tuple(list(ds[d].values).index(r[d]) for d in table.dims)
        li = list(ds["load"].values).index(r["load"])
        extra.append(_extra_hull(table, (*index, li), r["winners"].split(", ")))
    base["extra_load_low"] = [e[0] for e in extra]
    base["extra_load_high"] = [e[1] for e in extra]
    rows = []
    for crit in criteria(c, _simulated(ds)):
        for index, li in table.points():
            if li is None:
                continue
            at = (*index, li)
            d = decide_criterion(table, crit, at)
            row = decision_row(table, index, li, d)
            lo, hi = _extra_hull(table, at, d.winners)
            row.update(criterion=crit, winners_with_oracles="", extra_load_low=lo, extra_load_high=hi)
            rows.append(row)
    for index, li in table.points():
        if li is not None:
            rows.append(recommended_row(table, index, li))
    out = pd.concat([base, pd.DataFrame(rows)], ignore_index=True) if rows else base
    return out.reindex(columns=[*table.dims, *DECISION_COLUMNS])


def recommended_row(table: PointTable, index: tuple, li: int) -> dict:
    """The ``recommended`` row of ``winners.csv`` at a setting and load: the answer
    (:func:`answer`), its interval on the metric it was decided on (E[T], or the tail
    quantile where the SLO is on it or E[T] could not decide), its ``basis`` as the
    evidence, the runner-up and margin."""
    r = answer(table, index, li)
    names = [n for n in str(r["recommended"]).split(", ") if n]
    low, high, _ = _span(table, r["metric"], (*index, li), names)
    out = dict(table.setting(index))
    out.update(
        load=r["load"],
        criterion="recommended",
        winners=r["recommended"],
        decided="true" if r["decided"] else "false",
        low=low,
        high=high,
        evidence=r["basis"],
        runner_up=r["runner_up"],
        margin=r["margin"],
        undetermined=r["undetermined"],
        winners_with_oracles="",
    )
    out["extra_load_low"], out["extra_load_high"] = _extra_hull(table, (*index, li), names)
    return out


# ------------------------------------------------------------------ the answer


ANSWER_COLUMNS = (
    "load",
    "recommended",
    "basis",
    "decided by",
    "E[T]",
    "E[T] evidence",
    "tail",
    "extra load",
    "hedges",
    "E[C]",
    "E[C] evidence",
    "runner_up",
    "margin",
    "binding",
    "what would change it",
    "decided",
    "undetermined",
    "tied",
)
"""The columns of :func:`recommendations` after the setting's axes: the E[T]-alone
recommendation's (:data:`straggler.decide.winners.REC_COLUMNS`) with the tail, the extra load,
the constraint that binds and what would change the answer, whether it is decided, and
the tie set before E[C] narrowed it (``tied``)."""


def hull_words(table: PointTable, crit: str, at: tuple, names) -> tuple[str, str]:
    """The hull of the intervals of ``names`` on ``crit`` in words, and their evidence."""
    low, high, evidence = _span(table, crit, at, names)
    if not evidence and math.isnan(low):
        return "", ""
    fmt = fmt_signed if crit in ("extra_load", "hedges") else fmt_interval
    return fmt(low, high), evidence


def _over_budget(table: PointTable, at: tuple, name: str, c: Constraints) -> list[str]:
    """How the contender ``name`` is over the budget, in words: its extra load, its hedges."""
    out = []
    for crit, bound, words in (("extra_load", c.budget, "extra load"), ("hedges", c.hedges, "hedges per job")):
        found = [x for x in table.candidates(crit, at) if x.name == name]
        if bound is not None and found and found[0].low > bound:
            out.append(f"its {words} {fmt_signed(found[0].low, found[0].high)} is above {bound:g}")
    return out


def _what_would_change(table: PointTable, at: tuple, metric: str, slo, budget, chosen: list[str]) -> str:
    """In words, what would change the answer: the fastest contender a constraint rules
    out and by how much it misses; where none qualifies, the nearest miss of each
    constraint (the cheapest contender that meets the SLO, the fastest within the budget)."""
    c: Constraints = table.constraints  # type: ignore[attr-defined]
    name = metric_name(c.tail_level) if metric == "tail" else "E[T]"
    speed = {x.name: x for x in table.candidates(metric, at)}
    if chosen:
        best = min((speed[n].high for n in chosen if n in speed), default=math.inf)
        for x in sorted((x for n, x in speed.items() if n not in chosen and x.high < best), key=lambda x: x.high):
            why = []
            if slo is not None and slo.get(x.name) == FAILS:
                why.append(
                    f"its {name} {with_unit(fmt_interval(x.low, x.high), c.unit)} is above {with_unit(f'{c.target:g}', c.unit)}"
                )
            if budget is not None and budget.get(x.name) == FAILS:
                why += _over_budget(table, at, x.name, c)
            if why:
                return (
                    f"{x.name} is faster ({name} {with_unit(fmt_interval(x.low, x.high), c.unit)}), but "
                    + " and ".join(why)
                )
        return ""
    if not speed:
        return ""  # no policy stable: no constraint to relax
    out = []
    if slo is not None:
        d = _constrained(table, "cost", at, slo, "slo", "none meets")
        verb = "meets" if len(d.winners) == 1 else "meet"
        at_most = f"extra load {hull_words(table, 'extra_load', at, d.winners)[0]}"
        out.append(f"{', '.join(d.winners)} {verb} the SLO at {at_most}" if d.winners else "none meets the SLO")
    if budget is not None:
        d = _constrained(table, metric, at, budget, "budget", "none within budget")
        verb = "keeps" if len(d.winners) == 1 else "keep"
        value = f"{name} {hull_words(table, metric, at, d.winners)[0]}"
        out.append(
            f"{', '.join(d.winners)} {verb} within the budget at {value}"
            if d.winners
            else "none keeps within the budget"
        )
    return "; ".join(out)


def cheaper_near(
    table: PointTable, at: tuple, metric: str, chosen: list[str], within: float, allowed: set[str] | None = None
) -> tuple[list[str], Decision, float] | None:
    """The rule "within x of the fastest, take the cheapest", where differences under x
    do not count on either metric: the contenders (of ``allowed``) whose interval on
    ``metric`` has its high end at most ``1 + within`` times the least high end of
    ``chosen`` (the fastest), and whose E[C] has its high end at most ``1 - within``
    times the chosen's; of those, the E[C] decision. Comparing high ends, the slowest
    and dearest each could be, keeps a noisy contender from looking near or cheap.
    Returns the cheapest, that decision and the E[C] saved (high end to high end), or
    None when the fastest stays."""
    if within <= 0 or not chosen:
        return None
    speed = {x.name: x for x in table.candidates(metric, at)}
    cost = {x.name: x for x in table.candidates("cost", at)}
    fastest = min((speed[n].high for n in chosen if n in speed), default=math.nan)
    dearest = min((cost[n].high for n in chosen if n in cost), default=math.nan)
    if not (math.isfinite(fastest) and math.isfinite(dearest)):
        return None
    near = {
        n
        for n, x in speed.items()
        if n not in chosen
        and x.high <= (1 + within) * fastest
        and n in cost
        and cost[n].high <= (1 - within) * dearest
        and (allowed is None or n in allowed)
    }
    if not near:
        return None
    d = table.decide("cost", at, among=near)
    if not d.winners:
        return None
    saved = dearest - max(cost[n].high for n in d.winners)
    return list(d.winners), d, saved


def _prefer_cheaper(table: PointTable, at: tuple, metric: str, row: dict, allowed: set[str] | None) -> list[str]:
    """Apply :func:`cheaper_near` to an answer ``row``: where a cheaper contender is near
    the fastest, it becomes the answer, with the fastest as its runner-up and the E[C]
    it saves as the margin. Returns the recommended names."""
    c: Constraints = table.constraints  # type: ignore[attr-defined]
    chosen = [n for n in row["recommended"].split(", ") if n]
    swap = cheaper_near(table, at, metric, chosen, c.cheaper_within, allowed)
    if swap is None:
        return chosen
    names, cost, saved = swap
    name = metric_name(c.tail_level) if metric == "tail" else "E[T]"
    x = percent(c.cheaper_within)
    row["recommended"] = ", ".join(names)
    row["basis"] = f"E[C] {x} lower, {name} within {x} of {', '.join(chosen)}" + ("" if cost.decided else " (tie)")
    row["decided by"] = CHEAPER_RULE if len(cost.contenders) == 1 else f"{CHEAPER_RULE}, then {decided_by(cost)}"
    row["decided"] = bool(cost.decided)
    row["runner_up"], row["margin"] = ", ".join(chosen), saved
    row["undetermined"] = ", ".join(cost.undetermined)
    row["E[T]"], row["E[T] evidence"] = hull_words(table, "latency", at, names)
    row["E[C]"], row["E[C] evidence"] = hull_words(table, "cost", at, names)
    return names


CHEAPER_RULE = "high ends of the intervals"
"""``decided by`` where :func:`cheaper_near` picked the answer."""


def answer(table: PointTable, index: tuple, li: int) -> dict:
    """The answer at one setting and load (see the module docstring): the recommended
    contender or tie set, what picked it, its E[T], tail, extra-load and E[C]
    intervals, the runner-up and its margin on the deciding metric, and the constraint
    that binds (``slo``, ``budget``, ``both``: what rules out the faster contenders).
    Without constraints, the E[T] recommendation (:func:`straggler.decide.winners.recommend`)."""
    from .winners import recommend

    c: Constraints = table.constraints  # type: ignore[attr-defined]
    at = (*index, li)
    row = dict(table.setting(index))
    row["load"] = plain(table.ds["load"].values[li])
    slo = slo_statuses(table, c, at) if c.target is not None else None
    budget = budget_statuses(table, c, at) if c.budgeted else None
    maps = [m for m in (slo, budget) if m is not None]
    joined = joined_statuses(*maps)
    note = ""  # why E[T] could not decide, where the tail quantile did
    if not maps:
        base = recommend(table, index, li)
        row.update(base)
        tied = table.decide("latency", at).winners
        row["tied"] = ", ".join(tied)
        if on_tail(base["basis"]):
            # decided on the tail: the cheaper-policy rule reads the tail too, among the
            # contenders E[T] does not rule out
            note = "E[T] " + base["basis"].split("(E[T] ", 1)[1].rstrip(")")
            metric = "tail"
            chosen = _prefer_cheaper(table, at, "tail", row, set(tied))
        else:
            metric = "latency"
            chosen = _prefer_cheaper(table, at, "latency", row, None)
        row["binding"] = row["what would change it"] = ""
    else:
        metric = c.slo_criterion
        d = _constrained(table, metric, at, joined, "answer", "none qualifies")
        qualify = {n for n, s in joined.items() if s != FAILS}
        if metric == "latency" and not d.decided and d.winners:
            # E[T] cannot decide where a tied contender's response time has an infinite
            # variance: the tail quantile decides among the tied that qualify
            unknown, why = heavy_unknown(table, at, d.winners)
            if unknown and why:
                metric, note, qualify = "tail", undecidable(why), qualify & set(d.winners)
                d = _constrained(table, "tail", at, {n: joined[n] for n in d.winners}, "answer", "none qualifies")
        chosen = list(d.winners)
        row["tied"] = ", ".join(chosen)
        # the constraints themselves are stated once, above the rows (report, best)
        basis = f"fastest {metric_name(c.tail_level) if metric == 'tail' else 'E[T]'} that qualifies"
        if len(chosen) > 1:
            cost = table.decide("cost", at, among=set(chosen))
            if cost.winners and len(cost.winners) < len(chosen):
                chosen = list(cost.winners)
                basis += ", a tie narrowed by E[C]"
            else:
                basis += " (tie)"
        row["recommended"] = ", ".join(chosen)
        row["basis"] = (basis + (f" ({note})" if note else "")) if chosen else d.evidence
        row["decided by"] = decided_by(d)
        row["decided"] = bool(d.decided)
        row["E[T]"], row["E[T] evidence"] = hull_words(table, "latency", at, chosen)
        row["E[C]"], row["E[C] evidence"] = hull_words(table, "cost", at, chosen)
        row["runner_up"] = d.runner_up
        row["margin"] = d.margin
        row["undetermined"] = ", ".join(d.undetermined)
        row["binding"] = _binding(table, at, metric, slo, budget, chosen)
        row["what would change it"] = _what_would_change(table, at, metric, slo, budget, chosen)
        chosen = _prefer_cheaper(table, at, metric, row, qualify)
    if note and note not in str(row["basis"]):  # the cheaper-policy rule's words replaced it
        row["basis"] += f" ({note})"
    row["metric"] = metric
    row["tail"] = hull_words(table, "tail", at, chosen)[0]
    row["extra load"] = hull_words(table, "extra_load", at, chosen)[0]
    row["hedges"] = hull_words(table, "hedges", at, chosen)[0]
    return row


def _binding(table, at, metric, slo, budget, chosen) -> str:
    """Which constraint rules out the contenders faster than the answer (on
    ``metric``): ``slo``, ``budget``, ``both``, or ``""`` when none is faster."""
    cands = {x.name: x for x in table.candidates(metric, at)}
    if not cands:
        return ""
    best_high = min((cands[n].high for n in chosen if n in cands), default=math.inf)
    faster = [n for n, x in cands.items() if n not in chosen and x.high < best_high]
    by = set()
    for n in faster:
        if slo is not None and slo.get(n) == FAILS:
            by.add("slo")
        if budget is not None and budget.get(n) == FAILS:
            by.add("budget")
    if not by:
        if not chosen:
            failing = {"slo" for s in (slo or {}).values() if s == FAILS}
            failing |= {"budget" for s in (budget or {}).values() if s == FAILS}
            by = failing
        else:
            return ""
    return "both" if by == {"slo", "budget"} else by.pop()


def recommendations(ds: xr.Dataset, table: PointTable | None = None) -> pd.DataFrame:
    """One :func:`answer` row per setting and load (:data:`ANSWER_COLUMNS`)."""
    table = decision_table(ds) if table is None else table
    rows = [answer(table, index, li) for index, li in table.points() if li is not None]
    return pd.DataFrame(rows, columns=[*table.dims, *ANSWER_COLUMNS])


def candidate_parts(name: str) -> tuple[str, dict[str, str]]:
    """``"CoC d=3"`` -> ``("CoC", {"d": "3"})``."""
    policy, *rest = name.split(" ")
    return policy, dict(part.split("=", 1) for part in rest if "=" in part)


def changed(table: PointTable, rec: pd.DataFrame) -> tuple[int, int]:
    """(points whose recommendation the constraints change, points): the answers
    ``rec`` (rows of :func:`recommendations`) against the E[T]-alone recommendation."""
    from .winners import recommend

    loads = list(table.ds["load"].values)
    k = 0
    for row in rec.to_dict("records"):
        # an axis the rows leave out (a trace's resamples: the trace's own rows) is at 0
        index = tuple(list(table.ds[d].values).index(row[d]) if d in row else 0 for d in table.dims)
        k += row["recommended"] != recommend(table, index, loads.index(row["load"]))["recommended"]
    return k, len(rec)
