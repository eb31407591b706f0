"""Heavy tails: where the mean response time is infinite, or its variance.

On FCFS servers a job waits behind the residual service of the jobs ahead of it,
and a residual has mean E[M^2] / (2 E[M]) for a service time M (the inspection
paradox), so E[M^2] = inf makes the mean waiting time infinite, and E[M^3] = inf
its variance (then the Student-t interval over replications under-covers: a
replication's mean converges slowly and from below). The Pollaczek-Khinchine
formula is the single-server case.

Which M? Consider a job J whose replicas start together on idle servers (a
positive-probability event at any stable load). Each of J's servers is then busy
for at least ``M`` = the time until J's replicas no longer hold it:

- one copy served in full (ZRed, KT; Rer's restarted copy; CoS, copies to idle
  servers when none is idle, and fork-early-cancel, which keep replicas chosen
  before their sizes are known): M is a replica's service time;
- cancel on the first completion (CoC with d replicas, FRed and Rep with one per
  pool): M is the smallest of the job's replica service times;
- k of r tasks (FJ keeping r): the k-th smallest of r.

Each policy's rule is its spec's hook (:attr:`straggler.model.policies.PolicySpec.blocking_order`).

A later job that picks the same servers (a positive probability under random
placement) waits for M's residual, so ``E[M^p] = inf`` implies an infinite p-1-th
moment of its waiting time. Only the moments' finiteness matters, and that is the
tail index (:meth:`straggler.model.dependence.Dependence.order_tail_index`): E[M^p] <
inf iff p < index. The converse is not claimed: a finite E[M^2] does not prove a
finite E[T] (e.g. several servers blocked by different jobs), so the answer is
``infinite`` or ``unknown``, never ``finite``. Processor sharing shares the server
instead of queueing behind M: its mean response time is insensitive to the tail
(M/G/1-PS: E[X] / (1 - rho)), so no claim is made for PS.

Central FCFS queues of several servers
--------------------------------------

With ``system.queueing: central`` a pool of c servers is one FIFO queue. A job with
one copy, dispatched to a pool with fixed probabilities (``PolicySpec.single_copy``:
Poisson arrivals by thinning, i.i.d. service times), makes each pool a FIFO GI/GI/c
queue (:mod:`.single_copy`), whose offered load, in servers, is ``R = lambda_i E[S]``
(utilisation R / c < 1), lambda_i the pool's arrival rate and S the time a server
spends on one of its jobs: ``R_i = lambda E[B_i]`` of the threshold paper's eq. 5
(types mixed at the pool's speeds for them). One big job no longer blocks the queue:
the other c - 1 servers go on serving it. The waiting time is long only when so many
big jobs hold servers at once that the remaining servers are overloaded, i.e. when
j of them do, with ``R > c - j``: the rest then fall behind at the rate ``R - (c - j)``
for as long as the j jobs last. For service times of tail index a (P(S > x) ~
x^-a), j jobs longer than x overlap with a probability of the order of P(S > x)^j
x^(j-1) (each after the first must arrive while the others run), and the waits they
cause last a time of order x: P(W > x) is of the order of x^(-j (a - 1)), so

    E[W^m] < inf  iff  m < j (a - 1),  j = c - floor(R)  (R not an integer).

In moments: E[W^m] < inf iff E[S^(1 + m / j)] < inf. This is the condition of
Scheller-Wolf and Sigman, "Delay moments for FIFO GI/GI/s queues" (Queueing Systems,
1997), sufficient at ``R < c - k`` with j = k + 1, and of Scheller-Wolf and Vesilo,
"Structural interpretation and derivation of necessary and sufficient conditions for
delay moments in FIFO multiserver queues" (Queueing Systems, 2006), who show it
necessary too (the structure above: the number of big jobs that overload the rest).
With k the largest integer >= 0 with R < c - k (:func:`spare_servers`), j = k + 1
when R is not an integer; for R > c - 1 (k = 0) it is the classical condition
E[S^(m+1)] < inf of Kiefer and Wolfowitz, the M/G/1 rule above (c = 1 is always k =
0). At an integer R the two sides differ: k + 1 big jobs leave the other servers
critically loaded (R = c - j), not overloaded, which suffices for the finiteness
of the moments below (k + 1)(a - 1), but the proof of the infinite ones needs k + 2
of them (R > c - j). Only infiniteness is claimed here, so an integer R (to a relative
1e-9) takes j = k + 2 (:func:`blocking_jobs`), the weaker claim. (The papers were not
at hand when this was written: the argument above is this module's own, and the
integer case is its conservative reading; tests/engines/analysis/test_central_tails.py checks
the indices 2 (a - 1), a - 1 and, at R = 1, one in between, on the simulated M/G/2.)

The response time T = W + S, with the job's own service time S independent of its
wait W (FIFO), so E[T^m] = inf iff E[W^m] = inf or E[S^m] = inf: T's tail index is
``min(j (a - 1), a)``, E[T] = inf iff it is <= 1, Var[T] = inf iff it is <= 2 (the
job's own S alone makes the variance infinite once a <= 2, at any load). A cell's
jobs go to several pools: the smallest index over the pools that receive jobs.
The claim depends on the load through j: :func:`latency_tail` takes a load
(:func:`latency_tails` gives one claim per load of the cell); without one, j = c,
what holds at every stable load.

Where the pool's load has no closed form (copies in both pools, rerouted or
restarted jobs: FRed, Rep, Rer on central pools of several servers) no claim is
made, and the answer says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...model.policies import POLICIES
from ...model.two_pools import assignment_fractions, belief_matrix, optimal_assignment_no_redundancy

__all__ = [
    "CentralPool",
    "CostTail",
    "LatencyTail",
    "blocking_jobs",
    "central_pools",
    "cost_tail",
    "latency_tail",
    "latency_tails",
    "spare_servers",
]

INTEGER_REL = 1e-9
"""An offered load within this relative distance of an integer is that integer (a load
of 0.5 on 2 servers gives R = 0.9999999999999999 or 1.0000000000000002)."""


@dataclass(frozen=True)
class LatencyTail:
    """What the size's tail implies for the response time T of a cell."""

    mean_infinite: bool
    """E[T] = inf is proven (FCFS, E[M^2] = inf)."""
    variance_infinite: bool
    """Var[T] = inf is proven (FCFS, E[M^3] = inf): confidence intervals under-cover."""
    index: float
    """Tail index of M (inf: all moments finite, or no claim)."""
    why: str = ""
    response_index: float = math.inf
    """E[T^m] = inf is proven for m >= response_index (inf: no claim): M's index - 1 on
    one server, ``min(j (a - 1), a)`` on central queues of several (module docstring)."""


