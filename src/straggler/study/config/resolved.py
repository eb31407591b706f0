"""The config as typed, frozen sections, the one description of its keys: here the whole
config (:class:`ResolvedConfig`: the study's top-level keys, then its sections, which this
module re-exports from :mod:`.sections` and :mod:`.decision`) and the order of its keys.

The machinery that writes a section's dict form and JSON schema from its fields is in
:mod:`.section`.

Each section is a frozen dataclass whose fields are the section's keys, in the order of
the resolved dict. A field carries everything about its key: its type, its default
(the dataclass default, which a file may leave out), how the resolved dict holds it
(:func:`.section.held`) and its JSON schema (allowed values, limits, the description the
configuration reference prints). The config's JSON schema is generated from them
(:meth:`.section.Section.schema`, completed from the policy registry and the size families by
:mod:`.schema`), and with it the defaults a config is filled with and the configuration
reference page; the shared definitions (a name, a load range, a size law, ...) are in
:mod:`.definitions`.

A config is validated and normalised as a dict against that schema, and only then
built into these classes. :meth:`ResolvedConfig.to_dict` gives back that dict exactly
(same keys, same key order, the config's own literals), because the dataset's
``config`` text, the cell ids and the store's hashes are made from it; the dict form is
written once, from each field's order and metadata (:class:`.section.Section`).

Lists become tuples here; the free-form parts (each policy's parameters, each
distribution's and dependence's spec) stay the dicts the schema describes, and are not
to be modified (:meth:`ResolvedConfig.to_dict` returns copies).

Numbers. Before validation, :mod:`.numbers` makes of each value what the schema's type
expects: an integral float (1e5, 1.0e5) is an integer where an integer is expected, and
an exponent spelling that a YAML 1.1 reader left a string ('1e-3') is a number where a
number is expected; a load range (the ``load_range`` definition) is expanded to its list
(:mod:`.ranges`).

Limits. Every integer that reaches a file name, a numpy array or a netCDF attribute has
a maximum in its field's schema, and every name a pattern with a maximum length and no control character:
far above what a study needs, far below what would overflow or exhaust the engines. The
limits a schema cannot state (file size, nesting, anchors and aliases, grid points, cell
id length, the range of means and arrival rates) are in :mod:`.limits`. Name patterns end
in ``$(?!\\n)``: in Python's re, which jsonschema uses, ``$`` also matches before a final
newline ("abc\\n" passed); in ECMA 262 the lookahead changes nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from .decision import BudgetConfig, DecisionConfig, SloConfig
from .section import LIST, MAPPING, OPTIONAL, Section, held
from .sections import ExecutionConfig, GridConfig, SimulationConfig, SystemConfig, TypesConfig

__all__ = [
    "KEY_ORDER",
    "TOP_LEVEL_ORDER",
    "BudgetConfig",
    "DecisionConfig",
    "ExecutionConfig",
    "GridConfig",
    "ResolvedConfig",
    "SimulationConfig",
    "SloConfig",
    "SystemConfig",
    "TypesConfig",
]


@dataclass(frozen=True, kw_only=True)
class ResolvedConfig(Section):
    """A validated, normalised study config: the study's name, scale and seed, then its
    sections, in the order of the resolved dict (:meth:`to_dict`: the dataset's ``config``
    text, the cell ids and the store's hashes are made from it)."""

    study: str = held(
        default="default",
        schema={
            "description": (
                "Name of the study (default: default); results go to "
                "results/<study>/. Letters, digits, '_', '-' and '.', starting with a "
                "letter or digit, at most 64 characters."
            ),
            "type": "string",
            "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$(?!\\n)",
        },
    )
    scale: str | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "Run scale of a study that defines scales: quick (the default: "
                "minutes on two cores) or paper (the papers' run lengths). "
                "scales.<scale> is merged over the rest of the file, and a scale "
                "other than quick writes to results/<study>-<scale>/. Also `snakemake "
                "--config scale=paper`."
            ),
            "enum": ["quick", "paper"],
        },
    )
    """None when the study defines no scales (or in a result config)."""
    seed: int = held(
        default=12345,
        schema={
            "description": (
                "Master seed, an integer in [0, 2^63 - 1] (default 12345), stored as "
                "a 64-bit netCDF attribute. Every cell derives its own random streams "
                "from it and from its cell id."
            ),
            "type": "integer",
            "minimum": 0,
            "maximum": 9223372036854775807,
        },
    )
    grid: GridConfig = held(
        section=GridConfig,
        schema={
            "description": (
                "The axes of the study; one evaluation per distinct cell of their "
                "Cartesian product. Besides the six named axes, any key containing a "
                "dot is an extra axis sweeping one scalar parameter: "
                "<policy>.<parameter> (e.g. Rer.tau), <distribution name>.<parameter> "
                "(e.g. pareto.alpha), types.p1 (p = [p1, 1 - p1]), types.belief, "
                "types.knowledge, system.discipline or system.queueing."
            ),
            "patternProperties": {
                "\\.": {
                    "description": (
                        "An extra axis: the values of one dotted parameter path, each "
                        "becoming a coordinate of the dataset dimension of that name."
                    ),
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 1000,
                    "uniqueItems": True,
                    "items": {"type": ["number", "string", "boolean"]},
                },
            },
        },
    )
    load: tuple[Any, ...] = held(
        LIST,
        schema={
            "description": (
                "Loads swept inside each cell, in units of the nominal per-server "
                "load lambda * E[size of one replica] / N (or of rho~, see "
                "load_basis): a list of at most 1000 numbers, each > 0 and giving an "
                "arrival rate within [1e-100, 1e100] (load: [0.1, 0.3, 0.5]), or a "
                "range {start, stop, step} that resolves to that list (load: {start: "
                "0.1, stop: 0.9, step: 0.1} is 0.1, 0.2, ..., 0.9)."
            ),
            "anyOf": [
                {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 1000,
                    "uniqueItems": True,
                    "items": {"type": "number", "exclusiveMinimum": 0},
                },
                {"$ref": "#/$defs/load_range"},
            ],
        },
    )
    load_basis: str | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "What the load axis means. nominal (the default): lambda * E[size of "
                "one replica] / N. redundancy: the PS paper's rho~ = lambda * d * "
                "E[min(X_1..X_d)] / N (section 3.5), so the arrival rate differs per "
                "d and per replica dependence (identical replicas: lambda = rho~ N / "
                "(d E[X]); i.i.d. exponential: lambda = rho~ N / E[X]); d = 1 gives "
                "the nominal load. lambda_max is then in rho~ units too. Allowed only "
                "when every policy of grid.policy is CoC and the servers are "
                "identical (r_slow = 1)."
            ),
            "enum": ["nominal", "redundancy"],
            "default": "nominal",
        },
    )
    """None for the default basis (``nominal``), which is left out of the dict."""
    policies: Mapping[str, dict[str, Any]] = held(
        MAPPING,
        default_factory=dict,
        schema={
            "description": (
                "Per-policy parameters (by canonical name or alias; default: none "
                "given). Policies of the grid that are not listed get their defaults. "
                "A parameter given as a list of values becomes a dataset dimension "
                "named by the parameter."
            ),
            "type": "object",
            "properties": {},
            "additionalProperties": {"type": "object"},
        },
    )
    """Canonical policy name -> its parameters, completed from the policy registry."""
    distributions: Mapping[str, dict[str, Any]] = held(
        MAPPING,
        default_factory=dict,
        schema={
            "description": (
                "Named job-size (or slowdown) distributions, used by "
                "grid.distribution and by S&X dependences (default: none). Each is "
                "{family: ..., <parameters>, [scale_to_mean: m]}."
            ),
            "type": "object",
            "propertyNames": {"$ref": "#/$defs/name"},
            "additionalProperties": {"$ref": "#/$defs/distribution"},
        },
    )
    """Name -> spec (``family`` first, then its parameters)."""
    dependences: Mapping[str, dict[str, Any]] = held(
        MAPPING,
        default_factory=dict,
        schema={
            "description": "Named replica dependences, used by grid.dependence; identical and iid exist by default.",
            "type": "object",
            "propertyNames": {"$ref": "#/$defs/name"},
            "additionalProperties": {"$ref": "#/$defs/dependence"},
        },
    )
    """Name -> spec (``kind`` and its parameters), the built-in ``identical`` and ``iid`` included."""
    system: SystemConfig = held(
        section=SystemConfig,
        default_factory=SystemConfig,
        schema={
            "description": "The common system shared by all policies (every key has a default).",
        },
    )
    evaluate: tuple[str, ...] = held(
        LIST,
        default=("analytic", "simulation"),
        schema={
            "description": "Which answers to compute in each cell: analytic, simulation or both (the default).",
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"enum": ["analytic", "simulation"]},
        },
    )
    simulation: SimulationConfig = held(
        section=SimulationConfig,
        default_factory=SimulationConfig,
        schema={
            "description": (
                "Simulation run lengths and the confidence level of the intervals "
                "(every key but precision and max_jobs has a default)."
            ),
        },
    )
    decision: DecisionConfig | None = held(
        OPTIONAL,
        section=DecisionConfig,
        filled=False,
        default=None,
        schema={
            "description": (
                "The operator's question (optional): an SLO on the response time and a "
                "budget on the extra load. With it, winners.csv adds the criteria slo and "
                "budget and the report opens with the constrained answer; it changes no "
                "cell's numbers (docs/guide/decisions.md)."
            ),
        },
    )
    """None when the study states no constraint."""
    execution: ExecutionConfig | None = held(
        OPTIONAL,
        section=ExecutionConfig,
        default=None,
        schema={
            "description": (
                "How the work is cut into jobs (every key has a default); it never "
                'changes a result (docs/guide/running.md, "Work units").'
            ),
        },
    )
    """None in a result config (:func:`straggler.study.grid.result_config`): it never changes a number."""

    FILE_ONLY: ClassVar[dict[str, tuple[str, dict]]] = {
        "scales": (
            "scale",
            {
                "description": (
                    "Per scale (quick, paper), the config keys that differ at that scale "
                    "(e.g. simulation, load), merged over the rest of the file when that "
                    "scale is chosen."
                ),
                "type": "object",
            },
        ),
    }

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
        """The config from its YAML text (:func:`~straggler.study.config.dump_config`), as a job
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


KEY_ORDER: tuple[str, ...] = tuple(f.name for f in fields(ResolvedConfig)) + tuple(ResolvedConfig.FILE_ONLY)
"""Every top-level key, in dump order (``scales``, applied and dropped, last)."""

TOP_LEVEL_ORDER: tuple[str, ...] = tuple(k for k in KEY_ORDER if k not in ("scale", "load_basis", "decision", "scales"))
"""The top-level keys of a study's resolved config, in order: ``load_basis`` is there
only when it is not the default (``nominal``), ``scale`` only when the study defines
scales, ``decision`` only when the study states one."""
