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
    if family == "by_type":
        return _by_type_errors(spec, path)
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

    from ....model import distributions

    if family not in distributions.FAMILIES:
        return [
            Err(
                path + ("family",),
                f"{fmt_path(path + ('family',))}: value {family!r} is not allowed: "
                f"straggler.model.distributions does not implement it; expected one of "
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


def _by_type_errors(spec: dict, path: tuple) -> list[Err]:
    """A law per job type: each type's law checked as a law of its own (and of a family
    the engines draw by its quantile function)."""
    from ....model.distributions.by_type import TYPE_LAW_FAMILIES

    errs: list[Err] = []
    for k, law in enumerate(spec["laws"]):
        where = path + ("laws", k)
        if law.get("family") not in TYPE_LAW_FAMILIES:
            errs.append(not_allowed(where + ("family",), law.get("family"), f"one of {one_of(TYPE_LAW_FAMILIES)}"))
        elif law.get("bootstrap"):
            errs.append(
                not_allowed(
                    where + ("bootstrap",),
                    law["bootstrap"],
                    "0: a type's trace is not resampled inside by_type (give the trace a law of its own to "
                    "bootstrap it)",
                )
            )
        else:
            errs += _check_distribution(law, where)
    return errs


def per_type_errors(cfg: dict, dists: dict, user_deps: dict, types: dict) -> list[Err]:
    """A law per job type against the rest of the study: one law per type of
    system.types.p, whose probabilities are the law's (a ``p`` it carries is theirs); not a slowdown (a slowdown has no type); not with the redundancy
    load basis (its rho~ takes E[min of d] of one law)."""
    p = types.get("p", [0.5, 0.5])
    J = len(p) if isinstance(p, list) else None
    errs: list[Err] = []
    per_type = [name for name, spec in dists.items() if isinstance(spec, dict) and spec.get("family") == "by_type"]
    for name in per_type:
        if "p" in dists[name] and dists[name]["p"] != p:  # a resolved study carries system.types.p
            errs.append(
                not_allowed(
                    ("distributions", name, "p"),
                    dists[name]["p"],
                    f"nothing, or system.types.p ({format_value(p)}): the types' probabilities are the "
                    "system's (the study copies them here when it is resolved)",
                )
            )
        laws = dists[name].get("laws")
        if J is not None and isinstance(laws, list) and len(laws) != J:
            errs.append(
                not_allowed(
                    ("distributions", name, "laws"),
                    f"{len(laws)} laws",
                    f"{J} laws, one per job type of system.types.p ({format_value(p)})",
                )
            )
    for name, dep in user_deps.items():
        slowdown = dep.get("slowdown") if isinstance(dep, dict) else None
        if slowdown in per_type or (isinstance(slowdown, dict) and slowdown.get("family") == "by_type"):
            errs.append(
                not_allowed(
                    ("dependences", name, "slowdown"),
                    slowdown,
                    "a law with no job types (a slowdown multiplies the job's own size, whatever its type)",
                )
            )
    if per_type and cfg.get("load_basis") == "redundancy":
        errs.append(
            not_allowed(
                ("load_basis",),
                "redundancy",
                f"'nominal' with a law per job type ({one_of(per_type)}): rho~ takes E[min of d] of one size law",
            )
        )
    return errs


def range_text() -> str:
    return f"[{SIZE_RANGE[0]:g}, {SIZE_RANGE[1]:g}]"


def _mean(spec: dict) -> float:
    from ....model import distributions

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
        if isinstance(spec, dict) and spec.get("kind") == "pairs":
            errs += _pairs_errors(spec, path)
    return errs


def _pairs_errors(spec: dict, path: tuple) -> list[Err]:
    """A pairs dependence's file, read now (one line naming the file, the line and what is
    allowed, as straggler fit --pairs says it)."""
    from ....model.dependence.kinds import pairs_of

    try:
        pairs_of(spec, "")
    except ValueError as err:
        return [Err(path + ("file",), f"{'.'.join(map(str, path))}.file: {str(err).removeprefix('.file: ')}")]
    return []


def pairing_errors(grid: dict, user_deps: dict) -> list[Err]:
    """A dependence's ``work`` names a distribution of the grid, its ``checks`` another
    dependence of the grid that checks none itself; and a dependence of the grid has at
    least one distribution it is evaluated with."""
    errs: list[Err] = []
    laws = [n for n in grid.get("distribution", []) or [] if isinstance(n, str)]
    used = [n for n in grid.get("dependence", []) or [] if isinstance(n, str)]
    for name in used:
        spec = user_deps.get(name)
        if not isinstance(spec, dict):
            continue
        work, checked = spec.get("work"), spec.get("checks")
        if isinstance(work, str) and work not in laws:
            errs.append(
                not_allowed(
                    ("dependences", name, "work"),
                    work,
                    f"a distribution on grid.distribution ({one_of(laws)}): the one this dependence is "
                    f"evaluated with{did_you_mean(work, laws)}",
                )
            )
        if isinstance(checked, str):
            target = user_deps.get(checked)
            if checked not in used or checked == name:
                errs.append(
                    not_allowed(
                        ("dependences", name, "checks"),
                        checked,
                        f"another dependence on grid.dependence ({one_of([u for u in used if u != name])}): "
                        f"the one whose answer this one checks{did_you_mean(checked, used)}",
                    )
                )
            elif isinstance(target, dict) and target.get("checks") is not None:
                errs.append(
                    not_allowed(
                        ("dependences", name, "checks"),
                        checked,
                        f"a dependence that checks none itself (dependences.{checked} checks "
                        f"{format_value(target['checks'])})",
                    )
                )
    return errs


def pairs_cell_errors(grid: dict, dists: dict, user_deps: dict) -> list[Err]:
    """A pairs dependence in the grid: its cells' law must be the pairs' marginal (the same
    file, its two columns pooled: what one copy takes), and no policy may send more than two
    copies (a pair is two durations)."""
    from ....model.dependence.kinds import pairs_of
    from ....model.dependence.pairs import MAX_COPIES, marginal_spec

    errs: list[Err] = []
    used = [n for n in grid.get("dependence", []) or [] if isinstance(n, str)]
    for name in used:
        spec = user_deps.get(name)
        if not (isinstance(spec, dict) and spec.get("kind") == "pairs"):
            continue
        try:
            dep = pairs_of(spec, "")
            expected = marginal_spec(dep)
        except ValueError:
            continue  # named_spec_errors says why
        laws = [spec["work"]] if isinstance(spec.get("work"), str) else grid.get("distribution", []) or []
        for law in laws:
            given = dists.get(law) if isinstance(law, str) else None
            if not isinstance(given, dict):
                continue
            same = (
                given.get("family") == "empirical"
                and given.get("file") == expected["file"]
                and list(given.get("column") or []) == list(expected["column"])
            )
            if not same:
                errs.append(
                    not_allowed(
                        ("distributions", law),
                        {k: given[k] for k in ("family", "file", "column") if k in given},
                        f"the pairs' marginal, {format_value(expected)}: dependences.{name} replays the pairs "
                        f"of {expected['file']}, whose two columns pooled are the law of one copy (the grid "
                        f"combines them with distribution {law})",
                    )
                )
        for i, d in enumerate(grid.get("d", []) or []):
            if isinstance(d, int) and d > MAX_COPIES:
                errs.append(
                    not_allowed(
                        ("grid", "d", i),
                        d,
                        f"d <= {MAX_COPIES} with dependences.{name} (kind pairs): a measured pair is two "
                        "durations, and three copies have no measured triple; for more copies fit S&X to the "
                        f"pairs (straggler fit --pairs {expected['file']} -o FILE) and use its dependence",
                    )
                )
    return errs


def unit_errors(dists: dict) -> list[Err]:
    """The laws of one study state one time unit (or none): a study's times (an SLO's
    target, a delay, its E[T] and quantiles) are numbers in one unit."""
    from ....model.distributions.units import law_unit

    stated = {name: law_unit(spec) for name, spec in dists.items() if law_unit(spec)}
    if len(set(stated.values())) <= 1:
        return []
    first = next(iter(stated))
    return [
        not_allowed(
            ("distributions", name, "unit"),
            unit,
            f"{stated[first]!r}, the unit of distributions.{first}: a study's times are in one unit "
            "(give the law's sizes in it, with scale_to_mean or a rescaled file)",
        )
        for name, unit in stated.items()
        if unit != stated[first]
    ]