def spare_servers(servers: int, offered: float) -> int:
    """Scheller-Wolf and Sigman's k: the largest integer k >= 0 with ``R < c - k``, for
    an offered load ``R = lambda E[S]`` in servers, ``0 <= R < c`` (c - 1 - floor(R)
    when R is not an integer; an integer R to a relative :data:`INTEGER_REL`)."""
    R = _snapped(offered)
    if not 0.0 <= R < servers:
        raise ValueError(f"offered load R = {offered!r} must be in [0, c = {servers})")
    return math.ceil(servers - R) - 1


def blocking_jobs(servers: int, offered: float) -> int:
    """The fewest jobs j in service at once whose servers, held, leave the other c - j
    overloaded (``R > c - j``): k + 1 when R is not an integer, k + 2 at an integer R
    (whose k + 1 leave them critically loaded; module docstring), at most c."""
    k = spare_servers(servers, offered)
    R = _snapped(offered)
    integer = R > 0.0 and R == math.floor(R)
    return min(k + 1 + int(integer), servers)


def _snapped(R: float) -> float:
    nearest = float(round(R))
    return nearest if abs(R - nearest) <= INTEGER_REL * max(1.0, abs(R)) else float(R)


@dataclass(frozen=True)
class CentralPool:
    """One pool's central FIFO queue (a GI/GI/c queue) as the heavy-tail rule sees it."""

    name: str
    servers: int
    offered: float
    """R = lambda_i E[S]: the pool's arrival rate times a job's mean service time there,
    in servers (NaN: any stable load)."""
    index: float
    """Tail index of the pool's service time (its classes' smallest)."""

    @property
    def jobs(self) -> int:
        """j of :func:`blocking_jobs` (c at any load: what holds at every stable one)."""
        return self.servers if math.isnan(self.offered) else blocking_jobs(self.servers, self.offered)

    @property
    def waiting_index(self) -> float:
        """j (a - 1): E[W^m] = inf iff m >= this (the module docstring)."""
        return self.jobs * (self.index - 1.0)

    @property
    def response_index(self) -> float:
        """min(j (a - 1), a): T = W + S."""
        return min(self.waiting_index, self.index)


