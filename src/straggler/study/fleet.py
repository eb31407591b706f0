"""A fleet: how a cell of many servers is simulated, so that its cost does not grow with N.

A queue relaxes to its stationary regime over a time of order ``E[S^2] / E[S] / (1 -
sqrt(u))^2`` (u its utilisation; Abate and Whitt, "Transient behavior of the M/G/1
workload process", Operations Research 42(4), 1994): each server must see that many
jobs' worth of arrivals before the run is measured. From an empty start a fleet of N
servers needs N times the jobs one server does (:func:`empty_warmup`); the configured
warm-up (20,000 jobs by default) covers it up to some hundred servers and no further,
and a run measured before its queues relaxed is biased low, with MSER saying "not
settled".

So a cell of more than :data:`REFERENCE_N` servers (a fleet) takes two things from
elsewhere, whatever N:

its start
    each server starts with the work of an equilibrium state
    (:mod:`straggler.engines.simulation.start`), drawn from the mean-field limit's
    workload or from a smaller system's end state (below), and the configured warm-up
    follows: the warm-up no longer grows with N;
its stability verdict, where its own run is too short for one
    the monitor and the idle evidence need a run of a few thousand waits of work per
    server (:mod:`straggler.engines.simulation.statistics`), which is N times the jobs of
    one server: a fleet's load is not run longer for it, but decided

``mean-field``
    where the mean-field tier solves the policy (:mod:`straggler.engines.mean_field`:
    CoC, CoS, RIQ, ZRed, FRed on identical FCFS servers, i.i.d., identical or mixture
    copies) and its fixed point exists at the load (a busy fraction below 1): the start
    is drawn from the limit's equilibrium workload, and the load is stable
    (``verdict_evidence`` ``mean-field``: the finite fleet is taken to be stable where
    its limit is; the servers' interaction vanishes as 1/N);
``reference``
    otherwise (Hedge, Rep, Rer, FJ, ...), the same cell on :data:`REFERENCE_N` servers
    runs first, with its own warm-up and verdict (the same workload's streams: a study
    that also has N = 100 runs it once); the start is drawn from that system's end state
    (its servers' work at its last arrival, the replications pooled), and its verdict is
    carried (evidence ``N = 100``: the fleet is taken to be as stable as 100 servers
    under the same policy and load);
``empty``
    where neither applies (central queues, PS, unequal pools, a cancellation delay): the
    empty start with the warm-up the law's relaxation asks for, whose cost grows with N
    (said in the cell's notes), and the verdict machinery as at any N.

Either way the measured part is checked for drift (MSER), and a run that has not
settled runs on (:meth:`straggler.engines.simulation.driver._Driver.settled`). Up to
:data:`REFERENCE_N` servers nothing changes: the empty start, the configured warm-up and
the simulation's own verdicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engines.simulation.start import Start

REFERENCE_N = 100
"""A fleet larger than this may start in equilibrium; the policies the mean-field tier
does not solve start from the end state of this many servers, whose verdict they carry."""

SIMULATED_N = 10_000
"""A cell of more servers is simulated on this many (:func:`simulated_cell`): the analysis is
the cell's own (the mean-field tier's limit where it solves the policy), and the simulation
of this many servers, within O(1/N) of both, confirms it."""

RELAXATIONS = 5.0
"""An empty start needs this many relaxation times per server before the measured jobs
(what is left of the initial deficit decays like exp(-t / relaxation): e^-5 < 1 %)."""

MAX_UTILISATION = 0.95
"""The utilisation a relaxation time is computed at, at most (near 1 it diverges, and a
load that close to its capacity needs the verdict machinery, not a longer warm-up)."""

EVIDENCE_MEAN_FIELD = "mean-field"
"""``verdict_evidence`` of a fleet's load taken stable where its mean-field limit is."""


def evidence_reference(n: int = REFERENCE_N) -> str:
    """``verdict_evidence`` of a fleet's load that carries the verdict of ``n`` servers."""
    return f"N = {n}"


@dataclass(frozen=True)
class FleetPlan:
    """How one cell's loads start (:class:`straggler.engines.simulation.start.Start`) and
    where their verdict comes from when their run cannot give one, per load (``how``:
    ``""`` as configured, ``mean-field`` the limit's, ``reference`` the smaller system's,
    ``empty`` an empty start with a longer warm-up)."""

    start: Start
    how: tuple[str, ...]
    equilibrium: tuple[bool, ...] = ()
    """per load, whether it starts in equilibrium (else empty)"""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def needs_reference(self) -> bool:
        """Some load takes the reference system's verdict or end state."""
        return "reference" in self.how

    @property
    def changed(self) -> bool:
        """Some load starts otherwise than empty after the configured warm-up."""
        return any(self.how)


