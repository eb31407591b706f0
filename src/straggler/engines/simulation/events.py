"""The general event-driven engine (engine ``"events"``): PS servers, central pool
queues, Rep with preemptive-resume priority, CoC's PS bound systems, and the
FCFS per-server policies (to cross-check the fast path).

Coverage (:func:`supports`): per-server FCFS ZRed, KT, FRed, CoC, Rer, Rep;
per-server PS every simulated policy (ZRed, KT, FRed, CoC, CoS, RIQ, FJ, Rer,
Rep; CoC also with ``ps_bound``); central FCFS ZRed, KT, FRed, Rer, Rep. CoS,
RIQ and FJ on FCFS servers are the fast path's (cancel on start needs the start
order, which the workload recursion has); there is no central PS model, and
CoC, CoS, RIQ and FJ pick d of the N servers, so they have no central form.

One kernel, :func:`run`, with the policy as data (:mod:`.encode`). It
follows the kernel contract and the random-number contract of :mod:`.fast`, so
on the FCFS per-server policies that both engines support the two see the same
jobs (and give the same latencies and costs, job by job, up to rounding).

State
-----
*Queues* (:data:`Queues`). Per-server queueing: queue s is server s (one
server). Central queueing: queue i is pool i, served by its ``n_i`` servers. A
queue keeps its ``length[q]`` replicas in service order: first the *high*
priority replicas (Rep's replicated jobs, ``high[q]`` of them, in the order in
which they became high), then the low ones in order of joining the queue. The order
is a doubly linked list over the replica slots (``Queues.head``, ``tail``, ``nxt``,
``prv``; ``hlast``: the last high one), so that a replica leaves from anywhere in
its queue, and a high one joins behind the high ones, in O(1): a job done cancels
copies waiting deep in other queues (CoC, Hedge, FRed, Rep), and a heavy tail builds
queues of thousands. As a shifted array (to 2117cda) a removal scanned and shifted
the queue: with identical copies of the bench's heavy-tailed trace (N = 32, CPU time
of one process) the list runs Rep at load 0.6 2.1x as fast, Hedge d = 2 at load 0.9
2.5x, with the same numbers bit for bit (tests/engines/simulation/test_event_engine_golden.py).
Walks of the running replicas (``advance``, ``reschedule``) follow the links.

*Replicas* (:data:`Work`; preallocated slots, a free list): queue, job,
``residual`` service time (time alone on that server: size times
``inv_speeds[pool, type]``), ``attained`` service (server time consumed: the
cost), current ``rate``, Rer/Rep threshold ``tau`` (the attained service at which
it fires; ``inf`` for none).

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
  per event, :func:`reschedule_bound`).

Each queue is updated lazily: :func:`advance` brings the residuals of its
running replicas to the current time, and :func:`reschedule` recomputes its rates
and its next event (``Queues.next``: the first completion, or a running replica
reaching its threshold). The next event overall is the earlier of the next arrival
and the smallest ``Queues.next``, kept in a tournament tree over the queues (O(log N)
per queue change, :func:`tree_fix`), or found by a scan per event where events change
many queues (``TREE_MIN_QUEUES``). PS costs O(jobs at the server) per event at
that server.

Events
------
The event loop, :func:`_simulate`, finds the next event and hands it to its
kernel; each kernel changes the state and says which queues it changed (in
``Work.dirty``), and the loop reschedules them once, at the end of the event (the
same result as right after each change: a queue is not advanced again at the same
time):

* :func:`on_arrival`: route the job (:func:`_route_one`, :func:`_route_fred`,
  :func:`_route_sampled`), then place it (:func:`_admit`);
* :func:`on_completion`: the job is done, its other replicas are cancelled (cut);
* :func:`on_task_done`: FJ, a task before the k-th leaves;
* :func:`on_threshold`: Rer restarts the job in the other pool, Rep replicates it.

A new event kind is a kernel and a branch of the loop: its own time source (as the
arrivals have ``t_arr``) or a new ``Queues.kind`` of a queue's next event (as
``THRESHOLD``), set by :func:`reschedule`.

The state is five records (named tuples of arrays and numbers): :data:`Setup`
(the model, read only), :data:`Queues`, :data:`Work` (replicas, jobs, the
placement scratch), :data:`Streams`, :data:`Stats`, made by :func:`records`. The
numbers every event may change travel by value, in :data:`Cursor` (the streams'
read positions, the free slots' counts): each kernel takes the cursor and returns
the new one, so they stay in registers (in arrays, as before, every event stored
and reloaded them: 0.86 of the first loop's throughput on ``ps_mm1``, 0.92 by
value, in the same run).

Why it is written this way (measured on the bench's event workloads, same run):

* the records are named tuples, and the loop and its kernels are compiled without
  numba's reference counting (``_nrt=False``): with it, a function that takes a
  record increments and decrements the count of every array in it (atomic
  operations, which LLVM's pruning leaves in): 20x slower; a mutable
  ``structref`` record instead: 5x slower (its fields are read through the
  runtime). The arrays are allocated by the entries (:func:`records`), which
  keep the counts;
* the kernels, the loop and :func:`records` are inlined by LLVM into each
  entry (numba's ``forceinline``): as calls, the records travel as hundreds of
  scalar arguments (0.4-0.6 of the throughput). Numba's own inlining
  (``inline="always"``) copies each kernel's IR at every call site and types the
  whole again: 82 s to compile the loop, against 55 s; LLVM's inlines code each
  kernel was compiled to once;
* one loop per variant (:func:`run`: FCFS or PS, a threshold policy or not, the
  PS bound systems, Hedge), each entry compiled on first use with its flags as
  constants, so LLVM drops the other variants' branches (where a kernel tests
  the flag the loop passes it, not the same setting read from ``su``:
  :func:`on_arrival`): the first entry costs the kernels' compilation, each
  further one about 5 s. With the allocation of the records (:func:`records`)
  in the same function, LLVM knows the arrays apart. Its throughput against the single function it replaced, workload by
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

Random numbers: as in :mod:`.fast`; Rer and Rep draw the second server (per
server queueing) at arrival iff the first replica's duration exceeds tau (it
then surely reaches tau: service is preemptive-resume), and always take two
sizes. Central queueing draws no server (the type, then the pool). Mixture: every
arrival's COUPLING uniform is ``cb[xi]``, at its SIZES value's index (the two
blocks are refilled together, :func:`_refill_for_arrival`); a coupled job (u < c)
gives every copy its first size, and reads from SIZES and SLOWDOWNS what an iid job
reads. Hedge keeps the flag with the job (``Work.hcoupled``): a coupled job's timer
copies take its X (after reading, and dropping, the SLOWDOWNS value an iid copy
takes then), the others their SLOWDOWNS draw.

Capacity: every array is preallocated; a full replica or job table stops
the run with ``stable = 0`` (``STOP_CAPACITY``), never a crash. Jobs still in
the system after the last arrival are run to completion (drained), so every
arrival is recorded, like the fast path.
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

#: replica slots of one replication: per server N times MIN_QCAP to MAX_QCAP, at most
#: REPLICA_SLOTS; central, two pools' CENTRAL_QCAP. Any one queue may hold them all
#: (a linked list); the PS rates 1/n are tabled up to the per-server figure.
REPLICA_SLOTS = 1 << 18
MIN_QCAP = 64
MAX_QCAP = 4096
CENTRAL_QCAP = 1 << 16
#: The earliest queue is kept in a tournament tree (O(log N) per change) unless an
#: event changes many queues against their number: with up to this many queues a
#: scan per event (:func:`earliest`) when a job places more than two replicas, and
#: in the bound systems (every queue changes at every event). One queue is read
#: directly. Chosen by measurement (benchmarks/event_sets.py: the tree fastest per
#: change; on the bench, the tree in place of the scan gave 1.1-1.3x with one or
#: two replicas at N = 50, 0.75-0.95x with 4 or 8, 0.64x in the bound systems).
TREE_MIN_QUEUES = 64

#: A piece of the event loop: inlined into it, without reference counts (the
#: module docstring says why).
event_part = kernel(nogil=True, _nrt=False, forceinline=True)

#: Hedge's bucket holds the tokens of this many jobs (at least one token): Finagle's
#: budget keeps a window of deposits, and a bucket of a hundred jobs lets a burst of
#: slow jobs hedge while the long-run share stays at most the budget
HEDGE_BUCKET_JOBS = 100.0

#: A cancelled replica with at most this share of its attained service left has
#: finished with the winner (identical copies that started together end together, up
#: to the rounding of their residuals): no cancellation delay, as in the fast path
DONE_TOLERANCE = 1e-9

#: what a queue's next event is (``Queues.kind``)
COMPLETION = 0
THRESHOLD = 1

#: The model, decoded once (read only).
Setup = namedtuple(
    "Setup",
    [
        "policy",
        "N",
        "d",
        "k",
        "early",
        "pools",
        "J",
        "dep",
        "central",
        "bound",
        "upper",
        "p_start",
        "p1",
        "tau0",
        "tau1",
        "resume",
        "rep",
        "speeds",
        "inv_speeds",
        "type_cdf",
        "alpha",
        "warmup",
        "cancel_delay",  # a cancelled copy in service keeps its server this long
        "hedge",  # Hedge: a copy every hdelay after the arrival, up to d
        "hdelay",
        "budget",  # Hedge's tokens per job (inf: no budget)
        "bcap",  # the bucket's capacity
    ],
)

#: The queues (one per server, or one per pool when central) and the event set
#: over their next events.
Queues = namedtuple(
    "Queues",
    [
        "count",  # Q
        "cap",  # replicas a queue may hold: every replica slot (:func:`_work`)
        "leaves",  # P: the tournament tree's leaves (0: a scan, or one queue)
        "servers",  # servers of a queue
        "head",  # its replicas in service order, a doubly linked list (``Work.nxt``,
        "tail",  # ``Work.prv``): the first, the last
        "hlast",  # and the last high priority one (-1: none)
        "nxt",  # per replica slot: the replica behind it in its queue (-1: none)
        "prv",  # and the one ahead of it
        "hi",  # whether it is a high priority replica
        "length",
        "high",  # the high priority replicas at its front
        "running",  # the replicas in service (the first running[q])
        "clock",  # the time its residuals are brought to
        "next",  # its next event's time
        "who",  # the replica of that event
        "kind",  # COMPLETION or THRESHOLD
        "tree",  # the tournament tree's winners
        "tval",  # their times
        "inv_n",  # 1 / n for n = 0 .. INV_N (PS rates; :func:`_inv`)
    ],
)

#: Replicas and jobs: preallocated slots with free lists, and the placement scratch.
Work = namedtuple(
    "Work",
    [
        "queue",
        "job",
        "residual",  # service time left alone on its server
        "attained",  # server time consumed
        "rate",
        "tau",  # the attained service at which its threshold fires
        "rfree",  # free replica slots: rfree[:Cursor.free_r]
        "number",  # the job's arrival number
        "arrived",
        "cost",  # server time of replicas already gone
        "nrep",
        "replicas",  # replicas[js, :nrep[js]] (-1: gone)
        "second_queue",  # Rer/Rep
        "second_duration",
        "need",  # FJ: completions still needed
        "jfree",  # free job slots: jfree[:Cursor.free_j]
        "perm",  # placement scratch: a permutation of the servers
        "srv",  # the queues of the replicas an arrival places
        "dur",  # and their service times
        "dirty",  # the queues an event changed
        "hsize",  # Hedge: the job's size X (before the server's speed)
        "jtype",  # and its type
        "hcoupled",  # and (mixture) whether it is coupled: its copies all take hsize
        "timer_t",  # Hedge's timers, a ring in time order: when
        "timer_j",  # the job slot
        "timer_n",  # and its arrival number (a timer of a job gone is skipped)
        "ring",  # [head, count] of the timers
        "tokens",  # [the budget's bucket]
    ],
)

#: The random streams, read in blocks, and where each is read (``at``).
Streams = namedtuple(
    "Streams",
    [
        "re",
        "ru",
        "rx",
        "rs",
        "rc",  # the coupling stream (mixture)
        "eb",
        "ub",
        "xb",
        "sb",
        "cb",  # its block: as long as xb, refilled with it, read at the sizes' position
        "xc",
        "sc",
        "x_params",
        "s_params",
        "coupling",  # the mixture's c (s_params[0]; -1.0 otherwise)
    ],
)

#: The statistics an event adds to.
Stats = namedtuple(
    "Stats",
    [
        "acc",
        "batches",
        "hist",
        "mon",
        "trace",
        "fbuf",
        "ibuf",
        "inv_batch",
        "scratch",
    ],
)
#: The numbers every event may change, carried through the loop by value (so they
#: live in registers, not in memory; each kernel returns the new cursor): the
#: read positions of the arrivals, routing, size and second-size streams' blocks,
#: and the counts of free replica and job slots.
Cursor = namedtuple("Cursor", ["e", "u", "x", "s", "free_r", "free_j"])


# ---------------------------------------------------------------- event set


@kernel(nogil=True, _nrt=False)
def tree_fix(tree, tval, P, q, v):
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


@kernel(nogil=True, _nrt=False)
def earliest(qnext, Q):
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
    q = 0
    while q + 4 <= Q and not ((qnext[q] == m) | (qnext[q + 1] == m) | (qnext[q + 2] == m) | (qnext[q + 3] == m)):
        q += 4
    while qnext[q] != m:
        q += 1
    return q


@event_part
def next_queue(qu):
    """(the queue with the earliest next event or -1, its time)."""
    if qu.leaves > 0:
        qmin = qu.tree[1]
        tq = qu.tval[1]
    elif qu.count == 1:
        qmin = 0
        tq = qu.next[0]
    else:
        qmin = earliest(qu.next, qu.count)
        tq = qu.next[qmin] if qmin >= 0 else np.inf
    if tq == np.inf:
        qmin = -1
    return qmin, tq


# ---------------------------------------------------------------- queue state


@event_part
def advance(qu, wk, q, t):
    """Bring the running replicas of queue q to time t."""
    qt = qu.clock
    dt = t - qt[q]
    if dt > 0.0:
        rres = wk.residual
        ratt = wk.attained
        rrate = wk.rate
        nxt = qu.nxt
        r = qu.head[q]
        for _k in range(qu.running[q]):
            a = rrate[r] * dt
            rres[r] -= a
            ratt[r] += a
            r = nxt[r]
    qt[q] = t


@event_part
def _append(qu, wk, q, r):
    """Put replica r at the back of queue q (room checked)."""
    t3 = qu.tail[q]
    qu.prv[r] = t3
    qu.nxt[r] = -1
    if t3 >= 0:
        qu.nxt[t3] = r
    else:
        qu.head[q] = r
    qu.tail[q] = r
    qu.length[q] += 1


@event_part
def _remove(qu, wk, q, r):
    """Take replica r out of queue q's service order (O(1): it is unlinked)."""
    p3 = qu.prv[r]
    n3 = qu.nxt[r]
    if p3 >= 0:
        qu.nxt[p3] = n3
    else:
        qu.head[q] = n3
    if n3 >= 0:
        qu.prv[n3] = p3
    else:
        qu.tail[q] = p3
    qu.length[q] -= 1
    if qu.hi[r]:  # the high ones are the front: the one ahead of it is high, or none
        qu.hi[r] = False
        qu.high[q] -= 1
        if qu.hlast[q] == r:
            qu.hlast[q] = p3


