"""A load range: ``load: {start: 0.1, stop: 0.9, step: 0.1}``, resolved to the plain list.

The loads are start, start + step, start + 2 step, ... up to stop, stop included when
it is a whole number of steps from start (else the last load is the largest below it).
Each is computed in decimal on the numbers as written (``start + i * step``, never a
running sum) and then made a float, so the range gives exactly the loads a person
writes: ``0.1, 0.2, ..., 0.9``, never ``0.30000000000000004``. A range of integers
(start and step integers) gives integers. The list a range resolves to is the resolved
config's ``load``: the same cells, cell ids and results as that list written out.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation

from .errors import Err, format_value
from .limits import MAX_AXIS_VALUES


def _decimal(x) -> Decimal:
    return Decimal(x) if isinstance(x, int) else Decimal(repr(x))


def _text(x) -> str:
    return format_value(x)


def expand_load(cfg: dict) -> list[Err]:
    """Replace a load range of ``cfg`` (in place) by its list of loads. A range that
    the schema refuses (an unknown or missing key, a value that is not a number > 0) is
    left for the schema's messages; one that is well formed but empty, too long or not
    finite is removed and its errors returned (the key ``load`` is then the range's)."""
    from .schema import schema_validator

    spec = cfg.get("load")
    if not isinstance(spec, dict) or not schema_validator("load_range").is_valid(dict(spec)):
        return []
    start, stop, step = spec["start"], spec["stop"], spec["step"]
    errs = [
        Err(("load", key), f"load.{key}: value {_text(value)} is not allowed; expected a finite number")
        for key, value in (("start", start), ("stop", stop), ("step", step))
        if not math.isfinite(value)
    ]
    if not errs and stop < start:
        errs.append(
            Err(
                ("load", "stop"),
                f"load.stop: value {_text(stop)} is not allowed; expected a number >= load.start = {_text(start)} "
                f"(a range runs from start up to stop)",
            )
        )
    if errs:
        del cfg["load"]
        return errs
    lo, hi, by = _decimal(start), _decimal(stop), _decimal(step)
    try:
        count = int((hi - lo) // by) + 1
    except (InvalidOperation, OverflowError):  # a quotient beyond any Decimal context
        count = MAX_AXIS_VALUES + 1
    if count > MAX_AXIS_VALUES:
        del cfg["load"]
        return [
            Err(
                ("load",),
                f"load: a range of {count} loads (start {_text(start)}, stop {_text(stop)}, step {_text(step)}) "
                f"is not allowed; expected at most {MAX_AXIS_VALUES} loads (a larger step)",
            )
        ]
    exact = [lo + i * by for i in range(count)]
    if isinstance(start, int) and isinstance(step, int):
        loads: list = [int(x) for x in exact]
    else:
        loads = [float(x) for x in exact]
    if len(set(loads)) < len(loads):
        del cfg["load"]
        return [
            Err(
                ("load", "step"),
                f"load.step: value {_text(step)} is not allowed; expected a step that keeps the loads apart as "
                f"floats (from start {_text(start)}, two loads are the same float)",
            )
        ]
    cfg["load"] = loads
    return []
