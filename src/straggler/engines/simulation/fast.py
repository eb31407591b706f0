"""The FCFS fast path: per-server FCFS queues by the exact workload recursion; its
kernel, ``run``, and Rer's loop with its heap of restarts (the other policies' job loops:
:mod:`.fast_chunks`).

Each server keeps the time at which it empties, ``free[s]``. With FCFS per-server
queues a job never affects the jobs that joined a queue before it, so when a job
arrives at time t everything about it is already determined by the current
``free``: a replica sent to server s starts at ``max(t, free[s])`` and runs for
``x * inv_speeds[pool(s), type]``. The policy decides from these start and finish
times when the job is done (latency) and how long each replica occupies its
server (cost, and the new ``free[s]``):

======  =====================================================================
ZRed    one replica on a random server of the pool drawn from alpha (KT: the
KT      same, with the type-aware alpha)
FRed    one replica on a random server of each pool, cancel on complete
CoC     d replicas on d distinct servers; done at the first completion ``c``;
        a replica that started before ``c`` is cut at ``c``, one that had not
        started never runs
FJ      k-of-d: as CoC with ``c`` the k-th completion; with cancel on start
        (``early``, or ``keep`` < d): only the ``keep`` replicas that start
        first run (``early``: keep = k), done at the k-th completion ``c``
        among them, the others cut at ``c`` as in CoC; the q-th to start gets
        the q-th size
CoS     the replica that starts first runs, the others never start (FJ with
        k = 1 and early; the least-work server of the d)
RIQ     replicas on the idle servers among d sampled (all start at t, cancel
        on complete); none idle: one replica on the first sampled
Rer     one replica; if it would run longer than tau of its first pool it is
        killed after tau and restarted at ``start + tau`` on a random server of
        the other pool, where its FCFS position is that time (a heap of
        pending restarts is merged with the arrivals in time order); the second
        run is the second replica of the dependence (identical: the same X;
        iid, sx: a fresh replica; mixture: the same X if the job is coupled,
        else a fresh one), or with ``resume`` the remaining work
        ``x - r_ij tau`` of the first replica
======  =====================================================================

Ties between start times are broken by sampling order (the d servers come in
uniformly random order). Cost is the server time per job over all replicas
(time in service only): a completed replica counts its duration, a cut one
``c - start`` (plus the cancellation delay, below).

The cancellation delay ``cd`` (``flts[F_CANCEL_DELAY]``, ``system.cancel_delay``): a
replica cancelled *in service* keeps its server ``cd`` longer (server time) and its cost
counts it; one cancelled while waiting is removed at once and costs nothing; the job's
latency does not change (it is done when its winning replicas are). Per policy:

======  =====================================================================
CoC     a replica cut at ``c`` frees its server at ``c + cd`` and costs
FRed    ``c - start + cd`` (a replica that finishes at ``c`` too is not cut;
FJ      one that had not started by ``c`` never runs); FJ cancelling on start:
RIQ     the kept replicas cut at ``c`` as well
CoS     replicas that start at the same instant as the keep-th kept one (ties:
FJ      sampling order; e.g. idle servers at arrival) but are not kept are
early   cancelled in service: each holds its server until ``that start + cd``
        and costs ``cd``; the later ones never start
Rer     the killed run holds its server until ``start + tau + cd`` and costs
        ``tau + cd``; the restart still joins the other pool at ``start + tau``
======  =====================================================================

With ``cd = 0`` every number is the one of instant cancellation, bit for bit (the
cut's arithmetic adds an exact ``+ 0.0``; CoS's held replicas are behind a branch
on ``cd > 0``, predicted since it is the run's constant).

The kernel follows the kernel contract and the random-number contract of
:mod:`.contract`.

Dependence codes: the branch on the code is the run's constant, and the chunks read
the mixture as iid (:func:`.fast_chunks.couple`), so identical, iid and sx jobs run the
loops they ran before the mixture.

Structure: ``run`` refills the stream blocks (the only generator calls) and
hands chunks of jobs to one small loop per policy family (:mod:`.fast_chunks`:
``chunk_one``, ``chunk_cancel``, ``chunk_start``, ``chunk_riq``; Rer has its own
loop with the restart heap, ``_run_rer``); a chunk writes each job's latency, cost and copies
into ``rows``, which ``run`` then records in one pass (:func:`.statistics.record_rows`);
it takes the checkpoints between chunks.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.kernel_cache import kernel
from ...model import policies
from ...model.dependence import IDENTICAL_CODE, IID_CODE, MIXTURE_CODE, PAIRS_CODE, SX_CODE
from ...model.dependence.sampling import pair_sizes
from ...model.distributions.sampling import size_of_type
from . import encode as E
from . import statistics as S
from .fast_chunks import chunk_cancel, chunk_one, chunk_riq, chunk_start, couple, pair_up
from .streams import block_size, refill_exponential, refill_family, refill_uniform

# ---------------------------------------------------------------- the records
# What a chunk of jobs reads and changes, in four records (named tuples of the run's
# arrays and numbers, built once a replication): a chunk kernel (:mod:`.fast_chunks`) takes them and the
# stream positions, not thirty arguments. Inside a chunk the fields are unpacked into
# locals once, so the job loop is the code it was.

Model = namedtuple(
    "Model",
    "policy N d k keep p1 pools p_start J type_cdf alpha inv_speeds dep xc x_params inv_lam warmup inv_batch cd coupling",
)
"""The cell's model as the chunks read it (``ints`` and ``flts`` decoded, see
:mod:`.encode`; ``xc``, ``x_params``: the size law's code and sampler parameters, which
:func:`~straggler.model.distributions.sampling.size_of_type` reads), the run's rate,
warm-up and batch scale, ``cd`` the cancellation delay (``flts[F_CANCEL_DELAY]``), and
``coupling`` the mixture's c (``s_params[0]``; -1.0 for the other dependences, so that
no coupling uniform is below it)."""
Blocks = namedtuple("Blocks", "eb ub xb sb cb")
"""The blocks of the five random streams (arrivals, routing, sizes, second sizes,
coupling: ``cb`` as long as ``xb`` and read at the sizes' position, one element unless
the mixture)."""
Servers = namedtuple("Servers", "free perm srv ksrv st fin dur sel")
"""The servers' free times, the placement permutation and one job's replica scratch."""
Out = namedtuple("Out", "acc batches hist fbuf ibuf trace n_trace rows")
"""The statistics a job's latency and cost are recorded in (:mod:`.statistics`), and
``rows``, a chunk's ``(latency, cost, copies)`` per job (:func:`.statistics.record_rows`)."""

