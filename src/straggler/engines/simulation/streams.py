"""Random streams of a replication: their seeds, five independent generators, read in blocks.

A load's replications are seeded from the cell's ``SeedSequence`` by
:func:`load_seed_sequence` and :func:`replication_seeds` (keyed by the load's
value, see :mod:`straggler.engines.simulation`).

A replication draws from five independent ``numpy.random.Generator`` streams
(PCG64, from :func:`replication_streams`), each consumed in job order:

``ARRIVALS``
    standard exponentials; interarrival time = value / lambda, then (J > 1) the
    job's type, from the uniform ``1 - exp(-value)`` of the next one.
``ROUTING``
    uniforms on [0, 1): the job's pool and servers (see the order in :mod:`.contract`).
``SIZES``
    draws of the job-size family X (``distributions.sample`` with the size's
    code): one per job, the first replica's size (identical, sx: the job's X).
``SLOWDOWNS``
    the second size stream: sx, draws of the slowdown family S, one per replica;
    iid and mixture, draws of X for the replicas after the first.
``COUPLING``
    uniforms on [0, 1), read only under the mixture (``MIXTURE_CODE``, ``c =
    s_params[0]``): one per job, ``u``; the job is *coupled* if ``u < c``: every
    copy takes the first replica's size (as identical), else the copies after the
    first take their SLOWDOWNS draws (as iid). Either way the job reads from SIZES
    and SLOWDOWNS exactly what an iid job reads (a coupled job's SLOWDOWNS draws are
    read and dropped), so a job keeps its sizes whatever ``c``: ``c = 0`` gives the
    iid numbers and ``c = 1`` the identical ones, bit for bit (the other streams are
    other generators). A copy sized later (Hedge's timer) takes the job's first size
    if the job is coupled, else its SLOWDOWNS draw, read then as under iid.

Streams 0..3 are children 0..3 of the replication's ``SeedSequence``; COUPLING is
child 4, so adding it left every other stream as it was, bit for bit.

Common random numbers: a job takes the same values whatever the policy. Its
arrival and type come from ARRIVALS, its first replica's size from SIZES (one per
job), and every job takes the sizes of all the replicas its policy may place
(:func:`.encode.replicas_per_job`: 1 for ZRed and KT, 2 for FRed, Rer and Rep, d
for CoC, CoS, RIQ and FJ), whichever run, and (mixture) one COUPLING value. Only
the routing depends on the policy.
The streams are seeded by the workload (the setting without the policy and its
parameters, the load, the replication: :func:`straggler.study.grid.workload_id`), so
policies compared on one workload see the same arrivals, types and sizes: all of
them with identical replicas, and the first replica (and the others, between
policies that place as many) with i.i.d. ones.

The q-th value a job takes from a stream is the q-th draw of that stream's
generator, whatever the buffering, so an engine can read the streams in blocks
(the fast path refills a block of ``block_size`` values when fewer than one job
may need remain) and the pure-Python reference can draw one value at a time and
still see the same numbers. The engines keep COUPLING in a block as long as the
SIZES block and refill the two together, at the same read position (each job reads
one value of each): job q's coupling value sits at the index of its SIZES value, so
one read position serves both. Filling a block is a tight loop per family (about
3-4 ns a value for the common families), which keeps the generators' indirect
calls out of the simulation loop: with the generator called inside the loop a
CoC job costs several times more.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ...common.kernel_cache import kernel
from ...model import distributions as D
from ...model.distributions import sample as _sample
from ...model.distributions.sampling import (
    draw_bounded_pareto,
    draw_discrete,
    draw_empirical,
    draw_exponential,
    draw_hyperexponential,
    draw_pareto,
    draw_quantiles,
    draw_shifted_exponential,
    draw_uniform,
    draw_weibull,
)

ARRIVALS, ROUTING, SIZES, SLOWDOWNS, COUPLING = range(5)
N_STREAMS = 5
NAMES = ("arrivals", "routing", "sizes", "slowdowns", "coupling")


def load_seed_sequence(seed_sequence: np.random.SeedSequence, load: float) -> np.random.SeedSequence:
    """The stream of one load: the cell's entropy and spawn key plus the load's key."""
    key = repr(float(load)).encode()
    digest = hashlib.sha256(key).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
    return np.random.SeedSequence(entropy=seed_sequence.entropy, spawn_key=tuple(seed_sequence.spawn_key) + words)


def replication_seeds(seed_sequence, load: float, replications: int) -> list:
    """The SeedSequence of each replication of one load."""
    return load_seed_sequence(seed_sequence, load).spawn(int(replications))


def replication_streams(seed: np.random.SeedSequence) -> tuple:
    """The five generators of a replication, from its ``SeedSequence`` (children
    0..4 of ``seed.spawn``, in the order of :data:`NAMES`; a fresh copy of ``seed`` is
    spawned, so the call is pure). Child i depends only on ``seed`` and i, so the
    first four are the streams of the four-stream engines, bit for bit."""
    ss = np.random.SeedSequence(entropy=seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    return tuple(np.random.Generator(np.random.PCG64(c)) for c in ss.spawn(N_STREAMS))


@kernel(nogil=True)
def block_size(per_job):
    """Block length for a stream of which one job takes at most ``per_job``
    values: refilled when half read, a block covers at least 4 jobs (and at
    least 2048 values)."""
    return max(4096, 8 * per_job)


@kernel(nogil=True)
def _shift(buf, pos):
    """Move the unread values ``buf[pos:]`` to the front; return how many."""
    n = buf.shape[0]
    keep = n - pos
    for i in range(keep):
        buf[i] = buf[pos + i]
    return keep


@kernel(nogil=True)
def refill_exponential(rng, buf, pos):
    """Keep the unread ``buf[pos:]`` (moved to the front), fill the rest with
    standard exponentials; return the new read position 0."""
    start = _shift(buf, pos)
    for i in range(start, buf.shape[0]):
        buf[i] = rng.standard_exponential()
    return 0


@kernel(nogil=True)
def refill_uniform(rng, buf, pos):
    """As :func:`refill_exponential`, with uniforms on [0, 1)."""
    start = _shift(buf, pos)
    for i in range(start, buf.shape[0]):
        buf[i] = rng.random()
    return 0


@kernel(nogil=True)
def refill_family(code, p, rng, buf, pos):
    """As :func:`refill_exponential`, with draws of the family ``code``
    (parameters ``p``): the draws of :func:`straggler.model.distributions.sample`, one
    family's draw function in a loop (Erlang and lognormal call ``sample``)."""
    n = buf.shape[0]
    i0 = _shift(buf, pos)
    if code == D.EXPONENTIAL_CODE:
        for i in range(i0, n):
            buf[i] = draw_exponential(p, rng)
    elif code == D.DETERMINISTIC_CODE:
        for i in range(i0, n):
            buf[i] = p[0]
    elif code == D.PARETO_CODE:
        for i in range(i0, n):
            buf[i] = draw_pareto(p, rng)
    elif code == D.BOUNDED_PARETO_CODE:
        for i in range(i0, n):
            buf[i] = draw_bounded_pareto(p, rng)
    elif code == D.SHIFTED_EXPONENTIAL_CODE:
        for i in range(i0, n):
            buf[i] = draw_shifted_exponential(p, rng)
    elif code == D.HYPEREXPONENTIAL_CODE:
        for i in range(i0, n):
            buf[i] = draw_hyperexponential(p, rng)
    elif code == D.WEIBULL_CODE:
        for i in range(i0, n):
            buf[i] = draw_weibull(p, rng)
    elif code == D.UNIFORM_CODE:
        for i in range(i0, n):
            buf[i] = draw_uniform(p, rng)
    elif code == D.DISCRETE_CODE:
        for i in range(i0, n):
            buf[i] = draw_discrete(p, rng)
    elif code == D.EMPIRICAL_CODE:
        for i in range(i0, n):
            buf[i] = draw_empirical(p, rng)
    elif code == D.QUANTILES_CODE:
        for i in range(i0, n):
            buf[i] = draw_quantiles(p, rng)
    elif code == D.BY_TYPE_CODE:  # uniforms: size_of_type reads them once a job's type is known
        for i in range(i0, n):
            buf[i] = rng.random()
    else:
        for i in range(i0, n):
            buf[i] = _sample(code, p, rng)
    return 0


