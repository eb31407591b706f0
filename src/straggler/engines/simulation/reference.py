"""A slow, event-driven, pure-Python simulator of the per-server policies (FCFS and PS).

One idea, ~860 lines: the literal simulation the kernels are checked against, not split.
The FCFS simulator (:class:`ReferenceSimulator`, against :mod:`.fast`) and the PS one
(:class:`PSReferenceSimulator`, against :mod:`.events`) share the job and replica records,
the reading of the random streams in the contract's order (:func:`_replica_sizes`), Hedge's
rules (:class:`_Hedging`) and the semantics stated once below (cancellation delay, Hedge);
apart, each would import the other's half. :func:`make_model` (a
:class:`~straggler.model.cell_model.CellModel` without a config, for the tests and
benchmarks that compare the engines with this reference) is the one helper of another kind.

It exists to check the kernels: it keeps explicit FIFO queues, a busy replica per
server and an event list (arrivals, replica completions, Rer's kill after tau,
Hedge's timers, the end of a cancellation delay), and implements each policy's
rules literally (cancel a running replica by aborting it, a waiting one by
dropping it from its queue), instead of the workload recursion of :mod:`.fast`.
It reads the random streams of :mod:`.streams` one value at a time, in the order
of the random-number contract of :mod:`.contract`, so with the same seed the two see
the same jobs, and their latencies and costs can be compared job by job. Mixture
(:func:`_replica_sizes`): a job reads its COUPLING uniform when it takes its sizes,
then the sizes an iid job takes, and keeps the first for every replica if coupled.

:class:`PSReferenceSimulator` does the same for processor-sharing servers
(every policy, with the semantics of :mod:`.events`), checking the event engine.

Cancellation delay (``enc.cancel_delay``, cd): a replica cancelled while *in
service* (cancel on complete; CoS and FJ cancelling on start: the replicas that
started at the same instant as the kept ones but were not kept; Rer's kill; Rep's
other copy under PS; Hedge's copies) stays on its server as a cancelled copy with
cd of work left: FCFS, the server takes its next replica only cd later; PS, it
keeps sharing the server until cd of work is done. Its cost counts the service it
had plus cd, the job's latency does not change. A replica still waiting is dropped
at once. As in :mod:`.fast`, a replica that finishes at the instant its job
completes (identical copies started together) has completed, not been cancelled,
and one that had no service when it is cancelled (it would start, or join a PS
server, at that very instant) never runs: it is dropped, at no cost, whatever the
order in which the events of that instant are handled (with deterministic sizes a
server may be freed, or Hedge's timer launch a copy, exactly when the job
completes). The exceptions are explicit: CoS's and FJ's copies cancelled on start,
and Rer's kill (also at tau = 0), hold their servers cd.

Hedge (:data:`~straggler.model.policies.HEDGE_CODE`; delay and budget b in
``flts[F_POLICY]``, ``flts[F_POLICY + 1]``): at arrival one copy, routed and sized
as ZRed's (the pool by alpha with two pools, a server of it; one value of SIZES
through ``size_of_type``, times the next SLOWDOWNS value under sx), nothing else
drawn; with b finite the token bucket gets ``tokens = min(cap, tokens + b)``, cap
``max(1, 100 b)``, from 0. With d > 1 and a finite delay a timer fires at arrival +
delay: if the job is not done and (b infinite or tokens >= 1; else it hedges no
more) a copy (tokens -= 1) joins, at the timer's time, a server: with two pools, as
the job's second copy with two pools whose speeds differ for its type, a server of
the other pool (one ROUTING uniform, ``start + int(u n_other)``); otherwise the ``int(u (N - c))``-th (0-based, in server order) of
the N - c servers without one of its c copies. Its size: identical, the job's X;
iid, ``size_of_type`` of the next SLOWDOWNS value; sx, X times the next SLOWDOWNS
value (duration: size times ``inv_speeds``); mixture, the job reads its COUPLING
uniform u at arrival, and a copy reads the next SLOWDOWNS value as under iid but
takes the job's X if the job is coupled (u < c). While the job has fewer than d copies
the timer is armed again a delay later. At one instant an arrival comes before a
timer, which comes before a completion (delay 0: all d copies at arrival). The
first copy to finish completes the job, the others are cancelled; its copies are
the copies launched. These ROUTING and SLOWDOWNS values are read when the timer
fires, so their position in the streams depends on the order of events.

Only for small runs (a few thousand jobs): ``simulate_reference(enc, lam, n, rngs)``
returns the per-job latency and cost arrays (job order = arrival order); after
``run`` a simulator's ``copies`` holds the copies each job launched.
"""