@event_part
def _insert_high(qu, wk, q, r):
    """Put replica r behind the high priority replicas of queue q (room checked)."""
    h3 = qu.hlast[q]
    if h3 >= 0:
        n3 = qu.nxt[h3]
        qu.nxt[h3] = r
    else:
        n3 = qu.head[q]
        qu.head[q] = r
    qu.prv[r] = h3
    qu.nxt[r] = n3
    if n3 >= 0:
        qu.prv[n3] = r
    else:
        qu.tail[q] = r
    qu.hlast[q] = r
    qu.hi[r] = True
    qu.high[q] += 1
    qu.length[q] += 1


@event_part
def _in_service(qu, wk, q, r):
    """Whether replica r of queue q is among its first ``running[q]`` (in service at its
    last reschedule): all of them (PS) at once, else a walk of at most ``running[q]``
    (the servers of an FCFS queue)."""
    m3 = qu.running[q]
    if m3 >= qu.length[q]:
        return True
    x = qu.head[q]
    for _k3 in range(m3):
        if x == r:
            return True
        x = qu.nxt[x]
    return False


@event_part
def _inv(qu, n):
    """1 / n (n = 0: inf), from the table when n is in it (the same division's bits)."""
    return qu.inv_n[n] if n < qu.inv_n.shape[0] else 1.0 / n


