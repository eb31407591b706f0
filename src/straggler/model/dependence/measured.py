"""How dependent a request's copies are, measured from paired durations
(``straggler fit --pairs FILE``; docs/guide/workload.md, "How alike a request's copies are").

A pair is the durations of one request on two servers, both run to the end: shadow
traffic, or duplicated requests whose slower copy was not cancelled. From ``n`` pairs
this module estimates

- Spearman's rho, the correlation of the two columns' ranks;
- the tail dependence at level ``q`` (0.99), ``lambda = P(second > its q-quantile |
  first > its q-quantile)``: 1 - q for independent copies, 1 for identical ones;
- ``c``, the probability of the identical branch of the *mixture* dependence
  ``{kind: mixture, identical: c}``: a job's copies are all one draw from the size law
  with probability ``c``, else independent draws from it.

**Why rho is c.** Let the size law's distribution function ``F`` be continuous, so that
``U_i = F(X_i)`` is uniform on (0, 1), with mean 1/2 and variance 1/12. Spearman's rho
of ``(X_1, X_2)`` is the correlation of ``(U_1, U_2)``::

    rho_S = (E[U_1 U_2] - 1/4) / (1/12) = 12 E[U_1 U_2] - 3.

On the identical branch ``U_1 = U_2``, ``E[U_1 U_2] = E[U^2] = 1/3`` and rho_S = 1; on
the independent one ``E[U_1 U_2] = 1/4`` and rho_S = 0. Expectations mix linearly, so
under the mixture ``E[U_1 U_2] = c/3 + (1 - c)/4`` and ``rho_S = 4c + 3(1 - c) - 3 = c``,
whatever ``F``. In the same way ``P(U_1 > q, U_2 > q) = c (1 - q) + (1 - c)(1 - q)^2``,
so the tail dependence is ``c + (1 - c)(1 - q)`` and the tail implies ``c = (lambda - (1
- q)) / q``, ``(lambda - 0.01) / 0.99`` at q = 0.99.

So ``c`` is read from rho, whose interval is the narrower (every pair counts, where the
tail rests on the 1 % of pairs above p99), clipped to [0, 1]. The tail's ``c`` is a
check: when the two intervals do not overlap, the mixture does not describe the pairs
(a dependence only in the tail, or a negative rho, which no mixture has), and
:meth:`Measured.verdict` says so. The sample's rho is biased by O(1/n), well inside its
interval (of width O(1/sqrt n)) at the sizes allowed. Durations rounded in the log are
ties within a column; they get their mean rank, which shrinks rho a little towards 0.

**The intervals** are percentile bootstrap intervals over :data:`RESAMPLES` resamples of
the pairs (a fixed seed: the same file prints the same figures). A resample is drawn as
the count of times each pair is in it, so each resample's ranks come from one sort of
each column (cumulative counts over the sorted values), not a sort per resample: the
ranks and exceedances are exactly those of the resample, ties among its repeated pairs
given their mean rank. tests/model/dependence/test_measured.py checks the coverage.

**Hedge logs are not read.** A hedged request's slower copy is cut off when the faster
one finishes, so its duration is only known to exceed the winner's time (minus the hedge
delay): right-censored pairs. The dependence of two durations is not identifiable from
such data without assuming a model of it (Tsiatis, "A nonidentifiability aspect of the
problem of competing risks", PNAS 72, 1975: any joint law of the two durations has an
independent one that gives the same observed minima and winners), so a measurement from
hedge logs would be the assumed model fitted, not a measurement. Only complete pairs
are read.

The files (the formats of ``straggler fit``, each of them gzip-compressed or not, read
by :func:`read_pairs`):

- ``.csv`` and ``.tsv``: two durations a record; the first line is a header unless
  every field of it is a number; ``columns`` picks two of more, by header or index;
- ``.npy``: an array of shape (n, 2), or (n, k) with ``columns`` two indices;
- anything else: plain text, two durations a line separated by blanks; blank lines and
  everything after a ``#`` are ignored.

Every duration must be a finite number > 0. Errors are :class:`PairsError`, one line
naming the file, the line (1-based, as an editor counts them; a ``.npy`` file's row)
and what is allowed.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import zlib
from dataclasses import dataclass

import numpy as np

from ..distributions.base import ParameterError, format_value
from ..distributions.data_files import file_bytes, located

MIN_PAIRS = 100
"""The fewest pairs read. The percentile bootstrap interval of a correlation covers
about as often as it claims from a few dozen pairs on (rho's standard error is then
below 0.1); fewer, and the interval is too short and the figure too rough to choose a
study's dependence by."""
TAIL_LEVEL = 0.99
"""The level ``q`` of the tail dependence: each column's p99."""
TAIL_PAIRS = 1000
"""The fewest pairs for which the tail dependence is estimated: 10 pairs above p99 (its
ratio of counts rests on them; below 10, the bootstrap of a ratio of small counts takes
a handful of values and its interval is not worth printing)."""
RESAMPLES = 2000
"""Bootstrap resamples of the pairs."""
SEED = 20260102
"""The seed of the bootstrap's generator."""
CONFIDENCE = 0.95
"""The intervals' confidence, by default."""
_CHUNK = 2_000_000
"""Resampled pairs held at once (resamples x pairs), to bound the memory."""


