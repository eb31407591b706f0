"""Sampling inside numba: one draw, many draws.

Each family has an integer ``code`` (named in :mod:`.codes`, and shared by the block sampler of
the kernels, :func:`straggler.simulation.streams.refill_family`) and a float64
parameter vector ``sampler_params()``; :func:`sample` draws one variate from
``(code, params, rng)`` in nopython mode, where ``rng`` is a
``numpy.random.Generator``. :func:`sample_many` is the Python convenience.
"""

from __future__ import annotations

import numpy as np

from ..kernel_cache import kernel
from .base import Distribution
from .codes import (
    BOUNDED_PARETO_CODE,
    DETERMINISTIC_CODE,
    DISCRETE_CODE,
    ERLANG_CODE,
    EXPONENTIAL_CODE,
    HYPEREXPONENTIAL_CODE,
    LOGNORMAL_CODE,
    PARETO_CODE,
    SHIFTED_EXPONENTIAL_CODE,
    UNIFORM_CODE,
    WEIBULL_CODE,
)

# ----------------------------------------------------------------------------------
# numba sampler
# ----------------------------------------------------------------------------------


@kernel()
def pick_component(params, n, u):
    """Index i of the mixture component for uniform u, probabilities params[1:1+n]."""
    acc = 0.0
    for i in range(n):
        acc += params[1 + i]
        if u < acc:
            return i
    return n - 1


@kernel()
def sample(code, params, rng):
    """One draw of the family ``code`` with parameters ``params`` (``sampler_params()``).

    ``rng`` is a ``numpy.random.Generator``; only ``random``, ``standard_exponential``,
    ``standard_normal`` and ``standard_gamma`` are used.
    """
    if code == EXPONENTIAL_CODE:  # exponential [mean]
        return params[0] * rng.standard_exponential()
    elif code == DETERMINISTIC_CODE:  # deterministic [value]
        return params[0]
    elif code == PARETO_CODE:  # pareto [xm, alpha]: xm * U^(-1/alpha) = xm * exp(E / alpha)
        return params[0] * np.exp(rng.standard_exponential() / params[1])
    elif code == BOUNDED_PARETO_CODE:  # bounded pareto [low, high, alpha, 1 - (low/high)^alpha]: inverse cdf
        x = params[0] * (1.0 - rng.random() * params[3]) ** (-1.0 / params[2])
        return min(x, params[1])
    elif code == SHIFTED_EXPONENTIAL_CODE:  # shifted exponential [shift, tail_mean]
        return params[0] + params[1] * rng.standard_exponential()
    elif code == HYPEREXPONENTIAL_CODE:  # hyperexponential [n, p..., rates...]
        n = int(params[0])
        i = pick_component(params, n, rng.random())
        return rng.standard_exponential() / params[1 + n + i]
    elif code == ERLANG_CODE:  # erlang [k, mean]
        return rng.standard_gamma(params[0]) * (params[1] / params[0])
    elif code == WEIBULL_CODE:  # weibull [shape, scale]
        return params[1] * rng.standard_exponential() ** (1.0 / params[0])
    elif code == UNIFORM_CODE:  # uniform [low, high]
        return params[0] + (params[1] - params[0]) * rng.random()
    elif code == DISCRETE_CODE:  # discrete [n, p..., values...]
        n = int(params[0])
        i = pick_component(params, n, rng.random())
        return params[1 + n + i]
    elif code == LOGNORMAL_CODE:  # lognormal [mu, sigma]
        return np.exp(params[0] + params[1] * rng.standard_normal())
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
    return _sample_many(dist.code, dist.sampler_params(), int(n), rng)
