"""What the fast path's bookkeeping costs: the bare loop, then the bare loop with each
thing the fast path keeps per job added, against the fast path itself, in one run.

    .venv/bin/python benchmarks/fast_path_costs.py [--jobs 6000000] [--repeat 3]

CoC d = 2, N = 50, i.i.d. exponential replicas, load 0.4 (the bench's headline system).
The rows add, one at a time and then together, to the bare loop of
``straggler.engines.simulation.bare``, each as the fast path keeps it: the statistics of every
measured job (sums, batch means, the latency histogram: each job's row written, then
``statistics.record_rows`` over a block), the idle evidence of every arrival (counted in
registers), and the random numbers read from block-filled buffers (arrivals, routing,
sizes; ``streams.refill_*``) instead of the generator called per value. Each row is a
share of the bare loop's throughput in the same run; the last row is the fast path's
own (its monitor, chunking, cancellation delay, job types, pools and common-random-number
layout are the rest).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from straggler.engines.simulation import engine_for, run_replication
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.bare import coc_mean_latency
from straggler.engines.simulation.encode import encode
from straggler.engines.simulation.reference import make_model
from straggler.engines.simulation.streams import refill_exponential, refill_uniform

N, D, LOAD = 50, 2, 0.4
BLOCK = 4096


# The block reads are written out at each stream: a shared inlined reader returning
# (value, position) made numba compile the whole loop to a third of its speed (measured).
@numba.njit(nogil=True)
def _variant(N, d, lam, jobs, rng, keep_stats, see_idle, blocks, acc, batches, hist):
    free = np.zeros(N)
    perm = np.arange(N)
    start = np.empty(d)
    finish = np.empty(d)
    chosen = np.empty(d, dtype=np.int64)
    fbuf = np.zeros(1)
    ibuf = fbuf.view(np.int64)
    inv_batch = S.N_BATCHES / jobs
    arrivals = np.empty(BLOCK)
    routing = np.empty(BLOCK)
    sizes = np.empty(BLOCK)
    rows = np.empty((BLOCK, S.ROW_COLUMNS))
    seen = 0.0
    idle = 0.0
    pa = BLOCK
    pr = BLOCK
    ps = BLOCK
    t = 0.0
    for m in range(jobs):
        if blocks:
            if pa == BLOCK:
                pa = refill_exponential(rng, arrivals, pa)
            t += arrivals[pa] / lam
            pa += 1
        else:
            t += rng.standard_exponential() / lam
        done = np.inf
        for i in range(d):
            if blocks:
                if pr == BLOCK:
                    pr = refill_uniform(rng, routing, pr)
                u = routing[pr]
                pr += 1
            else:
                u = rng.random()
            r = i + int(u * (N - i))
            s = perm[r]
            perm[r] = perm[i]
            perm[i] = s
            chosen[i] = s
            if see_idle and i == 0:  # as the fast path counts it: in registers
                seen += 1.0
                idle += 1.0 if free[s] <= t else 0.0
            start[i] = max(t, free[s])
            if blocks:
                if ps == BLOCK:
                    ps = refill_exponential(rng, sizes, ps)
                x = sizes[ps]
                ps += 1
            else:
                x = rng.standard_exponential()
            finish[i] = start[i] + x
            done = min(done, finish[i])
        cost = 0.0
        for i in range(d):
            if start[i] < done:
                free[chosen[i]] = done
                cost += done - start[i]
        if keep_stats:  # as the fast path records them: rows, then one pass a block
            rows[m % BLOCK, S.ROW_LAT] = done - t
            rows[m % BLOCK, S.ROW_COST] = cost
            rows[m % BLOCK, S.ROW_COPIES] = 1.0
            if m % BLOCK == BLOCK - 1 or m == jobs - 1:
                m0 = m - m % BLOCK
                S.record_rows(acc, batches, hist, fbuf, ibuf, rows, m0, m + 1, 0, inv_batch)
        else:
            acc[S.A_SUM_T] += done - t
    acc[S.A_SEEN0] += seen
    acc[S.A_IDLE0] += idle
    return acc[S.A_SUM_T] / jobs


def _best(run, repeat: int) -> float:
    run()  # compile
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=6_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    jobs, lam = args.jobs, LOAD * N

    def variant(stats, see, blocks):
        def run():
            acc = S.new_accumulator()
            _variant(N, D, lam, jobs, np.random.default_rng(1), stats, see, blocks, acc.acc, acc.batches, acc.hist)

        return run

    rows = {"bare loop (simulation/bare.py)": lambda: coc_mean_latency(N, D, lam, jobs, np.random.default_rng(1))}
    rows["the same loop written here"] = variant(False, False, False)
    rows["+ statistics (record_rows)"] = variant(True, False, False)
    rows["+ idle evidence per arrival"] = variant(False, True, False)
    rows["+ block-filled streams"] = variant(False, False, True)
    rows["+ all three"] = variant(True, True, True)
    model = make_model("CoC", N, [LOAD], d=D, two_pools=False)
    enc = encode(model)
    kernel = engine_for(model).kernel
    rate = float(model.rates()[0])
    rows["the fast path (fast_coc_d2_n50)"] = lambda: run_replication(
        kernel, enc, rate, 0, jobs, np.random.SeedSequence(1)
    )
    seconds = {name: _best(run, args.repeat) for name, run in rows.items()}
    bare = jobs / seconds["bare loop (simulation/bare.py)"]
    print(f"{'':<36}{'jobs/s':>11}{'share of bare':>15}")
    for name, s in seconds.items():
        print(f"{name:<36}{jobs / s:>11.3e}{jobs / s / bare:>15.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
