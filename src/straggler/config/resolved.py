"""The resolved config as typed, frozen sections: what :func:`~straggler.config.resolve_config` returns.

The schema (``schemas/config.schema.yaml``) stays the source of truth of the keys,
their defaults and allowed values: a config is validated and normalised as a dict,
and only then built into these classes. :meth:`ResolvedConfig.to_dict` gives back
that dict exactly (same keys, same key order, the config's own literals), because
the dataset's ``config`` text, the cell ids and the store's hashes are made from it.

Lists become tuples here; the free-form parts (each policy's parameters, each
distribution's and dependence's spec) stay the dicts the schema describes, and are
not to be modified (:meth:`ResolvedConfig.to_dict` returns copies).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .keys import NAMED_AXES


def _listed(values) -> list:
    return [copy.deepcopy(v) for v in values]


@dataclass(frozen=True)
class GridConfig:
    """The ``grid`` section: the six named axes, then the extra (dotted) axes in config order."""

    policy: tuple[str, ...]
    distribution: tuple[str, ...]
    dependence: tuple[str, ...]
    r_slow: tuple[Any, ...]
    d: tuple[Any, ...]
    N: tuple[Any, ...]
    extra: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """``(axis, values)`` of every extra axis (``Rer.tau``, ``types.p1``, ...), in order."""

    def axes(self) -> dict[str, list]:
        """Every axis name -> its values (copies), named axes first: the ``grid`` dict."""
        out = {name: _listed(getattr(self, name)) for name in NAMED_AXES}
        out.update({name: _listed(values) for name, values in self.extra})
        return out

    def to_dict(self) -> dict[str, list]:
        """The section as the resolved dict holds it."""
        return self.axes()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GridConfig:
        """The section from its dict (every named axis present, as a resolved config has)."""
        named = {name: tuple(copy.deepcopy(data[name])) for name in NAMED_AXES}
        extra = tuple((k, tuple(copy.deepcopy(v))) for k, v in data.items() if k not in NAMED_AXES)
        return cls(**named, extra=extra)


@dataclass(frozen=True)
class TypesConfig:
    """``system.types``: the job types' probabilities, what the dispatcher knows, its belief."""

    p: tuple[Any, ...]
    knowledge: str
    belief: Any

    def to_dict(self) -> dict[str, Any]:
        """The section as the resolved dict holds it."""
        return {"p": _listed(self.p), "knowledge": self.knowledge, "belief": self.belief}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TypesConfig:
        """The section from its dict."""
        return cls(p=tuple(copy.deepcopy(data["p"])), knowledge=data["knowledge"], belief=data["belief"])


