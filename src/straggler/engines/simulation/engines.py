"""Which engine simulates a model, and its kernel.

The engines are data (:mod:`straggler.engines.registry`: what each simulates, its cost model);
:func:`engine_for` reads a model's policy, setting and PS bound system and asks
:func:`straggler.engines.registry.choose`; :data:`KERNELS` imports an engine's kernel when it
is first asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..registry import ENGINES, EngineSpec, choose, coverage

__all__ = ["ENGINES", "KERNELS", "Engine", "coverage", "engine_for", "supports"]


def _fast_kernel() -> Callable[..., None]:
    from .fast import run

    return run


def _event_kernel() -> Callable[..., None]:
    from .events import run

    return run


#: Engine name -> the factory of its numba kernel (the contract of :mod:`.contract`). The
#: import is the factory's own, so that what a result depends on
#: (:mod:`straggler.common.sources`) includes the kernel's module, and a job loads only the
#: kernel it runs.
KERNELS: dict[str, Callable[[], Callable[..., None]]] = {"fast": _fast_kernel, "events": _event_kernel}


@dataclass(frozen=True)
class Engine:
    """An engine chosen for a model: its record and its kernel (``kernel(*encoded.kernel_args(),
    lam, warmup, jobs, (acc, batches, hist, mon, trace, workloads), rngs)``)."""

    spec: EngineSpec
    kernel: Callable[..., None]

    @property
    def name(self) -> str:
        return self.spec.name


def engine_for(model, name: str | None = None) -> Engine:
    """The first engine that simulates ``model`` (or the engine called ``name``, to
    cross-check engines), with its kernel; NotImplementedError otherwise."""
    spec = choose(model.policy, model.discipline, model.queueing, model.params.get("ps_bound"), name)
    return Engine(spec, KERNELS[spec.name]())


def supports(name: str, model) -> bool:
    """True if the engine called ``name`` simulates ``model`` (nothing is imported)."""
    try:
        choose(model.policy, model.discipline, model.queueing, model.params.get("ps_bound"), name)
    except NotImplementedError:
        return False
    return True
