"""The simulation engines as data: what each can simulate and what it costs.

A policy's spec says what it needs (:attr:`straggler.model.policies.PolicySpec.simulated_in`:
in which settings it is simulated, and the features an engine must have there); an
engine says what it has (:attr:`EngineSpec.features`, per setting). :func:`choose` is
the one place that matches the two: the first engine of :data:`ENGINES` that has every
feature the policy needs in the cell's setting simulates it. Nothing here imports numba,
so the work units, the glossary and the config ask which engine runs a cell without
compiling anything; the kernels are the simulation's
(:data:`straggler.engines.simulation.engines.KERNELS`).

Adding an engine is one :class:`EngineSpec` in :data:`ENGINES`, a module with a
``run`` kernel that follows the contract of :mod:`straggler.engines.simulation.contract`, and its
entry in ``KERNELS`` (docs/contributing.md, "Adding an engine").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..model.policies import (
    EVENT_LIST,
    FCFS_CENTRAL,
    FCFS_PER_SERVER,
    POLICIES,
    PS_BOUND,
    PS_PER_SERVER,
    WORKLOAD_RECURSION,
    PolicySpec,
    Setting,
)


@dataclass(frozen=True)
class EngineSpec:
    """One simulation engine."""

    name: str
    """Its name in configs, cell records and the bench (``fast``, ``events``)."""
    title: str
    """Its name in words (the glossary, error messages)."""
    features: Mapping[Setting, frozenset[str]]
    """Setting ``(discipline, queueing)`` -> the features it has there; the settings it
    can simulate at all are the keys."""
    seconds_per_unit: float
    """The work units' cost model: estimated simulation seconds per job and per
    replica the job places (plus one for the job itself)."""
    bench_prefix: str
    """The prefix of its workloads' names in ``straggler bench``."""
    compile_seconds: tuple[float, float, float]
    """The work units' cost model of numba's compilation on a cold cache: (the engine's
    first kind of cell, each later kind, a cached kind's load), seconds on one core;
    measured by benchmarks/compile_costs.py on the default study's kinds."""

    def simulates(self, spec: PolicySpec, setting: Setting, ps_bound: str | None = None) -> bool:
        """True if the engine simulates the policy of ``spec`` in ``setting`` (with the
        PS bound system ``ps_bound``, if one)."""
        needs = needs_of(spec, setting, ps_bound)
        return needs is not None and setting in self.features and needs <= self.features[setting]


def needs_of(spec: PolicySpec, setting: Setting, ps_bound: str | None = None) -> frozenset[str] | None:
    """The features an engine needs to simulate ``spec`` in ``setting``: those its spec
    names there, and :data:`PS_BOUND` for a bound system; None if the policy is not
    simulated in that setting."""
    if setting not in spec.simulated_in:
        return None
    needs = spec.simulated_in[setting]
    if ps_bound in (None, "none"):
        return needs
    return needs | {PS_BOUND} if "ps_bound" in spec.parameters else None


ENGINES: tuple[EngineSpec, ...] = (
    EngineSpec(
        name="fast",
        title="the fast path",
        # each replica's start and end are known when its job arrives (the per-server
        # free-time recursion): no event list, and the fastest engine where it applies
        features={FCFS_PER_SERVER: frozenset({WORKLOAD_RECURSION})},
        # bench: 2.7e7 jobs/s for CoC d = 2 (three units), taken a third slower so
        # that an estimate errs towards smaller jobs
        seconds_per_unit=1.6e-8,
        bench_prefix="fast",
        compile_seconds=(32.0, 0.0, 0.7),
    ),
    EngineSpec(
        name="events",
        title="the event engine",
        features={
            FCFS_PER_SERVER: frozenset({EVENT_LIST}),
            PS_PER_SERVER: frozenset({EVENT_LIST, PS_BOUND}),
            FCFS_CENTRAL: frozenset({EVENT_LIST}),
        },
        # bench: 5.5e6 jobs/s for CoC d = 2, taken a third slower
        seconds_per_unit=8.0e-8,
        bench_prefix="event",
        # a later kind costs nothing on the default study (one variant of the loop); a
        # kind of another variant about 5 s, the time LLVM takes to inline the loop's
        # kernels, compiled once, into that variant's entry
        compile_seconds=(55.0, 0.0, 0.05),
    ),
)
"""The engines, tried in this order: the first that simulates a cell runs it."""

BY_NAME: dict[str, EngineSpec] = {engine.name: engine for engine in ENGINES}


def _words(setting: Setting) -> str:
    discipline, queueing = setting
    return f"{discipline} {queueing.replace('_', '-')}"


def choose(
    policy: str, discipline: str, queueing: str, ps_bound: str | None = None, name: str | None = None
) -> EngineSpec:
    """The engine that simulates ``policy`` in the setting ``(discipline, queueing)``
    (a PS bound system with ``ps_bound``): the first of :data:`ENGINES` that has what
    the policy needs there, or the engine called ``name`` (to cross-check engines).
    NotImplementedError, naming what is and is not covered, if none does."""
    setting = (discipline, queueing)
    spec = POLICIES.get(policy)
    if name is not None and name not in BY_NAME:
        raise NotImplementedError(f"no simulation engine called {name!r} (known: {', '.join(BY_NAME)})")
    candidates = [BY_NAME[name]] if name is not None else list(ENGINES)
    for engine in candidates:
        if spec is not None and engine.simulates(spec, setting, ps_bound):
            return engine
    bound = f", ps_bound {ps_bound}" if ps_bound not in (None, "none") else ""
    what = f"policy {policy} with discipline {discipline}, queueing {queueing}{bound}"
    if name is not None:
        raise NotImplementedError(f"engine {name!r} does not simulate {what}; {coverage()}")
    raise NotImplementedError(f"no simulation engine for {what}; {coverage()}")


def coverage() -> str:
    """What each engine simulates, from the registry, in words."""
    parts = []
    for engine in ENGINES:
        by_setting: dict[Setting, list[str]] = {}
        for policy, spec in POLICIES.items():
            for setting in engine.features:
                if engine.simulates(spec, setting):
                    by_setting.setdefault(setting, []).append(policy)
        settings = "; ".join(f"{_words(s)}: {', '.join(names)}" for s, names in by_setting.items())
        bounds = [p for p, spec in POLICIES.items() if any(engine.simulates(spec, s, "upper") for s in engine.features)]
        extra = f"; PS bound systems: {', '.join(bounds)}" if bounds else ""
        parts.append(f"{engine.title} ({settings}{extra})")
    return "the engines cover " + ", ".join(parts)


def where_simulated(spec: PolicySpec) -> list[tuple[EngineSpec, list[Setting]]]:
    """Each engine that simulates ``spec`` somewhere, with those settings (the settings
    where an earlier engine is chosen included: engines are cross-checked there)."""
    out = []
    for engine in ENGINES:
        settings = [s for s in engine.features if engine.simulates(spec, s)]
        if settings:
            out.append((engine, settings))
    return out


def settings_words(settings: list[Setting]) -> str:
    """``FCFS per-server, PS per-server``."""
    return ", ".join(_words(s) for s in settings)
