"""Solving one mean-field equilibrium on a grid, and refining the grid to a tolerance.

The level-crossing equations (the module docstring of :mod:`straggler.engines.mean_field`
states them) are marched by :func:`.kernels.march` from ``Fbar(0) = b``. Where ``b`` is
known (one copy served in full: ZRed, CoS, any policy with d = 1; RIQ, whose ``b``
solves a scalar equation) one march solves the grid. Under cancel on complete ``b`` is
the unknown of a shooting problem (Hellemans, Bodas and Van Houdt, POMACS 3(2) 2019,
who bisect on ``Fbar(0)``): too small a ``b`` and ``Fbar`` crosses 0, too large
and it levels off above 0. The end value ``Fbar(W; b)`` is, near the root, almost
exactly linear in ``b`` (the levelling-off is a constant mode of the linearised
equation), so Brent's method on it finds ``b`` in a few marches on the first grid, and
a secant from that root in two or three on each finer one. No ``b < 1`` whose march
stays positive (the march from ``b = 1 - 1e-9`` crosses 0) is instability.

The grid: a step from the law's body (:func:`initial_step`), an end ``W`` where the
workload's and the latency's tails have fallen below :data:`TAIL` (found on a pre-grid
of four times the step, capped so that two refinements keep at most :data:`MAX_CELLS`
cells), then steps halved until two grids agree within the tolerance. A heavy tail
that the cap cuts is reported (``truncated``); E[T] does not depend on it, as it is
taken from exact decompositions (:func:`latency`), and under cancel on complete with
identical copies the march's end condition carries the tail beyond ``W`` (the one big
jump of :meth:`Grid.tail_target`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model.distributions import Distribution
from . import tables as tables_module
from .equilibrium import Equilibrium
from .kernels import FORM_IDLE, FORM_LEAST, FORM_ONE, FORM_REDUNDANT, march, point_convolution

#: where the grid may end: the workload's tail below this (relative to b)
TAIL = 1e-8
#: the finest grid's cells at most (the march costs O(cells x support))
MAX_CELLS = 20_000
#: a finer grid's work at most, in cells x convolution support x marches (at some 2e9 a
#: second, with the point convolutions and the tables, a few tenths of a second)
WORK_BUDGET = 4e8
#: the first grid's cells per body scale (initial_step)
CELLS_PER_SCALE = 8
#: the pre-grid's step, in first steps
PRE_FACTOR = 4
#: the mass beyond the grid worth a coarser step (the 99.9th percentile and beyond on
#: the grid), and how much coarser at most
TRUNCATION_GOAL = 1e-4
COARSENING = 4
#: the busy probability that stands for 1 (instability) in the shooting
B_MAX = 1.0 - 1e-9
#: the support of delta below this relative value is cut (its terms underflow)
DELTA_CUT = 1e-17

FORMS = {"one": FORM_ONE, "least": FORM_LEAST, "redundant": FORM_REDUNDANT, "idle": FORM_IDLE}
"""The forms of the level-crossing equation by the face's names for them."""


@dataclass(frozen=True)
class Problem:
    """One equilibrium to solve: the form of its equation (:mod:`.kernels`), d, the
    arrival rate per server, the identical share ``c`` of the copies and the size law."""

    policy: str
    form: int
    d: int
    rate: float
    c: float
    X: Distribution
    load: float

    @property
    def b_known(self) -> bool:
        """Whether b is known before the march (no shooting): one march a grid."""
        return self.form != FORM_REDUNDANT or self.d == 1


@dataclass
class GridSolution:
    """One grid's solution: ``b``, ``Fbar`` and the latency's survival function at the
    grid points, E[T], the grid's own mean of T, the tail estimate, stability."""

    h: float
    n: int
    b: float
    stable: bool
    workload_sf: np.ndarray
    latency_sf: np.ndarray
    latency_mean: float
    grid_mean: float
    tail: float
    slope: float = 1.0
    support: int = 0


# ----------------------------------------------------------------------------- the law


def body_scale(problem: Problem) -> float:
    """The length over which the solution changes: the smaller of the size's mean and
    median, and, where the least of d i.i.d. copies ends a job (cancel on complete, RIQ),
    twice its mean (with many copies the latency lives far below the size's body)."""
    X = problem.X
    scale = min(X.mean(), X.quantile(0.5))
    if problem.form in (FORM_REDUNDANT, FORM_IDLE) and problem.c < 1.0 and problem.d > 1:
        scale = min(scale, 2.0 * X.mean_min_of(problem.d))
    return scale


