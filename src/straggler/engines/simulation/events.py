"""The general event-driven engine (engine ``"events"``): PS servers, central pool
queues, Rep with preemptive-resume priority, CoC's PS bound systems, and the
FCFS per-server policies (to cross-check the fast path): its events' kernels, with the
policies' semantics, and its loop (:func:`run`).

Coverage (:func:`supports`): per-server FCFS ZRed, KT, FRed, CoC, Rer, Rep;
per-server PS every simulated policy (ZRed, KT, FRed, CoC, CoS, RIQ, FJ, Rer,
Rep; CoC also with ``ps_bound``); central FCFS ZRed, KT, FRed, Rer, Rep. CoS,
RIQ and FJ on FCFS servers are the fast path's (cancel on start needs the start
order, which the workload recursion has); there is no central PS model, and
CoC, CoS, RIQ and FJ pick d of the N servers, so they have no central form.

One kernel, :func:`run`, with the policy as data (:mod:`.encode`). It
follows the kernel contract and the random-number contract of :mod:`.contract`, so
on the FCFS per-server policies that both engines support the two see the same
jobs (and give the same latencies and costs, job by job, up to rounding).

The state that the kernels change (the records, and the operations on the queues, the
event set and Hedge's timers) is :mod:`.events_state`'s; an arrival's type, servers and
sizes are :mod:`.events_routing`'s.

Events
------
The event loop, :func:`_simulate`, finds the next event and hands it to its
kernel; each kernel changes the state and says which queues it changed (in
``Work.dirty``), and the loop reschedules them once, at the end of the event (the
same result as right after each change: a queue is not advanced again at the same
time):

* :func:`on_arrival`: route the job (:func:`.events_routing.route_one`,
  :func:`.events_routing.route_fred`, :func:`.events_routing.route_sampled`), then
  place it (:func:`_admit`);
* :func:`on_completion`: the job is done, its other replicas are cancelled (cut);
* :func:`on_task_done`: FJ, a task before the k-th leaves;
* :func:`on_threshold`: Rer restarts the job in the other pool, Rep replicates it.

A new event kind is a kernel and a branch of the loop: its own time source (as the
arrivals have ``t_arr``) or a new ``Queues.kind`` of a queue's next event (as
``THRESHOLD``), set by :func:`.events_state.reschedule`.

The state is five records (named tuples of arrays and numbers) and a cursor, the numbers
every event may change, which each kernel takes and returns by value (:mod:`.events_state`).

Why it is written this way (measured on the bench's event workloads, same run):

* the records are named tuples, and the loop and its kernels are compiled without
  numba's reference counting (``_nrt=False``): with it, a function that takes a
  record increments and decrements the count of every array in it (atomic
  operations, which LLVM's pruning leaves in): 20x slower; a mutable
  ``structref`` record instead: 5x slower (its fields are read through the
  runtime). The arrays are allocated by the entries
  (:func:`.events_state.records`), which keep the counts;
* the kernels, the loop and :func:`.events_state.records` are inlined by LLVM into
  each entry (numba's ``forceinline``): as calls, the records travel as hundreds of
  scalar arguments (0.4-0.6 of the throughput). Numba's own inlining
  (``inline="always"``) copies each kernel's IR at every call site and types the
  whole again: 82 s to compile the loop, against 55 s; LLVM's inlines code each
  kernel was compiled to once;
* one loop per variant (:func:`run`: FCFS or PS, a threshold policy or not, the
  PS bound systems, Hedge), each entry compiled on first use with its flags as
  constants, so LLVM drops the other variants' branches (where a kernel tests
  the flag the loop passes it, not the same setting read from ``su``:
  :func:`on_arrival`): the first entry costs the kernels' compilation, each
  further one about 5 s. With the allocation of the records
  (:func:`.events_state.records`) in the same function, LLVM knows the arrays apart. Its throughput against the single function it replaced, workload by
  workload, before and after: docs/contributing.md (Benchmarks).

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

Random numbers: as in :mod:`.contract`; Rer and Rep draw the second server (per
server queueing) at arrival iff the first replica's duration exceeds tau (it
then surely reaches tau: service is preemptive-resume), and always take two
sizes. Central queueing draws no server (the type, then the pool). Mixture: every
arrival's COUPLING uniform is ``cb[xi]``, at its SIZES value's index (the two
blocks are refilled together, :func:`.events_routing.refill_for_arrival`); a coupled
job (u < c) gives every copy its first size, and reads from SIZES and SLOWDOWNS what an
iid job reads. Hedge keeps the flag with the job (``Work.hcoupled``): a coupled job's timer
copies take its X (after reading, and dropping, the SLOWDOWNS value an iid copy
takes then), the others their SLOWDOWNS draw.

Capacity: every array is preallocated; a full replica or job table stops
the run with ``stable = 0`` (``STOP_CAPACITY``), never a crash. Jobs still in
the system after the last arrival are run to completion (drained), so every
arrival is recorded, like the fast path.
"""

