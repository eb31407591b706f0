"""The config as typed, frozen sections: the one description of its keys.

Each section is a frozen dataclass whose fields are the section's keys, in the order of
the resolved dict. A field carries everything about its key: its type, its default
(the dataclass default, which a file may leave out), how the resolved dict holds it
(:func:`held`) and its JSON schema (allowed values, limits, the description the
configuration reference prints). The config's JSON schema is generated from them
(:meth:`Section.schema`, completed from the policy registry and the size families by
:mod:`.schema`), and with it the defaults a config is filled with and the configuration
reference page; the shared definitions (a name, a load range, a size law, ...) are in
:mod:`.definitions`.

A config is validated and normalised as a dict against that schema, and only then
built into these classes. :meth:`ResolvedConfig.to_dict` gives back that dict exactly
(same keys, same key order, the config's own literals), because the dataset's
``config`` text, the cell ids and the store's hashes are made from it. The dict form is
written once (:class:`Section`), from each field's order and metadata: a new key is a
field, not four lines of serialisation and a schema entry somewhere else.

Lists become tuples here; the free-form parts (each policy's parameters, each
distribution's and dependence's spec) stay the dicts the schema describes, and are not
to be modified (:meth:`ResolvedConfig.to_dict` returns copies).

Numbers. Before validation, :mod:`.numbers` makes of each value what the schema's type
expects: an integral float (1e5, 1.0e5) is an integer where an integer is expected, and
an exponent spelling that a YAML 1.1 reader left a string ('1e-3') is a number where a
number is expected; a load range (the ``load_range`` definition) is expanded to its list
(:mod:`.ranges`).

Limits. Every integer that reaches a file name, a numpy array or a netCDF attribute has
a maximum here, and every name a pattern with a maximum length and no control character:
far above what a study needs, far below what would overflow or exhaust the engines. The
limits a schema cannot state (file size, nesting, anchors and aliases, grid points, cell
id length, the range of means and arrival rates) are in :mod:`.limits`. Name patterns end
in ``$(?!\\n)``: in Python's re, which jsonschema uses, ``$`` also matches before a final
newline ("abc\\n" passed); in ECMA 262 the lookahead changes nothing.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, ClassVar

from ...common.quantiles import QUANTILES
from .keys import NAMED_AXES

# How a field is held in the resolved dict (its metadata ``form``): the serialisation
# below is written once, from the fields, for every section.
LIST = "list"
"""A list in the dict, a tuple here."""
MAPPING = "mapping"
"""A free-form mapping (a policy's parameters, a law's spec), copied both ways."""
OPTIONAL = "optional"
"""Left out of the dict when None (a key older studies do not have keeps their text)."""


def held(form: str = "", section: type | None = None, *, schema: dict | None, filled: bool = True, **kwargs):
    """A field held in the dict as ``form``, or as the nested ``section``, whose key has
    the JSON ``schema`` (its default comes from the field's; None: a field of the
    typed config that is no key of the file). A nested section is filled with its keys'
    defaults when the file leaves it out, unless not ``filled`` (it stays absent)."""
    return field(metadata={"form": form, "section": section, "schema": schema, "filled": filled}, **kwargs)


def _listed(values) -> list:
    return [copy.deepcopy(v) for v in values]


def _schema_default(f) -> Any:
    """The default a file may leave the field's key out for (MISSING: none)."""
    if f.default is MISSING and f.default_factory is MISSING:
        return MISSING
    if f.metadata.get("section") is not None:
        # the section is filled, then each of its keys (an unfilled one stays absent)
        return {} if f.metadata.get("filled", True) else MISSING
    if f.metadata.get("form") == OPTIONAL:
        return MISSING  # absent unless given
    value = f.default if f.default is not MISSING else f.default_factory()
    return list(value) if f.metadata.get("form") == LIST else value


