"""From an answer to the setting a client-side RPC stack takes.

A policy whose spec has a :attr:`~straggler.model.policies.spec.PolicySpec.client_form` can be
run by a client alone; :func:`setting_text` writes it in the format of one of four
stacks, in that stack's units, with what the stack cannot express:

``grpc``
    a service config (JSON): ``methodConfig[].hedgingPolicy`` with ``maxAttempts`` (the
    copies, at most 5: gRPC lowers a larger value to 5) and ``hedgingDelay`` (a proto3
    JSON duration in seconds, ``"0.0131s"``; ``"0s"`` sends every copy at once). Its
    ``retryThrottling`` counts failed attempts, not hedges: it cannot hold a budget of
    hedges per job (gRFC A6, "Hedging policy" and "Throttling retry attempts and hedged
    RPCs"; grpc.io, "Request Hedging").
``envoy``
    a route (YAML): ``retry_policy.per_try_timeout`` is the delay, ``num_retries`` the
    copies after the first, and ``hedge_policy.hedge_on_per_try_timeout: true`` keeps the
    first request in flight when a copy is sent. Envoy cannot send several copies at
    once (``hedge_policy.initial_requests`` is documented as not implemented), and its
    retry back-off (25 ms by default) delays each hedge: set small
    (Envoy's API reference, ``config.route.v3.RetryPolicy`` and ``HedgePolicy``).
``finagle``
    Scala: ``methodBuilder(...).idempotent(maxExtraLoad)``. Finagle sends one backup
    and picks its delay itself, the response-time percentile that keeps backups at
    ``maxExtraLoad`` of the requests, learned online: the setting is the budget, not
    the delay (Finagle's ``BackupRequestFilter`` and ``MethodBuilder.idempotent``).
``brpc``
    C++: ``brpc::ChannelOptions::backup_request_ms``, an integer number of
    milliseconds after which one backup request is sent (brpc's docs,
    "backup request").

The engines simulate the policy the answer names; a stack that runs it differently (one
backup only, a learned delay, a delay rounded to the millisecond) is said in the notes,
never silently changed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from .spec import AT_ONCE, HEDGED, ONE_REQUEST

STACKS: dict[str, str] = {"grpc": "gRPC", "envoy": "Envoy", "finagle": "Finagle", "brpc": "brpc"}
"""``--emit`` value -> the stack's name."""

GRPC_MAX_ATTEMPTS = 5
"""gRPC lowers a hedging policy's ``maxAttempts`` above this to it (gRFC A6)."""

ENVOY_TIMEOUT_SECONDS = 15.0
"""Envoy's default route ``timeout`` (15 s), written out: the route bounds a request and
all its copies together, and the answer assumes none is cut short."""

RUNS: dict[str, tuple[frozenset, int | None, str]] = {
    "grpc": (frozenset({ONE_REQUEST, AT_ONCE, HEDGED}), GRPC_MAX_ATTEMPTS, "at most 5 copies"),
    "envoy": (frozenset({ONE_REQUEST, HEDGED}), None, "copies one after another, never at once"),
    "finagle": (frozenset({ONE_REQUEST, HEDGED}), 2, "one backup after a delay"),
    "brpc": (frozenset({ONE_REQUEST, HEDGED}), 2, "one backup after a delay"),
}
"""Stack -> (the client forms it runs, the most copies a request may have or None, the
limit in words): what ``--emit STACK`` answers the question among."""


def stack_runs(stack: str, form: str, copies: int) -> bool:
    """Whether ``stack`` runs a contender of client form ``form`` with ``copies`` copies."""
    forms, most, _ = RUNS[stack]
    return form in forms and (most is None or copies <= most or form == ONE_REQUEST)


FINAGLE_MAX_EXTRA_LOAD = 1.0
"""Finagle's ``maxExtraLoad`` lies in [0, 1]."""


