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

Each policy's rule is its spec's hook (:attr:`straggler.policies.PolicySpec.blocking_order`).

A later job that picks the same servers (a positive probability under random
placement) waits for M's residual, so ``E[M^p] = inf`` implies an infinite p-1-th
moment of its waiting time. Only the moments' finiteness matters, and that is the
tail index (:meth:`straggler.dependence.Dependence.order_tail_index`): E[M^p] <
inf iff p < index. The converse is not claimed: a finite E[M^2] does not prove a
finite E[T] (e.g. several servers blocked by different jobs), so the answer is
``infinite`` or ``unknown``, never ``finite``. Processor sharing shares the server
instead of queueing behind M: its mean response time is insensitive to the tail
(M/G/1-PS: E[X] / (1 - rho)), so no claim is made for PS. Central FCFS queues
with several servers per pool (or one queue of all N servers) are M/G/c-like, where
fewer moments may suffice at low load (Scheller-Wolf and Sigman): no claim either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..policies import POLICIES

__all__ = ["CostTail", "LatencyTail", "cost_tail", "latency_tail"]


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


def latency_tail(model) -> LatencyTail:
    """Whether the cell's mean response time (or its variance) is proven infinite."""
    none = LatencyTail(False, False, math.inf)
    if model.discipline != "FCFS":
        return none
    servers_per_queue = model.N if model.system is None else max(model.system.n)  # one pool: one queue of N
    if model.queueing == "central" and servers_per_queue > 1:
        return none
    if model.params.get("ps_bound") not in (None, "none"):  # a bound system (CoC's), not the policy
        return none
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
    return LatencyTail(index <= 2.0, True, index, why)


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