class Section:
    """A frozen section of the resolved config whose dict form and JSON schema its fields
    say: the keys in field order, lists as tuples, nested sections, optional keys left
    out when None."""

    FILE_ONLY: ClassVar[dict[str, tuple[str, dict]]] = {}
    """Keys a file may have that the resolved section does not hold: key -> (the field
    it follows, its schema)."""
    SCHEMA_EXTRA: ClassVar[dict] = {}
    """Schema keywords of the section's object besides its properties."""

    @classmethod
    def schema(cls, description: dict | None = None) -> dict:
        """The section's JSON schema: an object of its fields' keys (``description``: the
        keywords its parent gives it, such as its description)."""
        properties: dict[str, Any] = {}
        required = []
        for f in fields(cls):  # type: ignore[arg-type]
            own = f.metadata.get("schema")
            if own is None:
                continue
            section = f.metadata.get("section")
            sub = section.schema(own) if section is not None else dict(own)
            default = _schema_default(f)
            if default is MISSING and f.metadata.get("form") != OPTIONAL and "default" not in own:
                required.append(f.name)
            elif default is not MISSING and "default" not in own:
                sub["default"] = default
            properties[f.name] = sub
            for key, (after, extra) in cls.FILE_ONLY.items():
                if after == f.name:
                    properties[key] = dict(extra)
        out = {**(description or {}), "type": "object", "additionalProperties": False}
        if required:
            out["required"] = required
        return {**out, "properties": properties, **copy.deepcopy(cls.SCHEMA_EXTRA)}

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


def axis_schema(description: str, items: dict, unique: bool = True) -> dict:
    """The schema of a grid axis: a list of 1 to 1000 values (distinct: ``unique``)."""
    out = {"description": description, "type": "array", "minItems": 1, "maxItems": 1000}
    return {**out, "uniqueItems": True, "items": items} if unique else {**out, "items": items}


@dataclass(frozen=True, kw_only=True)
class GridConfig(Section):
    """The ``grid`` section: the six named axes, then the extra (dotted) axes in config order."""

    policy: tuple[str, ...] = held(
        LIST,
        schema=axis_schema(
            "Policies to compare (canonical names or aliases; aliases are reported by their "
            "canonical name and duplicates removed).",
            {"$ref": "#/$defs/policy_name"},
            unique=False,
        ),
    )
    distribution: tuple[str, ...] = held(
        LIST,
        schema=axis_schema(
            "Job-size distributions, by their names under distributions.",
            {"$ref": "#/$defs/name"},
        ),
    )
    dependence: tuple[str, ...] = held(
        LIST,
        default=("identical",),
        schema=axis_schema(
            "Replica dependences, by their names under dependences, where identical and iid "
            "always exist. Default [identical]: every replica of a job has the same size.",
            {"$ref": "#/$defs/name"},
        ),
    )
    r_slow: tuple[Any, ...] = held(
        LIST,
        default=(1.0,),
        schema=axis_schema(
            "Speed of a job in its slow pool, each in (0, 1] (default [1.0], the homogeneous system).",
            {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        ),
    )
    d: tuple[Any, ...] = held(
        LIST,
        default=(2,),
        schema=axis_schema(
            "Number of replicas (or tasks) for the policies that place d of them (uses_d in "
            "straggler.model.policies), each an integer in [1, 10000] (default [2]); cells with d > N "
            "are left NaN.",
            {"type": "integer", "minimum": 1, "maximum": 10000},
        ),
    )
    N: tuple[Any, ...] = held(
        LIST,
        default=(10,),
        schema=axis_schema(
            "Number of servers, each an integer in [1, 10000] (default [10]; the papers use at "
            "most 50). N must be even when some r_slow < 1 (two equal pools), unless "
            "system.pools is given.",
            {"type": "integer", "minimum": 1, "maximum": 10000},
        ),
    )
    extra: tuple[tuple[str, tuple[Any, ...]], ...] = held(schema=None, default=())
    """``(axis, values)`` of every extra axis (``Rer.tau``, ``types.p1``, ...), in order."""

    # an extra axis without a dot: held in ``extra`` like the dotted ones
    FILE_ONLY: ClassVar[dict[str, tuple[str, dict]]] = {
        "cancel_delay": (
            "N",
            axis_schema(
                "Cancellation delays to sweep (system.cancel_delay, which checks each value: a number "
                ">= 0): a dataset dimension of the policies that cancel copies (the others ignore it).",
                {"type": "number"},
            ),
        )
    }
    SCHEMA_EXTRA: ClassVar[dict] = {
        "patternProperties": {
            "\\.": axis_schema(
                "An extra axis: the values of one dotted parameter path, each becoming a "
                "coordinate of the dataset dimension of that name.",
                {"type": ["number", "string", "boolean"]},
            ),
        },
    }

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


@dataclass(frozen=True, kw_only=True)
class TypesConfig(Section):
    """``system.types``: the job types' probabilities, what the dispatcher knows, its belief."""

    p: tuple[Any, ...] = held(
        LIST,
        default=(0.5, 0.5),
        schema={
            "description": (
                "Type probabilities p_j, each in [0, 1], summing to 1 (default [0.5, "
                "0.5]): two types unless system.speeds gives more columns, at most "
                "100."
            ),
            "type": "array",
            "minItems": 1,
            "maxItems": 100,
            "items": {"type": "number", "minimum": 0, "maximum": 1},
        },
    )
    knowledge: str = held(
        default="unknown",
        schema={
            "description": (
                "What the dispatcher knows of a job's type: unknown (the default: one "
                "assignment fraction q_i per pool), partial (a belief p_{j->j*}) or "
                "known."
            ),
            "enum": ["unknown", "partial", "known"],
        },
    )
    belief: Any = held(
        default=1.0,
        schema={
            "description": (
                "For partial knowledge: p_{j->j}, the probability that the "
                "dispatcher's guess of the type is right, in [0, 1] (the rest is "
                "spread over the other types; default 1.0), or a full matrix "
                "p_{j->j*} whose rows sum to 1."
            ),
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 100,
                    "items": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 100,
                        "items": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                },
            ],
        },
    )