@event_part
def _orphan(qu, wk, q, r, delay):
    """Replica r, in service on queue q, is cancelled with a delay: it keeps its server
    for ``delay`` of service, belongs to no job (``job`` -1) and, at the front of the
    high priority replicas, is never preempted (:func:`on_orphan_done` frees it)."""
    _remove(qu, wk, q, r)
    _insert_high(qu, wk, q, r)  # room: it was just removed
    wk.job[r] = -1
    wk.residual[r] = delay
    wk.tau[r] = np.inf


@event_part
def reschedule(qu, wk, q, ps, threshold):
    """Queue q's rates and next event (its membership changed)."""
    nxt = qu.nxt
    rrate = wk.rate
    rres = wk.residual
    n3 = qu.length[q]
    if ps:  # all n at rate 1/n (n = 0: no replica reads it)
        m3 = n3
        rate = _inv(qu, n3)
    else:  # the first c in service at rate 1
        c3 = qu.servers[q]
        m3 = c3 if c3 < n3 else n3
        rate = 1.0
    qu.running[q] = m3
    # the rates and the earliest event in one pass
    best = np.inf
    who = -1
    kind = COMPLETION
    if threshold:
        rtau = wk.tau
        ratt = wk.attained
        r3 = qu.head[q]
        for _k3 in range(m3):
            rrate[r3] = rate
            c = rres[r3]
            kd = COMPLETION
            x = rtau[r3] - ratt[r3]
            if x < c:
                c = x
                kd = THRESHOLD
            if c < 0.0:
                c = 0.0
            if c < best:
                best = c
                who = r3
                kind = kd
            r3 = nxt[r3]
    else:  # every tau is inf: never the earliest
        r3 = qu.head[q]
        for _k3 in range(m3):
            rrate[r3] = rate
            c = rres[r3]
            if c < 0.0:
                c = 0.0
            if c < best:
                best = c
                who = r3
            r3 = nxt[r3]
    if ps and n3 > 0:
        best *= n3  # every replica at rate 1/n
    v = qu.clock[q] + best
    qu.next[q] = v
    qu.who[q] = who
    qu.kind[q] = kind
    if qu.leaves > 0:
        tree_fix(qu.tree, qu.tval, qu.leaves, q, v)


