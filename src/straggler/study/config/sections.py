"""The sections of what a study runs: the ``grid``'s axes, the ``system`` (its job ``types``
included), the ``simulation``'s run length and the ``execution``'s cutting of the work into
jobs, each a frozen :class:`.section.Section` whose fields are its keys.

Together they say what each cell is and how it is run; the operator's question (the
``decision`` section, which changes no number) is in :mod:`.decision`, and the config that
holds them all in :mod:`.resolved`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .keys import NAMED_AXES
from .section import LIST, OPTIONAL, Section, held, listed


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
            "Number of servers, each an integer in [1, 10000000] (default [10]; the papers use at "
            "most 50). N must be even when some r_slow < 1 (two equal pools), unless "
            "system.pools is given. A fleet of more than 100 servers starts in equilibrium, and one "
            "of more than 10000 is simulated on 10000, beside its mean-field limit (docs/guide/fleets.md).",
            {"type": "integer", "minimum": 1, "maximum": 10000000},
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
        out = {name: listed(getattr(self, name)) for name in NAMED_AXES}
        out.update({name: listed(values) for name, values in self.extra})
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
                    "items": {"type": "integer", "minimum": 1, "maximum": 10000000},
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
