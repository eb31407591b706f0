"""What a run length or a precision target costs, estimated from a short pilot
(``straggler plan --pilot``).

A precision-defined scale (``simulation.precision``, a relative CI half-width of the
mean latency) runs each load until its CI is that narrow, from ``replications`` runs
of ``jobs`` up to ``max_jobs`` measured jobs; a fixed scale runs every load for the
same ``replications`` x ``jobs``. Which is cheaper, and which is more precise where,
depends on each load's variance, which only a simulation tells. So the pilot runs
every cell at every load for a few short replications, and projects both:

- the variance of one replication's mean latency falls as one over its length once
  the run is much longer than the system's memory: a pilot replication of ``n_p``
  measured jobs whose means have standard deviation ``s_p`` says that a replication
  of ``n`` jobs has ``s = s_p sqrt(n_p / n)``; the CI of ``R`` such replications is
  ``t_{R-1} s / sqrt(R)`` (Student t at the study's confidence);
- the sequential rule (:func:`straggler.engines.simulation.simulate`) adds replications until
  ``t_{R-1} s / sqrt(R) <= precision x mean``, from ``replications`` up to
  ``max_jobs / jobs``; a load the pilot finds unstable stops in both modes after
  about as many jobs as the pilot's replications ran there, and the loads above it
  are not simulated (as the runs do for a policy whose stability is monotone);
- seconds per job are the pilot's own CPU seconds, cell by cell (warm-up included).

A projection, not a measurement: a short pilot sees less of a heavily loaded system's
memory than a long run does, so it tends to underestimate the variance near
saturation (and so the half-widths and the cost of precision there). The run itself
records what it reached (``precision_achieved``, ``replications``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config.resolved import ResolvedConfig

PILOT_JOBS = 100_000
"""Measured jobs per pilot replication (the warm-up is a tenth of it)."""
PILOT_REPLICATIONS = 8


@dataclass(frozen=True)
class PilotLoad:
    """What the pilot saw at one load of one cell."""

    cell: str
    load: float
    verdict: str
    """``stable``, ``unstable``, ``undetermined`` or ``""`` (not simulated: above an unstable load)"""
    mean: float
    """mean latency"""
    spread: float
    """standard deviation of a pilot replication's mean latency (NaN: not stable)"""
    seconds_per_job: float
    """the cell's simulation seconds per simulated job, warm-up included"""
    pilot_jobs: float
    """jobs (warm-up included) one pilot replication simulated at this load"""


@dataclass(frozen=True)
class Pilot:
    """A pilot of every simulated cell of a study."""

    study: str
    jobs: int
    warmup: int
    replications: int
    confidence: float
    loads: tuple[PilotLoad, ...]
    seconds: float
    """wall time of the pilot"""