from __future__ import annotations

import numpy as np

from ...common.kernel_cache import kernel
from ...model import policies
from ...model.dependence import IID_CODE, MIXTURE_CODE, PAIRS_CODE, SX_CODE
from ...model.dependence.sampling import pair_sizes
from . import encode as E
from . import statistics as S
from .events_routing import (
    job_size,
    job_type,
    next_exponential,
    own_sizes,
    refill_for_arrival,
    route_fred,
    route_one,
    route_sampled,
)
from .events_state import (
    THRESHOLD,
    Cursor,
    advance,
    append,
    event_part,
    in_service,
    insert_high,
    next_queue,
    next_timer,
    orphan,
    records,
    remove,
    reschedule,
    reschedule_bound,
    timer_push,
)
from .streams import refill_family, refill_uniform

#: A cancelled replica with at most this share of its attained service left has
#: finished with the winner (identical copies that started together end together, up
#: to the rounding of their residuals): no cancellation delay, as in the fast path
DONE_TOLERANCE = 1e-9


# ---------------------------------------------------------------- the start and the end state


@event_part
def place_start(su, qu, wk, stats, cur, threshold):
    """The start's work (``Stats.workloads``, FCFS per-server queues): each server with
    work w > 0 at t = 0 holds a replica of no job (as a cancelled copy's delay,
    :func:`orphan`) that keeps it busy for w, so the jobs that arrive queue behind it as
    behind the work of an equilibrium state. Returns the cursor after it."""
    free_r = cur.free_r
    if su.central or su.bound:
        return cur
    for q in range(min(qu.count, stats.workloads.shape[0])):
        w = stats.workloads[q]
        if w > 0.0 and free_r > 0:
            free_r -= 1
            r = wk.rfree[free_r]
            append(qu, wk, q, r)
            wk.queue[r] = q
            wk.attained[r] = 0.0
            wk.rate[r] = 0.0
            orphan(qu, wk, q, r, w)
            reschedule(qu, wk, q, False, threshold)
    return Cursor(cur.e, cur.u, cur.x, cur.s, free_r, cur.free_j)


@event_part
def end_state_begins(qu, stats):
    """At the last arrival: every queue's work left is 0 until it is known (:func:`end_state`)."""
    for q in range(min(qu.count, stats.workloads.shape[0])):
        stats.workloads[q] = 0.0


@event_part
def end_state(qu, stats, dirty, nd, t, t_last):
    """After the last arrival no job arrives, and the loop runs until every queue is empty:
    a queue an event leaves empty has done, since ``t_last``, all the work it had then
    (``Stats.workloads``, the kernel contract's end state). Unlike the replicas' residuals
    this counts only the service each copy gets before its job is done elsewhere (a
    copy to be cancelled is not work to do), and, as the fast path's free times, the
    copies a job still sends later (Hedge's timers) on the servers they join."""
    for i in range(nd):
        q = dirty[i]
        if q < stats.workloads.shape[0] and qu.length[q] == 0:
            stats.workloads[q] = t - t_last


# ---------------------------------------------------------------- events


