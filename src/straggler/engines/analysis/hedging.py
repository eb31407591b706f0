"""Hedged requests (Hedge): the light-traffic latency and cost, and the bounds that hold at every load.

A job's copy i (i = 1..d) is sent ``s_i = (i - 1) delay`` after the job's arrival unless
the job is done by then; the first copy to finish completes the job and the others are
cancelled (:mod:`straggler.model.policies.hedging`). None of the four papers analyses hedging:
every formula here is derived below, from the arguments each docstring states.

**Pathwise lower bound.** Copy i starts no earlier than ``s_i`` and, once started, needs at
least its full service time ``A_i = X_i / r`` (FCFS: exactly; PS: its share of the server is
at most the whole). So every job has

    T >= T0 = min_i (s_i + A_i),

whatever the load, the discipline and the budget (a copy never sent, for lack of a token
or because the job is done, only leaves ``T`` larger). Hence ``E[T] >= E[T0]``. In light
traffic (load -> 0) a job finds every server idle, each copy starts when it is sent and
runs alone, so ``T = T0``: the bound is the exact light-traffic limit.

``E[T0] = int_0^inf P(T0 > t) dt`` with (:func:`light_traffic`)

- i.i.d. replicas: ``P(T0 > t) = prod_i P(A > t - s_i)`` (a factor 1 before ``s_i``), one
  quadrature per interval between send times;
- identical replicas on identical servers: copy i ends ``s_i`` after copy 1, so ``T0 = X``;
- S&X (``X_i = X S_i``): given ``X = x`` the i.i.d. case with slowdowns ``x S_i``, then the
  expectation over ``X``.

Exponential sizes with mean ``m``, i.i.d. (:func:`exponential_light_traffic`): with
``p_k = P(T0 > s_{k+1}) = exp(-delay k (k + 1) / (2 m))`` for ``k < d``,
``E[T0] = sum_{k=1}^{d-1} m (p_{k-1} - p_k) / k + m p_{d-1} / d``.

**Light-traffic cost.** Copy i runs alone from ``s_i`` to ``T0``, so it costs
``(T0 - s_i)^+``; each copy sent that loses with work left keeps its server
``cancel_delay`` c longer. Copy i is sent iff ``T0 >= s_i`` (the simulation fires a timer
before a completion at the same instant, :mod:`straggler.engines.simulation.events`), and copies
that end together with the winner are not charged, so

    E[C0] = sum_i int_{s_i}^inf P(T0 > t) dt + c (sum_{i >= 2} P(T0 >= s_i) - E[ties]),

``E[ties]`` the mean number of copies besides the winner that end at ``T0`` (0 without
atoms). Exponential: ``E[C0] = m + c sum_{k=1}^{d-1} p_k`` (memoryless: the copies' server
time is m whatever the delay). The cost at a positive load is another number (a copy
sent to a busy server may be dropped while it waits, or start late): ``E[C0]`` is an
approximation there, exact only as the load -> 0.

**Bounds at every load** (:func:`cost_bounds`, :func:`sufficient_rate`). The winner is
served in full, so ``C >= min_i A_i`` and ``E[C] >= E[min(X_1..X_d)] / r_max`` (c only
adds); the N servers supply at most N of server time per unit time, so
``lambda E[C] < N`` is necessary. Every copy costs at most its full time plus c (at most
``d - 1`` are cancelled), so ``E[C] <= E[sum of the d copies' full times] + (d - 1) c``.
Sufficient: the system in which every job sends all d copies at ``s_1..s_d`` (to the same
servers: a server without a copy, the first hedge to the other pool) and serves each in
full and c dominates the real one (same arrivals at each server, each bringing at least
the work it brings here; a server's workload is monotone in the work it receives), and
in it each server is an M/G/1 queue (Poisson thinning of the arrivals, shifted by s_i):
stable iff its load ``lambda / n_i sum_j p_j m_ij (E[X] / r_ij + c) < 1``, ``m_ij`` the
mean number of copies of a type-j job in pool i. A budget only removes copies, so the
bound with d copies holds; its long-run share of copies, ``1 + budget``, is not used: the
copies a budget lets through depend on the queues (and with identical or S&X replicas
they go to the longer jobs), so their work is not ``E[X]`` per copy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...common.numerics import RELATIVE_1E10, integrate_split
from ...model.dependence import IID, SX, Dependence, Identical, Mixture, mean_min_replicas
from ...model.dependence.expectations import survival
from ...model.distributions import Distribution
from ...model.distributions.pieces import quadrature_between_breaks
from ...model.two_pools import TwoPoolSystem
from .cancel_delay import TIE_RTOL, prob_at_least

MAX_BREAKS = 256
"""At most this many of a law's break points split the quadrature (per copy)."""


