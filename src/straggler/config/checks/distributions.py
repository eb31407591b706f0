"""The size laws and dependences: their parameters, probabilities and means."""

from __future__ import annotations

import copy
import math

from ..errors import Err, did_you_mean, fmt_path, format_value, not_allowed, one_of
from ..keys import BUILTIN_DEPENDENCES, PROBABILITY_TOLERANCE
from ..limits import SIZE_RANGE
from ..schema import schema_validator
from .values import numbers


def check_probabilities(p, path) -> list[Err]:
    if not numbers(p) or not p:
        return []
    if any(x < 0 for x in p):
        return [not_allowed(path, p, "probabilities, each >= 0, summing to 1")]
    total = math.fsum(p)
    if not abs(total - 1.0) <= PROBABILITY_TOLERANCE:
        return [
            Err(
                tuple(path),
                f"{fmt_path(path)}: value {format_value(p)} is not allowed: it sums to {total!r}; "
                f"expected probabilities summing to 1",
            )
        ]
    return []


def _check_distribution(spec, path: tuple) -> list[Err]:
    """Checks of one distribution spec beyond the schema, then distributions.from_spec."""
    if not isinstance(spec, dict) or not schema_validator("distribution").is_valid(copy.deepcopy(spec)):
        return []  # the schema errors say what is wrong
    family = spec["family"]
    errs: list[Err] = []
    if family in ("hyperexponential", "discrete"):
        errs += check_probabilities(spec["p"], path + ("p",))
        other = "rates" if family == "hyperexponential" else "values"
        if len(spec[other]) != len(spec["p"]):
            errs.append(
                Err(
                    path + (other,),
                    f"{fmt_path(path + (other,))}: value {format_value(spec[other])} is not "
                    f"allowed: it has {len(spec[other])} entries; expected one per probability in p "
                    f"({len(spec['p'])})",
                )
            )
    if family in ("bounded_pareto", "uniform") and not spec["high"] > spec["low"]:
        errs.append(not_allowed(path + ("high",), spec["high"], f"a number > low = {spec['low']}"))
    if family == "discrete" and not errs and not math.fsum(v * q for v, q in zip(spec["values"], spec["p"])) > 0:
        errs.append(not_allowed(path, spec, "a distribution with a positive mean"))
    if errs:
        return errs

    from ... import distributions

    if family not in distributions.FAMILIES:
        return [
            Err(
                path + ("family",),
                f"{fmt_path(path + ('family',))}: value {family!r} is not allowed: "
                f"straggler.distributions does not implement it; expected one of "
                f"{one_of(distributions.FAMILIES)}",
            )
        ]
    try:
        mean = _mean(spec)
    except (ValueError, TypeError, ArithmeticError) as exc:
        where = path + (exc.parameter,) if isinstance(exc, distributions.ParameterError) else path
        return [Err(where, f"{fmt_path(where)}: {exc}")]
    if not (math.isfinite(mean) and mean > 0):
        return [not_allowed(path, spec, f"a distribution with a finite positive mean (its mean is {mean!r})")]
    if not SIZE_RANGE[0] <= mean <= SIZE_RANGE[1]:
        # a mean of 1e-320 made the arrival rate infinite; name the key that sets the mean
        key = next((k for k in ("scale_to_mean", "mean", "value") if k in spec), None)
        where, value = (path + (key,), spec[key]) if key else (path, spec)
        return [not_allowed(where, value, f"a distribution whose mean is in {range_text()} (its mean is {mean!r})")]
    return []


def range_text() -> str:
    return f"[{SIZE_RANGE[0]:g}, {SIZE_RANGE[1]:g}]"


def _mean(spec: dict) -> float:
    from ... import distributions

    return float(distributions.from_spec(copy.deepcopy(spec)).mean())


def mean_or_none(spec) -> float | None:
    """The mean of a valid spec (None for anything else: its errors are reported apart)."""
    if not isinstance(spec, dict) or not schema_validator("distribution").is_valid(copy.deepcopy(spec)):
        return None
    try:
        mean = _mean(spec)
    except (ValueError, TypeError, ArithmeticError):
        return None
    return mean if math.isfinite(mean) and mean > 0 else None


def named_spec_errors(dists: dict, user_deps: dict) -> list[Err]:
    """The named distributions' and dependences' own errors."""
    errs: list[Err] = []
    for name, spec in dists.items():
        errs += _check_distribution(spec, ("distributions", name))
    for name, spec in user_deps.items():
        path = ("dependences", name)
        if name in BUILTIN_DEPENDENCES and spec != BUILTIN_DEPENDENCES[name]:
            errs.append(
                not_allowed(
                    path,
                    spec,
                    f"{format_value(BUILTIN_DEPENDENCES[name])} (a built-in name; "
                    f"choose another name for another dependence)",
                )
            )
        if isinstance(spec, dict) and spec.get("kind") == "sx":
            slowdown = spec.get("slowdown")
            if isinstance(slowdown, str) and slowdown not in dists:
                errs.append(
                    not_allowed(
                        path + ("slowdown",),
                        slowdown,
                        f"a distribution defined under distributions ({one_of(dists)}) "
                        f"or an inline distribution{did_you_mean(slowdown, dists)}",
                    )
                )
            elif isinstance(slowdown, dict):
                errs += _check_distribution(slowdown, path + ("slowdown",))
    return errs