@event_part
def _admit(su, qu, wk, t, n, nr, need, q2, d2, rt, free_r, free_j, ps, bound):
    """A new job with replicas on queues ``srv[:nr]``, its slots taken from the
    free lists (``free_r``, ``free_j`` slots free): returns the queues changed (in
    ``dirty``; -1 when a table is full) and the free slots left. ``ps``, ``bound``: the
    loop's flags (:func:`on_arrival`)."""
    srv = wk.srv
    dur = wk.dur
    dirty = wk.dirty
    if free_j == 0 or free_r < nr:
        return -1, free_r, free_j
    free_j -= 1
    js = wk.jfree[free_j]
    wk.number[js] = n
    wk.arrived[js] = t
    wk.cost[js] = 0.0
    wk.nrep[js] = nr
    wk.need[js] = need
    wk.second_queue[js] = q2
    wk.second_duration[js] = d2
    nd = 0
    for k in range(nr):
        free_r -= 1
        r = wk.rfree[free_r]
        q = srv[k]
        advance(qu, wk, q, t)
        n3 = qu.length[q]
        if n3 >= qu.cap:
            return -1, free_r, free_j
        append(qu, wk, q, r)
        wk.queue[r] = q
        wk.job[r] = js
        wk.residual[r] = dur[k]
        wk.attained[r] = 0.0
        wk.rate[r] = 0.0
        wk.tau[r] = rt
        wk.replicas[js, k] = r
        if not bound:
            dirty[nd] = q
            nd += 1
    if ps and su.cancel_delay > 0.0 and (su.policy == policies.COS_CODE or su.policy == policies.FJ_CODE):
        # under PS every sampled copy starts at once: those not kept are cancelled in service
        for k in range(nr, su.d):
            if free_r == 0:
                return -1, free_r, free_j
            free_r -= 1
            r = wk.rfree[free_r]
            q = srv[k]
            advance(qu, wk, q, t)
            n3 = qu.length[q]
            if n3 >= qu.cap:
                return -1, free_r, free_j
            append(qu, wk, q, r)
            wk.queue[r] = q
            wk.attained[r] = 0.0
            wk.rate[r] = 0.0
            orphan(qu, wk, q, r, su.cancel_delay)
            wk.cost[js] += su.cancel_delay
            dirty[nd] = q
            nd += 1
    return nd, free_r, free_j


@event_part
def on_arrival(su, qu, wk, st, stats, t, n, ps, threshold, bound, hedge, cur):
    """Job n arrives at t: route it, place its replicas. Returns the queues changed
    (in ``dirty``; -1 when a table is full) and the cursor after it.

    ``ps``, ``threshold``, ``bound`` and ``hedge`` are the loop's flags, constants in
    each variant's entry, not the settings read at run time: so the other variants'
    steps are dropped from its loop (read from ``su``, Hedge's steps stayed in every
    loop, and M/M/1-PS ran at 0.92 of the single loop this engine replaced, measured:
    docs/contributing.md, Benchmarks)."""
    perm = wk.perm
    srv = wk.srv
    dur = wk.dur
    R = srv.shape[0]
    ui, xi, si = refill_for_arrival(st, su.dep, 2 + R, R, cur.u, cur.x, cur.s)
    j, cur = job_type(su, st, cur)
    measured = n >= su.warmup
    need = 1
    q2 = -1
    d2 = 0.0
    rt = np.inf
    policy = su.policy
    partner = 0.0
    if su.dep == PAIRS_CODE:
        # the job's pair (a uniform of the sizes stream picks it): the first copy's duration in
        # place of the uniform, the second's where the policy reads it now (the second stream's
        # value, as under iid) or, for Hedge, whose second copy is sized when its timer fires, kept
        first, partner = pair_sizes(st.s_params, st.xb[xi])
        st.xb[xi] = first
        if not hedge:
            st.sb[si] = partner
    x0 = job_size(st, j, st.xb[xi]) if hedge else 0.0  # the job's X, which identical hedges copy
    # (mixture) and whether it is coupled, so that its hedges copy X too
    coupled = hedge and su.dep == MIXTURE_CODE and not own_sizes(su, st, xi)
    if policy == policies.FRED_CODE:
        nr, ui, xi, si = route_fred(su, qu, st, stats, measured, j, srv, dur, ui, xi, si)
    elif (
        policy == policies.COC_CODE
        or policy == policies.COS_CODE
        or policy == policies.RIQ_CODE
        or policy == policies.FJ_CODE
    ):
        nr, ui, xi, si = route_sampled(su, qu, st, stats, measured, j, perm, srv, dur, ui, xi, si)
        if policy == policies.FJ_CODE:
            need = su.k
    else:
        nr = 1
        rt, q2, d2, ui, xi, si = route_one(su, qu, st, stats, measured, j, srv, dur, threshold, ui, xi, si)
    nd, free_r, free_j = _admit(su, qu, wk, t, n, nr, need, q2, d2, rt, cur.free_r, cur.free_j, ps, bound)
    if hedge and nd >= 0:
        js = wk.jfree[free_j]  # the slot the job took
        wk.hsize[js] = partner if su.dep == PAIRS_CODE else x0
        wk.jtype[js] = j
        if su.dep == MIXTURE_CODE:
            wk.hcoupled[js] = coupled
        if su.budget < np.inf:
            wk.tokens[0] = min(su.bcap, wk.tokens[0] + su.budget)
        if su.d > 1 and su.hdelay < np.inf and su.budget > 0.0 and not timer_push(wk, t + su.hdelay, js, n):
            nd = -1
    return nd, Cursor(cur.e, ui, xi, si, free_r, free_j)


