"""The families' integer codes: what a sampler kernel branches on (``Distribution.code``).

A module of its own, with no kernel in it: the families (and every module that only
describes a law) import their codes from here, so that importing
:mod:`straggler.model.distributions` does not import numba; the samplers
(:mod:`.sampling`) are loaded when first used.
"""

from __future__ import annotations

# The families' codes in the samplers (Distribution.code): distributions.sample and
# simulation.streams.refill_family branch on them. Plain ints, so that numba
# compiles a comparison with one as a constant.
(
    EXPONENTIAL_CODE,
    DETERMINISTIC_CODE,
    PARETO_CODE,
    BOUNDED_PARETO_CODE,
    SHIFTED_EXPONENTIAL_CODE,
    HYPEREXPONENTIAL_CODE,
    ERLANG_CODE,
    WEIBULL_CODE,
    UNIFORM_CODE,
    DISCRETE_CODE,
    LOGNORMAL_CODE,
    EMPIRICAL_CODE,
    QUANTILES_CODE,
    BY_TYPE_CODE,
) = range(14)
