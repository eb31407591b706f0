"""Tuned knobs: the search of one policy parameter given as ``{tune: [lo, hi]}``.

A config may give a numeric policy parameter (``PolicySpec.tunable``: Rer's and Rep's
``tau``, FJ's ``k``, ``keep`` and ``cost_limit``) as a range instead of a value; the
study then searches it per setting (cell) and per load, by simulation, for the least
mean response time E[T], or the least latency quantile ``{tune: [lo, hi], objective:
p99}`` names (docs/guide/tuning.md). This module is the search alone: which
values to try, which one wins, and which the data cannot tell from the winner. Running a
value (a whole cell's evaluation at one load with the parameter set to it) is the
caller's, :func:`straggler.study.evaluate.evaluate_cell`: :class:`Search` asks for each value's
outcome and is told it.

The search, per load:

1. :data:`GRID` values spread evenly over ``[lo, hi]`` (an integer parameter: the
   distinct integers, at most :data:`GRID` of them spread), and the analysis's optimum
   when it exists and lies in the range (``tau_opt``: the speculation paper's
   Definition 2 timeout, the threshold paper's optimal threshold; FJ's ``keep_opt``);
2. :data:`ROUNDS` refinements: :data:`REFINE` values spread over the bracket between
   the best value's neighbours among those tried.

The objective is the simulated mean response time (``latency_mean``), or the quantile
(``latency_quantile``); a value whose load is not ``stable`` cannot win. Every value is
simulated with the same workload random numbers (the cell's stream depends on its
workload only, :func:`straggler.study.grid.workload_id`), so two values compare by the paired
Student-t interval of their per-replication objectives (means, or each replication's
own quantile, as the break-even search compares tails). The values *the data cannot tell from the best* are the stable ones whose
interval of the difference to the best contains 0; ``low`` and ``high`` are the least
and the largest of them (the best included).

Light: the work-unit plan imports it while the Snakefile is parsed (no numpy at import).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

GRID = 9
"""Values of the first pass, spread evenly over the range."""
REFINE = 5
"""Values of each refinement, spread evenly over the bracket around the best."""
ROUNDS = 2
"""Refinements after the first pass."""


@dataclass(frozen=True)
class Outcome:
    """What the simulation says of one value at one load."""

    value: float
    """The objective: the simulated mean response time, or its quantile (NaN unless the
    load is stable)."""
    replications: Sequence[float]
    """Each replication's own objective (replication ``i`` of every value shares its
    random numbers)."""
    stable: bool

    @property
    def eligible(self) -> bool:
        """Can the value win: a stable load with a finite mean."""
        return self.stable and math.isfinite(self.value)


@dataclass
class Choice:
    """The search's result at one load."""

    best: Any
    """The value with the least objective among the stable ones (None: none is
    stable)."""
    low: Any
    """The least value the data cannot tell from ``best`` (None with ``best``)."""
    high: Any
    """The largest one."""
    tried: dict = field(default_factory=dict)
    """Value -> :class:`Outcome`, in the order they were run."""
    optimum_tried: bool = False
    """The analysis's optimum was one of the values."""


def spread(lo: float, hi: float, count: int, integer: bool) -> list:
    """``count`` values spread evenly over ``[lo, hi]``, both ends included; an integer
    parameter takes the distinct integers of the range, at most ``count`` of them, the
    nearest to the even spread."""
    if integer:
        first, last = math.ceil(lo), math.floor(hi)
        if last - first + 1 <= count:
            return list(range(first, last + 1))
        step = (last - first) / (count - 1)
        return sorted({first + math.floor(i * step + 0.5) for i in range(count)})
    if count < 2 or not hi > lo:
        return [float(lo)]
    # lo + i (hi - lo) / (count - 1), the last exactly hi: the values are the same
    # floats in every run, so each one's store of replications is found again
    return [float(lo) + (float(hi) - float(lo)) * i / (count - 1) for i in range(count - 1)] + [float(hi)]


def candidate_count(lo: float, hi: float, integer: bool) -> int:
    """At most how many values the search runs per load (the work-unit plan's cost: that
    many times a cell at one value): the first pass, the analysis's optimum, and each
    refinement's new values (at most ``REFINE - 1``: a bracket's ends were run)."""
    most = GRID + 1 + ROUNDS * (REFINE - 1)
    if integer:
        return max(1, min(math.floor(hi) - math.ceil(lo) + 1, most))
    return most


