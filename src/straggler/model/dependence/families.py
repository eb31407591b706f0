"""Every dependence family fitted to paired durations and checked on what decides the
answer (``straggler fit --pairs``; docs/guide/workload.md, "How alike a request's copies are").

Two copies of a request serve it in one of two ways: CoC and Hedge with two copies serve it
when the **faster** copy ends, ``min(Y1, Y2)``; fork-join waits for the **slower**,
``max(Y1, Y2)``. So each family is checked on the law of both, at :data:`LEVELS` (p50, p90,
p99, p99.9): the pairs' own quantile with its percentile bootstrap interval (resampling
pairs, a fixed seed) beside the quantile each family implies, with ``F`` the pairs'
marginal law (the two columns pooled) and ``S = 1 - F``:

============  ===============================  ===================================
family        ``P(min > t)``                   ``P(max <= t)``
============  ===============================  ===================================
iid           ``S(t)^2``                       ``F(t)^2``
identical     ``S(t)``                         ``F(t)``
mixture c     ``c S(t) + (1 - c) S(t)^2``      ``c F(t) + (1 - c) F(t)^2``
S&X           ``E_X[P(S > t/X)^2]``            ``E_X[P(S <= t/X)^2]``
============  ===============================  ===================================

The mixture's ``c`` is Spearman's rho (:mod:`.measured`); S&X's laws of the work ``X`` and
the slowdown ``S`` are fitted by :mod:`.sx_fit`, and its quantiles are those of the laws as
written (what a study runs). A family **fits** when every implied quantile lies in the
pairs' interval; else its verdict names the quantile furthest off and by how much.

**The intervals are simultaneous**: 95 % for the eight at once, each a percentile interval
at 1 - 0.05 / 8 = 99.375 % (Bonferroni; :func:`simultaneous`). With eight 95 % intervals
a family that is right would miss one of them in a sample of four or five (measured: the
iid family on 40 samples of 4,000 independent pairs missed in 5, mostly p99.9 of the
faster copy, an order statistic of the 4 largest whose percentile interval covers less
than it claims); "fits" has to mean that the pairs give no reason to reject the family.

**The family chosen** is the first that fits in the order iid, identical, mixture, S&X: the
fewest parameters first. iid and identical take none beyond the marginal law, the mixture
one, S&X two whole laws. Each family nests the ones before it (the mixture is iid at c = 0
and identical at c = 1; S&X is iid with a constant X and identical with a constant S), so
a richer family fits whatever a simpler one does, and when the simpler fits, the richer
one's extra parameters describe noise, not the copies. So the mixture is chosen for pairs
it describes, although S&X may fit them too, and S&X only when the mixture misses a
quantile that decides the answer. Where none fits there is no family to recommend: the
measured pairs themselves can be replayed (``dependence: {kind: pairs, file: FILE}``).

tests/model/dependence/test_families.py checks the choice on pairs of each family.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .measured import CONFIDENCE, RESAMPLES, SEED, Interval, Measured, measure
from .sx_fit import LEVELS, FitError, SXFitted, fit_sx, implied_quantiles

ORDER = ("iid", "identical", "mixture", "S&X")
"""The families, simplest first: the first that fits is chosen."""
SLACK_SHARE = 0.25
"""The share of the pairs' interval (in log, on its narrower side) by which S&X's written
laws may imply quantiles other than its fit's own (:func:`.sx_fit.written_laws`)."""
_CHUNK = 2_000_000


@dataclass(frozen=True)
class Check:
    """One family's implied quantiles of the faster and the slower copy, and its verdict."""

    family: str
    faster: np.ndarray | None
    slower: np.ndarray | None
    misses: tuple[tuple[str, float], ...] = ()
    """``(quantile, implied / pairs')`` of each implied quantile outside the pairs'
    interval, the furthest off first."""
    error: str | None = None
    """Why the family was not fitted (its quantiles are then None)."""

    @property
    def fits(self) -> bool:
        return self.error is None and not self.misses

    def verdict(self) -> str:
        if self.error is not None:
            return f"not fitted: {self.error}"
        if not self.misses:
            return "fits"
        (where, ratio), rest = self.misses[0], len(self.misses) - 1
        more = (
            f" (and {rest} more {'quantile' if rest == 1 else 'quantiles'} outside {'its' if rest == 1 else 'their'} interval{'s' if rest != 1 else ''})"
            if rest
            else ""
        )
        return f"{where} {_ratio(ratio)}x the pairs'{more}"


def _ratio(r: float) -> str:
    return f"{r:.3g}" if 0.9 < r < 1.1 else f"{r:.2g}"


