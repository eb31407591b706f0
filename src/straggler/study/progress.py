"""A run's progress: the jobs it still has to run (:func:`pending_work`, :func:`later_work`),
each a :class:`Unit` with its estimated CPU seconds and the kernels it compiles
(:func:`with_compiles`), and, as they finish, a line with the time left (:class:`Progress`).

The estimates are the plan's (:mod:`.workunits`), scheduled on the cores as Snakemake starts
the jobs (the longest first, :func:`schedule_finishes`), phase after phase (:func:`phases`),
each phase stretched by its own pace. None of it reads a result or writes a file: what a run
computes does not depend on it.

Light: the Snakefile's parse imports this module (no numpy).
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ..engines import registry as engines
from .workunits import STARTUP_SECONDS, Batch, Plan


@dataclass(frozen=True)
class Unit:
    """A job of this run: the file it writes last, and its estimated CPU seconds
    (its cells to compute, or its replications, and its start-up)."""

    path: str
    seconds: float
    rule: str
    kinds: tuple[str, ...] = ()
    """The kinds of cell it simulates (:func:`kernel_kind`), which decide what it compiles."""


def pending_work(
    plan: Plan,
    results: str,
    batches: Iterable[Batch],
    damaged: Iterable[str] = (),
    kinds: dict[str, str] | None = None,
) -> list[Unit]:
    """The jobs that pending ``batches`` (:meth:`Plan.pending`) run: the shards not yet
    simulated, and each batch's evaluation of the cells it computes; ``kinds`` (cell id
    to :func:`kernel_kind`, None for a cell not simulated) names what each simulates."""
    bad = set(damaged)
    kinds = kinds or {}
    units = []
    for batch in batches:
        todo = set(plan.to_compute(results, batch, bad))
        for shard in batch.shards:
            path = f"{results}/units/shards/{shard.name}.json"
            if not Path(path).exists():
                seconds = plan.costs[shard.cell].replication * (shard.stop - shard.first)
                shard_kinds = (kinds[shard.cell],) if kinds.get(shard.cell) else ()
                units.append(Unit(path, seconds + STARTUP_SECONDS, "simulate_shard", shard_kinds))
        computed = [c for c, k in zip(batch.cells, batch.keys) if k in todo]
        if batch.shards:
            work = sum(plan.costs[c].analysis for c in computed)
            simulated: tuple[str, ...] = ()  # its shards simulated the cell
        else:
            work = sum(plan.costs[c].total for c in computed)
            simulated = tuple(dict.fromkeys(kinds[c] for c in computed if kinds.get(c)))
        units.append(Unit(plan.unit_target(results, batch, bad), work + STARTUP_SECONDS, "evaluate", simulated))
    return units


def kind_engine(kind: str) -> str:
    """The engine of a kind of cell (:func:`kernel_kind`: ``engine/policy/...``)."""
    return kind.split("/", 1)[0]


def engine_compile_seconds(engine: str) -> tuple[float, float, float]:
    """The engine's :attr:`~straggler.engines.registry.EngineSpec.compile_seconds` (none for a name
    that is no engine)."""
    spec = engines.BY_NAME.get(engine)
    return (0.0, 0.0, 0.0) if spec is None else spec.compile_seconds


def compile_seconds(kind: str, engine_cached: bool) -> float:
    """What compiling one kind of cell costs a job (:func:`engine_compile_seconds`): the
    engine's kernels as well when no kind of its engine is in the cache yet."""
    first, later, _ = engine_compile_seconds(kind_engine(kind))
    return later if engine_cached else first


def with_compiles(units: list[Unit], parallel: int, missing: Iterable[str]) -> list[Unit]:
    """``units`` with the compilation of the ``missing`` kinds (not in numba's cache)
    added to the jobs that will pay it. Snakemake starts the longest jobs first (the
    rules' priority) on ``parallel`` cores; a job compiles a kind unless a job started
    earlier has compiled it by then (numba then loads it from the cache), and the
    engine's kernels with the first kind of an engine no job has compiled yet. Jobs
    running at once compile the same kernels each: the estimate counts it, as the
    cores spend it."""
    todo = set(missing)
    if not todo:
        return list(units)
    ready: dict[str, float] = {}  # kind, or engine, -> when it is in the cache
    free = [0.0] * max(1, int(parallel))
    out: dict[int, Unit] = {}
    for i in sorted(range(len(units)), key=lambda j: -units[j].seconds):
        unit = units[i]
        start = heapq.heappop(free)
        extra = 0.0
        mine: set[str] = set()  # the engines this job has compiled or loaded
        for kind in unit.kinds:
            if kind not in todo:
                continue
            engine = kind_engine(kind)
            if ready.get(kind, math.inf) <= start:
                extra += 0.0 if engine in mine else engine_compile_seconds(engine)[2]
            else:
                extra += compile_seconds(kind, engine in mine or ready.get(engine, math.inf) <= start)
                ready[kind] = min(ready.get(kind, math.inf), start + extra)
                ready[engine] = min(ready.get(engine, math.inf), start + extra)
            mine.add(engine)
        out[i] = replace(unit, seconds=unit.seconds + extra)
        heapq.heappush(free, start + out[i].seconds)
    return [out[i] for i in range(len(units))]


