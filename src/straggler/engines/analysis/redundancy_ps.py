"""Redundancy-d with processor sharing: stability and latency bounds.

Raaijmakers, Borst, Boxma, *Stability of Redundancy Systems with Processor
Sharing* (ValueTools 2020, arXiv 1912.00681; docs: reference results, section 3).

Model: ``N`` homogeneous unit-speed servers with PS; each job (total Poisson rate
``lam``) places replicas on ``d`` distinct servers chosen uniformly at random;
the other replicas are cancelled when the first completes (``CoC`` with PS,
docs/background/contracts.md). Replica sizes ``X_1..X_d`` follow a dependence
(identical, iid, sx); ``X_min = min(X_1..X_d)``.

The paper's results (section numbers of the arXiv version as the text shows them):

- lower-bound system (section 3.2): every replica of a job is served at rate
  ``1/min`` of its ``d`` queue lengths (so all its replicas have size ``X_min``);
  upper-bound system (section 3.3): rate ``1/max`` of the queue lengths. Both are
  simulated in the paper, not solved;
- their fluid limits coincide (Property 1) and are stable iff
  ``rho = lam d E[X_min] / N < 1`` (section 3.4, Lemma 2); for the stochastic
  system, Conjecture 1 (unstable if ``rho > 1``) and Conjecture 2 (stable if
  ``rho < 1``); proved for exponential ``X_min`` (identical or i.i.d. exponential
  replicas) through refs. [3, 12];
- the *alternative* upper-bound system of section 3.5, where all ``d`` replicas
  are fully served: each server is an M/G/1-PS queue with arrival rate
  ``d lam / N`` and mean size ``E[X_i]``, which gives Theorem 2, the rigorous
  sufficient condition ``rho~ = lam d E[X_i] / N < 1``, and the only analytically
  tractable latency, ``E[X_i] / (1 - rho~)`` (section 4.1: it depends on the mean
  only).

Units: rates are total job arrival rates; ``load`` fields are in the project's
load units ``lam E[X_i] / N`` (docs/background/model.md, "Load"), so e.g. identical
replicas give
``load = 1/d`` and i.i.d. exponential ones ``load = 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...model.dependence import IID, Dependence, Identical, mean_min_replicas
from ...model.distributions import Distribution, Exponential

__all__ = [
    "PSBound",
    "stability_conjectured",
    "stability_sufficient",
    "stability_bound",
    "upper_bound_latency",
    "mg1_ps_latency",
    "latency",
]


@dataclass(frozen=True)
class PSBound:
    """A stability bound: ``rate`` (total job arrival rate), ``load`` in load units
    (``rate E[X_i] / N``), its ``kind`` and a note on what is proved."""

    rate: float
    load: float
    kind: str
    note: str = ""


def _check(N: int, d: int) -> tuple[int, int]:
    N, d = int(N), int(d)
    if not (1 <= d <= N):
        raise ValueError(f"need 1 <= d <= N, got d = {d}, N = {N}")
    return N, d


def _exponential_min(X: Distribution, dep: Dependence) -> bool:
    """Is ``X_min`` exponential for every d (identical or i.i.d. exponential replicas)?"""
    return isinstance(X, Exponential) and isinstance(dep, (Identical, IID))


def stability_conjectured(X: Distribution, dep: Dependence, N: int, d: int) -> PSBound:
    """``lam d E[X_min] / N < 1``: the paper's stability condition (section 3.4).

    What is proved: the fluid limits of the lower- and upper-bound systems are
    stable iff it holds (Lemma 2, Property 1); for the stochastic system the
    paper states Conjecture 1 (unstable above) and Conjecture 2 (stable below).
    In the project's words it is "necessary (conjectured also sufficient)" (docs:
    reference results, section 3).
    Kinds returned:

    - ``exact`` when ``d = 1`` (an M/G/1-PS queue per server), when ``d = N`` (all
      servers hold every job, so the lower- and upper-bound systems coincide with
      the original: one M/G/1-PS queue with service ``X_min``), and for exponential
      ``X_min`` (identical or i.i.d. exponential replicas; the paper recovers
      ref. [3] there);
    - ``sufficient`` for identical replicas otherwise: the condition coincides
      with Theorem 2's (``d E[X_min] = d E[X]``), which is proved; necessity is
      Conjecture 1;
    - ``conjectured`` otherwise (neither direction is proved for the stochastic
      system).
    """
    N, d = _check(N, d)
    m = mean_min_replicas(X, dep, d)
    rate = N / (d * m)
    load = rate * dep.replica_mean(X) / N
    if d == 1 or d == N or _exponential_min(X, dep):
        kind, note = "exact", "d = 1, d = N or exponential X_min"
    elif isinstance(dep, Identical):
        kind, note = "sufficient", "= Theorem 2 (proved); necessity is Conjecture 1"
    else:
        kind, note = "conjectured", "Conjectures 1-2; proved for the fluid limit (Lemma 2)"
    return PSBound(rate=rate, load=load, kind=kind, note=note)


def stability_sufficient(X: Distribution, dep: Dependence, N: int, d: int) -> PSBound:
    """Theorem 2 (section 3.5): ``rho~ = lam d E[X_i] / N < 1`` is sufficient.

    Proof: the alternative upper-bound system in which all ``d`` replicas are fully
    served is ``N`` M/G/1-PS queues with arrival rate ``d lam / N``. ``load`` is
    ``1/d``. Kind ``exact`` when ``d = 1`` or for identical exponential replicas
    (where it equals :func:`stability_conjectured`), ``sufficient`` otherwise.
    """
    N, d = _check(N, d)
    mi = dep.replica_mean(X)
    rate = N / (d * mi)
    exact = d == 1 or (isinstance(dep, Identical) and (d == N or isinstance(X, Exponential)))
    return PSBound(
        rate=rate, load=1.0 / d, kind="exact" if exact else "sufficient", note="Theorem 2: all d replicas fully served"
    )


def stability_bound(X: Distribution, dep: Dependence, N: int, d: int) -> PSBound:
    """The bound to report as ``lambda_max`` for CoC with PS: the paper's condition
    (:func:`stability_conjectured`), the largest rate the analysis supports."""
    return stability_conjectured(X, dep, N, d)


def mg1_ps_latency(lam: float, mean: float) -> float:
    """M/G/1-PS mean response time ``E[S] / (1 - lam E[S])`` (insensitive; ``inf``
    when overloaded; docs: reference results, section 5)."""
    rho = lam * mean
    return math.inf if rho >= 1.0 else mean / (1.0 - rho)


def upper_bound_latency(
    lam: float, X: Distribution, dep: Dependence, N: int, d: int, cancel_delay: float = 0.0
) -> float:
    """Mean latency of the alternative upper-bound system (section 3.5, Figs. 3-4):
    ``E[X_i] / (1 - rho~)`` with ``rho~ = lam d E[X_i] / N``.

    Each server is an M/G/1-PS queue with arrival rate ``d lam / N``; a job of the
    original system finishes no later than any one of its replicas there (sample-path
    ordering of monotonic PS networks), so this is an ``upper_bound`` on ``E[T]``;
    it depends on the mean of the replica size only (section 4.1). Exact for
    ``d = 1`` and for identical replicas with ``d = N`` (docs: reference results, section 3).

    ``cancel_delay`` c > 0 (a copy cancelled in service keeps its server c longer, not
    in the paper): every replica of the upper-bound system brings ``X_i + c``, which is
    at least what the copy and its cancellation bring in the original, so the same
    ordering gives ``(E[X_i] + c) / (1 - lam d (E[X_i] + c) / N)``.
    """
    N, d = _check(N, d)
    mi = dep.replica_mean(X)
    if cancel_delay > 0.0:
        mi = mi + cancel_delay
    return mg1_ps_latency(lam * d / N, mi)


def latency(lam: float, X: Distribution, dep: Dependence, N: int, d: int) -> tuple[float, str]:
    """``(E[T], kind)``: the best mean latency the paper's analysis gives.

    - ``d = 1``: an M/G/1-PS queue per server, ``E[X] / (1 - lam E[X] / N)``, exact;
    - ``d = N``: every server holds every job, the queue lengths are equal, and the
      paper's lower- and upper-bound systems (sections 3.2-3.3) coincide with the
      original one: one M/G/1-PS queue with service ``X_min``,
      ``E[X_min] / (1 - lam E[X_min])``, exact (identical replicas:
      ``E[X] / (1 - rho~)``; docs: reference results, section 3);
    - otherwise :func:`upper_bound_latency`, kind ``upper_bound``.
    """
    N, d = _check(N, d)
    if d == 1:
        return mg1_ps_latency(lam / N, dep.replica_mean(X)), "exact"
    if d == N:
        return mg1_ps_latency(lam, mean_min_replicas(X, dep, N)), "exact"
    return upper_bound_latency(lam, X, dep, N, d), "upper_bound"