def relaxation_jobs(rate: float, utilisation: float, scale: float) -> float:
    """The jobs an empty start needs before every server has relaxed: :data:`RELAXATIONS`
    relaxation times ``scale / (1 - sqrt(u))^2`` (``scale = E[S^2] / E[S]`` of a copy's time
    at the slowest speed) at the arrival rate ``rate`` of the whole fleet (so N times one
    server's); ``u`` is taken at most :data:`MAX_UTILISATION`. Infinite where ``scale`` is.
    Light (no numpy): the work units' cost model reads it too."""
    if not math.isfinite(scale):
        return math.inf
    u = min(max(float(utilisation), 1e-6), MAX_UTILISATION)
    return RELAXATIONS * float(rate) * scale / (1.0 - math.sqrt(u)) ** 2


def is_fleet(servers: int, need: float, warmup: int) -> bool:
    """Does a cell of ``servers`` servers start in equilibrium, where its empty start
    would need ``need`` jobs of warm-up against the configured ``warmup``?"""
    return int(servers) > REFERENCE_N and not need <= warmup


def empty_warmup(model, analysis) -> list[float]:
    """Per load, :func:`relaxation_jobs` of the cell: at the larger of the analysis's
    busiest server's utilisation (``rho``) and the nominal load (a policy's copies add
    work, and one copy's queue relaxes no faster than the load it carries), with S a
    copy's time at the slowest speed."""
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    slowest = min(1.0, float(model.r_slow)) if model.system is not None else 1.0
    scale = m2 / m1 / slowest if (math.isfinite(m2) and m1 > 0) else math.inf
    rho = list(getattr(analysis, "rho", None) if analysis is not None and analysis.rho is not None else [])
    out = []
    for li, (load, rate) in enumerate(zip(model.nominal_loads, model.rates())):
        r = float(rho[li]) if li < len(rho) else math.nan
        u = max(r, float(load)) if math.isfinite(r) and r > 0 else float(load)
        out.append(relaxation_jobs(float(rate), u, scale))
    return out


def _equilibrium_start_applies(model) -> str | None:
    """None where a fleet may start in equilibrium at all, else why not."""
    if model.discipline != "FCFS" or model.queueing != "per_server":
        return "its servers are not FCFS with a queue each"
    if model.cancel_delay > 0.0:
        return "a cancelled copy keeps its server"
    if model.system is not None and (model.r_slow != 1.0 or len(set(model.system.n)) != 1):
        return "its two pools differ"
    if model.size.per_type:
        return "its law depends on the job type"
    return None


def plan(model, analysis, warmup: int) -> FleetPlan:
    """The cell's plan (see the module docstring). ``analysis``: its
    :class:`~straggler.engines.analysis.AnalyticResult` (``mean_field``: the tier's
    equilibria per load, where it solves the cell); ``warmup``: the configured warm-up."""
    from ..engines.simulation.start import EMPTY, Start, StartLaw

    loads = len(model.loads)
    if model.N <= REFERENCE_N:
        return FleetPlan(EMPTY, ("",) * loads)
    need = empty_warmup(model, analysis)
    why_not = _equilibrium_start_applies(model)
    equilibria = getattr(analysis, "mean_field", None) or (None,) * loads
    laws: list[StartLaw | None] = []
    warmups: list[int | None] = []
    how: list[str] = []
    for li in range(loads):
        start = not need[li] <= warmup  # the configured warm-up would not cover an empty start
        eq = equilibria[li] if li < len(equilibria) else None
        if why_not is None and eq is not None and eq.stable:
            laws.append(StartLaw.of_quantile(eq.workload_quantile, EVIDENCE_MEAN_FIELD))
            warmups.append(None)
            how.append("mean-field")
        elif why_not is None:
            laws.append(None)  # where it starts in equilibrium, the reference's end state (:func:`with_reference`)
            warmups.append(None)
            how.append("reference")
        elif start:
            laws.append(None)
            warmups.append(int(min(need[li], 1e12)) if math.isfinite(need[li]) else None)
            how.append("empty")
        else:
            laws.append(None)
            warmups.append(None)
            how.append("")
    equilibrium = tuple(h in ("mean-field", "reference") for h in how)
    decided = tuple(h in ("mean-field", "reference") for h in how)
    return FleetPlan(
        Start(tuple(laws), tuple(warmups), decided),
        tuple(how),
        equilibrium,
        tuple(_notes(model, how, equilibrium, warmups, why_not)),
    )