@dataclass(frozen=True, kw_only=True)
class SystemConfig(Section):
    """The ``system`` section: discipline, queueing, pools, speeds and job types."""

    discipline: str = held(
        default="FCFS",
        schema={
            "description": "Service discipline of every server, FCFS (the default) or PS.",
            "enum": ["FCFS", "PS"],
        },
    )
    queueing: str = held(
        default="per_server",
        schema={
            "description": (
                "per_server (the default: one queue per server) or central (one FCFS "
                "queue per pool, the model of the threshold paper: two queues of N/2 "
                "servers by default, one queue of N servers with system.pools: 1)."
            ),
            "enum": ["per_server", "central"],
        },
    )
    pools: Any = held(
        default=None,
        schema={
            "description": (
                "How the N servers form pools: null (the default) two pools of N/2 each "
                "(one pool of N when N is odd and the servers are identical); 1 one pool "
                "of all N servers (with central queueing: one FCFS queue of N servers, "
                "M/G/N), for identical servers only (every r_slow 1, no system.speeds); "
                "or the two pools' sizes [n_1, n_2], each an integer in [1, 10000], "
                "summing to every N of the grid."
            ),
            "anyOf": [
                {"type": "null"},
                {"type": "integer", "const": 1},
                {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {"type": "integer", "minimum": 1, "maximum": 10000},
                },
            ],
        },
    )
    """The two pools' sizes (a list), 1 (one pool of all N servers), or None: N split
    evenly (:func:`straggler.model.two_pools.pool_sizes`)."""
    speeds: Any = held(
        default=None,
        schema={
            "description": (
                "General speed matrix speeds[i][j] (> 0) of a type-j job in pool i, "
                "replacing the pattern (1, r_slow) / (r_slow, 1); null (the default) "
                "uses the pattern. At most 100 job types."
            ),
            "anyOf": [
                {"type": "null"},
                {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 100,
                        "items": {"type": "number", "exclusiveMinimum": 0},
                    },
                },
            ],
        },
    )
    """The servers' speeds as the config gives them, or None: every server at speed 1."""
    cancel_delay: Any = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "Time a copy in service keeps its server after it is cancelled (a job's other copy "
                "finished, it was killed by a timeout, or a copy started elsewhere), in the time "
                "units of the job sizes; its cost counts it. A copy still waiting is removed at "
                "once. A number >= 0; absent or 0 (the default): cancellation is instant, as in "
                "the papers. Swept on the grid as cancel_delay: [...]."
            ),
            "type": "number",
            "minimum": 0,
        },
    )
    """Seconds a cancelled copy in service keeps its server, or None: instant (0)."""
    types: TypesConfig = held(
        section=TypesConfig,
        default_factory=TypesConfig,
        schema={
            "description": "Job types and what the dispatcher knows about them (every key has a default).",
        },
    )


