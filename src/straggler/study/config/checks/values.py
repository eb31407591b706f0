"""What every value of a config must be: numbers read from lists, finite numbers."""

from __future__ import annotations

import math
import sys
from typing import TypeGuard

from ..errors import Err, not_allowed


def _is_number(x) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def numbers(xs) -> TypeGuard[list]:
    return isinstance(xs, list) and all(_is_number(x) for x in xs)


def numbers_at(node: dict, key: str) -> list:
    """``node[key]`` when it is a list of numbers, else an empty list."""
    value = node.get(key)
    return value if numbers(value) else []


def _walk(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, path + (i,))


#: the policy parameters that may be .inf: tau (never reroute or replicate), FJ's
#: cost_limit (no limit), Hedge's delay (never hedge) and max_extra_load (no budget)
INFINITE_PARAMETERS = ("tau", "cost_limit", "delay", "max_extra_load")


def _infinity_allowed(path) -> bool:
    """A parameter of :data:`INFINITE_PARAMETERS` may be .inf, not the bounds of a range
    it is tuned over (a search spans a finite range)."""
    if "tune" in path:
        return False
    if len(path) >= 3 and path[0] == "policies" and path[2] in INFINITE_PARAMETERS:
        return True
    return len(path) >= 2 and path[0] == "grid" and str(path[1]).rpartition(".")[2] in INFINITE_PARAMETERS


def non_finite_errors(cfg: dict) -> list[Err]:
    """Values that are not finite numbers."""
    errs: list[Err] = []
    # NaN and infinities (the schema's bounds let NaN through), and integers beyond any
    # float (10**400 passes `minimum: 0` and overflows the first float() of the model)
    for path, value in _walk(cfg):
        if isinstance(value, float) and not math.isfinite(value):
            if math.isinf(value) and _infinity_allowed(path):
                continue
            errs.append(not_allowed(path, value, "a finite number"))
        elif is_int(value) and abs(value) > sys.float_info.max:
            errs.append(not_allowed(path, value, "a finite number (this integer is beyond any float)"))
    return errs


def is_int(x) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)