# ---------------------------------------------------------------- records and checkpoints


@kernel(nogil=True)
def _record_chunk(o, n0, n1, warmup, inv_batch):
    """Record the chunk's jobs ``n0..n1-1`` from ``o.rows``: the statistics of the
    measured ones, and the trace rows of the first ``o.n_trace`` jobs."""
    S.record_rows(o.acc, o.batches, o.hist, o.fbuf, o.ibuf, o.rows, n0, n1, warmup, inv_batch)
    for n in range(n0, min(n1, o.n_trace)):
        o.trace[n, 0] = o.rows[n - n0, S.ROW_LAT]
        o.trace[n, 1] = o.rows[n - n0, S.ROW_COST]


@kernel(nogil=True)
def _checkpoint(free, t, pools, p_start, scratch, mon, kc, work, N, wait):
    """Write checkpoint ``kc`` (median backlog per pool, work per server) and
    return True if the backlog grows."""
    for pool in range(pools):
        cnt = 0
        for s in range(p_start[pool], p_start[pool + 1]):
            b = free[s] - t
            scratch[cnt] = b if b > 0.0 else 0.0
            cnt += 1
        mon[kc, pool] = S.median_inplace(scratch, cnt) if cnt > 0 else 0.0
    mon[kc, S.MON_WORK] = work / N
    return S.backlog_check(mon, kc, pools, S.EPS, wait)


# ---------------------------------------------------------------- the kernel