def central_pools(model, load: float | None = None, alpha=None) -> list[CentralPool]:
    """The central queues of a single-copy policy (``PolicySpec.single_copy``) that
    receive jobs, at ``load`` (in the units of ``model.loads``; None: any load). Pool i
    receives the share ``sum_j p_j alpha_ij`` of the arrivals, a type-j job served in
    ``X_j / r_ij``, so ``R_i = lambda sum_j p_j alpha_ij E[X_j] / r_ij = lambda E[B_i]``.
    ``alpha`` (2 x J) is the assignment the simulation uses (the analysis's); None: the
    analysis's choice, recomputed (eq. 5's optimum under what the dispatcher knows: the
    types for ``PolicySpec.type_aware_alpha``)."""
    rate = math.nan if load is None else float(replace(model, loads=np.array([float(load)])).rates()[0])
    dep, X = model.dependence, model.size
    system = model.system
    if system is None:  # one queue of all N servers
        return [CentralPool("all N servers", model.N, rate * dep.replica_mean(X), dep.order_tail_index(X, 1, 1))]
    alpha = _assignment(model) if alpha is None else np.asarray(alpha, dtype=float)
    p = np.asarray(system.p, dtype=float)
    out = []
    for i in range(2):
        weights = p * alpha[i]
        used = [j for j in range(system.n_types) if weights[j] > 0]
        if not used:
            continue
        work = sum(weights[j] * dep.replica_mean(X.of_type(j)) / system.speeds[i][j] for j in used)
        index = min(dep.order_tail_index(X.of_type(j), 1, 1) for j in used)
        out.append(CentralPool(f"pool {i + 1}", system.n[i], rate * work, index))
    return out


def _assignment(model) -> np.ndarray:
    """alpha as the analysis of a single-copy policy chooses it (two pools)."""
    system = model.system
    if POLICIES[model.policy].type_aware_alpha:
        system = replace(system, belief=belief_matrix("known", system.n_types))
    bound = optimal_assignment_no_redundancy(system, model.size, model.dependence)
    return assignment_fractions(system, bound.q)


def latency_tails(model, alpha=None) -> list[LatencyTail]:
    """:func:`latency_tail` at each of the cell's loads (``model.loads``)."""
    if _central_servers(model) > 1 and alpha is None and model.system is not None:
        if model.discipline == "FCFS" and POLICIES[model.policy].single_copy:
            alpha = _assignment(model)  # once, not per load
    return [latency_tail(model, float(load), alpha) for load in model.loads]


def _central_servers(model) -> int:
    """Servers per queue on central queueing (the largest pool's; one pool: N), else 1."""
    if model.queueing != "central":
        return 1
    return model.N if model.system is None else max(model.system.n)


def latency_tail(model, load: float | None = None, alpha=None) -> LatencyTail:
    """Whether the cell's mean response time (or its variance) is proven infinite, at
    ``load`` (in the units of ``model.loads``). Only central queues of several servers
    depend on it (the module docstring); there, without a load, the claim is the one
    that holds at every stable load. ``alpha``: the assignment the simulation uses
    (:func:`central_pools`)."""
    none = LatencyTail(False, False, math.inf)
    if model.discipline != "FCFS":
        return none
    if model.params.get("ps_bound") not in (None, "none"):  # a bound system (CoC's), not the policy
        return none
    if _central_servers(model) > 1:
        return _central_tail(model, load, alpha)
    r, k = POLICIES[model.policy].blocking_order(model)
    index = model.dependence.order_tail_index(model.size, r, k)
    if not math.isfinite(index) or index > 3.0:
        return LatencyTail(False, False, index)
    what = (
        "a replica's service time"
        if r == 1
        else f"the smallest of a job's {r} replica service times"
        if k == 1
        else f"the {k}-th smallest of {r} task service times"
    )
    why = (
        f"FCFS: {what} has tail index {index:g}, so its second moment is infinite and "
        "so is the mean waiting time (a job waits for its residual)"
        if index <= 2.0
        else f"FCFS: {what} has tail index {index:g}, so its third moment is infinite and so is "
        "the variance of the response time: the confidence interval under-covers"
    )
    return LatencyTail(index <= 2.0, True, index, why, index - 1.0)