@dataclass(frozen=True)
class PairsFit:
    """What :func:`fit_pairs` finds."""

    n: int
    levels: tuple[float, ...]
    faster: list[Interval]
    """The pairs' quantiles of ``min(Y1, Y2)`` at :attr:`levels`, with their intervals."""
    slower: list[Interval]
    """The same of ``max(Y1, Y2)``."""
    measured: Measured
    """Spearman's rho, the tail dependence and the mixture's c."""
    sx: SXFitted | None
    checks: dict[str, Check] = field(default_factory=dict)
    confidence: float = CONFIDENCE
    resamples: int = RESAMPLES

    @property
    def chosen(self) -> str | None:
        """The first family of :data:`ORDER` that fits, None when none does."""
        return next((f for f in ORDER if self.checks[f].fits), None)

    @property
    def sx_error(self) -> str | None:
        return self.checks["S&X"].error


def weighted_quantiles(sorted_values: np.ndarray, weights: np.ndarray, levels) -> np.ndarray:
    """The quantiles at ``levels`` (numpy's default, linear between order statistics) of
    each resample, a row of ``weights`` (the times each of ``sorted_values`` is in it):
    shape (resamples, levels)."""
    k, n = weights.shape
    cum = np.cumsum(weights, axis=1)
    total = cum[:, -1:]
    position = (total - 1) * np.asarray(levels)[None, :]
    lower = np.floor(position)
    frac = position - lower
    offset = (np.arange(k) * (n + 1.0))[:, None]  # rows kept apart, cum in [0, n]
    flat = (cum + offset).ravel()

    def order_statistic(r: np.ndarray) -> np.ndarray:
        j = np.searchsorted(flat, (r + offset).ravel(), side="right") - (np.arange(k) * n).repeat(r.shape[1])
        return sorted_values[np.minimum(j, n - 1)].reshape(r.shape)

    low = order_statistic(lower)
    high = order_statistic(np.minimum(lower + 1, total - 1))
    return low + frac * (high - low)


def pairs_quantiles(
    values: np.ndarray, confidence: float, resamples: int, seed: int, levels=LEVELS
) -> tuple[list[Interval], list[Interval]]:
    """The quantiles of ``min(Y1, Y2)`` and ``max(Y1, Y2)`` at ``levels`` and their
    percentile bootstrap intervals over ``resamples`` resamples of the pairs."""
    fast, slow = np.sort(values.min(axis=1)), np.sort(values.max(axis=1))
    order_fast, order_slow = (
        np.argsort(values.min(axis=1), kind="stable"),
        np.argsort(values.max(axis=1), kind="stable"),
    )
    n = len(values)
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK // n)
    draws_fast, draws_slow = [], []
    for start in range(0, resamples, per_chunk):
        k = min(per_chunk, resamples - start)
        drawn = rng.integers(0, n, size=(k, n)) + n * np.arange(k)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=k * n).reshape(k, n).astype(np.float64)
        draws_fast.append(weighted_quantiles(fast, weights[:, order_fast], levels))
        draws_slow.append(weighted_quantiles(slow, weights[:, order_slow], levels))
    ends = [(1 - confidence) / 2, (1 + confidence) / 2]
    out = []
    for sample, draws in ((fast, draws_fast), (slow, draws_slow)):
        at = np.quantile(sample, levels)
        lo, hi = np.quantile(np.concatenate(draws), ends, axis=0)
        out.append([Interval(float(v), float(a), float(b)) for v, a, b in zip(at, lo, hi)])
    return out[0], out[1]


def simultaneous(confidence: float, levels) -> float:
    """The confidence of each of the quantiles' intervals so that all of them (the faster
    and the slower copy's at every level) hold at once with at least ``confidence``
    (Bonferroni): 1 - 0.05 / 8 = 99.375 % for 95 % over 8."""
    return 1 - (1 - confidence) / (2 * len(levels))


def _solve(c: float, a: np.ndarray) -> np.ndarray:
    """The root in [0, 1] of ``c s + (1 - c) s^2 = a``."""
    return 2 * a / (c + np.sqrt(c * c + 4 * (1 - c) * a))


def mixture_quantiles(pooled: np.ndarray, c: float, levels=LEVELS) -> tuple[np.ndarray, np.ndarray]:
    """The quantiles of the faster and the slower copy of the mixture ``c`` with the
    pooled marginal law (c = 0: iid, 1: identical)."""
    levels = np.asarray(levels, dtype=float)
    survival = _solve(c, 1 - levels)  # P(min > t) = 1 - level
    below = _solve(c, levels)  # P(max <= t) = level
    return np.quantile(pooled, 1 - survival), np.quantile(pooled, np.clip(below, 0, 1))


def _label(j: int, levels, copy: str) -> str:
    return f"p{100 * levels[j]:g} of {copy}"


