"""The S&X dependence fitted to paired durations (``straggler fit --pairs``; the family
:class:`straggler.model.dependence.SX`): a copy of a request takes ``Y_i = X S_i``, ``X``
the request's work, shared by its copies, and ``S_i`` the server's slowdown, i.i.d. per
copy and independent of ``X``.

**Why the pairs determine it.** In logs, ``log Y_i = log X + log S_i``: two measurements of
one latent ``log X`` with i.i.d. errors. Kotlarski's lemma (1967; Li and Vuong, J.
Multivariate Analysis 65, 1998; Evdokimov and White, Econometric Theory 28, 2012) says that
the joint law of ``(log Y_1, log Y_2)`` then determines the laws of ``log X`` and ``log S``
up to a shift, which the product ``X S`` does not see: this module normalises ``S`` to a
median of 1 and puts the shift into ``X``. In particular ``Cov(log Y_1, log Y_2) = Var(log
X)`` and ``Var(log S) = Var(log Y) - Cov``: :func:`log_share` is the share of the
log-variance that is the request's.

**The estimate** is the maximum likelihood of a discrete model of the binned pairs, found by
EM. The logs of the durations are binned on a grid of step :data:`STEP` (finer when the
durations span less than :data:`MIN_STEPS` steps); ``log X`` lives on a grid of the same
step (its mass at point ``x`` spread uniformly over bin ``x``) and ``log S`` on a grid of
the same step spanning the largest difference ``|bin(y_1) - bin(y_2)|`` seen (at least the
span of ``log S``: ``log Y_1 - log Y_2 = log S_1 - log S_2``) and :data:`MARGIN` of it more
at either end (an unbounded slowdown reaches beyond what two copies showed), so that a
pair's bins are ``(x + a, x + b)`` with probability ``p_x q_a q_b``; the work's grid holds
every point from which some pair's bins are reached. The data enter only through the 2-D histogram of
the unordered pairs of bins (so the fit is symmetric in the two columns, and 100,000 pairs
cost no more per iteration than a few thousand); the E and M steps are the closed forms
``p_x <- p_x E[posterior of x]``, ``q_a <- q_a E[share of the copies at a]``, one compiled
pass over the cells (:mod:`.sx_kernel`: a few hundred microseconds a step at most). The EM is accelerated by SQUAREM (Varadhan and
Roland, Scand. J. Statistics 35, 2008; its monotone variant: a step that lowers the
likelihood falls back to two plain EM steps), and stops when the mean log-likelihood a pair
gained over the last :data:`WINDOW` accelerated iterations is below :data:`TOLERANCE`; one
that has not after :data:`MAX_ITERATIONS` has not converged, and says so. The model's
likelihood is not concave (a product of the two laws): the fit runs from :data:`STARTS`
starting points (the moment fit with ``S`` at the bottom, middle and top of its span, and
the uniform laws) for :data:`START_ITERATIONS` iterations each, and the best on to
convergence.

**What a reader can check** comes with percentile bootstrap intervals: ``P(S > 2 median)``
and ``P(S > 10 median)`` (each bootstrap resample's histogram is a multinomial draw over
the cells, refitted from the full fit: :data:`SX_RESAMPLES` resamples, fewer than the
other figures' because each is a fit), and the share of log-variance (a moment, over
:data:`~straggler.model.dependence.measured.RESAMPLES` resamples).

**The laws written** (:func:`written_laws`) are the fitted ones, read by the project's
families: masses summing to at most :data:`PRUNE` are dropped (the smallest first); a law
whose mass then lies in at most :data:`MAX_ATOMS` runs of at most :data:`ATOM_STEPS`
neighbouring grid points is ``discrete``, one atom a run at its mass's mean log (an atom
of the true law lands on one or two grid points, as ``X`` falls in a bin); any other is a
``quantiles`` table, linear between its knots, with the fewest knots that keep it within
the loosest of :data:`TABLE_TOLERANCES` for which the written laws' quantiles of the faster
and the slower copy stay within :data:`FIDELITY` (or the share of the pairs' interval that
:mod:`.families` allows) of the fit's own (:func:`grid_implied`). Values have
:data:`DIGITS` significant digits. What the written laws imply for the faster and the
slower copy (:func:`implied_quantiles`) is what :mod:`.families` checks against the pairs.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

STEP = 0.1
"""The grid's step in log-duration: 10 % apart. The implied laws of the faster and the
slower copy are read at the bins' edges and are linear within a bin, an error of order
``STEP**2`` (0.1 % of a quantile), well inside the intervals of 100,000 pairs."""
MIN_STEPS = 40
"""The fewest steps across the durations' range: a narrower range gets a finer step."""
MARGIN = 0.5
"""The slowdown's grid reaches this share of the largest difference beyond it at either end."""
MAX_STEPS = 2000
"""The most grid steps across the durations' range (a factor of e^200 at :data:`STEP`)."""
TOLERANCE = 1e-8
"""Converged when the mean log-likelihood a pair gained over the last :data:`WINDOW`
accelerated iterations is below this."""
WINDOW = 10
"""Accelerated iterations (each two to four EM steps) over which the gain is measured."""
MAX_ITERATIONS = 5000
"""Accelerated iterations before a fit is said not to converge."""
STARTS = 4
"""Starting points of the full fit."""
START_ITERATIONS = 100
"""Iterations from each starting point before the best is run to convergence."""
SX_RESAMPLES = 200
"""Bootstrap resamples of ``P(S > 2 median)`` and ``P(S > 10 median)`` (each a fit)."""
PRUNE = 1e-4
"""The most mass dropped from a written law (its smallest masses)."""
ATOM_STEPS = 3
"""The widest run of grid points written as one atom."""
MAX_ATOMS = 12
"""The most atoms of a law written as ``discrete``."""
TABLE_TOLERANCES = (0.01, 0.003, 0.001, 0.0)
"""How far a written quantiles table may be from the fitted law, tried loosest first: at
``tol`` its value at each edge of the law's bins is within ``tol`` (relative) of the law's
quantile there, or of the law's quantiles ``2 tol`` of the tail (``P(X > x)`` or ``P(X <=
x)``, the smaller) away, so that a spike or a gap of the fitted law narrower than that
takes no knot of its own. 0 puts a knot at every edge."""
FIDELITY = 0.0025
"""How far (0.25 %) the written laws' quantiles of the faster and the slower copy may
always be from the fit's own (:func:`grid_implied`); :mod:`.families` allows a quarter of
the pairs' interval, when more."""
LEVELS = (0.5, 0.9, 0.99, 0.999)
"""The quantiles of the faster and the slower copy that are checked."""
U_DECIMALS = 6
"""Decimals of a written table's probabilities."""
JUMP = 1e-6
"""The probability over which a table crosses a gap of the fitted law (a run of bins
without mass): its quantile function jumps there, which a table cannot."""
DIGITS = 4
"""Significant digits of a written value."""
P_DECIMALS = 5
"""Decimals of a written atom's probability."""
SLOWDOWN_RATIOS = (2.0, 10.0)
"""The checks printed: ``P(S > k median)`` for each ``k``."""


