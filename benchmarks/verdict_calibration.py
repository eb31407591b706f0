"""Calibration of the stability verdict: how fast the backlog monitor sees growth,
and how often the verdicts are wrong.

    .venv/bin/python benchmarks/verdict_calibration.py table  [--runs 200] [--quick]
    .venv/bin/python benchmarks/verdict_calibration.py rates  [--runs 200] [--quick]
    .venv/bin/python benchmarks/verdict_calibration.py idle   [--runs 2000] [--quick]

``table``
    For each pool size n (the monitor takes the median backlog over a pool), runs
    ZRed on n identical FCFS servers at load 1.05 (5 % above the exact bound 1)
    with four size laws (deterministic, exponential, hyperexponential with scv 9.5,
    Pareto alpha = 2.2), ``--runs`` runs each, long enough for nearly all to be
    flagged, and prints the work per server (in monitor waits) at which the
    monitor fired: per n, the quantile x_p of the slowest law at each level p of
    ``DETECTION_LEVELS``. These are the constants ``DETECTION_WAITS`` of
    ``straggler.engines.simulation.statistics`` (a replication that ran x_p waits without
    being flagged would have been flagged with probability p had the load been
    5 % above its bound). Runs not flagged within the run length count as flagged
    at +inf, so a quantile is never underestimated.
``rates``
    The simulation's verdict rule end to end (``straggler.engines.simulation.simulate``,
    2 replications, starting from 200,000 jobs, with sequential stopping so that
    each run goes on until it has a verdict: ``precision = 1``, a cap of 10^9
    jobs), ``--runs`` seeds per setting: light (exponential) and heavy (Pareto
    alpha = 2.2) tails, N = 10 and 1000, FCFS and PS, loads 0.95 and 1.05 of an
    exact bound (ZRed: 1; CoC with i.i.d. exponential replicas on FCFS: 1). Prints
    the counts of ``stable``, ``unstable``, ``undetermined`` (false alarms are
    ``unstable`` at 0.95, misses ``stable`` at 1.05) and the measured jobs per
    replication the verdicts took (median and largest).

``idle``
    The idle evidence (``straggler.engines.simulation.statistics.idle_evidence``) at the
    shortest runs it accepts: ZRed on n identical servers (FCFS, and PS for n = 10)
    at loads 1.0 and 1.05 of the exact bound, the four size laws, ``--runs`` runs
    each whose measured part spans ``IDLE_SPAN_WAITS`` waits of time (``--span``
    another; warm-up 10 %; pools of 100: a tenth of the runs), the monitor left to
    fire. Prints how many runs the rule calls stable (wrong: every one of these loads
    is unstable) and the largest idle fraction of the busiest pool seen.

Measured figures are in docs/reference/verdicts.md ("Stability verdicts") and the closing notes;
this is a benchmark, never a timed test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

SIZES = {
    "det": ("deterministic", {"value": 1.0}),
    "exp": ("exponential", {"mean": 1.0}),
    "h2": ("hyperexponential", {"p": (0.95, 0.05), "rates": (1.9, 0.1)}),
    "pareto2.2": ("pareto", {"xm": 1.2 / 2.2, "alpha": 2.2}),
}
POOL_SIZES = (1, 2, 5, 10, 100, 1000)


def _size(name):
    from straggler.model import distributions as D

    family, params = SIZES[name]
    return D.from_spec({"family": family, **params})


def detection_waits(
    n: int, size: str, runs: int, length: float, load: float = 1.05, seed: int = 0
) -> tuple[np.ndarray, float]:
    """Work per server (in waits) at which the monitor fired, +inf for runs it did
    not fire within ``length`` waits; and the wait."""
    from straggler.engines.simulation import encode_model, engine_for, run_replication
    from straggler.engines.simulation import statistics as S
    from straggler.engines.simulation.encode import F_MONITOR_WAIT
    from straggler.engines.simulation.reference import make_model

    X = _size(size)
    model = make_model("ZRed", n, [load], size=X, two_pools=False)
    enc = encode_model(model)
    kernel = engine_for(model).kernel
    lam = float(model.rates()[0])
    wait = float(enc.flts[F_MONITOR_WAIT])
    jobs = int(length * n * wait / X.mean() / load) + 1

    def one(r):
        acc, _ = run_replication(kernel, enc, lam, 0, jobs, np.random.SeedSequence([seed, n, r]))
        if acc.acc[S.A_STABLE] == 1.0:
            return np.inf
        return acc.acc[S.A_WORK] / n / wait

    with ThreadPoolExecutor(2) as pool:
        return np.array(list(pool.map(one, range(runs)))), wait


def table(runs: int, quick: bool) -> dict:
    from straggler.engines.simulation.statistics import DETECTION_LEVELS

    out = {}
    for n in POOL_SIZES if not quick else (1, 10):
        length = 60.0 if n <= 2 else (30.0 if n <= 10 else 8.0)
        worst = None
        for size in SIZES:
            start = time.perf_counter()
            x, wait = detection_waits(n, size, runs, length)
            q = np.quantile(x, DETECTION_LEVELS, method="higher")
            print(
                f"n = {n:5d} {size:10s} wait {wait:8.4g}: flagged {np.isfinite(x).sum()}/{runs}, "
                f"x_p = {np.round(q, 2).tolist()} ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
            worst = q if worst is None else np.maximum(worst, q)
        out[n] = [round(float(v), 2) for v in worst]
    print("DETECTION_WAITS =", json.dumps(out))
    return out


def false_alarms(runs: int, quick: bool) -> None:
    """Runs of ZRed at load 0.95 flagged within 30 waits (8 for n >= 100)."""
    for n in POOL_SIZES if not quick else (1, 10):
        length = 30.0 if n <= 10 else 8.0
        for size in SIZES:
            x, wait = detection_waits(n, size, runs, length, load=0.95, seed=1)
            print(
                f"load 0.95, n = {n:5d} {size:10s}: flagged {np.isfinite(x).sum()}/{runs} within {length:g} waits",
                flush=True,
            )


def rates(runs: int, quick: bool, only: str | None = None) -> None:
    from straggler.engines.simulation import simulate
    from straggler.engines.simulation.reference import make_model
    from straggler.model import distributions as D
    from straggler.study.grid import seed_sequence

    jobs, warmup, reps = 200_000, 20_000, 2
    print(f"{'setting':32s} load  stable unstable undetermined  jobs per replication (median, max)", flush=True)
    settings = []
    for disc in ("FCFS", "PS"):
        for N in (10, 1000):
            for law in ("exp", "pareto2.2"):
                settings.append(("ZRed", disc, N, law))
    settings += [("CoC", "FCFS", 10, "exp"), ("CoC", "FCFS", 1000, "exp")]
    for policy, disc, N, law in settings:
        if quick and N == 1000:
            continue
        if only and only not in f"{policy} {disc} {N} {law}":
            continue
        X = D.Exponential(1.0) if law == "exp" else _size(law)
        for load in (0.95, 1.05):
            model = make_model(
                policy, N, [load], size=X, two_pools=False, discipline=disc, d=2 if policy == "CoC" else None
            )
            counts = {"stable": 0, "unstable": 0, "undetermined": 0}
            used = []
            start = time.perf_counter()
            for r in range(runs):
                res = simulate(
                    model,
                    seed_sequence(2026 + r, "calibration"),
                    jobs=jobs,
                    warmup=warmup,
                    replications=reps,
                    confidence=0.95,
                    precision=1.0,
                    max_jobs=10**9,
                )
                counts[str(res.verdict[0])] += 1
                used.append(float(res.jobs[0]) / float(res.replications[0]))
            print(
                f"{policy:4s} {disc:4s} N = {N:4d} {law:9s}  {load:4.2f}  {counts['stable']:6d} "
                f"{counts['unstable']:8d} {counts['undetermined']:12d}  {np.median(used):9.3g} "
                f"{np.max(used):9.3g}  ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )


def idle(runs: int, quick: bool, span: float | None = None, loads=(1.05, 1.0)) -> None:
    from straggler.engines.simulation import encode_model, engine_for, run_replication
    from straggler.engines.simulation import statistics as S
    from straggler.engines.simulation.encode import F_MONITOR_WAIT
    from straggler.engines.simulation.reference import make_model

    print(f"{'n':>5s} {'disc':4s} {'law':10s} {'load':>5s}  called stable  largest idle fraction", flush=True)
    span = S.IDLE_SPAN_WAITS if span is None else float(span)
    print(f"measured part spanning {span:g} waits of time")
    cases = [(n, "FCFS") for n in ((1, 2, 5, 10, 100) if not quick else (1, 10))] + [(10, "PS")]
    for n, disc in cases:
        for size in SIZES:
            X = _size(size)
            for load in loads:
                model = make_model("ZRed", n, [load], size=X, two_pools=False, discipline=disc)
                enc = encode_model(model)
                kernel = engine_for(model).kernel
                lam = float(model.rates()[0])
                wait = float(enc.flts[F_MONITOR_WAIT])
                # the measured part spans the rule's time (plus a checkpoint's slack)
                jobs = int(span * wait * lam * 1.02) + 1
                warmup = jobs // 10
                count = runs if n < 100 else max(runs // 10, 1)

                def one(r, enc=enc, kernel=kernel, lam=lam, jobs=jobs, warmup=warmup, n=n, load=load, size=size):
                    acc, _ = run_replication(
                        kernel, enc, lam, warmup, jobs, np.random.SeedSequence([7, n, int(load * 100), r, len(size)])
                    )
                    fired = acc.acc[S.A_STABLE] != 1.0
                    called = (not fired) and S.idle_evidence(
                        [acc], wait * span / S.IDLE_SPAN_WAITS, lam, warmup, pools=1
                    )
                    frac = S.idle_fraction([acc], pools=1)[0]
                    return called, (frac if np.isfinite(frac) else 0.0)

                start = time.perf_counter()
                with ThreadPoolExecutor(2) as pool:
                    out = list(pool.map(one, range(count)))
                called = sum(c for c, _ in out)
                largest = max(f for _, f in out)
                print(
                    f"{n:5d} {disc:4s} {size:10s} {load:5.2f}  {called:6d}/{count:<6d}  {largest:8.4f}"
                    f"  ({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("table", "false-alarms", "rates", "idle"))
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--span", type=float, help="idle: the measured part's span in waits (default IDLE_SPAN_WAITS)")
    parser.add_argument("--quick", action="store_true", help="small pools only")
    parser.add_argument(
        "--only", help="rates: the settings whose 'policy discipline N law' contains this text, e.g. 'CoC' or 'PS 1000'"
    )
    args = parser.parse_args(argv)
    if args.what == "rates":
        rates(args.runs, args.quick, args.only)
    elif args.what == "idle":
        idle(args.runs, args.quick, args.span)
    else:
        {"table": table, "false-alarms": false_alarms, "idle": idle}[args.what](args.runs, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
