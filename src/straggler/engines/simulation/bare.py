"""The fast path's model as a bare loop: the bench's ceiling for the fast path.

CoC with d replicas on N FCFS servers, i.i.d. exponential replica sizes of mean 1,
by the per-server free-time recursion (a job's replicas start at ``max(arrival,
free[s])``; the first to finish ends the job at ``T`` and cancels the others: a server
whose replica had started by ``T`` is free at ``T``, one whose replica had not started
keeps its free time). A ``numpy.random.Generator`` passed in, only the mean response
time kept: no warm-up, no batches, no histogram, no stability monitor, no trace, no
common random numbers across policies. ``straggler bench`` runs it beside the fast
path (workload ``bare_coc_d2_n50``): the fast path's share of it is what everything
the fast path keeps costs.
"""

from __future__ import annotations

import numpy as np

from ...common.kernel_cache import kernel


@kernel(nogil=True)
def coc_mean_latency(N, d, lam, jobs, rng):
    """The mean response time of ``jobs`` jobs of CoC-``d`` on ``N`` FCFS servers at
    arrival rate ``lam`` (starting empty)."""
    free = np.zeros(N)
    perm = np.arange(N)
    start = np.empty(d)
    finish = np.empty(d)
    chosen = np.empty(d, dtype=np.int64)
    t = 0.0
    total = 0.0
    for _ in range(jobs):
        t += rng.standard_exponential() / lam
        done = np.inf
        for i in range(d):
            # d distinct servers: a partial Fisher-Yates shuffle
            r = i + int(rng.random() * (N - i))
            s = perm[r]
            perm[r] = perm[i]
            perm[i] = s
            chosen[i] = s
            start[i] = max(t, free[s])
            finish[i] = start[i] + rng.standard_exponential()
            done = min(done, finish[i])
        for i in range(d):
            if start[i] < done:
                free[chosen[i]] = done
        total += done - t
    return total / jobs