@event_part
def on_task_done(qu, wk, q, r, js, cur):
    """FJ: a task completes before the k-th; it leaves. Returns the queues changed
    and the cursor after it."""
    dirty = wk.dirty
    wk.need[js] -= 1
    wk.cost[js] += wk.attained[r]
    remove(qu, wk, q, r)
    jrep = wk.replicas
    for k3 in range(wk.nrep[js]):
        if jrep[js, k3] == r:
            jrep[js, k3] = -1
    wk.rfree[cur.free_r] = r
    dirty[0] = q
    return 1, Cursor(cur.e, cur.u, cur.x, cur.s, cur.free_r + 1, cur.free_j)


@event_part
def on_completion(su, qu, wk, stats, t, js, winner, bound, cur):
    """Job js completes at t (its replica ``winner`` finished): its other replicas are
    cancelled, its latency and cost recorded. A cancelled replica in service keeps its
    server ``cancel_delay`` longer (:func:`.events_state.orphan`; one within a billionth of its end
    has finished with the winner: identical copies started together), a waiting one,
    or one that has had no service yet (it starts at this instant), is dropped. ``bound``:
    the loop's flag (:func:`on_arrival`). Returns the queues changed, the job's cost and the
    cursor after it."""
    dirty = wk.dirty
    cost = wk.cost[js]
    free_r = cur.free_r
    delay = su.cancel_delay
    nd = 0
    for k in range(wk.nrep[js]):
        r2 = wk.replicas[js, k]
        if r2 < 0:
            continue
        q2 = wk.queue[r2]
        advance(qu, wk, q2, t)
        cost += wk.attained[r2]
        if (
            delay > 0.0
            and r2 != winner
            and wk.attained[r2] > 0.0  # one that starts at this instant has had no service: dropped
            and wk.residual[r2] > DONE_TOLERANCE * wk.attained[r2]
            and in_service(qu, wk, q2, r2)
        ):
            cost += delay
            orphan(qu, wk, q2, r2, delay)
        else:
            remove(qu, wk, q2, r2)
            wk.rfree[free_r] = r2
            free_r += 1
        if not bound:
            dirty[nd] = q2
            nd += 1
    nj = wk.number[js]
    lat = t - wk.arrived[js]
    copies = float(wk.nrep[js])
    if su.policy == policies.COS_CODE or su.policy == policies.FJ_CODE:
        copies = float(su.d)  # every one sent, those cancelled on start too (as the fast path counts)
    if nj >= su.warmup:
        S.record(
            stats.acc,
            stats.batches,
            stats.hist,
            stats.fbuf,
            stats.ibuf,
            nj - su.warmup,
            lat,
            cost,
            copies,
            stats.inv_batch,
        )
    if nj < stats.trace.shape[0]:
        stats.trace[nj, 0] = lat
        stats.trace[nj, 1] = cost
    wk.nrep[js] = 0
    wk.jfree[cur.free_j] = js
    return nd, cost, Cursor(cur.e, cur.u, cur.x, cur.s, free_r, cur.free_j + 1)


@event_part
def on_orphan_done(qu, wk, q, r, cur):
    """A cancelled replica's delay is over: it leaves its server. Returns the queues
    changed and the cursor after it."""
    remove(qu, wk, q, r)
    wk.rfree[cur.free_r] = r
    wk.dirty[0] = q
    return 1, Cursor(cur.e, cur.u, cur.x, cur.s, cur.free_r + 1, cur.free_j)