@dataclass(frozen=True)
class SystemConfig:
    """The ``system`` section: discipline, queueing, pools, speeds and job types."""

    discipline: str
    queueing: str
    pools: Any
    """The two pools' sizes (a list), or None: N split evenly."""
    speeds: Any
    """The servers' speeds as the config gives them, or None: every server at speed 1."""
    types: TypesConfig

    def to_dict(self) -> dict[str, Any]:
        """The section as the resolved dict holds it."""
        return {
            "discipline": self.discipline,
            "queueing": self.queueing,
            "pools": copy.deepcopy(self.pools),
            "speeds": copy.deepcopy(self.speeds),
            "types": self.types.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SystemConfig:
        """The section from its dict."""
        return cls(
            discipline=data["discipline"],
            queueing=data["queueing"],
            pools=copy.deepcopy(data["pools"]),
            speeds=copy.deepcopy(data["speeds"]),
            types=TypesConfig.from_dict(data["types"]),
        )


@dataclass(frozen=True)
class SimulationConfig:
    """The ``simulation`` section: run length, replications, confidence, optional sequential stopping."""

    jobs: int
    warmup: int
    replications: int
    confidence: float
    precision: float | None = None
    """Absent (None) unless given: older studies resolve to the same text."""
    max_jobs: int | None = None
    """Absent (None) unless given."""

    def to_dict(self) -> dict[str, Any]:
        """The section as the resolved dict holds it (``precision``, ``max_jobs`` only when given)."""
        out: dict[str, Any] = {
            "jobs": self.jobs,
            "warmup": self.warmup,
            "replications": self.replications,
            "confidence": self.confidence,
        }
        if self.precision is not None:
            out["precision"] = self.precision
        if self.max_jobs is not None:
            out["max_jobs"] = self.max_jobs
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimulationConfig:
        """The section from its dict."""
        return cls(
            jobs=data["jobs"],
            warmup=data["warmup"],
            replications=data["replications"],
            confidence=data["confidence"],
            precision=data.get("precision"),
            max_jobs=data.get("max_jobs"),
        )


@dataclass(frozen=True)
class ExecutionConfig:
    """The ``execution`` section: how the work is cut into jobs (it never changes a result)."""

    target_seconds: Any
    cells_per_job: Any
    """``"auto"`` or a number of cells."""
    replications_per_job: Any
    """``"auto"`` or a number of replications."""

    def to_dict(self) -> dict[str, Any]:
        """The section as the resolved dict holds it."""
        return {
            "target_seconds": self.target_seconds,
            "cells_per_job": self.cells_per_job,
            "replications_per_job": self.replications_per_job,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExecutionConfig:
        """The section from its dict (the schema fills every key's default)."""
        return cls(
            target_seconds=data["target_seconds"],
            cells_per_job=data["cells_per_job"],
            replications_per_job=data["replications_per_job"],
        )


@dataclass(frozen=True)
class ResolvedConfig:
    """A validated, normalised study config: the study's name, scale and seed, then its sections."""

    study: str
    seed: int
    grid: GridConfig
    load: tuple[Any, ...]
    policies: Mapping[str, dict[str, Any]]
    """Canonical policy name -> its parameters, completed from the policy registry."""
    distributions: Mapping[str, dict[str, Any]]
    """Name -> spec (``family`` first, then its parameters)."""
    dependences: Mapping[str, dict[str, Any]]
    """Name -> spec (``kind`` and its parameters), the built-in ``identical`` and ``iid`` included."""
    system: SystemConfig
    evaluate: tuple[str, ...]
    simulation: SimulationConfig
    execution: ExecutionConfig | None = None
    """None in a result config (:func:`straggler.grid.result_config`): it never changes a number."""
    scale: str | None = None
    """None when the study defines no scales (or in a result config)."""
    load_basis: str | None = None
    """None for the default basis (``nominal``), which is left out of the dict."""

    def to_dict(self) -> dict[str, Any]:
        """The resolved dict: the keys, their order and the literals the resolver produced."""
        out: dict[str, Any] = {"study": self.study}
        if self.scale is not None:
            out["scale"] = self.scale
        out["seed"] = self.seed
        out["grid"] = self.grid.to_dict()
        out["load"] = _listed(self.load)
        if self.load_basis is not None:
            out["load_basis"] = self.load_basis
        out["policies"] = copy.deepcopy(dict(self.policies))
        out["distributions"] = copy.deepcopy(dict(self.distributions))
        out["dependences"] = copy.deepcopy(dict(self.dependences))
        out["system"] = self.system.to_dict()
        out["evaluate"] = list(self.evaluate)
        out["simulation"] = self.simulation.to_dict()
        if self.execution is not None:
            out["execution"] = self.execution.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResolvedConfig:
        """The config from a resolved dict (one :meth:`to_dict` gave, or its YAML read back)."""
        execution = data.get("execution")
        return cls(
            study=data["study"],
            scale=data.get("scale"),
            seed=data["seed"],
            grid=GridConfig.from_dict(data["grid"]),
            load=tuple(copy.deepcopy(data["load"])),
            load_basis=data.get("load_basis"),
            policies=copy.deepcopy(dict(data["policies"])),
            distributions=copy.deepcopy(dict(data["distributions"])),
            dependences=copy.deepcopy(dict(data["dependences"])),
            system=SystemConfig.from_dict(data["system"]),
            evaluate=tuple(data["evaluate"]),
            simulation=SimulationConfig.from_dict(data["simulation"]),
            execution=None if execution is None else ExecutionConfig.from_dict(execution),
        )

    @functools.cached_property
    def shared_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` built once and kept: every caller gets the same dict, which
        none may modify (the grid hashes every cell's spec from it without copying)."""
        return self.to_dict()

    @classmethod
    def from_yaml(cls, text: str) -> ResolvedConfig:
        """The config from its YAML text (:func:`~straggler.config.dump_config`), as a job
        reads the config the Snakefile passes it."""
        import yaml

        return cls.from_dict(yaml.safe_load(text))

    @property
    def basis(self) -> str:
        """The load basis, ``nominal`` when the config leaves it out."""
        return "nominal" if self.load_basis is None else self.load_basis

    def without(self, *keys: str) -> ResolvedConfig:
        """The config with the optional top-level ``keys`` (``execution``, ``scale``,
        ``load_basis``) left out; any other key is a ValueError."""
        unknown = set(keys) - {"execution", "scale", "load_basis"}
        if unknown:
            raise ValueError(f"not an optional key of a resolved config: {', '.join(sorted(unknown))}")
        return replace(
            self,
            execution=None if "execution" in keys else self.execution,
            scale=None if "scale" in keys else self.scale,
            load_basis=None if "load_basis" in keys else self.load_basis,
        )