def check(family: str, faster, slower, pairs_fast: list[Interval], pairs_slow: list[Interval], levels) -> Check:
    """A family's :class:`Check`: its misses, the furthest off (in log) first."""
    misses = []
    for copy, implied, pairs in (("min", faster, pairs_fast), ("max", slower, pairs_slow)):
        for j, (v, q) in enumerate(zip(implied, pairs)):
            if not (q.low <= v <= q.high):
                misses.append((_label(j, levels, copy), float(v / q.value)))
    misses.sort(key=lambda m: -abs(math.log(m[1])))
    return Check(family, np.asarray(faster), np.asarray(slower), tuple(misses))


def fit_pairs(
    values: np.ndarray,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    sx_resamples: int | None = None,
    seed: int = SEED,
    levels=LEVELS,
    processes: int | None = None,
) -> PairsFit:
    """Every family of :data:`ORDER` fitted to the pairs ``values`` (n, 2) and checked
    (module docstring); ``sx_resamples`` S&X's bootstrap refits (:data:`.sx_fit.SX_RESAMPLES`)."""
    from . import sx_fit

    values = np.asarray(values, dtype=np.float64)
    sx_resamples = sx_fit.SX_RESAMPLES if sx_resamples is None else sx_resamples
    measured = measure(values, confidence, resamples, seed=seed)
    fast, slow = pairs_quantiles(values, simultaneous(confidence, levels), resamples, seed, levels)
    pooled = np.sort(values.ravel())
    checks = {}
    for family, c in (("iid", 0.0), ("identical", 1.0), ("mixture", measured.c.value)):
        checks[family] = check(family, *mixture_quantiles(pooled, c, levels), fast, slow, levels)
    slack = [
        SLACK_SHARE * min(math.log(q.high / q.value), math.log(q.value / q.low)) if q.low > 0 else 0.0
        for q in (*fast, *slow)
    ]
    sx = None
    try:
        sx = fit_sx(values, confidence, seed, sx_resamples, resamples, processes=processes, slack=slack)
    except FitError as err:
        checks["S&X"] = Check("S&X", None, None, error=str(err))
    else:
        checks["S&X"] = check("S&X", *implied_quantiles(sx.work, sx.slowdown, levels), fast, slow, levels)
    return PairsFit(len(values), tuple(levels), fast, slow, measured, sx, checks, confidence, resamples)


# ----------------------------------------------------------------------------- the snippet

DEPENDENCE = "measured"
"""The name of the measured dependence in a study's ``dependences``."""
WORK = "measured_work"
"""The name of S&X's work law in a study's ``distributions``."""


def _two(x: float) -> float | int:
    v = round(x, 2)
    return int(v) if v in (0, 1) else v


def snippet(fit: PairsFit) -> dict | None:
    """The chosen family as ``{question: {...}, study: {...}}``: the keys to paste into a
    question, and the entries to merge into a study (``dependences``, ``distributions`` and
    ``grid``). None when no family fits. No object is in it twice (YAML would write an
    alias)."""
    import copy

    content = _snippet(fit)
    return None if content is None else copy.deepcopy({k: copy.deepcopy(v) for k, v in content.items()})


def _snippet(fit: PairsFit) -> dict | None:
    family = fit.chosen
    if family is None:
        return None
    c = fit.measured.c
    ends = sorted({_two(c.low), _two(c.value), _two(c.high)})
    if family == "S&X":
        assert fit.sx is not None
        dependence = {"kind": "sx", "slowdown": fit.sx.slowdown}
        # the answer checked with one copy's law at i.i.d. and identical copies, and at the
        # refits of the bootstrap's ends (straggler.decide.question._sx_checks)
        check = ["iid", "identical", *({"workload": x, "slowdown": s} for x, s in fit.sx.ends)]
        return {
            "question": {"workload": fit.sx.work, "dependence": dependence, "check_dependence": check},
            "study": {
                "distributions": {WORK: fit.sx.work},
                "dependences": {DEPENDENCE: dependence},
                "grid": {"distribution": [WORK], "dependence": [DEPENDENCE]},
            },
        }
    assumed = {"iid": 0, "identical": 1, "mixture": _two(c.value)}[family]
    check_values = sorted({0, 1, *ends} - {assumed})
    if family == "mixture":
        spec = {"kind": "mixture", "identical": assumed}
        return {
            "question": {"dependence": spec, "check_dependence": check_values},
            "study": {
                "dependences": {DEPENDENCE: spec},
                "grid": {"dependence": [DEPENDENCE], f"{DEPENDENCE}.identical": ends},
            },
        }
    return {
        "question": {"dependence": family, "check_dependence": check_values},
        "study": {"grid": {"dependence": [family]}},
    }