class PairsError(ValueError):
    """A file of pairs refused: one line naming the file, the line and what is allowed."""


@dataclass(frozen=True)
class Pairs:
    """Paired durations: ``values[i]`` the durations of request ``i`` on the two servers."""

    values: np.ndarray
    """Shape (n, 2), float64, every value finite and > 0."""
    names: tuple[str, str]
    """The two columns as the file names them (a header, else ``column 0`` ...)."""


@dataclass(frozen=True)
class Interval:
    """An estimate and its bootstrap interval."""

    value: float
    low: float
    high: float

    def clipped(self, lo: float = 0.0, hi: float = 1.0) -> Interval:
        return Interval(*(min(max(v, lo), hi) for v in (self.value, self.low, self.high)))

    def overlaps(self, other: Interval) -> bool:
        return self.low <= other.high and other.low <= self.high


@dataclass(frozen=True)
class Measured:
    """What :func:`measure` finds in ``n`` pairs."""

    n: int
    rho: Interval
    """Spearman's rho."""
    tail: Interval | None
    """The tail dependence at :attr:`level` (None below :data:`TAIL_PAIRS` pairs)."""
    level: float
    confidence: float
    resamples: int

    @property
    def c(self) -> Interval:
        """The mixture's ``c`` read from rho: rho and its interval clipped to [0, 1]."""
        return self.rho.clipped()

    @property
    def tail_c(self) -> Interval | None:
        """The ``c`` the tail implies, ``(lambda - (1 - q)) / q``, not clipped."""
        if self.tail is None:
            return None
        q = self.level
        return Interval(*((v - (1 - q)) / q for v in (self.tail.value, self.tail.low, self.tail.high)))

    def verdict(self) -> str | None:
        """A line saying the mixture does not describe the pairs, or None when nothing
        says so: rho's interval below 0, or the ``c`` of rho and of the tail whose
        intervals do not overlap."""
        if self.rho.high < 0:
            return (
                "rho's interval is below 0: the copies are negatively dependent, which no mixture is "
                "(c is clipped to 0, independent copies, the nearest mixture)"
            )
        tail_c = self.tail_c
        if tail_c is not None and not tail_c.overlaps(self.rho):
            where = "only in the tail" if tail_c.low > self.rho.high else "weaker in the tail than in the body"
            return (
                f"the mixture does not describe these pairs: c from the tail [{tail_c.low:.2f}, {tail_c.high:.2f}] "
                f"and from rho [{self.rho.low:.2f}, {self.rho.high:.2f}] do not overlap (a dependence {where}?)"
            )
        return None


# ---------------------------------------------------------------------------- reading


def read_pairs(file: str, columns: tuple[str | int, str | int] | None = None) -> Pairs:
    """The pairs of ``file`` (module docstring: the formats), ``columns`` the two to read
    (header names or indices from 0) when it has more. Raises :class:`PairsError`."""
    try:
        path = located(file)
        data, suffix = file_bytes(path)
    except ParameterError as err:
        raise PairsError(str(err)) from None
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise PairsError(
            f"cannot read file {format_value(file)} ({err}); expected a file of paired durations"
        ) from None
    if suffix == ".npy":
        values, names = _from_npy(data, file, columns)
        rows = [f"row {len(values)}"]
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise PairsError(f"file {format_value(file)} is not UTF-8 text ({err.reason})") from None
        values, names, lines = _from_text(text, suffix, file, columns)
        rows = [f"line {lines[-1]}"] if lines else []
    n = len(values)
    if n < MIN_PAIRS:
        last = f" (the last on {rows[0]})" if n and rows else ""
        raise PairsError(
            f"file {format_value(file)} holds {n} pairs{last}; expected at least {MIN_PAIRS}, "
            f"which the bootstrap interval needs"
        )
    for j in (0, 1):
        if values[:, j].min() == values[:, j].max():
            raise PairsError(
                f"file {format_value(file)}: column {names[j]} holds the one duration {values[0, j]:g}; "
                f"expected durations that vary (ranks are then defined)"
            )
    values.setflags(write=False)
    return Pairs(values, names)


