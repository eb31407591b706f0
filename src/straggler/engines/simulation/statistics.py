"""Accumulators for simulated jobs, the backlog (stability) monitor, and summaries.

Nothing here keeps an array per job. One replication of one load fills an
:class:`Accumulator`, three arrays that a numba kernel updates in place:

``acc`` (float64[ACC_SIZE])
    running sums over the measured jobs (``A_N`` count, ``A_SUM_T`` / ``A_SUM_T2``
    latency and its square, ``A_SUM_C`` / ``A_SUM_C2`` cost, ``A_SUM_COPIES`` the
    copies each job launched), and the run's
    state: ``A_STABLE`` (1.0 until the backlog monitor fires), ``A_ARRIVALS``
    (jobs that arrived, warm-up included), ``A_TIME`` (simulated time at the end),
    ``A_WORK`` (server time brought by all arrived jobs, the monitor's
    denominator), ``A_REASON`` (``STOP_DONE``, ``STOP_BACKLOG`` or
    ``STOP_CAPACITY``: an engine's bounded buffer, e.g. Rer's restart heap, is
    full), and the idle evidence: ``A_SEEN0`` / ``A_SEEN1`` servers of pool 0 / 1
    that measured arrivals sampled, ``A_IDLE0`` / ``A_IDLE1`` how many were idle.
``batches`` (float64[N_BATCHES, B_COLUMNS])
    count, latency sum, cost sum and copies sum of the measured jobs in each of
    ``N_BATCHES`` consecutive batches (by measured-job index): batch means give
    a confidence interval from a single replication.
``hist`` (int64[HIST_BINS])
    a log-spaced latency histogram: ``2**HIST_SUB_BITS`` bins per octave from
    ``2**HIST_MIN_EXP`` to ``2**HIST_MAX_EXP`` (values outside are clamped into
    the end bins). A bin spans a relative width of at most ``2**-HIST_SUB_BITS``
    (0.39 %), and quantiles interpolate inside the bin. The bin index is read
    from the bits of the float (exponent and leading mantissa bits), no log.
    Histograms of replications add up.

Engines call :func:`record` for every measured job (or :func:`record_rows` for a block
of them, as the fast path does) and :func:`backlog_check` at
checkpoints; the driver turns accumulators into per-load results with
:func:`summarize` (pure Python).

Backlog monitor: every ``check`` arrivals (see
:func:`~straggler.engines.simulation.encode.check_interval`, about a sixteenth of the
wait below) the engine writes, at checkpoint k, ``m_k`` = the median over the
servers of each pool of the server's backlog (unfinished work, in time units)
and ``a_k`` = the server time brought by all arrivals so far divided by N.
Checkpoint c *sees growth* in a pool when

* ``m_c > EPS * a_c`` (the typical server holds more than 2 % of all the work
  it was ever given), and
* ``m_c > RATIO * m_{c//2} > RATIO**2 * m_{c//4} > 0`` (the backlog grew by at
  least 1.7 per doubling of the run, twice), with ``a_{c//4} >= FILL_FRACTION *
  wait``: a stable queue filling up from empty grows that fast too.

The run is declared unstable at checkpoint k when, for one pool, k and the two
checkpoints ``step`` and ``2 step`` of work earlier all saw growth (``step`` =
``max(SPACING * wait, WINDOW * a_k)``: three nearly independent tests), the
earliest of them at ``a >= wait`` (:func:`monitor_wait`: ``WAIT_SCALE *
E[S^2] / E[S]`` of work per server, at most ``WAIT_CAP * E[S]``; S a replica's
service time at the slowest speed), so that ``EPS * a`` is at least 2.5 times the
mean backlog of a queue at load 0.95.

A growing backlog grows linearly (the ratio tends to 2 per doubling and
``m / a`` to ``(rho - 1) / rho``, 0.048 at load 1.05); a stable queue's backlog
fills up like sqrt(t) at most (ratio 1.41) and then stays put while ``a`` grows.
Telling loads 0.95 and 1.05 apart takes a run of order ``E[S^2] / E[S] /
0.05^2`` per server (the queue's relaxation time); shorter runs are never
flagged. The median makes one huge job, which inflates one server's backlog,
irrelevant when the pool has several servers.

Verdict (:func:`simulation_verdict`): ``unstable`` when the monitor fired in any
replication; ``stable`` only with positive evidence: had the load been 5 %
above its capacity, the monitor would have fired in at least one of the
replications with probability ``1 - MISS_PROBABILITY`` (99 %). A replication
that ran x waits of work per server without firing is credited the detection
probability ``p`` of the calibrated table :data:`DETECTION_WAITS` (the work, in
waits, within which the monitor fired on a fraction p of runs at load 1.05, for
the slowest of four size laws; ``benchmarks/verdict_calibration.py table``), and
the load is stable when the product of the ``1 - p`` is at most
``MISS_PROBABILITY``. A load far from its capacity is also ``stable`` on the idle
evidence (:func:`idle_evidence`): in every replication the arrivals found the
servers of each pool idle at least 10 % of the time, over a measured part of at
least two waits of time (``benchmarks/verdict_calibration.py idle``: no run of ZRed
at loads 1.0 or 1.05 that long, 2000 per pool size and size law, came near). Every
engine samples, for each measured arrival, the servers it chose uniformly before
looking at them (:func:`see`). Otherwise the verdict is ``undetermined``. docs/reference/verdicts.md
("Stability verdicts") gives the measured error rates and the price in jobs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...common.kernel_cache import kernel
from ...common.quantiles import QUANTILES

# ---------------------------------------------------------------- acc layout
A_N, A_SUM_T, A_SUM_C, A_SUM_T2, A_SUM_C2, A_STABLE, A_ARRIVALS, A_TIME, A_WORK, A_REASON = range(10)
A_IDLE0, A_IDLE1, A_SEEN0, A_SEEN1 = range(10, 14)
A_SUM_COPIES = 14
ACC_SIZE = 15
STOP_DONE, STOP_BACKLOG, STOP_CAPACITY = 0, 1, 2

N_BATCHES = 32
B_COUNT, B_SUM_T, B_SUM_C, B_SUM_COPIES = 0, 1, 2, 3
B_COLUMNS = 4

HIST_SUB_BITS = 8
HIST_MIN_EXP = -30
HIST_MAX_EXP = 50
HIST_BINS = (HIST_MAX_EXP - HIST_MIN_EXP) << HIST_SUB_BITS
_HIST_SHIFT = 52 - HIST_SUB_BITS
_HIST_OFFSET = (1023 + HIST_MIN_EXP) << HIST_SUB_BITS

EPS = 0.02
"""Backlog level (fraction of the work brought per server) below which the monitor never fires."""
RATIO = 1.7
"""Growth of the backlog per doubling of the run that the monitor calls linear."""
WAIT_SCALE = 1200.0
"""The monitor waits until each server was given WAIT_SCALE * E[S^2] / E[S] of work: then
EPS times that, 24 E[S^2] / E[S], is 2.5 times the mean backlog of an M/G/1 queue at
load 0.95 (9.5 E[S^2] / E[S]), so a stable queue near 1 is not taken for a growing one."""
FILL_FRACTION = 1.0 / 16.0
"""The growth is measured from checkpoints past FILL_FRACTION of the wait (150 E[S^2] /
E[S] of work: a queue filling up from empty grows too)."""
WAIT_CAP = 1.0e4
"""... or WAIT_CAP * E[S] when E[S^2] is infinite (or larger)."""

MON_POOL0, MON_POOL1, MON_WORK, MON_GROW0 = 0, 1, 2, 3
MON_COLUMNS = 5
"""Columns of the monitor's history: the median backlog of pool 0 and 1, the work per
server, and per pool whether the checkpoint saw growth (1.0) or not (0.0)."""
SPACING = 0.25
"""The three growth tests are at least SPACING waits of work apart ..."""
WINDOW = 1.0 / 16.0
"""... and at least WINDOW of the run's work: checkpoints are a sixteenth of a wait
apart, so three consecutive ones are one event (a stable queue of one server at
load 0.95 was then flagged in 2-5 % of runs)."""


@dataclass
class Accumulator:
    """One replication's running sums, batch sums and latency histogram (see the
    module docstring), which a kernel updates in place."""

    acc: np.ndarray
    batches: np.ndarray
    hist: np.ndarray
    workloads: np.ndarray | None = None
    """the servers' work at the last arrival (the kernel's end state), when kept"""

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(acc, batches, hist)``, in the order of the kernel's arguments."""
        return self.acc, self.batches, self.hist


