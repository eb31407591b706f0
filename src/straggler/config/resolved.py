"""The resolved config as typed, frozen sections: what :func:`~straggler.config.resolve_config` returns.

The schema (``schemas/config.schema.yaml``) stays the source of truth of the keys,
their defaults and allowed values: a config is validated and normalised as a dict,
and only then built into these classes. :meth:`ResolvedConfig.to_dict` gives back
that dict exactly (same keys, same key order, the config's own literals), because
the dataset's ``config`` text, the cell ids and the store's hashes are made from it.
The dict form is written once (:class:`Section`), from each field's order and its
metadata (:func:`held`): a new key is a field, not four lines of serialisation.

Lists become tuples here; the free-form parts (each policy's parameters, each
distribution's and dependence's spec) stay the dicts the schema describes, and are
not to be modified (:meth:`ResolvedConfig.to_dict` returns copies).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .keys import NAMED_AXES

# How a field is held in the resolved dict (its metadata ``form``): the serialisation
# below is written once, from the fields, for every section.
LIST = "list"
"""A list in the dict, a tuple here."""
MAPPING = "mapping"
"""A free-form mapping (a policy's parameters, a law's spec), copied both ways."""
OPTIONAL = "optional"
"""Left out of the dict when None (a key older studies do not have keeps their text)."""


def held(form: str = "", section: type | None = None, **kwargs):
    """A field held in the dict as ``form``, or as the nested ``section``."""
    return field(metadata={"form": form, "section": section}, **kwargs)


def _listed(values) -> list:
    return [copy.deepcopy(v) for v in values]


class Section:
    """A frozen section of the resolved config whose dict form its fields say: the keys
    in field order, lists as tuples, nested sections, optional keys left out when None."""

    def to_dict(self) -> dict[str, Any]:
        """The section as the resolved dict holds it."""
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            form, section = f.metadata.get("form", ""), f.metadata.get("section")
            if value is None and form == OPTIONAL:
                continue
            if section is not None and value is not None:
                out[f.name] = value.to_dict()
            elif form == LIST:
                out[f.name] = _listed(value)
            else:
                out[f.name] = copy.deepcopy(dict(value) if form == MAPPING else value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]):
        """The section from its dict (the schema has filled every key's default)."""
        values: dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]
            form, section = f.metadata.get("form", ""), f.metadata.get("section")
            if f.name not in data:
                if form != OPTIONAL:
                    raise KeyError(f.name)
                continue
            value = data[f.name]
            if section is not None and value is not None:
                value = section.from_dict(value)
            elif form == LIST:
                value = tuple(copy.deepcopy(value))
            elif form == MAPPING:
                value = copy.deepcopy(dict(value))
            else:
                value = copy.deepcopy(value)
            values[f.name] = value
        return cls(**values)


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
        """The section as the resolved dict holds it (the extra axes as keys of their own)."""
        return self.axes()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GridConfig:
        """The section from its dict (every named axis present, as a resolved config has)."""
        named = {name: tuple(copy.deepcopy(data[name])) for name in NAMED_AXES}
        extra = tuple((k, tuple(copy.deepcopy(v))) for k, v in data.items() if k not in NAMED_AXES)
        return cls(**named, extra=extra)


@dataclass(frozen=True)
class TypesConfig(Section):
    """``system.types``: the job types' probabilities, what the dispatcher knows, its belief."""

    p: tuple[Any, ...] = held(LIST)
    knowledge: str = held()
    belief: Any = held()


@dataclass(frozen=True)
class SystemConfig(Section):
    """The ``system`` section: discipline, queueing, pools, speeds and job types."""

    discipline: str = held()
    queueing: str = held()
    pools: Any = held()
    """The two pools' sizes (a list), or None: N split evenly."""
    speeds: Any = held()
    """The servers' speeds as the config gives them, or None: every server at speed 1."""
    types: TypesConfig = held(section=TypesConfig)


@dataclass(frozen=True)
class SimulationConfig(Section):
    """The ``simulation`` section: run length, replications, confidence, optional sequential stopping."""

    jobs: int = held()
    warmup: int = held()
    replications: int = held()
    confidence: float = held()
    precision: float | None = held(OPTIONAL, default=None)
    """Absent (None) unless given: older studies resolve to the same text."""
    max_jobs: int | None = held(OPTIONAL, default=None)
    """Absent (None) unless given."""


@dataclass(frozen=True)
class ExecutionConfig(Section):
    """The ``execution`` section: how the work is cut into jobs (it never changes a result)."""

    target_seconds: Any = held()
    cells_per_job: Any = held()
    """``"auto"`` or a number of cells."""
    replications_per_job: Any = held()
    """``"auto"`` or a number of replications."""


@dataclass(frozen=True, kw_only=True)
class ResolvedConfig(Section):
    """A validated, normalised study config: the study's name, scale and seed, then its
    sections, in the order of the resolved dict (:meth:`to_dict`: the dataset's ``config``
    text, the cell ids and the store's hashes are made from it)."""

    study: str = held()
    scale: str | None = held(OPTIONAL, default=None)
    """None when the study defines no scales (or in a result config)."""
    seed: int = held()
    grid: GridConfig = held(section=GridConfig)
    load: tuple[Any, ...] = held(LIST)
    load_basis: str | None = held(OPTIONAL, default=None)
    """None for the default basis (``nominal``), which is left out of the dict."""
    policies: Mapping[str, dict[str, Any]] = held(MAPPING)
    """Canonical policy name -> its parameters, completed from the policy registry."""
    distributions: Mapping[str, dict[str, Any]] = held(MAPPING)
    """Name -> spec (``family`` first, then its parameters)."""
    dependences: Mapping[str, dict[str, Any]] = held(MAPPING)
    """Name -> spec (``kind`` and its parameters), the built-in ``identical`` and ``iid`` included."""
    system: SystemConfig = held(section=SystemConfig)
    evaluate: tuple[str, ...] = held(LIST)
    simulation: SimulationConfig = held(section=SimulationConfig)
    execution: ExecutionConfig | None = held(OPTIONAL, section=ExecutionConfig, default=None)
    """None in a result config (:func:`straggler.grid.result_config`): it never changes a number."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResolvedConfig:
        """The config from a resolved dict (one :meth:`to_dict` gave, or its YAML read back)."""
        return super().from_dict(data)

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