_EXPECTED = "expected two durations > 0 a line: a request's on two servers"


def _records(text: str, suffix: str, file: str):
    """``(line, fields)`` of every record that is not blank, ``line`` 1-based."""
    if suffix in (".csv", ".tsv"):
        reader = csv.reader(io.StringIO(text), delimiter="," if suffix == ".csv" else "\t")
        try:
            for record in reader:
                fields = [f.strip() for f in record]
                if any(fields):
                    yield reader.line_num, fields
        except csv.Error as err:
            raise PairsError(
                f"file {format_value(file)}, line {reader.line_num + 1}: {err}; expected lines ending in \\n or \\r\\n"
            ) from None
        return
    for line, content in enumerate(text.splitlines(), start=1):
        fields = content.split("#", 1)[0].split()
        if fields:
            yield line, fields


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _picked(header: list[str] | None, columns, file: str, line: int, width: int) -> tuple[list[int], tuple[str, str]]:
    """The indices of the two columns read and their names."""
    names = header or [f"column {i}" for i in range(width)]
    if columns is None:
        if width != 2:
            what = "one column" if width == 1 else f"{width} columns"
            listed = f" ({', '.join(header)})" if header else ""
            more = ", or --columns A,B to pick two" if width > 2 else ""
            raise PairsError(f"file {format_value(file)}, line {line}: {what}{listed}; {_EXPECTED}{more}")
        return [0, 1], (names[0], names[1])
    index = []
    for c in columns:
        if isinstance(c, int) and 0 <= c < width:
            index.append(c)
        elif header is not None and c in header:
            index.append(header.index(c))
        else:
            allowed = f"a header of {', '.join(header)} or" if header else "(no header)"
            raise PairsError(
                f"file {format_value(file)}, line {line}: no column {format_value(c)}; expected {allowed} "
                f"an index 0 to {width - 1}"
            )
    if index[0] == index[1]:
        raise PairsError(f"file {format_value(file)}, line {line}: --columns names one column twice; expected two")
    return index, (names[index[0]], names[index[1]])


def _from_text(text: str, suffix: str, file: str, columns) -> tuple[np.ndarray, tuple[str, str], list[int]]:
    """The pairs of a text file, every value checked, and the line of each."""
    records = _records(text, suffix, file)
    first = next(records, None)
    if first is None:
        return np.empty((0, 2)), ("column 0", "column 1"), []
    line, fields = first
    header = None
    if suffix in (".csv", ".tsv") and not all(_is_number(f) for f in fields):
        header = fields
    index, names = _picked(header, columns, file, line, len(fields))
    out: list[tuple[float, float]] = []
    lines: list[int] = []
    width = max(index) + 1
    rest = records if header is not None else _chain(first, records)
    for line, fields in rest:
        if len(fields) < width or (columns is None and len(fields) != 2):
            what = "one column" if len(fields) == 1 else f"{len(fields)} columns"
            raise PairsError(f"file {format_value(file)}, line {line}: {what}; {_EXPECTED}")
        out.append((_duration(fields[index[0]], file, line), _duration(fields[index[1]], file, line)))
        lines.append(line)
    return np.array(out, dtype=np.float64).reshape(-1, 2), names, lines


def _chain(first, rest):
    yield first
    yield from rest


def _duration(text: str, file: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise PairsError(f"file {format_value(file)}, line {line}: {text!r} is not a number; {_EXPECTED}") from None
    if not (math.isfinite(value) and value > 0):
        raise PairsError(f"file {format_value(file)}, line {line}: {text} is not allowed; {_EXPECTED}")
    return value


def _from_npy(data: bytes, file: str, columns) -> tuple[np.ndarray, tuple[str, str]]:
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError) as err:
        raise PairsError(f"file {format_value(file)} is not a .npy array ({err})") from None
    shape = "x".join(str(s) for s in array.shape)
    if array.ndim != 2 or array.shape[1] < 2:
        raise PairsError(
            f"file {format_value(file)} holds an array of shape ({shape}); expected shape (n, 2), a pair a row"
        )
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise PairsError(f"file {format_value(file)} holds {array.dtype} values; expected durations > 0")
    if columns is None:
        if array.shape[1] != 2:
            raise PairsError(
                f"file {format_value(file)} holds an array of shape ({shape}); expected shape (n, 2), or "
                f"--columns A,B to pick two of its columns 0 to {array.shape[1] - 1}"
            )
        index = [0, 1]
    else:
        if not all(isinstance(c, int) and 0 <= c < array.shape[1] for c in columns) or columns[0] == columns[1]:
            raise PairsError(
                f"file {format_value(file)}: --columns {','.join(map(str, columns))} is not allowed; expected two "
                f"indices 0 to {array.shape[1] - 1}"
            )
        index = list(columns)
    values = np.asarray(array[:, index], dtype=np.float64).copy()
    bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)).all(axis=1))
    if bad.size:
        row = int(bad[0])
        raise PairsError(
            f"file {format_value(file)}, row {row + 1}: {format_value(values[row].tolist())} is not allowed; "
            "expected two durations > 0 a row: a request's on two servers"
        )
    return values, (f"column {index[0]}", f"column {index[1]}")