def initial_step(problem: Problem) -> float:
    """The first grid's step: a fraction of the body; a single atom (a deterministic
    size) lands on the grid."""
    X = problem.X
    h = body_scale(problem) / CELLS_PER_SCALE
    atoms = X.atoms()
    if len(atoms) == 1 and atoms[0] > 0:
        h = atoms[0] / math.ceil(atoms[0] / h)
    return h


def initial_end(X: Distribution, busy: float, rate: float) -> float:
    """A first guess of where the workload's tail falls below :data:`TAIL`: the
    exponential decay of an M/G/1 queue at the load ``busy`` by Kingman's heavy-traffic
    rate ``2 (1 - busy) / (rate E[X^2])``, plus the size's own far quantile."""
    m2 = X.second_moment()
    far = X.quantile(1.0 - 1e-6)
    busy = min(max(busy, 0.05), 0.995)
    if not math.isfinite(m2):
        return 1e6 * X.mean()
    theta = 2.0 * (1.0 - busy) / (rate * m2)
    return far + math.log(1.0 / TAIL) / theta


def order_means(X: Distribution, d: int, c: float, tables) -> tuple[list[float], list[float]]:
    """``E[M_k]`` and ``E[M_k^2]`` for k = 1..d, ``M_k`` the least of k copies (share
    ``c`` identical): exact means; second moments on the grid (plus ``E[X^2]`` exactly)."""
    m1, m2 = [], []
    for k in range(1, d + 1):
        iid1 = X.mean() if k == 1 else X.mean_min_of(k)
        iid2 = X.second_moment() if k == 1 else tables.x_powers[k - 1]
        m1.append(weighted(((c, X.mean()), (1.0 - c, iid1))))
        m2.append(weighted(((c, X.second_moment()), (1.0 - c, iid2))))
    return m1, m2


def weighted(terms) -> float:
    """``sum w x`` over the terms of positive weight: an infinite moment with weight 0
    (a branch or a count of copies that never happens) counts nothing, not nan."""
    return (
        math.fsum(w * x for w, x in terms if w > 0.0)
        if all(math.isfinite(x) for w, x in terms if w > 0.0)
        else math.inf
    )


def binomial(n: int, k: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1.0 - p) ** (n - k)


# -------------------------------------------------------------------------- the pieces


#: a probability below this at the grid's end is round-off (its tail is negligible)
NEGLIGIBLE = 1e-14


def tail_integral(s: np.ndarray, h: float) -> tuple[float, float]:
    """An estimate of ``int_W^inf s`` from the grid values of a decreasing ``s``, and its
    uncertainty: the power law (an exponential is a steep one) through ``s(3W/4)`` and
    ``s(W)``, uncertain by itself; a tail that does not fall fast enough for a finite
    integral gives ``W s(W)`` and an infinite uncertainty."""
    n = s.size - 1
    s1 = float(s[-1])
    W = n * h
    if s1 <= NEGLIGIBLE:
        return W * s1, W * s1
    k0 = int(0.75 * n)
    s0 = float(s[k0])
    if s0 <= s1 or k0 == 0:
        return W * s1, math.inf
    beta = math.log(s0 / s1) / math.log(n / k0)
    if beta <= 1.05:
        return W * s1, math.inf
    estimate = W * s1 / (beta - 1.0)
    return estimate, estimate


def cell_power_means(F: np.ndarray, d: int) -> np.ndarray:
    """The cell averages of ``Fbar^d`` for ``Fbar`` linear within each cell (exact)."""
    a, z = F[:-1], F[1:]
    return sum(a**i * z ** (d - i) for i in range(d + 1)) / (d + 1)


def idle_start_law(tables, d: int, c: float, b: float) -> np.ndarray:
    """RIQ: the cell averages of ``E[P(M_K > w)]``, K - 1 ~ Binomial(d - 1, 1 - b)."""
    out = np.zeros(tables.n)
    for k in range(1, d + 1):
        w = binomial(d - 1, k - 1, 1.0 - b)
        if w > 0.0:
            out += w * (c * tables.powers[0] + (1.0 - c) * tables.powers[k - 1])
    return out