from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np

from ...model import policies
from ...model.dependence import IDENTICAL_CODE, IID_CODE, MIXTURE_CODE, SX_CODE
from ...model.distributions.sampling import size_of_type
from . import encode as E
from .streams import PyStreams

_size_of_type_py = size_of_type.py_func

ARRIVAL, COMPLETE, KILL, DECIDE, RELEASE, TIMER = 0, 1, 2, 3, 4, 5

#: Hedge's bucket holds the tokens of this many jobs (at least one token)
HEDGE_BUCKET_JOBS = 100.0

#: PS: a cancelled replica with at most this share of its attained service left has
#: finished with the winner (identical copies that started together end together, up
#: to the rounding of their residuals): no cancellation delay (the event engine's rule)
PS_DONE_TOLERANCE = 1e-9


class _Job:
    __slots__ = (
        "idx",
        "t",
        "type",
        "sizes",
        "replicas",
        "k",
        "keep",
        "completed",
        "started",
        "pending",
        "done",
        "cost",
        "finish",
        "rer_server",
        "rer_dur",
        "rer_tau",
        "copies",
        "x",
        "servers",
        "coupled",
    )

    def __init__(self, idx, t, jtype):
        self.idx = idx
        self.t = t
        self.type = jtype
        self.sizes = []
        self.replicas = []
        self.k = 1
        self.keep = 1
        self.pending = []
        self.completed = 0
        self.started = 0
        self.done = False
        self.cost = 0.0
        self.finish = -math.inf
        self.rer_server = -1
        self.copies = 0  # the copies launched (sent to a server, whether they ran or not)
        self.x = 0.0  # Hedge: the job's X (identical hedges copy it)
        self.servers = []  # Hedge: the servers of its copies, in launch order
        self.coupled = False  # Hedge, mixture: its copies all take x


class _Replica:
    __slots__ = ("job", "server", "dur", "start", "state", "first_run")

    def __init__(self, job, server, dur):
        self.job = job
        self.server = server
        self.dur = dur  # None: taken from job.sizes when it starts (CoS, FJ cancelling on start)
        self.start = None
        self.state = "waiting"  # waiting | running | done | cancelled
        self.first_run = False  # Rer: the run that may be killed after tau


def _size_of_type(enc, jtype, x):
    """A type-``jtype`` job's size from the value ``x`` of its size stream: the
    kernels' :func:`~straggler.model.distributions.sampling.size_of_type` (its Python
    function, which calls the same numba quantile functions): ``x`` itself but for
    a law per job type, whose streams hold uniforms."""
    return _size_of_type_py(int(enc.ints[E.I_XCODE]), enc.x_params, jtype, x)


def _replica_sizes(enc, n, streams, jtype):
    """The first ``n`` of the type-``jtype`` job's replica sizes (the contract of
    :mod:`.contract`: every job takes the sizes of all the replicas its policy may place,
    whichever run, so that policies compared on one workload see the same sizes).
    Each value of X read is turned into the type's size (:func:`_size_of_type`);
    a slowdown S is not. Mixture: the job's COUPLING uniform u first; below c
    (``s_params[0]``) every replica is the first's size, else as iid; the SIZES and
    SLOWDOWNS values are those of iid either way."""
    dep = int(enc.ints[E.I_DEP])
    every = E.replicas_per_job(enc)
    if dep == MIXTURE_CODE:
        coupled = streams.coupling() < float(enc.s_params[0])
        sizes = [streams.size()] + [streams.extra_size() for _ in range(every - 1)]
        if coupled:
            sizes = [sizes[0]] * every
        return [_size_of_type(enc, jtype, x) for x in sizes[:n]]
    if dep == IDENTICAL_CODE:
        x = _size_of_type(enc, jtype, streams.size())
        return [x] * n
    if dep == IID_CODE:
        sizes = [streams.size()] + [streams.extra_size() for _ in range(every - 1)]
        return [_size_of_type(enc, jtype, x) for x in sizes[:n]]
    x = _size_of_type(enc, jtype, streams.size())
    return [x * streams.slowdown() for _ in range(every)][:n]


