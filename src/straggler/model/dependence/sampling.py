"""The joint sampler of one job's replica sizes for the simulators (numba)."""

from __future__ import annotations

import numpy as np

from ...common.kernel_cache import kernel
from ..distributions import DETERMINISTIC_CODE, UNIFORM_CODE, ByType, Distribution
from ..distributions import sample as _sample
from .base import IDENTICAL_CODE, IID_CODE, MIXTURE_CODE, PAIRS_CODE, Dependence
from .mixture import Mixture
from .pairs import MeasuredPairs


@kernel(nogil=True, inline="always")
def pair_sizes(table, u):
    """The two durations of the pair a job's uniform ``u`` picks from ``table`` (``[n, a_0,
    b_0, a_1, b_1, ...]``, :mod:`.pairs`): pair ``k // 2`` of ``k = int(u 2n)``, in the file's
    order when ``k`` is even, swapped when odd (the servers are exchangeable)."""
    n = int(table[0])
    k = int(u * 2.0 * n)
    if k >= 2 * n:
        k = 2 * n - 1
    i = 1 + 2 * (k >> 1)
    swap = k & 1
    return table[i + swap], table[i + 1 - swap]


@kernel()
def sample_replicas(dep_code, x_code, x_params, s_code, s_params, n_replicas, out, rng):
    """Fill ``out[:n_replicas]`` with one job's replica sizes (at speed 1).

    ``dep_code``: 0 identical (one draw of X, repeated), 1 iid (independent draws),
    2 sx (one draw of X times independent draws of S), 3 mixture (a uniform first:
    below ``c = s_params[0]``, one draw repeated, else independent draws). The
    arguments after ``dep_code`` are those of :func:`sampler_args`; ``rng`` is a
    ``numpy.random.Generator``.
    """
    if dep_code == MIXTURE_CODE:
        one = rng.random() < s_params[0]
        x = _sample(x_code, x_params, rng)
        for i in range(n_replicas):
            out[i] = x if one or i == 0 else _sample(x_code, x_params, rng)
    elif dep_code == IDENTICAL_CODE:
        x = _sample(x_code, x_params, rng)
        for i in range(n_replicas):
            out[i] = x
    elif dep_code == IID_CODE:
        for i in range(n_replicas):
            out[i] = _sample(x_code, x_params, rng)
    elif dep_code == PAIRS_CODE:
        first, second = pair_sizes(s_params, _sample(x_code, x_params, rng))
        for i in range(n_replicas):
            out[i] = first if i == 0 else second
    else:
        x = _sample(x_code, x_params, rng)
        for i in range(n_replicas):
            out[i] = x * _sample(s_code, s_params, rng)


def sampler_args(dep: Dependence, X: Distribution) -> tuple[int, int, np.ndarray, int, np.ndarray]:
    """``(dep_code, x_code, x_params, s_code, s_params)`` for :func:`sample_replicas`
    (a deterministic 1 as the slowdown unless ``dep`` is ``sx``; for a mixture, a
    deterministic ``c``: the slot carries the probability that the copies are one draw,
    ``s_params[0]``, to every engine; written directly, not as a ``Deterministic``, which
    refuses ``c = 0``)."""
    if isinstance(dep, MeasuredPairs):
        # a uniform a job picks its pair (and their order) with, the pairs as the slot's table
        return int(dep.code), int(UNIFORM_CODE), np.array([0.0, 1.0]), int(DETERMINISTIC_CODE), dep.sampler_table()
    x = (int(dep.code), int(X.code), np.ascontiguousarray(X.sampler_params(), dtype=np.float64))
    if isinstance(dep, Mixture):
        return (*x, int(DETERMINISTIC_CODE), np.array([dep.identical], dtype=np.float64))
    S = dep.slowdown_or_dummy()
    return (*x, int(S.code), np.ascontiguousarray(S.sampler_params(), dtype=np.float64))


@kernel()
def _fill_jobs(dep_code, x_code, x_params, s_code, s_params, out, rng):
    for j in range(out.shape[0]):
        sample_replicas(dep_code, x_code, x_params, s_code, s_params, out.shape[1], out[j], rng)


def sample_jobs(dep: Dependence, X: Distribution, n_jobs: int, n_replicas: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_jobs, n_replicas)`` replica sizes at speed 1 (tests and checks). A law per job
    type: each job's type drawn first, its replicas from its type's law."""
    out = np.empty((int(n_jobs), int(n_replicas)), dtype=np.float64)
    if isinstance(X, ByType):
        p = np.asarray(X.type_probabilities(), dtype=float)
        types = rng.choice(p.size, size=int(n_jobs), p=p / p.sum())
        for j in range(p.size):
            rows = np.flatnonzero(types == j)
            out[rows] = sample_jobs(dep, X.of_type(j), rows.size, n_replicas, rng)
        return out
    _fill_jobs(*sampler_args(dep, X), out, rng)
    return out