class FitError(ValueError):
    """The S&X fit cannot be made, or has not converged: one line saying why."""


# ----------------------------------------------------------------------------- the grid


@dataclass(frozen=True)
class Binned:
    """The pairs binned: the unordered cells and their counts, in the layout of the EM."""

    step: float
    origin: float
    """The log-duration of the lower edge of bin 0 (the work grid's first point)."""
    size: int
    """Bins of the (extended) duration grid, ``work_size + slowdown_size - 1``."""
    slowdown_size: int
    """Points of the slowdown grid, 0 to the largest difference of a pair's bins."""
    rows: np.ndarray
    """Each cell's difference of bins ``d = j - i >= 0``."""
    cols: np.ndarray
    """Each cell's lower bin ``i``."""
    counts: np.ndarray
    """The pairs in each cell."""
    n: int

    @property
    def work_size(self) -> int:
        return self.size - self.slowdown_size + 1

    def resampled(self, rng: np.random.Generator) -> Binned:
        """A bootstrap resample of the pairs: a multinomial draw over the cells."""
        counts = rng.multinomial(self.n, self.counts / self.n).astype(np.float64)
        keep = counts > 0
        return Binned(
            self.step,
            self.origin,
            self.size,
            self.slowdown_size,
            self.rows[keep],
            self.cols[keep],
            counts[keep],
            self.n,
        )


def grid_step(values: np.ndarray) -> float:
    """The step of the grid of ``values`` (pairs): :data:`STEP`, finer when their range in
    log spans fewer than :data:`MIN_STEPS` of it."""
    z = np.log(values)
    spread = float(z.max() - z.min())
    return min(STEP, spread / MIN_STEPS) if spread > 0 else STEP