class _Hedging:
    """Hedge's rules, shared by the FCFS and PS references: the first copy at arrival,
    the token bucket, and the copy a timer launches (see the module docstring)."""

    def _hedge_setup(self):
        enc = self.enc
        self.hedge = self.ints[E.I_POLICY] == policies.HEDGE_CODE
        self.h_delay = float(enc.flts[E.F_POLICY])
        self.h_budget = float(enc.flts[E.F_POLICY + 1])
        self.h_cap = max(1.0, HEDGE_BUCKET_JOBS * self.h_budget)
        self.tokens = 0.0

    def _hedge_first(self, job):
        """The job's first copy, ``(server, duration)``, routed and sized as ZRed's; the
        arrival's tokens go into the bucket (the caller arms the timer, if
        :meth:`_hedge_armed`)."""
        enc, ints, streams = self.enc, self.ints, self.streams
        jtype = job.type
        pool = 0
        if ints[E.I_POOLS] == 2:
            pool = 0 if streams.uniform() < enc.alpha[0, jtype] else 1
        lo, hi = ints[E.I_POOL0 + pool], ints[E.I_POOL0 + pool + 1]
        s = lo + int(streams.uniform() * (hi - lo))
        if ints[E.I_DEP] == MIXTURE_CODE:  # its coupling uniform: coupled, its hedges copy x
            job.coupled = streams.coupling() < float(enc.s_params[0])
        job.x = _size_of_type(enc, jtype, streams.size())
        du = job.x * enc.inv_speeds[pool, jtype]
        if ints[E.I_DEP] == SX_CODE:
            du *= streams.slowdown()
        job.copies = 1
        job.servers = [s]
        if math.isfinite(self.h_budget):
            self.tokens = min(self.h_cap, self.tokens + self.h_budget)
        return s, du

    def _hedge_armed(self):
        """Whether a job gets a timer at arrival (d > 1, a finite delay)."""
        return self.ints[E.I_D] > 1 and math.isfinite(self.h_delay)

    def _hedge_copy(self, job):
        """A timer of ``job`` (not done) fires now: ``(server, duration)`` of the copy it
        launches, or None when the budget has no token (the job hedges no more)."""
        enc, ints, streams = self.enc, self.ints, self.streams
        if math.isfinite(self.h_budget):
            if self.tokens < 1.0:
                return None
            self.tokens -= 1.0
        c = job.copies
        u = streams.uniform()
        differ = ints[E.I_POOLS] == 2 and enc.inv_speeds[0, job.type] != enc.inv_speeds[1, job.type]
        if differ and c == 1:
            other = 1 - self._pool(job.servers[0])
            lo, hi = ints[E.I_POOL0 + other], ints[E.I_POOL0 + other + 1]
            s = lo + int(u * (hi - lo))
        else:
            free = [v for v in range(self.N) if v not in job.servers]
            s = free[int(u * (self.N - c))]
        dep = ints[E.I_DEP]
        x = job.x
        if dep == IID_CODE or dep == MIXTURE_CODE:  # a coupled job's draw is read and dropped
            x1 = _size_of_type(enc, job.type, streams.extra_size())
            x = x if job.coupled else x1
        du = x * enc.inv_speeds[self._pool(s), job.type]
        if dep == SX_CODE:
            du *= streams.slowdown()
        job.copies = c + 1
        job.servers.append(s)
        return s, du


