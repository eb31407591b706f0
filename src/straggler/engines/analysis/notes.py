"""Cell notes as data: what the analysis could not compute, which paper a value
comes from, and why a value is +inf or NaN.

The public form is unchanged (a list of strings per cell, JSON in the dataset
attribute ``cell_notes``), but the analysis builds its notes from :class:`Note`,
whose numbers carry their unit: a :class:`Load` (a load or a list of loads, in
the nominal units of docs/background/model.md, "Load", which every handler and paper
formula speaks) or
a :class:`Time` (a server time or a latency). A note is rendered once, by
:meth:`Note.render`, with the :class:`LoadUnit` of the dataset, so that a load is
converted to the dataset's basis in exactly one place (``load_basis:
redundancy`` multiplies nominal loads by ``d E[min(X_1..X_d)] / E[X]``,
:attr:`straggler.model.cell_model.CellModel.load_factor`).

``about`` names the dataset variables a note explains (``latency_approx`` when it
says why that is NaN or +inf, say), so that code can ask whether a non-finite
value is explained (:meth:`AnalyticResult.explains
<straggler.engines.analysis.result.AnalyticResult.explains>`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

Number = float | int


def _num(x: Number) -> str:
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.6g}"


def _values(value) -> tuple[float, ...] | float:
    if isinstance(value, (list, tuple)):
        return tuple(float(v) for v in value)
    return float(value)


@dataclass(frozen=True)
class Load:
    """A load (or several), in nominal units ``lambda E[X] / N``."""

    value: float | tuple[float, ...]

    def __post_init__(self):
        object.__setattr__(self, "value", _values(self.value))


@dataclass(frozen=True)
class Time:
    """A time (server time per job, latency), or several."""

    value: float | tuple[float, ...]

    def __post_init__(self):
        object.__setattr__(self, "value", _values(self.value))

    def render(self) -> str:
        """The time(s) as text, in time units."""
        if isinstance(self.value, tuple):
            return "[" + ", ".join(_num(v) for v in self.value) + "] time units"
        return f"{_num(self.value)} time units"


@dataclass(frozen=True)
class LoadUnit:
    """How loads are written in a dataset: ``nominal`` (factor 1) or ``redundancy``
    (the PS paper's rho~ = factor * nominal load)."""

    basis: str = "nominal"
    factor: float = 1.0

    @property
    def word(self) -> tuple[str, str]:
        """(singular, plural) name of the unit, written before the number."""
        if self.basis == "nominal":
            return "load", "loads"
        return "rho~", "rho~"

    def render(self, load: Load) -> str:
        """``load`` as text in this unit (the unit's word, then the value(s) times the factor)."""
        one, many = self.word
        if isinstance(load.value, tuple):
            return f"{many} [" + ", ".join(_num(v * self.factor) for v in load.value) + "]"
        return f"{one} {_num(load.value * self.factor)}"


NOMINAL = LoadUnit()


@dataclass(frozen=True)
class Note:
    """One note: ``text`` is a :meth:`str.format` template whose named fields are
    :class:`Load`, :class:`Time` or plain values (numbers print with 6 significant
    digits). A note without fields is plain text; one with fields doubles its
    literal braces (``E[X_{{1:r}}]``)."""

    text: str
    fields: dict = field(default_factory=dict)
    about: tuple[str, ...] = ()
    """Dataset variables whose value (NaN, +inf, a bound) this note explains."""

    def render(self, unit: LoadUnit = NOMINAL) -> str:
        """The note's text with its fields filled in, loads written in ``unit``."""
        if not self.fields:  # plain text: braces (E[X_{1:r}]) stay as written
            return self.text
        values = {}
        for name, value in self.fields.items():
            if isinstance(value, Load):
                values[name] = unit.render(value)
            elif isinstance(value, Time):
                values[name] = value.render()
            elif isinstance(value, float):
                values[name] = _num(value)
            else:
                values[name] = value
        return self.text.format(**values)


def note(text: str, about=(), **fields) -> Note:
    """``Note(text, fields, about)`` with the fields as keywords."""
    if isinstance(about, str):
        about = (about,)
    return Note(text, dict(fields), tuple(about))
