"""The fast path's job loops (:mod:`.fast`), one per policy family, and their per-job
helpers: each runs a chunk of jobs on the stream blocks that :func:`.fast.run` has
filled and writes each job's latency, cost and copies into a row of ``rows``
(``chunk_one``: ZRed, KT; ``chunk_cancel``: CoC, FRed, FJ; ``chunk_start``: CoS, FJ
cancelling on start; ``chunk_riq``: RIQ; Rer has its own loop, in :mod:`.fast`).

Performance notes (measured, numba 0.68, CoC d = 2 on 50 servers, about 50 ns a job
of which about 19 ns are the random numbers; ``benchmarks/fast_path_costs.py``): a
generator passed into an inlined helper, a call to the generic sampler, an inlined
helper that returns a tuple or calls another inlined helper, or all policies in one
loop each cost 2-60 ns a job. Inside a job loop, three things cost most and are
avoided: a branch on a coin flip (which replica wins, whether a server was idle; LLVM
turns a select back into one, so ``_cancel_at`` blends with 0.0 and 1.0), a
read-modify-write of the statistics in memory for every job (the idle evidence is
counted in registers over a chunk, the sums in one pass over its rows).
"""

from __future__ import annotations

import numpy as np

from ...common.kernel_cache import kernel
from ...model import policies
from ...model.dependence import IID_CODE, MIXTURE_CODE, PAIRS_CODE, SX_CODE
from ...model.dependence.sampling import pair_sizes
from ...model.distributions.sampling import size_of_type
from . import statistics as S
from .streams import distinct_servers

# ---------------------------------------------------------------- per-job helpers
# (arrays and numbers only: the stream positions go in and come back out)


@kernel(nogil=True, inline="always")
def _pool(s, p1):
    return 0 if s < p1 else 1


@kernel(nogil=True, inline="always")
def _seen(seen0, seen1, idle0, idle1, pool, idle):
    """:func:`.statistics.see` on counts a chunk keeps in registers: a server of pool
    ``pool`` (0.0 or 1.0) sampled, found idle (``idle`` 1.0) or busy (0.0). Counts of
    whole numbers, so their sums are exact in any order."""
    return seen0 + (1.0 - pool), seen1 + pool, idle0 + (idle - pool * idle), idle1 + pool * idle


@kernel(nogil=True, inline="always")
def _put_seen(acc, seen0, seen1, idle0, idle1):
    """Write back the idle evidence (:func:`.statistics.see`) that a chunk counted in
    registers: counted in ``acc`` job by job, its read-modify-writes cost the chunk
    about a tenth of its time (measured: CoC d = 2)."""
    acc[S.A_SEEN0] = seen0
    acc[S.A_SEEN1] = seen1
    acc[S.A_IDLE0] = idle0
    acc[S.A_IDLE1] = idle1


@kernel(nogil=True, inline="always")
def _cancel_at(free, srv, st, fin, dur, n, c, cd):
    """Replicas ``0..n-1`` (started at st, finishing at fin) run until c: update
    the servers' free times and return the server time consumed. A replica cut at
    c (started before c, not finished by then) holds its server ``cd`` (the
    cancellation delay) longer and costs ``c - start + cd``.

    Which replica wins and whether the others started are coin flips, which a branch
    mispredicts; LLVM turns a select on them back into a branch, so they are taken as
    0.0 or 1.0 and blended by arithmetic (measured: CoC d = 2, about 7 ns a job). The
    blend is exact: ``1.0 * u + 0.0 * v`` is ``u`` and ``0.0 * u + 1.0 * v`` is ``v`` for
    the finite, non-negative duration and the finite cut (a signed zero added to the
    non-negative cost changes nothing), and a replica that never started adds 0.0 and
    keeps its server's free time: the results of the branches, bit for bit. The cut is
    computed as ``(c + cd) - a`` (one addition a job, not one a replica); with cd = 0
    that is ``c - a`` exactly: the results of instant cancellation, bit for bit."""
    cost = 0.0
    ce = c + cd  # when a cut replica frees its server
    for i in range(n):
        a = st[i]
        f = fin[i]
        done = np.float64(np.int64(f <= c))
        started = np.float64(np.int64(a < c))
        cost += started * (done * dur[i] + (1.0 - done) * (ce - a))
        s = srv[i]
        free[s] = started * (done * f + (1.0 - done) * ce) + (1.0 - started) * free[s]
    return cost


