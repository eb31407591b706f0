"""The general event-driven engine (engine ``"events"``): PS servers, central pool
queues, Rep with preemptive-resume priority, CoC's PS bound systems, and the
FCFS per-server policies (to cross-check the fast path).

Coverage (:func:`supports`): per-server FCFS ZRed, KT, FRed, CoC, Rer, Rep;
per-server PS every simulated policy (ZRed, KT, FRed, CoC, CoS, RIQ, FJ, Rer,
Rep; CoC also with ``ps_bound``); central FCFS ZRed, KT, FRed, Rer, Rep. CoS,
RIQ and FJ on FCFS servers are the fast path's (cancel on start needs the start
order, which the workload recursion has); there is no central PS model, and
CoC, CoS, RIQ and FJ pick d of the N servers, so they have no central form.

One numba kernel, :func:`run`, with the policy as data (:mod:`.encode`). It
follows the kernel contract and the random-number contract of :mod:`.fast`, so
on the FCFS per-server policies that both engines support the two see the same
jobs (and give the same latencies and costs, job by job, up to rounding).

State
-----
*Queues.* Per-server queueing: queue s is server s (one server). Central
queueing: queue i is pool i, served by its ``n_i`` servers. A queue keeps its
replicas in an array ``qm[q, :qn[q]]`` in service order: first the *high*
priority replicas (Rep's replicated jobs, ``qhigh[q]`` of them, in the order in
which they became high), then the low ones in order of joining the queue.

*Replicas* (preallocated slots, a free list): queue, job, residual service time
``rres`` (time alone on that server: size times ``inv_speeds[pool, type]``),
attained service ``ratt`` (server time consumed: the cost), current rate
``rrate``, Rer/Rep threshold ``rtau`` (the attained service at which it fires;
``inf`` for none).

*Service rates* (per queue, recomputed when its membership changes):

* FCFS with c servers (c = 1 per server, ``n_i`` central): the first c replicas of
  the service order run at rate 1, the others wait (rate 0); a low replica
  pushed out of the first c by a high one is preempted and later resumes with its
  attained service (preemptive resume);
* PS (per server): all ``n`` replicas at rate ``1/n``;
* CoC's PS bound systems (``ps_bound`` lower / upper, PS paper sections 3.2-3.3):
  every replica of a job runs at rate ``1 / min`` (lower) or ``1 / max`` (upper)
  of the queue lengths (replicas present) of that job's servers; every queue is
  advanced and every rate recomputed after every event (O(replicas in the system)
  per event), in one pass written out in the loop (measured: twice the throughput
  of a call to a rates helper and an inlined ``_resched`` per queue, bit for bit
  the same results).

Each queue is updated lazily: ``_advance`` brings the residuals of its running
replicas to the current time, and rescheduling it recomputes its rates and its next
event ``qnext[q]`` (the first completion, or a running replica reaching its
threshold). The next event overall is the earlier of the next arrival and the
smallest ``qnext``: up to ``TREE_MIN_QUEUES`` queues a scan per event
(:func:`_earliest`), with more a tournament tree over the queues (O(log N) per
queue change, :func:`_tree_fix`; the update is called from the event loop, not
from inside the inlined queue helpers, where it cost 40 % of the throughput,
measured). PS costs O(jobs at the server) per event at that server.

The event loop is :func:`_simulate`, compiled twice: for PS and for FCFS
(:func:`run` passes the discipline as a literal).

In the event loop advancing a queue, removing and inserting a replica and
rescheduling a queue are written out, not calls to
``inline="always"`` helpers: numba's inlining copies each array argument into
a new variable, with an atomic reference-count increment and decrement that
LLVM does not always prune; measured, these were about half of the time on
``ps_mm1`` (3.4x the throughput written out, the same results bit for bit). The
queues an event changed are rescheduled once, at the end of the event (the
same result as right after each change: a queue is not advanced again at the
same time).

Policies
--------
ZRed, KT    one replica: pool by alpha (two pools), then a random server of the
            pool (per server) or the pool's queue (central).
FRed        one replica in each pool (a random server of each, or each pool's
            queue), cancel on complete.
CoC         d replicas on d distinct servers (per server only), cancel on
            complete (waiting replicas are dropped, running ones cut).
Rer         one replica; when its attained service reaches tau of its first pool
            it is killed (cost tau) and a new replica joins the back of the queue
            of a random server of the other pool (or the other pool's queue),
            with the second size of the dependence (``resume``: the remaining
            work). Under PS "attained" is PS attained service.
Rep         (FCFS; PS: see the end of this entry) one replica; when its attained service reaches tau of
            its first pool, the job becomes *replicated*: that replica becomes
            high priority in its queue (it keeps running), and a second replica,
            size the second replica of the dependence from scratch, joins the
            other pool (a random server of it, or its central queue) as high
            priority: it goes behind the high replicas already there and ahead
            of all low ones, preempting a running low replica if no server is
            free of high work (preemptive resume: the preempted replica keeps
            its attained service and resumes first among the low ones). A high
            replica is never preempted. The first of the two to finish
            completes the job; the other is cancelled (cut). Cost = attained
            service of both. With n_1 = n_2 = 1 this is the threshold paper's
            model: a replicated job is served in both pools at once unless the
            other pool is busy with another replicated job (which the paper's
            latency approximation neglects).
            On PS there is no priority: at tau of attained service the second
            replica joins a random server of the other pool and shares it like
            any other replica; the first to finish wins.

PS only (a replica *starts* when it joins a PS server: its service begins at
once, so every replica of a job starts at its arrival):

CoS         cancel on start keeps one replica of the d sampled: all start
            together, and the tie goes to sampling order (as in :mod:`.fast`),
            i.e. the first sampled, a uniformly random one of the d chosen by
            the routing stream. One size is drawn. With identical servers it is
            random dispatch: N independent M/G/1-PS queues.
RIQ         replicas on the idle (empty) servers among the d sampled, cancel on
            complete; none idle: one replica on the first sampled (a random one
            of the d), as the fast path does for FCFS. Sizes for the replicas
            placed.
FJ          k of d: all d tasks run under PS (d sizes), the job finishes at the
            k-th completion and the rest are cancelled (cut). ``early``
            (cancel once k have started): all start together, so the k kept are
            the first k sampled (a random k of the d), the q-th with the q-th
            size, and the job finishes when all k have completed.

Random numbers: as in :mod:`.fast`; Rer and Rep draw the second server (per
server queueing) at arrival iff the first replica's duration exceeds tau (it
then surely reaches tau: service is preemptive-resume), and always take two
sizes. Central queueing draws no server (the type, then the pool).

Capacity: every array is preallocated; a full queue, replica or job table stops
the run with ``stable = 0`` (``STOP_CAPACITY``), never a crash. Jobs still in
the system after the last arrival are run to completion (drained), so every
arrival is recorded, like the fast path.
"""

