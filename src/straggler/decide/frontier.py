"""Answers between the grid's loads: frontiers located and crossovers found by bisection.

A study with ``decision.resolution`` asks, per setting (the grid's point without the
load and the policy's axes), three questions whose answers lie between the loads of
its grid:

- each contender's **stability frontier**: the load lambda* with every lower load
  stable and every higher one unstable;
- each contender's **SLO frontier** (the SLO of ``decision.slo``): the load up to which
  the SLO is met;
- per criterion (``latency``, ``tail`` and, with constraints, ``answer``: the
  recommendation), the **crossovers**: where the winner changes between two adjacent
  grid loads.

Each is located by bisection (:func:`locate`) on a *judge* that says, of one load,
whether the answer there is the low side's, the high side's, or cannot be told. A
probe is the contender's cell evaluated at the probed load alone
(:func:`straggler.study.evaluate.evaluate_cell` with that load as its list): its analysis,
its simulation on the workload's random numbers (a load's stream depends on the load
and the workload only, :mod:`straggler.engines.simulation.streams`) and the verdicts that
weigh both. The replications go to the cell's store, keyed by load: a rerun, or a
search killed midway and started again, reads them back and takes the same decisions,
so the answer is bit for bit the same on any number of cores and however the work is
cut; a damaged file of the store is simulated again.

The bracket a search starts from is the tightest one proven: the analysis's bounds
(``lambda_max`` when necessary or exact, ``lambda_sufficient``) and the grid's
verdicts; an exact analytic stability frontier is taken as it is. Probes are on the
resolution's lattice (multiples of it), so a rerun with another bracket reuses them.
The search stops when the interval is at most the resolution wide, or when the loads still inside cannot be told apart
(undetermined: the simulation's evidence cannot separate them), and its ``evidence``
says which.

A probe whose interval straddles what it is judged against (an SLO's target; between
two contenders, their paired difference and 0) is **run longer** before it counts as
undetermined (:class:`Longer`): on more replications, those already run read back from
the store and the new ones on their own seeds (replication ``i`` of a load has the same
seed whatever the count, :func:`straggler.engines.simulation.streams.replication_seeds`), so
common random numbers are kept across contenders and loads. How many is a function of
the probe's own evidence (the spread of its replications and the distance of its
estimate to the target), never of the order of the work; it stops when the interval
clears the target, at the cap (``decision.max_jobs``), or when even the cap would not
clear it. An evidence that stops wider than the resolution says so. Stability is searched only where it
is monotone in the load (:func:`straggler.model.policies.stability_monotone`); an SLO is
assumed monotone in the load (a response time grows with the load), and a frontier
found otherwise would be one of several.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import xarray as xr

from ..study.grid import Grid, is_policy_axis, policy_uses_axis
from .decision import FAILS, MEETS, UNDETERMINED, Constraints, constraints_of, decision_table, status
from .intervals import stability_intervals
from .winners import candidate_name, plain

BELOW, ABOVE, UNKNOWN = "below", "above", "undetermined"
"""What a judge says of a load: the frontier lies above it (the low side's answer
holds there), below it (the high side's), or cannot be told."""

OPEN_TOP = 2.0
"""Where a search with no proven upper end stops looking for one: loads up to twice
the capacity of N servers of full speed (a policy whose replicas are cancelled can be
stable above load 1, none measured here beyond 2)."""

CAPACITY_COLUMNS = (
    "policy",
    "stability_low",
    "stability_high",
    "stability_evidence",
    "slo_low",
    "slo_high",
    "slo_evidence",
    "probes",
)
"""The columns of ``capacity.csv`` after the setting's axes and the contender's own
policy axes (``d``, a parameter)."""

LONGER_FACTOR = 16
"""``decision.max_jobs`` by default: a probe may use 16 times the study's measured jobs
per load (``simulation.jobs * simulation.replications``). An interval's half-width
shrinks as the square root of the replications, so the cap narrows a probe's interval
4 times: at the default run length a P99's interval spans 2 to 5 steps of 0.01, so at
the cap it spans about one, and the probes one step either side of a frontier can be
told apart from it. Most probes that straggle need far fewer (3 to 4 times); one that
would need more than the cap is not run to it (:meth:`Longer.next`)."""

ROUNDS = 8
"""At most this many runs longer of one probe (each at least 1.5 times the last)."""


@dataclass(frozen=True)
class Longer:
    """The rule that runs a probe longer: more replications of the study's run length,
    from ``base`` (``simulation.replications``) up to ``most`` (``decision.max_jobs``
    over ``simulation.jobs``)."""

    base: int
    most: int
    confidence: float

    @classmethod
    def of(cls, resolved) -> Longer:
        run = resolved.simulation
        decision = resolved.decision.to_dict() if resolved.decision is not None else {}
        jobs, base = int(run.jobs), int(run.replications)
        cap = decision.get("max_jobs")
        cap = LONGER_FACTOR * jobs * base if cap is None else int(cap)
        return cls(base, max(base, cap // jobs), float(run.confidence))

    def next(self, replications: int, estimate: float, half: float, target: float) -> tuple[int | None, str]:
        """(the replications to run next, ``""``) for a probe on ``replications`` whose
        estimate +- ``half`` straggles ``target``, or (None, why it stops there). A probe
        first runs on twice its replications; then on the fewest whose Student-t
        interval, at the spread seen so far, would clear the target at the distance of
        the estimate (1.2 times that, at least 1.5 times as many as now). It stops
        where the target is too close to tell within the cap: where, one standard error
        nearer the target than the estimate, the interval at the cap would still
        straddle it (a probe at the frontier itself, whose estimate wanders about the
        target, is not run to the cap)."""
        from ..engines.simulation.statistics import fewest_replications, t_quantile

        at_cap = f"at the cap ({replications} replications)"
        if replications >= self.most:
            return None, at_cap
        if replications < 2 or not (math.isfinite(estimate) and math.isfinite(half) and half > 0):
            return None, f"on {replications} replications: no interval to run longer"
        distance = abs(estimate - target)
        if replications < 2 * self.base or distance > half:  # the first run longer, or a verdict to decide
            return min(self.most, 2 * replications), ""
        error = half / t_quantile(self.confidence, replications - 1)  # the estimate's standard error
        spread = error * math.sqrt(replications)
        at_most = t_quantile(self.confidence, self.most - 1) * spread / math.sqrt(self.most)
        if distance - error < at_most:
            # one standard error nearer the target, the cap's interval would still straddle it
            return None, f"on {replications} replications: too close to tell within the cap ({self.most})"
        need = fewest_replications(spread, distance, self.confidence, replications + 1, self.most)
        return min(self.most, max(math.ceil(1.2 * need), math.ceil(1.5 * replications))), ""


CROSSOVER_COLUMNS = ("criterion", "low", "high", "below", "above", "evidence", "probes")
"""The columns of ``crossovers.csv`` after the setting's axes: between ``low`` (where
the winners are ``below``) and ``high`` (where they are ``above``) the answer changes."""


@dataclass
class Located:
    """A frontier located in ``[low, high]``: the low side's answer holds at ``low``, the
    high side's at ``high`` (NaN: no such load known), and why the search stopped."""

    low: float
    high: float
    evidence: str
    probes: list[float] = field(default_factory=list)


def lattice(x: float, resolution: float) -> float:
    """``x`` rounded to the nearest multiple of ``resolution`` (its repr kept short: the
    load names the folder of its replications)."""
    return round(round(x / resolution) * resolution, 10)


def _midpoint(lo: float, hi: float, resolution: float) -> float:
    """A load strictly inside ``(lo, hi)``: the lattice point nearest the middle, or the
    middle itself when no lattice point lies inside."""
    mid = lattice(0.5 * (lo + hi), resolution)
    if lo < mid < hi:
        return mid
    for x in (lattice(lo, resolution) + resolution, lattice(hi, resolution) - resolution):
        x = round(x, 10)
        if lo < x < hi:
            return x
    return 0.5 * (lo + hi)


def locate(
    lo: float,
    hi: float,
    judge: Callable[[float], str],
    resolution: float,
    top: float = OPEN_TOP,
    max_probes: int = 40,
) -> Located:
    """Bisect ``[lo, hi]`` (``lo``: the low side's answer holds; ``hi``: the high side's,
    ``inf`` when none is known) with ``judge`` until the interval is at most
    ``resolution`` wide or its undetermined loads leave no gap wider than it.

    An open top is first closed by probing upwards (``lo`` doubled, at most ``top``).
    Loads the judge cannot tell split the bracket in two gaps, each searched on: the
    answer is then the last load of the low side and the first of the high side, and
    the evidence names the undetermined stretch between them."""
    probes: list[float] = []
    undetermined: list[float] = []

    def ask(x: float) -> str:
        probes.append(x)
        verdict = judge(x)
        nonlocal lo, hi, undetermined
        if verdict == BELOW:
            lo = max(lo, x)
            undetermined = [u for u in undetermined if u > x]
        elif verdict == ABOVE:
            hi = min(hi, x)
            undetermined = [u for u in undetermined if u < x]
        else:
            undetermined.append(x)
        return verdict

    step = max(lo, resolution)
    while math.isinf(hi):
        x = lattice(min(max(2.0 * lo, lo + step), top), resolution)
        if x <= lo or len(probes) >= max_probes:
            return Located(lo, math.inf, f"the low side's answer holds up to {lo:g}: no upper end found", probes)
        if ask(x) == UNKNOWN:
            break
        step *= 2.0
    while len(probes) < max_probes:
        if not undetermined:
            gaps = [(lo, hi)]
        else:
            gaps = [(lo, min(undetermined)), (max(undetermined), hi)]
        wide = [g for g in gaps if math.isfinite(g[1]) and g[1] - g[0] > resolution * (1 + 1e-9)]
        if not wide:
            break
        a, b = max(wide, key=lambda g: g[1] - g[0])
        ask(_midpoint(a, b, resolution))
    if math.isinf(hi):
        return Located(lo, hi, f"undetermined above {max(undetermined):g}", probes)
    if hi - lo <= resolution * (1 + 1e-9):
        return Located(lo, hi, "located", probes)
    if undetermined:
        a, b = min(undetermined), max(undetermined)
        where = f"at {a:g}" if a == b else f"from {a:g} to {b:g}"
        return Located(lo, hi, f"undetermined {where}: the simulation cannot tell the two sides apart there", probes)
    return Located(lo, hi, f"stopped after {len(probes)} probes", probes)


# ------------------------------------------------------------------ one setting


@dataclass
class Contender:
    """A contender of the setting: its name in the report, its cell, and its own
    values of the policy axes (``policy``, ``d``, a parameter)."""

    name: str
    cell: str
    axes: dict


class SettingSearch:
    """The searches of one setting (see the module docstring)."""

    def __init__(self, resolved, grid: Grid, setting: dict, store_root, attrs: dict):
        self.resolved = resolved
        self.setting = dict(setting)
        self.store_root = store_root
        self.attrs = dict(attrs)
        decision = resolved.decision.to_dict() if resolved.decision is not None else {}
        self.resolution = float(decision.get("resolution") or 0.01)
        self.constraints: Constraints = constraints_of(decision)
        self.grid_loads = [float(x) for x in resolved.load]
        axes = {a: ([setting[a]] if a in setting else list(v)) for a, v in grid.axes.items()}
        points = {p: grid.point_cells.get(p) for p in itertools.product(*axes.values())}
        cells = {cid: grid.cells[cid] for cid in points.values() if cid is not None}
        impossible = {p: grid.impossible[p] for p, c in points.items() if c is None and p in grid.impossible}
        self.grid = Grid(axes, cells, points, impossible)
        self.contenders = self._contenders()
        self.simulated_jobs = 0
        self.evaluations = 0
        self._cache: dict[tuple, xr.Dataset] = {}
        self._tables: dict[tuple, tuple] = {}
        self._stability: xr.Dataset | None = None
        self.level = float(resolved.simulation.confidence)
        self.paired = str(self.attrs.get("common_random_numbers", "")).strip().lower() == "true"
        self.longer = Longer.of(resolved)
        self.stops: dict[tuple, str] = {}
        self._runs: dict[tuple, int] = {}
        """(what, load) -> why a probe run longer stopped still undetermined"""

    def _contenders(self) -> list[Contender]:
        out, seen = [], set()
        names = list(self.grid.axes)
        for point, cid in self.grid.point_cells.items():
            if cid is None:
                continue
            values = dict(zip(names, point))
            policy = str(values["policy"])
            own = {
                a: v
                for a, v in values.items()
                if is_policy_axis(a) and len(self.grid.axes[a]) > 1 and policy_uses_axis(policy, a, self.resolved)
            }
            name = candidate_name(policy, own)
            if name not in seen:
                seen.add(name)
                out.append(Contender(name, cid, {"policy": policy, **own}))
        return out

    # -------------------------------------------------------------- probes

    def evaluate(self, cell: str, loads, replications: int | None = None) -> xr.Dataset:
        """The cell's dataset at ``loads`` (sorted, distinct), its replications read from
        the store where it holds them; on ``replications`` instead of the study's (a
        probe run longer)."""
        from ..study.evaluate import evaluate_cell

        if replications == self.longer.base:
            replications = None
        key = (cell, tuple(loads), replications)
        if key not in self._cache:
            stats: dict = {}
            resolved = replace(self.resolved, load=tuple(loads))
            self._cache[key] = evaluate_cell(resolved, cell, self.store_root, stats, replications)
            self.simulated_jobs += int(stats.get("simulated_jobs", 0))
            self.evaluations += 1
        return self._cache[key]

    def study(self, contenders: list[Contender], loads) -> xr.Dataset:
        """A study dataset of the setting: ``contenders`` at ``loads`` (the other
        contenders' cells absent), as the aggregation builds it."""
        from ..study.dataset import aggregate

        wanted = {c.cell for c in contenders}
        loads = sorted(set(loads))
        cells = {cid: self.evaluate(cid, loads) for cid in wanted}
        points = {p: (c if c in wanted else None) for p, c in self.grid.point_cells.items()}
        impossible = {p: "not probed" for p, c in points.items() if c is None}
        grid = Grid(self.grid.axes, {c: self.grid.cells[c] for c in wanted}, points, impossible)
        return aggregate(grid, cells, self.attrs)

    def _table(self, contenders: list[Contender], loads):
        key = (tuple(c.name for c in contenders), tuple(sorted(set(loads))))
        if key not in self._tables:
            ds = self.study(contenders, loads)
            self._tables[key] = (ds, decision_table(ds, self.constraints))
        return self._tables[key]

    def run_longer(self, key: tuple, first: str, measure: Callable[[int], tuple[str, float, float, float]]) -> str:
        """A judge's answer at a probe whose answer at the study's run length is
        ``first``: where it cannot tell, the probe is run on more replications
        (:class:`Longer`) and judged again by ``measure(replications)`` -> (answer,
        estimate, half-width, target), until it can tell or the rule stops; why it
        stopped is kept under ``key`` for the evidence."""
        if first != UNKNOWN:
            return first
        replications = self.longer.base
        verdict, estimate, half, target = measure(replications)
        for _ in range(ROUNDS):
            if verdict != UNKNOWN:
                return verdict
            more, why = self.longer.next(replications, estimate, half, target)
            if more is None:
                self.stops[key] = why
                return verdict
            replications = more
            self._runs[key] = replications
            verdict, estimate, half, target = measure(replications)
        if verdict == UNKNOWN:
            self.stops[key] = f"after {ROUNDS} runs longer ({replications} replications)"
        return verdict

    def stopped(self, what: str, found: Located, resolution: float | None = None) -> Located:
        """``found`` with its evidence saying, where it ends wider than the resolution
        (the study's, or ``resolution``), why the probes inside it stopped undetermined,
        and the width reached."""
        resolution = self.resolution if resolution is None else resolution
        wide = math.isfinite(found.high) and found.high - found.low > resolution * (1 + 1e-9)
        if not wide or not found.evidence.startswith("undetermined"):
            return found
        inside = sorted({x for x in found.probes if found.low < x < found.high and (what, x) in self.stops})
        words = "; ".join(f"{x:g} {self.stops[(what, x)]}" for x in inside)
        evidence = found.evidence + (f"; run longer, {words}" if words else "")
        return replace(found, evidence=f"{evidence}; width {found.high - found.low:.3g}")

    def _at(self, table, x: float) -> tuple:
        """The table's point of the setting at load ``x``."""
        index = tuple(0 for _ in table.dims)
        return (*index, list(np.asarray(table.ds["load"].values, float)).index(x))

    # -------------------------------------------------------------- frontiers

    def observe(self, c: Contender, loads) -> dict[float, tuple[str, str]]:
        """(verdict, SLO status) of the contender at ``loads``: the grid's loads together
        (as the study evaluated them), or one probe alone. A probe lies between a load
        known below the frontier and one known above it, where the other loads would add
        nothing to its verdict (:mod:`straggler.study.verdict`: a stable load decides the loads
        below it, an unstable one those above); alone it costs one load's evaluation. One
        evaluation serves both searches: a load probed for stability tightens the SLO's
        bracket too."""
        return self._statuses(self.evaluate(c.cell, sorted(set(loads))))

    def _statuses(self, cell: xr.Dataset) -> dict[float, tuple[str, str]]:
        """(verdict, SLO status) at each load of a cell's dataset (the intervals of a cell
        are those of its points in the study: :mod:`straggler.decide.intervals` reads either)."""
        from .intervals import latency_intervals, tail_intervals

        verdicts = [str(v) for v in np.asarray(cell["verdict"].values).ravel()]
        if self.constraints.target is None:
            slo = ["" for _ in verdicts]
        else:
            c = self.constraints
            iv = latency_intervals(cell) if c.level is None else tail_intervals(cell, c.level)
            low, high = np.ravel(iv["low"].values), np.ravel(iv["high"].values)
            slo = [status(float(a), float(b), c.target) for a, b in zip(low, high)]
        return {
            float(x): (v, FAILS if v == "unstable" else s)
            for x, v, s in zip(np.asarray(cell["load"].values, float), verdicts, slo)
        }

    def frontiers(self, c: Contender, grid_ds: xr.Dataset) -> tuple[Located, Located]:
        """The contender's stability and SLO frontiers."""
        seen: dict[float, tuple[str, str]] = dict(self.observe(c, self.grid_loads))

        def look(x: float) -> tuple[str, str]:
            if x not in seen:
                seen.update(self.observe(c, [x]))
            return seen[x]

        stability = self.stability(c, grid_ds, lambda x: look(x)[0])
        if self.constraints.target is None:
            return stability, Located(math.nan, math.nan, "")

        def measure(x: float, replications: int) -> tuple[str, float, float, float]:
            cell = self.evaluate(c.cell, [x], replications)
            st = self._statuses(cell)[x][1]
            estimate, half = self._slo_estimate(cell)
            return (
                (BELOW if st == MEETS else ABOVE if st == FAILS else UNKNOWN),
                estimate,
                half,
                self.constraints.target,
            )

        def status_at(x: float) -> str:
            st = look(x)[1]
            first = BELOW if st == MEETS else ABOVE if st == FAILS else UNKNOWN
            verdict = self.run_longer((f"slo {c.name}", x), first, lambda r: measure(x, r))
            return {BELOW: MEETS, ABOVE: FAILS}.get(verdict, UNDETERMINED)

        return stability, self.stopped(f"slo {c.name}", self.slo(seen, stability, status_at))

    def _slo_estimate(self, cell: xr.Dataset) -> tuple[float, float]:
        """(estimate, CI half-width) of the SLO's metric in a probe's dataset (one load):
        its quantile, or E[T]."""
        level = self.constraints.level
        if level is None:
            return float(np.ravel(cell["latency_mean"].values)[0]), float(np.ravel(cell["latency_mean_ci"].values)[0])
        at = {"quantile": level}
        value = cell["latency_quantile"].sel(at, method="nearest")
        half = cell["latency_quantile_ci"].sel(at, method="nearest")
        return float(np.ravel(value.values)[0]), float(np.ravel(half.values)[0])

    def stability(self, c: Contender, grid_ds: xr.Dataset, verdict_at: Callable[[float], str]) -> Located:
        """The contender's stability frontier, from the grid's bracket (analysis and
        verdicts, :func:`straggler.decide.intervals.stability_intervals`)."""
        from ..model.policies import stability_monotone

        if self._stability is None:  # once per setting: the whole study's intervals
            self._stability = stability_intervals(grid_ds)
        iv = self._stability
        low, high = float(self._of(c, iv["low"])), float(self._of(c, iv["high"]))
        evidence = str(self._of(c, iv["evidence"]).values)
        if low == high:
            return Located(low, high, "exact (analysis)" if evidence == "exact" else evidence)
        if not stability_monotone(c.axes["policy"], self._params(c)):
            return Located(low, high, f"not searched: stability not known to be monotone in the load ({evidence})")
        # the interval's low end is open (stable at l: lambda* > l), nudged up by an ulp
        lo = 0.0 if not math.isfinite(low) else float(np.nextafter(low, -np.inf)) if low > 0 else low

        def judge(x: float) -> str:
            v = verdict_at(x)
            return BELOW if v == "stable" else ABOVE if v == "unstable" else UNKNOWN

        return locate(lo, high if math.isfinite(high) else math.inf, judge, self.resolution)

    def slo(self, seen: dict, stability: Located, status_at: Callable[[float], str]) -> Located:
        """The SLO frontier, bracketed by every load seen so far (the grid's and the
        stability search's probes)."""
        if all(seen[x][1] == UNKNOWN for x in self.grid_loads):
            return Located(math.nan, math.nan, "not searched: undetermined at every grid load")
        fails = [x for x, (_, s) in seen.items() if s == FAILS]
        hi = min(fails, default=stability.high)
        lo = max([x for x, (_, s) in seen.items() if s == MEETS and x < hi], default=0.0)

        def judge(x: float) -> str:
            st = status_at(x)
            return BELOW if st == MEETS else ABOVE if st == FAILS else UNKNOWN

        found = locate(lo, hi if math.isfinite(hi) else math.inf, judge, self.resolution)
        if found.low == 0.0 and not any(s == MEETS for _, s in seen.values()):
            found.evidence = f"not met at any load probed: fails from {found.high:g}"
        return found

    def _of(self, c: Contender, array: xr.DataArray) -> xr.DataArray:
        """``array`` at the contender's point of the setting (an axis it ignores at its
        first value: its cell is the same along it)."""
        point = {a: v for a, v in {**self.setting, **c.axes}.items() if a in array.dims}
        out = array.sel(point)
        return out.isel({d: 0 for d in out.dims if d not in ("load", "quantile", "replication")})

    def _params(self, c: Contender) -> dict:
        params = dict(self.resolved.shared_dict.get("policies", {}).get(c.axes["policy"], {}) or {})
        params.update({a.split(".", 1)[-1]: v for a, v in c.axes.items() if a not in ("policy", "d")})
        return params

    # -------------------------------------------------------------- crossovers

    def crossovers(self) -> list[dict]:
        """Per criterion, where the winners change between adjacent grid loads. A probe
        whose winners are neither side's splits the pair in two changes, each located in
        turn: the winners change in steps (``FRed`` to ``FRed, Rep`` to ``Rep``)."""
        loads = list(self.grid_loads)
        rows = []
        for crit in self._criteria():
            winners = {x: self._winners(crit, loads, x, self.contenders) for x in loads}
            pairs = [(a, b, winners[a], winners[b]) for a, b in itertools.pairwise(sorted(loads))]
            todo = [p for p in pairs if p[2] != p[3]]
            while todo:
                a, b, below, above = todo.pop(0)
                found, third = self._crossover(crit, a, b, below, above)
                if third is not None:
                    x, w = third
                    todo[:0] = [(a, x, below, w), (x, b, w, above)]
                    continue
                rows.append(
                    dict(
                        criterion=crit,
                        low=found.low,
                        high=found.high,
                        below=below or "none",
                        above=above or "none",
                        evidence=found.evidence,
                        probes=len(found.probes),
                    )
                )
        return rows

    def _crossover(self, crit: str, a: float, b: float, below: str, above: str):
        """(the change from ``below`` to ``above`` located in ``[a, b]``, None), or (None,
        (load, winners)) at the first probe whose winners are neither."""
        among = self._named({*below.split(", "), *above.split(", ")} - {""})
        third: list[tuple[float, str]] = []

        def measure(x: float, replications: int) -> tuple[str, float, float, float]:
            # a tie of the two sides' winners, run longer: their paired difference against 0
            from ..engines.simulation.statistics import paired_ci

            w, per = self._probe_candidates(crit, x, among, replications)
            if w in (below, above):
                return (BELOW if w == below else ABOVE), 0.0, 0.0, 0.0
            one = next((n for n in below.split(", ") if n in per), None)
            other = next((n for n in above.split(", ") if n in per and n != one), None)
            ci = None if one is None or other is None else paired_ci(per[one], per[other], self.level)
            if ci is None:
                return UNKNOWN, math.nan, math.nan, 0.0
            return UNKNOWN, 0.5 * (ci[0] + ci[1]), 0.5 * (ci[1] - ci[0]), 0.0

        def judge(x: float) -> str:
            # the contenders at the probe alone, as a frontier's probe
            w = self._winners(crit, [x], x, among) if crit == "answer" else self._probe_winners(crit, x, among)
            if crit != "answer" and w not in (below, above) and len(w.split(", ")) > 1:
                # a tie that neither side's winners are: run longer, it may be either side
                self.run_longer((f"{crit} {below} | {above}", x), UNKNOWN, lambda r: measure(x, r))
                w = self._probe_candidates(crit, x, among, self._longest(crit, below, above, x))[0]
            if w not in (below, above):
                third.append((x, w))
                raise _Elsewhere
            return BELOW if w == below else ABOVE

        try:
            return locate(a, b, judge, self.resolution), None
        except _Elsewhere:
            return None, third[0]

    def _criteria(self) -> tuple[str, ...]:
        out = ["latency", "tail"]
        if self.constraints.any:
            out.append("answer")
        return tuple(out)

    def _named(self, names: set[str]) -> list[Contender]:
        """The contenders called ``names`` (tie sets' members), in contender order."""
        return [c for c in self.contenders if c.name in names]

    def _winners(self, crit: str, loads, x: float, among: list[Contender]) -> str:
        """The winners on ``crit`` at ``x`` among ``among``: between two loads the search
        weighs the contenders that win at either end (a third that wins only between
        them is not looked for)."""
        from .decision import answer

        if not among:
            return ""
        _, table = self._table(among, loads)
        at = self._at(table, x)
        if crit == "answer":
            return str(answer(table, at[:-1], at[-1])["recommended"])
        return ", ".join(table.decide(crit, at).winners)

    def _longest(self, crit: str, below: str, above: str, x: float) -> int:
        """The replications a crossover's probe was last run on (:meth:`run_longer`)."""
        return self._runs.get((f"{crit} {below} | {above}", x), self.longer.base)

    def _probe_winners(self, crit: str, x: float, among: list[Contender]) -> str:
        return self._probe_candidates(crit, x, among)[0]

    def _probe_candidates(
        self, crit: str, x: float, among: list[Contender], replications: int | None = None
    ) -> tuple[str, dict[str, np.ndarray]]:
        """The winners on ``latency`` or ``tail`` at a probe, decided as the study decides
        them (:func:`straggler.decide.winners.decide` on each contender's interval, paired on its
        replications) from the contenders' cells at ``x`` directly: a study dataset and its
        table for one load and two contenders cost ten times the decision. With each
        contender's replications' values (on ``replications``: a probe run longer)."""
        from .intervals import latency_intervals, tail_intervals
        from .winners import ORACLES, Candidate, decide

        level = self.constraints.tail_level
        candidates = []
        for c in among:
            if c.axes["policy"] in ORACLES:
                continue
            cell = self.evaluate(c.cell, [x], replications)
            if crit == "latency":
                iv = latency_intervals(cell)
                reps = cell["latency_replication_mean"].where(iv["reliable"])
            else:
                iv = tail_intervals(cell, level)
                reps = cell["latency_replication_quantile"].sel(quantile=level, method="nearest")
            verdict = str(np.asarray(cell["verdict"].values).ravel()[0])
            low, high = float(np.ravel(iv["low"].values)[0]), float(np.ravel(iv["high"].values)[0])
            if verdict == "unstable" or math.isinf(low):
                continue  # cannot win at this load (as PointTable.candidates)
            per = np.asarray(reps.values, dtype=float).ravel()
            evidence, estimate = str(np.ravel(iv["evidence"].values)[0]), float(np.ravel(iv["estimate"].values)[0])
            candidates.append(
                Candidate(c.name, low, high, evidence, estimate, verdict, per if np.isfinite(per).any() else None)
            )
        winners = ", ".join(decide(candidates, crit, self.level, self.paired, minimise=True).winners)
        return winners, {k.name: k.replications for k in candidates if k.replications is not None}

    # -------------------------------------------------------------- all of it

    def run(self, grid_ds: xr.Dataset) -> dict:
        """Every frontier and crossover of the setting, and what they cost."""
        start = time.process_time()
        capacity = []
        for c in self.contenders:
            stab, slo = self.frontiers(c, grid_ds)
            capacity.append(
                {
                    **{a: plain(v) for a, v in self.setting.items()},
                    **{a: plain(v) for a, v in c.axes.items()},
                    "stability_low": stab.low,
                    "stability_high": stab.high,
                    "stability_evidence": stab.evidence,
                    "slo_low": slo.low,
                    "slo_high": slo.high,
                    "slo_evidence": slo.evidence,
                    "probes": len(stab.probes) + len(slo.probes),
                }
            )
        crossovers = [{**{a: plain(v) for a, v in self.setting.items()}, **row} for row in self.crossovers()]
        return {
            "setting": {a: plain(v) for a, v in self.setting.items()},
            "capacity": capacity,
            "crossovers": crossovers,
            "evaluations": self.evaluations,
            "simulated_jobs": self.simulated_jobs,
            "cpu_seconds": time.process_time() - start,
        }


class _Elsewhere(Exception):
    """A crossover's probe found winners that are neither side's."""


# ------------------------------------------------------------------ the tables


def capacity_table(found: list[dict]):
    """``capacity.csv``: a row per setting and contender (:data:`CAPACITY_COLUMNS`
    after the axes), from the searches' results."""
    import pandas as pd

    rows = [row for f in found for row in f["capacity"]]
    frame = pd.DataFrame(rows)
    lead = [c for c in frame.columns if c not in CAPACITY_COLUMNS]
    policy_axes = [c for c in lead if _policy_axis(c)]
    setting = [c for c in lead if c not in policy_axes]
    return frame.reindex(
        columns=[*setting, *CAPACITY_COLUMNS[:1], *[c for c in policy_axes if c != "policy"], *CAPACITY_COLUMNS[1:]]
    )


def crossover_table(found: list[dict]):
    """``crossovers.csv``: a row per setting, criterion and change of winners
    (:data:`CROSSOVER_COLUMNS` after the setting's axes)."""
    import pandas as pd

    rows = [row for f in found for row in f["crossovers"]]
    setting = list(found[0]["setting"]) if found else []
    return pd.DataFrame(rows, columns=[*setting, *CROSSOVER_COLUMNS])


def _policy_axis(axis: str) -> bool:
    return axis == "policy" or is_policy_axis(axis)


def read_capacity(path):
    """``capacity.csv`` as a table (empty ends are NaN, evidence text kept)."""
    import pandas as pd

    return pd.read_csv(
        path,
        keep_default_na=False,
        na_values={"stability_low": [""], "stability_high": [""], "slo_low": [""], "slo_high": [""]},
    )


LOCATED = ("stability_low", "stability_high", "stability_evidence", "slo_low", "slo_high", "slo_evidence")
"""The columns of ``capacity.csv`` that :func:`attach` adds to a study dataset, as
``located_<column>``."""


def attach(ds: xr.Dataset, capacity) -> xr.Dataset:
    """``ds`` with the located frontiers of ``capacity`` (a :func:`capacity_table`) as
    variables ``located_stability_low`` ... (dims of ``lambda_max``): the winners'
    stability intervals (:func:`straggler.decide.intervals.stability_intervals`) then start
    from them, and the report and ``best`` print them."""
    like = ds["lambda_max"]
    arrays = {
        name: np.full(
            like.shape,
            np.nan if not name.endswith("evidence") else "",
            dtype=float if not name.endswith("evidence") else object,
        )
        for name in LOCATED
    }
    dims = list(like.dims)
    coords = {d: [plain(v) for v in ds[d].values] for d in dims}
    for row in capacity.to_dict("records"):
        where: list[int | slice] = []
        for d in dims:
            value = row.get(d, "")
            if value == "" or (isinstance(value, float) and math.isnan(value)):
                where.append(slice(None))  # an axis the contender ignores: all its values
                continue
            match = [i for i, v in enumerate(coords[d]) if _same(v, value)]
            if not match:
                break
            where.append(match[0])
        else:
            for name in LOCATED:
                arrays[name][tuple(where)] = row[name]
    out = ds.copy()
    for name, values in arrays.items():
        out[f"located_{name}"] = (dims, values)
    return out


def with_located(ds: xr.Dataset, capacity_csv) -> xr.Dataset:
    """``ds`` with the located frontiers of the ``capacity.csv`` at ``capacity_csv``
    attached (:func:`attach`), or ``ds`` itself when there is none (no path, no file: a
    study without ``decision.resolution``)."""
    from pathlib import Path

    if capacity_csv is None or not Path(capacity_csv).is_file():
        return ds
    return attach(ds, read_capacity(capacity_csv))


def _same(coord, value) -> bool:
    """A coordinate and a CSV cell name the same value (``0.3`` and ``"0.3"``)."""
    if isinstance(coord, (int, float)) and not isinstance(coord, bool):
        try:
            return math.isclose(float(coord), float(value), rel_tol=1e-12, abs_tol=0.0)
        except (TypeError, ValueError):
            return False
    return str(coord) == str(value)