def wall_seconds(units: list[Unit], cores: int) -> float:
    """The wall time of ``units`` on ``cores``: their CPU time spread over the cores,
    but no shorter than the longest job."""
    if not units:
        return 0.0
    cpu = sum(u.seconds for u in units)
    return max(cpu / max(1, min(int(cores), len(units))), max(u.seconds for u in units))


def schedule_finishes(seconds: list[float], cores: int, first: list[bool] | None = None) -> list[float]:
    """When each job of ``seconds`` ends if they run longest first on ``cores`` (as
    Snakemake starts them: by priority, the longest estimate first), those marked in
    ``first`` before the others, each on the first core free; in the order given."""
    import heapq

    ahead = first or [False] * len(seconds)
    free = [0.0] * max(1, int(cores))
    ends = [0.0] * len(seconds)
    for i in sorted(range(len(seconds)), key=lambda i: (not ahead[i], -seconds[i])):
        start = heapq.heappop(free)
        ends[i] = start + seconds[i]
        heapq.heappush(free, ends[i])
    return ends


def phases(rules: set[str]) -> list[tuple[str, ...]]:
    """The run's jobs (by rule) in the order they can run: the cells' jobs; then side by
    side the searches, the break-even bisections and the figures, which wait for the
    searches when there are any (the winners map reads the located frontiers); the
    report's job last."""
    after = ("figures",) if "searches" in rules else ()
    beside = ("searches", "break-even") + (() if after else ("figures",))
    return [("evaluate", "simulate_shard"), beside, after, ("report",)]


RISE_LIMIT = 0.10
"""The most the time left shown may rise from one progress line to the next (10 %)."""


def smoothed_left(raw: float, previous: float | None, since: float) -> float:
    """The time left to show: the mean of the new estimate ``raw`` and what the last
    line's ``previous``, ``since`` seconds ago, says now, and never more than
    :data:`RISE_LIMIT` above ``previous``. A job finishing later than the pace so far
    (a compile, a costly cell) would otherwise make the time left jump up and down. A
    last line whose time has run out is not blended in (it would halve the new estimate)."""
    if previous is None:
        return raw
    blended = raw if previous <= since else 0.5 * (raw + previous - since)
    return min(blended, (1 + RISE_LIMIT) * previous)


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``2 h 05 min``."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest:02d} s"
    hours, rest = divmod(round(seconds / 60), 60)
    return f"{hours} h {rest:02d} min"


PROGRESS_MIN_SECONDS = 60.0
"""A run shows its progress only when the plan's estimate of its work (CPU seconds, as
``straggler plan`` prints it) is longer than this."""