from __future__ import annotations

import numpy as np

from .. import policies
from ..dependence import IDENTICAL_CODE, IID_CODE, SX_CODE
from ..kernel_cache import kernel
from . import encode as E
from . import statistics as S
from .streams import block_size, refill_exponential, refill_family, refill_uniform

#: replica slots of one replication (per-server queue capacity: this / N, at
#: least MIN_QCAP and at most MAX_QCAP; a central queue: CENTRAL_QCAP)
REPLICA_SLOTS = 1 << 18
MIN_QCAP = 64
MAX_QCAP = 4096
CENTRAL_QCAP = 1 << 16
#: above this many queues the earliest is kept in a tournament tree (O(log N)
#: per change) instead of a linear scan per event (:func:`_earliest`; measured,
#: the scan is faster at N = 50, the tree 3.4x faster at N = 1000)
TREE_MIN_QUEUES = 64


# ---------------------------------------------------------------- queue helpers


@kernel(nogil=True, inline="always")
def _advance(q, t, qt, qserv, qm, rres, ratt, rrate):
    """Bring the running replicas of queue q to time t."""
    dt = t - qt[q]
    if dt > 0.0:
        for k in range(qserv[q]):
            r = qm[q, k]
            a = rrate[r] * dt
            rres[r] -= a
            ratt[r] += a
    qt[q] = t


@kernel(nogil=True)
def _tree_fix(tree, tval, P, q, v):
    """Tournament tree over the queues' next events: leaf q's time becomes v.

    Node k holds the winner ``tree[k]`` of its subtree (the earlier of its two
    children's, the left one on a tie) and that winner's time ``tval[k]``, so a
    level reads two adjacent values instead of two indices and then their
    times (those dependent loads were a third of ``event_coc_d2_n50``,
    measured). Every node on the path is recomputed, without a branch: stopping
    at the first unchanged node was slower (an unpredictable exit)."""
    k = P + q
    tval[k] = v
    k >>= 1
    while k >= 1:
        va = tval[2 * k]
        vb = tval[2 * k + 1]
        left = va <= vb
        tree[k] = tree[2 * k] if left else tree[2 * k + 1]
        tval[k] = va if left else vb
        k >>= 1