@dataclass(frozen=True)
class Deployment:
    """What the answer asks a client to run: the policy's client-side form
    (:data:`~straggler.model.policies.spec.ONE_REQUEST`, ``AT_ONCE``, ``HEDGED``), its copies,
    its delay in the workload's ``unit`` (0 at once, ``inf`` never), the delay as the
    question gave it, the hedging budget it was simulated with (``max_extra_load``,
    ``inf``: none), and the hedges per job it sent (the estimate, NaN unknown)."""

    name: str
    form: str
    d: int
    delay: float
    delay_words: str
    budget: float
    hedges: float
    unit: str

    @property
    def copies(self) -> int:
        return 1 if self.form == ONE_REQUEST else self.d


def _duration(seconds: float) -> str:
    """A proto3 JSON duration: seconds with up to 9 decimals and an ``s``."""
    text = f"{seconds:.9f}".rstrip("0").rstrip(".")
    return f"{text or '0'}s"


def in_seconds(value: float, unit: str) -> float:
    """``value`` in ``unit`` in seconds (:func:`straggler.model.distributions.units.in_seconds`,
    imported here: the CLI reads :data:`STACKS` at start, without the size laws)."""
    from ..distributions.units import in_seconds as convert

    return convert(value, unit)


def _delay_seconds(dep: Deployment) -> float:
    return 0.0 if dep.form == AT_ONCE else in_seconds(dep.delay, dep.unit)


def _delay_said(dep: Deployment) -> str:
    if dep.form != HEDGED:
        return ""
    said = f"{dep.delay:.4g} {dep.unit}".strip()
    return said if dep.delay_words in ("", said) else f"{dep.delay_words}, {said}"


def _budget_note(dep: Deployment, stack: str, how: str) -> list[str]:
    if dep.form != HEDGED or not math.isfinite(dep.budget):
        return []
    return [f"the answer was simulated with a budget of {dep.budget:g} hedges per job (max_extra_load): {stack} {how}"]


def grpc(dep: Deployment) -> tuple[str, list[str]]:
    """The gRPC service config and its notes."""
    method: dict = {"name": [{}]}
    notes = ['"name": [{}] applies the policy to every method of the channel: name your service and method instead']
    if dep.form == ONE_REQUEST:
        notes.append("no hedgingPolicy: one request per call, as the answer runs")
    else:
        attempts = dep.copies
        if attempts > GRPC_MAX_ATTEMPTS:
            notes.append(
                f"gRPC lowers maxAttempts above {GRPC_MAX_ATTEMPTS} to {GRPC_MAX_ATTEMPTS}: {attempts} copies are not expressible"
            )
        method["hedgingPolicy"] = {
            "maxAttempts": attempts,
            "hedgingDelay": _duration(_delay_seconds(dep)),
            "nonFatalStatusCodes": [],
        }
        if dep.form == AT_ONCE:
            notes.append(
                f'hedgingDelay "0s" sends the {attempts} attempts together; the first answer cancels the others'
            )
        notes += _budget_note(dep, "gRPC", "has no such budget (retryThrottling counts failed attempts, not hedges)")
    return json.dumps({"methodConfig": [method]}, indent=2), notes


def envoy(dep: Deployment) -> tuple[str, list[str]]:
    """The Envoy route and its notes."""
    import yaml

    route: dict = {"cluster": "your_service"}
    notes = ["a route of your virtual host: set its match and cluster"]
    if dep.form == ONE_REQUEST:
        notes.append("no retry_policy or hedge_policy: one request, as the answer runs")
    elif dep.form == AT_ONCE:
        return "", [
            f"Envoy cannot send {dep.copies} copies at once (hedge_policy.initial_requests is not implemented): "
            "no route runs this answer; gRPC does (hedgingDelay 0s), or ask the question with a hedged contender"
        ]
    else:
        delay = _duration(_delay_seconds(dep))
        route["retry_policy"] = {
            "retry_on": "5xx",
            "num_retries": dep.copies - 1,
            "per_try_timeout": delay,
            "retry_back_off": {"base_interval": "0.001s", "max_interval": "0.001s"},
        }
        route["hedge_policy"] = {"hedge_on_per_try_timeout": True}
        route["timeout"] = _duration(ENVOY_TIMEOUT_SECONDS)
        notes.append(
            "each copy gets its own per_try_timeout, so a copy goes out every delay while none has answered, "
            f"up to {dep.copies}; the route's timeout bounds all of them together: {ENVOY_TIMEOUT_SECONDS:g} s, "
            "Envoy's default, written out (the answer assumes no request is cut short: keep it above the "
            "longest a request may take)"
        )
        notes.append(
            "retry_back_off delays each hedge by a random 0 to (2^n - 1) x base_interval: kept at 1 ms here "
            "(the default 25 ms would add to the delay)"
        )
        notes += _budget_note(
            dep, "Envoy", "bounds concurrent retries (a cluster's retry_budget), not hedges per request"
        )
    return yaml.safe_dump({"route": route}, sort_keys=False), notes


