"""Which policy wins each point of a study's grid, by dominance of intervals.

Every value is an interval from its best evidence (:mod:`straggler.decide.intervals`). At a
point (a setting, and a load for E[T] and E[C]) and for one criterion:

- ``a`` beats ``b`` (:func:`beats`) when ``a``'s interval lies entirely on the better
  side of ``b``'s (minimising: ``a.high < b.low``; stability: ``a.low > b.high``),
  or, where the dataset carries per-replication means (``latency_replication_mean``,
  ``cost_replication_mean``) of both, was simulated with common random numbers
  (attribute ``common_random_numbers = "true"``), by a paired Student-t CI of the
  per-replication difference over the replications both have: ``a`` beats ``b`` when
  that CI lies entirely on the better side of 0 (at the study's
  ``simulation.confidence``); an exact value is never paired: its point against the
  other's interval decides;
- the unbeaten are the contenders no other contender beats; the tie set is every
  contender that no unbeaten one beats (the unbeaten themselves included; all
  contenders when nobody is unbeaten, as in a cycle). This is well defined whether or
  not the pairwise decisions are transitive, and for intervals it is exactly the
  policies that could be best (minimising: ``low <= min over the others of high``);
- the point is decided when the tie set has one member: it then beats every other
  contender. Otherwise the answer is the tie set, never one name for a tie.

Contenders: the policies evaluated at the setting (oracles left out unless asked
for, :data:`ORACLES`); for E[T] and E[C] not those whose verdict at the load is
``unstable`` (they cannot win there). An ``undetermined`` contender stays in the tie
set unless it is beaten; it never blanks the point. Where the study sweeps ``d`` or a
policy's parameter, a (policy, value) pair is a contender of its own (``CoC d=3``,
:class:`PointTable`), and the axis is chosen over rather than fixed.

A contender may also be known to qualify or not (an SLO met or undetermined,
:mod:`straggler.decide.decision`): then only a contender known to qualify rules another out
(:func:`decide` with ``sure``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from ..model import policies
from .intervals import (
    CRITERIA,
    EXACT,
    HEAVY_TAIL,
    MINIMISE,
    UNRELIABLE,
    confidence,
    fmt_interval,
    intervals,
    setting_dims,
    spread,
)

__all__ = [
    "CRITERIA",
    "Candidate",
    "Decision",
    "ORACLES",
    "beats",
    "decide",
    "fmt_interval",
    "recommendations",
    "setting_dims",
    "winners",
]

ORACLES = policies.ORACLES
"""Policies that know each job's type or size (``PolicySpec.oracle``): benchmarks,
not options; left out of the contenders (column ``winners_with_oracles`` has them)."""

REPLICATION_VARS = {"latency": "latency_replication_mean", "cost": "cost_replication_mean"}
"""Per-replication means of a criterion (dims: the grid's, ``load``, ``replication``)."""

PAIRED = "paired simulation"
NONE_STABLE = "no policy stable"


def plain(value):
    """A numpy scalar as the Python value (for tables and JSON)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class Candidate:
    """One policy's interval for one criterion at one point."""

    name: str
    low: float
    high: float
    evidence: str = ""
    estimate: float = math.nan
    verdict: str = ""
    replications: np.ndarray | None = field(default=None, compare=False)
    """Per-replication means (NaN where a replication does not exist), for pairing."""


@dataclass(frozen=True)
class Decision:
    """The answer for one criterion at one point."""

    criterion: str
    winners: tuple[str, ...]
    decided: bool
    low: float
    high: float
    evidence: str
    runner_up: str = ""
    margin: float = math.nan
    undetermined: tuple[str, ...] = ()
    contenders: tuple[str, ...] = ()


_WORDS = ("exact", "bound", "verdicts", "simulation", "unreliable CI", "undetermined", "estimate only")


def evidence_words(evidences) -> str:
    """The distinct words of several evidence labels, in a fixed order (``exact,
    bound, simulation``)."""
    words: set[str] = set()
    for e in evidences:
        for part in str(e).replace("conflict: ", "conflict + ").split(" + "):
            if part:
                words.add(part.strip())
    order = {w: i for i, w in enumerate(_WORDS)}
    return ", ".join(sorted(words, key=lambda w: (order.get(w, len(order)), w)))


def interval_beats(a: Candidate, b: Candidate, minimise: bool) -> bool:
    """``a``'s interval entirely on the better side of ``b``'s."""
    return bool(a.high < b.low) if minimise else bool(a.low > b.high)


def beats(a: Candidate, b: Candidate, minimise: bool, level: float = 0.95, paired: bool = False) -> tuple[bool, str]:
    """Whether ``a`` beats ``b``, and how (``"paired"`` or ``"interval"``). With
    ``paired`` and per-replication means of both, the paired CI decides the pair, unless
    one of them is exact: an exact value has no sampling error to pair away, so its point
    against the other's interval decides (pairing it would add the noise of its own
    simulation, and with few replications a Student-t CI of a few degrees of freedom
    straddles 0 where the interval excludes the value)."""
    exact = EXACT in (a.evidence, b.evidence)
    if paired and not exact and a.replications is not None and b.replications is not None:
        # imported here: the simulation package pulls numba (~1.3 s), which the figures'
        # and the report's jobs otherwise never import
        from ..engines.simulation.statistics import paired_ci

        ci = paired_ci(a.replications, b.replications, level)
        if ci is not None:
            return (ci[1] < 0 if minimise else ci[0] > 0), "paired"
    return interval_beats(a, b, minimise), "interval"


def _tie_reason(tied: list[Candidate], level: float, paired: bool) -> str:
    """Why the first two of a tie set stand together, in words: ``; CoC - RIQ: paired CI
    [-1.9, 0.31] includes 0`` or ``; CoC [13.2, 13.4] and RIQ [13.3, 15.3] overlap``
    ("" for fewer than two, or where the pair is not a tie by itself: a cycle)."""
    if len(tied) < 2:
        return ""
    a, b = sorted(tied, key=lambda c: (c.low, c.high))[:2]
    if UNRELIABLE in (a.evidence, b.evidence) or not all(map(math.isfinite, (a.low, a.high, b.low, b.high))):
        return ""  # an unknown value ties by its own evidence, which the words already say
    exact = EXACT in (a.evidence, b.evidence)
    if paired and not exact and a.replications is not None and b.replications is not None:
        from ..engines.simulation.statistics import paired_ci

        ci = paired_ci(a.replications, b.replications, level)
        if ci is not None:
            if ci[0] <= 0 <= ci[1]:
                return f"; {a.name} - {b.name}: paired CI [{ci[0]:.4g}, {ci[1]:.4g}] includes 0"
            return ""
    if a.low == a.high == b.low == b.high:
        return f"; {a.name} and {b.name} are both {fmt_interval(a.low, a.high)}"
    if a.low <= b.high and b.low <= a.high:
        return f"; {a.name} {fmt_interval(a.low, a.high)} and {b.name} {fmt_interval(b.low, b.high)} overlap"
    return ""


def _hull(cands: list[Candidate]) -> tuple[float, float]:
    if not cands:
        return math.nan, math.nan
    return min(c.low for c in cands), max(c.high for c in cands)


def decide(
    candidates: list[Candidate],
    criterion: str,
    level: float = 0.95,
    paired: bool = False,
    minimise=None,
    sure: set[str] | None = None,
) -> Decision:
    """The winner or the tie set among ``candidates`` (see the module docstring).

    ``sure``: the names of the contenders known to qualify (the others may or may not:
    a policy whose SLO is undetermined). Only a sure contender rules another out, so
    the tie set keeps every contender that could be the answer, and the point is
    decided only when that is one sure contender. None: every contender is sure."""
    minimise = MINIMISE[criterion] if minimise is None else minimise
    names = tuple(c.name for c in candidates)
    if not candidates:
        return Decision(criterion, (), False, math.nan, math.nan, "no contender", contenders=names)
    n = len(candidates)
    is_sure = np.array([sure is None or c.name in sure for c in candidates], dtype=bool)
    win = np.zeros((n, n), dtype=bool)
    how = np.full((n, n), "", dtype=object)
    for i, a in enumerate(candidates):
        for j, b in enumerate(candidates):
            if i != j and is_sure[i]:
                win[i, j], how[i, j] = beats(a, b, minimise, level, paired)
    unbeaten = [j for j in range(n) if is_sure[j] and not win[:, j].any()]
    ties = list(range(n)) if not unbeaten else [j for j in range(n) if not win[unbeaten, j].any()]
    tied = [candidates[k] for k in ties]
    decided = len(ties) == 1 and bool(is_sure[ties[0]])
    undetermined = tuple(c.name for c in tied if c.verdict == "undetermined" or not is_sure[candidates.index(c)])
    others = [c for k, c in enumerate(candidates) if k not in ties]
    low, high = _hull(tied)
    runner, margin = "", math.nan
    if others:
        if minimise:
            r = min(others, key=lambda c: (c.low, c.high))
            margin = r.low - min(c.high for c in tied)
        else:
            r = max(others, key=lambda c: (c.high, c.low))
            margin = max(c.low for c in tied) - r.high
        runner = r.name
        if decided and how[ties[0], candidates.index(r)] == "paired":
            from ..engines.simulation.statistics import paired_ci  # lazy: see beats

            ci = paired_ci(tied[0].replications, r.replications, level)
            if ci is not None:
                margin = -ci[1] if minimise else ci[0]
        if not math.isfinite(margin):
            margin = math.nan
        elif abs(margin) < 1e-12:  # the open end of a verdict (one ulp): touching ends
            margin = 0.0
    if decided and n == 1 and tied[0].verdict == "undetermined":  # nothing beaten: not a win
        return Decision(criterion, names, False, low, high, "only contender (undetermined)", "", math.nan, names, names)
    if decided:
        used_paired = any(how[ties[0], j] == "paired" and win[ties[0], j] for j in range(n) if j != ties[0])
        evidence = PAIRED if used_paired else tied[0].evidence
    else:
        evidence = "tie: " + evidence_words(c.evidence for c in tied) + _tie_reason(tied, level, paired)
    return Decision(
        criterion, tuple(c.name for c in tied), decided, low, high, evidence, runner, margin, undetermined, names
    )


# ------------------------------------------------------------------ over a dataset


def _paired_flag(ds: xr.Dataset) -> bool:
    return str(ds.attrs.get("common_random_numbers", "")).strip().lower() == "true"


def candidate_axes(ds: xr.Dataset) -> list[str]:
    """The swept axes that describe the policy rather than the workload (``d``, a
    policy's parameter such as ``Rer.tau`` or ``tau``): a (policy, d) or (policy,
    parameter) pair is a contender of its own, so these axes are chosen over, not fixed."""
    from ..study.grid import is_policy_axis

    return [d for d in setting_dims(ds) if ds.sizes[d] > 1 and is_policy_axis(d)]


def _uses_axis(ds: xr.Dataset):
    """``(policy, axis) -> bool``: does the policy's model depend on the axis (ZRed
    ignores d)? From the study's config; every axis counts without one."""
    import yaml

    from ..study.config.resolved import ResolvedConfig
    from ..study.grid import policy_uses_axis

    try:
        resolved = ResolvedConfig.from_dict(yaml.safe_load(ds.attrs["config"]))
    except Exception:  # noqa: BLE001 - a dataset without its config (synthetic data)
        return lambda policy, axis: True

    def uses(policy: str, axis: str) -> bool:
        try:
            return policy_uses_axis(policy, axis, resolved)
        except KeyError:  # a name outside the registry
            return True

    return uses


def candidate_name(policy: str, values: dict) -> str:
    """``CoC d=3``, ``Rer tau=0.5``: a policy and the values of its swept axes (a
    parameter axis ``Rer.tau`` named by its parameter, a number as ``%g`` writes it)."""

    def key(axis: str) -> str:
        return axis.split(".", 1)[1] if "." in axis else axis

    def value(v) -> str:
        v = plain(v)
        return f"{v:g}" if isinstance(v, float) else str(v)

    return " ".join([policy, *(f"{key(a)}={value(v)}" for a, v in values.items())])


class PointTable:
    """The intervals of a dataset as arrays indexed by (setting..., [load], contender),
    to build the :class:`Candidate` lists of a point quickly.

    A contender is a policy, or with ``over_candidates`` (the default) a policy with a
    value of each swept policy axis (:func:`candidate_axes`) that it depends on: with
    ``d: [2, 3]`` the contenders are ``CoC d=2``, ``CoC d=3`` and ``ZRed`` (once), and
    the setting is the other axes. The cells of one workload share its random streams
    whatever d and the policy's parameters are, so every pair is compared paired."""

    def __init__(self, ds: xr.Dataset, over_candidates: bool = True):
        self.ds = ds
        self.candidate_axes = candidate_axes(ds) if over_candidates else []
        self.dims = [d for d in setting_dims(ds) if d not in self.candidate_axes]
        self.iv = intervals(ds)
        self.level = confidence(ds)
        self.paired = _paired_flag(ds)
        self.tail_label = ""
        """The name of the ``tail`` criterion's quantile (``P99``) once it is added
        (:func:`straggler.decide.decision.decision_table`); ``""`` without it."""
        self._contenders()
        self.arrays: dict[str, dict[str, np.ndarray]] = {}
        for crit, iv in self.iv.items():
            rep = REPLICATION_VARS.get(crit)
            reps = ds[rep] if rep and rep in ds else None
            if reps is not None and "reliable" in iv:
                reps = reps.where(iv["reliable"])  # an unreliable CI pairs nothing either
            self.add(crit, iv, reps)

    def _contenders(self) -> None:
        """The contenders (names, policies, the flat positions in policy x candidate
        axes they are read from): one per distinct model, in policy order."""
        ds, axes = self.ds, self.candidate_axes
        uses = _uses_axis(ds) if axes else None
        names, policies, positions, seen = [], [], [], set()
        values = [list(ds[a].values) for a in axes]
        for k, p in enumerate(str(x) for x in ds["policy"].values):
            for j, combo in enumerate(itertools.product(*values)):
                own = {a: v for a, v in zip(axes, combo) if uses is not None and uses(p, a)}
                key = (p, tuple(own.items()))
                if key in seen:
                    continue
                seen.add(key)
                names.append(candidate_name(p, own))
                policies.append(p)
                positions.append(k * max(1, math.prod(len(v) for v in values)) + j)
        self.policies = names
        """The contenders' names (the policies' names without swept policy axes)."""
        self.policy_of = policies
        self._positions = np.asarray(positions, dtype=int)

    def flat(self, array: xr.DataArray | np.ndarray, lead: list[str], trail: tuple[str, ...] = ()) -> np.ndarray:
        """``array`` as (lead..., contender, trail...): a DataArray with those dims, or
        their values in that order."""
        order = [*lead, "policy", *self.candidate_axes, *trail]
        values = array.variable.transpose(*order).values if isinstance(array, xr.DataArray) else array
        nlead = len(lead)
        shape = values.shape
        flat = values.reshape(shape[:nlead] + (-1,) + shape[nlead + 1 + len(self.candidate_axes) :])
        return np.take(flat, self._positions, axis=nlead)

    def add(self, crit: str, iv: xr.Dataset, replications: xr.DataArray | None = None) -> None:
        """Index the intervals ``iv`` (with ``low``, ``high``, ``estimate``, ``evidence``,
        ``present`` and, per load, ``verdict``) of a criterion, and the per-replication
        values that pair its comparisons."""
        lead = [*self.dims, *(["load"] if "load" in iv["low"].dims else [])]
        keys = ("low", "high", "estimate", "evidence", "present", "verdict", "reason")
        arrays = {k: self.flat(iv[k], lead) for k in keys if k in iv}
        if replications is not None:
            like = iv["low"]
            values = spread(replications, like, ("replication",))
            order = [*lead, "policy", *self.candidate_axes, "replication"]
            axes = [(*like.dims, "replication").index(d) for d in order]
            arrays["replications"] = self.flat(np.transpose(values, axes), lead, ("replication",))
        self.arrays[crit] = arrays

    def candidates(self, crit: str, index: tuple, with_oracles: bool = False) -> list[Candidate]:
        a = self.arrays[crit]
        out = []
        for k, p in enumerate(self.policies):
            at = (*index, k)
            if not bool(a["present"][at]) or (self.policy_of[k] in ORACLES and not with_oracles):
                continue
            verdict = str(a["verdict"][at]) if "verdict" in a else ""
            if crit != "stability" and verdict == "unstable":
                continue  # cannot win E[T] or E[C] at this load
            low, high = float(a["low"][at]), float(a["high"][at])
            if crit in MINIMISED_TIMES and math.isinf(low):
                continue  # an infinite mean or quantile cannot win
            reps = a["replications"][at] if "replications" in a else None
            if reps is not None and not np.isfinite(np.asarray(reps, dtype=float)).any():
                reps = None
            out.append(Candidate(p, low, high, str(a["evidence"][at]), float(a["estimate"][at]), verdict, reps))
        return out

    def decide(self, crit: str, index: tuple, with_oracles: bool = False, among=None) -> Decision:
        cands = self.candidates(crit, index, with_oracles)
        if among is not None:
            cands = [c for c in cands if c.name in among]
        d = decide(cands, crit, self.level, self.paired, minimise=MINIMISE.get(crit, True))
        if not cands and crit != "stability" and self.arrays[crit]["present"][index].any():
            d = Decision(crit, (), False, math.nan, math.nan, NONE_STABLE)
        return d

    def setting(self, index: tuple) -> dict:
        return {d: plain(self.ds[d].values[i]) for d, i in zip(self.dims, index)}

    def points(self):
        """(setting index, load index or None) of every row of :func:`winners`."""
        shape = [self.ds.sizes[d] for d in self.dims]
        for index in np.ndindex(*shape):
            yield index, None
            for li in range(self.ds.sizes["load"]):
                yield index, li


MINIMISED_TIMES = ("latency", "tail")
"""Criteria on a response time: an infinite lower end (unstable, an infinite mean) cannot win."""


COLUMNS = (
    "load",
    "criterion",
    "winners",
    "decided",
    "low",
    "high",
    "evidence",
    "runner_up",
    "margin",
    "undetermined",
    "winners_with_oracles",
)
"""The columns of :func:`winners` after the setting's axes (docs/reference/verdicts.md, "Winners and ties")."""


def decision_row(table: PointTable, index, li, d: Decision) -> dict:
    """A row of :func:`winners` (:data:`COLUMNS` but the oracles'): the setting, the
    load (``""`` for none) and the decision ``d``."""
    row = dict(table.setting(index))
    row["load"] = "" if li is None else plain(table.ds["load"].values[li])
    row.update(
        criterion=d.criterion,
        winners=", ".join(d.winners),
        decided="true" if d.decided else "false",
        low=d.low,
        high=d.high,
        evidence=d.evidence,
        runner_up=d.runner_up,
        margin=d.margin,
        undetermined=", ".join(d.undetermined),
    )
    return row


def _row(table: PointTable, index, li, crit: str) -> dict:
    at = index if li is None else (*index, li)
    d = table.decide(crit, at)
    row = decision_row(table, index, li, d)
    oracles = [p for p in table.policy_of if p in ORACLES]
    if oracles:
        w = table.decide(crit, at, with_oracles=True)
        row["winners_with_oracles"] = ", ".join(w.winners)
    else:
        row["winners_with_oracles"] = row["winners"]
    return row


def winners(ds: xr.Dataset, table: PointTable | None = None) -> pd.DataFrame:
    """One row per setting, load and criterion (``stability`` once per setting, with
    an empty ``load``; ``latency`` and ``cost`` per load): the winner or the tie set
    with its interval and evidence (:data:`COLUMNS`)."""
    table = PointTable(ds) if table is None else table
    rows = []
    for index, li in table.points():
        for crit in CRITERIA:
            if (crit == "stability") == (li is None):
                rows.append(_row(table, index, li, crit))
    return pd.DataFrame(rows, columns=[*table.dims, *COLUMNS])


REC_COLUMNS = (
    "load",
    "recommended",
    "basis",
    "decided by",
    "E[T]",
    "E[T] evidence",
    "E[C]",
    "E[C] evidence",
    "runner_up",
    "margin",
)


PAIRED_RULE = "paired CI of the difference excludes 0"
DISJOINT_RULE = "intervals disjoint"


def decided_by(decision: Decision) -> str:
    """The rule that named a decided winner alone, as applied: the paired Student-t CI
    of its difference from a contender excluded 0 (evidence ``paired simulation``), or
    its interval lay wholly on the better side of every other's; "" for a tie."""
    if not decision.decided:
        return ""
    return PAIRED_RULE if decision.evidence == PAIRED else DISJOINT_RULE


def undecidable(why: str) -> str:
    """The words of a basis decided on the tail because E[T] cannot be: ``E[T]
    undecidable: infinite variance``."""
    return f"E[T] undecidable: {why}"


def tail_basis(label: str, decision: Decision, why: str) -> str:
    """The basis of a recommendation decided on the tail quantile ``label`` (``P99``)
    where E[T] cannot be: ``P99 (E[T] undecidable: infinite variance)``, ``P99 tie
    (...)`` when the quantile's intervals tie too."""
    return f"{label}{'' if decision.decided else ' tie'} ({undecidable(why)})"


def on_tail(basis: str) -> bool:
    """Whether a recommendation's ``basis`` says it was decided on the tail quantile
    because E[T] cannot be (:func:`tail_basis`)."""
    return "(E[T] undecidable: " in str(basis)


def heavy_unknown(table: PointTable, at: tuple, names) -> tuple[list[str], str]:
    """Of the contenders ``names`` at ``at``, those whose E[T] is unknown (their
    simulated CI cannot be trusted and nothing exact stands in: evidence ``unreliable
    CI``), and why, when every one of them is for the same reason that a quantile's
    interval does not share: an infinite variance (:data:`~straggler.decide.intervals.HEAVY_TAIL`).
    ``(unknown, "")`` otherwise: a run not settled biases the quantiles as much as the mean."""
    names = set(names)
    unknown = [c for c in table.candidates("latency", at) if c.name in names and c.evidence == UNRELIABLE]
    if not unknown:
        return [], ""
    a = table.arrays["latency"]
    if "reason" not in a:
        return [c.name for c in unknown], ""
    k_of = {p: k for k, p in enumerate(table.policies)}
    reasons = {str(a["reason"][(*at, k_of[c.name])]) for c in unknown}
    return [c.name for c in unknown], HEAVY_TAIL if reasons == {HEAVY_TAIL} else ""


def on_the_tail(table: PointTable, at: tuple, lat: Decision) -> tuple[Decision, str] | None:
    """Where E[T] cannot decide at ``at`` because a contender of its tie set has an
    infinite-variance response time (:func:`heavy_unknown`), the decision among that
    tie set on the tail quantile (``table``'s ``tail`` criterion, P99), by the same
    rule as every criterion (:func:`decide`: its intervals, or its paired CI under
    common random numbers), and why E[T] could not decide; None where E[T] decides, or
    could, or the table has no tail."""
    if lat.decided or not lat.winners or "tail" not in table.arrays:
        return None
    unknown, why = heavy_unknown(table, at, lat.winners)
    if not unknown or not why:
        return None
    tail = table.decide("tail", at, among=set(lat.winners))
    return (tail, why) if tail.winners else None


def recommend(table: PointTable, index: tuple, li: int) -> dict:
    """The recommendation at one setting and load: the E[T] winner or tie set; a tie
    narrowed by E[C] among the tied (the policies of the tie that no other member
    beats on cost), with the hull of their E[T] and E[C] intervals, the E[T]
    runner-up and its margin. A tie that holds a contender whose E[T] is unknown (its
    simulated CI cannot be trusted: evidence ``unreliable CI``) is decided on the tail
    quantile (P99, where the table has it) among the tied when the CI cannot be trusted
    because the response time has an infinite variance (:func:`on_the_tail`): a
    quantile's interval needs no finite variance; the P99's winner or, when its
    intervals overlap, its tie set (basis ``P99 (E[T] undecidable: infinite
    variance)``, ``P99 tie (...)``), with the P99's runner-up and margin. Otherwise it
    is left whole: the point is undetermined."""
    at = (*index, li)
    lat = table.decide("latency", at)
    row = dict(table.setting(index))
    row["load"] = plain(table.ds["load"].values[li])
    chosen, basis = list(lat.winners), "E[T]" + ("" if lat.decided else " tie")
    unknown = [c.name for c in table.candidates("latency", at) if c.name in chosen and c.evidence == UNRELIABLE]
    deciding = lat
    tail = on_the_tail(table, at, lat) if unknown else None
    if not chosen:
        basis = lat.evidence
    elif tail is not None:
        deciding, why = tail
        chosen = list(deciding.winners)
        basis = tail_basis(table.tail_label or "tail", deciding, why)
    elif unknown and not lat.decided:
        # a contender whose E[T] the simulation cannot tell may be the fastest: the point
        # is undetermined, and no cheaper member of the tie is named in its place
        basis = f"E[T] undetermined: {UNRELIABLE} of {', '.join(unknown)}"
    elif not lat.decided:
        cost = table.decide("cost", at, among=set(chosen))
        if cost.winners and len(cost.winners) < len(chosen):
            chosen = list(cost.winners)
            basis = "E[T] tie, then E[C]"
    lat_c = {c.name: c for c in table.candidates("latency", at)}
    cost_c = {c.name: c for c in table.candidates("cost", at)}

    def hull(cands):
        cs = [cands[p] for p in chosen if p in cands]
        if not cs:
            return "", ""
        lo, hi = _hull(cs)
        return fmt_interval(lo, hi), evidence_words(c.evidence for c in cs)

    row["recommended"] = ", ".join(chosen)
    row["basis"] = basis
    row["decided by"] = decided_by(deciding)
    row["E[T]"], row["E[T] evidence"] = hull(lat_c)
    row["E[C]"], row["E[C] evidence"] = hull(cost_c)
    row["runner_up"] = deciding.runner_up
    row["margin"] = deciding.margin
    row["undetermined"] = ", ".join(deciding.undetermined)
    row["decided"] = bool(deciding.decided)
    return row


def recommendations(ds: xr.Dataset, table: PointTable | None = None) -> pd.DataFrame:
    """One row per setting and load: :func:`recommend`."""
    table = PointTable(ds) if table is None else table
    rows = [recommend(table, index, li) for index, li in table.points() if li is not None]
    return pd.DataFrame(rows, columns=[*table.dims, *REC_COLUMNS, "undetermined"])


def dominated(lat: dict[str, Candidate], cost: dict[str, Candidate]) -> set[str]:
    """The policies (keys of both) beaten on the latency-cost trade-off: some other
    policy's E[T] and E[C] intervals both lie at or below theirs (``q.high <=
    p.low``), strictly for one. Overlapping intervals dominate nothing, so noise
    does not decide the frontier."""
    names = [p for p in lat if p in cost]
    out = set()
    for p in names:
        for q in names:
            if q == p:
                continue
            t_ok = lat[q].high <= lat[p].low
            c_ok = cost[q].high <= cost[p].low
            strict = lat[q].high < lat[p].low or cost[q].high < cost[p].low
            if t_ok and c_ok and strict:
                out.add(p)
                break
    return out