@dataclass(frozen=True, kw_only=True)
class SimulationConfig(Section):
    """The ``simulation`` section: run length, replications, confidence, optional sequential stopping."""

    jobs: int = held(
        default=200000,
        schema={
            "description": (
                "Jobs measured per replication after the warm-up, an integer in [1, "
                "10^9] (default 200000; the papers run 10^7; 1e5 is read as 100000). "
                "A load is called stable only when every replication brought each "
                "server enough work for the instability monitor, a number of monitor "
                "waits of 1200 E[S^2] / E[S] each (5.11 waits with 4 replications in "
                "pools of 5 servers): for exponential sizes of mean 1 on N = 10 "
                "servers that is about 120000 jobs per replication, warm-up included "
                "(lightly loaded servers that idle at least 10 % of the time decide "
                "sooner). A load left undetermined is run longer, up to max_jobs, and "
                "the dataset's jobs_to_verdict says how many jobs it needs."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 1000000000,
        },
    )
    warmup: int = held(
        default=20000,
        schema={
            "description": (
                "Jobs discarded at the start of each replication, before the jobs "
                "measured (extra to them), an integer in [0, jobs] (default 20000): a "
                "warm-up longer than the measured run is refused."
            ),
            "type": "integer",
            "minimum": 0,
            "maximum": 1000000000,
        },
    )
    replications: int = held(
        default=4,
        schema={
            "description": (
                "Independent replications per load, an integer in [1, 10000] (default "
                "4; the papers run 50); grid points x replications is at most 10^6. A "
                "confidence interval needs at least 2 (with 1 the intervals are NaN), "
                "and more replications need shorter runs for a stable verdict: each "
                "must bring the work within which the monitor caught 99 % of runs 5 % "
                "above capacity with 1 replication, 90 % with 2, 75 % with 4 and 50 % "
                "with 7 or more (30.19, 12.42, 7.13 and 3.84 monitor waits in pools "
                "of one server; 14.87, 7.8, 5.11 and 3.08 in pools of 5)."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 10000,
        },
    )
    confidence: float = held(
        default=0.95,
        schema={
            "description": "Confidence level of the intervals, in (0, 1) (default 0.95).",
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
        },
    )
    precision: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "Optional sequential stopping. The target relative half-width of the "
                "mean latency's confidence interval, in (0, 1]: each load lengthens "
                "its replications until its stability verdict is determined and adds "
                "replications until the interval is this narrow, or max_jobs is "
                "reached (docs/reference/verdicts.md)."
            ),
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 1,
        },
    )
    """Absent (None) unless given: older studies resolve to the same text."""
    max_jobs: int | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "With precision, the measured jobs a load may use in all (default 100 "
                "times jobs x replications), an integer >= jobs x replications and <= "
                "10^13."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 10000000000000,
        },
    )
    """Absent (None) unless given."""


@dataclass(frozen=True, kw_only=True)
class SloConfig(Section):
    """``decision.slo``: a response-time quantile at most a target, or the mean at most one."""

    quantile: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The response-time quantile the target bounds, one of the levels the "
                "simulation estimates (default 0.99 when a target is given)."
            ),
            "enum": list(QUANTILES),
        },
    )
    target: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": "The largest acceptable value of that quantile, > 0, in the job sizes' unit.",
            "type": "number",
            "exclusiveMinimum": 0,
        },
    )
    mean: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "Instead of a quantile and a target: the largest acceptable mean response "
                "time E[T], > 0, in the job sizes' unit."
            ),
            "type": "number",
            "exclusiveMinimum": 0,
        },
    )

    SCHEMA_EXTRA: ClassVar[dict] = {
        # the default level applies to a target only: {mean: 2} stays as it is written
        "if": {"required": ["target"]},
        "then": {"properties": {"quantile": {"description": "0.99 unless given, with a target.", "default": 0.99}}},
    }

    @property
    def level(self) -> float | None:
        """The quantile level the SLO bounds, or None for the mean."""
        return None if self.mean is not None else self.quantile

    @property
    def bound(self) -> float:
        """The target value (of the quantile, or of the mean)."""
        return float(self.mean if self.mean is not None else self.target)  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class BudgetConfig(Section):
    """``decision.budget``: the server time a policy may spend beyond one copy of each job,
    the extra copies it may send per job, or both."""

    extra_load: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The largest acceptable extra load E[C] / E[X] - 1, >= 0: the server time "
                "per job E[C] relative to one copy of the job at full speed (0.1: at most "
                "10 % more server time than running each job once, on a fast server)."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 1000,
        },
    )
    hedges: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The most extra copies a job may send on average, >= 0: copies_mean - 1, the "
                "budget of a hedging stack (Finagle's maxExtraLoad, gRPC's and Envoy's hedges "
                "counted per request). A copy counts whether it ran or was cancelled before it "
                "started, so a hedge of a request stuck in a queue costs a hedge but little "
                "server time: extra_load counts that time."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 1000,
        },
    )

    SCHEMA_EXTRA: ClassVar[dict] = {"minProperties": 1}