class Search:
    """The search of ``[lo, hi]`` at one load (the module docstring), ask and tell::

        search = Search(lo, hi, integer, confidence, optimum)
        while (value := search.ask()) is not None:
            search.tell(outcome)  # the value's Outcome, or None: it cannot be run
        search.choice

    ``optimum`` is the analysis's (tried when in the range); ``confidence`` is the level of
    the paired intervals (``simulation.confidence``); a value told None (FJ's ``k`` above
    ``d``) is skipped and never asked again. The caller runs the values itself rather than
    handing the search a function to call: the search sits below the cell's evaluation,
    and a callback would run the evaluation's code from this lower layer."""

    def __init__(self, lo: float, hi: float, integer: bool, confidence: float, optimum: float | None = None):
        self._steps = _steps(lo, hi, integer, confidence, optimum)
        self._told: Outcome | None = None
        self.choice: Choice | None = None
        """The result, once :meth:`ask` has returned None."""

    def ask(self):
        """The next value to run, or None when the search is done (see :attr:`choice`)."""
        if self.choice is not None:
            return None
        try:
            value = self._steps.send(self._told)
        except StopIteration as done:
            self.choice = done.value
            return None
        self._told = None
        return value

    def tell(self, outcome: Outcome | None) -> None:
        """The outcome of the value :meth:`ask` gave last (None: it cannot be run)."""
        self._told = outcome


def _steps(
    lo: float, hi: float, integer: bool, confidence: float, optimum: float | None
) -> Generator[Any, Outcome | None, Choice]:
    choice = Choice(None, None, None)
    cannot: set = set()

    def run(values):
        for value in values:
            if value not in choice.tried and value not in cannot:
                outcome = yield value
                if outcome is None:
                    cannot.add(value)
                else:
                    choice.tried[value] = outcome

    first = spread(lo, hi, GRID, integer)
    start = None
    if optimum is not None and math.isfinite(optimum) and lo <= optimum <= hi:
        value = int(optimum) if integer else float(optimum)
        if not integer or value == optimum:
            first.append(value)
            start = value
    yield from run(first)
    choice.optimum_tried = start is not None and start in choice.tried
    for _ in range(ROUNDS):
        best = _best(choice.tried)
        if best is None:
            break
        ordered = sorted(choice.tried)
        i = ordered.index(best)
        a, b = ordered[max(i - 1, 0)], ordered[min(i + 1, len(ordered) - 1)]
        if a == b:
            break
        yield from run(spread(a, b, REFINE, integer))
    choice.best = _best(choice.tried)
    if choice.best is not None:
        same = indistinguishable(choice.tried, choice.best, confidence)
        choice.low, choice.high = min(same), max(same)
    return choice


def _best(tried: dict):
    """The eligible value of least objective (ties: the smallest value), or None."""
    eligible = sorted((outcome.value, value) for value, outcome in tried.items() if outcome.eligible)
    return eligible[0][1] if eligible else None


def indistinguishable(tried: dict, best, confidence: float) -> list:
    """The eligible values whose paired Student-t interval (at ``confidence``) of the
    per-replication difference of the objective to ``best`` contains 0, ``best``
    included; with fewer than two replications in common no interval exists and the
    data cannot tell any value from the best."""
    from ..engines.simulation.statistics import paired_ci  # lazy: numpy and numba

    base = list(tried[best].replications)
    out = []
    for value, outcome in tried.items():
        if not outcome.eligible:
            continue
        own = list(outcome.replications)
        n = min(len(own), len(base))  # replication i of each value shares its random numbers
        ci = paired_ci(_array(own[:n]), _array(base[:n]), confidence)
        if value == best or ci is None or ci[0] <= 0.0 <= ci[1]:
            out.append(value)
    return out


def _array(values):
    import numpy as np

    return np.asarray(values, dtype=float)


def agreement(optimum: float, choice: Choice, lo: float, hi: float) -> str:
    """Whether the simulation agrees with the analysis's optimum at one load: ``agrees``
    (the optimum lies within ``[low, high]``), ``disagrees``, ``outside the range`` (the
    optimum is not in ``[lo, hi]``), ``no optimum`` or ``no stable value``."""
    if optimum is None or math.isnan(optimum):
        return "no optimum"
    if not lo <= optimum <= hi:
        return "outside the range"
    if choice.best is None:
        return "no stable value"
    return "agrees" if choice.low <= optimum <= choice.high else "disagrees"
