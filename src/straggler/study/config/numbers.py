"""Numbers as a person writes them: one normalisation step before validation.

A study file is read by the package's loader, which reads ``1e5`` and ``1e-3`` as
floats (YAML 1.1 readers such as PyYAML, and Snakemake's ``--config``, leave them
strings). Before the schema is checked, :func:`normalise_numbers` makes of each value
what the schema expects there, so that no check has to know the spellings:

- where an integer is expected, a float with an integral value (``1e5``, ``1.0e5``,
  ``2.5e3``, ``100000.0``) becomes that integer, within 2^63 (beyond, the schema's
  maximum refuses the float as written); a non-integral one (``1.5e0``) is left as it
  is and refused by the schema ("an integer" is expected);
- where a number is expected, a string in exponent spelling (``'1e-3'``, ``'2.5E+3'``:
  :data:`EXPONENT`) becomes a float, and then an integer where an integer is expected.
  No other string is a number: ``'0.2'`` or ``'100000.0'`` was quoted on purpose in a
  YAML file (what Snakemake's ``--config`` gives as text is read again as a study file
  would read it, :func:`.overrides.read_overrides`).

Which places expect a number or an integer is the schema's word: the places are found
by validating the config and taking the type errors (those under ``anyOf`` too), so
``d``, ``N``, ``seed``, the run lengths, ``FJ.k``, an Erlang ``k``, ``cells_per_job``
and any integer added to the schema later are covered alike. The values of an extra
grid axis (``grid.<dotted path>``, which may hold strings and booleans) are
normalised as the key they set expects (:func:`normalise_axis_values`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from .axes import Axis, applied, get_path
from .schema import schema_checker

EXPONENT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
"""A number in exponent spelling without a dot in the mantissa allowed (``1e5``,
``1.0e-3``): a float for the package's loader and YAML 1.2, a string for YAML 1.1."""

_INTEGRAL_LIMIT = 2**63
"""An integral float within this becomes an integer (the seed's range; floats beyond
2^53 are no longer exact, but each is an integer all the same)."""


def number_of(text: str) -> float | str:
    """``text`` as a float when it is in exponent spelling, else ``text`` itself."""
    if EXPONENT.match(text):
        try:
            return float(text.replace("_", ""))
        except ValueError:  # '1__0e5': not a number Python reads
            return text
    return text


def integral(value) -> bool:
    """Is ``value`` a float holding an integer that is safe to make one?"""
    return isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < _INTEGRAL_LIMIT


def _fixed(value, expected: list[str]):
    """``value`` as the JSON types ``expected`` want it, or ``value`` itself."""
    if "number" not in expected and "integer" not in expected:
        return value
    if isinstance(value, str) and "string" not in expected:
        value = number_of(value)
    if "integer" in expected and "number" not in expected and integral(value):
        return int(value)
    return value


def _fixes(error, out: dict[tuple, Any]) -> None:
    if error.validator == "type":
        expected = error.validator_value
        expected = [expected] if isinstance(expected, str) else list(expected)
        new = _fixed(error.instance, expected)
        if new is not error.instance:
            path = tuple(error.absolute_path)
            # an integer wins over a float when branches of an anyOf disagree
            if path not in out or isinstance(new, int):
                out[path] = new
    for sub in error.context or ():
        _fixes(sub, out)


def _set_at(node, path: tuple, value) -> None:
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def normalise_numbers(cfg: dict) -> None:
    """Make the numbers of ``cfg`` (in place) what the schema expects at their keys
    (see the module docstring); anything else is left for the checks to refuse."""
    for _ in range(4):  # a fix may let an anyOf branch be checked deeper
        fixes: dict[tuple, Any] = {}
        for error in schema_checker().iter_errors(cfg):
            _fixes(error, fixes)
        if not fixes:
            return
        for path, value in fixes.items():
            if path:
                _set_at(cfg, path, value)


def normalise_axis_values(cfg: dict, axes: list[tuple[Axis, list]]) -> None:
    """The values of the extra grid axes (lists of ``cfg``'s grid, changed in place) as
    the key each sets expects: an exponent spelling is a number (no swept key takes a
    string of that form), an integral float an integer where the key wants one
    (decided once per axis, by normalising a config holding the first such value)."""
    for axis, values in axes:
        for i, value in enumerate(values):
            if isinstance(value, str):
                values[i] = number_of(value)
        first = next((v for v in values if integral(v)), None)
        if first is None or axis.transform is not None:
            continue
        try:
            trial = applied(cfg, axis, first)
        except (TypeError, ValueError):
            continue
        normalise_numbers(trial)
        new = get_path(trial, axis.target)
        if isinstance(new, int) and not isinstance(new, bool):
            for i, value in enumerate(values):
                if integral(value):
                    values[i] = int(value)