def idle_busy_probability(problem: Problem, m1: list[float]) -> float | None:
    """RIQ's ``b``: the smallest root in (0, 1) of ``lambda d (1 - b) E[M_K] + lambda b^d
    E[X] - b`` (integrating the level-crossing equation); None when there is none."""
    lam, d, EX = problem.rate, problem.d, problem.X.mean()

    def phi(b: float) -> float:
        emk = sum(binomial(d - 1, k - 1, 1.0 - b) * m1[k - 1] for k in range(1, d + 1))
        return lam * d * (1.0 - b) * emk + lam * b**d * EX - b

    grid = np.linspace(0.0, 1.0, 401)
    values = [phi(float(x)) for x in grid]
    for i in range(1, grid.size):
        if values[i] <= 0.0:
            if values[i] == 0.0:
                return float(grid[i]) if grid[i] < 1.0 else None
            from scipy.optimize import brentq

            b = float(brentq(phi, grid[i - 1], grid[i], xtol=1e-15, rtol=1e-15))
            return b if b < B_MAX else None
    return None


# ---------------------------------------------------------------------------- one grid


class Grid:
    """One grid (step ``h``, ``n`` cells) of one problem: its tables and marches."""

    def __init__(self, problem: Problem, h: float, n: int):
        self.problem = problem
        self.h = h
        self.n = n
        p = problem
        self.tables = tables_module.build(p.X, h, n, powers_up_to=p.d if p.form == FORM_IDLE else 1)
        delta = self.tables.delta
        big = np.flatnonzero(delta > DELTA_CUT * delta.max())
        self.delta = delta[: big[-1] + 1].copy()
        A = self.tables.A
        big = np.flatnonzero(A > DELTA_CUT * A.max())
        self.A_cut = A[: big[-1] + 1].copy()
        self.zeros = np.zeros(n)

    def run(self, b: float, M: np.ndarray | None = None, stop_on_cross: bool = False):
        p = self.problem
        return march(
            p.form,
            p.d,
            p.rate,
            b,
            p.c,
            self.h,
            self.tables.A,
            self.delta,
            self.zeros if M is None else M,
            self.n,
            stop_on_cross,
        )

    def tail_target(self, b: float, Fbar: np.ndarray) -> float:
        """Cancel on complete: ``Fbar(W)`` as the identical copies' one big jump makes it,
        ``lambda d c E[int_W^inf S(w - U_min) dw]`` over the workload below W (what the
        march leaves out is of second order in the tail); 0 for i.i.d. copies."""
        p = self.problem
        if p.c == 0.0 or p.d == 1:
            return 0.0
        q = Fbar[:-1] ** p.d - Fbar[1:] ** p.d
        T = self.tables
        end = max(p.X.mean() - T.A.sum() * self.h, 0.0)
        return p.rate * p.d * p.c * ((1.0 - b**p.d) * end + float(np.dot(q, T.tail1[::-1])))

    def shoot(self, b: float):
        """``Fbar(W; b)`` less its target, and the march."""
        out = self.run(b)
        return float(out[0][-1]) - self.tail_target(b, out[0]), out


def crosses(grid: Grid, b: float) -> bool:
    """HBVH's criterion: the march from ``b`` falls below its target before the end (b
    too small); it stops there, so a low ``b`` costs a short march."""
    out = grid.run(b, stop_on_cross=True)
    if out[5] >= 0:
        return True
    return float(out[0][-1]) - grid.tail_target(b, out[0]) <= 0.0


def find_busy_first(grid: Grid) -> tuple[float, float, tuple] | None:
    """The shooting without a seed: None when unstable, else ``(b, slope, march)``.

    Far below the root, the march continued past its crossing of 0 is no guide (with
    d > 2 it may turn back up), so the root is bracketed by bisection on the crossing
    (Hellemans, Bodas and Van Houdt's), and found by Brent's method on the end value
    once the bracket is narrow enough for the end value to be linear in ``b``.
    """
    from scipy.optimize import brentq

    p = grid.problem
    if crosses(grid, B_MAX):
        return None
    low_cost = p.c * p.X.mean() + (1.0 - p.c) * p.X.mean_min_of(p.d)
    lo = min(p.rate * low_cost * (1.0 - 1e-6), B_MAX)
    if not crosses(grid, lo):
        lo = 0.0
    hi = B_MAX
    memo: dict[float, tuple] = {}

    def g(b: float) -> float:
        value, out = grid.shoot(b)
        memo[b] = out
        return value

    width = 1e-3
    while True:
        while hi - lo > width * hi:
            mid = 0.5 * (lo + hi)
            if crosses(grid, mid):
                lo = mid
            else:
                hi = mid
        g_lo, g_hi = g(lo), g(hi)
        if g_lo < 0.0 < g_hi:
            break
        if g_lo == 0.0 or g_hi == 0.0 or width < 1e-12:
            b = lo if abs(g_lo) <= abs(g_hi) else hi
            return b, 1.0, memo[b]
        width *= 1e-3
    b = float(brentq(g, lo, hi, xtol=1e-15, rtol=1e-14, maxiter=200))
    out = memo[b] if b in memo else grid.run(b)
    slope = (g_hi - g_lo) / (hi - lo)
    return b, slope, out


