"""Sampling inside numba: one draw, many draws.

Each family has an integer ``code`` (named in :mod:`.codes`, and shared by the block sampler of
the kernels, :func:`straggler.engines.simulation.streams.refill_family`) and a float64
parameter vector ``sampler_params()``; :func:`sample` draws one variate from
``(code, params, rng)`` in nopython mode, where ``rng`` is a
``numpy.random.Generator``. :func:`sample_many` is the Python convenience.
"""

from __future__ import annotations

import numpy as np

from ...common.kernel_cache import kernel
from .base import Distribution
from .by_type import ByType
from .codes import (
    BOUNDED_PARETO_CODE,
    BY_TYPE_CODE,
    DETERMINISTIC_CODE,
    DISCRETE_CODE,
    EMPIRICAL_CODE,
    ERLANG_CODE,
    EXPONENTIAL_CODE,
    HYPEREXPONENTIAL_CODE,
    LOGNORMAL_CODE,
    PARETO_CODE,
    QUANTILES_CODE,
    SHIFTED_EXPONENTIAL_CODE,
    UNIFORM_CODE,
    WEIBULL_CODE,
)

# ----------------------------------------------------------------------------------
# numba samplers: one draw of each family, written once
# ----------------------------------------------------------------------------------
# Each family's draw is one inlined function of (params, rng). :func:`sample` switches on
# the code per draw; the kernels' block sampler
# (:func:`straggler.engines.simulation.streams.refill_family`) switches once per block and calls
# the same functions in a loop (a switch per draw costs it 2-3x: measured, numba does
# not hoist it out of the loop). Both therefore draw the same variates in the same order.


@kernel()
def pick_component(params, n, u):
    """Index i of the mixture component for uniform u, probabilities params[1:1+n]."""
    acc = 0.0
    for i in range(n):
        acc += params[1 + i]
        if u < acc:
            return i
    return n - 1


