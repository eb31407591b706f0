"""Simulation throughput, as ratios to a baseline measured in the same run (``straggler bench``).

Jobs per second of wall time, one core, best of a few repeats, for every policy of
the registry (:data:`straggler.model.policies.POLICIES`) that an engine simulates, on
every engine and setting that simulates it (:mod:`straggler.engines.registry`): the FCFS fast
path (:mod:`straggler.engines.simulation.fast`) and the event engine
(:mod:`straggler.engines.simulation.events`) with FCFS and PS per-server queues and FCFS
central pool queues. Each figure is printed beside the baseline's as a ratio
("x SimPy"): the machine's speed cancels, its noise (other processes) does not
quite.

The baseline, ``simpy_coc_d2_n50``
    CoC with d = 2, N = 50 servers, i.i.d. exponential replicas, load 0.4 (mean
    latency 0.6956) written idiomatically in SimPy (a ``Resource`` per server, a
    process per replica, the first completion interrupts the others), run for
    fewer jobs.

The workloads, named ``<setting>_<policy>[_<ps_bound>][_d<d>]_n<N>`` (``fast``,
``event``: FCFS per server, ``event_ps``: PS per server, ``event_central``: FCFS
central queues; the policy's name in lower case)
    every simulated policy at N = 50 (d = 2 for the policies that place d
    replicas; the others on two pools of 25 identical servers), with its registry
    defaults, except that a parameter the analysis would choose (``opt``) is fixed
    (:data:`FIXED`: a threshold tau = E[X]); CoC's PS bound systems (``ps_bound``
    lower and upper); CoC at N = 10, 1000 and 10^4 on each setting that simulates
    it (the cost per job should not grow with N); every policy that places d
    replicas at d = 4 and 8 (the cost per job grows with d); and ``ps_mm1``, the
    M/M/1 queue with processor sharing at load 0.7 (ZRed on one server).

The load of a workload is stable by the analysis (:func:`stable_load`): half its
stability bound (a quarter of a bound that is only necessary or approximate), at
most 0.4. A replication stopped before its jobs were done (the
backlog monitor, or an engine's bounded buffer full) reports its stop reason and
no throughput.

The goals (:data:`GOALS`) are ratios to the baseline of the same run: the fast
path on CoC d = 2, N = 50 (``fast_coc_d2_n50``), the event engine on the same
system (``event_coc_d2_n50``) and ``ps_mm1``.

The kernels' times include the per-replication set-up (accumulators, the five
random streams), not numba's compilation (loaded from the cache or compiled by a
warm-up call before timing).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import json as _json
import math
import platform
import time
from dataclasses import dataclass, field

from ..model.policies import COC_CODE, FCFS_CENTRAL, FCFS_PER_SERVER, HEDGE_CODE, PS_PER_SERVER, RIQ_CODE, Setting
from . import registry as engines
from .registry import EngineSpec

LOAD = 0.4
"""The load of CoC d = 2, N = 50 (the baseline's), and the highest load of any workload."""
D = 2
N_POLICY = 50
"""The servers of the per-policy workloads."""
N_SCALING = (10, 50, 1000, 10_000)
FLEET_N = (10, 100, 1000, 10_000)
"""The fleet sizes of a question (the ``fleet`` rows)."""
FLEET_CODES = (COC_CODE, RIQ_CODE, HEDGE_CODE)
"""The policies whose cost per job is measured at every N of :data:`FLEET_N` on FCFS servers,
on exponential sizes and on the heavy-tailed trace (by kernel code: the registry names them)."""
D_SCALING = (2, 4, 8)
PS_MM1_LOAD = 0.7
BASELINE = "simpy_coc_d2_n50"
FIXED: dict[str, float] = {"tau": 1.0}
"""Values for the parameters the analysis would choose (``opt``): the workloads run
without an analysis of their own."""

TIMED_SECONDS = 0.144
"""A timed run's length by its engine's cost model for CoC d = 2 (three units a job,
:attr:`straggler.engines.registry.EngineSpec.seconds_per_unit`, which errs a third slow): 3e6
jobs on the fast path and 6e5 on the event engine, about 0.1 s each on a quiet machine."""
SLOW_JOBS = 60_000
"""Jobs of a timed run of a PS bound system (the event engine's slowest branch)."""
SIMPY_JOBS = 50_000
N_FLAT_GOAL = 0.8
"""A policy's jobs per second at its slowest N of :data:`N_SCALING`, over its fastest in the
same run (per size law): at least this (flat within 20 %)."""
MEAN_FIELD_GOAL = 1.0
"""Seconds a mean-field solve of one cell at one load may take (:func:`mean_field_seconds`)."""
HEADLINE_FACTOR = 2
"""The goals' workloads run this many times more jobs (their ratios are the figures quoted)."""

GOALS: dict[str, float] = {"fast_coc_d2_n50": 1000.0, "event_coc_d2_n50": 250.0, "ps_mm1": 600.0}
"""Workload -> the ratio to the baseline it should reach (the headline goals)."""
BARE = "bare_coc_d2_n50"
"""The fast path's model as a bare loop (:mod:`straggler.engines.simulation.bare`), run with
``fast_coc_d2_n50`` and as many jobs."""
EMPIRICAL_SAMPLE = 10_000
"""The empirical-size workloads draw from a sample of this many exponential(1) values
(seed 0), written to a temporary file: the same law as their exponential twins but for
the sampling, so the two throughputs compare the samplers."""
HEAVY_SEED = 20260415
"""The seed of the heavy-tailed trace (:func:`heavy_trace`)."""
HEAVY_VALUES = 20_000
HEAVY_MIX = ((0.9, 5.0, 0.5), (0.095, 50.0, 0.4))
"""The trace's lognormal parts: share, median and sigma (of the log)."""
HEAVY_PARETO = (0.005, 500.0, 1.6)
"""Its Pareto part: share, x_m and alpha (infinite variance)."""
HEAVY_SHARE_GOAL = 0.5
"""Each event-engine workload on the heavy-tailed trace should run at least this share of
its exponential twin's jobs per second in the same run (the engine's cost per event
should not grow with the queues a heavy tail builds)."""
EMPIRICAL_SHARE_GOAL = 0.8
"""Each engine's throughput on CoC d = 2, N = 50 with empirical sizes should be at least
this share of its throughput with exponential sizes in the same run."""
BARE_SHARE_GOAL = 0.7
"""The fast path's throughput on CoC d = 2, N = 50 should be at least this share of the
bare loop's in the same run (the rest is what its statistics and streams cost)."""


_SETTING_SUFFIX = {FCFS_PER_SERVER: "", PS_PER_SERVER: "_ps", FCFS_CENTRAL: "_central"}


def _timed_jobs(engine: EngineSpec) -> int:
    return int(round(TIMED_SECONDS / (3 * engine.seconds_per_unit), -3))


def _settings() -> tuple[tuple[EngineSpec, Setting, str, str], ...]:
    """``(engine, (discipline, queueing), name prefix, heading)`` of each setting of
    each engine (:data:`straggler.engines.registry.ENGINES`), in the table's order."""
    return tuple(
        (
            engine,
            setting,
            engine.bench_prefix + _SETTING_SUFFIX[setting],
            f"{engine.title.removeprefix('the ')}, {engines.settings_words([setting])}",
        )
        for engine in engines.ENGINES
        for setting in engine.features
    )


@dataclass(frozen=True)
class Workload:
    """One measured system: a policy on an engine, its servers, d, load and jobs."""

    name: str
    engine: str
    discipline: str
    queueing: str
    policy: str
    N: int
    d: int | None
    jobs: int
    params: dict = field(default_factory=dict)
    load: float | None = None
    """None: :func:`stable_load`."""
    group: str = "policies"
    """``policies``, ``N`` or ``d`` (the scaling rows), ``PS bound``, ``sizes`` or ``M/M/1``."""
    sizes: str = "exponential"
    """``exponential`` (mean 1), ``empirical`` (:func:`empirical_sizes`) or ``heavy``
    (:func:`heavy_sizes`)."""

    def model(self, load: float):
        from ..model.policies import POLICIES
        from .simulation.reference import make_model

        size = {"empirical": empirical_sizes, "heavy": heavy_sizes}.get(self.sizes, lambda: None)()
        return make_model(
            self.policy,
            self.N,
            [load],
            size=size,
            d=self.d,
            params=self.params,
            two_pools=self.N > 1 and not POLICIES[self.policy].uses_d,
            discipline=self.discipline,
            queueing=self.queueing,
        )


def _law_of(name: str, values):
    """The empirical law of ``values`` scaled to mean 1, read from a .npy file written once
    per process to a temporary folder (removed at exit)."""
    import atexit
    import shutil
    import tempfile
    from pathlib import Path

    import numpy as np

    from ..model.distributions import Empirical

    folder = Path(tempfile.mkdtemp(prefix="straggler-bench-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / f"{name}.npy"
    np.save(path, values)
    return Empirical(str(path), scale_to_mean=1.0)


@functools.cache
def empirical_sizes():
    """The empirical law of :data:`EMPIRICAL_SAMPLE` exponential(1) draws (seed 0)."""
    import numpy as np

    return _law_of("sizes", np.random.default_rng(0).exponential(1.0, EMPIRICAL_SAMPLE))


def heavy_trace():
    """The heavy-tailed trace, :data:`HEAVY_VALUES` job sizes: 90 % lognormal (median 5,
    sigma 0.5), 9.5 % lognormal (median 50, sigma 0.4) and 0.5 % Pareto (x_m 500, alpha
    1.6), exact counts in an order drawn at random; mean about 18, the largest a few
    thousand times the median. Every value from ``numpy.random.default_rng(HEAVY_SEED)``
    in a fixed order (PCG64: the same on every platform), like
    config/data/make_requests_ms.py."""
    import numpy as np

    rng = np.random.default_rng(HEAVY_SEED)
    counts = [round(HEAVY_VALUES * share) for share, *_ in (*HEAVY_MIX, HEAVY_PARETO)]
    assert sum(counts) == HEAVY_VALUES, counts
    part = rng.permutation(np.repeat(np.arange(len(counts)), counts))
    logn = [rng.lognormal(math.log(median), sigma, HEAVY_VALUES) for _, median, sigma in HEAVY_MIX]
    _, xm, alpha = HEAVY_PARETO
    pareto = xm * (1.0 - rng.random(HEAVY_VALUES)) ** (-1.0 / alpha)
    return np.choose(part, [*logn, pareto])


@functools.cache
def heavy_sizes():
    """The law of :func:`heavy_trace` scaled to mean 1 (the exponential rows' mean)."""
    return _law_of("heavy", heavy_trace())


def stable_load(model) -> float:
    """A load at which ``model`` is stable by the analysis, at most :data:`LOAD`: half
    its stability bound when that is exact or sufficient, a quarter of a necessary
    or approximate one; where the analysis has none (CoC's PS bound systems), half
    the sufficient bound of the policy with its default parameters (for CoC under PS:
    every replica served in full, the upper bound system); else 0.1."""
    from dataclasses import replace

    from .analysis.cell import analyze

    a = analyze(model)
    if a.lambda_max_kind == "exact" and math.isfinite(a.lambda_max):
        bound = 0.5 * a.lambda_max
    elif math.isfinite(a.lambda_sufficient):
        bound = 0.5 * a.lambda_sufficient
    elif math.isfinite(a.lambda_max):
        bound = 0.25 * a.lambda_max
    else:
        bound = 0.5 * analyze(replace(model, params={})).lambda_sufficient
    return min(LOAD, float(bound)) if math.isfinite(bound) else 0.1


def _params(spec) -> dict:
    """The policy's parameters in a workload: the defaults, with :data:`FIXED` for
    those the analysis would choose."""
    return {p: FIXED[p] for p in spec.chosen_by_analysis if spec.parameters.get(p) == "opt" and p in FIXED}


def _name(prefix: str, policy: str, N: int, d: int | None, variant: str = "") -> str:
    parts = [prefix, policy.lower()] + ([variant] if variant else []) + ([f"d{d}"] if d is not None else [])
    return "_".join(parts) + f"_n{N}"


def workloads(quick: bool = False) -> list[Workload]:
    """Every workload of a run, in the table's order (settings, then policies in the
    registry's order, then the scaling rows)."""
    from ..model.policies import COC_CODE, POLICIES, PS_PER_SERVER, ZRED_CODE, ps_bound_policies
    from .simulation.encode import POLICY_NAMES

    f = 10 if quick else 1
    # named by their kernel codes: the scaling rows and M/M/1 measure the kernels' branches
    coc, zred = POLICY_NAMES[COC_CODE], POLICY_NAMES[ZRED_CODE]
    out: list[Workload] = []
    for engine, (discipline, queueing), prefix, _ in _settings():
        jobs = _timed_jobs(engine) // f

        def add(policy, N, d, group="policies", params=None, variant="", n_jobs=jobs, sizes="exponential", load=None):
            spec = POLICIES[policy]
            name = _name(prefix, policy, N, d, variant)
            n_jobs *= HEADLINE_FACTOR if name in GOALS else 1
            p = _params(spec) if params is None else params
            out.append(Workload(name, engine.name, discipline, queueing, policy, N, d, n_jobs, p, load, group, sizes))

        simulated = [n for n, s in POLICIES.items() if engine.simulates(s, (discipline, queueing))]
        for policy in simulated:
            add(policy, N_POLICY, D if POLICIES[policy].uses_d else None)
        for policy in simulated:
            if policy in ps_bound_policies() and (discipline, queueing) == PS_PER_SERVER:
                for value in POLICIES[policy].value_names["ps_bound"]:
                    if value != "none":
                        add(policy, N_POLICY, D, "PS bound", {"ps_bound": value}, value, SLOW_JOBS // f)
        if engine.name == "events":
            # every policy on the heavy-tailed trace beside its exponential twin (the row
            # above), at the twin's load (measure)
            for policy in simulated:
                add(policy, N_POLICY, D if POLICIES[policy].uses_d else None, "heavy", variant="heavy", sizes="heavy")
        if coc in simulated and (discipline, queueing) == FCFS_PER_SERVER:
            # at its exponential twin's load (LOAD: the analysis of the empirical law, which
            # knows less, would choose a lower one)
            add(coc, N_POLICY, D, "sizes", variant="empirical", sizes="empirical", load=LOAD)
        if coc in simulated:
            for N in N_SCALING:
                if N != N_POLICY:
                    add(coc, N, D, "N")
        if (discipline, queueing) == FCFS_PER_SERVER:
            # the fleet sizes a question may ask about: a job's cost should not grow with N,
            # on exponential sizes and on the heavy-tailed trace, for the policies that copy
            # to d of N (each on the engine that runs it there)
            for code in FLEET_CODES:
                policy = POLICY_NAMES[code]
                if policy in simulated and engines.choose(policy, discipline, queueing).name == engine.name:
                    for sizes in ("exponential", "heavy"):
                        variant = "fleet" if sizes == "exponential" else "fleet_heavy"
                        for N in FLEET_N:
                            add(policy, N, D, "fleet", variant=variant, sizes=sizes)
        for policy in simulated:
            if POLICIES[policy].uses_d:
                for d in D_SCALING:
                    if d != D:
                        add(policy, N_POLICY, d, "d")
        if (discipline, queueing) == PS_PER_SERVER:
            jobs_mm1 = jobs * HEADLINE_FACTOR
            out.append(
                Workload("ps_mm1", engine.name, discipline, queueing, zred, 1, None, jobs_mm1, {}, PS_MM1_LOAD, "M/M/1")
            )
    return out


def kernel_throughput(kernel, model, jobs: int, repeat: int = 3) -> dict:
    """Jobs per second of one engine's kernel on ``model`` at its first load (best of
    ``repeat`` runs, after one short run that compiles or loads the kernel).

    ``stop`` is ``done``, or why a replication stopped before its jobs were done
    (``backlog``: the monitor found the load unstable; ``capacity``: an engine's
    bounded buffer was full); then ``jobs_per_second`` is None: a run cut short
    measures nothing."""
    import numpy as np

    from .simulation import encode_model, run_replication
    from .simulation import statistics as S

    enc = encode_model(model)
    lam = float(model.rates()[0])
    run_replication(kernel, enc, lam, 0, 1000, np.random.SeedSequence(0))  # compile / load
    best = math.inf
    latency = math.nan
    stop = "done"
    for r in range(repeat):
        start = time.perf_counter()
        acc, _ = run_replication(kernel, enc, lam, 0, jobs, np.random.SeedSequence(r))
        seconds = time.perf_counter() - start
        reason = int(acc.acc[S.A_REASON])
        if reason != S.STOP_DONE or int(acc.acc[S.A_N]) != jobs:
            stop = {S.STOP_BACKLOG: "backlog", S.STOP_CAPACITY: "capacity"}.get(reason, "short")
            break
        best = min(best, seconds)
        latency = float(acc.acc[S.A_SUM_T] / acc.acc[S.A_N])
    if stop != "done":
        return {"jobs": jobs, "seconds": None, "jobs_per_second": None, "mean_latency": None, "stop": stop}
    return {"jobs": jobs, "seconds": best, "jobs_per_second": jobs / best, "mean_latency": latency, "stop": stop}


def measure(w: Workload, repeat: int = 3) -> dict:
    """Throughput of workload ``w`` on its engine (:func:`kernel_throughput`), with
    its description (engine, setting, policy, N, d, parameters, load)."""
    from .simulation import engine_for

    if w.load is not None:
        load = w.load
    elif w.sizes == "heavy":  # at its exponential twin's load (an analysis of the trace is slow)
        load = stable_load(dataclasses.replace(w, sizes="exponential").model(LOAD))
    else:
        load = stable_load(w.model(LOAD))
    model = w.model(load)
    result = kernel_throughput(engine_for(model, w.engine).kernel, model, w.jobs, repeat)
    return {
        "engine": w.engine,
        "discipline": w.discipline,
        "queueing": w.queueing,
        "policy": w.policy,
        "N": w.N,
        "d": w.d,
        "params": dict(w.params),
        "load": load,
        "group": w.group,
        "sizes": w.sizes,
        **result,
    }


def _coc_model(N: int):
    from ..model.policies import COC_CODE
    from .simulation.encode import POLICY_NAMES
    from .simulation.reference import make_model

    # named by its kernel code: the workloads measure the kernels' branches
    return make_model(POLICY_NAMES[COC_CODE], N, [LOAD], d=D, two_pools=False)


def simpy_coc(N: int, jobs: int, seed: int = 0) -> float:
    """CoC (d = 2, FCFS, exponential replicas, load 0.4) in idiomatic SimPy; the
    mean latency."""
    import random

    import simpy

    rng = random.Random(seed)
    lam = LOAD * N  # E[X] = 1
    env = simpy.Environment()
    servers = [simpy.Resource(env, capacity=1) for _ in range(N)]
    total = [0.0]

    def replica(server, size, done):
        with server.request() as req:
            try:
                yield req
                yield env.timeout(size)
            except simpy.Interrupt:
                return  # cancelled: leaving the with-block frees the queue slot or the server
            if not done.triggered:
                done.succeed()

    def job():
        arrival = env.now
        done = env.event()
        procs = [env.process(replica(servers[s], rng.expovariate(1.0), done)) for s in rng.sample(range(N), D)]
        yield done
        for p in procs:
            if p.is_alive:
                p.interrupt()
        total[0] += env.now - arrival

    def source():
        for _ in range(jobs):
            yield env.timeout(rng.expovariate(lam))
            env.process(job())

    env.process(source())
    env.run()
    return total[0] / jobs


def simpy_throughput(N: int = 50, jobs: int = SIMPY_JOBS, repeat: int = 2) -> dict:
    """Jobs per second of the SimPy baseline (:func:`simpy_coc`), best of ``repeat``."""
    best = math.inf
    latency = math.nan
    for r in range(repeat):
        start = time.perf_counter()
        latency = simpy_coc(N, jobs, seed=r)
        best = min(best, time.perf_counter() - start)
    return {"jobs": jobs, "seconds": best, "jobs_per_second": jobs / best, "mean_latency": latency, "stop": "done"}


def bare_throughput(jobs: int, repeat: int = 3) -> dict:
    """Jobs per second of the bare loop (:mod:`straggler.engines.simulation.bare`) on the fast
    path's headline system, best of ``repeat``."""
    import numpy as np

    from .simulation.bare import coc_mean_latency

    lam = LOAD * N_POLICY  # E[X] = 1
    coc_mean_latency(N_POLICY, D, lam, 1000, np.random.default_rng(0))  # compile / load
    best = math.inf
    latency = math.nan
    for r in range(repeat):
        start = time.perf_counter()
        latency = coc_mean_latency(N_POLICY, D, lam, jobs, np.random.default_rng(r))
        best = min(best, time.perf_counter() - start)
    return {"jobs": jobs, "seconds": best, "jobs_per_second": jobs / best, "mean_latency": latency, "stop": "done"}


def selected(names, only) -> list[str]:
    """The names that match a pattern of ``only`` (a substring, or a shell pattern
    such as ``fast_*_n50``); all of them when ``only`` is empty."""
    if not only:
        return list(names)
    return [n for n in names if any(p in n or fnmatch.fnmatchcase(n, p) for p in only)]


def _finite(x):
    """JSON-safe: NaN and infinities as null."""
    return x if not isinstance(x, float) or math.isfinite(x) else None


def run_bench(json: bool = False, quick: bool = False, file=None, only=None) -> dict:
    """Measure the workloads and the baseline, print a table grouped by engine (or
    JSON with ``json=True``) and return ``{"workloads": {name: {jobs, seconds,
    jobs_per_second, mean_latency, stop, x_simpy, engine, discipline, queueing,
    policy, N, d, params, load, group}}, "baseline": name, "ratio": fast path CoC
    d = 2 N = 50 / baseline jobs per second, "goals": {name: {goal, ratio, met}},
    "versions": ...}``. The baseline is in ``workloads`` too; a stopped workload's
    jobs_per_second and x_simpy are None.

    ``quick`` uses 10x fewer jobs (a smoke test; the numbers are noisier);
    ``only`` keeps the workloads whose names match one of its patterns
    (:func:`selected`; the baseline always runs).
    """
    import sys

    import numba
    import numpy as np

    file = file or sys.stdout
    f = 10 if quick else 1
    chosen = {w.name: w for w in workloads(quick)}
    chosen = {name: chosen[name] for name in selected(chosen, only)}
    start = time.perf_counter()
    coc = _coc_model(N_POLICY)
    results = {
        BASELINE: {
            "engine": "simpy",
            "discipline": coc.discipline,
            "queueing": coc.queueing,
            "policy": coc.policy,
            "N": N_POLICY,
            "d": D,
            "params": {},
            "load": LOAD,
            "group": "baseline",
        }
    }
    results[BASELINE].update(simpy_throughput(N_POLICY, SIMPY_JOBS // f))
    base = results[BASELINE]["jobs_per_second"]
    for name, w in chosen.items():
        results[name] = measure(w)
        if name == "fast_coc_d2_n50":
            results[BARE] = {**results[BASELINE], "engine": "bare", "group": "bare"}
            results[BARE].update(bare_throughput(w.jobs))
    for r in results.values():
        r["x_simpy"] = None if r["jobs_per_second"] is None else r["jobs_per_second"] / base
    goals = {
        name: {"goal": goal, "ratio": results[name]["x_simpy"], "met": (results[name]["x_simpy"] or 0.0) >= goal}
        for name, goal in GOALS.items()
        if name in results
    }
    head = results.get("fast_coc_d2_n50")
    bare_share = None
    if head is not None and head["jobs_per_second"] is not None:
        bare_share = head["jobs_per_second"] / results[BARE]["jobs_per_second"]
    out = {
        "workloads": {name: {k: _finite(v) for k, v in r.items()} for name, r in results.items()},
        "empirical_shares": empirical_shares(results),
        "heavy_shares": empirical_shares(results, "heavy"),
        "n_flatness": n_flatness(results),
        "mean_field": mean_field_seconds() if only is None else {},
        "baseline": BASELINE,
        "ratio": None if head is None else head["x_simpy"],
        "goals": goals,
        "bare_share": {"share": bare_share, "goal": BARE_SHARE_GOAL, "met": (bare_share or 0.0) >= BARE_SHARE_GOAL}
        if head is not None
        else None,
        "quick": quick,
        "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": time.perf_counter() - start,
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__},
    }
    if json:
        print(_json.dumps(out, indent=2), file=file)
    else:
        print(table(out), file=file)
    return out


def n_flatness(results: dict) -> dict:
    """Per policy, engine setting and size law measured at every N of :data:`FLEET_N` (the
    ``fleet`` rows): its slowest N's jobs per second over its fastest's (:data:`N_FLAT_GOAL`)."""
    series: dict[str, dict[int, float | None]] = {}
    for name, r in results.items():
        if r.get("group") != "fleet" or r.get("policy") is None:
            continue
        series.setdefault(name.rsplit("_n", 1)[0], {})[int(r["N"])] = r["jobs_per_second"]
    out = {}
    for key, by_n in series.items():
        values = list(by_n.values())
        ratio = None if any(v is None for v in values) or len(values) < 2 else min(values) / max(values)
        out[key] = {"N": sorted(by_n), "ratio": ratio, "goal": N_FLAT_GOAL, "met": (ratio or 0.0) >= N_FLAT_GOAL}
    return out


def mean_field_seconds(repeat: int = 3) -> dict:
    """Seconds of one mean-field solve (:func:`straggler.engines.mean_field.solve`, best of
    ``repeat`` after one that loads the kernels) of CoC d = 2 with i.i.d. and identical copies
    at load 0.7, on exponential sizes and on the heavy-tailed trace, against
    :data:`MEAN_FIELD_GOAL`."""
    from ..model.dependence import IID, Identical
    from ..model.distributions import Exponential
    from . import mean_field
    from .simulation.encode import POLICY_NAMES

    coc = POLICY_NAMES[COC_CODE]
    out = {}
    for sizes, law in (("exponential", Exponential(1.0)), ("heavy", heavy_sizes())):
        for dep in (IID(), Identical()):
            mean_field.solve(coc, D, law, dep, 0.7)
            best = math.inf
            for _ in range(repeat):
                start = time.perf_counter()
                eq = mean_field.solve(coc, D, law, dep, 0.7)
                best = min(best, time.perf_counter() - start)
            out[f"coc_d{D}_{dep.kind}_{sizes}"] = {
                "seconds": best,
                "latency_mean": eq.latency_mean,
                "error": eq.error,
                "goal": MEAN_FIELD_GOAL,
                "met": best <= MEAN_FIELD_GOAL,
            }
    return out


def empirical_shares(results: dict, sizes: str = "empirical") -> dict:
    """Per workload with ``sizes`` (``empirical``: CoC d = 2, N = 50, FCFS, on each engine;
    ``heavy``: every policy on the event engine): its throughput as a share of its twin's
    with exponential sizes in the same run, against :data:`EMPIRICAL_SHARE_GOAL` or
    :data:`HEAVY_SHARE_GOAL`."""
    goal = HEAVY_SHARE_GOAL if sizes == "heavy" else EMPIRICAL_SHARE_GOAL
    shares = {}
    for name, r in results.items():
        twin = name.replace(f"_{sizes}", "")
        if r.get("sizes") != sizes or twin not in results:
            continue
        a, b = r["jobs_per_second"], results[twin]["jobs_per_second"]
        share = None if a is None or b is None else a / b
        shares[name] = {"of": twin, "share": share, "goal": goal, "met": (share or 0.0) >= goal}
    return shares


def table(out: dict) -> str:
    """The table of :func:`run_bench`'s result: the baseline, then a section per
    engine and setting, then the goals."""
    rows = out["workloads"]
    cols = f"{'workload':<30}{'load':>6}{'jobs':>12}{'seconds':>9}{'jobs/s':>11}{'E[T]':>8}{'x SimPy':>9}"
    lines = [cols]

    def row(name, r):
        if r["jobs_per_second"] is None:
            return f"{name:<30}{r.get('load') or 0:>6.3g}{r['jobs']:>12,}   stopped early ({r['stop']}): no throughput"
        load = f"{r['load']:>6.3g}" if r.get("load") is not None else f"{LOAD:>6.3g}"
        return (
            f"{name:<30}{load}{r['jobs']:>12,}{r['seconds']:>9.3f}{r['jobs_per_second']:>11.3e}"
            f"{r['mean_latency'] if r['mean_latency'] is not None else math.nan:>8.4f}{r['x_simpy']:>8,.0f}x"
        )

    lines.append(row(out["baseline"], rows[out["baseline"]]) + "  (the baseline: idiomatic SimPy)")
    if BARE in rows:
        lines.append(row(BARE, rows[BARE]) + "  (the fast path's model as a bare numba loop)")
    for engine, (discipline, queueing), _, heading in _settings():
        names = [
            n
            for n, r in rows.items()
            if (r["engine"], r.get("discipline"), r.get("queueing")) == (engine.name, discipline, queueing)
        ]
        if not names:
            continue
        lines.append(f"-- {heading}")
        group = "policies"
        for n in names:
            if rows[n]["group"] != group:
                group = rows[n]["group"]
                lines.append(f"   ({_GROUP_TITLES.get(group, group)})")
            lines.append(row(n, rows[n]))
    if out["goals"]:
        lines.append("goals, x SimPy in this run:")
        for name, g in out["goals"].items():
            ratio = "stopped" if g["ratio"] is None else f"{g['ratio']:,.0f}x"
            lines.append(f"  {name:<28}{ratio:>8}  goal >= {g['goal']:,.0f}x  {'met' if g['met'] else 'not met'}")
    share = out.get("bare_share")
    if share is not None:
        value = "stopped" if share["share"] is None else f"{share['share']:.2f}"
        lines.append(
            f"the fast path's share of the bare loop (fast_coc_d2_n50 / {BARE}): {value}  "
            f"goal >= {share['goal']}  {'met' if share['met'] else 'not met'}"
        )
    for name, e in out.get("empirical_shares", {}).items():
        value = "stopped" if e["share"] is None else f"{e['share']:.2f}"
        lines.append(
            f"empirical sizes' share of exponential ({name} / {e['of']}): {value}  "
            f"goal >= {e['goal']}  {'met' if e['met'] else 'not met'}"
        )
    heavy = out.get("heavy_shares", {})
    if heavy:
        lines.append(f"heavy-tailed trace's share of exponential (goal >= {HEAVY_SHARE_GOAL} each):")
        for name, e in heavy.items():
            value = "stopped" if e["share"] is None else f"{e['share']:.2f}"
            lines.append(f"  {name:<34}{value:>8}  {'met' if e['met'] else 'not met'}")
    flat = out.get("n_flatness", {})
    if flat:
        lines.append(
            f"jobs/s at the slowest N over the fastest, N = {', '.join(map(str, FLEET_N))} (goal >= {N_FLAT_GOAL}):"
        )
        for name, e in flat.items():
            value = "stopped" if e["ratio"] is None else f"{e['ratio']:.2f}"
            lines.append(f"  {name:<34}{value:>8}  {'met' if e['met'] else 'not met'}")
    solves = out.get("mean_field", {})
    if solves:
        lines.append(f"a mean-field solve, one cell at load 0.7 (goal <= {MEAN_FIELD_GOAL:g} s):")
        for name, e in solves.items():
            lines.append(
                f"  {name:<34}{e['seconds']:>8.3f} s  E[T] {e['latency_mean']:.4g}  {'met' if e['met'] else 'not met'}"
            )
    lines.append(f"{len(rows)} workloads in {out['seconds']:.0f} s{' (--quick)' if out['quick'] else ''}")
    return "\n".join(lines)


_GROUP_TITLES = {
    "PS bound": "PS bound systems, ps_bound lower and upper",
    "sizes": f"empirical sizes: a sample of {EMPIRICAL_SAMPLE:,} exponential(1) values",
    "heavy": f"the heavy-tailed trace ({HEAVY_VALUES:,} values, heavy_trace) scaled to mean 1, at the twin's load",
    "N": "scaling with N, d = 2",
    "fleet": "the fleet sizes of a question, d = 2, exponential sizes and the heavy-tailed trace",
    "d": "scaling with d, N = 50",
    "M/M/1": "M/M/1-PS, load 0.7",
}