def find_busy_next(grid: Grid, b0: float, slope: float) -> tuple[float, float, tuple] | None:
    """The shooting seeded by a coarser grid's root: a secant in the linear regime near
    it; the unseeded search when the secant strays."""
    start = b0
    g0, out0 = grid.shoot(b0)
    if g0 == 0.0:
        return b0, slope, out0
    b1 = min(b0 - g0 / slope, B_MAX)
    for _ in range(12):
        if abs(b1 - start) > 0.05 * start:
            break
        g1, out1 = grid.shoot(b1)
        if g1 == 0.0 or abs(b1 - b0) <= 1e-14 * b1:
            return b1, slope, out1
        if g1 != g0:
            slope = (g1 - g0) / (b1 - b0)
        b0, g0 = b1, g1
        b1 = min(b0 - g0 / slope, B_MAX)
    return find_busy_first(grid)


def solve_grid(problem: Problem, h: float, n: int, previous: GridSolution | None) -> GridSolution:
    """The equilibrium on one grid (the previous, coarser grid's root seeds the shooting)."""
    p = problem
    grid = Grid(problem, h, n)
    T = grid.tables
    d, c, X = p.d, p.c, p.X
    m1: list[float] = []
    m2: list[float] = []
    slope = 1.0
    if p.form == FORM_IDLE:
        m1, m2 = order_means(X, d, c, T)
        b = idle_busy_probability(p, m1)
        if b is None:
            return unstable_grid(h, n)
        M = idle_start_law(T, d, c, b)
        out = grid.run(b, M)
    elif p.b_known:
        b = p.load
        if b >= 1.0:
            return unstable_grid(h, n)
        out = grid.run(b)
    else:
        if previous is None or not previous.stable:
            found = find_busy_first(grid)
        else:
            found = find_busy_next(grid, previous.b, previous.slope)
        if found is None:
            return unstable_grid(h, n)
        b, slope, out = found
    Fbar, masses, cp, cq, cv, crossed = out
    Fbar = np.minimum.accumulate(np.maximum(Fbar, 0.0))
    lat, cell, tail, mean = latency(problem, grid, b, Fbar, masses, cp, cq, m1, m2)
    return GridSolution(
        h=h,
        n=n,
        b=b,
        stable=True,
        workload_sf=Fbar,
        latency_sf=lat,
        latency_mean=float(mean),
        grid_mean=float(h * cell.sum()),
        tail=float(tail),
        slope=slope,
        support=int(grid.delta.size),
    )