@dataclass(frozen=True, kw_only=True)
class DecisionConfig(Section):
    """The ``decision`` section: the operator's constraints, which the report's answer and
    ``winners.csv`` weigh (they change no simulated or analytic number)."""

    slo: SloConfig | None = held(
        OPTIONAL,
        section=SloConfig,
        filled=False,
        default=None,
        schema={
            "description": (
                "The service-level objective: {quantile: q, target: t} (P_q of the response "
                "time at most t; q defaults to 0.99) or {mean: t} (E[T] at most t). Absent: "
                "no SLO."
            ),
        },
    )
    budget: BudgetConfig | None = held(
        OPTIONAL,
        section=BudgetConfig,
        filled=False,
        default=None,
        schema={
            "description": (
                "The cost budget: {extra_load: b} (server time), {hedges: h} (extra copies per "
                "job), or both. Absent: no budget."
            )
        },
    )
    prefer_cheaper_within: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The rule for a cheaper policy, x (0.05: 5 %): a policy within x of the "
                "fastest that costs at least x less E[C] is recommended instead (the "
                "cheapest such), both judged at the high ends of the intervals (E[T], or "
                "the SLO's quantile; E[C]). Default 0.05 without an SLO or a budget; 0 "
                "with either, where the budget says what cost is acceptable "
                "(docs/guide/decisions.md)."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 0.5,
        },
    )
    resolution: float | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The load resolution of located answers (e.g. 0.01): with it the study "
                "searches, per setting, each policy's stability and SLO frontiers and the "
                "loads where the recommendation changes, between the grid's loads, and "
                "writes capacity.csv and crossovers.csv (docs/guide/frontiers.md). Absent: "
                "answers only at the grid's loads."
            ),
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 0.5,
        },
    )
    max_jobs: int | None = held(
        OPTIONAL,
        default=None,
        schema={
            "description": (
                "The cap on a probe of a located answer (a frontier, a crossover, a break-even "
                "delay): the measured jobs it may use at its load, all replications together. "
                "A probe whose confidence interval straddles what it is judged against is run "
                "on more replications (the ones already run are reused) until the interval "
                "clears it or this cap is reached. Default 16 times simulation.jobs x "
                "simulation.replications: a 4 times narrower interval (docs/guide/frontiers.md). "
                "An integer >= 1; at most jobs x replications: probes are never run longer."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 10000000000000,
        },
    )
    """Absent (None) unless given: 16 times the study's jobs per load."""


@dataclass(frozen=True, kw_only=True)
class ExecutionConfig(Section):
    """The ``execution`` section: how the work is cut into jobs (it never changes a result)."""

    target_seconds: Any = held(
        default=20,
        schema={
            "description": (
                "Aimed length of one job in seconds, from each cell's cost estimate: "
                "cheap cells are batched up to it, and a cell whose simulation takes "
                "longer has its replications split into shards of about this length; "
                "at least 0.1 (default 20)."
            ),
            "type": "number",
            "minimum": 0.1,
        },
    )
    cells_per_job: Any = held(
        default="auto",
        schema={
            "description": "auto (the default: batches of about target_seconds) or a number of cells per job.",
            "anyOf": [
                {"const": "auto"},
                {"type": "integer", "minimum": 1, "maximum": 100000},
            ],
        },
    )
    """``"auto"`` or a number of cells."""
    replications_per_job: Any = held(
        default="auto",
        schema={
            "description": (
                "auto (the default: a cell longer than target_seconds is split into "
                "shards of about that length) or the replications each shard job runs "
                "(a cell is split when it has more); sequential stopping "
                "(simulation.precision) is never split."
            ),
            "anyOf": [
                {"const": "auto"},
                {"type": "integer", "minimum": 1, "maximum": 10000},
            ],
        },
    )
    """``"auto"`` or a number of replications."""


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