def new_accumulator() -> Accumulator:
    """An empty :class:`Accumulator`: zero sums, ``A_STABLE`` 1 (the monitor has not fired)."""
    acc = np.zeros(ACC_SIZE, dtype=np.float64)
    acc[A_STABLE] = 1.0
    return Accumulator(acc, np.zeros((N_BATCHES, B_COLUMNS), dtype=np.float64), np.zeros(HIST_BINS, dtype=np.int64))


def batch_scale(jobs: int) -> float:
    """``1 / batch size``: measured job m goes to batch ``int(m * batch_scale)``."""
    return N_BATCHES / float(max(int(jobs), 1))


def new_monitor(arrivals: int, check: int) -> np.ndarray:
    """Checkpoint history for :func:`backlog_check`: one row per checkpoint
    (median backlog of pool 0 and 1, work per server), row 0 is time 0."""
    return np.zeros((int(arrivals) // int(check) + 3, MON_COLUMNS), dtype=np.float64)


# ---------------------------------------------------------------- numba helpers


@kernel(nogil=True, inline="always")
def hist_index(x, fbuf, ibuf):
    """Histogram bin of ``x >= 0``; ``fbuf`` float64[1] and ``ibuf`` its int64 view."""
    fbuf[0] = x
    b = (ibuf[0] >> _HIST_SHIFT) - _HIST_OFFSET
    if b < 0:
        return 0
    if b >= HIST_BINS:
        return HIST_BINS - 1
    return b


@kernel(nogil=True, inline="always")
def record(acc, batches, hist, fbuf, ibuf, m, latency, cost, copies, inv_batch):
    """Add measured job number ``m`` (0-based after the warm-up), which launched ``copies``
    copies (sent to a server, whether they ran or not)."""
    acc[A_N] += 1.0
    acc[A_SUM_T] += latency
    acc[A_SUM_C] += cost
    acc[A_SUM_T2] += latency * latency
    acc[A_SUM_C2] += cost * cost
    acc[A_SUM_COPIES] += copies
    b = int(m * inv_batch)
    if b >= N_BATCHES:
        b = N_BATCHES - 1
    batches[b, B_COUNT] += 1.0
    batches[b, B_SUM_T] += latency
    batches[b, B_SUM_C] += cost
    batches[b, B_SUM_COPIES] += copies
    hist[hist_index(latency, fbuf, ibuf)] += 1


ROW_LAT, ROW_COST, ROW_COPIES = 0, 1, 2
ROW_COLUMNS = 3
"""Columns of the job rows :func:`record_rows` reads: latency, cost, copies."""


@kernel(nogil=True)
def record_rows(acc, batches, hist, fbuf, ibuf, rows, n0, n1, warmup, inv_batch):
    """:func:`record` for the jobs of arrival indices ``n0..n1-1`` whose ``(latency, cost,
    copies)`` are ``rows[n - n0]``; the warm-up ones (``n < warmup``) are skipped.

    The same additions in the same order as :func:`record` job by job, so the same sums
    bit for bit; but the running sums and the current batch's sums stay in registers
    over the block instead of being read and written back in memory for every job,
    which the job loop of an engine pays for (measured on the fast path, CoC d = 2:
    about a fifth of its time per job)."""
    m0 = max(n0, warmup)
    if m0 >= n1:
        return
    a_n = acc[A_N]
    a_t = acc[A_SUM_T]
    a_c = acc[A_SUM_C]
    a_t2 = acc[A_SUM_T2]
    a_c2 = acc[A_SUM_C2]
    a_k = acc[A_SUM_COPIES]
    bc = -1
    b_n = 0.0
    b_t = 0.0
    b_c = 0.0
    b_k = 0.0
    for n in range(m0, n1):
        lat = rows[n - n0, ROW_LAT]
        cost = rows[n - n0, ROW_COST]
        copies = rows[n - n0, ROW_COPIES]
        a_n += 1.0
        a_t += lat
        a_c += cost
        a_t2 += lat * lat
        a_c2 += cost * cost
        a_k += copies
        b = int((n - warmup) * inv_batch)
        if b >= N_BATCHES:
            b = N_BATCHES - 1
        if b != bc:  # a new batch: put the last one's sums back, take this one's
            if bc >= 0:
                batches[bc, B_COUNT] = b_n
                batches[bc, B_SUM_T] = b_t
                batches[bc, B_SUM_C] = b_c
                batches[bc, B_SUM_COPIES] = b_k
            bc = b
            b_n = batches[bc, B_COUNT]
            b_t = batches[bc, B_SUM_T]
            b_c = batches[bc, B_SUM_C]
            b_k = batches[bc, B_SUM_COPIES]
        b_n += 1.0
        b_t += lat
        b_c += cost
        b_k += copies
        hist[hist_index(lat, fbuf, ibuf)] += 1
    batches[bc, B_COUNT] = b_n
    batches[bc, B_SUM_T] = b_t
    batches[bc, B_SUM_C] = b_c
    batches[bc, B_SUM_COPIES] = b_k
    acc[A_N] = a_n
    acc[A_SUM_T] = a_t
    acc[A_SUM_C] = a_c
    acc[A_SUM_T2] = a_t2
    acc[A_SUM_C2] = a_c2
    acc[A_SUM_COPIES] = a_k


@kernel(nogil=True, inline="always")
def see(acc, pool, idle):
    """An arrival (measured) found a uniformly chosen server of ``pool`` idle or busy:
    the idle evidence's sample (PASTA: arrivals see the time average)."""
    acc[A_SEEN0 + pool] += 1.0
    # adding 0.0 to a count changes nothing, and a select instead of a branch on
    # a coin flip saves a misprediction (measured on the fast path)
    acc[A_IDLE0 + pool] += 1.0 if idle else 0.0


@kernel(nogil=True)
def kth_smallest(buf, n, k):
    """The k-th smallest (0-based) of ``buf[:n]``, reordering ``buf`` in place
    (Hoare quickselect with a median-of-three pivot; no allocation)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        a = buf[lo]
        b = buf[mid]
        c = buf[hi]
        if a < b:
            if b < c:
                pivot = b
            elif a < c:
                pivot = c
            else:
                pivot = a
        else:
            if a < c:
                pivot = a
            elif b < c:
                pivot = c
            else:
                pivot = b
        i = lo
        j = hi
        while i <= j:
            while buf[i] < pivot:
                i += 1
            while buf[j] > pivot:
                j -= 1
            if i <= j:
                tmp = buf[i]
                buf[i] = buf[j]
                buf[j] = tmp
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return buf[k]
    return buf[k]


@kernel(nogil=True)
def median_inplace(buf, n):
    """Median of ``buf[:n]`` (``n >= 1``), reordering it."""
    if n % 2 == 1:
        return kth_smallest(buf, n, n // 2)
    hi = kth_smallest(buf, n, n // 2)
    lo = buf[0]
    for i in range(1, n // 2):
        if buf[i] > lo:
            lo = buf[i]
    return 0.5 * (lo + hi)


@kernel(nogil=True)
def _grows(mon, c, pool, eps, ratio, wait):
    """Linear growth up to checkpoint c: above EPS of the work, and at least
    ``ratio`` times the value at c // 2, itself ``ratio`` times that at c // 4,
    all three after the fill-up wait (a queue filling up from empty grows too)."""
    m = mon[c, pool]
    mh = mon[c // 2, pool]
    mq = mon[c // 4, pool]
    return (
        mon[c // 4, MON_WORK] >= FILL_FRACTION * wait
        and m > eps * mon[c, MON_WORK]
        and mq > 0.0
        and mh > ratio * mq
        and m > ratio * mh
    )


def monitor_wait(m1: float, m2: float) -> float:
    """Work per server before the monitor may fire, for replica service times
    with moments (m1, m2) (at the slowest speed): ``WAIT_SCALE * m2 / m1``, at
    most ``WAIT_CAP * m1``."""
    if not (m1 > 0 and math.isfinite(m1)):
        return 0.0
    if not math.isfinite(m2):
        return WAIT_CAP * m1
    return min(WAIT_SCALE * m2 / m1, WAIT_CAP * m1)


@kernel(nogil=True)
def _row_at_work(mon, k, work):
    """The last checkpoint row ``<= k`` whose work per server is ``<= work`` (rows
    are in increasing work; row 0 is time 0)."""
    lo = 0
    hi = k
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if mon[mid, MON_WORK] <= work:
            lo = mid
        else:
            hi = mid - 1
    return lo


@kernel(nogil=True)
def backlog_check(mon, k, pools, eps, wait):
    """True if the backlog grows (see the module docstring); row ``k`` of ``mon``
    holds checkpoint k (row 0: time 0); ``wait`` is :func:`monitor_wait`. Records,
    per pool, whether checkpoint k saw growth."""
    a = mon[k, MON_WORK]
    step = max(SPACING * wait, a * WINDOW)
    k1 = _row_at_work(mon, k, a - step)
    k2 = _row_at_work(mon, k, a - 2.0 * step)
    fired = False
    for pool in range(pools):
        grows = k >= 4 and _grows(mon, k, pool, eps, RATIO, wait)
        mon[k, MON_GROW0 + pool] = 1.0 if grows else 0.0
        # three tests apart by `step` of work, all after the wait
        if (
            grows
            and k2 >= 1
            and mon[k2, MON_WORK] >= wait
            and mon[k1, MON_GROW0 + pool] == 1.0
            and mon[k2, MON_GROW0 + pool] == 1.0
        ):
            fired = True
    return fired


# ---------------------------------------------------------------- summaries


def t_quantile(confidence: float, df: int) -> float:
    """Two-sided Student t quantile ``t_{(1 + confidence)/2, df}``."""
    from scipy.special import stdtrit  # lazy: scipy.special ~0.2 s

    return float(stdtrit(df, 0.5 + 0.5 * float(confidence)))


def fewest_replications(spread: float, target: float, confidence: float, least: int, most: int) -> int:
    """The fewest replications ``R``, ``least <= R <= most``, whose CI half-width
    ``t_{R-1} spread / sqrt(R)`` is at most ``target`` (``most`` when none is): sequential
    stopping's rule (:func:`.driver.replications_for`), and the pilot's projection of it."""
    for r in range(max(least, 2), most + 1):
        if t_quantile(confidence, r - 1) * spread / math.sqrt(r) <= target:
            return r
    return max(most, least)


def paired_ci(a: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float] | None:
    """The Student-t CI of the mean of ``a - b`` over the replications both have
    (None with fewer than two). Valid whether or not ``a`` and ``b`` share random
    numbers (the differences are independent across replications either way); with
    common random numbers it is the tighter one."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return None
    ok = np.isfinite(a) & np.isfinite(b)
    n = int(ok.sum())
    if n < 2:
        return None
    d = a[ok] - b[ok]
    mean = float(d.mean())
    half = t_quantile(level, n - 1) * float(d.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def hist_quantiles(hist: np.ndarray, qs=QUANTILES) -> np.ndarray:
    """Quantiles of a histogram, interpolated linearly inside the bin."""
    total = int(hist.sum())
    out = np.full(len(qs), math.nan)
    if total == 0:
        return out
    cum = np.cumsum(hist)
    for i, q in enumerate(qs):
        target = q * total
        b = int(np.searchsorted(cum, target, side="left"))
        b = min(b, HIST_BINS - 1)
        before = float(cum[b - 1]) if b > 0 else 0.0
        count = float(hist[b])
        lo, hi = bin_edges(b)
        frac = (target - before) / count if count > 0 else 0.5
        out[i] = lo + min(max(frac, 0.0), 1.0) * (hi - lo)
    return out


def bin_edges(b: int) -> tuple[float, float]:
    """``[lo, hi)`` of histogram bin ``b``."""
    e = (b >> HIST_SUB_BITS) + HIST_MIN_EXP
    m = b & ((1 << HIST_SUB_BITS) - 1)
    scale = 2.0 ** (e - HIST_SUB_BITS)
    base = 1 << HIST_SUB_BITS
    return (base + m) * scale, (base + m + 1) * scale


def _ci(values: np.ndarray, confidence: float) -> float:
    n = len(values)
    if n < 2:
        return math.nan
    return t_quantile(confidence, n - 1) * float(np.std(values, ddof=1)) / math.sqrt(n)


def mser_truncation(means: np.ndarray) -> int:
    """MSER's truncation point of a series of batch means (White 1997; Hoad, Robinson
    and Davies 2010): the number ``d`` of leading batches whose deletion minimises
    ``sum_{i > d} (Y_i - mean_{i > d} Y)^2 / (n - d)^2``, the squared standard error of
    the mean of what is kept, searched over ``d`` from 0 to ``n // 2`` (beyond, the
    statistic rests on too few batches and its minimum is noise). A minimum at the end
    of the search, ``n // 2``, says the series is still drifting at half the run."""
    y = np.asarray(means, dtype=float)
    y = y[np.isfinite(y)]
    n = len(y)
    if n < 4:
        return 0
    tail = y[::-1]
    count = np.arange(1, n + 1, dtype=float)
    mean = np.cumsum(tail) / count
    square = np.cumsum(tail * tail) / count
    spread = np.maximum(square - mean * mean, 0.0) * count  # sum of squared deviations of the last k
    d = np.arange(n // 2 + 1)
    kept = n - d
    statistic = spread[kept - 1] / (kept * kept.astype(float))
    return int(np.argmin(statistic))


def warmup_batches(replications) -> float:
    """MSER's truncation point (:func:`mser_truncation`) of the latency batch means
    averaged over the replications, batch by batch: an initialisation bias is common
    to every replication (each starts empty), the noise is not. NaN when a replication
    has an empty batch (too few measured jobs)."""
    _, batches, _ = _parts(replications)
    series = []
    for b in batches:
        if not (b[:, B_COUNT] > 0).all():
            return math.nan
        series.append(b[:, B_SUM_T] / b[:, B_COUNT])
    return float(mser_truncation(np.mean(series, axis=0))) if series else math.nan


def _parts(replications):
    """(acc rows, batch rows, pooled histogram) of a
    :class:`~straggler.engines.simulation.store.Replications` or a list of Accumulators."""
    if not isinstance(replications, (list, tuple)):
        return list(replications.acc), list(replications.batches), replications.hist
    accs = [a if isinstance(a, Accumulator) else Accumulator(*a) for a in replications]
    hist = np.sum([a.hist for a in accs], axis=0) if accs else np.zeros(HIST_BINS, np.int64)
    return [a.acc for a in accs], [a.batches for a in accs], hist


def replication_means(replications) -> np.ndarray:
    """(R, 3): each replication's mean latency, mean server time per job and mean
    copies per job (NaN for a replication without measured jobs)."""
    rows, _, _ = _parts(replications)
    out = np.full((len(rows), 3), math.nan)
    for i, r in enumerate(rows):
        if r[A_N] > 0:
            out[i] = r[A_SUM_T] / r[A_N], r[A_SUM_C] / r[A_N], r[A_SUM_COPIES] / r[A_N]
    return out


def summarize(replications, confidence: float) -> dict:
    """Per-load estimates from its replications (a
    :class:`~straggler.engines.simulation.store.Replications` or a list of Accumulators).

    Returns ``latency_mean``, ``latency_mean_ci``, ``latency_quantile`` (for
    :data:`QUANTILES`) and ``latency_quantile_ci`` (Student t over the replications'
    own quantiles; NaN with one), ``cost_mean``, ``cost_mean_ci``, ``copies_mean``,
    ``copies_mean_ci`` (the copies a job launched), ``fired`` (the monitor
    fired, or a buffer overflowed, in some replication), ``jobs`` (measured
    jobs, all replications) and ``warmup_batches`` (:func:`warmup_batches`). Means are pooled over all measured jobs, whatever
    the verdict (the caller decides what they mean: :func:`simulation_verdict`);
    the CI half-width is Student t at ``confidence`` over the replication means
    (two or more replications) or over the non-empty batch means of the single
    replication. Sums run in replication order, so the result does not depend on
    how the replications were grouped into jobs.
    """
    rows, batches, hist = _parts(replications)
    n = np.array([r[A_N] for r in rows])
    jobs = int(n.sum())
    fired = any(r[A_STABLE] != 1.0 for r in rows)
    nan = math.nan
    out = dict(
        latency_mean=nan,
        latency_mean_ci=nan,
        latency_quantile=np.full(len(QUANTILES), nan),
        cost_mean=nan,
        cost_mean_ci=nan,
        copies_mean=nan,
        copies_mean_ci=nan,
        latency_quantile_ci=np.full(len(QUANTILES), nan),
        fired=fired,
        jobs=jobs,
        warmup_batches=math.nan,
    )
    if jobs == 0:
        return out
    out["warmup_batches"] = warmup_batches(replications)
    sum_t = sum(r[A_SUM_T] for r in rows)
    sum_c = sum(r[A_SUM_C] for r in rows)
    out["latency_mean"] = sum_t / jobs
    out["cost_mean"] = sum_c / jobs
    out["copies_mean"] = sum(r[A_SUM_COPIES] for r in rows) / jobs
    if len(rows) >= 2:
        ok = n > 0
        t_means = np.array([r[A_SUM_T] for r in rows])[ok] / n[ok]
        c_means = np.array([r[A_SUM_C] for r in rows])[ok] / n[ok]
        k_means = np.array([r[A_SUM_COPIES] for r in rows])[ok] / n[ok]
    else:
        b = batches[0]
        ok = b[:, B_COUNT] > 0
        t_means = b[ok, B_SUM_T] / b[ok, B_COUNT]
        c_means = b[ok, B_SUM_C] / b[ok, B_COUNT]
        k_means = b[ok, B_SUM_COPIES] / b[ok, B_COUNT]
    out["latency_mean_ci"] = _ci(t_means, confidence)
    out["cost_mean_ci"] = _ci(c_means, confidence)
    out["copies_mean_ci"] = _ci(k_means, confidence)
    out["latency_quantile"] = hist_quantiles(hist)
    per_replication = replication_quantiles(replications)
    out["latency_quantile_ci"] = np.array(
        [_ci(per_replication[:, i][np.isfinite(per_replication[:, i])], confidence) for i in range(len(QUANTILES))]
    )
    return out


def replication_quantiles(replications) -> np.ndarray:
    """(R, len(QUANTILES)): each replication's latency quantiles (a
    :class:`~straggler.engines.simulation.store.Replications` keeps them; a list of
    Accumulators has its histograms)."""
    if not isinstance(replications, (list, tuple)):
        if replications.quantiles is not None:
            return np.asarray(replications.quantiles, dtype=float)
        return np.full((len(replications), len(QUANTILES)), math.nan)
    accs = [a if isinstance(a, Accumulator) else Accumulator(*a) for a in replications]
    return np.array([hist_quantiles(a.hist) for a in accs]).reshape(len(accs), len(QUANTILES))


# ---------------------------------------------------------------- verdicts

DETECTION_LEVELS = (0.5, 0.75, 0.9, 0.95, 0.99)
"""Levels p of :data:`DETECTION_WAITS`."""

DETECTION_WAITS = {
    1: (3.84, 7.13, 12.42, 17.39, 30.19),
    2: (3.29, 5.76, 9.23, 12.33, 19.11),
    5: (3.08, 5.11, 7.8, 10.27, 14.87),
    10: (2.51, 3.83, 5.81, 7.14, 11.52),
    100: (1.57, 1.86, 2.37, 2.74, 3.86),
    1000: (1.51, 1.51, 1.54, 1.58, 1.78),
}
"""Pool size n -> the work per server, in monitor waits, within which the monitor
fired on a fraction p (:data:`DETECTION_LEVELS`) of runs of ZRed on n identical
FCFS servers at load 1.05, for the slowest of deterministic, exponential,
hyperexponential (scv 9.5) and Pareto (alpha 2.2) sizes, 1000 runs each
(``benchmarks/verdict_calibration.py table``). A pool of another size uses the
row of the largest tabulated size below it (fewer servers: slower detection)."""

MISS_PROBABILITY = 0.01
"""A load is ``stable`` when, had it been 5 % above its capacity, all its
replications would have missed the growth with at most this probability."""


def _table_row(pool: int) -> tuple[float, ...]:
    return DETECTION_WAITS[max(n for n in DETECTION_WAITS if n <= max(int(pool), 1))]


def detection_probability(waits: float, pool: int) -> float:
    """The probability credited to one replication that ran ``waits`` monitor waits
    of work per server without firing: the largest level p whose calibrated work
    it reached (0 below the first)."""
    p = 0.0
    for level, x in zip(DETECTION_LEVELS, _table_row(pool)):
        if waits >= x:
            p = level
    return p


def miss_probability(waits, pool: int) -> float:
    """Probability that replications which ran ``waits`` (one value each) all miss
    the growth of a load 5 % above capacity."""
    miss = 1.0
    for x in waits:
        miss *= 1.0 - detection_probability(float(x), pool)
    return miss


def waits_for_verdict(replications: int, pool: int) -> float:
    """The work per server, in waits, that each of ``replications`` replications
    needs for a ``stable`` verdict."""
    row = _table_row(pool)
    for level, x in zip(DETECTION_LEVELS, row):
        if (1.0 - level) ** int(replications) <= MISS_PROBABILITY * (1.0 + 1e-9):
            return x
    return row[-1]


def replication_waits(replications, wait: float, servers: int) -> np.ndarray:
    """Work per server brought to each replication, in monitor waits."""
    rows, _, _ = _parts(replications)
    if not wait > 0:
        return np.zeros(len(rows))
    return np.array([r[A_WORK] / servers / wait for r in rows])


IDLE_MIN = 0.1
"""Idle evidence: arrivals found the servers of the busiest pool idle at least this
fraction of the time (its utilisation at most 0.9) ..."""
IDLE_MIN_SEEN = 1000
"""... over at least this many measured arrivals sampling each pool ..."""
IDLE_SPAN_WAITS = 2.0
"""... in every replication, whose measured part spans at least this many monitor
waits of time (``benchmarks/verdict_calibration.py idle``)."""


def idle_fraction(replications, pools: int = 2) -> np.ndarray:
    """Per replication, the idle fraction of its busiest of ``pools`` pools as the
    measured arrivals found it (NaN where a pool was never sampled)."""
    rows, _, _ = _parts(replications)
    out = np.full(len(rows), math.nan)
    for i, r in enumerate(rows):
        if all(r[A_SEEN0 + p] > 0 for p in range(int(pools))):
            out[i] = min(r[A_IDLE0 + p] / r[A_SEEN0 + p] for p in range(int(pools)))
    return out


def measured_span(replications, rate: float, warmup: int) -> np.ndarray:
    """Per replication, the expected time its measured arrivals span: (arrivals -
    warm-up) / rate."""
    rows, _, _ = _parts(replications)
    return np.array([max(r[A_ARRIVALS] - int(warmup), 0.0) / float(rate) for r in rows])


def idle_evidence(replications, wait: float, rate: float, warmup: int, pools: int = 2) -> bool:
    """True when, in every replication, the measured arrivals found the servers of
    each of the ``pools`` pools idle at least :data:`IDLE_MIN` of the time (at least
    :data:`IDLE_MIN_SEEN` samples each), over a measured part spanning at least
    :data:`IDLE_SPAN_WAITS` monitor waits of time.

    Why this proves stability (up to the calibrated error): a pool whose backlog grows
    is eventually busy all the time (its idle periods stop once its workload escapes
    from 0), so over a window much longer than the queue's relaxation time (of order
    ``E[S^2] / E[S] / (1 - rho)^2``; a wait is ``WAIT_SCALE E[S^2] / E[S]``) it is idle
    a vanishing fraction of the time; even at exactly its capacity its idle fraction
    shrinks like ``sqrt(E[S^2] / E[S] / t)``. A pool idle 10 % of such a window runs at
    most 0.9 of its capacity. The servers of a pool are exchangeable under every policy
    here (uniform choices within a pool, made before looking at the servers), so what
    an arrival finds at a uniformly chosen server of a pool is, by PASTA, the pool's
    time-average idle fraction (:func:`see`, called by the engines)."""
    rows, _, _ = _parts(replications)
    if not rows or not (wait > 0 and rate > 0):
        return False
    spans = measured_span(replications, rate, warmup)
    for r, span in zip(rows, spans):
        if span < IDLE_SPAN_WAITS * wait:
            return False
        for p in range(int(pools)):
            seen = r[A_SEEN0 + p]
            if seen < IDLE_MIN_SEEN or r[A_IDLE0 + p] < IDLE_MIN * seen:
                return False
    return True


def simulation_verdict(
    replications, wait: float, servers: int, pool: int, rate: float = 0.0, warmup: int = 0, pools: int = 2
) -> tuple[str, float]:
    """``(verdict, miss probability)`` of one load: ``unstable`` if the monitor
    fired in a replication, ``stable`` if the monitor's evidence is enough
    (:data:`MISS_PROBABILITY`) or, given the arrival ``rate``, the servers idled
    (:func:`idle_evidence`), else ``undetermined`` (see the module docstring)."""
    return verdict_with_evidence(replications, wait, servers, pool, rate, warmup, pools)[:2]


def verdict_with_evidence(
    replications, wait: float, servers: int, pool: int, rate: float = 0.0, warmup: int = 0, pools: int = 2
) -> tuple[str, float, str]:
    """:func:`simulation_verdict` and what it rests on: ``monitor`` (growth seen, or a
    run long enough to have seen it), ``idle`` (:func:`idle_evidence`) or ""."""
    rows, _, _ = _parts(replications)
    if any(r[A_STABLE] != 1.0 for r in rows):
        return "unstable", 0.0, "monitor"
    miss = miss_probability(replication_waits(replications, wait, servers), pool)
    if miss <= MISS_PROBABILITY * (1.0 + 1e-9):
        return "stable", miss, "monitor"
    if rate > 0 and idle_evidence(replications, wait, rate, warmup, pools):
        return "stable", miss, "idle"
    return "undetermined", miss, ""


def jobs_for_verdict(
    replications, wait: float, servers: int, pool: int, warmup: int, rate: float = 0.0, pools: int = 2
) -> float:
    """Measured jobs per replication that would give a verdict with as many
    replications, at the work per arrival these runs measured: the fewer of what the
    monitor needs and, where every replication found each pool idle often enough
    (:func:`idle_evidence` but for the length), what the idle evidence needs."""
    rows, _, _ = _parts(replications)
    arrivals = sum(r[A_ARRIVALS] for r in rows)
    work = sum(r[A_WORK] for r in rows)
    if not (arrivals > 0 and work > 0 and wait > 0):
        return math.nan
    per_arrival = work / arrivals / servers
    need = waits_for_verdict(len(rows), pool) * wait / per_arrival
    if rate > 0 and all(
        r[A_SEEN0 + p] > 0 and r[A_IDLE0 + p] >= IDLE_MIN * r[A_SEEN0 + p] for r in rows for p in range(int(pools))
    ):
        seen = min(r[A_SEEN0 + p] / max(r[A_ARRIVALS] - int(warmup), 1.0) for r in rows for p in range(int(pools)))
        need_idle = max(IDLE_SPAN_WAITS * wait * rate, IDLE_MIN_SEEN / seen) + int(warmup)
        need = min(need, need_idle)
    return float(max(math.ceil(need) - int(warmup), 1))