def latency(problem: Problem, grid: Grid, b: float, Fbar, masses, cp, cq, m1, m2):
    """``(P(T > w_k) at the points, its cell averages, the uncertainty of E[T]'s tail
    beyond the grid, E[T])``.

    E[T] takes its exact decomposition where the grid's end would cut a heavy tail:
    ``E[X] + E[U_min]`` when ``T = U_min + X`` (``Fbar^d`` has a light tail for d >= 2),
    Pollaczek-Khinchine for one copy served in full (d = 1), and for RIQ the first
    moment of its linear equation. The i.i.d. copies' ``H^d`` is integrated on the grid.
    """
    p = problem
    T = grid.tables
    lam, d, c, X, h = p.rate, p.d, p.c, p.X, grid.h
    EX = X.mean()
    A = grid.A_cut
    F_mid = 0.5 * (Fbar[:-1] + Fbar[1:])
    tail = 0.0
    mean = 0.0
    if p.form == FORM_ONE:
        lat = Fbar + point_convolution(masses, 1.0 - b, T.S_points, A)
        cell = F_mid + (1.0 - b) * T.A + cp
    elif p.form == FORM_IDLE:
        lat = b ** (d - 1) * (Fbar + point_convolution(masses, 0.0, T.S_points, A))
        cell = b ** (d - 1) * (F_mid + cp)
        for k in range(1, d + 1):
            w = binomial(d, k, 1.0 - b)
            lat = lat + w * (c * T.S_points + (1.0 - c) * T.S_points**k)
            cell = cell + w * (c * T.powers[0] + (1.0 - c) * T.powers[k - 1])
        # integrating w f(w): E[U] (1 - lambda b^(d-1) E[X]) = lambda d (1 - b) E[M_K^2] / 2 + lambda b^d E[X^2] / 2
        emk2 = weighted([(binomial(d - 1, k - 1, 1.0 - b), m2[k - 1]) for k in range(1, d + 1)])
        EU = weighted(((lam * d * (1.0 - b) / 2.0, emk2), (lam * b**d / 2.0, X.second_moment())))
        EU /= 1.0 - lam * b ** (d - 1) * EX
        mean = weighted(
            [(binomial(d, k, 1.0 - b), m1[k - 1]) for k in range(1, d + 1)] + [(b**d, EX), (b ** (d - 1), EU)]
        )
    else:
        lat = np.zeros(Fbar.size)
        cell = np.zeros(F_mid.size)
        least_share = 1.0 if p.form == FORM_LEAST else c
        if least_share > 0.0:
            least = np.maximum(Fbar[:-1] ** d - Fbar[1:] ** d, 0.0)
            lat = lat + least_share * (Fbar**d + point_convolution(least, 1.0 - b**d, T.S_points, A))
            powers = cell_power_means(Fbar, d)
            cell = cell + least_share * (powers + (1.0 - b**d) * T.A + cq)
            least_tail, least_doubt = tail_integral(Fbar**d, h)
            mean += least_share * (EX + h * powers.sum() + least_tail)
            tail += least_share * least_doubt
        if least_share < 1.0:
            H = np.minimum(Fbar + point_convolution(masses, 1.0 - b, T.S_points, A), 1.0)
            lat = lat + (1.0 - least_share) * H**d
            H_cell = np.minimum(F_mid + (1.0 - b) * T.A + cp, 1.0) ** d
            cell = cell + (1.0 - least_share) * H_cell
            iid_tail, iid_doubt = tail_integral(H**d, h)
            mean += (1.0 - least_share) * (h * H_cell.sum() + iid_tail)
            tail += (1.0 - least_share) * iid_doubt
    if d == 1 and p.form != FORM_IDLE:
        # one copy served in full: M/G/1, Pollaczek-Khinchine (the grid would cut a heavy tail)
        mean = EX + lam * X.second_moment() / (2.0 * (1.0 - b))
        tail = 0.0
    lat = np.minimum.accumulate(np.clip(lat, 0.0, 1.0))
    return lat, cell, tail, mean


def unstable_grid(h: float, n: int) -> GridSolution:
    return GridSolution(h, n, 1.0, False, np.ones(0), np.ones(0), math.inf, math.inf, 0.0)


# ------------------------------------------------------------------------ refinement


def reach(sol: GridSolution) -> int | None:
    """The first grid point where the workload's tail is below :data:`TAIL` (relative to
    b) and the latency's below :data:`TAIL`; None when the grid ends first."""
    below = (sol.workload_sf <= TAIL * sol.b) & (sol.latency_sf <= TAIL)
    idx = np.flatnonzero(below)
    return int(idx[0]) if idx.size else None


def affordable(problem: Problem, sol: GridSolution) -> bool:
    """Whether the grid of half ``sol``'s step fits :data:`MAX_CELLS` and
    :data:`WORK_BUDGET`: its cells times its convolutions' support (both double) times
    its marches (one, or about four for a seeded shooting)."""
    n = 2 * sol.n
    support = min(2 * sol.support, n)
    marches = 1 if problem.b_known else 4
    return n <= MAX_CELLS and n * support * marches <= WORK_BUDGET


def beyond(sol: GridSolution) -> float:
    """The probability mass beyond the grid's end (workload or latency)."""
    return float(max(sol.workload_sf[-1], sol.latency_sf[-1]))


def relative(a: float, b: float) -> float:
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(b), 1e-300)