@dataclass(frozen=True)
class LightTraffic:
    """A job of Hedge alone in the system (module docstring)."""

    latency: float
    """E[T0] = E[min_i (s_i + A_i)]: the light-traffic latency, a lower bound at every load."""
    work: float
    """sum_i E[(T0 - s_i)^+]: the copies' server time in light traffic."""
    charged: float
    """E[copies cancelled with work left] (each keeps its server cancel_delay)."""

    def cost(self, cancel_delay: float = 0.0) -> float:
        """E[C0] = work + cancel_delay * charged: the light-traffic cost."""
        return self.work + cancel_delay * self.charged if cancel_delay > 0.0 else self.work


def light_traffic(X: Distribution, dep: Dependence, delay: float, d: int, factor: float = 1.0) -> LightTraffic:
    """The light-traffic latency and cost of Hedge with ``d`` copies ``delay`` apart on
    servers where a replica of size x takes ``factor * x`` (module docstring)."""
    if not (delay >= 0.0 and d >= 1):
        raise ValueError(f"need delay >= 0 and d >= 1, got delay = {delay}, d = {d}")
    if isinstance(dep, Mixture):  # every field is an expectation over one job's copies: linear in their law
        parts = [(w, light_traffic(X, branch, delay, d, factor)) for w, branch in dep.branches() if w > 0.0]
        return LightTraffic(
            latency=math.fsum(w * p.latency for w, p in parts),
            work=math.fsum(w * p.work for w, p in parts),
            charged=math.fsum(w * p.charged for w, p in parts),
        )
    if isinstance(dep, Identical):
        return _identical(X.scaled(factor) if factor != 1.0 else X, delay, d)
    if isinstance(dep, IID):
        return _iid(X.scaled(factor) if factor != 1.0 else X, delay, d)
    if isinstance(dep, SX):
        return _sx(X, dep.slowdown, delay, d, factor)
    raise ValueError(f"unknown dependence {dep!r}")


def _identical(Y: Distribution, delay: float, d: int) -> LightTraffic:
    """Identical replicas on identical servers: copy i ends at ``s_i + Y >= Y``, so
    ``T0 = Y``; copy i costs ``E[(Y - s_i)^+] = E[Y] - E[min(Y, s_i)]`` and is sent iff
    ``Y >= s_i``; with ``delay > 0`` every copy sent after the first loses with work left,
    with ``delay = 0`` all end together (ties, not charged)."""
    mean = Y.mean()
    work = math.fsum(mean - Y.mean_min(i * delay) for i in range(d))
    charged = 0.0 if delay == 0.0 else math.fsum(prob_at_least(Y, i * delay) for i in range(1, d))
    return LightTraffic(latency=mean, work=work, charged=charged)