@kernel(nogil=True)
def _earliest(qnext, Q):
    """The first q with the smallest ``qnext[q]`` (-1 if all are inf): the tree's
    winner (the leftmost on a tie). Two passes: the minimum over four
    interleaved running minima (four independent chains of ``minsd``, no branch
    to mispredict; one chain with the index alongside is bound by its latency),
    then the first queue with that time (the min was a tenth of
    ``event_coc_d2_n50``, this search another tenth, measured)."""
    m0 = np.inf
    m1 = np.inf
    m2 = np.inf
    m3 = np.inf
    q = 0
    while q + 4 <= Q:
        m0 = min(m0, qnext[q])
        m1 = min(m1, qnext[q + 1])
        m2 = min(m2, qnext[q + 2])
        m3 = min(m3, qnext[q + 3])
        q += 4
    while q < Q:
        m0 = min(m0, qnext[q])
        q += 1
    m = min(min(m0, m1), min(m2, m3))
    if m == np.inf:
        return -1
    q = 0  # a block of four at a time (one branch per block), then the one
    while q + 4 <= Q and not ((qnext[q] == m) | (qnext[q + 1] == m) | (qnext[q + 2] == m) | (qnext[q + 3] == m)):
        q += 4
    while qnext[q] != m:
        q += 1
    return q


@kernel(nogil=True)
def _checkpoint(
    central, Q, pools, p_start, qc, qn, qm, qt, qserv, rres, ratt, rrate, t, scratch, mon, kc, work_done, N, wait
):
    """Checkpoint kc: the median backlog (residual service time) per server of
    each pool (central: the pool's backlog / n_i) and the work per server."""
    total = 0.0
    for q in range(Q):
        _advance(q, t, qt, qserv, qm, rres, ratt, rrate)
    for pool in range(pools):
        cnt = 0
        if central:
            b = 0.0
            for k in range(qn[pool]):
                b += rres[qm[pool, k]]
            total += b
            scratch[0] = b / max(qc[pool], 1)
            cnt = 1
        else:
            for s in range(p_start[pool], p_start[pool + 1]):
                b = 0.0
                for k in range(qn[s]):
                    b += rres[qm[s, k]]
                total += b
                scratch[cnt] = b
                cnt += 1
        mon[kc, pool] = S.median_inplace(scratch, cnt) if cnt > 0 else 0.0
    # work brought so far ~ server time consumed + what is left in the queues
    mon[kc, S.MON_WORK] = (work_done + total) / N
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
    acc,
    batches,
    hist,
    mon,
    trace,
    rngs,
):
    """Simulate one replication (kernel contract of :mod:`.fast`): :func:`_simulate`
    with the discipline (PS or FCFS) as a compile-time constant. A literal
    argument makes numba compile one copy of the event loop for PS and one for
    FCFS, each without the other's branches (fewer live values, fewer spills)."""
    policy = ints[E.I_POLICY]
    threshold = policy == policies.RER_CODE or policy == policies.REP_CODE
    if ints[E.I_DISCIPLINE] == E.PS:
        _simulate(
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
            acc,
            batches,
            hist,
            mon,
            trace,
            rngs,
            True,
            threshold,
        )
    else:
        _simulate(
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
            acc,
            batches,
            hist,
            mon,
            trace,
            rngs,
            False,
            threshold,
        )