class PyStreams:
    """The same streams, one value at a time, for pure-Python code (the reference)."""

    def __init__(self, rngs, x_code, x_params, s_code, s_params):
        self.rngs = rngs
        self.x = (int(x_code), np.asarray(x_params, dtype=float))
        self.s = (int(s_code), np.asarray(s_params, dtype=float))
        self._sample = _sample.py_func

    def interarrival(self) -> float:
        """The next standard exponential of the arrivals stream (times 1 / lambda: the
        interarrival time)."""
        return self.rngs[ARRIVALS].standard_exponential()

    def type_uniform(self) -> float:
        """The job's type uniform: the next value of the arrivals stream, ``1 -
        exp(-e)`` (the engines' ``-expm1(-e)``)."""
        return -float(np.expm1(-self.rngs[ARRIVALS].standard_exponential()))

    def extra_size(self) -> float:
        """A replica after the first (iid): a draw of X from the second size stream."""
        return self._sample(self.x[0], self.x[1], self.rngs[SLOWDOWNS])

    def uniform(self) -> float:
        """The next uniform on [0, 1) of the routing stream."""
        return self.rngs[ROUTING].random()

    def size(self) -> float:
        """The next draw of X from the sizes stream (a job's first replica)."""
        return self._sample(self.x[0], self.x[1], self.rngs[SIZES])

    def slowdown(self) -> float:
        """The next draw of the slowdown S from the second size stream (sx)."""
        return self._sample(self.s[0], self.s[1], self.rngs[SLOWDOWNS])

    def coupling(self) -> float:
        """The next uniform on [0, 1) of the coupling stream (mixture: one per job)."""
        return self.rngs[COUPLING].random()


@kernel(nogil=True, _nrt=False, inline="always")
def distinct_servers(perm, N, d, srv, ub, ui):
    """d distinct servers of N into ``srv[:d]``, from the ROUTING uniforms ``ub[ui:ui + d]``:
    a partial Fisher-Yates shuffle of ``perm``, a permutation kept across jobs (O(d), no
    rejection, flat in N). Every engine places a job's d replicas with it, so they read
    the routing stream alike. Returns the new read position."""
    for i in range(d):
        r = i + int(ub[ui + i] * (N - i))
        s = perm[r]
        perm[r] = perm[i]
        perm[i] = s
        srv[i] = s
    return ui + d