def finagle(dep: Deployment) -> tuple[str, list[str]]:
    """The Finagle client code and its notes."""
    if dep.form == ONE_REQUEST:
        code = 'Http.client.methodBuilder("inet!your-service:8080").newService("your-method")'
        return code, ["no idempotent(...): no backup requests, as the answer runs"]
    notes = []
    if dep.form == AT_ONCE or dep.copies > 2:
        notes.append(
            f"Finagle sends one backup after a delay it picks: {dep.copies} copies"
            + (" at once" if dep.form == AT_ONCE else "")
            + " are not expressible; the setting below is its nearest, one backup, at most one per request"
        )
    # the hedges the answer sent; where unknown, the budget it was simulated with
    share = dep.hedges if math.isfinite(dep.hedges) else dep.budget if dep.form == HEDGED else math.nan
    if not math.isfinite(share):
        share = 0.0
        notes.append("the answer's hedges per job are unknown: maxExtraLoad set to 0 (no backups); measure it first")
    share = min(max(share, 0.0), FINAGLE_MAX_EXTRA_LOAD)
    code = (
        'Http.client\n  .methodBuilder("inet!your-service:8080")\n'
        f"  .idempotent(maxExtraLoad = {share:.3g})\n"
        '  .newService("your-method")'
    )
    notes.append(
        f"maxExtraLoad {share:.3g} is the answer's hedges per job: Finagle sets its delay at the response-time "
        f"percentile that keeps backups at that share, learned online, not at the answer's delay"
        + (f" ({_delay_said(dep)})" if dep.form == HEDGED else "")
    )
    return code, notes


def brpc(dep: Deployment) -> tuple[str, list[str]]:
    """The brpc channel option and its notes."""
    if dep.form == ONE_REQUEST:
        return "brpc::ChannelOptions options;  // backup_request_ms left unset: no backup", [
            "no backup request, as the answer runs"
        ]
    if dep.form == AT_ONCE:
        return "", [
            f"brpc sends one backup request after backup_request_ms: {dep.copies} copies at once are not "
            "expressible; gRPC runs this answer (hedgingDelay 0s)"
        ]
    notes = []
    if dep.copies > 2:
        notes.append(f"brpc sends one backup: up to {dep.copies} copies are not expressible, the setting sends 2")
    ms = in_seconds(dep.delay, dep.unit) * 1e3 if dep.form == HEDGED else 0.0
    whole = int(round(ms))
    if dep.form == HEDGED and abs(whole - ms) > 1e-9:
        notes.append(f"backup_request_ms is a whole number of ms: the delay {ms:.4g} ms rounded to {whole}")
    notes += _budget_note(dep, "brpc", "has no budget of backups")
    code = f"brpc::ChannelOptions options;\noptions.backup_request_ms = {whole};"
    return code, notes


WRITERS = {"grpc": grpc, "envoy": envoy, "finagle": finagle, "brpc": brpc}


def setting_text(stack: str, dep: Deployment) -> tuple[str, list[str]]:
    """(the setting in ``stack``'s format, the notes on what it cannot express)."""
    return WRITERS[stack](dep)


def describe(dep: Deployment) -> str:
    """``Hedge d=2 (2 copies, delay p95, 12.7 ms)`` for the emitted block's header."""
    if dep.form == ONE_REQUEST:
        return f"{dep.name} (one request)"
    if dep.form == AT_ONCE:
        return f"{dep.name} ({dep.copies} copies at once)"
    return f"{dep.name} (up to {dep.copies} copies, one every {_delay_said(dep)})"