@event_part
def reschedule_bound(qu, wk, upper):
    """CoC's PS bound systems: every replica of a job at rate 1/min (lower) or
    1/max (upper) of the lengths of its job's queues, then every queue's next
    completion (the rates depend only on the queue lengths, fixed by now)."""
    nxt = qu.nxt
    qn = qu.length
    rq = wk.queue
    rjob = wk.job
    jrep = wk.replicas
    jnr = wk.nrep
    rrate = wk.rate
    rres = wk.residual
    for q3 in range(qu.count):
        n3 = qn[q3]
        qu.running[q3] = n3
        best = np.inf
        who = -1
        r3 = qu.head[q3]
        for _k3 in range(n3):
            js3 = rjob[r3]
            if upper:
                m3 = 0
                for i3 in range(jnr[js3]):
                    m3 = max(m3, qn[rq[jrep[js3, i3]]])
            else:
                m3 = qu.cap
                for i3 in range(jnr[js3]):
                    m3 = min(m3, qn[rq[jrep[js3, i3]]])
            rate = _inv(qu, m3)
            rrate[r3] = rate
            c = rres[r3]
            if c < 0.0:
                c = 0.0
            c = c / rate
            if c < best:
                best = c
                who = r3
            r3 = nxt[r3]
        v = qu.clock[q3] + best
        qu.next[q3] = v
        qu.who[q3] = who
        qu.kind[q3] = COMPLETION
        if qu.leaves > 0:
            tree_fix(qu.tree, qu.tval, qu.leaves, q3, v)


# ---------------------------------------------------------------- streams