class Progress:
    """The run's progress, from the files its jobs write last (:class:`Unit`): a line
    with the estimated time left whenever jobs have finished (:meth:`poll`), at most
    one per poll. Reads no result and writes nothing."""

    def __init__(self, units: list[Unit], parallel: int = 1, clock: Callable[[], float] = time.monotonic):
        self.units = list(units)
        self.parallel = int(parallel)
        self.total = sum(u.seconds for u in self.units)
        self.clock = clock
        self.start = clock()
        self.finished: set[str] = set()
        self.finished_at: dict[str, float] = {}  # a job's file's path: when a poll saw it
        # a job's file already there from an earlier run counts once it is written again
        self.before = {u.path: _mtime(u.path) for u in self.units}
        self._stop = threading.Event()
        self._left: tuple[float, float] | None = None  # the last time left shown, and when

    def time_left(self, elapsed: float) -> float | None:
        """The wall seconds left at ``elapsed`` (None before a job has finished). Each
        phase of the run (:func:`phases`) is its jobs' estimates scheduled on the cores
        (:func:`schedule_finishes`),
        stretched by its own pace: the seconds its finished jobs took against when the
        schedule ends them. A phase begins when the one before ends (as seen, once it
        has; else as predicted), and a phase with no job finished yet runs at its
        estimate: the cells' pace says nothing of the report's, and jobs that run side
        by side finish close together (a job still running is not counted as begun)."""
        if not self.finished:
            return None
        begin = 0.0
        for rules in phases({u.rule for u in self.units}):
            units = [u for u in self.units if u.rule in rules]
            if not units:
                continue
            # the figures' jobs start first (their rule's priority), then the longest
            ends = schedule_finishes([u.seconds for u in units], self.parallel, [u.rule == "figures" for u in units])
            seen = [(self.finished_at[u.path], end) for u, end in zip(units, ends) if u.path in self.finished]
            if len(seen) == len(units):
                begin = max(at for at, _ in seen)
                continue
            pace = 1.0
            if seen:
                last = max(at for at, _ in seen)
                pace = max(last - begin, 0.0) / max(max(end for _, end in seen), 1e-9)
            begin += pace * max(ends)
        return max(0.0, begin - elapsed)

    def line(self, elapsed: float) -> str:
        """The progress line at ``elapsed`` seconds."""
        done = sum(u.seconds for u in self.units if u.path in self.finished)
        left = self.time_left(elapsed)
        if left is not None:
            if self._left is not None:
                shown, at = self._left
                left = smoothed_left(left, shown, elapsed - at)
            self._left = (left, elapsed)
        share = 100 * done / self.total if self.total > 0 else 100.0
        kinds = {u.rule for u in self.units}
        rules = "evaluate " if kinds == {"evaluate"} else "evaluate and shard " if kinds <= SIMULATING else ""
        text = (
            f"straggler: {len(self.finished)} of {len(self.units)} {rules}jobs done "
            f"({share:.0f}% of the estimated work) in {duration(elapsed)}"
        )
        if left is not None and len(self.finished) < len(self.units):
            text += f"; about {duration(left)} left"
        return text

    def poll(self) -> str | None:
        """The progress line if a job has finished since the last poll, else None."""
        new = {u.path for u in self.units if u.path not in self.finished and _mtime(u.path) > self.before[u.path]}
        if not new:
            return None
        elapsed = self.clock() - self.start
        self.finished |= new
        self.finished_at.update({path: elapsed for path in new})
        return self.line(elapsed)

    def watch(self, emit: Callable[[str], object], interval: float = 2.0) -> threading.Thread:
        """Poll every ``interval`` seconds in a daemon thread, ``emit`` each line, until
        every unit has finished or :meth:`stop`."""

        def loop() -> None:
            while not self._stop.wait(interval):
                text = self.poll()
                if text is not None:
                    emit(text)
                if len(self.finished) == len(self.units):
                    return

        thread = threading.Thread(target=loop, name="straggler-progress", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        """End :meth:`watch`."""
        self._stop.set()


SIMULATING = {"evaluate", "simulate_shard"}
"""The rules of the cells' jobs (:func:`pending_work`)."""

FIGURES_SHARE = 0.7
"""The part of the report's estimate (:data:`REPORT_SECONDS`) that the aggregation and
the figures take, in two jobs side by side once the cells are done; the rest is the
report's own job, last (measured: the figures and the aggregation 29 s of wall time of
the default study's 41-47 s of CPU on two cores; the report's job alone, after the
hedging study's bisections, 7 s)."""


def _mtime(path: str) -> float:
    """The file's modification time, -inf when it does not exist."""
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return -math.inf


def later_work(parts: dict[str, float], files: dict[str, list[str]]) -> list[Unit]:
    """The jobs after the cells as :class:`Unit` s for the progress lines: each part of
    :func:`study_seconds` shared among the files its jobs write (``files``: part -> paths;
    a part without files is left out). With ``figures`` files (a file of each figures
    job), :data:`FIGURES_SHARE` of the report's part is theirs."""
    parts = dict(parts)
    if files.get("figures") and parts.get("report", 0.0) > 0.0:
        parts["figures"] = FIGURES_SHARE * parts["report"]
        parts["report"] -= parts["figures"]
    units = []
    for part, paths in files.items():
        if paths and parts.get(part, 0.0) > 0.0:
            share = parts[part] / len(paths)
            units += [Unit(path, share, part) for path in paths]
    return units
