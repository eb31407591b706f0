"""Hedged requests, the redundancy production systems run: one copy, then another after a
delay if no answer has come, under a budget of extra load ("The Tail at Scale"; gRPC's
``hedgingPolicy``, Finagle's backup requests). Its analysis:
:mod:`straggler.engines.analysis.hedging_handlers`; its delay given as a quantile of the job-size
law is made a number by :func:`hedge_delay`."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal

from .spec import EVENT_LIST, FCFS_PER_SERVER, HEDGED, PS_PER_SERVER, PolicySpec, Tunable, swept

# its code in the simulation kernels (PolicySpec.kernel_code)
HEDGE_CODE = 9

#: ``p95``: the delay written as a percentile of the job-size law (a grid coordinate that reads well)
PERCENTILE = re.compile(r"^p([1-9][0-9]?(?:\.[0-9]+)?|0\.[0-9]*[1-9][0-9]*)$")
"""``p<percent>`` with the percent in (0, 100): p95, p99.9, p0.5."""


def delay_quantile(value) -> float | None:
    """The quantile level of a delay given as ``{quantile: q}`` or ``p<100 q>``
    (``p95`` is 0.95), or None for a number (or a malformed value, which the config's
    schema names)."""
    if isinstance(value, Mapping) and set(value) == {"quantile"}:
        q = value["quantile"]
        return float(q) if isinstance(q, (int, float)) and not isinstance(q, bool) else None
    if isinstance(value, str):
        match = PERCENTILE.match(value)
        return float(Decimal(match.group(1)) / 100) if match else None
    return None


def hedge_delay(size, params: dict, dependence=None) -> dict:
    """Hedge's parameters with its delay a number: ``{quantile: q}`` or ``p<100 q>`` is the
    q-quantile of one copy's duration, kept in words as ``delay_given``. A copy's duration
    is the job-size law ``size`` itself, except under S&X where a copy takes the job's work
    times its server's slowdown: a client hedging at its p95 times the p95 it measures."""
    q = delay_quantile(params.get("delay"))
    if q is None:
        return params
    value = dependence.replica_quantile(size, q) if dependence is not None else size.quantile(q)
    return {**params, "delay": float(value), "delay_given": params["delay"]}


def hedge_blocks(model) -> tuple[int, int]:
    """The first copy may be served in full: a server is blocked behind a job for one
    replica's size (a hedge only shortens the job)."""
    return 1, 1


DELAY_ITEM = {
    "anyOf": [
        {"type": "number", "minimum": 0},
        {"type": "string", "pattern": PERCENTILE.pattern},
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["quantile"],
            "properties": {
                "quantile": {
                    "description": "The level q, 0 < q < 1: the delay is the q-quantile of one copy's duration (the job-size law; under sx, X S).",
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "exclusiveMaximum": 1,
                }
            },
        },
    ]
}

PARAMETER_SCHEMA: dict[str, dict] = {
    "delay": swept(
        DELAY_ITEM,
        "Time after the job's arrival (queueing included) at which a copy is sent if the job has not "
        "finished, and again every delay after that, up to d copies: a number >= 0 in the time units of "
        "the job sizes (0 sends all d copies at once, .inf never hedges), {quantile: q} with 0 "
        "< q < 1 (the q-quantile of one copy's duration, the job-size law or under sx the work times the slowdown: hedge at the p95 is {quantile: 0.95}), p<percent> "
        "(p95, p99.9: the same, and a grid coordinate that reads well; p95 is the default: the p95 of "
        "any law, whatever its time unit), or a list of those (a dataset dimension).",
    ),
    "max_extra_load": swept(
        {"type": "number", "minimum": 0},
        "The hedging budget (Finagle's maxExtraLoad): each job earns this many tokens and each hedge "
        "spends one, so the copies beyond the first are at most this many per job on average; the bucket "
        "holds at most the tokens of the last 100 jobs (at least one). A number >= 0 (0 never hedges), "
        ".inf (the default: no budget), or a list of those (a dataset dimension).",
    ),
}

SPECS: tuple[PolicySpec, ...] = (
    PolicySpec(
        "Hedge",
        "one copy, then another every delay until one finishes, up to d copies, within a budget",
        client_form=HEDGED,
        client_side="hedged requests: gRPC's hedgingPolicy, Envoy's hedge_on_per_try_timeout, Finagle's backup requests, brpc's backup_request_ms",
        title="hedged requests",
        explanation="A job is sent to one server (with two pools: a pool drawn as for zero "
        "redundancy, then a server of it). If it has not finished delay after its arrival, a "
        "copy goes to a server without one, chosen at random (with two pools of different "
        "speeds the first hedge goes to the other pool); this repeats every delay, up to d copies. The first copy to "
        "finish completes the job and the others are cancelled. The delay counts from the "
        "arrival, queueing included (Rep's threshold counts processing time). max_extra_load "
        "caps the hedges with a token bucket: each job earns that many tokens and each hedge "
        "spends one.",
        analysis_summary="delay = inf is zero redundancy (exact); delay = 0 without a budget on "
        "identical servers is cancel on complete with d copies (its results). Otherwise: the pathwise "
        "lower bound E[T] >= E[min(X_1, delay + X_2, ..., (d-1) delay + X_d)] (queueing only adds), exact "
        "in light traffic with its cost; stability: the necessary lambda E[C] < N with the cost at least "
        "the winner's service, and the sufficient condition that all d copies are served in full (plus the "
        "cancellation delay), each server then an M/G/1 queue. Not known to be monotone in the load: a "
        "hedge fires when its job is late, which the load changes.",
        papers=("tail at scale",),
        uses_d=True,
        two_pools=False,
        picks_pool=True,
        parameters={"delay": "p95", "max_extra_load": math.inf},
        parameter_schema=PARAMETER_SCHEMA,
        kernel_parameters=("delay", "max_extra_load"),
        parameter_values=hedge_delay,
        tunable={"delay": Tunable(minimum=0)},
        blocking_order=hedge_blocks,
        analysis="hedging",
        kernel_code=HEDGE_CODE,
        simulated_in={FCFS_PER_SERVER: frozenset({EVENT_LIST}), PS_PER_SERVER: frozenset({EVENT_LIST})},
        cancels=True,
    ),
)