def pilot_config(resolved: ResolvedConfig, jobs: int, replications: int) -> ResolvedConfig:
    """``resolved`` at the pilot's length: ``replications`` fixed runs of ``jobs``."""
    sim = dataclasses.replace(
        resolved.simulation, jobs=int(jobs), warmup=max(int(jobs) // 10, 1), replications=int(replications)
    )
    sim = dataclasses.replace(sim, precision=None, max_jobs=None)
    return dataclasses.replace(resolved, simulation=sim)


def run_pilot(
    resolved: ResolvedConfig,
    jobs: int = PILOT_JOBS,
    replications: int = PILOT_REPLICATIONS,
    progress: Callable[[int, int], None] | None = None,
) -> Pilot:
    """Simulate every cell of ``resolved`` at every load, ``replications`` runs of ``jobs``
    (``progress(done, total)`` after each cell)."""
    from ..model.policies import POLICIES
    from .evaluate import evaluate_cell
    from .grid import build_grid
    from .workunits import analysis_seconds

    short = pilot_config(resolved, jobs, replications)
    cells = [c for c in build_grid(short).cells.values() if not POLICIES[c.policy].analytic_only]
    if "simulation" not in resolved.evaluate:
        cells = []
    start = time.perf_counter()
    out: list[PilotLoad] = []
    warmup = int(short.simulation.warmup)
    for done, cell in enumerate(cells, 1):
        stats: dict = {}
        # CPU time of this process (the pilot runs on one thread): what the cell costs
        # whatever else the machine runs
        began = time.process_time()
        ds = evaluate_cell(short, cell.id, stats=stats)
        # the simulation's share: the analysis's own estimate taken off (it runs once a cell)
        seconds = time.process_time() - began
        seconds = max(seconds - analysis_seconds(short, cell), seconds / 2)
        out.extend(_cell_loads(ds, cell.id, seconds, warmup, replications))
        if progress is not None:
            progress(done, len(cells))
    s = short.simulation
    return Pilot(
        resolved.study, int(s.jobs), warmup, int(replications), float(s.confidence), tuple(out),
        time.perf_counter() - start,
    )  # fmt: skip


def _cell_loads(ds, cell_id: str, seconds: float, warmup: int, replications: int) -> list[PilotLoad]:
    """A cell's pilot loads from its dataset (``seconds``: the cell's evaluation)."""
    import numpy as np

    verdicts = [str(v) for v in ds["verdict"].values]
    run = ds["replications"].values > 0
    # measured jobs per replication at each load (an unstable one stopped early), plus the warm-up
    per_replication = np.where(run, ds["jobs"].values / np.maximum(ds["replications"].values, 1) + warmup, 0.0)
    simulated = float(np.nansum(per_replication * ds["replications"].values))
    seconds_per_job = seconds / simulated if simulated > 0 else math.nan
    means = ds["latency_replication_mean"].values
    out = []
    for i, load in enumerate(ds["load"].values):
        row = means[i][np.isfinite(means[i])]
        spread = float(np.std(row, ddof=1)) if len(row) >= 2 and verdicts[i] == "stable" else math.nan
        out.append(
            PilotLoad(
                cell_id,
                float(load),
                verdicts[i] if run[i] else "",
                float(ds["latency_mean"].values[i]),
                spread,
                seconds_per_job,
                float(per_replication[i]),
            )
        )
    return out


# ----------------------------------------------------------------------- projections


@dataclass(frozen=True)
class PointProjection:
    """One load of one cell under a run length."""

    cell: str
    load: float
    replications: int
    relative_half_width: float
    """projected CI half-width over the mean latency (NaN: no CI, the load is not stable)"""
    seconds: float


@dataclass(frozen=True)
class Projection:
    """A study under one run length: every stable point's CI, and the CPU time."""

    points: tuple[PointProjection, ...]

    @property
    def seconds(self) -> float:
        """CPU seconds of the simulation, all cells."""
        return float(sum(p.seconds for p in self.points))

    @property
    def widest(self) -> PointProjection | None:
        """The stable point with the widest relative CI (None: no stable point)."""
        finite = [p for p in self.points if math.isfinite(p.relative_half_width)]
        return max(finite, key=lambda p: p.relative_half_width) if finite else None


def project(
    pilot: Pilot,
    jobs: int,
    warmup: int,
    replications: int,
    precision: float | None = None,
    max_jobs: int | None = None,
) -> Projection:
    """The study at ``replications`` runs of ``jobs`` after ``warmup`` (fixed), or, with
    ``precision``, from ``replications`` runs up to ``max_jobs // jobs`` until the
    relative CI half-width is at most ``precision`` (see the module's docstring)."""
    from ..engines.simulation import statistics  # numba: only when projecting, not for the CLI's import

    most = replications if precision is None else max(replications, int(max_jobs or 0) // int(jobs))
    points = []
    for p in pilot.loads:
        if not p.verdict:
            points.append(PointProjection(p.cell, p.load, 0, math.nan, 0.0))
            continue
        if p.verdict != "stable" or not (math.isfinite(p.spread) and p.mean > 0):
            # stops early when unstable (about the pilot's length), runs its whole length otherwise
            reps = replications if p.verdict == "unstable" or precision is None else most
            length = p.pilot_jobs if p.verdict == "unstable" else jobs + warmup
            points.append(PointProjection(p.cell, p.load, reps, math.nan, reps * length * p.seconds_per_job))
            continue
        spread = p.spread * math.sqrt(pilot.jobs / jobs)  # one replication of `jobs`
        reps = replications
        if precision is not None:  # the rule the run follows
            reps = statistics.fewest_replications(spread, precision * p.mean, pilot.confidence, replications, most)
        half = statistics.t_quantile(pilot.confidence, reps - 1) * spread / math.sqrt(reps) if reps >= 2 else math.inf
        points.append(PointProjection(p.cell, p.load, reps, half / p.mean, reps * (jobs + warmup) * p.seconds_per_job))
    return Projection(tuple(points))


def comparison_text(pilot: Pilot, resolved: ResolvedConfig, fixed_replications: int | None = None) -> list[str]:
    """Lines comparing the study's own run length with the fixed one of
    ``fixed_replications`` x ``jobs`` (default: the study's ``replications``; a
    precision-defined study is compared with its cap, ``max_jobs / jobs``)."""
    sim = resolved.simulation
    jobs, warmup = int(sim.jobs), int(sim.warmup)
    if fixed_replications is None:
        fixed_replications = int(sim.replications)
        if sim.precision is not None and sim.max_jobs is not None:
            fixed_replications = max(int(sim.max_jobs) // jobs, 1)
    fixed = project(pilot, jobs, warmup, fixed_replications)
    lines = [
        f"pilot: {pilot.replications} replications of {pilot.jobs:.3g} jobs (warm-up {pilot.warmup:.3g}) at every "
        f"load of {len({p.cell for p in pilot.loads})} cells, {pilot.seconds:.0f} s",
        f"fixed length ({fixed_replications} x {jobs:.3g} jobs a load): {_hours(fixed.seconds)}; {_widest(fixed)}",
    ]
    if sim.precision is not None:
        seq = project(pilot, jobs, warmup, int(sim.replications), float(sim.precision), sim.max_jobs)
        cap = (int(sim.max_jobs) // jobs) if sim.max_jobs is not None else None
        lines.append(
            f"precision {float(sim.precision):.3g} ({int(sim.replications)} to {cap} x {jobs:.3g} jobs a load): "
            f"{_hours(seq.seconds)}, {seq.seconds / fixed.seconds:.2f} of the fixed length; {_widest(seq)}"
        )
    widest = fixed.widest
    if widest is not None:
        lines.append(
            f"a precision of {widest.relative_half_width:.3g} or finer is as fine as the fixed length everywhere "
            "(its widest CI)"
        )
    return lines


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.3g} CPU-h"


def _widest(projection: Projection) -> str:
    widest = projection.widest
    if widest is None:
        return "no stable point"
    return f"widest CI {widest.relative_half_width:.3g} of the mean\n    at {widest.cell}, load {widest.load:g}"
