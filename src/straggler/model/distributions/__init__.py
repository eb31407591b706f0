"""Job-size distributions (docs/background/model.md, "Arrivals and job sizes").

A package: :mod:`.base` (the base class and shared helpers), :mod:`.families`
(the table of families, whose classes live in :mod:`.exponential`,
:mod:`.power_law`, :mod:`.weibull_lognormal` and :mod:`.bounded`),
:mod:`.sampling` (named family codes and the numba sampler); here
:func:`from_spec`, which builds one from the config.

Every family is a frozen dataclass deriving from :class:`Distribution`. The base
class evaluates every functional by quadrature of the survival function, which
is exact enough for any law; families override a functional with its closed form
where one exists, and the tests check the two against each other and against
Monte Carlo.

Families (config name, parameters in the config's spelling):

==========================  ===========================  ==========================
``exponential``             ``mean``                     :class:`Exponential`
``deterministic``           ``value``                    :class:`Deterministic`
``pareto``                  ``xm, alpha`` (type I)       :class:`Pareto`
``bounded_pareto``          ``low, high, alpha``         :class:`BoundedPareto`
``shifted_exponential``     ``shift, mean``              :class:`ShiftedExponential`
``hyperexponential``        ``p, rates`` (lists)         :class:`Hyperexponential`
``erlang``                  ``k, mean`` (total mean)     :class:`Erlang`
``weibull``                 ``shape, scale``             :class:`Weibull`
``uniform``                 ``low, high``                :class:`Uniform`
``discrete``                ``values, p`` (lists)        :class:`Discrete`
``lognormal``               ``mean, cv``                 :class:`Lognormal`
``empirical``               ``file`` [``column``, ...]   :class:`Empirical`
``quantiles``               ``quantiles`` ({p: size})    :class:`Quantiles`
==========================  ===========================  ==========================

A parameter called ``mean`` in the config is stored as the field ``mean_value``
(``mean`` is a method). ``mean`` is E[X] in every family: a
``shifted_exponential`` has ``mean > shift`` and stores the exponential part's mean
as ``tail_mean = mean - shift``. Any family also accepts
``scale_to_mean: m`` in :func:`from_spec` (rescale so that ``E[X] = m``) and ``unit``
(the unit of its times, a label: :mod:`.units`).

All families are scale families, so ``X / r`` (a replica on a server of speed
``r``) is again a member: :meth:`Distribution.scaled`.

Closed forms: every family has closed-form ``sf``, ``pdf``, moments and the
truncated functionals ``mean_min``, ``second_moment_min``, ``partial_mean``,
``partial_second_moment`` (Erlang and Weibull through the regularised incomplete
gamma function of scipy.special). ``mean_min_of(d)`` is closed-form or an exact
finite sum except for ``bounded_pareto``, ``lognormal`` and ``erlang`` with
k >= 2, which use the base-class quadrature. The quadrature integrates power-law
tails on a logarithmic scale, so it stays accurate for heavy tails such as
Pareto(1, 10/9) (mean 10, infinite variance).

The tabulated laws (``empirical``, ``quantiles``, ``discrete``) have a piecewise linear
quantile function (:meth:`Distribution.quantile_pieces`): their order statistics and the
replica sums of the cost bounds are exact finite sums too (:mod:`.pieces`).

Tail classes (:meth:`Distribution.tail_class`) describe log P(X > x) on the
half-line x >= 0, the convention of the fork-join paper: a Pareto type I is
"neither" there (it is log-convex only on its support, ``on_support=True``).

Sampling inside numba: each family has an integer ``code`` (:mod:`.codes`) and a
float64 parameter vector ``sampler_params()``; :func:`sample` draws one variate from
``(code, params, rng)`` in nopython mode, where ``rng`` is a
``numpy.random.Generator``. :func:`sample_many` is the Python convenience. The
samplers (:mod:`.sampling`) are loaded when first asked for, so that importing this
package (every job does, an analytic one included) does not import numba.

scipy is imported lazily (inside functions): it costs ~0.5 s per process and
every Snakemake job pays the import time of this module.
"""

from __future__ import annotations

import math

from .base import Distribution, ParameterError, format_value, is_number
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
from .families import (
    FAMILIES,
    OPTIONAL_PARAMETERS,
    PARAMETERS,
    BoundedPareto,
    ByType,
    Deterministic,
    Discrete,
    Empirical,
    Erlang,
    Exponential,
    Hyperexponential,
    Lognormal,
    Pareto,
    Quantiles,
    ShiftedExponential,
    Uniform,
    Weibull,
)
from .units import SECONDS, UNIT_KEY

#: the numba samplers, loaded from :mod:`.sampling` when first asked for (importing
#: numba is most of an analytic job's start-up, and only a simulation needs them)
_SAMPLERS = ("pick_component", "sample", "sample_many", "size_of_type")