# ---------------------------------------------------------------------------- estimating


@dataclass(frozen=True)
class RankedColumn:
    """What ranking one column in every resample takes, computed once: the order that
    sorts it, where each run of equal values starts in that order (None when all
    differ), and each value's run."""

    order: np.ndarray
    starts: np.ndarray | None
    run: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray) -> RankedColumn:
        n = len(x)
        order = np.argsort(x, kind="stable")
        xs = x[order]
        starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
        run = np.empty(n, dtype=np.intp)
        run[order] = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
        return cls(order, None if len(starts) == n else starts, run)

    def ranks(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each row of ``weights`` (the times each value is in a resample), every
        value's mean rank in the resample (1-based) and the count of the resample's
        values <= it; both of shape ``weights.shape``."""
        in_run = np.take(weights, self.order, axis=1)  # resampled values equal to each value
        if self.starts is not None:
            in_run = np.add.reduceat(in_run, self.starts, axis=1)
        upto = np.cumsum(in_run, axis=1)
        mean_rank = upto - (in_run - 1) / 2
        return np.take(mean_rank, self.run, axis=1), np.take(upto, self.run, axis=1)


def weighted_statistics(
    columns: tuple[RankedColumn, RankedColumn], weights: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Spearman's rho and the tail dependence at ``level`` of each resample (a row of
    ``weights``)."""
    n = weights.shape[1]
    rank_1, upto_1 = columns[0].ranks(weights)
    rank_2, upto_2 = columns[1].ranks(weights)
    middle = (n + 1) / 2  # every resample's mean rank
    d1, d2 = rank_1 - middle, rank_2 - middle
    w1, w2 = weights * d1, weights * d2
    cov = np.einsum("ij,ij->i", w1, d2)
    var_1 = np.einsum("ij,ij->i", w1, d1)
    var_2 = np.einsum("ij,ij->i", w2, d2)
    rho = np.clip(cov / np.sqrt(var_1 * var_2), -1.0, 1.0)  # sqrt(v * v) == v: identical columns give 1
    cut = round(level * n, 9)  # above the level's quantile: more than level * n values <= it
    above_1 = weights * (upto_1 > cut)
    tail = np.einsum("ij,ij->i", above_1, upto_2 > cut) / above_1.sum(axis=1)  # the largest value is above
    return rho, tail


def measure(
    pairs: Pairs | np.ndarray,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    level: float = TAIL_LEVEL,
    seed: int = SEED,
) -> Measured:
    """Spearman's rho, the tail dependence at ``level`` (from :data:`TAIL_PAIRS` pairs on)
    and their percentile bootstrap intervals at ``confidence`` over ``resamples``
    resamples drawn with ``seed``."""
    values = pairs.values if isinstance(pairs, Pairs) else np.asarray(pairs, dtype=np.float64)
    # in the first column's order, its ranks need no sort (a resample is a draw of counts,
    # whatever the pairs' order)
    values = values[np.argsort(values[:, 0], kind="stable")]
    n = values.shape[0]
    columns = (RankedColumn.of(values[:, 0]), RankedColumn.of(values[:, 1]))
    rho, tail = weighted_statistics(columns, np.ones((1, n)), level)
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK // n)
    rhos, tails = [], []
    for start in range(0, resamples, per_chunk):
        k = min(per_chunk, resamples - start)
        drawn = rng.integers(0, n, size=(k, n)) + n * np.arange(k)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=k * n).reshape(k, n).astype(np.float64)
        r, t = weighted_statistics(columns, weights, level)
        rhos.append(r)
        tails.append(t)
    ends = [(1 - confidence) / 2, (1 + confidence) / 2]
    rho_ends = np.quantile(np.concatenate(rhos), ends)
    tail_ends = np.quantile(np.concatenate(tails), ends)
    return Measured(
        n=n,
        rho=Interval(float(rho[0]), float(rho_ends[0]), float(rho_ends[1])),
        tail=Interval(float(tail[0]), float(tail_ends[0]), float(tail_ends[1])) if n >= TAIL_PAIRS else None,
        level=level,
        confidence=confidence,
        resamples=resamples,
    )