@event_part
def _refill_for_arrival(st, dep, need_u, need_x, ui, xi, si):
    """The read positions (ui, xi, si), each stream's block refilled if an arrival
    could read past its end."""
    BU = st.ub.shape[0]
    BX = st.xb.shape[0]
    if ui > BU - need_u:
        ui = refill_uniform(st.ru, st.ub, ui)
    if xi > BX - need_x:
        if dep == MIXTURE_CODE:  # the coupling block, at the sizes' position (the same shift)
            refill_uniform(st.rc, st.cb, xi)
        xi = refill_family(st.xc, st.x_params, st.rx, st.xb, xi)
    if dep == SX_CODE and si > BX - need_x:
        si = refill_family(st.sc, st.s_params, st.rs, st.sb, si)
    elif (dep == IID_CODE or dep == MIXTURE_CODE) and si > BX - need_x:
        si = refill_family(st.xc, st.x_params, st.rs, st.sb, si)
    return ui, xi, si


@event_part
def _own_sizes(su, st, xi):
    """Whether the arriving job's replicas after the first take their own sizes from the
    second size stream: iid, and the mixture's jobs that are not coupled (the job's
    coupling uniform, ``cb[xi]`` at its size's index, not below c)."""
    if su.dep == MIXTURE_CODE:
        return not st.cb[xi] < st.coupling
    return su.dep == IID_CODE


@event_part
def _size(st, j, v):
    """A type-``j`` job's size from the value ``v`` of a size stream (the value itself
    but for a law per job type: :func:`~straggler.model.distributions.sampling.size_of_type`)."""
    return size_of_type(st.xc, st.x_params, j, v)


@event_part
def next_exponential(st, cur):
    """The next standard exponential of the arrivals stream: (it, the cursor after)."""
    e = cur.e
    if e >= st.eb.shape[0]:
        e = refill_exponential(st.re, st.eb, e)
    return st.eb[e], Cursor(e + 1, cur.u, cur.x, cur.s, cur.free_r, cur.free_j)


# ---------------------------------------------------------------- routing


@event_part
def _job_type(su, st, cur):
    """The arriving job's type (one type: 0), from the arrivals stream: (it, the
    cursor after)."""
    j = 0
    if su.J > 1:  # a uniform, 1 - exp(-e)
        v, cur = next_exponential(st, cur)
        ut = -np.expm1(-v)
        while j < su.J - 1 and ut >= su.type_cdf[j]:
            j += 1
    return j, cur


@event_part
def _idle(qu, central, q):
    return qu.length[q] < qu.servers[q] if central else qu.length[q] == 0


@event_part
def _route_fred(su, qu, st, stats, measured, j, srv, dur, ui, xi, si):
    """FRed: one replica in each pool. Returns the replicas placed and the new
    read positions."""
    ub = st.ub
    if su.central:
        srv[0] = 0
        srv[1] = 1
    else:
        srv[0] = int(ub[ui] * su.p1)
        srv[1] = su.p1 + int(ub[ui + 1] * (su.N - su.p1))
        ui += 2
    if measured:
        for r in range(2):
            S.see(stats.acc, r, _idle(qu, su.central, srv[r]))
    x = _size(st, j, st.xb[xi])
    own = _own_sizes(su, st, xi)
    for r in range(2):
        if own and r > 0:
            x = _size(st, j, st.sb[si])
        du = x * su.inv_speeds[r, j]
        if su.dep == SX_CODE:
            du *= st.sb[si + r]
        dur[r] = du
    xi += 1
    if su.dep == IID_CODE or su.dep == MIXTURE_CODE:
        si += 1
    elif su.dep == SX_CODE:
        si += 2
    return 2, ui, xi, si


@event_part
def _route_sampled(su, qu, st, stats, measured, j, perm, srv, dur, ui, xi, si):
    """CoC, CoS, RIQ, FJ: d distinct servers, then the replicas that run (CoC all
    d; CoS, RIQ and FJ, on PS, where every replica starts when it joins).
    Returns the replicas placed and the new read positions."""
    d = su.d
    ui = distinct_servers(perm, su.N, d, srv, st.ub, ui)
    qn = qu.length
    if measured:
        for i in range(d):
            S.see(stats.acc, 0 if srv[i] < su.p1 else 1, qn[srv[i]] == 0)
    nr = d
    policy = su.policy
    if policy == policies.FJ_CODE:
        nr = su.k if su.early else d
    elif policy == policies.RIQ_CODE:
        nr = 0
        for i in range(d):
            s = srv[i]
            if qn[s] == 0:
                srv[nr] = s
                nr += 1
        if nr == 0:
            nr = 1
    elif policy == policies.COS_CODE:
        nr = 1
    x0 = _size(st, j, st.xb[xi])
    x = x0
    own = _own_sizes(su, st, xi)
    for r in range(nr):
        if own:
            x = x0 if r == 0 else _size(st, j, st.sb[si + r - 1])
        du = x * su.inv_speeds[0 if srv[r] < su.p1 else 1, j]
        if su.dep == SX_CODE:
            du *= st.sb[si + r]
        dur[r] = du
    # every job takes d replica sizes, whichever run (common random numbers)
    xi += 1
    if su.dep == IID_CODE or su.dep == MIXTURE_CODE:
        si += d - 1
    elif su.dep == SX_CODE:
        si += d
    return nr, ui, xi, si