# ---------------------------------------------------------------- hedges


@event_part
def _hedge_server(su, wk, js, j, c, u):
    """The server of job js's copy c + 1 from the uniform u: with two pools whose speeds
    differ for its type j, its first hedge goes to a server of the other pool; otherwise
    the int(u (N - c))-th of the servers without a copy of it, in server order."""
    first = wk.queue[wk.replicas[js, 0]]
    if su.pools == 2 and c == 1 and su.inv_speeds[0, j] != su.inv_speeds[1, j]:
        l = 1 if first < su.p1 else 0
        lo = su.p_start[l]
        return lo + int(u * (su.p_start[l + 1] - lo))
    used = wk.srv  # its copies' servers, ascending (c <= d: a few)
    for k in range(c):
        v = wk.queue[wk.replicas[js, k]]
        p = k
        while p > 0 and used[p - 1] > v:
            used[p] = used[p - 1]
            p -= 1
        used[p] = v
    s = int(u * (su.N - c))
    for k in range(c):
        if used[k] <= s:
            s += 1
    return s


@event_part
def on_timer(su, qu, wk, st, t, cur):
    """Hedge: a timer fires at t. If its job is still in the system and the budget has a
    token, a copy joins a server without one (a ROUTING uniform; identical: the job's X,
    iid: a size, sx: a slowdown of the second stream, read now; mixture: a size read
    now as under iid, the copy's size unless the job is coupled, then the job's X),
    and the timer is armed
    again a delay later while the job has fewer than d copies. Returns the queues
    changed (-1 when a table is full) and the cursor after it."""
    ring = wk.ring
    i = ring[0]
    js = wk.timer_j[i]
    nn = wk.timer_n[i]
    i += 1
    ring[0] = 0 if i >= wk.timer_t.shape[0] else i
    ring[1] -= 1
    if wk.number[js] != nn or wk.nrep[js] == 0:  # done already
        return 0, cur
    if su.budget < np.inf:
        if wk.tokens[0] < 1.0:  # the budget is spent: the job hedges no more
            return 0, cur
        wk.tokens[0] -= 1.0
    if cur.free_r == 0:
        return -1, cur
    ui = cur.u
    if ui >= st.ub.shape[0]:
        ui = refill_uniform(st.ru, st.ub, ui)
    c = wk.nrep[js]
    j = wk.jtype[js]
    s = _hedge_server(su, wk, js, j, c, st.ub[ui])
    ui += 1
    x = wk.hsize[js]  # identical, a coupled mixture: the job's X; pairs: the pair's other duration
    si = cur.s
    if su.dep == IID_CODE or su.dep == MIXTURE_CODE:
        if si >= st.sb.shape[0]:
            si = refill_family(st.xc, st.x_params, st.rs, st.sb, si)
        if not (su.dep == MIXTURE_CODE and wk.hcoupled[js]):
            x = job_size(st, j, st.sb[si])
        si += 1
    du = x * su.inv_speeds[0 if s < su.p1 else 1, j]
    if su.dep == SX_CODE:
        if si >= st.sb.shape[0]:
            si = refill_family(st.sc, st.s_params, st.rs, st.sb, si)
        du *= st.sb[si]
        si += 1
    free_r = cur.free_r - 1
    r = wk.rfree[free_r]
    cur = Cursor(cur.e, ui, cur.x, si, free_r, cur.free_j)
    advance(qu, wk, s, t)
    n3 = qu.length[s]
    if n3 >= qu.cap:
        return -1, cur
    append(qu, wk, s, r)
    wk.queue[r] = s
    wk.job[r] = js
    wk.residual[r] = du
    wk.attained[r] = 0.0
    wk.rate[r] = 0.0
    wk.tau[r] = np.inf
    wk.replicas[js, c] = r
    wk.nrep[js] = c + 1
    if c + 1 < su.d and not timer_push(wk, t + su.hdelay, js, nn):
        return -1, cur
    wk.dirty[0] = s
    return 1, cur


