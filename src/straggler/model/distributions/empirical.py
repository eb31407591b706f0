"""Laws from measurements: a measured sample read from a data file (:class:`Empirical`,
:mod:`.data_files`) and a table of quantiles as monitoring prints them (:class:`Quantiles`).

With ``interpolate: false`` each job's size is one of the n values, each with
probability 1/n: the sample's empirical law, atoms at the values. With
``interpolate: true`` the quantile function is linear between the order statistics
x_(1) <= ... <= x_(n), Q(u) = x_(i) + (u (n - 1) - (i - 1)) (x_(i+1) - x_(i)): a
continuous law on [x_(1), x_(n)] (tied values keep an atom of mass (ties - 1) / (n - 1)).

Both survival functions are piecewise linear in x (piecewise constant without
interpolation) between consecutive order statistics, so every functional the analysis
needs is an exact finite sum over those segments: the moments, the truncated and
partial moments, and E[min of d copies] = int_0^inf P(X > x)^d dx, whose integrand is a
polynomial of degree d on each segment. No quadrature: a sample of 10^6 values costs a
few vector operations. A draw is O(1): one uniform picks an index into the sorted sample.

A trace is a sample, so ``bootstrap: B`` asks how much the answer hangs on it: the study
evaluates the trace and B resamples of it (its n values drawn again with replacement,
``resample: r``, from a stream of the study's seed, the file's content and r alone), on the
grid axis ``<law>.resample`` (:func:`straggler.study.config.axes.axes_of`); the report says where
every resample decides the trace's recommendation.

A table of quantiles {p_0 = 0: x_0, p_1: x_1, ..., p_m = 1: x_m} is the law whose quantile
function is linear between the points given: uniform on each [x_i, x_(i+1)] with mass
p_(i+1) - p_i (an atom at x_i when x_(i+1) = x_i). P(X > x) is linear between the x_i, so
the same sums are exact for it; a draw is a bisection over the table's probabilities.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import Distribution, ParameterError, check_d, check_factor, format_value, is_number, scalar_or_array
from .codes import EMPIRICAL_CODE, QUANTILES_CODE
from .data_files import DIGEST_PREFIX, content_digest, sorted_sample
from .pieces import QuantilePieces, pieces

RESAMPLE_STREAM = 0x5EED_B007
"""The spawn key's first word for a trace's resamples: apart from every simulation stream."""


class SegmentLaw(Distribution):
    """A law whose P(X > x) is linear (or constant) between knots: its moments, truncated
    and partial moments and E[min of d] are exact sums over the segments between them.
    A subclass gives ``values`` (the sorted knots: the support's ends are the first and
    the last), ``_segments`` (each segment's ends and P(X > x) just right of its start
    and just left of its end) and ``_sf_scalar``."""

    @property
    def values(self) -> np.ndarray:
        raise NotImplementedError

    @functools.cached_property
    def _segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _checked_scale_to_mean(self) -> float | None:
        """The field ``scale_to_mean`` checked and stored as a float (None: not scaled)."""
        m = self.scale_to_mean  # type: ignore[attr-defined]
        if m is None:
            return None
        if not (is_number(m) and math.isfinite(float(m)) and m > 0):
            raise ParameterError(
                "scale_to_mean", f"scale_to_mean must be a positive finite number, got {format_value(m)}"
            )
        object.__setattr__(self, "scale_to_mean", float(m))
        return float(m)

    def _integral(self, lo: float, hi: float, power: int = 1, weighted: bool = False) -> float:
        """int_lo^hi P(X > x)^power dx, or int_lo^hi 2 x P(X > x) dx (``weighted``):
        F(hi) - F(lo) from the segments' prefix sums (:meth:`_primitive`), O(log n) a
        call, so that a search that evaluates it at thousands of points costs no pass
        over a trace of 10^5 values each time."""
        hi = min(hi, float(self.values[-1]))
        if not hi > lo:
            return 0.0
        if lo <= 0.0 and hi >= float(self.values[-1]):
            return self._whole(power, weighted)
        return self._primitive(hi, power, weighted) - self._primitive(lo, power, weighted)

    def _whole(self, power: int, weighted: bool) -> float:
        """The integral over the whole support, exactly rounded (``fsum`` of the
        segments'): the mean that :meth:`scaled` divides by, so a scaled law's values are
        exactly the factor times these."""
        cache = self.__dict__.setdefault("_wholes", {})
        key = (power, weighted)
        if key not in cache:
            a, b, sa, sb = self._segments
            x0 = float(self.values[0])
            head = x0 * x0 if weighted else x0
            terms = _segment_integral(a, b, sa, sb, power, weighted) if a.size else np.empty(0)
            cache[key] = head + math.fsum(terms.tolist())
        return cache[key]

    def _primitive(self, x: float, power: int, weighted: bool) -> float:
        """F(x) = int_0^x P(X > u)^power du (or of 2 u P(X > u)) for x up to the largest
        value: below the smallest P(X > u) = 1; then the whole segments below x, summed
        once (:meth:`_prefix`); then the part of the one that holds x, exact."""
        x0 = float(self.values[0])
        if x <= 0.0:
            return 0.0
        head = min(x, x0)
        head = head * head if weighted else head
        if x <= x0:
            return head
        ends, prefix, (a, b, sa, sb) = self._prefix(power, weighted)
        k = bisect.bisect_right(ends, x)  # segments 0..k-1 end at or below x
        total = head + prefix[k]
        if k < len(ends) and x > a[k]:
            lo = a[k]
            width = b[k] - lo
            s1 = sa[k]
            s2 = s1 + ((sb[k] - s1) / width) * (x - lo) if width > 0 else s1
            total += _segment_integral(lo, x, s1, s2, power, weighted)
        return total

    def _prefix(self, power: int, weighted: bool):
        """(segments' ends, prefix sums of the segments' integrals, the segments as lists),
        computed once per law and integrand."""
        cache = self.__dict__.setdefault("_prefixes", {})
        key = (power, weighted)
        if key not in cache:
            a, b, sa, sb = self._segments
            terms = _segment_integral(a, b, sa, sb, power, weighted) if a.size else np.empty(0)
            prefix = np.concatenate(([0.0], np.cumsum(terms)))
            cache[key] = (b.tolist(), prefix.tolist(), (a.tolist(), b.tolist(), sa.tolist(), sb.tolist()))
        return cache[key]

    def mean(self) -> float:
        return self._integral(0.0, math.inf)

    def second_moment(self) -> float:
        return self._integral(0.0, math.inf, weighted=True)

    def support(self) -> tuple[float, float]:
        return (float(self.values[0]), float(self.values[-1]))

    # -- closed forms (exact finite sums) -----------------------------------------
    def mean_min(self, t: float) -> float:
        return self._integral(0.0, max(t, 0.0))

    def second_moment_min(self, t: float) -> float:
        return self._integral(0.0, max(t, 0.0), weighted=True)

    def partial_mean(self, c: float) -> float:
        c = max(float(c), 0.0)
        if math.isinf(c):
            return 0.0
        return c * self._sf_scalar(c) + self._integral(c, math.inf)

    def partial_second_moment(self, c: float) -> float:
        c = max(float(c), 0.0)
        if math.isinf(c):
            return 0.0
        return c * c * self._sf_scalar(c) + self._integral(c, math.inf, weighted=True)

    def mean_min_of(self, d: int) -> float:
        return self._integral(0.0, math.inf, power=check_d(d))

    def tail_class(self, on_support: bool = False) -> str:
        return "log-concave" if self.support()[0] == self.support()[1] else "neither"


@dataclass(frozen=True)
class Empirical(SegmentLaw):
    """X drawn from the values of column ``column`` of ``file`` (see the module)."""

    file: str
    column: str | int | tuple | None = None
    interpolate: bool = False
    scale_to_mean: float | None = None
    digest: str = ""
    bootstrap: int = 0
    resample: int = 0
    seed: int | None = None
    family: ClassVar[str] = "empirical"
    code: ClassVar[int] = EMPIRICAL_CODE
    optional: ClassVar[tuple[str, ...]] = (
        "column",
        "interpolate",
        "scale_to_mean",
        "digest",
        "bootstrap",
        "resample",
        "seed",
    )
    data_file: ClassVar[str | None] = "file"
    grid_only: ClassVar[tuple[str, ...]] = ("bootstrap",)
    unswept: ClassVar[tuple[str, ...]] = ("bootstrap", "resample", "seed", "digest")
    schema: ClassVar[dict] = {
        "file": {
            "type": "string",
            "minLength": 1,
            "description": "A file of measured sizes: .csv or .tsv with a header, .npy, or plain text with one "
            "value a line (# starts a comment); any of them may be gzip-compressed (.gz). A relative path is "
            "read from the directory the workflow runs in.",
        },
        "column": {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "integer", "minimum": 0},
                {
                    "type": "array",
                    "minItems": 2,
                    "items": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]},
                },
            ],
            "description": "The column that holds the sizes: its header in a .csv or .tsv file, or its index "
            "from 0 (may be left out when the file has one column); a list of columns pools their values "
            "(paired durations: the law of one copy, as a pairs dependence replays them).",
        },
        "interpolate": {
            "type": "boolean",
            "default": False,
            "description": "false: each size is one of the file's values, each with probability 1/n. true: the "
            "quantile function is linear between the sorted values (a continuous law on [smallest, largest]).",
        },
        "bootstrap": {
            "type": "integer",
            "minimum": 0,
            "maximum": 1000,
            "description": "How sure the answer is, given that the trace is a sample: B > 0 evaluates the trace "
            "and B resamples of it (n values drawn with replacement, from the study's seed), as the grid axis "
            "<law>.resample (0: the trace itself, 1..B: the resamples). The report says at which points every "
            "resample gives the trace's recommendation.",
        },
        "resample": {
            "type": "integer",
            "minimum": 0,
            "description": "Which resample of the trace this law is (0: the trace itself). Set by bootstrap's grid "
            "axis; needs seed.",
        },
        "seed": {
            "type": "integer",
            "minimum": 0,
            "description": "The seed the resamples are drawn from. Added when the study is resolved with "
            "bootstrap (the study's seed).",
        },
        "digest": {
            "type": "string",
            "pattern": "^sha256:[0-9a-f]{64}$",
            "description": "The file's content digest. Added when the study is resolved (a changed file changes "
            "its cells' identity); written here, it pins the content: a file that differs is refused.",
        },
    }

    def __post_init__(self):
        if not isinstance(self.file, str) or not self.file:
            raise ParameterError("file", f"file must be a path, got {format_value(self.file)}")
        if isinstance(self.column, list):
            object.__setattr__(self, "column", tuple(self.column))
        columns = self.column if isinstance(self.column, tuple) else (self.column,)
        if isinstance(self.column, tuple) and len(self.column) < 2:
            raise ParameterError(
                "column", f"a list of columns pools two or more, got {format_value(list(self.column))}"
            )
        if not all(c is None or isinstance(c, str) or _index(c) for c in columns) or (
            isinstance(self.column, tuple) and None in self.column
        ):
            raise ParameterError(
                "column",
                f"column must be a column's name or its index (>= 0), or a list of them, got {format_value(self.column)}",
            )
        if not isinstance(self.interpolate, bool):
            raise ParameterError(
                "interpolate", f"interpolate must be true or false, got {format_value(self.interpolate)}"
            )
        if self.digest:
            if not (isinstance(self.digest, str) and self.digest.startswith(DIGEST_PREFIX)):
                raise ParameterError(
                    "digest", f"digest must be written {DIGEST_PREFIX}<hex>, got {format_value(self.digest)}"
                )
            found = content_digest(self.file)
            if found != self.digest:
                raise ParameterError(
                    "file",
                    f"file {format_value(self.file)} has changed: its content is {found}, the study was "
                    f"resolved with {self.digest} (resolve the study again to use the new content)",
                )
        for name in ("bootstrap", "resample"):
            if not _index(getattr(self, name)):
                raise ParameterError(name, f"{name} must be an integer >= 0, got {format_value(getattr(self, name))}")
        if self.seed is not None and not _index(self.seed):
            raise ParameterError("seed", f"seed must be an integer >= 0, got {format_value(self.seed)}")
        raw = sorted_sample(self.file, self.column)
        base = _segment_mean(raw, self.interpolate)
        if not base > 0:
            raise ParameterError("file", f"file {format_value(self.file)}: every size is 0; expected a positive mean")
        target = self._checked_scale_to_mean()
        # the trace's own factor: a resample keeps its own mean, which is part of its sampling error
        factor = 1.0 if target is None else target / base
        if self.resample:
            raw = self._resampled(raw)
        xs = raw * factor if factor != 1.0 else raw
        if factor != 1.0 or self.resample:
            xs.setflags(write=False)
        object.__setattr__(self, "_xs", xs)

    def _resampled(self, raw: np.ndarray) -> np.ndarray:
        """Resample ``resample`` of the sorted sample: n values drawn with replacement,
        sorted. Its stream comes from the study's seed, the file's content and the
        resample's number alone, so it is the same on every machine and in every job."""
        if self.seed is None:
            raise ParameterError(
                "resample",
                f"resample {self.resample} needs the study's seed: give the law bootstrap: B instead "
                "(the study then adds its seed and the axis of resamples)",
            )
        digest = self.digest or content_digest(self.file)
        content = int(digest.removeprefix(DIGEST_PREFIX)[:16], 16)
        rng = np.random.default_rng(
            np.random.SeedSequence(self.seed, spawn_key=(RESAMPLE_STREAM, content, self.resample))
        )
        return np.sort(raw[rng.integers(0, raw.size, raw.size)])

    # -- the sample ----------------------------------------------------------------
    @property
    def values(self) -> np.ndarray:
        """The law's order statistics x_(1) <= ... <= x_(n) (read only, scaled)."""
        return self._xs  # type: ignore[attr-defined]

    @property
    def size(self) -> int:
        return int(self.values.size)

    @functools.cached_property
    def _segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Segments [a, b] between consecutive order statistics and P(X > x) at their
        ends (just right of a, just left of b): P(X > x) is linear on each."""
        return _segments(self.values, self.interpolate)

    # -- what every family defines ----------------------------------------------
    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return scalar_or_array(x, _sf(self.values, self.interpolate, x))

    def _sf_scalar(self, x: float) -> float:
        # the quadratures call this per point: a bisection of a list, no numpy call
        xs, n = self._listed, self.size
        above = n - bisect.bisect_right(xs, x)
        if not self.interpolate or n == 1 or above == 0 or above == n:
            return above / n
        j = n - above - 1
        lo, hi = xs[j], xs[j + 1]
        return 1.0 - (j + ((x - lo) / (hi - lo) if hi > lo else 0.0)) / (n - 1)

    @functools.cached_property
    def _listed(self) -> list[float]:
        return self.values.tolist()

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        xs, n = self.values, self.size
        if not self.interpolate or n == 1:
            return scalar_or_array(x, np.zeros_like(x))
        j = np.searchsorted(xs, x, side="right") - 1
        inside = (j >= 0) & (j < n - 1)
        jj = np.clip(j, 0, n - 2)
        width = xs[jj + 1] - xs[jj]
        with np.errstate(divide="ignore"):
            out = np.where(inside & (width > 0), 1.0 / ((n - 1) * np.where(width > 0, width, 1.0)), 0.0)
        return scalar_or_array(x, out)

    def point_masses(self) -> tuple[tuple[float, float], ...]:
        return self._masses

    @functools.cached_property
    def _masses(self) -> tuple[tuple[float, float], ...]:
        xs, n = self.values, self.size
        unique, counts = np.unique(xs, return_counts=True)
        if n == 1:
            return ((float(xs[0]), 1.0),)
        if self.interpolate:
            keep = counts > 1
            return tuple(zip(unique[keep].tolist(), ((counts[keep] - 1) / (n - 1)).tolist()))
        return tuple(zip(unique.tolist(), (counts / n).tolist()))

    def breaks(self) -> tuple[float, ...]:
        # interpolated, P(X > x) has a kink at every distinct value
        return tuple(np.unique(self.values).tolist()) if self.interpolate else self.atoms()

    def quantile_pieces(self) -> QuantilePieces:
        # each value an atom of mass 1/n, or Q linear from x_(i) at i/(n-1) to x_(i+1)
        xs, n = self.values, self.size
        if not self.interpolate or n == 1:
            i = np.arange(n, dtype=float)
            return pieces(i / n, (i + 1.0) / n, xs, xs)
        i = np.arange(n - 1, dtype=float)
        return pieces(i / (n - 1), (i + 1.0) / (n - 1), xs[:-1], xs[1:])

    def scaled(self, factor: float) -> Empirical:
        return replace(self, scale_to_mean=self.mean() * check_factor(factor))

    def sampler_params(self) -> np.ndarray:
        # [n, interpolate, x_(1), ..., x_(n)]: a draw indexes the sorted sample in O(1)
        return np.concatenate(([float(self.size), float(self.interpolate)], self.values)).astype(np.float64)

    # -- config form ------------------------------------------------------------------
    @classmethod
    def resolved_extras(cls, spec: dict) -> dict:
        """What the resolved config adds to the spec: the file's content digest, so that a
        cell's identity changes with the file's content."""
        return {"digest": content_digest(spec["file"])}


@dataclass(frozen=True)
class Quantiles(SegmentLaw):
    """The law of a quantile table {p: x}, linear between its points (see the module)."""

    quantiles: tuple[tuple[float, float], ...]
    scale_to_mean: float | None = None
    family: ClassVar[str] = "quantiles"
    code: ClassVar[int] = QUANTILES_CODE
    optional: ClassVar[tuple[str, ...]] = ("scale_to_mean",)
    schema: ClassVar[dict] = {
        "quantiles": {
            "type": "object",
            "minProperties": 2,
            "maxProperties": 10000,
            "additionalProperties": {"type": "number", "minimum": 0},
            "description": "Probability -> the size at that quantile, e.g. {0: 0.1, 0.5: 1.0, 0.99: 12.0, 1: "
            "40.0}: the probabilities in [0, 1], 0 and 1 among them; the sizes >= 0, not decreasing as the "
            "probability grows. The quantile function is linear between the points: the size is uniform "
            "between two consecutive ones.",
        },
    }

    def __post_init__(self):
        points = _quantile_points(self.quantiles)
        ps = np.array([p for p, _ in points])
        xs = np.array([x for _, x in points])
        base = float(np.sum(np.diff(ps) * 0.5 * (xs[:-1] + xs[1:])))
        if not base > 0:
            raise ParameterError("quantiles", f"quantiles must have a positive mean, got {_table(points)}")
        target = self._checked_scale_to_mean()
        if target is not None:
            xs = xs * (target / base)
        object.__setattr__(self, "quantiles", tuple((float(p), float(x)) for p, x in points))
        ps.setflags(write=False)
        xs.setflags(write=False)
        object.__setattr__(self, "_ps", ps)
        object.__setattr__(self, "_xs", xs)

    @property
    def values(self) -> np.ndarray:
        """The sizes at the table's probabilities, scaled (the knots of P(X > x))."""
        return self._xs  # type: ignore[attr-defined]

    @property
    def probabilities(self) -> np.ndarray:
        """The table's probabilities, 0 first and 1 last."""
        return self._ps  # type: ignore[attr-defined]

    @functools.cached_property
    def _segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        xs, ps = self.values, self.probabilities
        return xs[:-1], xs[1:], 1.0 - ps[:-1], 1.0 - ps[1:]

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        xs, ps = self.values, self.probabilities
        j = np.searchsorted(xs, x, side="right") - 1  # the last knot <= x
        jj = np.clip(j, 0, xs.size - 2)
        lo, hi = xs[jj], xs[jj + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            within = np.where(hi > lo, (x - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0)
        cdf = ps[jj] + within * (ps[jj + 1] - ps[jj])
        cdf = np.where(j < 0, 0.0, np.where(j >= xs.size - 1, 1.0, cdf))
        return scalar_or_array(x, np.clip(1.0 - cdf, 0.0, 1.0))

    def _sf_scalar(self, x: float) -> float:
        xs, ps = self._listed
        j = bisect.bisect_right(xs, x) - 1
        if j < 0:
            return 1.0
        if j >= len(xs) - 1:
            return 0.0
        lo, hi = xs[j], xs[j + 1]  # lo <= x < hi
        return 1.0 - (ps[j] + (x - lo) / (hi - lo) * (ps[j + 1] - ps[j]))

    @functools.cached_property
    def _listed(self) -> tuple[list[float], list[float]]:
        return self.values.tolist(), self.probabilities.tolist()

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        xs, ps = self.values, self.probabilities
        j = np.searchsorted(xs, x, side="right") - 1
        inside = (j >= 0) & (j < xs.size - 1)
        jj = np.clip(j, 0, xs.size - 2)
        width = xs[jj + 1] - xs[jj]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(inside & (width > 0), (ps[jj + 1] - ps[jj]) / np.where(width > 0, width, 1.0), 0.0)
        return scalar_or_array(x, out)

    def point_masses(self) -> tuple[tuple[float, float], ...]:
        return self._masses

    @functools.cached_property
    def _masses(self) -> tuple[tuple[float, float], ...]:
        # a flat step of the table (x_(i+1) = x_i) is an atom of its probability
        masses: dict[float, float] = {}
        xs, ps = self._listed
        for i in range(len(xs) - 1):
            if xs[i + 1] == xs[i] and ps[i + 1] > ps[i]:
                masses[xs[i]] = masses.get(xs[i], 0.0) + ps[i + 1] - ps[i]
        return tuple(sorted(masses.items()))

    def breaks(self) -> tuple[float, ...]:
        return tuple(np.unique(self.values).tolist())

    def quantile_pieces(self) -> QuantilePieces:
        xs, ps = self.values, self.probabilities
        return pieces(ps[:-1], ps[1:], xs[:-1], xs[1:])

    def scaled(self, factor: float) -> Quantiles:
        # the table itself scaled: every size exactly factor times this law's
        f = check_factor(factor)
        table = tuple(zip(self.probabilities.tolist(), (self.values * f).tolist()))
        return replace(self, quantiles=table, scale_to_mean=None)

    def sampler_params(self) -> np.ndarray:
        # [m, p_0 .. p_(m-1), x_0 .. x_(m-1)]
        return np.concatenate(([float(self.values.size)], self.probabilities, self.values)).astype(np.float64)

    def config_values(self) -> dict:
        values: dict = {"quantiles": {_key(p): x for p, x in self.quantiles}}  # as given, before any scaling
        if self.scale_to_mean is not None:
            values["scale_to_mean"] = self.scale_to_mean
        return values


def _key(p: float) -> float | int:
    return int(p) if p in (0.0, 1.0) else p


def _table(points) -> str:
    return "{" + ", ".join(f"{format_value(p)}: {format_value(x)}" for p, x in points) + "}"


def _quantile_points(table) -> list[tuple[float, float]]:
    """The table's (probability, size) points sorted by probability, checked: a mapping
    (or pairs) of probabilities in [0, 1], 0 and 1 among them, to sizes >= 0 that do not
    decrease. A probability may be written as a number or a string of one."""
    pairs = list(table.items()) if isinstance(table, dict) else list(table) if isinstance(table, tuple | list) else None
    if not pairs or not all(isinstance(pair, tuple | list) and len(pair) == 2 for pair in pairs):
        raise ParameterError(
            "quantiles",
            f"quantiles must map probabilities to sizes, e.g. {{0: 0.1, 0.5: 1, 1: 40}}, got {format_value(table)}",
        )
    points: dict[float, float] = {}
    for key, size in pairs:
        p = _probability(key)
        if p is None:
            raise ParameterError(
                "quantiles", f"quantiles: {format_value(key)} is not a probability; expected a number in [0, 1]"
            )
        if not (is_number(size) and math.isfinite(float(size)) and size >= 0):
            raise ParameterError(
                "quantiles",
                f"quantiles: the size at {format_value(key)} must be a finite number >= 0, got {format_value(size)}",
            )
        if p in points:
            raise ParameterError("quantiles", f"quantiles: probability {format_value(key)} is given twice")
        points[p] = float(size)
    missing = [end for end in (0.0, 1.0) if end not in points]
    if missing:
        raise ParameterError(
            "quantiles",
            f"quantiles must include probabilities 0 and 1 (the smallest and the largest size), "
            f"missing {' and '.join(str(int(m)) for m in missing)}",
        )
    ordered = sorted(points.items())
    for (p0, x0), (p1, x1) in zip(ordered, ordered[1:]):
        if x1 < x0:
            raise ParameterError(
                "quantiles",
                f"quantiles must not decrease: the size at {format_value(_key(p1))} ({format_value(x1)}) is "
                f"below the size at {format_value(_key(p0))} ({format_value(x0)})",
            )
    return ordered


def _probability(key) -> float | None:
    if isinstance(key, str):
        try:
            key = float(key)
        except ValueError:
            return None
    if not is_number(key):
        return None
    p = float(key)
    return p if 0.0 <= p <= 1.0 else None


def _index(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _segment_integral(a, b, s1, s2, power: int, weighted: bool):
    """int_a^b S(x)^power dx (or int_a^b 2 x S(x) dx) for S linear from s1 at a to s2 at
    b: exact (scalars or arrays)."""
    w = b - a
    if weighted:  # Simpson's rule is exact for 2 x S(x), a polynomial of degree 2
        return w / 6.0 * (2 * a * s1 + 4 * (a + b) * (0.5 * (s1 + s2)) + 2 * b * s2)
    # the mean of S^p over a segment where S is linear: sum_k s1^k s2^(p-k) / (p + 1)
    acc = 0.0
    for k in range(power + 1):
        acc = acc + s1**k * s2 ** (power - k)
    return w * acc / (power + 1)


def _segments(xs: np.ndarray, interpolate: bool):
    n = xs.size
    if n < 2:
        empty = np.empty(0)
        return empty, empty, empty, empty
    i = np.arange(n - 1, dtype=float)
    if interpolate:
        sa, sb = 1.0 - i / (n - 1), 1.0 - (i + 1.0) / (n - 1)
    else:  # n - 1 - i of the n values lie above any x in [x_(i+1), x_(i+2))
        sa = (n - 1.0 - i) / n
        sb = sa
    return xs[:-1], xs[1:], sa, sb


def _segment_mean(xs: np.ndarray, interpolate: bool) -> float:
    """The law's mean before any scaling: the sample mean, or with interpolation the
    trapezoids' (x_(1) + 2 x_(2) + ... + 2 x_(n-1) + x_(n)) / (2 (n - 1))."""
    n = xs.size
    if n == 1 or not interpolate:
        return math.fsum(xs) / n
    return (math.fsum(xs) - 0.5 * (float(xs[0]) + float(xs[-1]))) / (n - 1)


def _sf(xs: np.ndarray, interpolate: bool, x: np.ndarray) -> np.ndarray:
    n = xs.size
    above = n - np.searchsorted(xs, x, side="right")  # values > x
    if not interpolate or n == 1:
        return above / n
    j = n - above - 1  # the last order statistic <= x (0-based), -1 below x_(1)
    jj = np.clip(j, 0, n - 2)
    lo, hi = xs[jj], xs[jj + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(hi > lo, (x - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0)
    cdf = np.where(j < 0, 0.0, np.where(j >= n - 1, 1.0, (jj + within) / (n - 1)))
    return np.clip(1.0 - cdf, 0.0, 1.0)