@event_part
def _route_one(su, qu, st, stats, measured, j, srv, dur, threshold, ui, xi, si):
    """ZRed, KT, Rer, Rep: a pool, then a server (or the pool's queue). Returns
    (its threshold, the second replica's queue, its service time) and the new
    read positions."""
    ub = st.ub
    i = 0
    if su.pools == 2:
        if ub[ui] >= su.alpha[0, j]:
            i = 1
        ui += 1
    if su.central:
        srv[0] = i
    else:
        lo = su.p_start[i]
        srv[0] = lo + int(ub[ui] * (su.p_start[i + 1] - lo))
        ui += 1
    if measured:
        S.see(stats.acc, i, _idle(qu, su.central, srv[0]))
    rt = np.inf
    q2 = -1
    d2 = 0.0
    if threshold:
        if su.dep == IID_CODE:
            x0 = _size(st, j, st.xb[xi])
            x1 = _size(st, j, st.sb[si])
            xi += 1
            si += 1
        elif su.dep == IDENTICAL_CODE:
            x0 = _size(st, j, st.xb[xi])
            x1 = x0
            xi += 1
        elif su.dep == MIXTURE_CODE:  # coupled: as identical, else as iid; one value of each
            x0 = _size(st, j, st.xb[xi])
            x1 = _size(st, j, st.sb[si]) if _own_sizes(su, st, xi) else x0
            xi += 1
            si += 1
        else:
            x = _size(st, j, st.xb[xi])
            xi += 1
            x0 = x * st.sb[si]
            x1 = x * st.sb[si + 1]
            si += 2
        du = x0 * su.inv_speeds[i, j]
        tau = su.tau0 if i == 0 else su.tau1
        if du > tau:
            rt = tau
            l = 1 - i
            if su.central:
                q2 = l
            else:
                lo = su.p_start[l]
                q2 = lo + int(ub[ui] * (su.p_start[l + 1] - lo))
                ui += 1
            if su.resume != 0 and not su.rep:
                d2 = (x0 - tau * su.speeds[i, j]) * su.inv_speeds[l, j]
            else:
                d2 = x1 * su.inv_speeds[l, j]
    else:
        du = _size(st, j, st.xb[xi]) * su.inv_speeds[i, j]
        xi += 1
        if su.dep == SX_CODE:
            du *= st.sb[si]
            si += 1
    dur[0] = du
    return rt, q2, d2, ui, xi, si


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
        _append(qu, wk, q, r)
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
            _append(qu, wk, q, r)
            wk.queue[r] = q
            wk.attained[r] = 0.0
            wk.rate[r] = 0.0
            _orphan(qu, wk, q, r, su.cancel_delay)
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
    ui, xi, si = _refill_for_arrival(st, su.dep, 2 + R, R, cur.u, cur.x, cur.s)
    j, cur = _job_type(su, st, cur)
    measured = n >= su.warmup
    need = 1
    q2 = -1
    d2 = 0.0
    rt = np.inf
    policy = su.policy
    x0 = _size(st, j, st.xb[xi]) if hedge else 0.0  # the job's X, which identical hedges copy
    # (mixture) and whether it is coupled, so that its hedges copy X too
    coupled = hedge and su.dep == MIXTURE_CODE and not _own_sizes(su, st, xi)
    if policy == policies.FRED_CODE:
        nr, ui, xi, si = _route_fred(su, qu, st, stats, measured, j, srv, dur, ui, xi, si)
    elif (
        policy == policies.COC_CODE
        or policy == policies.COS_CODE
        or policy == policies.RIQ_CODE
        or policy == policies.FJ_CODE
    ):
        nr, ui, xi, si = _route_sampled(su, qu, st, stats, measured, j, perm, srv, dur, ui, xi, si)
        if policy == policies.FJ_CODE:
            need = su.k
    else:
        nr = 1
        rt, q2, d2, ui, xi, si = _route_one(su, qu, st, stats, measured, j, srv, dur, threshold, ui, xi, si)
    nd, free_r, free_j = _admit(su, qu, wk, t, n, nr, need, q2, d2, rt, cur.free_r, cur.free_j, ps, bound)
    if hedge and nd >= 0:
        js = wk.jfree[free_j]  # the slot the job took
        wk.hsize[js] = x0
        wk.jtype[js] = j
        if su.dep == MIXTURE_CODE:
            wk.hcoupled[js] = coupled
        if su.budget < np.inf:
            wk.tokens[0] = min(su.bcap, wk.tokens[0] + su.budget)
        if su.d > 1 and su.hdelay < np.inf and su.budget > 0.0 and not _timer_push(wk, t + su.hdelay, js, n):
            nd = -1
    return nd, Cursor(cur.e, ui, xi, si, free_r, free_j)


@event_part
def on_task_done(qu, wk, q, r, js, cur):
    """FJ: a task completes before the k-th; it leaves. Returns the queues changed
    and the cursor after it."""
    dirty = wk.dirty
    wk.need[js] -= 1
    wk.cost[js] += wk.attained[r]
    _remove(qu, wk, q, r)
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
    server ``cancel_delay`` longer (:func:`_orphan`; one within a billionth of its end
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
            and _in_service(qu, wk, q2, r2)
        ):
            cost += delay
            _orphan(qu, wk, q2, r2, delay)
        else:
            _remove(qu, wk, q2, r2)
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
    _remove(qu, wk, q, r)
    wk.rfree[cur.free_r] = r
    wk.dirty[0] = q
    return 1, Cursor(cur.e, cur.u, cur.x, cur.s, cur.free_r + 1, cur.free_j)


# ---------------------------------------------------------------- hedges


