"""The event engine's state (:mod:`.events` runs the events on it): its five records
and the cursor, the queues as doubly linked lists with their service rates and next
events, the event set over those (a tournament tree, or a scan), Hedge's ring of
timers, and the records' allocation from the kernel contract's arguments
(:func:`records`).

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
The state is five records (named tuples of arrays and numbers): :data:`Setup`
(the model, read only), :data:`Queues`, :data:`Work` (replicas, jobs, the
placement scratch), :data:`Streams`, :data:`Stats`, made by :func:`records`. The
numbers every event may change travel by value, in :data:`Cursor` (the streams'
read positions, the free slots' counts): each kernel takes the cursor and returns
the new one, so they stay in registers (in arrays, as before, every event stored
and reloaded them: 0.86 of the first loop's throughput on ``ps_mm1``, 0.92 by
value, in the same run).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.kernel_cache import kernel
from ...model import policies
from ...model.dependence import IID_CODE, MIXTURE_CODE, PAIRS_CODE, SX_CODE
from . import encode as E
from . import statistics as S
from .streams import block_size

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
#: docstring of :mod:`.events` says why).
event_part = kernel(nogil=True, _nrt=False, forceinline=True)

#: Hedge's bucket holds the tokens of this many jobs (at least one token): Finagle's
#: budget keeps a window of deposits, and a bucket of a hundred jobs lets a burst of
#: slow jobs hedge while the long-run share stays at most the budget
HEDGE_BUCKET_JOBS = 100.0

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
        "workloads",  # the servers' work at t = 0 (an empty or an equilibrium start), then at the last arrival
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
def append(qu, wk, q, r):
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
def remove(qu, wk, q, r):
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
def insert_high(qu, wk, q, r):
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
def in_service(qu, wk, q, r):
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
def orphan(qu, wk, q, r, delay):
    """Replica r, in service on queue q, is cancelled with a delay: it keeps its server
    for ``delay`` of service, belongs to no job (``job`` -1) and, at the front of the
    high priority replicas, is never preempted (:func:`.events.on_orphan_done` frees it)."""
    remove(qu, wk, q, r)
    insert_high(qu, wk, q, r)  # room: it was just removed
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


# ---------------------------------------------------------------- Hedge's timers


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
def timer_push(wk, t, js, n):
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
def next_timer(wk):
    """The time of the earliest timer (inf: none)."""
    if wk.ring[1] == 0:
        return np.inf
    return wk.timer_t[wk.ring[0]]


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
        np.empty(BX if su.dep == SX_CODE or su.dep == IID_CODE or su.dep == PAIRS_CODE or mix else 1),
        np.empty(BX if mix else 1),
        ints[E.I_XCODE],
        ints[E.I_SCODE],
        x_params,
        s_params,
        s_params[0] if mix else -1.0,
    )


@kernel(nogil=True)
def _stats(su, acc, batches, hist, mon, trace, workloads, jobs):
    fbuf = np.empty(1)
    return Stats(
        acc,
        batches,
        hist,
        mon,
        trace,
        fbuf,
        fbuf.view(np.int64),
        S.N_BATCHES / max(jobs, 1),
        np.empty(max(su.N, 1)),
        workloads,
    )


# ---------------------------------------------------------------- the records


@kernel(nogil=True, forceinline=True)
def records(*contract):
    """The kernel contract's arguments as the event loop's records and settings."""
    ints, flts, speeds, inv_speeds, type_cdf, alpha, x_params, s_params, lam, warmup, jobs = contract[:11]
    out, rngs = contract[11:]
    acc, batches, hist, mon, trace, workloads = out
    su = _setup(ints, flts, speeds, inv_speeds, type_cdf, alpha, warmup)
    qu = _queues(su)
    wk = _work(su, qu)
    st = _streams(su, ints, x_params, s_params, rngs)
    stats = _stats(su, acc, batches, hist, mon, trace, workloads, jobs)
    cur = start_cursor(wk, st)
    return su, qu, wk, st, stats, cur, lam, warmup + jobs, ints[E.I_CHECK], flts[E.F_MONITOR_WAIT]


@event_part
def start_cursor(wk, st):
    """The cursor before the first event: every slot free, every block read to its
    end (the first read refills it)."""
    BX = st.xb.shape[0]
    return Cursor(st.eb.shape[0], st.ub.shape[0], BX, BX, wk.rfree.shape[0], wk.jfree.shape[0])