@event_part
def on_threshold(su, qu, wk, t, q, r, js, cur):
    """Replica r reaches its threshold: Rer kills it and restarts the job in the
    other pool, Rep replicates it there at high priority. Returns the queues
    changed (-1 when a table is full) and the cursor after it."""
    dirty = wk.dirty
    wk.tau[r] = np.inf
    q2 = wk.second_queue[js]
    advance(qu, wk, q2, t)
    free_r = cur.free_r
    if free_r == 0:
        return -1, cur
    free_r -= 1
    r2 = wk.rfree[free_r]
    remove(qu, wk, q, r)
    if su.rep:
        insert_high(qu, wk, q, r)  # room: it was just removed
    else:
        # the killed service joins the job's cost, which enters the work done
        # once, when the job completes
        wk.cost[js] += wk.attained[r]
        if su.cancel_delay > 0.0:  # the kill keeps its server a while
            wk.cost[js] += su.cancel_delay
            append(qu, wk, q, r)  # back in (room: it was just removed), then to the front
            orphan(qu, wk, q, r, su.cancel_delay)
        else:
            wk.rfree[free_r] = r
            free_r += 1
        wk.replicas[js, 0] = -1
    cur = Cursor(cur.e, cur.u, cur.x, cur.s, free_r, cur.free_j)
    n3 = qu.length[q2]
    if n3 >= qu.cap:
        return -1, cur
    if su.rep:
        insert_high(qu, wk, q2, r2)
    else:
        append(qu, wk, q2, r2)
    wk.queue[r2] = q2
    wk.job[r2] = js
    wk.residual[r2] = wk.second_duration[js]
    wk.attained[r2] = 0.0
    wk.rate[r2] = 0.0
    wk.tau[r2] = np.inf
    wk.replicas[js, 1] = r2
    wk.nrep[js] = 2
    if su.bound:
        return 0, cur
    dirty[0] = q
    dirty[1] = q2
    return 2, cur


@kernel(nogil=True, _nrt=False)
def _checkpoint(su, qu, wk, stats, t, kc, work_done, wait):
    """Checkpoint kc: the median backlog (residual service time) per server of
    each pool (central: the pool's backlog / n_i) and the work per server."""
    total = 0.0
    nxt = qu.nxt
    qn = qu.length
    rres = wk.residual
    scratch = stats.scratch
    mon = stats.mon
    for q in range(qu.count):
        advance(qu, wk, q, t)
    for pool in range(su.pools):
        cnt = 0
        if su.central:
            b = 0.0
            r = qu.head[pool]
            for _k in range(qn[pool]):
                b += rres[r] if wk.job[r] >= 0 else 0.0  # a cancelled copy's work is in work_done
                r = nxt[r]
            total += b
            scratch[0] = b / max(qu.servers[pool], 1)
            cnt = 1
        else:
            for s in range(su.p_start[pool], su.p_start[pool + 1]):
                b = 0.0
                r = qu.head[s]
                for _k in range(qn[s]):
                    b += rres[r] if wk.job[r] >= 0 else 0.0
                    r = nxt[r]
                total += b
                scratch[cnt] = b
                cnt += 1
        mon[kc, pool] = S.median_inplace(scratch, cnt) if cnt > 0 else 0.0
    mon[kc, S.MON_WORK] = (work_done + total) / su.N
    return S.backlog_check(mon, kc, su.pools, S.EPS, wait)


# ---------------------------------------------------------------- the kernel


# One entry per variant of the event loop. ``_simulate`` and ``records`` are inlined
# into each by LLVM, the flags constants there, so each entry's loop is its variant's
# alone; the kernels are compiled once, for all of them (module docstring).


@kernel(nogil=True)
def _fcfs(*contract):
    _simulate(*records(*contract), False, False, False, False)


@kernel(nogil=True)
def _fcfs_threshold(*contract):
    _simulate(*records(*contract), False, True, False, False)


@kernel(nogil=True)
def _ps(*contract):
    _simulate(*records(*contract), True, False, False, False)


@kernel(nogil=True)
def _ps_threshold(*contract):
    _simulate(*records(*contract), True, True, False, False)


@kernel(nogil=True)
def _ps_bound(*contract):
    _simulate(*records(*contract), True, False, True, False)


@kernel(nogil=True)
def _fcfs_hedge(*contract):
    _simulate(*records(*contract), False, False, False, True)


@kernel(nogil=True)
def _ps_hedge(*contract):
    _simulate(*records(*contract), True, False, False, True)


