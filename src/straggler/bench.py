"""Simulation throughput, with a baseline measured in the same run (``straggler bench``).

Workloads (jobs per second of wall time, one core, best of a few repeats):

``fast_coc_d2_n50``
    the FCFS fast path (:mod:`straggler.simulation.fast`) on CoC with d = 2,
    N = 50 servers, i.i.d. exponential replicas, load 0.4 (mean latency 0.6956);
``simpy_coc_d2_n50``
    the same system written idiomatically in SimPy (a ``Resource`` per server, a
    process per replica, the first completion interrupts the others): the
    baseline, run for fewer jobs;
``fast_coc_d2_n1000``, ``fast_coc_d2_n10000``
    the fast path with more servers: its cost per job does not grow with N.

The fast path's times include the per-replication set-up (accumulators, the
four random streams), not numba's compilation (loaded from the cache or
compiled by a warm-up call before timing).
"""

from __future__ import annotations

import json as _json
import platform
import time

LOAD = 0.4
D = 2


def _coc_model(N: int):
    from .policies import COC_CODE
    from .simulation.encode import POLICY_NAMES
    from .simulation.reference import make_model

    # named by its kernel code: the workloads measure the kernels' branches
    return make_model(POLICY_NAMES[COC_CODE], N, [LOAD], d=D, two_pools=False)


def kernel_throughput(kernel, model, jobs: int, repeat: int = 3) -> dict:
    """Jobs per second of one engine's kernel on ``model`` at its first load (best of
    ``repeat`` runs, after one short run that compiles or loads the kernel)."""
    import numpy as np

    from .simulation import encode_model, run_replication
    from .simulation import statistics as S

    enc = encode_model(model)
    lam = float(model.rates()[0])
    run_replication(kernel, enc, lam, 0, 1000, np.random.SeedSequence(0))  # compile / load
    best = float("inf")
    latency = float("nan")
    for r in range(repeat):
        start = time.perf_counter()
        acc, _ = run_replication(kernel, enc, lam, 0, jobs, np.random.SeedSequence(r))
        best = min(best, time.perf_counter() - start)
        latency = acc.acc[S.A_SUM_T] / acc.acc[S.A_N]
    return {"jobs": jobs, "seconds": best, "jobs_per_second": jobs / best, "mean_latency": latency}


def fast_throughput(N: int = 50, jobs: int = 10_000_000, repeat: int = 3) -> dict:
    """Jobs per second of the fast path on CoC d = 2 with N servers."""
    from .simulation import fast

    return kernel_throughput(fast.run, _coc_model(N), jobs, repeat)


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


def simpy_throughput(N: int = 50, jobs: int = 50_000, repeat: int = 2) -> dict:
    best = float("inf")
    latency = float("nan")
    for r in range(repeat):
        start = time.perf_counter()
        latency = simpy_coc(N, jobs, seed=r)
        best = min(best, time.perf_counter() - start)
    return {"jobs": jobs, "seconds": best, "jobs_per_second": jobs / best, "mean_latency": latency}


def event_throughput(model, jobs: int, repeat: int = 3) -> dict:
    """Jobs per second of the event-driven engine (:mod:`straggler.simulation.events`)."""
    from .simulation import events

    return kernel_throughput(events.run, model, jobs, repeat)


def _ps_mm1_model():
    """M/M/1 with processor sharing at load 0.7 (one server, exponential sizes)."""
    from .policies import ZRED_CODE
    from .simulation.encode import POLICY_NAMES
    from .simulation.reference import make_model

    return make_model(POLICY_NAMES[ZRED_CODE], 1, [0.7], two_pools=False, discipline="PS")


def run_bench(json: bool = False, quick: bool = False, file=None) -> dict:
    """Measure the workloads, print a table (or JSON with ``json=True``) and
    return ``{"workloads": {name: {jobs, seconds, jobs_per_second,
    mean_latency}}, "ratio": fast / simpy jobs per second, ...}``.

    ``quick`` uses 10x fewer jobs (a smoke test; the numbers are noisier).
    """
    import sys

    import numba
    import numpy as np

    file = file or sys.stdout
    f = 10 if quick else 1
    workloads = {
        "fast_coc_d2_n50": fast_throughput(50, 10_000_000 // f),
        "simpy_coc_d2_n50": simpy_throughput(50, 50_000 // f),
        "fast_coc_d2_n1000": fast_throughput(1000, 10_000_000 // f),
        "fast_coc_d2_n10000": fast_throughput(10_000, 10_000_000 // f),
        "event_coc_d2_n50": event_throughput(_coc_model(50), 2_000_000 // f),
        "ps_mm1": event_throughput(_ps_mm1_model(), 2_000_000 // f),
    }
    ratio = workloads["fast_coc_d2_n50"]["jobs_per_second"] / workloads["simpy_coc_d2_n50"]["jobs_per_second"]
    out = {
        "workloads": workloads,
        "ratio": ratio,
        "baseline": "simpy_coc_d2_n50",
        "targets": {"fast_coc_d2_n50": 1.5e7, "ratio": 500.0, "event_coc_d2_n50": 2e6, "ps_mm1": 5e6},
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__},
    }
    if json:
        print(_json.dumps(out, indent=2), file=file)
        return out
    print(f"{'workload':<22}{'jobs':>12}{'seconds':>10}{'jobs/s':>14}{'E[T]':>9}", file=file)
    for name, w in workloads.items():
        print(
            f"{name:<22}{w['jobs']:>12,}{w['seconds']:>10.3f}{w['jobs_per_second']:>14.3e}{w['mean_latency']:>9.4f}",
            file=file,
        )
    print(f"fast / simpy: {ratio:,.0f}x  (targets: fast >= 1.5e7 jobs/s, >= 500x)", file=file)
    return out