def _central_tail(model, load: float | None, alpha) -> LatencyTail:
    """The rule of central FIFO queues of several servers (the module docstring)."""
    spec = POLICIES[model.policy]
    if not spec.single_copy:
        r, k = spec.blocking_order(model)
        index = model.dependence.order_tail_index(model.size, r, k)
        if not math.isfinite(index) or index > 3.0:
            return LatencyTail(False, False, math.inf)
        return LatencyTail(
            False,
            False,
            math.inf,
            f"no heavy-tail claim on central queues of several servers (service tail index {index:g}): the "
            "multi-server condition (Scheller-Wolf and Sigman; Scheller-Wolf and Vesilo) needs each pool's "
            "offered load, which has no closed form when a job's copies are replicated, rerouted or restarted "
            "across pools",
        )
    pools = central_pools(model, load, alpha)
    if any(p.offered >= p.servers * (1.0 - INTEGER_REL) for p in pools):
        return LatencyTail(False, False, math.inf)  # not stable: no estimate to judge
    pool = min(pools, key=lambda q: q.response_index)
    ri = pool.response_index
    if not math.isfinite(ri) or ri > 2.0:
        return LatencyTail(False, False, min(q.index for q in pools))
    load_words = "at any load" if load is None else f"offered load R = {pool.offered:.4g} servers"
    where = f"FCFS central queue of {pool.servers} servers ({pool.name}, {load_words})"
    wait = (
        f"a long wait needs {pool.jobs} job{'s' if pool.jobs > 1 else ''} in service at once whose sizes have tail "
        f"index {pool.index:g}, so the "
        f"waiting time's tail index is {pool.jobs} ({pool.index:g} - 1) = {pool.waiting_index:g} (Scheller-Wolf "
        "and Sigman; Scheller-Wolf and Vesilo)"
    )
    if ri <= 1.0:
        what = "so the mean waiting time is infinite"
    elif pool.waiting_index <= 2.0:
        what = "so the variance of the response time is infinite: the confidence interval under-covers"
    else:
        what = (
            f"and a job's own service time (tail index {pool.index:g}) makes the variance of the response time "
            "infinite: the confidence interval under-covers"
        )
    return LatencyTail(ri <= 1.0, True, pool.index, f"{where}: {wait}, {what}", ri)


@dataclass(frozen=True)
class CostTail:
    """What the size's tail implies for the server time C a job takes."""

    variance_infinite: bool
    """Var[C] = inf is proven: the confidence interval of E[C] under-covers."""
    index: float
    why: str = ""


def cost_tail(model) -> CostTail:
    """Whether the server time per job has a proven infinite variance.

    Whatever the discipline, the replicas or tasks that complete were served in full, so
    C is at least ``M`` of the module docstring (one replica served in full; the
    smallest of r replicas when the first completion cancels the rest; the k-th smallest
    of r tasks when k complete, since any k of them hold one at least that large):
    ``E[M^2] = inf`` makes Var[C] infinite. The coverage benchmark
    (``benchmarks/ci_coverage.py``) measures what that does to the interval of E[C]."""
    if model.params.get("ps_bound") not in (None, "none"):
        return CostTail(False, math.inf)
    r, k = POLICIES[model.policy].blocking_order(model)
    index = model.dependence.order_tail_index(model.size, r, k)
    if not math.isfinite(index) or index > 2.0:
        return CostTail(False, index)
    what = (
        "a replica's size"
        if r == 1
        else f"the smallest of a job's {r} replica sizes"
        if k == 1
        else f"the {k}-th smallest of {r} task sizes"
    )
    return CostTail(
        True,
        index,
        f"the server time per job is at least {what}, of tail index {index:g}: its variance is infinite, "
        "so the CI of E[C] under-covers",
    )