@kernel(inline="always")
def pick_cumulative(params, n, u):
    """The first index i with ``u < params[1 + i]``, the cumulative probabilities
    params[1:1+n] (n - 1 if none): a binary search, the same index as a scan that
    accumulates the probabilities when the sums are formed in the same order
    (:meth:`straggler.model.distributions.Discrete.sampler_params`). The discrete law draws
    with :func:`pick_guided`, which returns this index for every u; this is its
    reference (the tests compare the two)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if u < params[1 + mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@kernel(inline="always")
def pick_guided(params, n, u):
    """:func:`pick_cumulative`'s index (the first i with ``u < c_i``, n - 1 if none),
    found from the guide table after the values: params[1 + 2n] = m buckets,
    params[2 + 2n + j] = g_j (:meth:`straggler.model.distributions.Discrete.sampler_params`).
    Expected O(1): the c_i the scan steps over lie in ((j - 1) / m, u], less than two
    buckets wide, so a uniform u steps over at most 2 n / m of them on average."""
    # Why this is the binary search's index. u in [0, 1): j = int(u m) in floating point
    # may exceed floor(u m) by one when u m rounds up to an integer (never more: rounding
    # is monotone and integers below 2^53 are floats), and is clamped to m - 1 (a product
    # that rounds up to m stays in the table). So u >= (j - 1) / m exactly, and g_j, the
    # first i with c_i > (j - 1) / m computed exactly (g_0 = 0), is at most the answer:
    # the c_i it skips are <= (j - 1) / m <= u. The scan then steps over the c_i <= u and
    # stops at the first c_i > u (or at n - 1), the first i with u < c_i since the c_i
    # are nondecreasing: the index the binary search finds.
    m = params[1 + 2 * n]
    j = min(int(u * m), int(m) - 1)
    i = int(params[2 + 2 * n + j])
    while i < n - 1 and u >= params[1 + i]:
        i += 1
    return i


@kernel(inline="always")
def draw_exponential(params, rng):  # [mean]
    return params[0] * rng.standard_exponential()


@kernel(inline="always")
def draw_pareto(params, rng):  # [xm, alpha]: xm * U^(-1/alpha) = xm * exp(E / alpha)
    return params[0] * np.exp(rng.standard_exponential() / params[1])


@kernel(inline="always")
def draw_bounded_pareto(params, rng):  # [low, high, alpha, 1 - (low/high)^alpha]: inverse cdf
    x = params[0] * (1.0 - rng.random() * params[3]) ** (-1.0 / params[2])
    return min(x, params[1])


@kernel(inline="always")
def draw_shifted_exponential(params, rng):  # [shift, tail_mean]
    return params[0] + params[1] * rng.standard_exponential()


@kernel(inline="always")
def draw_hyperexponential(params, rng):  # [n, p..., rates...]
    n = int(params[0])
    i = pick_component(params, n, rng.random())
    return rng.standard_exponential() / params[1 + n + i]


@kernel(inline="always")
def draw_erlang(params, rng):  # [k, mean]
    return rng.standard_gamma(params[0]) * (params[1] / params[0])


@kernel(inline="always")
def draw_weibull(params, rng):  # [shape, scale]
    return params[1] * rng.standard_exponential() ** (1.0 / params[0])


# The tabulated laws draw by their quantile function at one uniform (``*_at``): a law per
# job type (:func:`size_of_type`) calls the same functions once the job's type is known.


@kernel(inline="always")
def uniform_at(params, u):  # [low, high]
    return params[0] + (params[1] - params[0]) * u


@kernel(inline="always")
def draw_uniform(params, rng):
    return uniform_at(params, rng.random())


@kernel(inline="always")
def discrete_at(params, u):  # [n, c_1..c_n, value_1..value_n, m, g_0..g_(m-1)]
    # c_i the cumulative probabilities, then the guide table of m buckets: the value of
    # the first i with u < c_i (the last if none), found by :func:`pick_guided`
    n = int(params[0])
    return params[1 + n + pick_guided(params, n, u)]


@kernel(inline="always")
def draw_discrete(params, rng):
    return discrete_at(params, rng.random())


@kernel(inline="always")
def empirical_at(params, u):  # [n, interpolate, x_(1), ..., x_(n)]
    # O(1): an index into the sorted sample (int(u n) can round up to n when n is large)
    n = int(params[0])
    if params[1] == 0.0 or n == 1:
        return params[2 + min(int(u * n), n - 1)]
    at = u * (n - 1)  # the quantile function is linear between the order statistics
    i = min(int(at), n - 2)
    return params[2 + i] + (at - i) * (params[3 + i] - params[2 + i])


@kernel(inline="always")
def draw_empirical(params, rng):
    return empirical_at(params, rng.random())


@kernel(inline="always")
def draw_quantiles(params, rng):
    return quantiles_at(params, rng.random())


@kernel(inline="always")
def quantiles_at(params, u):  # [m, p_0 .. p_(m-1), x_0 .. x_(m-1)], p_0 = 0, p_(m-1) = 1
    # the quantile function, linear between the table's points: a bisection for the
    # segment p_i <= u < p_(i+1), then its line
    m = int(params[0])
    lo = 0
    hi = m - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if params[1 + mid] <= u:
            lo = mid
        else:
            hi = mid
    p0 = params[1 + lo]
    x0 = params[1 + m + lo]
    return x0 + (u - p0) / (params[2 + lo] - p0) * (params[2 + m + lo] - x0)


@kernel(inline="always")
def draw_lognormal(params, rng):  # [mu, sigma]
    return np.exp(params[0] + params[1] * rng.standard_normal())


@kernel(inline="always")
def size_of_type(code, params, j, x):
    """A type-``j`` job's size from the value ``x`` its size stream holds: ``x`` itself,
    but for a law per job type (:data:`BY_TYPE_CODE`), whose streams hold uniforms: type
    j's quantile function at ``x``. ``params``: ``[J, start_0.., code_0.., the laws'
    parameters]`` (:meth:`straggler.model.distributions.ByType.sampler_params`)."""
    if code != BY_TYPE_CODE:
        return x
    J = int(params[0])
    own = params[int(params[1 + j]) :]
    c = int(params[1 + J + j])
    if c == EMPIRICAL_CODE:
        return empirical_at(own, x)
    elif c == QUANTILES_CODE:
        return quantiles_at(own, x)
    elif c == DISCRETE_CODE:
        return discrete_at(own, x)
    elif c == UNIFORM_CODE:
        return uniform_at(own, x)
    return own[0]  # deterministic


@kernel()
def sample(code, params, rng):
    """One draw of the family ``code`` with parameters ``params`` (``sampler_params()``).

    ``rng`` is a ``numpy.random.Generator``; only ``random``, ``standard_exponential``,
    ``standard_normal`` and ``standard_gamma`` are used.
    """
    if code == EXPONENTIAL_CODE:
        return draw_exponential(params, rng)
    elif code == DETERMINISTIC_CODE:  # [value]
        return params[0]
    elif code == PARETO_CODE:
        return draw_pareto(params, rng)
    elif code == BOUNDED_PARETO_CODE:
        return draw_bounded_pareto(params, rng)
    elif code == SHIFTED_EXPONENTIAL_CODE:
        return draw_shifted_exponential(params, rng)
    elif code == HYPEREXPONENTIAL_CODE:
        return draw_hyperexponential(params, rng)
    elif code == ERLANG_CODE:
        return draw_erlang(params, rng)
    elif code == WEIBULL_CODE:
        return draw_weibull(params, rng)
    elif code == UNIFORM_CODE:
        return draw_uniform(params, rng)
    elif code == DISCRETE_CODE:
        return draw_discrete(params, rng)
    elif code == LOGNORMAL_CODE:
        return draw_lognormal(params, rng)
    elif code == EMPIRICAL_CODE:
        return draw_empirical(params, rng)
    elif code == QUANTILES_CODE:
        return draw_quantiles(params, rng)
    elif code == BY_TYPE_CODE:  # the uniform that size_of_type turns into a size
        return rng.random()
    raise ValueError("unknown distribution code")


@kernel()
def _sample_many(code, params, n, rng):
    out = np.empty(n, dtype=np.float64)
    for j in range(n):
        out[j] = sample(code, params, rng)
    return out


def sample_many(dist: Distribution, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """``n`` i.i.d. draws of ``dist`` with the numba kernel :func:`sample`.

    ``rng`` is a ``numpy.random.Generator`` (or a seed for ``default_rng``)."""
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    if isinstance(dist, ByType):  # the mixture: a type, then its size
        cumulative = np.cumsum(np.asarray(dist.type_probabilities(), dtype=float))
        return _sample_by_type(dist.sampler_params(), cumulative, int(n), rng)
    return _sample_many(dist.code, dist.sampler_params(), int(n), rng)


@kernel()
def _sample_by_type(params, cumulative, n, rng):
    """``n`` draws of a law per job type as one law: each a type j (from one uniform
    against the types' cumulative probabilities), then its size (:func:`size_of_type`)."""
    out = np.empty(n, dtype=np.float64)
    J = cumulative.shape[0]
    for i in range(n):
        u = rng.random()
        j = 0
        while j < J - 1 and u >= cumulative[j]:
            j += 1
        out[i] = size_of_type(BY_TYPE_CODE, params, j, rng.random())
    return out