def __getattr__(name: str):
    if name in _SAMPLERS:
        from . import sampling

        return getattr(sampling, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Distribution",
    "Exponential",
    "Deterministic",
    "Pareto",
    "BoundedPareto",
    "ShiftedExponential",
    "Hyperexponential",
    "Erlang",
    "Weibull",
    "Uniform",
    "Discrete",
    "Lognormal",
    "Empirical",
    "Quantiles",
    "ByType",
    "FAMILIES",
    "OPTIONAL_PARAMETERS",
    "data_file_digests",
    "laws_within",
    "replace_within",
    "ParameterError",
    "PARAMETERS",
    "from_spec",
    "pick_component",
    "sample",
    "sample_many",
    "EXPONENTIAL_CODE",
    "DETERMINISTIC_CODE",
    "PARETO_CODE",
    "BOUNDED_PARETO_CODE",
    "SHIFTED_EXPONENTIAL_CODE",
    "HYPEREXPONENTIAL_CODE",
    "ERLANG_CODE",
    "WEIBULL_CODE",
    "UNIFORM_CODE",
    "DISCRETE_CODE",
    "LOGNORMAL_CODE",
    "EMPIRICAL_CODE",
    "QUANTILES_CODE",
    "BY_TYPE_CODE",
]


def from_spec(spec: dict) -> Distribution:
    """Build a distribution from its config form ``{family: ..., <params>, [scale_to_mean]}``.

    ``scale_to_mean: m`` rescales the law so that E[X] = m. Errors are ValueErrors
    that name the family or parameter, the value and what is allowed.
    """
    if isinstance(spec, Distribution):
        return spec
    if not isinstance(spec, dict):
        raise ValueError(f"a distribution must be a mapping with a 'family' key, got {spec!r}")
    spec = dict(spec)
    allowed_families = ", ".join(sorted(FAMILIES))
    if "family" not in spec:
        raise ValueError(f"distribution is missing 'family'; allowed: {allowed_families}")
    family = spec.pop("family")
    unit = spec.pop(UNIT_KEY, None)  # a label of its times (.units): the law is the same
    if unit is not None and unit not in SECONDS:
        raise ValueError(f"{family}: unit must be one of {', '.join(SECONDS)}, got {format_value(unit)}")
    if family not in FAMILIES:
        raise ValueError(f"unknown distribution family {family!r}; allowed: {allowed_families}")
    cls = FAMILIES[family]
    params = PARAMETERS[family]
    optional = OPTIONAL_PARAMETERS[family]
    # a family that takes scale_to_mean itself rescales exactly (a data-backed law)
    scale_to_mean = None if "scale_to_mean" in optional else spec.pop("scale_to_mean", None)
    unknown = sorted(set(spec) - set(params) - set(optional), key=str)
    if unknown:
        allowed = ", ".join((*params, *optional, *(() if "scale_to_mean" in optional else ("scale_to_mean",))))
        raise ValueError(f"{family}: unknown parameter {unknown[0]!r}; allowed: {allowed}")
    missing = [p for p in params if p not in spec]
    if missing:
        raise ValueError(f"{family}: missing parameter {missing[0]!r}; required: {', '.join(params)}")
    dist = cls.from_config(spec)
    if scale_to_mean is not None:
        if not (is_number(scale_to_mean) and math.isfinite(float(scale_to_mean)) and scale_to_mean > 0):
            raise ValueError(
                f"{family}: scale_to_mean must be a positive finite number, got {format_value(scale_to_mean)}"
            )
        dist = dist.scaled(float(scale_to_mean) / dist.mean())
    return dist


def laws_within(name: str, spec) -> list[tuple[str, dict]]:
    """``(label, spec)`` of the law ``name`` and of every law inside it, in order: a law per
    job type's laws are ``<name>.laws.<j>``."""
    if not isinstance(spec, dict):
        return []
    found = [(name, spec)]
    cls = FAMILIES.get(spec.get("family")) if isinstance(spec.get("family"), str) else None
    if cls is not None and cls.per_type and isinstance(spec.get("laws"), list):
        for j, law in enumerate(spec["laws"]):
            found += laws_within(f"{name}.laws.{j}", law)
    return found


def replace_within(name: str, spec, change) -> dict:
    """``spec`` with every law ``(label, law)`` of :func:`laws_within` replaced by
    ``change(label, law)``, inner laws first."""
    if not isinstance(spec, dict):
        return spec
    cls = FAMILIES.get(spec.get("family")) if isinstance(spec.get("family"), str) else None
    if cls is not None and cls.per_type and isinstance(spec.get("laws"), list):
        spec = dict(spec, laws=[replace_within(f"{name}.laws.{j}", law, change) for j, law in enumerate(spec["laws"])])
    return change(name, spec)


def data_file_digests(config) -> list[tuple[str, str]]:
    """``(path, content digest)`` of every data file a config's laws name (anywhere in
    it: under ``distributions``, a dependence's inline slowdown law, a scale), in the
    order met. A file that cannot be read is left out: the config's checks say why."""
    found: list[tuple[str, str]] = []

    def visit(node) -> None:
        if isinstance(node, dict):
            cls = FAMILIES.get(node.get("family")) if isinstance(node.get("family"), str) else None
            key = cls.data_file if cls is not None else None
            if key and isinstance(node.get(key), str):
                from .data_files import content_digest

                try:
                    found.append((node[key], content_digest(node[key])))
                except (ValueError, OSError):
                    pass
            for v in node.values():
                visit(v)
        elif isinstance(node, list):
            for v in node:
                visit(v)

    visit(config)
    return found
