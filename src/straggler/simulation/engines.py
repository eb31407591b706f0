"""Simulation engines: which engine simulates a model, from the policy registry.

An engine is a ``supports(model)`` test and a numba kernel that follows the
contract of :mod:`.fast`. :data:`ENGINES` lists one factory per engine, tried in
order, each importing its module only when asked; :func:`engine_for` picks one and
:func:`coverage` says what each covers (``PolicySpec.engines`` in
:mod:`straggler.policies`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..policies import POLICIES, ps_bound_policies


@dataclass(frozen=True)
class Engine:
    """A simulation engine: ``supports(model) -> bool`` and a numba kernel that
    follows the contract of :mod:`.fast` (``kernel(*encoded.kernel_args(), lam,
    warmup, jobs, acc, batches, hist, mon, trace, rngs)``)."""

    name: str
    supports: Callable[..., bool]
    kernel: Callable[..., None]


def _fast_engine() -> Engine:
    from . import fast

    return Engine("fast", fast.supports, fast.run)


def _event_engine() -> Engine:
    from . import events

    return Engine(events.NAME, events.supports, events.run)


#: engine factories, tried in order: the fast path keeps the models it supports
ENGINES: list[Callable[[], Engine]] = [_fast_engine, _event_engine]


def engine_for(model, name: str | None = None) -> Engine:
    """The first engine that supports ``model`` (or the engine called ``name``,
    to cross-check engines); NotImplementedError otherwise."""
    for factory in ENGINES:
        engine = factory()
        if name is not None and engine.name != name:
            continue
        if engine.supports(model):
            return engine
        if name is not None:
            raise NotImplementedError(
                f"engine {name!r} does not support policy {model.policy} "
                f"with discipline {model.discipline}, queueing {model.queueing}"
            )
    if name is not None:
        raise NotImplementedError(f"no simulation engine called {name!r} (known: {[f().name for f in ENGINES]})")
    raise NotImplementedError(
        f"no simulation engine for policy {model.policy} with discipline {model.discipline}, "
        f"queueing {model.queueing}"
        + (f", ps_bound {model.params.get('ps_bound')}" if model.params.get("ps_bound") else "")
        + f"; the engines cover {coverage()} and {', '.join(ps_bound_policies())}'s PS bound systems (per-server PS)"
    )


def coverage() -> str:
    """What each engine simulates, from the registry (``PolicySpec.engines``)."""
    parts = []
    for engine, label in (("fast", "the fast path"), ("events", "the event-driven engine")):
        by_setting: dict[tuple[str, str], list[str]] = {}
        for name, spec in POLICIES.items():
            for setting in spec.engines.get(engine, ()):
                by_setting.setdefault(setting, []).append(name)
        settings = "; ".join(f"{d} {q}: {', '.join(names)}" for (d, q), names in by_setting.items())
        parts.append(f"{label} ({settings})")
    return ", ".join(parts)
