"""Stability verdicts of one cell: the simulation and the analysis reconciled.

Each load gets ``verdict`` in ``stable``, ``unstable``, ``undetermined`` and
``verdict_source`` in ``simulation``, ``analysis``, ``both`` (``""`` when
undetermined):

- the analysis proves a load **unstable** when it is at or above an ``exact``
  bound ``lambda_max``, or above a ``necessary`` one; it proves it **stable** below
  ``lambda_sufficient`` (an exact bound is also sufficient). ``conjectured`` and
  ``approximate`` bounds prove nothing;
- the simulation finds a load **unstable** when the backlog monitor fired, an
  engine buffer filled up, or the measured server time per job shows lambda E[C]
  >= N (beyond its confidence interval; within it the load is not stable); it
  finds it **stable** only with positive evidence
  (:func:`straggler.engines.simulation.statistics.simulation_verdict`), else
  **undetermined**;
- where the policy's stability is monotone in the load
  (:func:`straggler.model.policies.stability_monotone`), every load above an unstable
  one is unstable too (and was not simulated), and every load below a stable one
  is stable too (its evidence ``monotone``);
- ``unstable`` from either source wins over a simulated ``stable`` (a finite run
  near the bound may miss the growth that theory proves); a simulated
  instability below a proven-stable load is a **contradiction**: the verdict is
  ``undetermined`` (source ``both``) and ``cell_notes`` and the report say so.

Estimates mean something only where the system is stable: at other loads
``latency_mean``, its CI, the quantiles and ``cost_mean`` are NaN, and what was
measured is kept as ``latency_sample_mean`` and ``cost_sample_mean``. Where the
analysis proves the mean response time infinite (:mod:`.analysis.tails`) it is
``+inf``; ``latency_mean_kind`` says ``estimate``, ``ci_undercovers`` (infinite
variance) or ``infinite``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

REL = 1e-9
"""Relative tolerance of a load at a bound (a load of 0.5 is at a bound of 0.4999999999)."""

PROVES_UNSTABLE = ("exact", "necessary")
RESOLUTION = 1.05
"""The monitor is calibrated to see a load 5 % above capacity: a simulated `stable`
above 1.05 times a bound that proves instability is a disagreement worth a note."""


@dataclass
class Verdicts:
    """A cell's stability verdict at every load, what decided it, and the notes that
    explain it."""

    verdict: np.ndarray
    source: np.ndarray
    notes: list[str] = field(default_factory=list)
    evidence: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    """per load, what decided the verdict: ``exact bound``, ``necessary bound``,
    ``sufficient bound`` (the analysis), ``monitor`` (the simulation saw growth, or ran
    long enough to have seen it), ``idle`` (the servers idled), ``monotone`` (below a
    stable or above an unstable load), ``capacity``, ``cost``; "" when undetermined"""

    @property
    def stable(self) -> np.ndarray:
        """1 where stable, 0 where unstable, NaN where undetermined (the dataset's
        ``stable``)."""
        return np.array([1.0 if v == "stable" else 0.0 if v == "unstable" else math.nan for v in self.verdict])


def _fmt(values) -> str:
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def analysis_verdicts(loads, lambda_max: float, kind: str, lambda_sufficient: float) -> tuple[np.ndarray, np.ndarray]:
    """(proven unstable, proven stable) per load."""
    loads = np.asarray(loads, dtype=float)
    unstable = np.zeros(len(loads), dtype=bool)
    if math.isfinite(lambda_max) and kind in PROVES_UNSTABLE:
        if kind == "exact":
            unstable = loads >= lambda_max * (1.0 - REL)
        else:
            unstable = loads > lambda_max * (1.0 + REL)
    stable = np.zeros(len(loads), dtype=bool)
    if math.isfinite(lambda_sufficient):
        stable = loads < lambda_sufficient * (1.0 - REL)
    return unstable, stable & ~unstable


def first_unstable_load(loads, lambda_max: float, kind: str) -> float | None:
    """The smallest load the analysis proves unstable (None if none)."""
    unstable, _ = analysis_verdicts(loads, lambda_max, kind, math.nan)
    loads = np.asarray(loads, dtype=float)
    return float(loads[unstable].min()) if unstable.any() else None


def reconcile(
    loads, lambda_max: float, kind: str, lambda_sufficient: float, sim=None, monotone: bool = True
) -> Verdicts:
    """The verdicts of one cell (see the module docstring). ``sim`` is a
    :class:`straggler.engines.simulation.SimulationResult` or None (analysis only)."""
    loads = np.asarray(loads, dtype=float)
    L = len(loads)
    ana_unstable, ana_stable = analysis_verdicts(loads, lambda_max, kind, lambda_sufficient)
    sim_unstable = np.zeros(L, dtype=bool)
    sim_stable = np.zeros(L, dtype=bool)
    notes: list[str] = []
    if sim is not None:
        sim_v = np.asarray(sim.verdict, dtype=object)
        sim_unstable = sim_v == "unstable"
        sim_stable = sim_v == "stable"
    sim_evidence = np.full(L, "", dtype=object)
    if sim is not None and len(getattr(sim, "evidence", ())) == L:
        sim_evidence[:] = np.asarray(sim.evidence, dtype=object)
    if sim is not None and monotone:
        order = np.argsort(loads, kind="stable")
        seen = False
        for li in order:  # every load above a simulated instability is unstable too
            if seen and not sim_unstable[li]:
                sim_unstable[li], sim_evidence[li] = True, "monotone"
            seen = seen or bool(sim_unstable[li])
        seen = False
        for li in order[::-1]:  # every load below a stable one is stable too
            if seen and not (sim_stable[li] or sim_unstable[li]):
                sim_stable[li], sim_evidence[li] = True, "monotone"
            seen = seen or bool((sim_stable[li] or ana_stable[li]) and not sim_unstable[li])
    verdict = np.full(L, "undetermined", dtype=object)
    source = np.full(L, "", dtype=object)
    contradiction = sim_unstable & ana_stable
    unstable = (sim_unstable | ana_unstable) & ~contradiction
    verdict[unstable] = "unstable"
    source[unstable & sim_unstable & ana_unstable] = "both"
    source[unstable & sim_unstable & ~ana_unstable] = "simulation"
    source[unstable & ~sim_unstable & ana_unstable] = "analysis"
    stable = ~unstable & ~contradiction & (sim_stable | ana_stable)
    verdict[stable] = "stable"
    source[stable & sim_stable & ana_stable] = "both"
    source[stable & sim_stable & ~ana_stable] = "simulation"
    source[stable & ~sim_stable & ana_stable] = "analysis"
    source[contradiction] = "both"
    bound = np.array([f"{kind} bound"] * L, dtype=object)
    evidence = np.full(L, "", dtype=object)
    evidence[unstable] = np.where(ana_unstable[unstable], bound[unstable], sim_evidence[unstable])
    evidence[stable] = np.where(sim_stable[stable], sim_evidence[stable], "sufficient bound")
    if kind == "exact":
        evidence[stable & ana_stable & ~sim_stable] = "exact bound"
    if contradiction.any():
        notes.append(
            f"contradiction: the simulation found loads {_fmt(loads[contradiction])} unstable "
            f"below the proven-stable load lambda_sufficient = {lambda_sufficient:.6g}; "
            "verdict undetermined (a false alarm of the backlog monitor, or a wrong bound)"
        )
    missed = ana_unstable & sim_stable
    if missed.any():
        beyond = missed & (loads > RESOLUTION * lambda_max)
        text = (
            f"the simulation did not see the growth that the {kind} bound lambda_max = "
            f"{lambda_max:.6g} proves at loads {_fmt(loads[missed])}: verdict unstable "
            "(analysis)"
        )
        if beyond.any():
            text += (
                f"; at {_fmt(loads[beyond])}, more than 5 % above the bound, the "
                "simulation should have seen it: a disagreement"
            )
        notes.append(text)
    if sim is not None:
        notes.extend(_simulation_notes(loads, sim, verdict))
        by_monotone = (verdict == "stable") & (evidence == "monotone")
        if by_monotone.any():
            notes.append(
                f"loads {_fmt(loads[by_monotone])} stable: below a load the simulation found "
                "stable, and stability is monotone in the load for this policy"
            )
    return Verdicts(verdict, source, notes, evidence)


def _simulation_notes(loads, sim, verdict) -> list[str]:
    notes = []
    reason = np.asarray(sim.reason, dtype=object)
    for why, text in (
        ("backlog", "the backlog grows"),
        ("capacity", "an engine buffer filled up"),
        ("cost", "the measured server time per job lambda E[C] reaches the N servers' capacity"),
    ):
        at = reason == why
        if at.any():
            notes.append(f"simulation: {text} at loads {_fmt(loads[at])}")
    skipped = np.asarray(sim.skipped, dtype=bool)
    if skipped.any():
        notes.append(
            f"loads {_fmt(loads[skipped])} not simulated: above a load found "
            "unstable, and stability is monotone in the load for this policy"
        )
    extended = np.asarray(getattr(sim, "extended_jobs", np.full(len(loads), np.nan)), dtype=float)
    longer = np.isfinite(extended)
    if longer.any():
        notes.append(
            f"loads {_fmt(loads[longer])} run longer for a verdict: "
            f"{_fmt(extended[longer])} measured jobs per replication"
        )
    short = (reason == "short") & (verdict == "undetermined")
    if short.any():
        from ..engines.simulation.statistics import MISS_PROBABILITY

        need = np.asarray(sim.jobs_to_verdict, dtype=float)[short]
        notes.append(
            f"undetermined at loads {_fmt(loads[short])}: the runs were too short to exclude "
            f"growth (miss probability above {MISS_PROBABILITY:g}); about "
            f"{_fmt(np.ceil(need))} measured jobs per replication (simulation.jobs) would "
            "decide them"
        )
    return notes


ESTIMATES = (
    "latency_mean",
    "latency_mean_ci",
    "latency_quantile",
    "latency_quantile_ci",
    "cost_mean",
    "cost_mean_ci",
    "copies_mean",
    "copies_mean_ci",
    "precision_achieved",
    "latency_replication_mean",
    "cost_replication_mean",
    "copies_replication_mean",
    "latency_replication_quantile",
)


def per_load(tail, n: int) -> list:
    """A heavy-tail claim per load: ``tail`` is one claim for every load (a
    :class:`~straggler.engines.analysis.tails.LatencyTail`, or None) or a sequence of ``n``, one a
    load (:func:`~straggler.engines.analysis.tails.latency_tails`: central queues of several
    servers depend on the load)."""
    if tail is None or not isinstance(tail, (list, tuple)):
        return [tail] * n
    if len(tail) != n:
        raise ValueError(f"{len(tail)} heavy-tail claims for {n} loads")
    return list(tail)


def ci_reliability(stable, tail=None, warmup_batches=None) -> tuple[np.ndarray, np.ndarray]:
    """Per load, whether the simulation's CI of E[T] can be trusted (``ci_reliable``: 1,
    0, or NaN where the load is not stable and there is no estimate) and, where not,
    why (``ci_reliable_reason``). ``tail``: one heavy-tail claim, or one a load
    (:func:`per_load`).

    Reliable needs both: the response time has a finite variance under the size law
    (else the replication means converge slowly and from below, and the Student-t
    interval under-covers: :mod:`.analysis.tails`), and the run settled: MSER's
    truncation point of the replications' averaged batch means is short of half the
    run, the end of its search (:func:`.simulation.statistics.warmup_batches`). The
    coverage benchmark
    (``benchmarks/ci_coverage.py``) measures what either failure costs."""
    from ..engines.simulation.statistics import N_BATCHES

    stable = np.asarray(stable, dtype=bool)
    reliable = np.where(stable, 1.0, math.nan)
    reason = np.full(len(stable), "", dtype=object)
    heavy = np.zeros(len(stable), dtype=bool)
    for li, t in enumerate(per_load(tail, len(stable))):
        if t is not None and t.variance_infinite and stable[li]:
            heavy[li] = True
            reliable[li] = 0.0
            reason[li] = f"{'infinite mean' if t.mean_infinite else 'infinite variance'}: {t.why}"
    if warmup_batches is not None:
        cut = np.asarray(warmup_batches, dtype=float)
        drifting = stable & ~heavy & np.isfinite(cut) & (cut >= N_BATCHES // 2)
        reliable[drifting] = 0.0
        reason[drifting] = (
            f"not settled: MSER would delete half the run ({N_BATCHES // 2} of the {N_BATCHES} batch means, "
            "averaged over the replications), the most it searches: the run is still drifting"
        )
    return reliable, reason


def cost_ci_reliability(stable, tail=None) -> tuple[np.ndarray, np.ndarray]:
    """Per load, whether the simulation's CI of E[C] can be trusted (``cost_ci_reliable``,
    as :func:`ci_reliability`) and why not: the server time per job has an infinite
    variance (:func:`.analysis.tails.cost_tail`)."""
    stable = np.asarray(stable, dtype=bool)
    reliable = np.where(stable, 1.0, math.nan)
    reason = np.full(len(stable), "", dtype=object)
    if tail is not None and tail.variance_infinite:
        reliable[stable] = 0.0
        reason[stable] = f"infinite variance: {tail.why}"
    return reliable, reason


def _tail_notes(tails: list, stable: np.ndarray) -> list[str]:
    """The heavy-tail claims' reasons at the stable loads, each once (a claim that
    depends on the load names its load in its reason)."""
    whys: list[str] = []
    for li, t in enumerate(tails):
        if t is not None and t.why and stable[li] and t.why not in whys:
            whys.append(t.why)
    return whys


def apply(values: dict, verdicts: Verdicts, tail=None, cost_tail=None) -> dict:
    """The simulated variables with the verdicts applied (see the module docstring):
    estimates only at stable loads, sample means kept, +inf where the mean is
    infinite, and ``verdict``, ``verdict_source``, ``stable``, ``latency_mean_kind``,
    ``ci_reliable`` and ``ci_reliable_reason`` (:func:`ci_reliability`), and those of
    E[C] (:func:`cost_ci_reliability`). ``tail``: one heavy-tail claim for every load,
    or one a load (:func:`per_load`)."""
    out = dict(values)
    stable = np.asarray(verdicts.verdict, dtype=object) == "stable"
    out["latency_sample_mean"] = np.asarray(values["latency_mean"], dtype=float).copy()
    out["cost_sample_mean"] = np.asarray(values["cost_mean"], dtype=float).copy()
    for name in ESTIMATES:
        if name not in values:
            continue
        array = np.array(values[name], dtype=float, copy=True)
        array[~stable] = math.nan
        out[name] = array
    kind = np.full(len(stable), "", dtype=object)
    kind[stable] = "estimate"
    tails = per_load(tail, len(stable))
    for li, t in enumerate(tails):
        if t is None or not stable[li]:
            continue
        if t.variance_infinite:
            kind[li] = "ci_undercovers"
        if t.mean_infinite:
            kind[li] = "infinite"
            out["latency_mean"][li] = math.inf
            out["latency_mean_ci"][li] = math.nan
    verdicts.notes.extend(_tail_notes(tails, stable))
    out["latency_mean_kind"] = kind
    out["ci_reliable"], out["ci_reliable_reason"] = ci_reliability(stable, tail, out.pop("warmup_batches", None))
    out["cost_ci_reliable"], out["cost_ci_reliable_reason"] = cost_ci_reliability(stable, cost_tail)
    out["verdict"] = np.asarray(verdicts.verdict, dtype=object)
    out["verdict_source"] = np.asarray(verdicts.source, dtype=object)
    out["verdict_evidence"] = np.asarray(verdicts.evidence, dtype=object)
    out["stable"] = verdicts.stable
    return out
