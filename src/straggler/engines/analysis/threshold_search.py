"""The threshold policies' stability bounds, optimised over the assignment and the
thresholds: Rer's and Rep's largest arrival rate (:func:`optimal_rerouting`,
:func:`optimal_replication`; at given thresholds :func:`bound_at_threshold`), searched over
the work per pool that :mod:`.threshold` gives.

For fixed thresholds the work per pool is affine in the assignment q, so the inner problem
is a linear programme, solved exactly through its dual (:func:`_inner_value`); the outer
search over (tau_1, tau_2) is :class:`ThresholdOptimiser`: a grid of candidate thresholds,
zoom grids around its best local minima, then a Brent polish (:func:`optimal_rerouting`).
``cancel_delay``: :mod:`.threshold`'s module docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model.dependence import Dependence
from ...model.distributions import Distribution
from ...model.two_pools import Bound, TwoPoolSystem, assignment_fractions
from .threshold import check_tau, expected_work_replication, expected_work_rerouting, pool_pairs, work_profile


@dataclass(frozen=True)
class ThresholdBound(Bound):
    """A stability bound of a threshold policy: rate, q and work as in
    :class:`Bound`, plus the thresholds that attain it."""

    tau: tuple[float, float] = (math.inf, math.inf)
    """(tau_1, tau_2); a pool that receives no first assignments gets inf."""
    policy: str = ""


def _inner_value(p, B, n, own0, cross0, own1, cross1):
    """min over q in [0,1]^C of max_i E[B_i](q) / n_i, vectorised over leading axes.

    E[B_i] is affine in q (alpha_1 = B q), so by LP duality the value is
    max over w in [0,1] of w c_1 + (1-w) c_2 + sum_c min(0, w g_1c + (1-w) g_2c):
    a concave piecewise-linear function of w whose maximum is at w = 0, 1 or a
    zero of one of the g-combinations. Returns (value, (c0, g0, c1, g1)).
    """
    c0 = (cross1 @ p) / n[0]
    g0 = ((own0 - cross1) * p) @ B / n[0]
    c1 = (own1 @ p) / n[1]
    g1 = ((cross0 - own1) * p) @ B / n[1]
    g0, g1 = np.broadcast_arrays(g0, g1)
    c0 = np.broadcast_to(c0, g0.shape[:-1])
    c1 = np.broadcast_to(c1, g0.shape[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        wc = np.where(g1 != g0, g1 / (g1 - g0), 0.0)
    wc = np.clip(np.nan_to_num(wc, nan=0.0, posinf=0.0, neginf=0.0), 0.0, 1.0)
    ws = np.concatenate([np.zeros(c0.shape + (1,)), np.ones(c0.shape + (1,)), wc], axis=-1)
    h = ws[..., :, None] * g0[..., None, :] + (1.0 - ws[..., :, None]) * g1[..., None, :]
    phi = ws * c0[..., None] + (1.0 - ws) * c1[..., None] + np.minimum(h, 0.0).sum(axis=-1)
    return phi.max(axis=-1), (c0, g0, c1, g1)


def _best_q(c0: float, g0: np.ndarray, c1: float, g1: np.ndarray) -> np.ndarray:
    """A minimiser q of max(c0 + g0.q, c1 + g1.q) over [0,1]^C (exact for C = 1).

    Ties (e.g. full redundancy, where the load does not depend on q) go to the
    balancing point, then to q = 1/2, then to the vertices."""
    C = g0.size
    cands = []
    if C == 1:
        if g0[0] != g1[0]:
            cands.append(np.clip(np.array([(c1 - c0) / (g0[0] - g1[0])]), 0.0, 1.0))
    else:
        from scipy.optimize import linprog  # lazy

        c = np.zeros(C + 1)
        c[-1] = 1.0
        A_ub = np.vstack([np.append(g0, -1.0), np.append(g1, -1.0)])
        res = linprog(c, A_ub=A_ub, b_ub=np.array([-c0, -c1]), bounds=[(0.0, 1.0)] * C + [(None, None)], method="highs")
        if res.success:
            cands.append(np.clip(res.x[:C], 0.0, 1.0))
    cands += [np.full(C, 0.5), np.zeros(C), np.ones(C)]
    vals = np.array([max(c0 + g0 @ q, c1 + g1 @ q) for q in cands])
    best = vals.min()
    q = cands[int(np.flatnonzero(vals <= best + 1e-14 * abs(best))[0])]
    # LP round-off: snap to the vertices when that costs nothing
    snapped = np.where(q < 1e-9, 0.0, np.where(q > 1.0 - 1e-9, 1.0, q))
    if max(c0 + g0 @ snapped, c1 + g1 @ snapped) <= best + 1e-14 * abs(best):
        q = snapped
    return q


class ThresholdOptimiser:
    """Outer search over (tau_1, tau_2), inner exact LP over q (dual form)."""

    def __init__(self, system, X, dep, policy, cancel_delay: float = 0.0):
        self.system, self.X, self.dep, self.policy = system, X, dep, policy
        self.cancel_delay = cancel_delay
        self.P = pool_pairs(system, X, dep)
        self.p = np.asarray(system.p, dtype=float)
        self.B = np.asarray(system.belief, dtype=float)
        self.n = np.asarray(system.n, dtype=float)
        self.cache: list[dict[float, tuple[np.ndarray, np.ndarray]]] = [{}, {}]
        r = np.asarray(system.speeds, dtype=float)
        m = np.array([dep.replica_mean(X.of_type(j)) for j in range(system.n_types)])
        # natural time scale per pool: geometric mean of E[A_ij] over the types
        self.scale = [float(np.exp(np.mean(np.log(m / r[i])))) for i in range(2)]
        self.evaluations = 0

    # threshold <-> u = tau / (scale + tau) in [0, 1]
    def tau_of(self, i, u):
        """The threshold of pool ``i`` at ``u`` in [0, 1] (0 -> 0, 1 -> inf)."""
        if u <= 0.0:
            return 0.0
        if u >= 1.0:
            return math.inf
        return self.scale[i] * u / (1.0 - u)

    def u_of(self, i, tau):
        """The point ``u`` in [0, 1] of pool ``i``'s threshold ``tau`` (inverse of :meth:`tau_of`)."""
        return 1.0 if math.isinf(tau) else tau / (self.scale[i] + tau)

    def profile(self, i, tau):
        """``(own, cross)`` per-type work of a job starting in pool ``i`` (:func:`.threshold.work_profile`), cached."""
        c = self.cache[i]
        if tau not in c:
            c[tau] = work_profile(self.P, self.policy, i, tau, cancel_delay=self.cancel_delay)
        return c[tau]

    def candidates(self, i) -> np.ndarray:
        """0, inf, support ends and atoms of every A_ij (the 'rational' points where
        the load has kinks or jumps; a trace's many atoms thinned, :func:`_replica_points`)
        and a geometric grid, ~7 points per decade
        from 1e-4 to 1e5 times the pool's time scale."""
        r = np.asarray(self.system.speeds, dtype=float)
        pts = {0.0, math.inf}
        s = self.scale[i]
        pts.update(float(x) for x in s * np.logspace(-4, 5, 64))
        for j in range(self.system.n_types):
            for v in _replica_points(self.X.of_type(j), self.dep):
                if 0 < v < math.inf:
                    pts.add(float(v / r[i][j]))
        return np.array(sorted(pts))

    def value(self, t0, t1) -> float:
        """The LP value min over q of max_i E[B_i] / n_i at thresholds ``(t0, t1)``."""
        self.evaluations += 1
        o0, x0 = self.profile(0, t0)
        o1, x1 = self.profile(1, t1)
        v, _ = _inner_value(self.p, self.B, self.n, o0, x0, o1, x1)
        return float(v)

    def run(self) -> ThresholdBound:
        """The bound at the best thresholds: grid, then zoom and polish from its best local minima."""
        from scipy.optimize import minimize_scalar  # lazy

        grids = [self.candidates(i) for i in range(2)]
        self._grid_tau = grids
        prof = []
        for i in range(2):
            own, cross = zip(*(self.profile(i, float(t)) for t in grids[i]))
            prof.append((np.array(own), np.array(cross)))
        (o0, x0), (o1, x1) = prof
        V, _ = _inner_value(self.p, self.B, self.n, o0[:, None, :], x0[:, None, :], o1[None, :, :], x1[None, :, :])
        self.evaluations += V.size
        # starting points: the best grid points that are local minima of the grid
        padded = np.pad(V, 1, constant_values=np.inf)
        local = np.ones_like(V, dtype=bool)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di or dj:
                    nb = padded[1 + di : 1 + di + V.shape[0], 1 + dj : 1 + dj + V.shape[1]]
                    local &= V <= nb
        idx = np.argwhere(local)
        order = np.argsort(V[local])[:4]
        starts = [tuple(idx[k]) for k in order]
        best_t = (float(grids[0][starts[0][0]]), float(grids[1][starts[0][1]]))
        best_v = float(V[starts[0]])
        ugrid = [np.array([self.u_of(i, float(t)) for t in grids[i]]) for i in range(2)]
        for a, b in starts:
            t, v = self.zoom(ugrid, (a, b), float(V[a, b]))
            t, v = self.polish(t, v, minimize_scalar)
            if v < best_v:
                best_v, best_t = v, t
        if self._thinned():
            best_t, best_v = self.snap_to_atoms(best_t, best_v)
        # prefer the plain policies on (numerical) ties: ZRed (inf, inf), then FRed (0, 0)
        for simple in ((math.inf, math.inf), (0.0, 0.0)):
            if self.value(*simple) <= best_v * (1.0 + 1e-10):
                best_t = simple
                break
        return self.finish(best_t)

    def snap_to_atoms(self, t, v) -> tuple[tuple[float, float], float]:
        """The best point so far against the atoms the first grid left out near it: in
        each pool its threshold, 0, inf and the atoms between the two grid points around
        it, every pair of them (a kink of the load sits on an atom, where the zoom only
        comes within its tolerance; the other pool's threshold may move with it)."""
        near = []
        for i in range(2):
            grid = self._grid_tau[i]
            k = int(np.searchsorted(grid, t[i]))
            lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
            atoms = self._atoms(i)
            near.append(np.unique(np.concatenate(([t[i], 0.0, math.inf], atoms[(atoms > lo) & (atoms < hi)]))))
        V = self.values(near[0].tolist(), near[1].tolist())
        a, b = np.unravel_index(int(np.argmin(V)), V.shape)
        if V[a, b] < v:
            return (float(near[0][a]), float(near[1][b])), float(V[a, b])
        return (float(t[0]), float(t[1])), v

    def _thinned(self) -> bool:
        """Whether the first grid left atoms out (a law with more than
        :data:`CANDIDATE_ATOMS`: :func:`_replica_points`)."""
        from ...model.dependence import SX

        laws = [self.X.of_type(j) for j in range(self.system.n_types)]
        if isinstance(self.dep, SX):
            laws.append(self.dep.slowdown)
        return any(len(law.atoms()) > CANDIDATE_ATOMS for law in laws)

    def _atoms(self, i) -> np.ndarray:
        """Every atom of every A_ij (unthinned), sorted."""
        r = np.asarray(self.system.speeds, dtype=float)
        pts = {
            float(x / r[i][j])
            for j in range(self.system.n_types)
            for x in _replica_points(self.X.of_type(j), self.dep, thin=False)
            if 0 < x < math.inf
        }
        return np.array(sorted(pts))

    def values(self, t0s, t1s) -> np.ndarray:
        """V on the grid t0s x t1s (profiles computed once per coordinate)."""
        o0, x0 = map(np.array, zip(*(self.profile(0, t) for t in t0s)))
        o1, x1 = map(np.array, zip(*(self.profile(1, t) for t in t1s)))
        V, _ = _inner_value(self.p, self.B, self.n, o0[:, None, :], x0[:, None, :], o1[None, :, :], x1[None, :, :])
        self.evaluations += V.size
        return V

    def zoom(self, ugrid, start, v, points=13, shrink=4.0, xtol=1e-9):
        """Successive 2-D grids in (u_1, u_2) around the best point, shrinking by
        ``shrink`` each level (moving without shrinking when the best point is on
        the window's edge): follows ridges and kinks that defeat coordinate search."""
        a, b = start
        uc = [float(ugrid[0][a]), float(ugrid[1][b])]
        # start from the exact candidate thresholds (u -> tau does not round-trip atoms)
        tc = [float(self._grid_tau[0][a]), float(self._grid_tau[1][b])]
        h = []
        for i, k in enumerate(start):
            g = ugrid[i]
            h.append(max(g[min(k + 1, len(g) - 1)] - g[k], g[k] - g[max(k - 1, 0)]))
        for _level in range(60):
            axes = []
            for i in range(2):
                us = np.unique(np.clip(np.linspace(uc[i] - h[i], uc[i] + h[i], points), 0.0, 1.0))
                axes.append([tc[i]] + [self.tau_of(i, float(u)) for u in us])  # centre first
            t0s, t1s = axes
            V = self.values(t0s, t1s)
            k0, k1 = np.unravel_index(int(np.argmin(V)), V.shape)
            if V[k0, k1] < v:
                v = float(V[k0, k1])
                tc = [t0s[k0], t1s[k1]]
                uc = [self.u_of(0, tc[0]), self.u_of(1, tc[1])]
                edge = [k0 in (1, len(t0s) - 1), k1 in (1, len(t1s) - 1)]
            else:
                edge = [False, False]
            h = [hi if e else hi / shrink for hi, e in zip(h, edge)]
            if max(h) < xtol:
                break
        return (tc[0], tc[1]), v

    def polish(self, t, v, minimize_scalar):
        """Coordinate-wise bounded Brent in u around the current point."""
        t = list(t)
        for _sweep in range(3):
            improved = False
            for i in range(2):
                u = self.u_of(i, t[i])
                step = 1e-3
                lo, hi = max(u - step, 0.0), min(u + step, 1.0)

                def f(uu, i=i):
                    tt = list(t)
                    tt[i] = self.tau_of(i, uu)
                    return self.value(*tt)

                res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
                if res.fun < v * (1 - 1e-13):
                    t[i] = self.tau_of(i, float(res.x))
                    v = float(res.fun)
                    improved = True
            if not improved:
                break
        return (t[0], t[1]), v

    def finish(self, tau) -> ThresholdBound:
        """The bound at thresholds ``tau``, with its optimal q and each pool's work."""
        o0, x0 = self.profile(0, tau[0])
        o1, x1 = self.profile(1, tau[1])
        _, (c0, g0, c1, g1) = _inner_value(self.p, self.B, self.n, o0, x0, o1, x1)
        q = _best_q(float(c0), np.asarray(g0), float(c1), np.asarray(g1))
        alpha = assignment_fractions(self.system, q)
        tau = list(tau)
        # a pool that never gets a first assignment does not use its threshold
        for i in range(2):
            if not np.any((alpha[i] > 0) & (self.p > 0)):
                tau[i] = math.inf
        fn = expected_work_rerouting if self.policy == "rerouting" else expected_work_replication
        work = fn(self.system, self.X, self.dep, alpha, tau, self.cancel_delay)
        t = max(work[0] / self.n[0], work[1] / self.n[1])
        return ThresholdBound(
            rate=1.0 / t if t > 0 else math.inf,
            q=tuple(float(x) for x in q),
            work=(float(work[0]), float(work[1])),
            tau=(float(tau[0]), float(tau[1])),
            policy=self.policy,
        )