@kernel(nogil=True, _nrt=False)
def _timer_compact(wk):
    """Drop the timers of jobs gone (rare: when the ring is full), keeping the order."""
    ring = wk.ring
    TC = wk.timer_t.shape[0]
    head = ring[0]
    w = 0
    for k in range(ring[1]):
        i = head + k
        if i >= TC:
            i -= TC
        js = wk.timer_j[i]
        if wk.number[js] == wk.timer_n[i] and wk.nrep[js] > 0:
            o = head + w
            if o >= TC:
                o -= TC
            wk.timer_t[o] = wk.timer_t[i]
            wk.timer_j[o] = js
            wk.timer_n[o] = wk.timer_n[i]
            w += 1
    ring[1] = w


@event_part
def _timer_push(wk, t, js, n):
    """Arm a timer of job slot js (arrival number n) at t, behind the others (timers
    are armed at event times plus one delay, so the ring stays in time order); False
    when the ring is full of live timers."""
    ring = wk.ring
    TC = wk.timer_t.shape[0]
    if ring[1] == TC:
        _timer_compact(wk)
        if ring[1] == TC:
            return False
    i = ring[0] + ring[1]
    if i >= TC:
        i -= TC
    wk.timer_t[i] = t
    wk.timer_j[i] = js
    wk.timer_n[i] = n
    ring[1] += 1
    return True


@event_part
def _next_timer(wk):
    """The time of the earliest timer (inf: none)."""
    if wk.ring[1] == 0:
        return np.inf
    return wk.timer_t[wk.ring[0]]


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
    x = wk.hsize[js]
    si = cur.s
    if su.dep == IID_CODE or su.dep == MIXTURE_CODE:
        if si >= st.sb.shape[0]:
            si = refill_family(st.xc, st.x_params, st.rs, st.sb, si)
        if not (su.dep == MIXTURE_CODE and wk.hcoupled[js]):
            x = _size(st, j, st.sb[si])
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
    _append(qu, wk, s, r)
    wk.queue[r] = s
    wk.job[r] = js
    wk.residual[r] = du
    wk.attained[r] = 0.0
    wk.rate[r] = 0.0
    wk.tau[r] = np.inf
    wk.replicas[js, c] = r
    wk.nrep[js] = c + 1
    if c + 1 < su.d and not _timer_push(wk, t + su.hdelay, js, nn):
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
    _remove(qu, wk, q, r)
    if su.rep:
        _insert_high(qu, wk, q, r)  # room: it was just removed
    else:
        # the killed service joins the job's cost, which enters the work done
        # once, when the job completes
        wk.cost[js] += wk.attained[r]
        if su.cancel_delay > 0.0:  # the kill keeps its server a while
            wk.cost[js] += su.cancel_delay
            _append(qu, wk, q, r)  # back in (room: it was just removed), then to the front
            _orphan(qu, wk, q, r, su.cancel_delay)
        else:
            wk.rfree[free_r] = r
            free_r += 1
        wk.replicas[js, 0] = -1
    cur = Cursor(cur.e, cur.u, cur.x, cur.s, free_r, cur.free_j)
    n3 = qu.length[q2]
    if n3 >= qu.cap:
        return -1, cur
    if su.rep:
        _insert_high(qu, wk, q2, r2)
    else:
        _append(qu, wk, q2, r2)
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


# ---------------------------------------------------------------- set up


@kernel(nogil=True)
def _setup(ints, flts, speeds, inv_speeds, type_cdf, alpha, warmup):
    policy = ints[E.I_POLICY]
    p_start = ints[E.I_POOL0 : E.I_POOL2 + 1].copy()
    return Setup(
        policy,
        ints[E.I_N],
        ints[E.I_D],
        ints[E.I_K],
        ints[E.I_EARLY] != 0,
        ints[E.I_POOLS],
        ints[E.I_J],
        ints[E.I_DEP],
        ints[E.I_QUEUEING] == E.CENTRAL,
        ints[E.I_PS_BOUND] != E.BOUND_NONE,
        ints[E.I_PS_BOUND] == E.BOUND_UPPER,
        p_start,
        p_start[1],
        flts[E.F_TAU0],
        flts[E.F_TAU1],
        ints[E.I_RESUME],
        policy == policies.REP_CODE,
        speeds,
        inv_speeds,
        type_cdf,
        alpha,
        warmup,
        flts[E.F_CANCEL_DELAY],
        policy == policies.HEDGE_CODE,
        flts[E.F_POLICY],
        flts[E.F_POLICY + 1],
        max(1.0, HEDGE_BUCKET_JOBS * flts[E.F_POLICY + 1]),
    )