class ReferenceSimulator(_Hedging):
    """Event-driven FCFS per-server simulation of one encoded model."""

    def __init__(self, enc: E.Encoded, lam: float, rngs):
        self.enc = enc
        self.ints = [int(x) for x in enc.ints]
        self.lam = lam
        self.inv_lam = 1.0 / lam
        self.streams = PyStreams(rngs, enc.ints[E.I_XCODE], enc.x_params, enc.ints[E.I_SCODE], enc.s_params)
        N = self.ints[E.I_N]
        self.N = N
        self.queues: list[deque] = [deque() for _ in range(N)]
        self.busy = [None] * N
        self.perm = list(range(N))
        self.events: list[tuple] = []
        self.seq = 0
        self.now = 0.0
        self.cd = enc.cancel_delay
        self._hedge_setup()

    # ------------------------------------------------------------ events
    def _schedule(self, time, kind, obj):
        # Hedge: at one instant arrivals, then timers, then the rest (completions);
        # the other policies in the order scheduled
        prio = (0 if kind == ARRIVAL else 1 if kind == TIMER else 2) if self.hedge else 0
        heapq.heappush(self.events, (time, prio, self.seq, kind, obj))
        self.seq += 1

    def _pool(self, s):
        return 0 if s < self.ints[E.I_POOL1] else 1

    def _dur(self, size, server, jtype):
        return size * self.enc.inv_speeds[self._pool(server), jtype]

    # ------------------------------------------------------------ servers
    def _join(self, rep):
        s = rep.server
        self.queues[s].append(rep)
        if self.busy[s] is None:
            self._start_next(s)

    def _start_next(self, s):
        q = self.queues[s]
        while q:
            rep = q.popleft()
            if rep.state == "waiting":
                self._start(rep)
                return
        self.busy[s] = None

    def _start(self, rep):
        job = rep.job
        s = rep.server
        self.busy[s] = rep
        rep.start = self.now
        if rep.dur is None:
            # CoS / FJ cancelling on start: replicas of one job that reach service at
            # the same instant are kept in sampling order (the contract's tie rule, which
            # the kernel follows); cuts free several servers at once, so decide only
            # after every event of this instant
            rep.state = "starting"
            if not job.pending:
                self._schedule(self.now, DECIDE, job)
            job.pending.append(rep)
            return
        rep.state = "running"
        job.started += 1
        if rep.first_run:
            tau = float(self.enc.flts[E.F_TAU0 + self._pool(s)])
            if rep.dur > tau:
                self._schedule(self.now + tau, KILL, rep)
            else:
                self._schedule(self.now + rep.dur, COMPLETE, rep)
        else:
            self._schedule(self.now + rep.dur, COMPLETE, rep)

    def _decide(self, job):
        """Keep the replicas that started now, in sampling order, while fewer than
        ``keep`` have started; the q-th to start gets the q-th size."""
        pending = sorted(job.pending, key=job.replicas.index)
        job.pending = []
        for rep in pending:
            if job.started < job.keep and not job.done:
                rep.state = "running"
                rep.dur = self._dur(job.sizes[job.started], rep.server, job.type)
                job.started += 1
                self._schedule(self.now + rep.dur, COMPLETE, rep)
            elif self.cd > 0.0:  # started with the kept ones: cancelled in service
                rep.state = "cancelled"
                job.cost += self.cd
                self._schedule(self.now + self.cd, RELEASE, rep)
            else:  # never served: the server takes its next replica now
                rep.state = "cancelled"
                self.busy[rep.server] = None
                self._start_next(rep.server)
        if job.started == job.keep:  # cancel on start: drop the replicas still waiting
            for other in job.replicas:
                if other.state == "waiting":
                    other.state = "cancelled"

    def _stop(self, rep, cost):
        """``rep`` leaves its server now (completed, aborted or killed)."""
        rep.job.cost += cost
        self.busy[rep.server] = None
        self._start_next(rep.server)

    def _cancel(self, rep):
        """Cancel ``rep``, its job done: dropped if waiting, or if it started only now
        (no service yet: whichever of its start and the cancel is handled first at this
        instant); cut if running (held cd longer, its cost the service it had plus cd);
        one that finishes now completes (its event is due at this instant)."""
        if rep.state == "waiting":
            rep.state = "cancelled"
        elif rep.state == "running" and rep.start + rep.dur > self.now:
            rep.state = "cancelled"
            if rep.start == self.now:  # not started before the cancel: never runs
                self._stop(rep, 0.0)
            elif self.cd > 0.0:
                rep.job.cost += self.now - rep.start + self.cd
                self._schedule(self.now + self.cd, RELEASE, rep)
            else:
                self._stop(rep, self.now - rep.start)

    # ------------------------------------------------------------ arrivals
    def _arrival(self, idx):
        enc, ints, streams = self.enc, self.ints, self.streams
        policy = ints[E.I_POLICY]
        J = ints[E.I_J]
        jtype = 0
        if J > 1:
            u = streams.type_uniform()
            while jtype < J - 1 and u >= enc.type_cdf[jtype]:
                jtype += 1
        job = _Job(idx, self.now, jtype)
        self.jobs.append(job)
        p0, p1, p2 = ints[E.I_POOL0], ints[E.I_POOL1], ints[E.I_POOL2]
        bounds = (p0, p1, p2)
        if policy == policies.HEDGE_CODE:
            s, du = self._hedge_first(job)
            rep = _Replica(job, s, du)
            job.replicas = [rep]
            self._join(rep)
            if self._hedge_armed():
                self._schedule(self.now + self.h_delay, TIMER, job)
            return
        if policy in (policies.ZRED_CODE, policies.KT_CODE, policies.RER_CODE):
            pool = 0
            if ints[E.I_POOLS] == 2:
                pool = 0 if streams.uniform() < enc.alpha[0, jtype] else 1
            s = bounds[pool] + int(streams.uniform() * (bounds[pool + 1] - bounds[pool]))
            if policy == policies.RER_CODE:
                sizes = _replica_sizes(enc, 2, streams, jtype)
                rep = _Replica(job, s, self._dur(sizes[0], s, jtype))
                rep.first_run = True
                tau = float(enc.flts[E.F_TAU0 + pool])
                if rep.dur > tau:  # it will be rerouted: the second server now (contract)
                    other = 1 - pool
                    s2 = bounds[other] + int(streams.uniform() * (bounds[other + 1] - bounds[other]))
                    job.rer_server = s2
                    if ints[E.I_RESUME]:
                        rest = sizes[0] - tau * enc.speeds[pool, jtype]
                    else:
                        rest = sizes[1]
                    job.rer_dur = rest * enc.inv_speeds[other, jtype]
                    job.rer_tau = tau
            else:
                sizes = _replica_sizes(enc, 1, streams, jtype)
                rep = _Replica(job, s, self._dur(sizes[0], s, jtype))
            job.replicas = [rep]
            job.copies = 1
            self._join(rep)
            return
        if policy == policies.FRED_CODE:
            s0 = int(streams.uniform() * p1)
            s1 = p1 + int(streams.uniform() * (p2 - p1))
            servers = [s0, s1]
        else:
            d = ints[E.I_D]
            servers = []
            for i in range(d):  # partial Fisher-Yates (the contract)
                r = i + int(streams.uniform() * (self.N - i))
                self.perm[i], self.perm[r] = self.perm[r], self.perm[i]
                servers.append(self.perm[i])
        if policy == policies.RIQ_CODE:
            idle = [s for s in servers if self.busy[s] is None]
            servers = idle if idle else servers[:1]
        if policy == policies.COS_CODE or (policy == policies.FJ_CODE and ints[E.I_EARLY]):
            job.k = 1 if policy == policies.COS_CODE else ints[E.I_K]
            job.keep = ints[E.I_KEEP]
            job.sizes = _replica_sizes(enc, job.keep, streams, jtype)
            job.replicas = [_Replica(job, s, None) for s in servers]
        else:
            job.k = ints[E.I_K] if policy == policies.FJ_CODE else 1
            sizes = _replica_sizes(enc, len(servers), streams, jtype)
            job.replicas = [_Replica(job, s, self._dur(x, s, jtype)) for s, x in zip(servers, sizes)]
        job.copies = len(job.replicas)
        for rep in job.replicas:
            if rep.state == "waiting":  # not cancelled on start by an earlier sibling
                self._join(rep)

    # ------------------------------------------------------------ completions
    def _complete(self, rep):
        job = rep.job
        rep.state = "done"
        self._stop(rep, rep.dur)
        job.completed += 1
        # cancelling on start left only the kept replicas; with keep = k all of
        # them have completed here, so the cancel below finds nothing
        if job.completed == job.k and not job.done:
            job.done = True
            job.finish = self.now
            for other in job.replicas:  # cancel on complete
                self._cancel(other)

    def _kill(self, rep):
        """Rer: tau of processing done; restart on the other pool's server (now, while
        the killed run holds its server cd longer)."""
        job = rep.job
        rep.state = "cancelled"
        if self.cd > 0.0:
            job.cost += job.rer_tau + self.cd
            self._schedule(self.now + self.cd, RELEASE, rep)
        else:
            self._stop(rep, job.rer_tau)
        second = _Replica(job, job.rer_server, job.rer_dur)
        job.replicas.append(second)
        job.copies += 1
        self._join(second)

    def _release(self, rep):
        """A cancelled replica's delay is over: its server takes its next replica."""
        self.busy[rep.server] = None
        self._start_next(rep.server)

    def _timer(self, job):
        """Hedge: a timer of ``job`` fires now."""
        if job.done:
            return
        copy = self._hedge_copy(job)
        if copy is None:
            return
        rep = _Replica(job, *copy)
        job.replicas.append(rep)
        self._join(rep)
        if job.copies < self.ints[E.I_D]:
            self._schedule(self.now + self.h_delay, TIMER, job)

    # ------------------------------------------------------------ run
    def run(self, n_jobs: int):
        """Per-job ``(latency, cost)`` arrays of ``n_jobs`` arrivals, in arrival order,
        run until every job has left."""
        self.jobs: list = []
        if n_jobs > 0:
            self._schedule(self.streams.interarrival() * self.inv_lam, ARRIVAL, 0)
        while self.events:
            time, _, _, kind, obj = heapq.heappop(self.events)
            self.now = time
            if kind == ARRIVAL:
                self._arrival(obj)
                if obj + 1 < n_jobs:
                    self._schedule(time + self.streams.interarrival() * self.inv_lam, ARRIVAL, obj + 1)
            elif kind == DECIDE:
                self._decide(obj)
            elif kind == COMPLETE:
                if obj.state == "running":
                    self._complete(obj)
            elif kind == RELEASE:
                self._release(obj)
            elif kind == TIMER:
                self._timer(obj)
            else:
                if obj.state == "running":
                    self._kill(obj)
        latency = np.array([j.finish - j.t for j in self.jobs])
        cost = np.array([j.cost for j in self.jobs])
        self.copies = np.array([j.copies for j in self.jobs], dtype=float)
        return latency, cost