def _iid(Y: Distribution, delay: float, d: int) -> LightTraffic:
    """i.i.d. replicas of law ``Y``: ``P(T0 > t) = prod_{s_i < t} P(Y > t - s_i)``
    integrated between the send times (``J_k`` over ``[s_k, s_{k+1})``, while k copies
    are out); ``E[T0] = sum_k J_k`` and the copies' server time ``sum_k k J_k``.

    A tabulated law (a trace, a quantile table: ``P(Y > y)`` linear or constant between
    knots) takes exact sums instead of quadratures (:func:`_tabulated_pieces`,
    :func:`_tabulated_ties`): a trace of 10^5 values costs a few vector operations."""
    starts = [i * delay for i in range(d)]
    tabulated = Y.quantile_pieces() is not None
    if delay == 0.0:
        pieces = [0.0] * (d - 1) + [Y.mean_min_of(d)]
    elif tabulated:
        pieces = _tabulated_pieces(Y, starts)
    else:
        breaks = Y.breaks()
        if len(breaks) > MAX_BREAKS:  # a trace's many atoms: every k-th (the quadrature resolves the rest)
            breaks = breaks[:: -(-len(breaks) // MAX_BREAKS)]
        points = [b + s for b in breaks for s in starts]

        def tail(t: float) -> float:
            out = 1.0
            for s in starts:
                if t > s:
                    out *= survival(Y, t - s)
            return out

        ends = starts[1:] + [math.inf]
        pieces = [integrate_split(tail, a, b, RELATIVE_1E10, points, scale=Y.mean()) for a, b in zip(starts, ends)]
    latency = math.fsum(pieces)
    work = math.fsum((k + 1) * J for k, J in enumerate(pieces))
    sent = [math.prod(prob_at_least(Y, starts[i] - starts[m]) for m in range(i)) for i in range(1, d)]
    ties = _tabulated_ties(Y, starts) if tabulated else _ties(Y, starts)
    return LightTraffic(latency=latency, work=work, charged=max(math.fsum(sent) - ties, 0.0))


def _knots(Y: Distribution) -> np.ndarray:
    """The points between which ``P(Y > y)`` of a tabulated law is linear or constant."""
    q = Y.quantile_pieces()
    if q is None:
        raise ValueError(f"{Y!r} is not a tabulated law")
    return np.unique(np.concatenate((q.x0, q.x1)))


def _tabulated_pieces(Y: Distribution, starts: list[float]) -> list[float]:
    """``J_k`` of :func:`_iid` for a tabulated law, exactly: between consecutive points of
    ``{knots + s_i} ∪ {s_i}`` every factor ``P(Y > t - s_i)`` is linear in t, so
    ``P(T0 > t)`` is a polynomial of degree at most d there and Gauss-Legendre is exact."""
    knots = _knots(Y)
    top = float(knots[-1]) + starts[0]  # P(T0 > t) <= P(Y > t - s_1) = 0 beyond
    cuts = np.concatenate([knots + s for s in starts] + [np.asarray(starts)])
    cuts = np.unique(np.concatenate((cuts[(cuts >= 0.0) & (cuts <= top)], [0.0, top])))
    nodes, weights = quadrature_between_breaks(cuts, len(starts))
    tail = np.ones_like(nodes)
    for s in starts:
        later = nodes > s
        tail[later] *= np.asarray(Y.sf(nodes[later] - s), dtype=float)
    per_interval = np.sum(weights * tail.reshape(weights.shape), axis=1)
    lows = cuts[:-1][cuts[1:] > cuts[:-1]]
    copies_out = np.searchsorted(np.asarray(starts), lows, side="right") - 1  # k + 1 copies out on [s_k, s_k+1)
    return [math.fsum(per_interval[copies_out == k].tolist()) for k in range(len(starts))]


def _at_least(Y: Distribution, z: np.ndarray) -> np.ndarray:
    """``P(Y >= z)`` at every ``z``, the atoms within :data:`.cancel_delay.TIE_RTOL` of z
    included (:func:`.cancel_delay.prob_at_least`, vectorised)."""
    z = np.asarray(z, dtype=float)
    masses = sorted(Y.point_masses())
    above = np.maximum(z, 0.0)
    if not masses:
        return np.where(z <= 0.0, 1.0, np.asarray(Y.sf(above), dtype=float))
    values = np.array([v for v, _ in masses])
    cumulative = np.concatenate(([0.0], np.cumsum([q for _, q in masses])))
    # |v - z| <= r max(|v|, |z|) for z > 0 is z (1 - r) <= v <= z / (1 - r)
    lo = np.searchsorted(values, z * (1.0 - TIE_RTOL), side="left")
    hi = np.searchsorted(values, above / (1.0 - TIE_RTOL), side="right")
    at = cumulative[hi] - cumulative[lo]
    beyond = np.asarray(Y.sf(np.where(at > 0.0, above / (1.0 - TIE_RTOL), above)), dtype=float)
    return np.where(z <= 0.0, 1.0, np.minimum(beyond + at, 1.0))


def _tabulated_ties(Y: Distribution, starts: list[float]) -> float:
    """:func:`_ties` for a tabulated law, exactly: the atoms' sum vectorised, and the
    continuous part (an interpolated trace) a Gauss-Legendre sum between the points where
    a factor ``P(Y >= y + s_i - s_m)`` has a knot, each factor linear there."""
    masses = Y.point_masses()
    if not any(q > 0 for _, q in masses):
        return 0.0
    atoms = np.array([v for v, _ in masses])
    weights = np.array([q for _, q in masses])
    knots = _knots(Y)
    d = len(starts)
    total = []
    for i, si in enumerate(starts):
        shifts = [si - sm for m, sm in enumerate(starts) if m != i]
        on_atoms = weights.copy()
        for shift in shifts:
            on_atoms *= _at_least(Y, atoms + shift)
        total.append(math.fsum(on_atoms.tolist()))
        if weights.sum() < 1.0 - 1e-12:  # the density's part
            cuts = np.unique(np.concatenate([knots] + [knots - shift for shift in shifts]))
            cuts = cuts[(cuts >= knots[0]) & (cuts <= knots[-1])]
            nodes, w = quadrature_between_breaks(cuts, d)
            f = np.asarray(Y.pdf(nodes), dtype=float)
            for shift in shifts:
                f = f * np.asarray(Y.sf(nodes + shift), dtype=float)
            total.append(math.fsum(np.sum(w * f.reshape(w.shape), axis=1).tolist()))
    return max(math.fsum(total) - 1.0, 0.0)


def _ties(Y: Distribution, starts: list[float]) -> float:
    """E[copies besides the winner that end at T0]: ``sum_i P(s_i + Y_i <= s_m + Y_m for
    every m) - 1``, 0 for a law without atoms (ties have probability 0)."""
    if not any(q > 0 for _, q in Y.point_masses()):
        return 0.0

    def first(i: int):
        """P(copy i ends no later than every other) given its size y."""
        return lambda y: math.prod(prob_at_least(Y, y + starts[i] - sm) for m, sm in enumerate(starts) if m != i)

    total = math.fsum(Y.expect(first(i)) for i in range(len(starts)))
    return max(total - 1.0, 0.0)


def _sx(X: Distribution, S: Distribution, delay: float, d: int, factor: float) -> LightTraffic:
    """S&X: given ``X = x`` the copies are i.i.d. ``factor x S_i`` (:func:`_iid`), then
    the expectation over ``X`` (one evaluation per quadrature point, cached)."""
    cache: dict[float, LightTraffic] = {}

    def given(x: float) -> LightTraffic:
        if x not in cache:
            cache[x] = _iid(S.scaled(factor * x), delay, d) if x > 0 else LightTraffic(0.0, 0.0, 0.0)
        return cache[x]

    return LightTraffic(
        latency=X.expect(lambda x: given(x).latency),
        work=X.expect(lambda x: given(x).work),
        charged=X.expect(lambda x: given(x).charged),
    )


def exponential_light_traffic(mean: float, delay: float, d: int) -> LightTraffic:
    """The closed form for i.i.d. exponential replicas of mean ``m`` (module docstring):
    ``p_k = exp(-delay k (k + 1) / (2 m))``, ``E[T0] = sum_{k<d} m (p_{k-1} - p_k) / k +
    m p_{d-1} / d``, server time ``m``, ``sum_{k=1}^{d-1} p_k`` copies charged."""
    p = [math.exp(-delay * k * (k + 1) / (2.0 * mean)) for k in range(d)]
    latency = math.fsum(mean * (p[k - 1] - p[k]) / k for k in range(1, d)) + mean * p[d - 1] / d
    return LightTraffic(latency=latency, work=mean, charged=math.fsum(p[1:]))


# ------------------------------------------------------------------ bounds at every load


def copies_per_pool(system: TwoPoolSystem | None, N: int, d: int) -> np.ndarray:
    """``m[i]``: the mean number of a job's d copies in pool i when all d are sent (one
    row, d, without pools). Copy 1 is in pool i with probability alpha_ij and copy 2 in
    the other pool, so the two put one copy in each pool on average, whatever alpha;
    copies 3..d go to servers without a copy, uniformly: ``(n_i - 1) / (N - 2)`` each."""
    if system is None:
        return np.array([float(d)])
    if d == 1:
        raise ValueError("copies_per_pool needs d >= 2 with two pools (d = 1 is one copy by alpha)")
    rest = (d - 2) / (N - 2) if d > 2 else 0.0
    return np.array([1.0 + rest * (n - 1) for n in system.n])


def _speeds(system: TwoPoolSystem | None) -> np.ndarray:
    """``r[i, j]`` (one pool of speed 1 without a system)."""
    return np.ones((1, 1)) if system is None else np.asarray(system.speeds, dtype=float)


def _types(system: TwoPoolSystem | None) -> np.ndarray:
    return np.ones(1) if system is None else np.asarray(system.p, dtype=float)


def sufficient_rate(
    X: Distribution, dep: Dependence, system: TwoPoolSystem | None, N: int, d: int, cancel_delay: float = 0.0
) -> float:
    """The arrival rate below which Hedge is stable (module docstring): every copy sent
    and served in full and ``cancel_delay``; server of pool i: load
    ``lambda / n_i sum_j p_j m_i (E[X] / r_ij + c)``."""
    mean = dep.replica_mean(X)
    m = copies_per_pool(system, N, d)
    n = np.array([float(N)]) if system is None else np.asarray(system.n, dtype=float)
    r, p = _speeds(system), _types(system)
    per_server = [m[i] / n[i] * float(np.dot(p, mean / r[i] + cancel_delay)) for i in range(len(n))]
    return 1.0 / max(per_server)


def cost_bounds(
    X: Distribution, dep: Dependence, system: TwoPoolSystem | None, N: int, d: int, cancel_delay: float = 0.0
) -> tuple[float, float]:
    """``(lower, upper)`` on Hedge's server time per job at every load (module
    docstring): the winner in full at its fastest speed, ``sum_j p_j E[min(X_1..X_d)] /
    max_i r_ij``; every copy in full plus c for d - 1 of them,
    ``sum_j p_j sum_i m_i E[X] / r_ij + (d - 1) c``."""
    r, p = _speeds(system), _types(system)
    lower = mean_min_replicas(X, dep, d) * float(np.dot(p, 1.0 / r.max(axis=0)))
    m = copies_per_pool(system, N, d)
    full = dep.replica_mean(X) * float(np.dot(p, (m[:, None] / r).sum(axis=0)))
    return lower, full + (d - 1) * cancel_delay


def latency_lower_bound(X: Distribution, dep: Dependence, system: TwoPoolSystem | None, delay: float, d: int) -> float:
    """``E[T0]`` with every copy at its type's fastest speed: a lower bound on Hedge's
    mean latency whatever the pools its copies land in (each ``A_i >= X_i / max_i r_ij``),
    exact in light traffic on identical servers (speed 1 everywhere)."""
    r, p = _speeds(system), _types(system)
    fastest = r.max(axis=0)
    return math.fsum(pj * light_traffic(X, dep, delay, d, 1.0 / rj).latency for pj, rj in zip(p, fastest) if pj > 0)