@kernel(nogil=True)
def _queues(su):
    if su.central:
        Q = su.pools
        qcap = CENTRAL_QCAP
    else:
        Q = su.N
        qcap = min(MAX_QCAP, max(MIN_QCAP, REPLICA_SLOTS // su.N))
    qc = np.ones(Q, dtype=np.int64)
    if su.central:
        for i in range(su.pools):
            qc[i] = su.p_start[i + 1] - su.p_start[i]
    P = 0
    if not su.bound and (Q > TREE_MIN_QUEUES or (Q > 1 and su.d <= 2)):
        P = 1
        while P < Q:
            P *= 2
    tree = np.empty(2 * P, dtype=np.int64)
    for i in range(P):
        tree[P + i] = i
    for k in range(P - 1, 0, -1):
        tree[k] = tree[2 * k]
    inv_n = np.empty(qcap + 1)
    inv_n[0] = np.inf
    for i in range(1, qcap + 1):
        inv_n[i] = 1.0 / i
    # the replica slots (:func:`_work`): a queue may hold them all
    slots = min(Q * qcap, REPLICA_SLOTS if not su.central else 2 * CENTRAL_QCAP)
    return Queues(
        Q,
        slots,
        P,
        qc,
        np.full(Q, -1, dtype=np.int64),
        np.full(Q, -1, dtype=np.int64),
        np.full(Q, -1, dtype=np.int64),
        np.empty(slots, dtype=np.int64),
        np.empty(slots, dtype=np.int64),
        np.zeros(slots, dtype=np.bool_),
        np.zeros(Q, dtype=np.int64),
        np.zeros(Q, dtype=np.int64),
        np.zeros(Q, dtype=np.int64),
        np.zeros(Q),
        np.full(max(P, Q), np.inf),  # padded to P (the padding: inf)
        np.full(Q, -1, dtype=np.int64),
        np.zeros(Q, dtype=np.int64),
        tree,
        np.full(2 * P, np.inf),
        inv_n,
    )


@kernel(nogil=True)
def _work(su, qu):
    d = su.d
    R = max(d, 2)
    RC = qu.cap
    JC = max(16, RC // (d if d > 1 else 1))
    H = JC if su.hedge else 1  # the hedge's per-job arrays
    TC = 2 * JC if su.hedge else 1  # its timers: one live a job, the rest gone (compacted when full)
    return Work(
        np.empty(RC, dtype=np.int64),
        np.empty(RC, dtype=np.int64),
        np.empty(RC),
        np.empty(RC),
        np.zeros(RC),
        np.empty(RC),
        np.arange(RC - 1, -1, -1),
        np.empty(JC, dtype=np.int64),
        np.empty(JC),
        np.empty(JC),
        np.zeros(JC, dtype=np.int64),
        np.empty((JC, R), dtype=np.int64),
        np.empty(JC, dtype=np.int64),
        np.empty(JC),
        np.ones(JC, dtype=np.int64),
        np.arange(JC - 1, -1, -1),
        np.arange(su.N),
        np.empty(R, dtype=np.int64),
        np.empty(R),
        np.empty(R + 2, dtype=np.int64),
        np.empty(H),
        np.zeros(H, dtype=np.int64),
        np.zeros(H if su.dep == MIXTURE_CODE else 1, dtype=np.bool_),
        np.empty(TC),
        np.empty(TC, dtype=np.int64),
        np.empty(TC, dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.zeros(1),
    )


@kernel(nogil=True)
def _streams(su, ints, x_params, s_params, rngs):
    R = max(su.d, 2)
    BE = block_size(1)
    BU = block_size(2 + R)
    BX = block_size(R)
    mix = su.dep == MIXTURE_CODE
    # the second size stream: slowdowns (sx) or the replicas after the first (iid, mixture);
    # the coupling block (mixture) as long as the sizes' block
    return Streams(
        rngs[0],
        rngs[1],
        rngs[2],
        rngs[3],
        rngs[4],
        np.empty(BE),
        np.empty(BU),
        np.empty(BX),
        np.empty(BX if su.dep == SX_CODE or su.dep == IID_CODE or mix else 1),
        np.empty(BX if mix else 1),
        ints[E.I_XCODE],
        ints[E.I_SCODE],
        x_params,
        s_params,
        s_params[0] if mix else -1.0,
    )


@kernel(nogil=True)
def _stats(su, acc, batches, hist, mon, trace, jobs):
    fbuf = np.empty(1)
    return Stats(
        acc, batches, hist, mon, trace, fbuf, fbuf.view(np.int64), S.N_BATCHES / max(jobs, 1), np.empty(max(su.N, 1))
    )


# ---------------------------------------------------------------- the kernel


@kernel(nogil=True, forceinline=True)
def records(*contract):
    """The kernel contract's arguments as the event loop's records and settings."""
    ints, flts, speeds, inv_speeds, type_cdf, alpha, x_params, s_params, lam, warmup, jobs = contract[:11]
    out, rngs = contract[11:]
    acc, batches, hist, mon, trace = out
    su = _setup(ints, flts, speeds, inv_speeds, type_cdf, alpha, warmup)
    qu = _queues(su)
    wk = _work(su, qu)
    st = _streams(su, ints, x_params, s_params, rngs)
    stats = _stats(su, acc, batches, hist, mon, trace, jobs)
    cur = start_cursor(wk, st)
    return su, qu, wk, st, stats, cur, lam, warmup + jobs, ints[E.I_CHECK], flts[E.F_MONITOR_WAIT]


@event_part
def start_cursor(wk, st):
    """The cursor before the first event: every slot free, every block read to its
    end (the first read refills it)."""
    BX = st.xb.shape[0]
    return Cursor(st.eb.shape[0], st.ub.shape[0], BX, BX, wk.rfree.shape[0], wk.jfree.shape[0])


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
    """Simulate one replication (kernel contract of :mod:`.fast`): the loop's variant
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
    if total > 0:
        v, cur = next_exponential(st, cur)
        t_arr = v * inv_lam
    while True:
        qmin, tq = next_queue(qu)
        timer = False
        th = np.inf
        if hedge:
            th = _next_timer(wk)
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