class _PSReplica:
    __slots__ = ("job", "server", "dur", "rem", "att", "tau", "cancelled")

    def __init__(self, job, server, dur, tau=math.inf):
        self.job = job
        self.server = server
        self.dur = dur  # service time alone on that server
        self.rem = dur  # remaining (time alone)
        self.att = 0.0  # attained service (server time consumed: the cost)
        self.tau = tau  # Rer/Rep: the attained service at which it fires
        self.cancelled = False  # cancelled, sharing its server for its cd of work left


class PSReferenceSimulator(_Hedging):
    """Event-driven per-server processor-sharing simulation of one encoded model.

    Every server shares itself equally among the replicas present (n of them:
    each at rate 1/n). The policies, on PS (the semantics of
    :mod:`.events`; a replica starts when it joins a server):

    * ZRed, KT: one replica (pool by alpha, then a server); FRed: one per pool,
      cancel on complete; CoC: d replicas on d distinct servers, cancel on
      complete;
    * CoS: all d would start together, so one replica on the first server
      sampled (a uniformly random one of the d), one size;
    * FJ: d replicas, done at the k-th completion, the rest cancelled; early:
      the k first sampled (a random k of the d) run to completion, the q-th
      with the q-th size, done when all k have finished;
    * RIQ: replicas on the empty servers among the d sampled, cancel on
      complete; none empty: one replica on the first sampled;
    * Rer: at tau of attained service the replica is killed (cost tau) and a
      new one joins a server of the other pool; Rep: at tau of attained service
      a second replica joins a server of the other pool (it just shares that
      server: no priority on PS), the first of the two to finish wins;
    * Hedge: as on FCFS (the module docstring), a copy starts sharing its server
      when its timer fires.

    A cancelled replica (with a cancellation delay cd > 0) keeps sharing its server
    until cd of work is done, and its job's cost counts its attained service plus cd;
    under CoS and FJ cancelling on start the sampled replicas not kept start with the
    kept ones (all start at once on PS) and are cancelled at once: each shares its
    server for cd and costs cd.

    It reads the random streams in the order of the contract of :mod:`.contract`
    (the second server of Rer and Rep at arrival, iff the first replica's
    duration exceeds tau), and it advances every server at every event
    (O(replicas) per event): slow, literal, independent of the kernel's lazy
    per-queue bookkeeping.
    """

    def __init__(self, enc: E.Encoded, lam: float, rngs):
        self.enc = enc
        self.ints = [int(x) for x in enc.ints]
        self.inv_lam = 1.0 / lam
        self.streams = PyStreams(rngs, enc.ints[E.I_XCODE], enc.x_params, enc.ints[E.I_SCODE], enc.s_params)
        self.N = self.ints[E.I_N]
        self.servers: list[list] = [[] for _ in range(self.N)]
        self.perm = list(range(self.N))
        self.now = 0.0
        self.cd = enc.cancel_delay
        self.timers: list[tuple] = []  # Hedge: (time, seq, job)
        self.seq = 0
        self._hedge_setup()

    def _pool(self, s):
        return 0 if s < self.ints[E.I_POOL1] else 1

    def _dur(self, size, server, jtype):
        return size * self.enc.inv_speeds[self._pool(server), jtype]

    def _advance(self, t):
        dt = t - self.now
        if dt > 0.0:
            for reps in self.servers:
                if reps:
                    a = dt / len(reps)
                    for r in reps:
                        r.rem -= a
                        r.att += a
        self.now = t

    def _next_event(self):
        best, who, kind = math.inf, None, 0
        for reps in self.servers:
            n = len(reps)
            for r in reps:
                if r.tau - r.att < r.rem:
                    c, kd = max(r.tau - r.att, 0.0) * n, 1
                else:
                    c, kd = max(r.rem, 0.0) * n, 0
                if self.now + c < best:
                    best, who, kind = self.now + c, r, kd
        return best, who, kind

    def _join(self, rep):
        self.servers[rep.server].append(rep)
        rep.job.replicas.append(rep)

    def _leave(self, rep):
        self.servers[rep.server].remove(rep)
        rep.job.replicas.remove(rep)
        rep.job.cost += rep.att

    def _hold(self, rep):
        """``rep`` (in ``job.replicas``) is cancelled in service: it leaves its job and
        shares its server for cd more work; the job's cost counts its attained service
        and cd."""
        rep.job.replicas.remove(rep)
        rep.job.cost += rep.att
        rep.job.cost += self.cd
        rep.rem = self.cd
        rep.tau = math.inf
        rep.cancelled = True

    def _cancel(self, rep):
        """Cancel on complete: held cd longer, unless it has finished with the winner
        or has had no service (it joined its server at this instant)."""
        if self.cd > 0.0 and rep.att > 0.0 and rep.rem > PS_DONE_TOLERANCE * rep.att:
            self._hold(rep)
        else:
            self._leave(rep)

    def _arrival(self, idx):
        enc, ints, streams = self.enc, self.ints, self.streams
        policy = ints[E.I_POLICY]
        jtype = 0
        if ints[E.I_J] > 1:
            u = streams.type_uniform()
            while jtype < ints[E.I_J] - 1 and u >= enc.type_cdf[jtype]:
                jtype += 1
        job = _Job(idx, self.now, jtype)
        self.jobs.append(job)
        bounds = (ints[E.I_POOL0], ints[E.I_POOL1], ints[E.I_POOL2])
        if policy == policies.HEDGE_CODE:
            s, du = self._hedge_first(job)
            self._join(_PSReplica(job, s, du))
            if self._hedge_armed():
                heapq.heappush(self.timers, (self.now + self.h_delay, self.seq, job))
                self.seq += 1
            return
        job.copies = 1
        if policy in (policies.ZRED_CODE, policies.KT_CODE, policies.RER_CODE, policies.REP_CODE):
            pool = 0
            if ints[E.I_POOLS] == 2:
                pool = 0 if streams.uniform() < enc.alpha[0, jtype] else 1
            s = bounds[pool] + int(streams.uniform() * (bounds[pool + 1] - bounds[pool]))
            if policy in (policies.RER_CODE, policies.REP_CODE):
                sizes = _replica_sizes(enc, 2, streams, jtype)
                tau = float(enc.flts[E.F_TAU0 + pool])
                first = _PSReplica(job, s, self._dur(sizes[0], s, jtype))
                if first.dur > tau:
                    first.tau = tau
                    other = 1 - pool
                    job.rer_server = bounds[other] + int(streams.uniform() * (bounds[other + 1] - bounds[other]))
                    if policy == policies.RER_CODE and ints[E.I_RESUME]:
                        rest = sizes[0] - tau * enc.speeds[pool, jtype]
                    else:
                        rest = sizes[1]
                    job.rer_dur = rest * enc.inv_speeds[other, jtype]
                self._join(first)
            else:
                x = _replica_sizes(enc, 1, streams, jtype)[0]
                self._join(_PSReplica(job, s, self._dur(x, s, jtype)))
            return
        if policy == policies.FRED_CODE:
            servers = [int(streams.uniform() * bounds[1]), bounds[1] + int(streams.uniform() * (bounds[2] - bounds[1]))]
        else:
            servers = []
            for i in range(ints[E.I_D]):  # partial Fisher-Yates (the contract)
                r = i + int(streams.uniform() * (self.N - i))
                self.perm[i], self.perm[r] = self.perm[r], self.perm[i]
                servers.append(self.perm[i])
        sampled = servers
        if policy == policies.COS_CODE:
            servers = servers[:1]
        elif policy == policies.FJ_CODE:
            job.k = ints[E.I_K]
            if ints[E.I_EARLY]:
                servers = servers[: job.k]
        elif policy == policies.RIQ_CODE:
            idle = [s for s in servers if not self.servers[s]]
            servers = idle if idle else servers[:1]
        sizes = _replica_sizes(enc, len(servers), streams, jtype)
        job.copies = len(servers)
        for s, x in zip(servers, sizes):
            self._join(_PSReplica(job, s, self._dur(x, s, jtype)))
        if policy in (policies.COS_CODE, policies.FJ_CODE):
            job.copies = len(sampled)  # every one sent, those cancelled on start too
            if self.cd > 0.0:  # not kept: started with the kept ones, cancelled in service
                for s in sampled[len(servers) :]:
                    rep = _PSReplica(job, s, self.cd)
                    rep.cancelled = True
                    self.servers[s].append(rep)
                    job.cost += self.cd

    def _complete(self, rep):
        if rep.cancelled:  # its cancellation delay is over
            self.servers[rep.server].remove(rep)
            return
        job = rep.job
        rep.rem = 0.0
        self._leave(rep)
        job.completed += 1
        if job.completed == job.k:
            job.finish = self.now
            job.done = True
            for other in list(job.replicas):  # cancel on complete
                self._cancel(other)

    def _threshold(self, rep):
        job = rep.job
        rep.tau = math.inf
        if self.ints[E.I_POLICY] == policies.RER_CODE:  # killed: its cost is its attained service, tau
            if self.cd > 0.0:
                self._hold(rep)
            else:
                self._leave(rep)
        job.copies += 1
        self._join(_PSReplica(job, job.rer_server, job.rer_dur))

    def _timer(self, job):
        """Hedge: a timer of ``job`` fires now."""
        if job.done:
            return
        copy = self._hedge_copy(job)
        if copy is None:
            return
        self._join(_PSReplica(job, *copy))
        if job.copies < self.ints[E.I_D]:
            heapq.heappush(self.timers, (self.now + self.h_delay, self.seq, job))
            self.seq += 1

    def run(self, n_jobs: int):
        """Per-job ``(latency, cost)`` arrays of ``n_jobs`` arrivals, in arrival order,
        run until every job has left."""
        self.jobs: list = []
        t_arr = self.streams.interarrival() * self.inv_lam if n_jobs > 0 else math.inf
        n = 0
        while True:
            tq, rep, kind = self._next_event()
            tt = self.timers[0][0] if self.timers else math.inf
            if n < n_jobs and t_arr <= tq and t_arr <= tt:
                self._advance(t_arr)
                self._arrival(n)
                n += 1
                t_arr = self.now + self.streams.interarrival() * self.inv_lam if n < n_jobs else math.inf
            elif self.timers and tt <= tq:  # Hedge: a timer before a completion at its instant
                self._advance(tt)
                self._timer(heapq.heappop(self.timers)[2])
            elif rep is not None:
                self._advance(tq)
                if kind == 0:
                    self._complete(rep)
                else:
                    self._threshold(rep)
            else:
                break
        latency = np.array([j.finish - j.t for j in self.jobs])
        cost = np.array([j.cost for j in self.jobs])
        self.copies = np.array([j.copies for j in self.jobs], dtype=float)
        return latency, cost


