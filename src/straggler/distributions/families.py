"""The table of job-size families (docs/background/model.md, "Arrivals and job sizes"): every family
class by its config name, with its config parameters.

The classes live by kind: :mod:`.exponential` (exponential, shifted exponential,
hyperexponential, Erlang), :mod:`.power_law` (Pareto, bounded Pareto),
:mod:`.weibull_lognormal` (Weibull, lognormal) and :mod:`.bounded` (deterministic,
uniform, discrete). Each is a frozen dataclass with the closed forms it has; the
rest is the base class's quadrature.
"""

from __future__ import annotations

from .base import Distribution
from .bounded import Deterministic, Discrete, Uniform
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
    "FAMILIES",
    "PARAMETERS",
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
    )
}

# Config parameter names per family, in the config's spelling (``mean`` is stored
# as the field ``mean_value`` because ``mean`` is a method). All are required.
PARAMETERS: dict[str, tuple[str, ...]] = {name: cls.config_parameters() for name, cls in FAMILIES.items()}