def _notes(model, how: list[str], equilibrium: tuple[bool, ...], warmups: list, why_not: str | None) -> list[str]:
    loads = [float(v) for v in model.loads]

    def at(kind: str, started: bool | None = None) -> str:
        picked = [v for v, h, e in zip(loads, how, equilibrium) if h == kind and (started is None or e == started)]
        return "[" + ", ".join(f"{v:g}" for v in picked) + "]"

    out = []
    if "mean-field" in how:
        if any(e for h, e in zip(how, equilibrium) if h == "mean-field"):
            out.append(
                f"loads {at('mean-field', True)} start in equilibrium: each of the N = {model.N} servers with work "
                "drawn from the mean-field limit's equilibrium workload, then the configured warm-up"
            )
        out.append(
            f"loads {at('mean-field')}: where the run is too short for a stability verdict of its own, the "
            "mean-field limit's fixed point (a busy fraction below 1) is the evidence (verdict_evidence mean-field)"
        )
    if "reference" in how:
        if any(e for h, e in zip(how, equilibrium) if h == "reference"):
            out.append(
                f"loads {at('reference', True)} start in equilibrium: each of the N = {model.N} servers with work "
                f"drawn from the end state of the same cell on N = {REFERENCE_N} servers, then the configured warm-up"
            )
        out.append(
            f"loads {at('reference')}: where the run is too short for a stability verdict of its own, the verdict "
            f"of the same cell on N = {REFERENCE_N} servers is carried (verdict_evidence N = {REFERENCE_N})"
        )
    if "empty" in how:
        jobs = sorted({w for w, h in zip(warmups, how) if h == "empty" and w is not None})
        out.append(
            f"loads {at('empty')} start empty ({why_not}, so no equilibrium start) with a warm-up of "
            f"{', '.join(f'{w:,}' for w in jobs)} jobs, the relaxation of N = {model.N} servers: a cost that grows "
            "with N"
        )
    return out


def cell_at(cell, servers: int):
    """The same cell on ``servers`` servers (a :class:`~straggler.study.grid.Cell`)."""
    from .grid import Cell, cell_id

    coords = tuple((a, int(servers) if a == "N" else v) for a, v in cell.coords)
    return Cell(cell_id(coords), coords)


def reference_cell(cell):
    """The same cell on :data:`REFERENCE_N` servers."""
    return cell_at(cell, REFERENCE_N)


def simulated_cell(cell):
    """The cell the simulation runs for ``cell``: itself, or, for more than
    :data:`SIMULATED_N` servers, the same cell on that many (see :data:`SIMULATED_N`)."""
    return cell if int(cell["N"]) <= SIMULATED_N else cell_at(cell, SIMULATED_N)


def simulated_note(N: int) -> str:
    """The cell's note where it is simulated on fewer servers than it has."""
    return (
        f"simulated on N = {SIMULATED_N:,} servers, not {N:,}: beyond {SIMULATED_N:,} a fleet differs from "
        "its mean-field limit (N -> infinity) by less than the simulation can resolve (the gap is O(1/N)), so "
        f"the simulation of {SIMULATED_N:,} servers stands for it and checks the limit"
    )


def with_reference(fleet: FleetPlan, reference) -> FleetPlan:
    """``fleet`` with its ``reference`` loads' laws from the reference system's end states
    (``reference``: its :class:`~straggler.engines.simulation.SimulationResult`, at the
    same loads). A load whose reference run kept no end state (unstable, or not run)
    starts empty."""
    import numpy as np

    from ..engines.simulation.start import Start, StartLaw

    laws = list(fleet.start.laws)
    how = list(fleet.how)
    for li, h in enumerate(how):
        if h != "reference" or not fleet.equilibrium[li]:
            continue
        if reference is None:  # the reference system is not simulated: an empty start
            laws[li] = None
            continue
        tables = reference.end_states[li] if li < len(reference.end_states) else None
        ok = tables is not None and reference.verdict[li] == "stable" and bool(np.isfinite(tables).all())
        laws[li] = StartLaw.of_workloads(tables, evidence_reference()) if ok else None
    return replace(fleet, start=Start(tuple(laws), fleet.start.warmups, fleet.start.decided), how=tuple(how))


def carry(sim, fleet: FleetPlan, reference=None, proven=()) -> None:
    """Decide, in place, the loads of the fleet's simulation ``sim`` that its own run left
    undetermined for want of a longer run: stable where the mean-field limit is
    (evidence ``mean-field``), else the reference system's verdict (evidence ``N =
    100``). ``proven``: per load, whether the analysis proves it stable or unstable (its
    bound is the better evidence: those are left to it)."""
    for li, h in enumerate(fleet.how):
        if li >= len(sim.verdict) or sim.verdict[li] != "undetermined" or sim.reason[li] != "short":
            continue
        if li < len(proven) and proven[li]:
            continue
        if h == "mean-field":
            sim.verdict[li], sim.reason[li], sim.evidence[li] = "stable", "", EVIDENCE_MEAN_FIELD
        elif h == "reference" and reference is not None and reference.verdict[li] in ("stable", "unstable"):
            sim.verdict[li] = reference.verdict[li]
            sim.reason[li] = "" if reference.verdict[li] == "stable" else reference.reason[li]
            sim.evidence[li] = evidence_reference()
        if sim.verdict[li] != "undetermined":
            sim.jobs_to_verdict[li] = math.nan
