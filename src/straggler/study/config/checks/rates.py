"""Loads and arrival rates: within the range the kernels handle, for every cell."""

from __future__ import annotations

import math
import sys
from typing import TypeGuard

from ..errors import Err, not_allowed, one_of
from ..limits import SIZE_RANGE
from ..nodes import list_at
from .distributions import mean_or_none, range_text
from .values import numbers, numbers_at


def _slowdown_mean(dep, dists: dict) -> float | None:
    """E[S] of a dependence (1 without slowdowns; None when it is invalid)."""
    if not isinstance(dep, dict) or dep.get("kind") != "sx":
        return 1.0 if isinstance(dep, dict) else None
    slowdown = dep.get("slowdown")
    return mean_or_none(dists.get(slowdown) if isinstance(slowdown, str) else slowdown)


def _slowest(grid: dict, system: dict) -> tuple[tuple, float] | None:
    """The key and value of the smallest speed (r_slow, or an entry of system.speeds)."""
    speeds = system.get("speeds")
    cells: list[tuple[tuple, float]]
    if isinstance(speeds, list) and all(numbers(row) for row in speeds):
        cells = [(("system", "speeds", i, j), v) for i, row in enumerate(speeds) for j, v in enumerate(row) if v > 0]
    else:
        r_slow = numbers_at(grid, "r_slow")
        cells = [(("grid", "r_slow", i), v) for i, v in enumerate(r_slow) if v > 0]
    return min(cells, key=lambda c: c[1]) if cells else None


def _in_range(x: float | None) -> TypeGuard[float]:
    return x is not None and SIZE_RANGE[0] <= x <= SIZE_RANGE[1]


def _rate(load, n: int, mean: float) -> float:
    try:
        return float(load) * n / mean
    except (OverflowError, ZeroDivisionError):
        return math.inf


def rate_errors(cfg: dict, grid: dict, dists: dict, deps: dict, system: dict) -> list[Err]:
    """A replica's mean size E[X] E[S], its mean service time at the slowest speed and
    the arrival rate load x N / E[X] E[S] of every load must be in SIZE_RANGE: a law of
    mean 1e-320 made the rate infinite and the simulation's clock with it."""
    loads = numbers_at(cfg, "load")
    Ns = [n for n in numbers_at(grid, "N") if n > 0]
    names = (
        [n for n in grid.get("distribution", []) if isinstance(n, str)]
        if isinstance(grid.get("distribution"), list)
        else []
    )
    dep_names = list_at(grid, "dependence")
    lo, hi = SIZE_RANGE
    slowest = _slowest(grid, system)
    found: dict[tuple, Err] = {}
    for i, name in enumerate(names):
        x = mean_or_none(dists.get(name))
        for j, dep in enumerate(dep_names):
            s = _slowdown_mean(deps.get(dep), dists) if isinstance(dep, str) else None
            if not (_in_range(x) and _in_range(s)):
                continue  # a law's own mean is its error (_check_distribution)
            m = x * s
            with_law = f"with grid.distribution[{i}] = {name!r} (mean {x!r})"
            if not lo <= m <= hi:
                text = f"a dependence whose replica mean E[X] E[S] is in {range_text()} {with_law}; here {m!r}"
                found.setdefault(("grid", "dependence", j), not_allowed(("grid", "dependence", j), dep, text))
                continue
            if slowest is not None and not lo <= m / slowest[1] <= hi:
                text = f"a speed giving a mean service time in {range_text()} {with_law}; here {m / slowest[1]!r}"
                found.setdefault(slowest[0], not_allowed(slowest[0], slowest[1], text))
            for k, load in enumerate(loads):
                if not (Ns and 0 < load <= sys.float_info.max):
                    continue  # a load <= 0 or beyond any float is the schema's or the walk's error
                rates = [_rate(load, n, m) for n in (min(Ns), max(Ns))]
                bad = [r for r in rates if not lo <= r <= hi]
                if bad:
                    text = (
                        f"a load whose arrival rate load x N / E[replica size] is in {range_text()} {with_law}, "
                        f"N {one_of(sorted(set(Ns)))} and dependence {dep!r}; here {bad[0]!r}"
                    )
                    found.setdefault(("load", k), not_allowed(("load", k), load, text))
    return list(found.values())