@kernel(nogil=True)
def _simulate(
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
    acc,
    batches,
    hist,
    mon,
    trace,
    rngs,
    ps,
    threshold,
):
    """One replication; ``ps`` is a literal (:func:`run`), ``threshold``: Rer or Rep."""
    policy = ints[E.I_POLICY]
    N = ints[E.I_N]
    d = ints[E.I_D]
    pools = ints[E.I_POOLS]
    J = ints[E.I_J]
    dep = ints[E.I_DEP]
    xc = ints[E.I_XCODE]
    sc = ints[E.I_SCODE]
    check = ints[E.I_CHECK]
    resume = ints[E.I_RESUME]
    central = ints[E.I_QUEUEING] == E.CENTRAL
    bound = ints[E.I_PS_BOUND] != E.BOUND_NONE
    upper = ints[E.I_PS_BOUND] == E.BOUND_UPPER
    p_start = ints[E.I_POOL0 : E.I_POOL2 + 1]
    p1 = p_start[1]
    tau0 = flts[E.F_TAU0]
    tau1 = flts[E.F_TAU1]
    wait = flts[E.F_MONITOR_WAIT]
    rep = policy == policies.REP_CODE
    kfj = ints[E.I_K]
    early = ints[E.I_EARLY] != 0
    multi = policy == policies.FJ_CODE and kfj > 1  # a job may need more than one completion

    inv_lam = 1.0 / lam
    total = warmup + jobs
    inv_batch = S.N_BATCHES / max(jobs, 1)
    n_trace = trace.shape[0]

    # queues
    if central:
        Q = pools
        qcap = CENTRAL_QCAP
    else:
        Q = N
        qcap = min(MAX_QCAP, max(MIN_QCAP, REPLICA_SLOTS // N))
    qc = np.ones(Q, dtype=np.int64)
    if central:
        for i in range(pools):
            qc[i] = p_start[i + 1] - p_start[i]
    qm = np.empty((Q, qcap), dtype=np.int64)
    qn = np.zeros(Q, dtype=np.int64)
    qhigh = np.zeros(Q, dtype=np.int64)
    qserv = np.zeros(Q, dtype=np.int64)
    qt = np.zeros(Q)
    # the earliest queue: a linear scan with few queues, else a tournament tree
    P = 0
    if Q > TREE_MIN_QUEUES:
        P = 1
        while P < Q:
            P *= 2
    qnext = np.full(max(P, Q), np.inf)  # padded to P (the padding: inf)
    tree = np.empty(2 * P, dtype=np.int64)
    tval = np.full(2 * P, np.inf)  # the time of tree[k] (_tree_fix)
    for i in range(P):
        tree[P + i] = i
    for k in range(P - 1, 0, -1):
        tree[k] = tree[2 * k]
    qwho = np.full(Q, -1, dtype=np.int64)
    # PS rates 1 / n from a table: the same doubles as the division, without its
    # latency in every event (measured: the division's stall was 4 % of ps_mm1)
    inv_n = np.empty(qcap + 1)
    inv_n[0] = np.inf
    for i in range(1, qcap + 1):
        inv_n[i] = 1.0 / i
    qkind = np.zeros(Q, dtype=np.int64)

    # replicas and jobs
    R = max(d, 2)
    RC = min(Q * qcap, REPLICA_SLOTS if not central else 2 * CENTRAL_QCAP)
    rq = np.empty(RC, dtype=np.int64)
    rjob = np.empty(RC, dtype=np.int64)
    rres = np.empty(RC)
    ratt = np.empty(RC)
    rrate = np.zeros(RC)
    rtau = np.empty(RC)
    rfree = np.arange(RC - 1, -1, -1)
    nrfree = RC
    JC = max(16, RC // (d if d > 1 else 1))
    jn = np.empty(JC, dtype=np.int64)
    jt = np.empty(JC)
    jcost = np.empty(JC)
    jnr = np.zeros(JC, dtype=np.int64)
    jrep = np.empty((JC, R), dtype=np.int64)
    jq2 = np.empty(JC, dtype=np.int64)  # Rer/Rep: the queue of the second replica
    jd2 = np.empty(JC)  # Rer/Rep: its service time
    jneed = np.ones(JC, dtype=np.int64)  # FJ: completions still needed
    jfree = np.arange(JC - 1, -1, -1)
    njfree = JC

    # random streams, read in blocks
    re = rngs[0]
    ru = rngs[1]
    rx = rngs[2]
    rs = rngs[3]
    need_u = 2 + R
    need_x = R
    BE = block_size(1)
    BU = block_size(need_u)
    BX = block_size(need_x)
    eb = np.empty(BE)
    ub = np.empty(BU)
    xb = np.empty(BX)
    # the second size stream: slowdowns (sx) or the replicas after the first (iid)
    sb = np.empty(BX if dep == SX_CODE or dep == IID_CODE else 1)
    ei = BE
    ui = BU
    xi = BX
    si = BX

    perm = np.arange(N)
    srv = np.empty(R, dtype=np.int64)
    dur = np.empty(R)
    scratch = np.empty(max(N, 1))
    fbuf = np.empty(1)
    ibuf = fbuf.view(np.int64)

    t = 0.0
    t_last = 0.0
    work_done = 0.0
    kc = 0
    n = 0
    next_check = check
    overflow = False
    do_check = False
    dirty = np.empty(R + 2, dtype=np.int64)  # the queues an event changed
    nd = 0
    if total > 0:
        ei = refill_exponential(re, eb, ei)
        t_arr = eb[ei] * inv_lam
        ei += 1
    else:
        t_arr = np.inf

    while True:
        # ------------------------------------------------ the next event
        if P > 0:
            qmin = tree[1]
            tq = tval[1]
        else:
            tq = np.inf
            qmin = -1
            if Q == 1:  # one queue (M/G/1): no call
                qmin = 0
                tq = qnext[0]
            else:
                qmin = _earliest(qnext, Q)
                if qmin >= 0:
                    tq = qnext[qmin]
        if tq == np.inf:
            qmin = -1
        arrival = n < total and t_arr <= tq
        if bound and (arrival or qmin >= 0):
            # every replica's rate may change at this event: bring every queue to
            # its time (_advance, written out: module docstring)
            t = t_arr if arrival else tq
            for q3 in range(Q):
                dt = t - qt[q3]
                if dt > 0.0:
                    for k3 in range(qserv[q3]):
                        r3 = qm[q3, k3]
                        a = rrate[r3] * dt
                        rres[r3] -= a
                        ratt[r3] += a
                qt[q3] = t
        if arrival:
            # ------------------------------------------- an arrival
            t = t_arr
            t_last = t
            if ui > BU - need_u:
                ui = refill_uniform(ru, ub, ui)
            if xi > BX - need_x:
                xi = refill_family(xc, x_params, rx, xb, xi)
            if dep == SX_CODE and si > BX - need_x:
                si = refill_family(sc, s_params, rs, sb, si)
            elif dep == IID_CODE and si > BX - need_x:
                si = refill_family(xc, x_params, rs, sb, si)
            j = 0
            if J > 1:  # the type: from the arrivals stream (a uniform, 1 - exp(-e))
                if ei >= BE:
                    ei = refill_exponential(re, eb, ei)
                ut = -np.expm1(-eb[ei])
                ei += 1
                while j < J - 1 and ut >= type_cdf[j]:
                    j += 1
            # the queues (srv) and service times (dur) of the replicas placed now
            nr = 1
            need = 1
            q2 = -1
            d2 = 0.0
            rt = np.inf
            if policy == policies.FRED_CODE:
                if central:
                    srv[0] = 0
                    srv[1] = 1
                else:
                    srv[0] = int(ub[ui] * p1)
                    srv[1] = p1 + int(ub[ui + 1] * (N - p1))
                    ui += 2
                if n >= warmup:  # idle evidence: what the arrival finds
                    for r in range(2):
                        q = srv[r]
                        S.see(acc, r, qn[q] < qc[q] if central else qn[q] == 0)
                nr = 2
                x = xb[xi]
                for r in range(2):
                    if dep == IID_CODE and r > 0:  # the second size stream
                        x = sb[si]
                    du = x * inv_speeds[r, j]
                    if dep == SX_CODE:
                        du *= sb[si + r]
                    dur[r] = du
                xi += 1
                if dep == IID_CODE:
                    si += 1
                elif dep == SX_CODE:
                    si += 2
            elif (
                policy == policies.COC_CODE
                or policy == policies.COS_CODE
                or policy == policies.RIQ_CODE
                or policy == policies.FJ_CODE
            ):
                # d distinct servers, then the replicas that run: CoC all d; CoS,
                # RIQ and FJ (PS only) as below, since on PS every replica starts
                # when it joins (module docstring)
                for i in range(d):
                    r = i + int(ub[ui + i] * (N - i))
                    s = perm[r]
                    perm[r] = perm[i]
                    perm[i] = s
                    srv[i] = s
                ui += d
                if n >= warmup:  # idle evidence: what the arrival finds
                    for i in range(d):
                        S.see(acc, 0 if srv[i] < p1 else 1, qn[srv[i]] == 0)
                nr = d
                if policy == policies.FJ_CODE:
                    need = kfj
                    nr = kfj if early else d  # early: the first k sampled
                elif policy == policies.RIQ_CODE:  # the empty servers among the d (order kept)
                    nr = 0
                    for i in range(d):
                        s = srv[i]
                        if qn[s] == 0:
                            srv[nr] = s
                            nr += 1
                    if nr == 0:  # none: the first sampled (srv[0] untouched)
                        nr = 1
                elif policy == policies.COS_CODE:  # the first sampled (a random one of the d)
                    nr = 1
                x0 = xb[xi]
                x = x0
                for r in range(nr):
                    if dep == IID_CODE:
                        x = x0 if r == 0 else sb[si + r - 1]
                    du = x * inv_speeds[0 if srv[r] < p1 else 1, j]
                    if dep == SX_CODE:
                        du *= sb[si + r]
                    dur[r] = du
                # every job takes d replica sizes, whichever run (common random numbers)
                xi += 1
                if dep == IID_CODE:
                    si += d - 1
                elif dep == SX_CODE:
                    si += d
            else:  # ZRed, KT, Rer, Rep: a pool, then a server (or the pool's queue)
                i = 0
                if pools == 2:
                    if ub[ui] >= alpha[0, j]:
                        i = 1
                    ui += 1
                if central:
                    srv[0] = i
                else:
                    lo = p_start[i]
                    srv[0] = lo + int(ub[ui] * (p_start[i + 1] - lo))
                    ui += 1
                if n >= warmup:  # idle evidence: what the arrival finds
                    q = srv[0]
                    S.see(acc, i, qn[q] < qc[q] if central else qn[q] == 0)
                if threshold:
                    if dep == IID_CODE:  # the second replica from the second size stream
                        x0 = xb[xi]
                        x1 = sb[si]
                        xi += 1
                        si += 1
                    elif dep == IDENTICAL_CODE:
                        x0 = xb[xi]
                        x1 = x0
                        xi += 1
                    else:
                        x = xb[xi]
                        xi += 1
                        x0 = x * sb[si]
                        x1 = x * sb[si + 1]
                        si += 2
                    du = x0 * inv_speeds[i, j]
                    tau = tau0 if i == 0 else tau1
                    if du > tau:
                        rt = tau
                        l = 1 - i
                        if central:
                            q2 = l
                        else:
                            lo = p_start[l]
                            q2 = lo + int(ub[ui] * (p_start[l + 1] - lo))
                            ui += 1
                        if resume != 0 and not rep:
                            d2 = (x0 - tau * speeds[i, j]) * inv_speeds[l, j]
                        else:
                            d2 = x1 * inv_speeds[l, j]
                else:
                    du = xb[xi] * inv_speeds[i, j]
                    xi += 1
                    if dep == SX_CODE:
                        du *= sb[si]
                        si += 1
                dur[0] = du
            # the job and its replicas
            if njfree == 0 or nrfree < nr:
                overflow = True
                break
            njfree -= 1
            js = jfree[njfree]
            jn[js] = n
            jt[js] = t
            jcost[js] = 0.0
            jnr[js] = nr
            jneed[js] = need
            jq2[js] = q2
            jd2[js] = d2
            for k in range(nr):
                nrfree -= 1
                r = rfree[nrfree]
                q = srv[k]
                # _advance and _insert (low), written out (module docstring)
                dt = t - qt[q]
                if dt > 0.0:
                    for k3 in range(qserv[q]):
                        r3 = qm[q, k3]
                        a = rrate[r3] * dt
                        rres[r3] -= a
                        ratt[r3] += a
                qt[q] = t
                n3 = qn[q]
                if n3 >= qcap:
                    overflow = True
                    break
                qm[q, n3] = r
                qn[q] = n3 + 1
                rq[r] = q
                rjob[r] = js
                rres[r] = dur[k]
                ratt[r] = 0.0
                rrate[r] = 0.0
                rtau[r] = rt
                jrep[js, k] = r
                if not bound:
                    dirty[nd] = q
                    nd += 1
            if overflow:
                break
            n += 1
            if n < total:
                if ei >= BE:
                    ei = refill_exponential(re, eb, ei)
                t_arr = t + eb[ei] * inv_lam
                ei += 1
            if n == next_check:
                next_check += check
                do_check = True
        elif qmin >= 0:
            # ------------------------------------------- a queue event
            t = tq
            q = qmin
            if not bound:  # (bound: every queue was advanced above)
                dt = t - qt[q]
                if dt > 0.0:
                    for k3 in range(qserv[q]):
                        r3 = qm[q, k3]
                        a = rrate[r3] * dt
                        rres[r3] -= a
                        ratt[r3] += a
                qt[q] = t
            r = qwho[q]
            if r < 0:  # cannot happen (a finite qnext has a replica); never index with it
                overflow = True
                break
            js = rjob[r]
            if qkind[q] == 0 and multi and jneed[js] > 1:
                # FJ: a completion before the k-th; the replica leaves
                jneed[js] -= 1
                jcost[js] += ratt[r]
                n3 = qn[q]
                p3 = 0
                while p3 < n3 and qm[q, p3] != r:
                    p3 += 1
                for k3 in range(p3, n3 - 1):
                    qm[q, k3] = qm[q, k3 + 1]
                qn[q] = n3 - 1
                for k3 in range(jnr[js]):
                    if jrep[js, k3] == r:
                        jrep[js, k3] = -1
                rfree[nrfree] = r
                nrfree += 1
                dirty[nd] = q
                nd += 1
            elif qkind[q] == 0:
                # a completion: the job is done, its other replicas are cancelled
                cost = jcost[js]
                for k in range(jnr[js]):
                    r2 = jrep[js, k]
                    if r2 < 0:
                        continue
                    q2 = rq[r2]
                    dt = t - qt[q2]
                    if dt > 0.0:
                        for k3 in range(qserv[q2]):
                            r3 = qm[q2, k3]
                            a = rrate[r3] * dt
                            rres[r3] -= a
                            ratt[r3] += a
                    qt[q2] = t
                    cost += ratt[r2]
                    # _remove, written out
                    n3 = qn[q2]
                    p3 = 0
                    while p3 < n3 and qm[q2, p3] != r2:
                        p3 += 1
                    for k3 in range(p3, n3 - 1):
                        qm[q2, k3] = qm[q2, k3 + 1]
                    qn[q2] = n3 - 1
                    if p3 < qhigh[q2]:
                        qhigh[q2] -= 1
                    if not bound:
                        dirty[nd] = q2
                        nd += 1
                    rfree[nrfree] = r2
                    nrfree += 1
                work_done += cost
                nj = jn[js]
                lat = t - jt[js]
                if nj >= warmup:
                    S.record(acc, batches, hist, fbuf, ibuf, nj - warmup, lat, cost, inv_batch)
                if nj < n_trace:
                    trace[nj, 0] = lat
                    trace[nj, 1] = cost
                jnr[js] = 0
                jfree[njfree] = js
                njfree += 1
            else:
                # a threshold: Rer kills and restarts, Rep replicates
                rtau[r] = np.inf
                q2 = jq2[js]
                dt = t - qt[q2]
                if dt > 0.0:
                    for k3 in range(qserv[q2]):
                        r3 = qm[q2, k3]
                        a = rrate[r3] * dt
                        rres[r3] -= a
                        ratt[r3] += a
                qt[q2] = t
                if nrfree == 0:
                    overflow = True
                    break
                nrfree -= 1
                r2 = rfree[nrfree]
                # _remove(q, r), written out
                n3 = qn[q]
                p3 = 0
                while p3 < n3 and qm[q, p3] != r:
                    p3 += 1
                for k3 in range(p3, n3 - 1):
                    qm[q, k3] = qm[q, k3 + 1]
                qn[q] = n3 - 1
                if p3 < qhigh[q]:
                    qhigh[q] -= 1
                if rep:
                    # _insert(q, r, high) (room: it was just removed)
                    h3 = qhigh[q]
                    for k3 in range(n3 - 1, h3, -1):
                        qm[q, k3] = qm[q, k3 - 1]
                    qm[q, h3] = r
                    qhigh[q] = h3 + 1
                    qn[q] = n3
                else:
                    # the killed service joins the job's cost, which enters work_done
                    # once, when the job completes
                    jcost[js] += ratt[r]
                    rfree[nrfree] = r
                    nrfree += 1
                    jrep[js, 0] = -1
                # _insert(q2, r2, high = rep)
                n3 = qn[q2]
                if n3 >= qcap:
                    overflow = True
                    break
                if rep:
                    h3 = qhigh[q2]
                    for k3 in range(n3, h3, -1):
                        qm[q2, k3] = qm[q2, k3 - 1]
                    qm[q2, h3] = r2
                    qhigh[q2] = h3 + 1
                else:
                    qm[q2, n3] = r2
                qn[q2] = n3 + 1
                rq[r2] = q2
                rjob[r2] = js
                rres[r2] = jd2[js]
                ratt[r2] = 0.0
                rrate[r2] = 0.0
                rtau[r2] = np.inf
                jrep[js, 1] = r2
                jnr[js] = 2
                if not bound:
                    dirty[0] = q
                    dirty[1] = q2
                    nd = 2
        else:
            break
        # ------------------------------------------------ reschedule
        if bound:
            # CoC's bound systems: every replica of a job at rate 1/min (lower) or
            # 1/max (upper) of the lengths of its job's queues, then every queue's
            # next completion (CoC has no threshold); written out, in one pass per
            # queue: the rates depend only on the queue lengths, fixed by now
            for q3 in range(Q):
                n3 = qn[q3]
                qserv[q3] = n3
                best = np.inf
                who = -1
                for k3 in range(n3):
                    r3 = qm[q3, k3]
                    js3 = rjob[r3]
                    # (every replica of a CoC job is in a queue until it completes)
                    if upper:
                        m3 = 0
                        for i3 in range(jnr[js3]):
                            m3 = max(m3, qn[rq[jrep[js3, i3]]])
                    else:
                        m3 = qcap
                        for i3 in range(jnr[js3]):
                            m3 = min(m3, qn[rq[jrep[js3, i3]]])
                    rate = inv_n[m3]  # 1.0 / m3, the same double
                    rrate[r3] = rate
                    c = rres[r3]
                    if c < 0.0:
                        c = 0.0
                    c = c / rate
                    if c < best:
                        best = c
                        who = r3
                qnext[q3] = qt[q3] + best
                qwho[q3] = who
                qkind[q3] = 0
                if P > 0:
                    _tree_fix(tree, tval, P, q3, qnext[q3])
        else:
            # _resched of the queues the event changed (the same result as right
            # after each change: a queue is not advanced again at the same time
            # t), written out in the loop: an inlined helper copies its array
            # arguments (reference counts: atomic increments and decrements that
            # LLVM does not always prune, measured: 40 % of the time on ps_mm1)
            for i3 in range(nd):
                q3 = dirty[i3]
                n3 = qn[q3]
                if ps:
                    m3 = n3
                    if n3 > 0:
                        rate = inv_n[n3]
                        for k3 in range(n3):
                            rrate[qm[q3, k3]] = rate
                else:
                    m3 = qc[q3] if qc[q3] < n3 else n3
                    for k3 in range(m3):
                        rrate[qm[q3, k3]] = 1.0
                qserv[q3] = m3
                best = np.inf
                who = -1
                kind = 0
                if threshold:
                    for k3 in range(m3):
                        r3 = qm[q3, k3]
                        c = rres[r3]
                        kd = 0
                        x = rtau[r3] - ratt[r3]
                        if x < c:
                            c = x
                            kd = 1
                        if c < 0.0:
                            c = 0.0
                        if c < best:
                            best = c
                            who = r3
                            kind = kd
                else:  # every rtau is inf: never the earliest
                    for k3 in range(m3):
                        r3 = qm[q3, k3]
                        c = rres[r3]
                        if c < 0.0:
                            c = 0.0
                        if c < best:
                            best = c
                            who = r3
                if ps and n3 > 0:
                    best *= n3  # every replica at rate 1/n
                qnext[q3] = qt[q3] + best
                qwho[q3] = who
                qkind[q3] = kind
                if P > 0:
                    _tree_fix(tree, tval, P, q3, qnext[q3])
            nd = 0
        if do_check:
            do_check = False
            kc += 1
            if _checkpoint(
                central,
                Q,
                pools,
                p_start,
                qc,
                qn,
                qm,
                qt,
                qserv,
                rres,
                ratt,
                rrate,
                t,
                scratch,
                mon,
                kc,
                work_done,
                N,
                wait,
            ):
                acc[S.A_STABLE] = 0.0
                acc[S.A_REASON] = S.STOP_BACKLOG
                break
    if overflow:
        acc[S.A_STABLE] = 0.0
        acc[S.A_REASON] = S.STOP_CAPACITY
    acc[S.A_ARRIVALS] = n
    acc[S.A_TIME] = t_last
    acc[S.A_WORK] = work_done
