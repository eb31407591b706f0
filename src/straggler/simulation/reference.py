"""A slow, event-driven, pure-Python simulator of the per-server policies (FCFS and PS).

It exists to check the kernels: it keeps explicit FIFO queues, a busy replica per
server and an event list (arrivals, replica completions, Rer's kill after tau),
and implements each policy's rules literally (cancel a running replica by
aborting it, a waiting one by dropping it from its queue), instead of the
workload recursion of :mod:`.fast`. It reads the random streams of
:mod:`.streams` one value at a time, in the order of the random-number contract
of :mod:`.fast`, so with the same seed the two see the same jobs, and their
latencies and costs can be compared job by job.

:class:`PSReferenceSimulator` does the same for processor-sharing servers
(every policy, with the semantics of :mod:`.events`), checking the event engine.

Only for small runs (a few thousand jobs): ``simulate_reference(enc, lam, n, rngs)``
returns the per-job latency and cost arrays (job order = arrival order).
"""

from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np

from .. import policies
from ..dependence import IDENTICAL_CODE, IID_CODE
from ..distributions.sampling import size_of_type
from . import encode as E
from .streams import PyStreams

_size_of_type_py = size_of_type.py_func

ARRIVAL, COMPLETE, KILL, DECIDE = 0, 1, 2, 3


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
    kernels' :func:`~straggler.distributions.sampling.size_of_type` (its Python
    function, which calls the same numba quantile functions): ``x`` itself but for
    a law per job type, whose streams hold uniforms."""
    return _size_of_type_py(int(enc.ints[E.I_XCODE]), enc.x_params, jtype, x)


def _replica_sizes(enc, n, streams, jtype):
    """The first ``n`` of the type-``jtype`` job's replica sizes (the contract of
    :mod:`.fast`: every job takes the sizes of all the replicas its policy may place,
    whichever run, so that policies compared on one workload see the same sizes).
    Each value of X read is turned into the type's size (:func:`_size_of_type`);
    a slowdown S is not."""
    dep = int(enc.ints[E.I_DEP])
    every = E.replicas_per_job(enc)
    if dep == IDENTICAL_CODE:
        x = _size_of_type(enc, jtype, streams.size())
        return [x] * n
    if dep == IID_CODE:
        sizes = [streams.size()] + [streams.extra_size() for _ in range(every - 1)]
        return [_size_of_type(enc, jtype, x) for x in sizes[:n]]
    x = _size_of_type(enc, jtype, streams.size())
    return [x * streams.slowdown() for _ in range(every)][:n]


class ReferenceSimulator:
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

    # ------------------------------------------------------------ events
    def _schedule(self, time, kind, obj):
        heapq.heappush(self.events, (time, self.seq, kind, obj))
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
                if other.state == "running":
                    other.state = "cancelled"
                    self._stop(other, self.now - other.start)
                elif other.state == "waiting":
                    other.state = "cancelled"

    def _kill(self, rep):
        """Rer: tau of processing done; restart on the other pool's server."""
        job = rep.job
        rep.state = "cancelled"
        self._stop(rep, job.rer_tau)
        second = _Replica(job, job.rer_server, job.rer_dur)
        job.replicas.append(second)
        self._join(second)

    # ------------------------------------------------------------ run
    def run(self, n_jobs: int):
        """Per-job ``(latency, cost)`` arrays of ``n_jobs`` arrivals, in arrival order,
        run until every job has left."""
        self.jobs: list = []
        if n_jobs > 0:
            self._schedule(self.streams.interarrival() * self.inv_lam, ARRIVAL, 0)
        while self.events:
            time, _, kind, obj = heapq.heappop(self.events)
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
            else:
                if obj.state == "running":
                    self._kill(obj)
        latency = np.array([j.finish - j.t for j in self.jobs])
        cost = np.array([j.cost for j in self.jobs])
        return latency, cost


class _PSReplica:
    __slots__ = ("job", "server", "dur", "rem", "att", "tau")

    def __init__(self, job, server, dur, tau=math.inf):
        self.job = job
        self.server = server
        self.dur = dur  # service time alone on that server
        self.rem = dur  # remaining (time alone)
        self.att = 0.0  # attained service (server time consumed: the cost)
        self.tau = tau  # Rer/Rep: the attained service at which it fires


class PSReferenceSimulator:
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
      server: no priority on PS), the first of the two to finish wins.

    It reads the random streams in the order of the contract of :mod:`.fast`
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
        for s, x in zip(servers, sizes):
            self._join(_PSReplica(job, s, self._dur(x, s, jtype)))

    def _complete(self, rep):
        job = rep.job
        rep.rem = 0.0
        self._leave(rep)
        job.completed += 1
        if job.completed == job.k:
            job.finish = self.now
            for other in list(job.replicas):  # cancel on complete
                self._leave(other)

    def _threshold(self, rep):
        job = rep.job
        rep.tau = math.inf
        if self.ints[E.I_POLICY] == policies.RER_CODE:  # killed: its cost is its attained service, tau
            self._leave(rep)
        self._join(_PSReplica(job, job.rer_server, job.rer_dur))

    def run(self, n_jobs: int):
        """Per-job ``(latency, cost)`` arrays of ``n_jobs`` arrivals, in arrival order,
        run until every job has left."""
        self.jobs: list = []
        t_arr = self.streams.interarrival() * self.inv_lam if n_jobs > 0 else math.inf
        n = 0
        while True:
            tq, rep, kind = self._next_event()
            if n < n_jobs and t_arr <= tq:
                self._advance(t_arr)
                self._arrival(n)
                n += 1
                t_arr = self.now + self.streams.interarrival() * self.inv_lam if n < n_jobs else math.inf
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
    """A :class:`~straggler.cell_model.CellModel` without a config (tests, benchmarks).

    ``size`` defaults to exponential with mean 1; ``dependence`` is a
    :class:`~straggler.dependence.Dependence` or its config form. The system has
    two pools (``TwoPoolSystem.affinity``) when ``two_pools`` is true, or by
    default when N is even or ``pools`` is given; otherwise it is the homogeneous
    single pool (``system = None``).
    """
    from .. import dependence as dep_mod
    from .. import distributions
    from ..cell_model import CellModel
    from ..two_pools import TwoPoolSystem

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