@kernel(nogil=True)
def run(
    ints,
    flts,
    speeds,
    inv_speeds,
    type_cdf,
    alpha,
    x_params,
    s_params,
    lam,
    warmup,
    jobs,
    out,
    rngs,
):
    """Simulate one replication (the kernel contract: :mod:`.contract`)."""
    acc, batches, hist, mon, trace, workloads = out
    policy = ints[E.I_POLICY]
    N = ints[E.I_N]
    d = ints[E.I_D]
    k = ints[E.I_K]
    early = ints[E.I_EARLY]
    keep = ints[E.I_KEEP]
    pools = ints[E.I_POOLS]
    J = ints[E.I_J]
    dep = ints[E.I_DEP]
    xc = ints[E.I_XCODE]
    sc = ints[E.I_SCODE]
    check = ints[E.I_CHECK]
    p_start = ints[E.I_POOL0 : E.I_POOL2 + 1]
    p1 = p_start[1]

    inv_lam = 1.0 / lam
    total = warmup + jobs
    inv_batch = S.N_BATCHES / max(jobs, 1)
    n_trace = trace.shape[0]

    # random streams, read in blocks; one job takes at most need_* values
    re = rngs[0]
    ru = rngs[1]
    rx = rngs[2]
    rs = rngs[3]
    rc = rngs[4]
    mix = dep == MIXTURE_CODE
    pairs = dep == PAIRS_CODE
    iid = dep == IID_CODE or mix or pairs  # SLOWDOWNS: the replicas after the first
    need_e = 2 if J > 1 else 1
    need_u = 1 + max(d, 2)
    need_x = max(d, 2)
    BE = block_size(1)
    BU = block_size(need_u)
    BX = block_size(need_x)
    eb = np.empty(BE)
    ub = np.empty(BU)
    xb = np.empty(BX)
    # the second size stream: slowdowns (sx) or the replicas after the first (iid, mixture)
    sb = np.empty(BX if dep == SX_CODE or iid else 1)
    # the coupling uniforms (mixture), refilled with xb: job q's is at its size's index
    cb = np.empty(BX if mix else 1)
    ei = BE
    ui = BU
    xi = BX
    si = BX

    # each server's time to empty at t = 0: zero (an empty start) or a start in equilibrium
    free = workloads[:N].copy()
    scratch = np.empty(N)
    slots = max(d, 2)  # one job's replicas
    sz = np.empty(slots)
    fbuf = np.empty(1)
    ibuf = fbuf.view(np.int64)

    m = Model(
        policy,
        N,
        d,
        k,
        keep,
        p1,
        pools,
        p_start,
        J,
        type_cdf,
        alpha,
        inv_speeds,
        dep,
        xc,
        x_params,
        inv_lam,
        warmup,
        inv_batch,
        flts[E.F_CANCEL_DELAY],
        s_params[0] if mix else -1.0,
    )
    b = Blocks(eb, ub, xb, sb, cb)
    o = Out(acc, batches, hist, fbuf, ibuf, trace, n_trace, np.empty((BE, S.ROW_COLUMNS)))
    if policy == policies.RER_CODE:
        _run_rer(ints, flts, speeds, s_params, total, mon, rngs, m, b, o, free, scratch, sz)
        _end_workloads(free, acc[S.A_TIME], workloads)
        return

    perm = np.arange(N)
    srv = np.empty(slots, dtype=np.int64)
    ksrv = np.empty(slots, dtype=np.int64)
    st = np.empty(slots)
    fin = np.empty(slots)
    dur = np.empty(slots)
    sel = np.empty(slots)

    sv = Servers(free, perm, srv, ksrv, st, fin, dur, sel)
    t = 0.0
    work = 0.0
    kc = 0
    n = 0
    while n < total:
        end = min(n + check, total)
        while n < end:
            # refill the half-read stream blocks (the only generator calls) ...
            if ei > BE // 2:
                ei = refill_exponential(re, eb, ei)
            if ui > BU // 2:
                ui = refill_uniform(ru, ub, ui)
            if xi > BX // 2:
                if mix:  # the coupling block, at the sizes' position (the same shift)
                    refill_uniform(rc, cb, xi)
                xi = refill_family(xc, x_params, rx, xb, xi)
            if dep == SX_CODE and si > BX // 2:
                si = refill_family(sc, s_params, rs, sb, si)
            elif iid and si > BX // 2:
                si = refill_family(xc, x_params, rs, sb, si)
            # ... and run as many jobs as they surely cover
            n1 = min(end, n + (BE - ei) // need_e, n + (BU - ui) // need_u, n + (BX - xi) // need_x)
            if dep == SX_CODE or iid:
                n1 = min(n1, n + (BX - si) // need_x)
            n1 = min(n1, n + o.rows.shape[0])
            if mix and d > 1 and policy != policies.ZRED_CODE and policy != policies.KT_CODE:
                couple(cb, xb, sb, xi, si, n1 - n, d - 1, m.coupling)
            if pairs:
                one = policy == policies.ZRED_CODE or policy == policies.KT_CODE
                pair_up(s_params, xb, sb, xi, si, n1 - n, 0 if one else d - 1)
            if policy == policies.ZRED_CODE or policy == policies.KT_CODE:
                t, work, ei, ui, xi, si = chunk_one(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            elif (
                policy == policies.COC_CODE
                or policy == policies.FRED_CODE
                or (policy == policies.FJ_CODE and early == 0)
            ):
                t, work, ei, ui, xi, si = chunk_cancel(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            elif policy == policies.COS_CODE or policy == policies.FJ_CODE:
                t, work, ei, ui, xi, si = chunk_start(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            else:
                t, work, ei, ui, xi, si = chunk_riq(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            _record_chunk(o, n, n1, warmup, inv_batch)
            n = n1
        # checkpoint (a partial last one only if it covers a quarter interval)
        if end - (kc * check) >= check // 4 or end % check == 0:
            kc += 1
            if _checkpoint(free, t, pools, p_start, scratch, mon, kc, work, N, flts[E.F_MONITOR_WAIT]):
                acc[S.A_STABLE] = 0.0
                acc[S.A_REASON] = S.STOP_BACKLOG
                break
    acc[S.A_ARRIVALS] = n
    acc[S.A_TIME] = t
    acc[S.A_WORK] = work
    _end_workloads(free, t, workloads)


@kernel(nogil=True)
def _end_workloads(free, t, workloads):
    """Each server's work left at the last arrival ``t`` (the kernel contract's end state)."""
    for s in range(free.shape[0]):
        w = free[s] - t
        workloads[s] = w if w > 0.0 else 0.0


# ---------------------------------------------------------------- Rer


@kernel(nogil=True, inline="always")
def _heap_less(ht, hj, a, b):
    return ht[a] < ht[b] or (ht[a] == ht[b] and hj[a] < hj[b])


@kernel(nogil=True)
def _heap_swap(ht, hj, ha, hd, hc, hs, a, b):
    ht[a], ht[b] = ht[b], ht[a]
    hj[a], hj[b] = hj[b], hj[a]
    ha[a], ha[b] = ha[b], ha[a]
    hd[a], hd[b] = hd[b], hd[a]
    hc[a], hc[b] = hc[b], hc[a]
    hs[a], hs[b] = hs[b], hs[a]


@kernel(nogil=True)
def _sift_up(ht, hj, ha, hd, hc, hs, i):
    while i > 0:
        p = (i - 1) >> 1
        if _heap_less(ht, hj, i, p):
            _heap_swap(ht, hj, ha, hd, hc, hs, i, p)
            i = p
        else:
            break


@kernel(nogil=True)
def _sift_down(ht, hj, ha, hd, hc, hs, n):
    i = 0
    while True:
        l = 2 * i + 1
        if l >= n:
            break
        c = l
        if l + 1 < n and _heap_less(ht, hj, l + 1, l):
            c = l + 1
        if _heap_less(ht, hj, c, i):
            _heap_swap(ht, hj, ha, hd, hc, hs, i, c)
            i = c
        else:
            break


@kernel(nogil=True)
def _grow(a, n):
    b = np.empty(2 * a.shape[0], dtype=a.dtype)
    b[:n] = a[:n]
    return b


#: most pending restarts Rer keeps (beyond: stop, ``STOP_CAPACITY``)
RER_HEAP_CAP = 1 << 21


@kernel(nogil=True)
def _run_rer(ints, flts, speeds, s_params, total, mon, rngs, m, b, o, free, scratch, sz):
    inv_speeds, type_cdf, alpha, xc, x_params, inv_lam, warmup, inv_batch = (
        m.inv_speeds,
        m.type_cdf,
        m.alpha,
        m.xc,
        m.x_params,
        m.inv_lam,
        m.warmup,
        m.inv_batch,
    )
    eb, ub, xb, sb, cb = b.eb, b.ub, b.xb, b.sb, b.cb
    acc, batches, hist, trace, fbuf, ibuf = o.acc, o.batches, o.hist, o.trace, o.fbuf, o.ibuf
    re, ru, rx, rs, rc = rngs[0], rngs[1], rngs[2], rngs[3], rngs[4]
    N = ints[E.I_N]
    pools = ints[E.I_POOLS]
    J = ints[E.I_J]
    dep = ints[E.I_DEP]
    sc = ints[E.I_SCODE]
    check = ints[E.I_CHECK]
    resume = ints[E.I_RESUME]
    cd = flts[E.F_CANCEL_DELAY]
    p_start = ints[E.I_POOL0 : E.I_POOL2 + 1]
    n_trace = trace.shape[0]
    cap = max(RER_HEAP_CAP, 256 * N)
    BE = eb.shape[0]
    BU = ub.shape[0]
    BX = xb.shape[0]
    ei = BE
    ui = BU
    xi = BX
    si = BX

    size = 1024
    ht = np.empty(size)  # restart time
    hj = np.empty(size, dtype=np.int64)  # job index
    ha = np.empty(size)  # arrival time
    hd = np.empty(size)  # duration of the second run
    hc = np.empty(size)  # server time of the first run (tau + the cancellation delay)
    hs = np.empty(size, dtype=np.int64)  # second server
    hn = 0

    t = 0.0
    work = 0.0
    kc = 0
    n = 0
    if total > 0:
        ei = refill_exponential(re, eb, ei)
        t_next = eb[ei] * inv_lam
        ei += 1
    else:
        t_next = np.inf
    next_check = check
    while True:
        if hn > 0 and (n >= total or ht[0] <= t_next):
            # a pending restart comes first: it joins its second server's queue
            u = ht[0]
            jn = hj[0]
            ta = ha[0]
            du = hd[0]
            c1 = hc[0]
            s = hs[0]
            hn -= 1
            if hn > 0:
                _heap_swap(ht, hj, ha, hd, hc, hs, 0, hn)
                _sift_down(ht, hj, ha, hd, hc, hs, hn)
            a = free[s]
            if a < u:
                a = u
            f = a + du
            free[s] = f
            lat = f - ta
            cost = c1 + du
            work += du
            if jn >= warmup:
                S.record(acc, batches, hist, fbuf, ibuf, jn - warmup, lat, cost, 2.0, inv_batch)
            if jn < n_trace:
                trace[jn, 0] = lat
                trace[jn, 1] = cost
            continue
        if n >= total:
            break
        # the next arrival
        if ui > BU - 4:
            ui = refill_uniform(ru, ub, ui)
        if xi > BX - 2:
            if dep == MIXTURE_CODE:  # the coupling block, at the sizes' position
                refill_uniform(rc, cb, xi)
            xi = refill_family(xc, x_params, rx, xb, xi)
        if dep == SX_CODE and si > BX - 2:
            si = refill_family(sc, s_params, rs, sb, si)
        elif (dep == IID_CODE or dep == MIXTURE_CODE or dep == PAIRS_CODE) and si > BX - 2:
            si = refill_family(xc, x_params, rs, sb, si)
        t = t_next
        j = 0
        if J > 1 and ei >= BE:
            ei = refill_exponential(re, eb, ei)
        if J > 1:  # the type: from the arrivals stream (a uniform, 1 - exp(-e))
            ut = -np.expm1(-eb[ei])
            ei += 1
            while j < J - 1 and ut >= type_cdf[j]:
                j += 1
        i = 0 if ub[ui] < alpha[0, j] else 1
        ui += 1
        lo = p_start[i]
        s = lo + int(ub[ui] * (p_start[i + 1] - lo))
        ui += 1
        if dep == IID_CODE:  # the second replica from the second size stream
            sz[0] = size_of_type(xc, x_params, j, xb[xi])
            sz[1] = size_of_type(xc, x_params, j, sb[si])
            xi += 1
            si += 1
        elif dep == IDENTICAL_CODE:
            sz[0] = size_of_type(xc, x_params, j, xb[xi])
            sz[1] = sz[0]
            xi += 1
        elif dep == PAIRS_CODE:  # a measured pair (the uniform picks it); the second stream's value dropped
            sz[0], sz[1] = pair_sizes(s_params, xb[xi])
            xi += 1
            si += 1
        elif dep == MIXTURE_CODE:  # coupled (u < c): as identical, else as iid; one value of each
            sz[0] = size_of_type(xc, x_params, j, xb[xi])
            sz[1] = sz[0] if cb[xi] < m.coupling else size_of_type(xc, x_params, j, sb[si])
            xi += 1
            si += 1
        else:
            x = size_of_type(xc, x_params, j, xb[xi])
            xi += 1
            sz[0] = x * sb[si]
            sz[1] = x * sb[si + 1]
            si += 2
        du = sz[0] * inv_speeds[i, j]
        tau = flts[E.F_TAU0 + i]
        a = free[s]
        if n >= warmup:  # the restarts due before t have joined their queues
            S.see(acc, i, a <= t)
        if a < t:
            a = t
        if du > tau:
            # killed at u = start + tau: its server is held cd longer (0.0: exactly u and
            # tau), the restart joins the other pool at u
            u = a + tau
            ck = tau + cd
            free[s] = u + cd
            work += ck
            l = 1 - i
            lo = p_start[l]
            s2 = lo + int(ub[ui] * (p_start[l + 1] - lo))
            ui += 1
            if resume != 0:
                d2 = (sz[0] - tau * speeds[i, j]) * inv_speeds[l, j]
            else:
                d2 = sz[1] * inv_speeds[l, j]
            if hn == ht.shape[0]:
                if hn >= cap:
                    acc[S.A_STABLE] = 0.0
                    acc[S.A_REASON] = S.STOP_CAPACITY
                    break
                ht = _grow(ht, hn)
                hj = _grow(hj, hn)
                ha = _grow(ha, hn)
                hd = _grow(hd, hn)
                hc = _grow(hc, hn)
                hs = _grow(hs, hn)
            ht[hn] = u
            hj[hn] = n
            ha[hn] = t
            hd[hn] = d2
            hc[hn] = ck
            hs[hn] = s2
            _sift_up(ht, hj, ha, hd, hc, hs, hn)
            hn += 1
        else:
            f = a + du
            free[s] = f
            lat = f - t
            work += du
            if n >= warmup:
                S.record(acc, batches, hist, fbuf, ibuf, n - warmup, lat, du, 1.0, inv_batch)
            if n < n_trace:
                trace[n, 0] = lat
                trace[n, 1] = du
        n += 1
        if n < total:
            if ei >= BE:
                ei = refill_exponential(re, eb, ei)
            t_next = t + eb[ei] * inv_lam
            ei += 1
        if n == next_check or (n == total and n - (next_check - check) >= check // 4):
            next_check += check
            kc += 1
            if _checkpoint(free, t, pools, p_start, scratch, mon, kc, work, N, flts[E.F_MONITOR_WAIT]):
                acc[S.A_STABLE] = 0.0
                acc[S.A_REASON] = S.STOP_BACKLOG
                break
    acc[S.A_ARRIVALS] = n
    acc[S.A_TIME] = t
    acc[S.A_WORK] = work