def run(ints, *rest):
    """Simulate one replication (kernel contract of :mod:`.contract`): the loop's variant
    for the model's discipline, policy and bound system."""
    policy = ints[E.I_POLICY]
    threshold = policy == policies.RER_CODE or policy == policies.REP_CODE
    hedge = policy == policies.HEDGE_CODE
    if ints[E.I_PS_BOUND] != E.BOUND_NONE:
        entry = _ps_bound
    elif ints[E.I_DISCIPLINE] == E.PS:
        entry = _ps_threshold if threshold else _ps_hedge if hedge else _ps
    else:
        entry = _fcfs_threshold if threshold else _fcfs_hedge if hedge else _fcfs
    entry(ints, *rest)


@kernel(nogil=True, _nrt=False, forceinline=True)
def _simulate(su, qu, wk, st, stats, cur, lam, total, check, wait, ps, threshold, bound, hedge):
    """The event loop: the next event, its kernel, the queues it changed rescheduled.
    At one time: an arrival first, then a hedge's timer, then a queue's event."""
    dirty = wk.dirty
    inv_lam = 1.0 / lam
    acc = stats.acc
    multi = su.policy == policies.FJ_CODE and su.k > 1  # a job may need more than one completion
    t = 0.0
    t_last = 0.0
    work_done = 0.0
    kc = 0
    n = 0
    next_check = check
    overflow = False
    do_check = False
    nd = 0
    t_arr = np.inf
    if not ps:
        cur = place_start(su, qu, wk, stats, cur, threshold)
    if total > 0:
        v, cur = next_exponential(st, cur)
        t_arr = v * inv_lam
    while True:
        qmin, tq = next_queue(qu)
        timer = False
        th = np.inf
        if hedge:
            th = next_timer(wk)
            timer = th <= tq and th < np.inf and not (n < total and t_arr <= th)
        arrival = not timer and n < total and t_arr <= tq
        if bound and (arrival or qmin >= 0):
            t = t_arr if arrival else tq
            for q3 in range(qu.count):
                advance(qu, wk, q3, t)
        if arrival:
            t = t_arr
            t_last = t
            nd, cur = on_arrival(su, qu, wk, st, stats, t, n, ps, threshold, bound, hedge, cur)
            if nd < 0:
                overflow = True
                break
            n += 1
            if n < total:
                v, cur = next_exponential(st, cur)
                t_arr = t + v * inv_lam
            else:
                end_state_begins(qu, stats)
            if n == next_check:
                next_check += check
                do_check = True
        elif timer:
            t = th
            nd, cur = on_timer(su, qu, wk, st, t, cur)
            if nd < 0:
                overflow = True
                break
        elif qmin >= 0:
            t = tq
            q = qmin
            if not bound:
                advance(qu, wk, q, t)
            r = qu.who[q]
            if r < 0:  # cannot happen (a finite next event has a replica)
                overflow = True
                break
            js = wk.job[r]
            if js < 0:  # a cancelled replica's delay is over
                nd, cur = on_orphan_done(qu, wk, q, r, cur)
            elif qu.kind[q] == THRESHOLD:
                nd, cur = on_threshold(su, qu, wk, t, q, r, js, cur)
                if nd < 0:
                    overflow = True
                    break
            elif multi and wk.need[js] > 1:  # FJ: a task before the k-th
                nd, cur = on_task_done(qu, wk, q, r, js, cur)
            else:
                nd, cost, cur = on_completion(su, qu, wk, stats, t, js, r, bound, cur)
                work_done += cost
        else:
            break
        if n == total and not bound and not su.central:
            end_state(qu, stats, dirty, nd, t, t_last)
        if bound:
            reschedule_bound(qu, wk, su.upper)
        else:
            for i3 in range(nd):
                reschedule(qu, wk, dirty[i3], ps, threshold)
            nd = 0
        if do_check:
            do_check = False
            kc += 1
            if _checkpoint(su, qu, wk, stats, t, kc, work_done, wait):
                acc[S.A_STABLE] = 0.0
                acc[S.A_REASON] = S.STOP_BACKLOG
                break
    if overflow:
        acc[S.A_STABLE] = 0.0
        acc[S.A_REASON] = S.STOP_CAPACITY
    acc[S.A_ARRIVALS] = n
    acc[S.A_TIME] = t_last
    acc[S.A_WORK] = work_done