def simulate_reference(enc: E.Encoded, lam: float, n_jobs: int, rngs):
    """Per-job ``(latency, cost)`` arrays of ``n_jobs`` arrivals (no warm-up);
    ``rngs`` is the tuple of :func:`.streams.replication_streams`. Per-server
    FCFS (:class:`ReferenceSimulator`) or PS (:class:`PSReferenceSimulator`)."""
    if int(enc.ints[E.I_QUEUEING]) != E.PER_SERVER:
        raise NotImplementedError("the reference simulates per-server queues only")
    if int(enc.ints[E.I_DISCIPLINE]) == E.PS:
        if int(enc.ints[E.I_PS_BOUND]) != E.BOUND_NONE:
            raise NotImplementedError("the reference does not simulate CoC's PS bound systems")
        return PSReferenceSimulator(enc, lam, rngs).run(int(n_jobs))
    return ReferenceSimulator(enc, lam, rngs).run(int(n_jobs))


def make_model(
    policy: str,
    N: int,
    loads,
    size=None,
    dependence="iid",
    d=None,
    r_slow=1.0,
    params=None,
    two_pools=None,
    p=(0.5, 0.5),
    knowledge="unknown",
    belief=1.0,
    pools=None,
    discipline="FCFS",
    queueing="per_server",
):
    """A :class:`~straggler.model.cell_model.CellModel` without a config (tests, benchmarks).

    ``size`` defaults to exponential with mean 1; ``dependence`` is a
    :class:`~straggler.model.dependence.Dependence` or its config form. The system has
    two pools (``TwoPoolSystem.affinity``) when ``two_pools`` is true, or by
    default when N is even or ``pools`` is given; otherwise it is the homogeneous
    single pool (``system = None``). A cancellation delay: ``dataclasses.replace(model,
    cancel_delay=x)``.
    """
    from ...model import dependence as dep_mod
    from ...model import distributions
    from ...model.cell_model import CellModel
    from ...model.two_pools import TwoPoolSystem

    size = distributions.Exponential(1.0) if size is None else size
    dep = dep_mod.from_spec(dependence)
    if two_pools is None:
        two_pools = pools is not None or N % 2 == 0
    system = (
        TwoPoolSystem.affinity(N, r_slow, p=p, knowledge=knowledge, belief=belief, pools=pools) if two_pools else None
    )
    return CellModel(
        policy=policy,
        params=dict(params or {}),
        size=size,
        dependence=dep,
        N=int(N),
        d=None if d is None else int(d),
        r_slow=float(r_slow),
        system=system,
        discipline=discipline,
        queueing=queueing,
        loads=np.atleast_1d(np.asarray(loads, dtype=float)),
    )
