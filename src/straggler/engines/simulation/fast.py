"""The FCFS fast path: per-server FCFS queues by the exact workload recursion.

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

Random-number contract (:mod:`.streams`; shared with :mod:`.reference` and any
engine that wants to be compared job by job). Per arrival:

* ARRIVALS: one value e, the interarrival time ``e / lambda``; then, only if
  J > 1, one value e' whose uniform ``1 - exp(-e')`` against ``type_cdf`` is the
  type (the type is the workload's, not drawn from the policy's routing);
* ROUTING, in this order: the servers: a one-copy policy draws its pool (one uniform against
  ``alpha[0, j]``, only with two pools) then ``start + int(u * n_pool)``; FRed
  one server in pool 0 then one in pool 1; CoC, CoS, RIQ and FJ d distinct
  servers by a partial Fisher-Yates shuffle of a permutation of 0..N-1 kept
  across jobs (place i takes ``perm[i + int(u * (N - i))]``); Rer, if the job
  will be rerouted, then its second server in the other pool;
* SIZES and SLOWDOWNS: every job takes the sizes of all the replicas its policy
  may place (:func:`.encode.replicas_per_job`: d for CoC, CoS, RIQ, FJ; 2 for
  FRed, Rer, Rep; 1 for ZRed, KT), whichever run: one value of SIZES (the first
  replica's size, or the job's X), and from SLOWDOWNS one slowdown per replica
  (sx) or the sizes of the replicas after the first (iid, mixture). Replica r gets the
  r-th size (RIQ: of the idle ones; CoS, FJ cancelling on start: in start order).
* COUPLING (mixture only, ``c = s_params[0]``): one uniform u per job, every policy;
  if ``u < c`` the job is coupled and every replica gets the first replica's size (the
  SLOWDOWNS values it takes are dropped), else as iid. The block ``cb`` is as long as
  the SIZES block ``xb`` and refilled with it, so job q's u is ``cb[xi]``, at its
  size's index. Before a chunk, :func:`_couple` writes each coupled job's SIZES value
  over the SLOWDOWNS values it will read, so the chunks run the mixture as iid (one
  loop, no test a job). Rer: a coupled job's second run is the first replica's size.
  With the streams seeded by the workload, policies compared on one workload see
  the same arrivals, types and sizes (:mod:`.streams`). A law per job type
  (:class:`~straggler.model.distributions.ByType`) fills SIZES (and SLOWDOWNS under iid)
  with uniforms: each value of X read is passed through
  :func:`~straggler.model.distributions.sampling.size_of_type` with the job's type (the
  identity for every other law; never a slowdown S).

Kernel contract (every engine): ``run(*encoded.kernel_args(), lam, warmup, jobs,
out, rngs)``, with ``out = (acc, batches, hist, mon, trace)`` the statistics it writes
into, a numba function (``nogil``) that returns nothing and

* simulates ``warmup + jobs`` Poisson arrivals at rate ``lam`` from an empty
  system (``encoded``: :class:`.encode.Encoded`; ``rngs``: the tuple of
  :func:`.streams.replication_streams`);
* records each of the last ``jobs`` jobs with :func:`.statistics.record`
  (measured index = arrival index - warmup; latency = completion - arrival;
  cost = server time of all its replicas);
* writes its first ``len(trace)`` jobs' ``(latency, cost)`` (warm-up included,
  by arrival index) into ``trace`` (shape ``(n, 2)``, usually ``(0, 2)``);
* every ``ints[I_CHECK]`` arrivals writes a checkpoint row into ``mon`` and calls
  :func:`.statistics.backlog_check` with ``flts[F_MONITOR_WAIT]``; when it fires
  (or a bounded buffer would overflow) stops with ``acc[A_STABLE] = 0`` and
  ``acc[A_REASON]`` set;
* for each measured arrival and each server it chose uniformly within a pool
  before looking at the servers (ZRed, KT, Rer, Rep: the one; FRed: one per pool;
  CoC, CoS, RIQ, FJ: the d sampled), calls :func:`.statistics.see` with whether the
  arrival found it idle (the idle evidence of the verdict);
* sets ``acc[A_ARRIVALS]``, ``acc[A_TIME]`` and ``acc[A_WORK]``.

Dependence codes: the branch on the code is the run's constant, and the chunks read
the mixture as iid (:func:`_couple`), so identical, iid and sx jobs run the loops they
ran before the mixture.

Structure: ``run`` refills the stream blocks (the only generator calls) and
hands chunks of jobs to one small loop per policy family (``_chunk_one``,
``_chunk_cancel``, ``_chunk_start``, ``_chunk_riq``; Rer has its own loop with
the restart heap, ``_run_rer``); a chunk writes each job's latency, cost and copies
into ``rows``, which ``run`` then records in one pass (:func:`.statistics.record_rows`);
it takes the checkpoints between chunks.

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

from collections import namedtuple

import numpy as np

from ...common.kernel_cache import kernel
from ...model import policies
from ...model.dependence import IDENTICAL_CODE, IID_CODE, MIXTURE_CODE, SX_CODE
from ...model.distributions.sampling import size_of_type
from . import encode as E
from . import statistics as S
from .streams import block_size, distinct_servers, refill_exponential, refill_family, refill_uniform

# ---------------------------------------------------------------- the records
# What a chunk of jobs reads and changes, in four records (named tuples of the run's
# arrays and numbers, built once a replication): a chunk kernel takes them and the
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


@kernel(nogil=True)
def _record_chunk(o, n0, n1, warmup, inv_batch):
    """Record the chunk's jobs ``n0..n1-1`` from ``o.rows``: the statistics of the
    measured ones, and the trace rows of the first ``o.n_trace`` jobs."""
    S.record_rows(o.acc, o.batches, o.hist, o.fbuf, o.ibuf, o.rows, n0, n1, warmup, inv_batch)
    for n in range(n0, min(n1, o.n_trace)):
        o.trace[n, 0] = o.rows[n - n0, S.ROW_LAT]
        o.trace[n, 1] = o.rows[n - n0, S.ROW_COST]


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


# ---------------------------------------------------------------- job chunks
# Each processes jobs n0..n1-1 of one policy family without refilling the
# stream blocks (``run`` sizes the chunk so that they suffice) and returns the
# updated (t, work, ei, ui, xi, si). Small separate loops: LLVM optimises them
# better than one loop with every policy in it. Inside them, no helper that
# returns a tuple or calls another inlined helper (each cost 2-60 ns a job,
# measured): the type draw and the per-job bookkeeping are written out.


@kernel(nogil=True)
def _chunk_one(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
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
def _chunk_cancel(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
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
    iid = dep == IID_CODE or dep == MIXTURE_CODE  # SLOWDOWNS holds the replicas after the first
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
def _chunk_start(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
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
    iid = dep == IID_CODE or dep == MIXTURE_CODE  # SLOWDOWNS holds the replicas after the first
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
def _chunk_riq(n0, n1, t, work, ei, ui, xi, si, m, b, sv, o):
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
    iid = dep == IID_CODE or dep == MIXTURE_CODE  # SLOWDOWNS holds the replicas after the first
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
def _couple(cb, xb, sb, xi, si, jobs, per, c):
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
    """Simulate one replication (see the module docstring for the contract)."""
    acc, batches, hist, mon, trace = out
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
    iid = dep == IID_CODE or mix  # SLOWDOWNS: the replicas after the first
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

    free = np.zeros(N)
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
                _couple(cb, xb, sb, xi, si, n1 - n, d - 1, m.coupling)
            if policy == policies.ZRED_CODE or policy == policies.KT_CODE:
                t, work, ei, ui, xi, si = _chunk_one(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            elif (
                policy == policies.COC_CODE
                or policy == policies.FRED_CODE
                or (policy == policies.FJ_CODE and early == 0)
            ):
                t, work, ei, ui, xi, si = _chunk_cancel(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            elif policy == policies.COS_CODE or policy == policies.FJ_CODE:
                t, work, ei, ui, xi, si = _chunk_start(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
            else:
                t, work, ei, ui, xi, si = _chunk_riq(n, n1, t, work, ei, ui, xi, si, m, b, sv, o)
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
        elif (dep == IID_CODE or dep == MIXTURE_CODE) and si > BX - 2:
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
