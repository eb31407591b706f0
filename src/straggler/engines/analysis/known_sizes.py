"""Known job sizes: the size-aware bound KS of the threshold paper.

Raaijmakers, Borst, Boxma, *Threshold-based rerouting and replication for
resolving job-server affinity relations* (arXiv 2005.13353; docs: reference results,
section 1): Props. 3-4, Lemma 1 and Remark 2, the stability bound of rerouting
and replication when the dispatcher knows each job's size (and not, or partly, its
type), by linear-programming duality over a weight w on pool 1
(:func:`known_sizes_bound`). The notation is :mod:`.threshold`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...common.numerics import RELATIVE_1E11, integrate_edges
from ...model.dependence import Dependence
from ...model.distributions import Distribution
from ...model.two_pools import TwoPoolSystem
from .threshold import POLICIES


@dataclass(frozen=True)
class KnownSizesBound:
    """The stability bound (job arrival rate) with known job sizes and unknown
    (or partly known) types."""

    rate: float
    """max over the policies computed (rerouting and/or replication)."""
    policy: str
    """The policy that attains ``rate``: ``rerouting`` or ``replication``."""
    weight: float
    """Optimal dual weight w of pool 1 (1 - w on pool 2)."""
    rerouting: float = math.nan
    """lambda_max of size-aware rerouting (Prop. 3; nan if not computed)."""
    replication: float = math.nan
    """lambda_max of size-aware replication (Prop. 4; nan if not computed)."""


def ks_posterior(system: TwoPoolSystem) -> tuple[np.ndarray, np.ndarray]:
    """P(c) and P(j | c) for the belief classes (types are independent of sizes)."""
    p = np.asarray(system.p, dtype=float)
    B = np.asarray(system.belief, dtype=float)  # J x C
    joint = p[:, None] * B
    pc = joint.sum(axis=0)
    keep = pc > 0
    post = (joint[:, keep] / pc[keep]).T  # C' x J
    return pc[keep], post


def ks_costs(system: TwoPoolSystem, post: np.ndarray, policy: str, w: float, x0, x1) -> np.ndarray:
    """cost[k, m, c] = sum_j P(j|c) (w b_1 / n_1 + (1 - w) b_2 / n_2) for choice k
    and sizes (x0[m], x1[m]).

    Choices (Lemma 1, Remark 2): initial pool i and threshold tau in {0} u
    {x_i / r_ij : j} (the rational points; tau = max_j x_i/r_ij is 'never').
    With t_ij = x_i / r_ij, a job of type j brings
    rerouting (Prop. 3): b_i = min(t_ij, tau), b_l = t_lj 1{t_ij > tau};
    replication (Prop. 4): b_i = min(t_ij, tau) + k, b_l = k,
    k = min(t_ij - tau, t_lj) 1{t_ij > tau}.
    """
    r = np.asarray(system.speeds, dtype=float)
    nn = np.asarray(system.n, dtype=float)
    x = [np.atleast_1d(np.asarray(x0, dtype=float))[:, None], np.atleast_1d(np.asarray(x1, dtype=float))[:, None]]
    t = [x[0] / r[0][None, :], x[1] / r[1][None, :]]  # (m, J)
    wt = (w / nn[0], (1.0 - w) / nn[1])
    J = r.shape[1]
    out = []
    for i in range(2):
        l = 1 - i
        ti, tl = t[i], t[l]
        for k in range(J + 1):
            tau = np.zeros_like(ti[:, :1]) if k == 0 else ti[:, k - 1 : k]
            go = ti > tau  # not finished in the first run
            if policy == "rerouting":
                bi = np.minimum(ti, tau)
                bl = np.where(go, tl, 0.0)
            else:
                both = np.where(go, np.minimum(ti - tau, tl), 0.0)
                bi = np.minimum(ti, tau) + both
                bl = both
            out.append((wt[i] * bi + wt[l] * bl) @ post.T)
    return np.stack(out)


def _ks_ratio_kinks(system: TwoPoolSystem, policy: str) -> list[float]:
    """Ratios rho = x_2 / x_1 where a single choice's cost bends (replication:
    t_ij - tau = t_lj); rerouting costs are linear in (x_1, x_2) for each choice."""
    if policy == "rerouting":
        return []
    r = np.asarray(system.speeds, dtype=float)
    J = r.shape[1]
    kinks = []
    for j in range(J):
        for tp in [0.0] + [1.0 / r[0][k] for k in range(J)]:  # start in pool 1, x_1 = 1
            d = 1.0 / r[0][j] - tp
            if d > 0:
                kinks.append(r[1][j] * d)
        for tp in [0.0] + [1.0 / r[1][k] for k in range(J)]:  # start in pool 2, x_2 = rho
            d = 1.0 / r[1][j] - tp
            if d > 0:
                kinks.append(1.0 / (r[0][j] * d))
    out: list[float] = []
    for k in sorted(k for k in kinks if 0 < k < math.inf):
        if not out or k > out[-1] * (1.0 + 1e-12):  # merge round-off duplicates
            out.append(k)
    return out


def tail_mean_product(Y: Distribution, kappa: float) -> float:
    """T(kappa) = E[Y P(Y' > kappa Y)] for i.i.d. Y, Y' (closed forms for the
    exponential and Pareto; otherwise adaptive quadrature split at the kinks)."""
    from ...model.distributions import Exponential, Pareto

    if kappa <= 0.0:
        return Y.mean()
    if math.isinf(kappa):
        return 0.0
    if isinstance(Y, Exponential):
        return Y.mean() / (1.0 + kappa) ** 2
    if isinstance(Y, Pareto):
        xm, a = Y.xm, Y.alpha
        if kappa >= 1.0:
            return a * xm * kappa ** (-a) / (2.0 * a - 1.0)
        return a * xm * (1.0 - kappa ** (a - 1.0)) / (a - 1.0) + a * xm * kappa ** (a - 1.0) / (2.0 * a - 1.0)
    lo, hi = Y.support()
    pts = [v / kappa for v in (lo, hi) if 0 < v < math.inf]
    return expect_continuous(Y, lambda y: y * float(Y.sf(kappa * y)), pts)


def expect_continuous(Y: Distribution, h, points=()) -> float:
    """E[h(Y)] for an atom-free Y: quadrature of h * pdf split at ``points``, the
    infinite tail on a logarithmic scale (relative accuracy ~1e-10)."""
    lo, hi = Y.support()
    scale = Y.mean()
    edges = sorted({lo, hi, *(p for p in points if lo < p < hi)})
    if math.isinf(hi):
        last = edges[-2]
        cut = max(last, lo) + scale
        if cut < hi and cut not in edges:
            edges.insert(len(edges) - 1, cut)
            edges.sort()

    def f(y):
        d = float(Y.pdf(y))
        return 0.0 if d == 0.0 else h(y) * d

    return integrate_edges(f, edges, RELATIVE_1E11)


class _RatioLaw:
    """E[Y_1 g(Y_2 / Y_1)] for i.i.d. atom-free Y and a continuous piecewise-linear g:
    exact given M1(rho) = E[Y_1 1{Y_2 <= rho Y_1}] = E[Y] - T(rho) and
    M2(rho) = E[Y_2 1{Y_2 <= rho Y_1}] = T(1/rho)."""

    def __init__(self, Y: Distribution):
        self.Y = Y
        self.m = Y.mean()
        self.cache: dict[float, float] = {}

    def T(self, kappa: float) -> float:
        """``T(kappa)`` (:func:`tail_mean_product`), cached."""
        if kappa not in self.cache:
            self.cache[kappa] = tail_mean_product(self.Y, kappa)
        return self.cache[kappa]

    def M(self, rho: float) -> tuple[float, float]:
        """``(M1(rho), M2(rho))`` as in the class docstring."""
        if rho <= 0.0:
            return 0.0, 0.0
        if math.isinf(rho):
            return self.m, self.m
        return self.m - self.T(rho), self.T(1.0 / rho)


def _ks_phi_ratio(system, post, pc, policy, w, law: _RatioLaw, kinks) -> float:
    """sum_c P(c) E[min_k cost_k(Y_1, Y_2)] for i.i.d. atom-free replica sizes.

    cost_k(y_1, y_2) = y_1 g_k(y_2 / y_1) with g_k piecewise linear (kinks at
    ``kinks``); between consecutive kinks every g_k is linear, so the lower
    envelope is linear between its pairwise crossings and the expectation is an
    exact sum of A ΔM1 + B ΔM2 over the pieces (cost = A y_1 + B y_2 there)."""
    edges = [0.0, *kinks, math.inf]
    total = np.zeros(len(pc))
    for a, b in zip(edges[:-1], edges[1:]):
        r1, r2 = (a + (b - a) / 3.0, a + 2.0 * (b - a) / 3.0) if math.isfinite(b) else (2.0 * a + 1.0, 4.0 * a + 2.0)
        if not r2 > r1:  # a piece below floating-point resolution carries no mass
            continue
        v = ks_costs(system, post, policy, w, [1.0, 1.0], [r1, r2])  # (K, 2, C)
        slope = (v[:, 1, :] - v[:, 0, :]) / (r2 - r1)
        icpt = v[:, 0, :] - slope * r1
        cuts = {a, b}
        K = slope.shape[0]
        for c in range(slope.shape[1]):
            for k in range(K):
                for k2 in range(k + 1, K):
                    ds = slope[k2, c] - slope[k, c]
                    if ds != 0.0:
                        x = (icpt[k, c] - icpt[k2, c]) / ds
                        if a < x < b:
                            cuts.add(float(x))
        pts = sorted(cuts)
        for lo, hi in zip(pts[:-1], pts[1:]):
            mid = (lo + hi) / 2.0 if math.isfinite(hi) else 2.0 * lo + 1.0
            line = icpt + slope * mid  # (K, C)
            kk = np.argmin(line, axis=0)
            A = icpt[kk, np.arange(line.shape[1])]
            Bc = slope[kk, np.arange(line.shape[1])]
            m1a, m2a = law.M(lo)
            m1b, m2b = law.M(hi)
            total += A * (m1b - m1a) + Bc * (m2b - m2a)
    return float(pc @ total)


def ks_phi_factory(system: TwoPoolSystem, X: Distribution, dep: Dependence, policy: str):
    """Phi(w) = E_x[ min over choices of (w b_1/n_1 + (1-w) b_2/n_2) ] (the dual
    function of the KS linear programme), for the replica law of ``dep``.

    Costs are homogeneous of degree 1 in the replica sizes, so
    identical: Phi = E[X] * cost(1, 1) (exact);
    sx (X_i = X S_i): Phi = E[X] * E_S[cost(S_1, S_2)];
    iid (and sx's slowdown pair): an exact finite sum for atomic laws, otherwise the
    exact piecewise-linear integration of :func:`_ks_phi_ratio`."""
    from ...model.dependence import IID, SX, Identical, Mixture

    if isinstance(dep, Mixture):  # Phi(w) is an expectation over one job's copies: linear in their law
        phis = [(w, ks_phi_factory(system, X, branch, policy)) for w, branch in dep.branches() if w > 0.0]
        return lambda w: math.fsum(c * phi(w) for c, phi in phis)
    pc, post = ks_posterior(system)

    def atomic_pairs(Y):
        pm = [(float(v), float(q)) for v, q in Y.point_masses() if q > 0]
        v = np.array([a for a, _ in pm])
        q = np.array([b for _, b in pm])
        return np.repeat(v, len(v)), np.tile(v, len(v)), np.outer(q, q).ravel()

    def iid_phi(Y, factor):
        pm = sum(q for _, q in Y.point_masses())
        if pm >= 1.0 - 1e-12:
            y0, y1, wts = atomic_pairs(Y)

            def phi_atomic(w):
                env = ks_costs(system, post, policy, w, y0, y1).min(axis=0)  # (pairs, C)
                return factor * float(wts @ (env @ pc))

            return phi_atomic
        if pm > 0:
            raise ValueError(f"known sizes: mixed atomic/continuous laws are not supported ({Y!r})")
        law = _RatioLaw(Y)
        kinks = _ks_ratio_kinks(system, policy)
        return lambda w: factor * _ks_phi_ratio(system, post, pc, policy, w, law, kinks)

    if isinstance(dep, Identical):
        m = X.mean()
        return lambda w: m * float(ks_costs(system, post, policy, w, [1.0], [1.0]).min(axis=0)[0] @ pc)
    if isinstance(dep, IID):
        return iid_phi(X, 1.0)
    if isinstance(dep, SX):
        return iid_phi(dep.slowdown, X.mean())
    raise ValueError(f"unknown dependence {dep!r}")


def _ks_policy_bound(system, X, dep, policy) -> tuple[float, float]:
    """(1 / lambda_max, w*) for one size-aware policy: max over w in [0, 1] of the
    concave dual function Phi(w) (bounded Brent, plus both ends)."""
    from scipy.optimize import minimize_scalar  # lazy

    phi = ks_phi_factory(system, X, dep, policy)
    res = minimize_scalar(lambda w: -phi(w), bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-11})
    cands = [(phi(0.0), 0.0), (phi(1.0), 1.0), (-float(res.fun), float(res.x))]
    val, w = max(cands)
    return val, w


def known_sizes_bound(system: TwoPoolSystem, X, dep, policy: str = "best") -> KnownSizesBound:
    """lambda_max with known job sizes (KS): Props. 3 (rerouting) and 4 (replication).

    The assignment and the threshold may depend on the job's sizes (and on its
    believed class). By Lemma 1 and Remark 2 the threshold can be restricted to
    the rational points x_i / r_ij (plus 0; the largest of them means 'never'),
    and by LP duality (docs: reference results, section 1)

        1 / lambda_max = max_{w in [0,1]} E_x[ min_{initial pool, rational tau}
                         sum_j P(j | class) (w b_1 / n_1 + (1 - w) b_2 / n_2) ],

    b_i the work the job brings to pool i under that choice. (For replication the
    per-job cost is concave in tau between rational points, so they suffice too.)
    Phi(w) is concave (expectation of a minimum of linear functions of w); it is
    maximised by bounded Brent (xatol 1e-11) together with w = 0 and w = 1.

    The expectation: identical replicas reduce exactly to E[X] times the cost of
    a job of size 1 (costs are homogeneous of degree one), so the bound is
    insensitive to the size distribution; i.i.d. replicas use the law of the
    ratio X_2/X_1: the envelope is piecewise linear in it with known pieces, and
    each piece integrates exactly to A E[X_1 1{.}] + B E[X_2 1{.}], with closed
    forms for exponential and Pareto X (machine precision) and adaptive
    quadrature otherwise (relative error ~1e-10); atomic laws are exact finite
    sums; sx is E[X] times the i.i.d. computation for the slowdowns.

    ``policy``: ``rerouting``, ``replication`` or ``best`` (both, the larger is
    the KS bound, and ``policy`` of the result says which attained it). Rates
    are job arrival rates, like the other bounds here.
    """
    policies = POLICIES if policy == "best" else (policy,)
    if any(pp not in POLICIES for pp in policies):
        raise ValueError(f"policy must be 'best' or one of {POLICIES}, got {policy!r}")
    rates = {}
    weights = {}
    for pp in policies:
        val, w = _ks_policy_bound(system, X, dep, pp)
        rates[pp] = 1.0 / val if val > 0 else math.inf
        weights[pp] = w
    # rerouting wins ties (within 1e-12): it is the paper's reading of Section 5
    top = max(rates.values())
    best = next(pp for pp in policies if rates[pp] >= top * (1.0 - 1e-12))
    return KnownSizesBound(
        rate=rates[best],
        policy=best,
        weight=weights[best],
        rerouting=rates.get("rerouting", math.nan),
        replication=rates.get("replication", math.nan),
    )