# ---------------------------------------------------------------- job chunks
# Each processes jobs n0..n1-1 of one policy family without refilling the
# stream blocks (``run`` sizes the chunk so that they suffice) and returns the
# updated (t, work, ei, ui, xi, si). Small separate loops: LLVM optimises them
# better than one loop with every policy in it. Inside them, no helper that
# returns a tuple or calls another inlined helper (each cost 2-60 ns a job,
# measured): the type draw and the per-job bookkeeping are written out.


@kernel(nogil=True)
def chunk_one(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
    """ZRed, KT: one replica on a random server of the pool drawn from alpha."""
    pools, p_start, J, type_cdf, alpha, inv_speeds, dep, xc, x_params, inv_lam, warmup = (
        m.pools,
        m.p_start,
        m.J,
        m.type_cdf,
        m.alpha,
        m.inv_speeds,
        m.dep,
        m.xc,
        m.x_params,
        m.inv_lam,
        m.warmup,
    )
    eb, ub, xb, sb = b.eb, b.ub, b.xb, b.sb
    free = sv.free
    acc, rows = o.acc, o.rows
    seen0, seen1, idle0, idle1 = acc[S.A_SEEN0], acc[S.A_SEEN1], acc[S.A_IDLE0], acc[S.A_IDLE1]
    for n in range(n0, n1):
        t += eb[ei] * inv_lam
        ei += 1
        j = 0
        if J > 1:  # the type: from the arrivals stream (a uniform, 1 - exp(-e))
            ut = -np.expm1(-eb[ei])
            ei += 1
            while j < J - 1 and ut >= type_cdf[j]:
                j += 1
        i = 0
        if pools == 2:
            if ub[ui] >= alpha[0, j]:
                i = 1
            ui += 1
        lo = p_start[i]
        s = lo + int(ub[ui] * (p_start[i + 1] - lo))
        ui += 1
        if n >= warmup:  # S.see, in registers over the chunk
            idle = 1.0 if free[s] <= t else 0.0
            seen0, seen1, idle0, idle1 = _seen(seen0, seen1, idle0, idle1, float(i), idle)
        x = size_of_type(xc, x_params, j, xb[xi])
        xi += 1
        if dep == SX_CODE:
            x *= sb[si]
            si += 1
        du = x * inv_speeds[i, j]
        a = free[s]
        if a < t:
            a = t
        f = a + du
        free[s] = f
        work += du
        lat = f - t
        rows[n - n0, S.ROW_LAT] = lat
        rows[n - n0, S.ROW_COST] = du
        rows[n - n0, S.ROW_COPIES] = 1.0
    _put_seen(acc, seen0, seen1, idle0, idle1)
    return t, work, ei, ui, xi, si


@kernel(nogil=True)
def chunk_cancel(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
    """CoC, FRed, FJ: d replicas, done at the k-th completion, the rest cancelled."""
    N, d, k, p1, J, type_cdf, inv_speeds, dep, xc, x_params, inv_lam, warmup = (
        m.N,
        m.d,
        m.k,
        m.p1,
        m.J,
        m.type_cdf,
        m.inv_speeds,
        m.dep,
        m.xc,
        m.x_params,
        m.inv_lam,
        m.warmup,
    )
    eb, ub, xb, sb = b.eb, b.ub, b.xb, b.sb
    free, perm, srv, st, fin, dur, sel = sv.free, sv.perm, sv.srv, sv.st, sv.fin, sv.dur, sv.sel
    acc, rows = o.acc, o.rows
    seen0, seen1, idle0, idle1 = acc[S.A_SEEN0], acc[S.A_SEEN1], acc[S.A_IDLE0], acc[S.A_IDLE1]
    fred = m.policy == policies.FRED_CODE
    cd = m.cd
    iid = dep == IID_CODE or dep == MIXTURE_CODE or dep == PAIRS_CODE  # SLOWDOWNS: the replicas after the first
    for n in range(n0, n1):
        t += eb[ei] * inv_lam
        ei += 1
        j = 0
        if J > 1:  # the type: from the arrivals stream (a uniform, 1 - exp(-e))
            ut = -np.expm1(-eb[ei])
            ei += 1
            while j < J - 1 and ut >= type_cdf[j]:
                j += 1
        if fred:  # one server in each pool
            srv[0] = int(ub[ui] * p1)
            srv[1] = p1 + int(ub[ui + 1] * (N - p1))
            ui += 2
        else:
            ui = distinct_servers(perm, N, d, srv, ub, ui)
        if n >= warmup:  # S.see, in registers over the chunk
            for r in range(d):
                pool = 1.0 if srv[r] >= p1 else 0.0
                idle = 1.0 if free[srv[r]] <= t else 0.0
                seen0, seen1, idle0, idle1 = _seen(seen0, seen1, idle0, idle1, pool, idle)
        c = np.inf
        x0 = size_of_type(xc, x_params, j, xb[xi])
        for r in range(d):
            x = x0
            if iid and r > 0:  # replicas after the first: the second stream
                x = size_of_type(xc, x_params, j, sb[si + r - 1])
            s = srv[r]
            du = x * inv_speeds[_pool(s, p1), j]
            if dep == SX_CODE:
                du *= sb[si + r]
            a = free[s]
            if a < t:
                a = t
            st[r] = a
            dur[r] = du
            f = a + du
            fin[r] = f
            if f < c:
                c = f
        xi += 1
        if iid:
            si += d - 1
        elif dep == SX_CODE:
            si += d
        if k > 1:
            for r in range(d):
                sel[r] = fin[r]
            c = S.kth_smallest(sel, d, k - 1)
        cost = _cancel_at(free, srv, st, fin, dur, d, c, cd)
        work += cost
        lat = c - t
        rows[n - n0, S.ROW_LAT] = lat
        rows[n - n0, S.ROW_COST] = cost
        rows[n - n0, S.ROW_COPIES] = float(d)
    _put_seen(acc, seen0, seen1, idle0, idle1)
    return t, work, ei, ui, xi, si


@kernel(nogil=True)
def chunk_start(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
    """CoS, FJ with cancel on start: of d replicas the ``keep`` that start first run
    (ties: sampling order), the q-th to start with the q-th size; done when k of
    them finish, the others cut then (fork-join paper section 8.1, (n, r_f = d,
    r = keep, k)). keep = k (CoS, ``early``) needs no cut: all kept run to the end."""
    N, d, k, keep, p1, J, type_cdf, inv_speeds, dep, xc, x_params, inv_lam, warmup = (
        m.N,
        m.d,
        m.k,
        m.keep,
        m.p1,
        m.J,
        m.type_cdf,
        m.inv_speeds,
        m.dep,
        m.xc,
        m.x_params,
        m.inv_lam,
        m.warmup,
    )
    eb, ub, xb, sb = b.eb, b.ub, b.xb, b.sb
    free, perm, srv, ksrv, st, fin, dur, sel = sv.free, sv.perm, sv.srv, sv.ksrv, sv.st, sv.fin, sv.dur, sv.sel
    acc, rows = o.acc, o.rows
    seen0, seen1, idle0, idle1 = acc[S.A_SEEN0], acc[S.A_SEEN1], acc[S.A_IDLE0], acc[S.A_IDLE1]
    cd = m.cd
    iid = dep == IID_CODE or dep == MIXTURE_CODE or dep == PAIRS_CODE  # SLOWDOWNS: the replicas after the first
    for n in range(n0, n1):
        t += eb[ei] * inv_lam
        ei += 1
        j = 0
        if J > 1:  # the type: from the arrivals stream (a uniform, 1 - exp(-e))
            ut = -np.expm1(-eb[ei])
            ei += 1
            while j < J - 1 and ut >= type_cdf[j]:
                j += 1
        ui = distinct_servers(perm, N, d, srv, ub, ui)
        for r in range(d):
            a = free[srv[r]]
            if n >= warmup:  # S.see, in registers over the chunk
                pool = 1.0 if srv[r] >= p1 else 0.0
                seen0, seen1, idle0, idle1 = _seen(seen0, seen1, idle0, idle1, pool, 1.0 if a <= t else 0.0)
            if a < t:
                a = t
            st[r] = a
        # with a cancellation delay, the replicas that start with the keep-th kept one
        # (at sk) but are not kept: their servers, moved to srv[:nh] (srv is not read
        # again this job); cancelled in service if the job is still running at sk
        nh = 0
        if keep == 1:
            best = 0
            for r in range(1, d):
                if st[r] < st[best]:
                    best = r
            ksrv[0] = srv[best]
            sk = st[best]
            fin[0] = sk
            if cd > 0.0:  # (a branch on the run's constant: predicted)
                for r in range(d):
                    if r != best and st[r] == sk:
                        srv[nh] = srv[r]
                        nh += 1
        else:
            for r in range(d):
                sel[r] = st[r]
            sk = S.kth_smallest(sel, d, keep - 1)
            ties = keep
            for r in range(d):
                if st[r] < sk:
                    ties -= 1
            q = 0
            for r in range(d):
                a = st[r]
                kept = a < sk
                if not kept and a == sk:
                    if ties > 0:
                        kept = True
                        ties -= 1
                    elif cd > 0.0:  # started with the keep-th, not kept
                        srv[nh] = srv[r]
                        nh += 1
                if kept:  # insertion by start time, stable
                    pos = q
                    while pos > 0 and fin[pos - 1] > a:
                        fin[pos] = fin[pos - 1]
                        ksrv[pos] = ksrv[pos - 1]
                        pos -= 1
                    fin[pos] = a
                    ksrv[pos] = srv[r]
                    q += 1
        x0 = size_of_type(xc, x_params, j, xb[xi])
        x = x0
        if keep == k:
            # every kept replica must finish: no cut, so this stays the exact
            # arithmetic (and results) of fork-early-cancel
            cost = 0.0
            last = t
            for q in range(k):
                if iid:
                    x = x0 if q == 0 else size_of_type(xc, x_params, j, sb[si + q - 1])
                s = ksrv[q]
                du = x * inv_speeds[_pool(s, p1), j]
                if dep == SX_CODE:
                    du *= sb[si + q]
                f = fin[q] + du
                free[s] = f
                cost += du
                if f > last:
                    last = f
        else:
            for q in range(keep):
                if iid:
                    x = x0 if q == 0 else size_of_type(xc, x_params, j, sb[si + q - 1])
                du = x * inv_speeds[_pool(ksrv[q], p1), j]
                if dep == SX_CODE:
                    du *= sb[si + q]
                a = fin[q]
                st[q] = a
                dur[q] = du
                fin[q] = a + du
                sel[q] = a + du
            last = S.kth_smallest(sel, keep, k - 1)
            cost = _cancel_at(free, ksrv, st, fin, dur, keep, last, cd)
        if nh > 0 and sk < last:  # each holds its server cd from sk, and costs cd
            for h in range(nh):
                free[srv[h]] = sk + cd
                cost += cd
        # every job takes d replica sizes, whichever run (common random numbers)
        xi += 1
        if iid:
            si += d - 1
        elif dep == SX_CODE:
            si += d
        work += cost
        lat = last - t
        rows[n - n0, S.ROW_LAT] = lat
        rows[n - n0, S.ROW_COST] = cost
        rows[n - n0, S.ROW_COPIES] = float(d)
    _put_seen(acc, seen0, seen1, idle0, idle1)
    return t, work, ei, ui, xi, si


@kernel(nogil=True)
def chunk_riq(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
    """RIQ: replicas on the idle servers among d sampled, cancel on complete;
    none idle: one replica on the first sampled."""
    N, d, p1, J, type_cdf, inv_speeds, dep, xc, x_params, inv_lam, warmup = (
        m.N,
        m.d,
        m.p1,
        m.J,
        m.type_cdf,
        m.inv_speeds,
        m.dep,
        m.xc,
        m.x_params,
        m.inv_lam,
        m.warmup,
    )
    eb, ub, xb, sb = b.eb, b.ub, b.xb, b.sb
    free, perm, srv, ksrv, st, fin, dur = sv.free, sv.perm, sv.srv, sv.ksrv, sv.st, sv.fin, sv.dur
    acc, rows = o.acc, o.rows
    seen0, seen1, idle0, idle1 = acc[S.A_SEEN0], acc[S.A_SEEN1], acc[S.A_IDLE0], acc[S.A_IDLE1]
    cd = m.cd
    iid = dep == IID_CODE or dep == MIXTURE_CODE or dep == PAIRS_CODE  # SLOWDOWNS: the replicas after the first
    for n in range(n0, n1):
        t += eb[ei] * inv_lam
        ei += 1
        j = 0
        if J > 1:  # the type: from the arrivals stream (a uniform, 1 - exp(-e))
            ut = -np.expm1(-eb[ei])
            ei += 1
            while j < J - 1 and ut >= type_cdf[j]:
                j += 1
        ui = distinct_servers(perm, N, d, srv, ub, ui)
        nr = 0
        for r in range(d):
            idle = free[srv[r]] <= t
            if n >= warmup:  # S.see, in registers over the chunk
                pool = 1.0 if srv[r] >= p1 else 0.0
                seen0, seen1, idle0, idle1 = _seen(seen0, seen1, idle0, idle1, pool, 1.0 if idle else 0.0)
            if idle:
                ksrv[nr] = srv[r]
                nr += 1
        if nr == 0:
            ksrv[0] = srv[0]
            nr = 1
        c = np.inf
        x0 = size_of_type(xc, x_params, j, xb[xi])
        x = x0
        for r in range(nr):
            if iid:
                x = x0 if r == 0 else size_of_type(xc, x_params, j, sb[si + r - 1])
            s = ksrv[r]
            du = x * inv_speeds[_pool(s, p1), j]
            if dep == SX_CODE:
                du *= sb[si + r]
            a = free[s]
            if a < t:
                a = t
            st[r] = a
            dur[r] = du
            f = a + du
            fin[r] = f
            if f < c:
                c = f
        # every job takes d replica sizes, whichever run (common random numbers)
        xi += 1
        if iid:
            si += d - 1
        elif dep == SX_CODE:
            si += d
        cost = _cancel_at(free, ksrv, st, fin, dur, nr, c, cd)
        work += cost
        lat = c - t
        rows[n - n0, S.ROW_LAT] = lat
        rows[n - n0, S.ROW_COST] = cost
        rows[n - n0, S.ROW_COPIES] = float(nr)
    _put_seen(acc, seen0, seen1, idle0, idle1)
    return t, work, ei, ui, xi, si


@kernel(nogil=True)
def couple(cb, xb, sb, xi, si, jobs, per, c):
    """Mixture, before a chunk of ``jobs`` jobs that each read ``per`` SLOWDOWNS values
    (the replicas after the first) from ``sb[si:]`` and one SIZES value from
    ``xb[xi:]``: a coupled job (its coupling value, ``cb`` at its size's index, below
    ``c``) gets its SIZES value in place of its SLOWDOWNS values (dropped), so the
    chunk reads the mixture as iid, with the loop and the numbers of iid (a law per job
    type: the same uniform, hence the same size, for every replica)."""
    for q in range(jobs):
        if cb[xi + q] < c:
            x = xb[xi + q]
            for r in range(per):
                sb[si + q * per + r] = x


@kernel(nogil=True)
def pair_up(table, xb, sb, xi, si, jobs, per):
    """Replayed pairs (:mod:`straggler.model.dependence.pairs`), before a chunk of ``jobs``
    jobs that each read one SIZES value from ``xb[xi:]`` and ``per`` (0 or 1) SLOWDOWNS
    values from ``sb[si:]``: each job's SIZES value, a uniform, picks its pair; the pair's
    first duration takes the uniform's place and its second the SLOWDOWNS value (dropped),
    so the chunk reads the pairs as iid, with the loop of iid."""
    for q in range(jobs):
        first, second = pair_sizes(table, xb[xi + q])
        xb[xi + q] = first
        if per > 0:
            sb[si + q * per] = second