def binned(values: np.ndarray, step: float | None = None) -> Binned:
    """The pairs ``values`` (n, 2) binned on the log grid (the same whichever column is
    first). Raises :class:`FitError` when the range needs more than :data:`MAX_STEPS` steps."""
    values = np.asarray(values, dtype=np.float64)
    step = grid_step(values) if step is None else step
    z = np.log(values)
    low = float(z.min())
    steps = (float(z.max()) - low) / step
    if not steps <= MAX_STEPS:
        raise FitError(
            f"the durations span a factor of {math.exp(float(z.max()) - low):.3g}, "
            f"{steps:.0f} grid steps of {step:g} in log; expected at most {MAX_STEPS}"
        )
    bins = np.floor((z - low) / step).astype(np.int64)
    lo, hi = bins.min(axis=1), bins.max(axis=1)
    span = int((hi - lo).max())
    span += 2 * int(math.ceil(MARGIN * span))
    # the work's points: every x with x + a, x + b a pair's bins for some a, b in [0, span]
    first = int(hi.min()) - span
    last = int(lo.max())
    size = last - first + 1 + span
    cells = (hi - lo) * size + (lo - first)
    unique, counts = np.unique(cells, return_counts=True)
    return Binned(
        step=step,
        origin=low + first * step,
        size=size,
        slowdown_size=span + 1,
        rows=(unique // size).astype(np.intp),
        cols=(unique % size).astype(np.intp),
        counts=counts.astype(np.float64),
        n=len(values),
    )


# ----------------------------------------------------------------------------- the EM


class _Steps:
    """The EM step of a binned data set (:func:`.sx_kernel.em_step`): ``step(p, q)`` is the
    mean log-likelihood a pair at ``(p, q)`` (up to a constant) and the next ``(p, q)``."""

    def __init__(self, data: Binned):
        from .sx_kernel import em_step

        self.kernel = em_step
        self.rows, self.cols, self.counts = data.rows, data.cols, data.counts

    def __call__(self, p: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        p_next, q_next = np.empty_like(p), np.empty_like(q)
        loglik = self.kernel(self.rows, self.cols, self.counts, p, q, p_next, q_next)
        return float(loglik), p_next, q_next


@dataclass(frozen=True)
class Solution:
    """An EM run's end."""

    work: np.ndarray
    slowdown: np.ndarray
    loglik: float
    iterations: int
    converged: bool


def run_em(data: Binned, p: np.ndarray, q: np.ndarray, max_iterations: int | None = None) -> Solution:
    """EM (SQUAREM-accelerated, monotone) from ``(p, q)`` to :data:`TOLERANCE` over
    :data:`WINDOW` iterations, at most ``max_iterations`` (:data:`MAX_ITERATIONS`)."""
    limit = MAX_ITERATIONS if max_iterations is None else max_iterations
    step = _Steps(data)
    k = len(p)
    theta = np.concatenate([p, q])
    history: list[float] = []
    loglik = -math.inf
    for iteration in range(1, limit + 1):
        l0, p1, q1 = step(theta[:k], theta[k:])
        theta1 = np.concatenate([p1, q1])
        l1, p2, q2 = step(p1, q1)
        theta2 = np.concatenate([p2, q2])
        r = theta1 - theta
        v = theta2 - theta1 - r
        norm_v = float(np.linalg.norm(v))
        if norm_v == 0.0:  # a fixed point
            return Solution(p2, q2, l1, iteration, True)
        alpha = min(-float(np.linalg.norm(r)) / norm_v, -1.0)
        trial = theta2
        for _ in range(30):
            candidate = theta - 2 * alpha * r + alpha * alpha * v
            if candidate.min() >= 0:
                trial = candidate
                break
            alpha = (alpha - 1) / 2
        trial = trial.copy()
        trial[:k] /= trial[:k].sum()
        trial[k:] /= trial[k:].sum()
        loglik, pn, qn = step(trial[:k], trial[k:])
        if not loglik >= l1:  # the extrapolation lost: two plain EM steps
            loglik, pn, qn = step(p2, q2)
        theta = np.concatenate([pn, qn])
        history.append(loglik)
        if len(history) > WINDOW and history[-1] - history[-1 - WINDOW] < TOLERANCE:
            return Solution(theta[:k], theta[k:], loglik, iteration, True)
    return Solution(theta[:k], theta[k:], loglik, limit, False)


def starting_points(data: Binned) -> list[tuple[np.ndarray, np.ndarray]]:
    """The full fit's :data:`STARTS` starts: normal laws of the moments' variances (``Var(log
    X) = Cov``, ``Var(log S) = Var - Cov``, in bins) with ``S`` centred at the bottom, the
    middle and the top of its span, and the uniform laws; each with a floor everywhere (an
    EM never moves mass to a point that has none)."""
    gs, gx, g = data.slowdown_size, data.work_size, data.size
    w = data.counts / data.n
    i, j = data.cols.astype(float), (data.cols + data.rows).astype(float)
    mean = float(np.dot(w, i + j) / 2)
    var = float(np.dot(w, (i - mean) ** 2 + (j - mean) ** 2) / 2)
    cov = float(np.dot(w, (i - mean) * (j - mean)))
    var_s, var_x = max(var - cov, 1.0), max(cov, 1.0)
    a, x = np.arange(gs), np.arange(gx)
    out = []
    for centre in (0.0, 0.5, 1.0):
        cs = centre * (gs - 1)
        q = np.exp(-0.5 * (a - cs) ** 2 / var_s) + 1e-3 / gs
        p = np.exp(-0.5 * (x - (mean - cs)) ** 2 / var_x) + 1e-3 / gx
        out.append((p / p.sum(), q / q.sum()))
    out.append((np.full(gx, 1.0 / gx), np.full(gs, 1.0 / gs)))
    assert len(out) == STARTS and g == gx + gs - 1
    return out


# ----------------------------------------------------------------------------- the laws


@dataclass(frozen=True)
class GridLaw:
    """A law of log-durations on a grid: mass ``masses[k]`` spread uniformly over
    ``[centres[k] - step/2, centres[k] + step/2]``."""

    centres: np.ndarray
    masses: np.ndarray
    step: float

    def log_quantile(self, u) -> np.ndarray:
        edges = np.concatenate([self.centres - self.step / 2, self.centres[-1:] + self.step / 2])
        cdf = np.concatenate([[0.0], np.cumsum(self.masses)])
        cdf /= cdf[-1]
        keep = np.concatenate([[True], np.diff(cdf) > 0])  # flat stretches: the first edge
        return np.interp(u, cdf[keep], edges[keep])

    def log_sf(self, z) -> np.ndarray:
        edges = np.concatenate([self.centres - self.step / 2, self.centres[-1:] + self.step / 2])
        cdf = np.concatenate([[0.0], np.cumsum(self.masses)])
        return 1.0 - np.interp(z, edges, cdf / cdf[-1])

    def above(self, ratio: float) -> float:
        """``P(S > ratio x median)``."""
        return float(self.log_sf(self.log_quantile(0.5) + math.log(ratio)))


def slowdown_law(data: Binned, q: np.ndarray) -> GridLaw:
    return GridLaw(np.arange(data.slowdown_size) * data.step, q, data.step)


def work_law(data: Binned, p: np.ndarray) -> GridLaw:
    return GridLaw(data.origin + (np.arange(data.work_size) + 0.5) * data.step, p, data.step)


def _significant(x: float) -> float:
    return float(f"{x:.{DIGITS}g}")


def _pruned(masses: np.ndarray) -> np.ndarray:
    """``masses`` less the smallest ones summing to at most :data:`PRUNE`, renormalised."""
    order = np.argsort(masses, kind="stable")
    dropped = np.cumsum(masses[order]) <= PRUNE
    out = masses.copy()
    out[order[dropped]] = 0.0
    return out / out.sum()


def _runs(nonzero: np.ndarray) -> list[np.ndarray]:
    """The runs of consecutive indices in ``nonzero`` (sorted)."""
    if not nonzero.size:
        return []
    breaks = np.flatnonzero(np.diff(nonzero) > 1) + 1
    return np.split(nonzero, breaks)


@dataclass(frozen=True)
class Written:
    """A law as a study reads it, before it is scaled: ``atoms`` (log value, mass) of a
    discrete law, or ``table`` (probability, log value) of a quantiles table."""

    atoms: list[tuple[float, float]] | None
    table: list[tuple[float, float]] | None

    def log_median(self) -> float:
        if self.atoms is not None:
            cum = np.cumsum([m for _, m in self.atoms])
            return self.atoms[int(np.searchsorted(cum, 0.5 - 1e-12))][0]
        assert self.table is not None
        us, zs = zip(*self.table)
        return float(np.log(np.interp(0.5, us, np.exp(zs))))  # the table's own median

    def spec(self, shift: float) -> dict:
        """The project's spec of the law times ``exp(shift)``."""
        if self.atoms is not None:
            values = [_significant(math.exp(z + shift)) for z, _ in self.atoms]
            p = [round(m, P_DECIMALS) for _, m in self.atoms]
            kept = [(v, m) for v, m in zip(values, p) if m > 0]
            values, p = [v for v, _ in kept], [m for _, m in kept]
            big = int(np.argmax(p))
            p[big] = round(1.0 - math.fsum(p[:big] + p[big + 1 :]), P_DECIMALS)
            return {"family": "discrete", "values": values, "p": p}
        assert self.table is not None
        quantiles: dict[float | int, float] = {}
        for u, z in self.table:
            key: float | int = int(u) if u in (0.0, 1.0) else u
            quantiles[key] = _significant(math.exp(z + shift))
        return {"family": "quantiles", "quantiles": quantiles}


def _table(law: GridLaw, tolerance: float) -> list[tuple[float, float]]:
    """The fewest knots ``(probability, log value)`` of a quantiles table (linear in the
    value between knots) within ``tolerance`` of the law's quantile function at every edge
    of its bins (:data:`TABLE_TOLERANCES`), chosen greedily from the lowest."""
    edges = np.concatenate([law.centres - law.step / 2, law.centres[-1:] + law.step / 2])
    cdf = np.concatenate([[0.0], np.cumsum(law.masses)])
    cdf /= cdf[-1]
    first = int(np.flatnonzero(cdf > 0)[0]) - 1  # the lower edge of the first bin with mass
    last = int(np.flatnonzero(cdf >= cdf[-1])[0])  # the upper edge of the last
    cdf, edges = cdf[first : last + 1], edges[first : last + 1]
    # a run of bins without mass is a jump of the quantile function: its ends, JUMP apart
    keep = np.concatenate([[True], np.diff(cdf) > 0]) | np.concatenate([np.diff(cdf) > 0, [True]])
    us, zs = cdf[keep], edges[keep]
    us = us + JUMP * np.concatenate([[0], np.cumsum(np.diff(us) <= 0)])
    us = (us - us[0]) / (us[-1] - us[0])
    xs = np.exp(zs)
    # the band a table's value at u_k may take: the law's quantiles at u_k -+ 2 tolerance
    # of the tail beyond u_k, widened by tolerance
    margin = 2 * tolerance * np.minimum(us, 1.0 - us)
    below = np.exp(np.interp(us - margin, us, zs) - tolerance) * (1 - 1e-12)
    above = np.exp(np.interp(us + margin, us, zs) + tolerance) * (1 + 1e-12)
    knots = [0]
    i = 0
    while i < len(us) - 1:
        j = i + 1
        while j + 1 < len(us):
            between = slice(i + 1, j + 2)
            line = xs[i] + (xs[j + 1] - xs[i]) * (us[between] - us[i]) / (us[j + 1] - us[i])
            if np.any(line < below[between]) or np.any(line > above[between]):
                break
            j += 1
        knots.append(j)
        i = j
    out: list[tuple[float, float]] = []
    for k in knots:
        u = 0.0 if k == 0 else 1.0 if k == len(us) - 1 else round(float(us[k]), U_DECIMALS)
        if out and u <= out[-1][0]:
            u = round(out[-1][0] + 10.0**-U_DECIMALS, U_DECIMALS)
        if u >= 1.0 and k != len(us) - 1:
            continue
        out.append((u, float(zs[k])))
    return out


def written(law: GridLaw, tolerance: float) -> Written:
    """The law to write (module docstring): discrete when its pruned mass lies in at most
    :data:`MAX_ATOMS` runs of at most :data:`ATOM_STEPS` grid points, else a quantiles
    table within ``tolerance`` of it."""
    masses = _pruned(law.masses)
    runs = _runs(np.flatnonzero(masses > 0))
    if len(runs) <= MAX_ATOMS and all(len(r) <= ATOM_STEPS for r in runs):
        atoms = []
        for r in runs:
            m = float(masses[r].sum())
            atoms.append((float(np.dot(masses[r], law.centres[r]) / m), m))
        return Written(atoms, None)
    return Written(None, _table(GridLaw(law.centres, masses, law.step), tolerance))


def written_laws(data: Binned, solution: Solution, levels=LEVELS, slack=None) -> tuple[dict, dict]:
    """The specs of ``X`` (the work) and ``S`` (the slowdown, its median 1) of a fit: the
    loosest of :data:`TABLE_TOLERANCES` whose laws imply quantiles of the faster and the
    slower copy at ``levels`` (the faster's, then the slower's) each within ``slack`` (in
    log; :data:`FIDELITY` when not given, and never less) of the fit's own."""
    own = np.concatenate(grid_implied(data, solution, levels))
    allowed = np.maximum(FIDELITY if slack is None else np.asarray(slack, dtype=float), FIDELITY)
    for tolerance in TABLE_TOLERANCES:
        slowdown = written(slowdown_law(data, solution.slowdown), tolerance)
        work = written(work_law(data, solution.work), tolerance)
        median = slowdown.log_median()
        specs = work.spec(median), slowdown.spec(-median)
        implied = np.concatenate(implied_quantiles(*specs, levels))
        if np.all(np.abs(np.log(implied / own)) <= allowed):
            break
    return specs


def grid_implied(data: Binned, solution: Solution, levels) -> tuple[np.ndarray, np.ndarray]:
    """The quantiles at ``levels`` of the faster and the slower copy under the fitted
    model itself: the bin of the faster copy is the lower of the two bins, so ``P(min bin
    >= m) = sum_x p_x P(S bin >= m - x)^2`` and ``P(max bin <= m) = sum_x p_x P(S bin <=
    m - x)^2``, exact at the bins' edges; linear in log within a bin."""
    p, q = solution.work, solution.slowdown
    gx, gs, size = data.work_size, data.slowdown_size, data.size
    tail = np.concatenate([np.cumsum(q[::-1])[::-1], [0.0]])  # P(S bin >= a), a = 0 .. gs
    # f[a + gx - 1] = P(S bin >= a)^2 for a = -(gx - 1) .. gs (1 below 0)
    f = np.concatenate([np.ones(gx - 1), tail**2])
    m = np.arange(size)
    min_above = np.convolve(p, f)[m + 1 + gx - 1]  # P(min bin >= m + 1)
    head = np.minimum(np.cumsum(q), 1.0)  # P(S bin <= a), a = 0 .. gs - 1 (1 beyond)
    h = np.concatenate([head, np.ones(max(size - gs, 0))]) ** 2
    max_below = np.convolve(p, h)[m]  # P(max bin <= m)
    edges = data.origin + (m + 1) * data.step
    cdf_min = np.concatenate([[0.0], 1.0 - min_above])
    cdf_max = np.concatenate([[0.0], max_below])
    z = np.concatenate([[data.origin], edges])
    out = []
    for cdf in (cdf_min, cdf_max):
        cdf = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
        keep = np.concatenate([[True], np.diff(cdf) > 0])
        out.append(np.exp(np.interp(levels, cdf[keep], z[keep])))
    return out[0], out[1]


# ----------------------------------------------------------------------------- implied


_SEGMENT_POINTS = 400
"""Points of a quantile table's segment in the expectation over ``X`` (midpoints in
probability, where ``X`` is uniform between two knots)."""


def _nodes(spec: dict) -> tuple[np.ndarray, np.ndarray]:
    """Values and weights whose sums are expectations over the law ``spec`` (a written
    ``discrete`` law exactly, a ``quantiles`` table by the midpoint rule in probability)."""
    if spec["family"] == "discrete":
        return np.array(spec["values"], dtype=float), np.array(spec["p"], dtype=float)
    points = sorted((float(u), float(x)) for u, x in spec["quantiles"].items())
    us = np.array([u for u, _ in points])
    xs = np.array([x for _, x in points])
    mid = (np.arange(_SEGMENT_POINTS) + 0.5) / _SEGMENT_POINTS
    values, weights = [], []
    for k in range(len(us) - 1):
        width = us[k + 1] - us[k]
        if width <= 0:
            continue
        values.append(xs[k] + mid * (xs[k + 1] - xs[k]))
        weights.append(np.full(_SEGMENT_POINTS, width / _SEGMENT_POINTS))
    return np.concatenate(values), np.concatenate(weights)


def implied_quantiles(work: dict, slowdown: dict, levels) -> tuple[np.ndarray, np.ndarray]:
    """The quantiles at ``levels`` of the faster copy, ``P(min > t) = E_X[P(S > t/X)^2]``,
    and of the slower, ``P(max <= t) = E_X[P(S <= t/X)^2]``, of two copies of the S&X laws
    ``work`` and ``slowdown`` (specs of the project's families), found by bisection in log t."""
    from ..distributions import from_spec

    law = from_spec(dict(slowdown))
    xs, ws = _nodes(work)
    levels = np.asarray(levels, dtype=float)

    def cdfs(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sf = np.asarray(law.sf(t[:, None] / xs[None, :]), dtype=float)
        return 1.0 - (sf**2) @ ws, ((1.0 - sf) ** 2) @ ws

    s_low, s_high = law.support()
    hi_s = s_high if math.isfinite(s_high) else float(law.quantile(1 - 1e-12))
    low = np.full(2 * len(levels), math.log(max(xs.min() * max(s_low, 1e-300), 1e-300)) - 1.0)
    high = np.full(2 * len(levels), math.log(xs.max() * hi_s) + 1.0)
    for _ in range(64):
        middle = (low + high) / 2
        t = np.exp(middle)
        k = len(levels)
        f_min, _ = cdfs(t[:k])
        _, f_max = cdfs(t[k:])
        reached = np.concatenate([f_min, f_max]) >= np.concatenate([levels, levels])
        high = np.where(reached, middle, high)
        low = np.where(reached, low, middle)
    out = np.exp(high)
    return out[: len(levels)], out[len(levels) :]


# ----------------------------------------------------------------------------- the fit


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float


@dataclass(frozen=True)
class SXFitted:
    """What :func:`fit_sx` finds."""

    work: dict
    """The spec of ``X``, the request's work."""
    slowdown: dict
    """The spec of ``S``, the slowdown, its median 1."""
    above: dict[float, Interval]
    """``P(S > k median)`` and its interval, for each ``k`` of :data:`SLOWDOWN_RATIOS`."""
    share: Interval
    """``Cov(log Y1, log Y2) / Var(log Y)``, the share of the log-variance that is the request's."""
    solution: Solution
    data: Binned
    resamples: int
    not_converged: int
    """Bootstrap resamples whose fit did not converge (left out of the intervals)."""
    confidence: float
    ends: tuple[tuple[dict, dict], ...] = ()
    """The refits at the two ends of the interval of ``P(S > 10 median)``: each ``(X, S)``
    as specs (the converged refit nearest each end; none without converged refits)."""


def _end_laws(data: Binned, seeds, results: list, ends, slack) -> tuple[tuple[dict, dict], ...]:
    """The written laws of the refits nearest the bootstrap ends of P(S > END_RATIO median)."""
    column = SLOWDOWN_RATIOS.index(END_RATIO)
    done = [(k, r[0][column]) for k, r in enumerate(results) if r is not None]
    if not done:
        return ()
    values = np.array([v for _, v in done])
    out = []
    for level in ends:
        target = float(np.quantile(values, level))
        k = done[int(np.argmin(np.abs(values - target)))][0]
        sample = data.resampled(np.random.default_rng(seeds[k]))
        out.append(written_laws(sample, results[k][1], LEVELS, slack))
    return tuple(out)


def log_share(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """``Cov(log Y1, log Y2) / Var(log Y)`` (both columns pooled, so symmetric in them) of
    the pairs, or of each resample (a row of ``weights``, the times each pair is in it)."""
    z = np.log(values)
    if weights is None:
        weights = np.ones((1, len(z)))
    total = weights.sum(axis=1)
    mean = (weights @ (z[:, 0] + z[:, 1])) / (2 * total)
    second = (weights @ (z[:, 0] ** 2 + z[:, 1] ** 2)) / (2 * total)
    cross = (weights @ (z[:, 0] * z[:, 1])) / total
    var = second - mean**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, (cross - mean**2) / np.where(var > 0, var, 1.0), 1.0)


def best_start(data: Binned, max_iterations: int | None) -> Solution:
    """The fit from the best of :func:`starting_points`: each run for
    :data:`START_ITERATIONS` iterations, the one of the highest likelihood then run to
    convergence (or the first converged already, of the highest likelihood)."""
    limit = MAX_ITERATIONS if max_iterations is None else max_iterations
    short = [run_em(data, p, q, min(START_ITERATIONS, limit)) for p, q in starting_points(data)]
    best = max(short, key=lambda s: s.loglik)
    if best.converged or limit <= START_ITERATIONS:
        return best
    rest = run_em(data, best.work, best.slowdown, limit - best.iterations)
    return Solution(rest.work, rest.slowdown, rest.loglik, best.iterations + rest.iterations, rest.converged)


def _refits(args) -> list[tuple[tuple[float, ...], Solution] | None]:
    """Bootstrap refits (a worker's share): ``P(S > k median)`` of each and its solution,
    None where it did not converge."""
    data, solution, seeds, max_iterations = args
    out: list[tuple[tuple[float, ...], Solution] | None] = []
    for seed in seeds:
        sample = data.resampled(np.random.default_rng(seed))
        s = run_em(sample, solution.work, solution.slowdown, max_iterations)
        law = slowdown_law(sample, s.slowdown)
        out.append((tuple(law.above(k) for k in SLOWDOWN_RATIOS), s) if s.converged else None)
    return out


END_RATIO = 10.0
"""The slowdown ratio whose bootstrap ends pick the refits a question checks its answer at
(:attr:`SXFitted.ends`): P(S > 10 median), the stragglers that make a copy pay."""


def workers() -> int:
    """Processes of the bootstrap: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def fit_sx(
    values: np.ndarray,
    confidence: float,
    seed: int,
    resamples: int = SX_RESAMPLES,
    share_resamples: int = 2000,
    max_iterations: int | None = None,
    processes: int | None = None,
    slack=None,
) -> SXFitted:
    """The S&X laws of the pairs ``values`` (n, 2) and the intervals of the module
    docstring. Raises :class:`FitError` when the fit cannot be made or does not converge."""
    values = np.asarray(values, dtype=np.float64)
    data = binned(values)
    solution = best_start(data, max_iterations)
    if not solution.converged:
        raise FitError(
            f"the S&X fit did not converge: the log-likelihood a pair still gained more than {TOLERANCE:g} over "
            f"{WINDOW} iterations after {solution.iterations:,} (grid of {data.size} steps of {data.step:.3g})"
        )
    work, slowdown = written_laws(data, solution, LEVELS, slack)
    ends = [(1 - confidence) / 2, (1 + confidence) / 2]

    seeds = np.random.SeedSequence(seed).spawn(resamples)
    processes = min(workers() if processes is None else processes, max(1, resamples // 20))
    chunks = [seeds[k::processes] for k in range(processes)]
    if processes > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        with ProcessPoolExecutor(processes, mp_context=context) as pool:
            parts = list(pool.map(_refits, [(data, solution, c, max_iterations) for c in chunks]))
    else:
        parts = [_refits((data, solution, chunks[0], max_iterations))]
    # back in the order of the seeds, whatever the number of processes
    results: list = [None] * resamples
    for k, part in enumerate(parts):
        for j, r in enumerate(part):
            results[k + j * processes] = r
    done = np.array([r[0] for r in results if r is not None], dtype=float).reshape(-1, len(SLOWDOWN_RATIOS))
    law = slowdown_law(data, solution.slowdown)
    above: dict[float, Interval] = {}
    for j, ratio in enumerate(SLOWDOWN_RATIOS):
        lo, hi = np.quantile(done[:, j], ends) if len(done) else (math.nan, math.nan)
        above[ratio] = Interval(law.above(ratio), float(lo), float(hi))

    ends_laws = _end_laws(data, seeds, results, ends, slack)

    rng = np.random.default_rng(seed)
    n = len(values)
    shares = []
    per_chunk = max(1, 2_000_000 // n)
    for start in range(0, share_resamples, per_chunk):
        k = min(per_chunk, share_resamples - start)
        drawn = rng.integers(0, n, size=(k, n)) + n * np.arange(k)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=k * n).reshape(k, n).astype(np.float64)
        shares.append(log_share(values, weights))
    share_ends = np.quantile(np.concatenate(shares), ends)
    share = Interval(float(log_share(values)[0]), float(share_ends[0]), float(share_ends[1]))
    return SXFitted(
        work=work,
        slowdown=slowdown,
        above=above,
        share=share,
        solution=solution,
        data=data,
        resamples=resamples,
        not_converged=resamples - len(done),
        confidence=confidence,
        ends=ends_laws,
    )