def solve_problem(problem: Problem, tolerance: float) -> Equilibrium:
    """Refine the grid until two agree on E[T] within ``tolerance`` (or the finest
    allowed is reached), and return the finest with Richardson's E[T].

    A pre-grid of four times the first step finds, cheaply, where the grid may end (the
    workload's tail below :data:`TAIL`, capped so that the second refinement still fits
    in :data:`MAX_CELLS`) and the first root of the shooting; the first grid and each
    finer one start their secant from the coarser grid's root.
    """
    X = problem.X
    h = initial_step(problem)
    end_cap = (MAX_CELLS // 4) * h
    pre_h = PRE_FACTOR * h
    W = min(initial_end(X, problem.load, problem.rate), end_cap)
    pre = solve_grid(problem, pre_h, cells(W, pre_h), None)
    while pre.stable and reach(pre) is None and W < end_cap:
        W = min(2.0 * W, end_cap)
        pre = solve_grid(problem, pre_h, cells(W, pre_h), pre)
    # a latency tail so long that the grid would cut its 99.9th percentile: trade the
    # step (the refinement still checks it) for reach, up to COARSENING times, where a
    # grid costs one march (a shooting's finer grids would cost too many)
    factor = 1
    while pre.stable and problem.b_known and pre.latency_sf[-1] > TRUNCATION_GOAL and factor < COARSENING:
        factor *= 2
        wider = solve_grid(problem, 2.0 * pre_h, pre.n, pre)
        if not wider.stable:
            break
        h, pre_h, end_cap, W, pre = 2.0 * h, 2.0 * pre_h, 2.0 * end_cap, 2.0 * W, wider
    if pre.stable:
        k = reach(pre)
        if k is not None:
            W = min(W, (1.25 * k + 4) * pre_h)
    coarse = solve_grid(problem, h, cells(W, h), pre if pre.stable else None)
    if not coarse.stable:
        return unstable(problem, tolerance)
    k = reach(coarse)
    if not pre.stable and k is not None and k < 0.75 * coarse.n:
        # the pre-grid was too coarse to hold the equilibrium: cut W by the first grid
        coarse = solve_grid(problem, h, max(int(1.25 * k) + 16, 16), coarse)
    while True:
        fine = solve_grid(problem, coarse.h / 2.0, 2 * coarse.n, coarse)
        if not fine.stable:
            return unstable(problem, tolerance)
        # E[T], the grid's own mean of T (its arrays) and b (the cost) all change by less
        change = max(
            relative(fine.latency_mean, coarse.latency_mean),
            relative(fine.grid_mean, coarse.grid_mean),
            relative(fine.b, coarse.b),
        )
        tail = fine.tail / fine.latency_mean if fine.latency_mean > 0 else 0.0
        error = change + tail
        # a finer step reduces the change, not the tail beyond the grid
        if change + min(tail, tolerance / 2) <= tolerance or not affordable(problem, fine):
            break
        coarse = fine
    if math.isfinite(fine.latency_mean) and math.isfinite(coarse.latency_mean):
        mean = fine.latency_mean + (fine.latency_mean - coarse.latency_mean) / 3.0
    else:
        mean = fine.latency_mean
    return Equilibrium(
        policy=problem.policy,
        d=problem.d,
        load=float(problem.load),
        rate=float(problem.rate),
        stable=True,
        busy=float(fine.b),
        cost=float(fine.b / problem.rate),
        latency_mean=float(mean),
        step=float(fine.h),
        workload_sf=fine.workload_sf,
        latency_sf=fine.latency_sf,
        error=float(error),
        tolerance=float(tolerance),
        truncated=beyond(fine),
    )


def cells(W: float, h: float) -> int:
    """The cells of step ``h`` that reach ``W`` (at least 16)."""
    return max(int(math.ceil(W / h - 1e-9)), 16)


def unstable(problem: Problem, tolerance: float) -> Equilibrium:
    return Equilibrium(
        policy=problem.policy,
        d=problem.d,
        load=float(problem.load),
        rate=float(problem.rate),
        stable=False,
        busy=1.0,
        cost=math.nan,
        latency_mean=math.inf,
        step=math.nan,
        workload_sf=np.ones(0),
        latency_sf=np.ones(0),
        error=math.nan,
        tolerance=float(tolerance),
        truncated=1.0,
    )
