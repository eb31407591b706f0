"""The table of job-size families (docs/background/model.md, "Arrivals and job sizes"): every family
class by its config name, with its config parameters.

The classes live by kind: :mod:`.exponential` (exponential, shifted exponential,
hyperexponential, Erlang), :mod:`.power_law` (Pareto, bounded Pareto),
:mod:`.weibull_lognormal` (Weibull, lognormal), :mod:`.bounded` (deterministic,
uniform, discrete) and :mod:`.empirical` (a measured sample read from a file, a table of
quantiles); :mod:`.by_type` gives each job type a law of its own. Each is a frozen
dataclass with the closed forms it has; the rest is the base class's quadrature.
"""

from __future__ import annotations

from .base import Distribution
from .bounded import Deterministic, Discrete, Uniform
from .by_type import ByType
from .empirical import Empirical, Quantiles
from .exponential import Erlang, Exponential, Hyperexponential, ShiftedExponential
from .power_law import BoundedPareto, Pareto
from .weibull_lognormal import Lognormal, Weibull

__all__ = [
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
    "PARAMETERS",
    "OPTIONAL_PARAMETERS",
]

FAMILIES: dict[str, type[Distribution]] = {
    cls.family: cls
    for cls in (
        Exponential,
        Deterministic,
        Pareto,
        BoundedPareto,
        ShiftedExponential,
        Hyperexponential,
        Erlang,
        Weibull,
        Uniform,
        Discrete,
        Lognormal,
        Empirical,
        Quantiles,
        ByType,
    )
}

# Config parameter names per family, in the config's spelling (``mean`` is stored
# as the field ``mean_value`` because ``mean`` is a method): those required, and those
# that may be left out (the empirical law's column, say).
PARAMETERS: dict[str, tuple[str, ...]] = {name: cls.config_parameters() for name, cls in FAMILIES.items()}
OPTIONAL_PARAMETERS: dict[str, tuple[str, ...]] = {name: cls.optional for name, cls in FAMILIES.items()}
