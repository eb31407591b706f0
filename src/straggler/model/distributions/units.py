"""The unit of a workload's times: ``unit: ms`` on a size law (``s``, ``ms``, ``us``).

The engines never convert: a law's sizes, and every time computed from them (E[T], its
quantiles, a hedging delay, an SLO's target), are numbers in the law's own unit. The
unit is a label that travels with them, into the dataset's ``time_unit`` attribute and
every line that prints a time, and the factor that turns a time into what a deployed
stack takes (:func:`in_seconds`: gRPC's ``hedgingDelay`` is in seconds, brpc's
``backup_request_ms`` in milliseconds). A law without a unit stays unit-free, and
the answers say so."""

from __future__ import annotations

from collections.abc import Mapping

SECONDS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
"""A unit a law may state -> its length in seconds."""

UNIT_KEY = "unit"
"""The key of a size law (any family) that states its time unit."""

NO_UNIT = ""
"""The ``time_unit`` of a study whose laws state none."""


def law_unit(spec) -> str:
    """The unit a law's spec states (:data:`NO_UNIT` without one)."""
    return str(spec.get(UNIT_KEY, NO_UNIT)) if isinstance(spec, Mapping) else NO_UNIT


def study_unit(laws: Mapping[str, Mapping]) -> str:
    """The unit of a study's times: the one its laws state (a study whose laws state
    two is refused by the config's checks), :data:`NO_UNIT` when none does."""
    units = {law_unit(spec) for spec in laws.values()} - {NO_UNIT}
    return min(units) if units else NO_UNIT


def in_seconds(value: float, unit: str) -> float:
    """``value`` (a time in ``unit``) in seconds; a ValueError for a unit-free time:
    a stack's setting needs the unit the answer cannot guess."""
    if unit not in SECONDS:
        raise ValueError(
            f"a time without a unit cannot be given in seconds: state the workload's unit "
            f"({UNIT_KEY}: one of {', '.join(SECONDS)})"
        )
    return value * SECONDS[unit]


def with_unit(text: str, unit: str) -> str:
    """``text`` (a time, an interval of times) followed by its unit, when it has one and
    the text is a value (not ``""`` or ``unknown``)."""
    if not unit or not text or text in ("unknown", "inf"):
        return text
    return f"{text} {unit}"


_NAME_UNITS = (
    ("ms", ("ms", "msec", "msecs", "millis", "millisecond", "milliseconds")),
    ("us", ("us", "usec", "usecs", "micros", "microsecond", "microseconds", "µs")),
    ("s", ("s", "sec", "secs", "second", "seconds")),
)
"""A unit -> the words that end a column's name in it (``duration_ms``, ``latency_seconds``)."""


def unit_of_name(name) -> str:
    """The unit a column's name states by its last word (``duration_ms``: ms,
    ``latency_seconds``: s, ``rtt (us)``: us, ``durationMs``: ms), :data:`NO_UNIT`
    when it states none (or is no name: a column given by its index)."""
    import re

    if not isinstance(name, str):
        return NO_UNIT
    text = name.strip()
    camel = re.search(r"[a-z0-9]([A-Z][a-z]*)$", text)  # durationMs, latencySeconds
    words = re.split(r"[^0-9A-Za-zµ]+", text.strip("()[] "))
    # a name of one word is a unit only when it cannot be a letter: "ms", not "s"
    last = (camel.group(1) if camel else (words[-1] if len(words) > 1 or len(text) > 1 else "")).lower()
    for unit, names in _NAME_UNITS:
        if last in names:
            return unit
    return NO_UNIT