CANDIDATE_ATOMS = 256
"""At most this many of a law's atoms are starting points of the threshold search: a trace
has one atom per distinct value, and the search's first grid has every pair of candidates
(quadratic in their number); with more atoms, every k-th in order (support ends kept). The
zoom and polish that follow search between them."""


def _replica_points(X: Distribution, dep: Dependence, thin: bool = True) -> list[float]:
    """Support ends and atoms of a replica size X_i (speed 1): with ``thin``, at most
    :data:`CANDIDATE_ATOMS` of a law's atoms, evenly spaced in rank."""
    from ...model.dependence import SX

    def ends(D):
        lo, hi = D.support()
        atoms = D.atoms()
        if thin and len(atoms) > CANDIDATE_ATOMS:
            atoms = atoms[:: -(-len(atoms) // CANDIDATE_ATOMS)]
        return [lo, hi, *atoms]

    xs = ends(X)
    if isinstance(dep, SX):
        ss = ends(dep.slowdown)
        return [x * s for x in xs for s in ss if math.isfinite(x * s)]
    return [x for x in xs if math.isfinite(x)]


def _optimal(system, X, dep, policy, cancel_delay: float = 0.0) -> ThresholdBound:
    return ThresholdOptimiser(system, X, dep, policy, cancel_delay).run()


def optimal_rerouting(system: TwoPoolSystem, X, dep, cancel_delay: float = 0.0) -> ThresholdBound:
    """Maximise 1 / max_i (E[B_i^Rer] / n_i) (eq. 2) over (q, tau_1, tau_2).

    For fixed tau, E[B_i] is affine in the assignment q (Cor. 1-3), so the inner
    problem is a linear programme, solved exactly through its dual (a concave
    piecewise-linear function of one weight w, maximal at one of C + 2 points),
    vectorised over many thresholds at once. The outer search over
    tau in [0, inf]^2 works in u = tau / (s_i + tau) (s_i the geometric mean of
    E[X_i/r_ij] over the types): a grid of candidate thresholds per pool (0, inf,
    the support ends and atoms of each X_i/r_ij, where the load has kinks or
    jumps, and 64 geometric points over nine decades around s_i), all pairs
    evaluated at once; from the four best local minima of that grid, successive
    13 x 13 zoom grids in (u_1, u_2) shrinking 4x per level down to 1e-9 (they
    follow the ridges along which both thresholds must move together and never
    leave a candidate atom unless something is better), then a coordinate-wise
    bounded Brent polish. Exact ties go to (inf, inf), then (0, 0). Since
    (inf, inf) is a candidate the result is never below zero redundancy, and the
    returned (q, tau) attain the returned rate (recomputed with eq. 2).
    Typical time: ~15 ms (closed-form pair functionals), ~0.3 s when k needs
    quadrature (i.i.d. Pareto replication). ``cancel_delay``: the work per pool carries
    it (module docstring), so the optimum does.
    """
    return _optimal(system, X, dep, "rerouting", cancel_delay)


def bound_at_threshold(system: TwoPoolSystem, X, dep, policy: str, tau, cancel_delay: float = 0.0) -> ThresholdBound:
    """The stability bound of ``policy`` ("rerouting" or "replication") at the given
    threshold(s), with the assignment q that maximises it (the inner LP of
    :func:`optimal_rerouting`)."""
    t0, t1 = check_tau(tau)
    return ThresholdOptimiser(system, X, dep, policy, cancel_delay).finish((t0, t1))


def optimal_replication(system: TwoPoolSystem, X, dep, cancel_delay: float = 0.0) -> ThresholdBound:
    """Maximise 1 / max_i (E[B_i^Rep] / n_i) (eq. 4) over (q, tau_1, tau_2); the
    method of :func:`optimal_rerouting`. (0, 0) and (inf, inf) are candidates, so
    the result is never below max(ZRed, FRed); with full redundancy, where the
    load does not depend on q, q = 1/2 is reported."""
    return _optimal(system, X, dep, "replication", cancel_delay)
