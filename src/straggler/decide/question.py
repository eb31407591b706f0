"""An operator's question becomes a study file.

A question (``straggler recommend QUESTION.yaml``, docs/guide/recommend.md) states one
system, one workload, the loads it runs at, the policies it may use and what it asks of
them: an SLO on the response time and a budget on the extra server time, the study
file's ``decision`` section (:mod:`straggler.decide.decision`). It is a study with one setting
whose candidates are the (policy, d) pairs, written in the operator's words:

========================  =====================================================
question                  study
========================  =====================================================
``name``                  ``study`` (default: the file's stem, made a study name)
``system.N``              ``grid.N: [N]``
``system.r_slow``         ``grid.r_slow: [r_slow]`` (default 1: identical servers)
``system.<other>``        ``system.<other>`` (pools, speeds, discipline, queueing, types)
``workload``              ``distributions.workload``, ``grid.distribution: [workload]``
``dependence``            ``grid.dependence`` (default ``iid``; a spec goes under
                          ``dependences``)
``load``                  ``load``
``policies``              ``grid.policy`` (default: :func:`practical_policies`;
                          ``deployable``: those a client alone can run)
``d``                     ``grid.d`` (default ``[2, 3, 4]``)
``parameters``            ``policies``
``slo``, ``budget``       ``decision.slo``, ``decision.budget``
``resolution``            ``decision.resolution`` (answers between the loads)
``seed``, ``evaluate``    the same keys
``simulation``            ``simulation`` (default :data:`DEFAULT_SIMULATION`)
``execution``             ``execution`` (how the work is cut into jobs)
========================  =====================================================

A question is checked by translating it and resolving the study with the study's own
checks (:func:`straggler.study.config.resolve_config`), whose messages are then named by the
question's keys (``distributions.workload.mean`` is ``workload.mean``); the keys only a
question has are checked here, in the same words (:mod:`straggler.study.config.errors`). So a
question is refused, one line per problem, before anything runs.

A data file (a trace's ``file``) is named relative to the question's directory; the
study names it relative to the directory Snakemake runs in when it lies under it (the
repository's root: ``config/data/requests_ms.csv``), else by its absolute path, so that
the study file reads the same file from where it runs.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..study.config.errors import ConfigError, did_you_mean, fmt_path, format_value, not_allowed, one_of
from .question_additions import copy_law_of, hedge_delays, hedge_given, hedged_policies, load_problems

if TYPE_CHECKING:
    from ..study.config.resolved import ResolvedConfig

QUESTION_KEYS = (
    "name",
    "system",
    "workload",
    "dependence",
    "dependence_source",
    "check_dependence",
    "load",
    "policies",
    "d",
    "parameters",
    "slo",
    "budget",
    "resolution",
    "seed",
    "simulation",
    "evaluate",
    "execution",
)
"""Every key of a question, in the order a question is written."""

SYSTEM_KEYS = ("N", "r_slow", "pools", "speeds", "discipline", "queueing", "types")
"""The keys of a question's ``system``: N and r_slow are the study's grid axes (one
value each), the others its ``system`` section's."""

DEFAULT_D = [2, 3, 4]
"""The replica counts a question compares when it names none."""

DEFAULT_SIMULATION = {"jobs": 200000, "warmup": 20000, "replications": 4}
"""The run length of a question that gives no ``simulation`` section, the default
study's: the shipped example (config/questions/example.yaml) runs in about 2 minutes on two
cores with it, the check of its assumption over c included, about 4 minutes when the
simulation kernels are compiled first. A section given replaces it whole
(its missing keys take the study's defaults)."""

WORKLOAD = "workload"
"""The name of the question's size law in the study (its ``distribution`` axis)."""

BUILTIN_DEPENDENCES = ("iid", "identical")

DEPENDENCE_CHECK = [0, 0.25, 0.5, 1]
"""The probabilities ``c`` that a request's copies are one draw at which a question's
answer is checked besides the one it assumes (``check_dependence``; :mod:`straggler.decide.assumption`)."""

COPIES = "copies"
"""The name of a question's mixture dependence in its study (its ``dependence`` axis)."""

SX_CHECKS = ["iid", "identical"]
"""What a question under S&X checks its answer at by default: a copy's own law ``X S`` with
i.i.d. copies and with identical copies (``check_dependence``)."""

COPY_LAW = "one_copy"
"""The name of the law of one copy, X S, in a question's study under S&X checked at
i.i.d. or identical copies (its ``distribution`` axis)."""

STUDY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""A study's name (the config's ``study`` pattern): results go to results/<name>/."""


@dataclass(frozen=True)
class Question:
    """A question read and checked: the study it becomes and that study resolved."""

    path: Path
    """The question file."""
    study: dict[str, Any]
    """The study file's content (data files named from the run directory)."""
    resolved: ResolvedConfig
    """The study, resolved (every default filled in)."""
    run_dir: Path = Path(".")
    """The folder Snakemake runs in (data files are named from it)."""
    left_out: dict[str, str] = field(default_factory=dict)
    """Default policies that have no possible cell on this system -> why."""

    @property
    def name(self) -> str:
        return str(self.study["study"])

    @property
    def study_path(self) -> Path:
        """Where the study file is written: ``results/<name>/<name>.study.yaml`` of the run's
        folder, beside the dataset it makes (:func:`study_path`)."""
        return study_path(self.run_dir, self.name)


def study_path(run_dir: Path, name: str) -> Path:
    """``results/<name>/<name>.study.yaml`` under the folder the study runs in: with the
    results it makes, not beside the question (in the user's own repository, a file it
    would have to ignore)."""
    return Path(run_dir) / "results" / name / f"{name}.study.yaml"


def study_name(stem: str) -> str:
    """A file's stem made a study name: every character the name pattern does not
    allow becomes ``_``, a leading ``_``, ``-`` or ``.`` goes, at most 64 characters
    (``question`` when nothing is left)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", stem).lstrip("_.-")[:64]
    return name or "question"


def practical_policies(discipline: str = "FCFS", queueing: str = "per_server", deployable: bool = False) -> list[str]:
    """The policies a question compares when it names none: every policy of the registry
    that is not an oracle (an oracle knows what no dispatcher knows), that is simulated
    in the system's setting (a tail needs the simulation), and whose copies are the job
    itself (a fork-join policy's tasks are a job of another size law; with its defaults,
    k = 1, it is cancel on complete again). The grid then leaves out those that have no
    possible cell on the system (:func:`read_question`). With ``deployable``, those a
    client alone can run (``policies: deployable``, :mod:`straggler.decide.deploy`)."""
    from ..model.policies import POLICIES

    setting = (discipline, queueing)
    return [
        name
        for name, spec in POLICIES.items()
        if not spec.oracle and not spec.analytic_only and setting in spec.simulated_in and not spec.task_law
        if spec.client_form or not deployable
    ]


DEPLOYABLE = "deployable"
"""``policies: deployable``: the practical policies a client-side RPC stack can run."""


# ------------------------------------------------------------------ from a question to a study


@dataclass
class _Translation:
    """A study translated from a question, the question's own problems, and how a study
    key path reads in the question (study prefix -> question prefix, longest first)."""

    study: dict[str, Any]
    problems: list[str]
    paths: list[tuple[str, str]]
    said: set[str] = field(default_factory=set)
    """Question key paths whose problem is already said (a study error under one is
    dropped: it would say the same of a stand-in value)."""
    default_policies: bool = False


def _unknown_key(path: tuple, key, allowed) -> str:
    return (
        f"{fmt_path((*path, key))}: key {format_value(key, 60)} is not allowed; "
        f"expected one of {one_of(allowed)}{did_you_mean(key, allowed)}"
    )


def _missing(path: tuple, expected: str) -> str:
    return f"{fmt_path(path)}: missing; expected {expected}"


def _located(file: str, base: Path, run_dir: Path) -> tuple[Path, str]:
    """A data file named in a question: its path, and how the study names it (from
    ``run_dir`` when under it, else absolute)."""
    path = Path(file).expanduser()
    if not path.is_absolute():
        path = base / path
    path = Path(os.path.normpath(path.absolute()))
    run_dir = Path(os.path.normpath(Path(run_dir).absolute()))
    named = path.relative_to(run_dir).as_posix() if path.is_relative_to(run_dir) else str(path)
    return path, named


def _data_files(spec, where: tuple, base: Path, run_dir: Path, t: _Translation) -> Any:
    """``spec`` (a size law, or anything holding size laws) with every data file named
    for the study; a file that does not exist is a problem, in the question's words."""
    from ..model.distributions import FAMILIES

    if isinstance(spec, list):
        return [_data_files(v, (*where, i), base, run_dir, t) for i, v in enumerate(spec)]
    if not isinstance(spec, dict):
        return spec
    family = FAMILIES.get(spec.get("family")) if isinstance(spec.get("family"), str) else None
    key = family.data_file if family is not None else None
    out = {k: _data_files(v, (*where, k), base, run_dir, t) for k, v in spec.items()}
    if key and isinstance(spec.get(key), str) and spec[key]:
        path, named = _located(spec[key], base, run_dir)
        if not path.is_file():
            at = fmt_path((*where, key))
            t.problems.append(
                f"{at}: file {format_value(spec[key])} does not exist (a relative path is read from the "
                f"question's folder, {base}); expected a file of job sizes, e.g. a CSV with a header"
            )
            t.said.add(at)
        out[key] = named
    return out


def _system(system, t: _Translation) -> tuple[dict, dict[str, list]]:
    """The question's ``system``: its study ``system`` section and its grid axes
    ``N`` and ``r_slow`` (one value each)."""
    if system is None or not isinstance(system, Mapping):
        expected = "a mapping with N, the number of servers (e.g. {N: 10})"
        t.problems.append(
            _missing(("system",), expected) if system is None else not_allowed(("system",), system, expected).text
        )
        t.said.add("system")
        system = {}
    for key in system:
        if key not in SYSTEM_KEYS:
            t.problems.append(_unknown_key(("system",), key, SYSTEM_KEYS))
    axes: dict[str, list] = {}
    for key, default, expected in (
        ("N", None, "the number of servers, an integer >= 1"),
        ("r_slow", 1, "the slow servers' speed in (0, 1] (1, the default: identical servers)"),
    ):
        value = system.get(key, default)
        if value is None:
            if "system" not in t.said:
                t.problems.append(_missing(("system", key), expected))
        elif isinstance(value, list | dict):
            t.problems.append(
                not_allowed(
                    ("system", key), value, "one value: a question is about one system (a study file sweeps several)"
                ).text
            )
        else:
            axes[key] = [value]
            continue
        t.said.add(f"system.{key}")  # the study gets a stand-in value
    section = {k: v for k, v in system.items() if k in SYSTEM_KEYS and k not in ("N", "r_slow")}
    return section, axes


def _workload(workload, base: Path, run_dir: Path, t: _Translation) -> dict:
    """The question's size law, its data files named for the study."""
    if isinstance(workload, Mapping):
        return _data_files(dict(workload), (WORKLOAD,), base, run_dir, t)
    t.said.add(WORKLOAD)
    if workload is None:
        t.problems.append(
            _missing(
                (WORKLOAD,),
                "the job sizes' law as under a study's distributions.<name>, e.g. {family: exponential, mean: 1} "
                "or {family: empirical, file: sizes.csv, column: duration_ms}",
            )
        )
    else:
        t.problems.append(
            not_allowed(
                (WORKLOAD,), workload, "a size law such as {family: lognormal, mean: 14, cv: 2} (straggler schema)"
            ).text
        )
    return {}


def _replayed_pairs(spec, run_dir: Path) -> dict | None:
    """The law of one copy under a question's ``{kind: pairs, file: F}`` (the file's columns
    pooled, :func:`straggler.model.dependence.marginal_spec`, named for the study), or None
    for another dependence or a file that cannot be read (the study's checks say why)."""
    if not (isinstance(spec, Mapping) and spec.get("kind") == "pairs" and isinstance(spec.get("file"), str)):
        return None
    from ..model.dependence import marginal_spec
    from ..model.dependence.kinds import pairs_of

    located = Path(spec["file"]) if Path(spec["file"]).is_absolute() else Path(run_dir) / spec["file"]
    try:
        law = marginal_spec(pairs_of({**spec, "file": str(located)}))
    except ValueError:
        return None
    return {**law, "file": spec["file"]}


def _chosen_by_analysis(policy: str) -> bool:
    """The policy has a parameter the analysis chooses by default (a threshold ``opt``),
    which replayed pairs leave unchosen (no analysis takes their joint law)."""
    from ..model.policies import POLICIES

    spec = POLICIES[policy]
    return any(spec.parameters.get(name) == "opt" for name in spec.chosen_by_analysis)


def _only_unit(workload) -> bool:
    """A question's ``workload`` left out, or giving its unit alone (under replayed pairs)."""
    return workload is None or (isinstance(workload, Mapping) and set(workload) <= {"unit"})


def _assumed_strength(dependence) -> float | None:
    """The ``c`` of a question's dependence that is a mixture (iid: 0, identical: 1), else None."""
    if isinstance(dependence, str):
        return {"iid": 0.0, "identical": 1.0}.get(dependence)
    if isinstance(dependence, Mapping):
        kind = dependence.get("kind")
        if kind in BUILTIN_DEPENDENCES and set(dependence) == {"kind"}:
            return _assumed_strength(kind)
        c = dependence.get("identical")
        if kind == "mixture" and set(dependence) == {"kind", "identical"} and isinstance(c, (int, float)):
            if not isinstance(c, bool) and 0 <= c <= 1:
                return float(c)
    return None


def _dependence_check(raw, dependence, t: _Translation) -> tuple[str, dict, dict[str, list]] | None:
    """The study's dependence when the answer is checked across ``c``: the mixture
    ``copies`` at the assumed ``c``, and its axis over ``check_dependence`` and the
    assumed value. None when the question's dependence is no mixture, or the check is off."""
    check = raw.get("check_dependence", DEPENDENCE_CHECK)
    c0 = _assumed_strength(dependence)
    if check is False or c0 is None:
        return None
    ok = isinstance(check, list) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in check
    )
    if not ok:
        t.problems.append(
            not_allowed(
                ("check_dependence",),
                check,
                "a list of probabilities in [0, 1] that a request's copies are one draw, e.g. [0, 0.25, 0.5, 1], "
                "or false (no check)",
            ).text
        )
        return None
    values = sorted({float(v) for v in check} | {c0})
    plain = [int(v) if v.is_integer() else v for v in values]
    assumed = int(c0) if c0.is_integer() else c0
    t.paths.append((f"dependences.{COPIES}", "dependence"))
    return COPIES, {COPIES: {"kind": "mixture", "identical": assumed}}, {f"{COPIES}.identical": plain}


def _sx_checks(
    raw, name: str, dependences: dict, workload: dict, base: Path, run_dir: Path, t: _Translation
) -> tuple[dict, dict] | None:
    """Under an S&X dependence, the laws and dependences that check the answer
    (``check_dependence``, by default :data:`SX_CHECKS`): ``iid`` and ``identical`` take
    one copy's law X S (:data:`COPY_LAW`, :func:`straggler.model.dependence.sx.copy_law_spec`)
    with copies of their own or one for all; ``{workload: W, slowdown: S}`` is another S&X
    (the ends of a fit's bootstrap: ``fit --pairs -o`` writes them). Each pairs with its law
    (``work``) and names the answer's dependence (``checks``). None for another dependence,
    ``check_dependence: false``, or laws that cannot be built (the study's checks say why)."""
    spec = dependences.get(name)
    if not (isinstance(spec, Mapping) and spec.get("kind") == "sx"):
        return None
    check = raw.get("check_dependence", SX_CHECKS)
    if check is False:
        return None
    expected = (
        "under sx, a list of iid, identical (one copy's law X S with copies of their own, or one for all) and "
        "{workload: <law>, slowdown: <law>} (another S&X, as fit --pairs -o writes the ends of its bootstrap), "
        "or false (no check)"
    )
    other = isinstance(check, list) and all(
        v in SX_CHECKS or (isinstance(v, Mapping) and set(v) == {"workload", "slowdown"}) for v in check
    )
    if not other:
        t.problems.append(not_allowed(("check_dependence",), check, expected).text)
        return None
    laws: dict[str, dict] = {}
    deps = {name: {**spec, "work": WORKLOAD}}
    if any(v in SX_CHECKS for v in check):
        copy_law = copy_law_of(workload, spec, run_dir)
        if copy_law is None:
            return None
        laws[COPY_LAW] = copy_law
        for v in SX_CHECKS:
            if v in check:
                deps[f"{v}_copies"] = {"kind": v, "work": COPY_LAW, "checks": name}
    ends = [v for v in check if isinstance(v, Mapping)]
    for k, end in enumerate(ends, start=1):
        law = _data_files(dict(end["workload"]), ("check_dependence", k - 1, "workload"), base, run_dir, t)
        if "unit" in workload and isinstance(law, dict):
            law.setdefault("unit", workload["unit"])
        laws[f"{name}_{k}_work"] = law
        deps[f"{name}_{k}"] = {"kind": "sx", "slowdown": end["slowdown"], "work": f"{name}_{k}_work", "checks": name}
    return laws, deps


def _dependence(dependence, base: Path, run_dir: Path, t: _Translation) -> tuple[str, dict]:
    """The question's ``dependence``: its name on the study's axis, and the study's
    ``dependences`` section (empty for a built-in one). A spec is named by its kind
    (``sx``), so that the dataset's coordinate says what it is."""
    if isinstance(dependence, str) and dependence in BUILTIN_DEPENDENCES:
        return dependence, {}
    if isinstance(dependence, Mapping):
        kind = dependence.get("kind")
        if kind in BUILTIN_DEPENDENCES and set(dependence) == {"kind"}:
            return str(kind), {}  # {kind: iid} is the built-in iid
        name = kind if isinstance(kind, str) and STUDY_NAME.match(kind) and kind not in BUILTIN_DEPENDENCES else "given"
        t.paths.append((f"dependences.{name}", "dependence"))
        spec = _data_files(dict(dependence), ("dependence",), base, run_dir, t)
        if kind == "pairs" and isinstance(spec.get("file"), str) and spec["file"]:
            path, spec["file"] = _located(spec["file"], base, run_dir)
            if not path.is_file():
                t.problems.append(
                    f"dependence.file: file {format_value(dependence['file'])} does not exist (a relative path is "
                    f"read from the question's folder, {base}); expected a file of paired durations"
                )
                t.said.add("dependence.file")
        return name, {name: spec}
    t.problems.append(
        not_allowed(
            ("dependence",),
            dependence,
            "iid (independent copies of the size), identical (every copy the same size) or a dependence "
            "spec such as {kind: mixture, identical: 0.3} (straggler fit --pairs measures it) or "
            "{kind: sx, slowdown: {family: ..., ...}}",
            did_you_mean(dependence, BUILTIN_DEPENDENCES),
        ).text
    )
    return "iid", {}


STUDY_PATHS: tuple[tuple[str, str], ...] = (
    ("study", "name"),
    ("grid.N[0]", "system.N"),
    ("grid.N", "system.N"),
    ("grid.r_slow[0]", "system.r_slow"),
    ("grid.r_slow", "system.r_slow"),
    ("grid.distribution[0]", WORKLOAD),
    ("grid.distribution", WORKLOAD),
    ("grid.dependence[0]", "dependence"),
    ("grid.dependence", "dependence"),
    ("grid.policy", "policies"),
    ("grid.d", "d"),
    (f"distributions.{WORKLOAD}", WORKLOAD),
    ("decision.slo", "slo"),
    ("decision.budget", "budget"),
    ("decision.resolution", "resolution"),
    ("decision", "slo"),
    ("policies", "parameters"),
)
"""A study key path -> the question key it comes from: a study's error is said in the
question's words (the longest path first, with the dependences' own)."""


def _policies(raw, system_section: dict, replayed: bool, t: _Translation):
    """The question's contenders: its ``policies``, or the practical ones of its system
    (``deployable``: those a client alone runs), without a threshold the analysis would
    choose under replayed pairs."""
    policies = raw.get("policies")
    if policies is None or policies == DEPLOYABLE:
        t.default_policies = True
        discipline = system_section.get("discipline", "FCFS")
        queueing = system_section.get("queueing", "per_server")
        policies = practical_policies(str(discipline), str(queueing), deployable=policies == DEPLOYABLE)
        if replayed:  # a threshold the analysis chooses: none under replayed pairs
            policies = [p for p in policies if not _chosen_by_analysis(p)]
        if not policies:  # a discipline or queueing the study refuses: its error says so
            t.said.add("policies")
    return policies


def _parameters(raw, policies) -> dict | None:
    """The study's ``policies`` section: the question's ``parameters``, with the delays a
    hedged policy is tried at where the question names none (:func:`hedge_delays`)."""
    given = raw.get("parameters")
    delays = hedge_delays(raw, policies)
    if not delays:
        return given
    return {
        **(given if isinstance(given, dict) else {}),
        **{name: {**hedge_given(raw, name), "delay": delays} for name in hedged_policies()},
    }


def translate(raw, source: Path, run_dir: Path) -> _Translation:
    """The study a question ``raw`` (its parsed YAML) asks for, with the problems of
    the keys only a question has. ``source`` is the question file (its folder is where
    a relative data file is read from, its stem the default name), ``run_dir`` the
    directory Snakemake runs in."""
    t = _Translation({}, [], [])
    if not isinstance(raw, Mapping):
        t.problems.append(
            f"(top level): value {format_value(raw, 60)} is not allowed; expected a mapping of question keys "
            f"({', '.join(QUESTION_KEYS)})"
        )
        return t
    base = Path(source).absolute().parent
    for key in raw:
        if key not in QUESTION_KEYS:
            t.problems.append(_unknown_key((), key, QUESTION_KEYS))
    system_section, axes = _system(raw.get("system"), t)
    dependence_name, dependences = _dependence(raw.get("dependence", "iid"), base, run_dir, t)
    replayed = _replayed_pairs(dependences.get(dependence_name), run_dir)
    if replayed is not None and _only_unit(raw.get(WORKLOAD)):
        # the pairs bring the law of one copy: their columns pooled (a unit given is kept)
        workload = {**replayed, **(raw.get(WORKLOAD) or {})}
    else:
        workload = _workload(raw.get(WORKLOAD), base, run_dir, t)
    strength_axis: dict[str, list] = {}
    checked = _dependence_check(raw, raw.get("dependence", "iid"), t)
    if checked is not None:
        dependence_name, dependences, strength_axis = checked
    laws = {WORKLOAD: workload}
    sx_checks = _sx_checks(raw, dependence_name, dependences, workload, base, run_dir, t)
    if sx_checks is not None:
        laws, dependences = {**laws, **sx_checks[0]}, sx_checks[1]
    if "load" not in raw:
        t.said.add("load")
        t.problems.append(_missing(("load",), "the loads to answer at, e.g. [0.3, 0.5, 0.7] or {start, stop, step}"))
    if raw.get("slo") is None and raw.get("budget") is None:
        t.problems.append(
            "slo, budget: both missing; expected at least one of them: slo {quantile: 0.99, target: t} or "
            "{mean: t} (the response time the service may take), budget {extra_load: b} (the server time "
            "it may spend beyond one copy of each job) or {hedges: h} (the extra copies it may send per job)"
        )

    policies = _policies(raw, system_section, replayed is not None, t)
    decision = {k: raw[k] for k in ("slo", "budget", "resolution", "dependence_source") if raw.get(k) is not None}
    study: dict[str, Any] = {"study": raw.get("name", study_name(Path(source).stem))}
    if "seed" in raw:
        study["seed"] = raw["seed"]
    # a value refused above has a stand-in here, so that the study's checks still run
    study["grid"] = {
        "policy": policies,
        "distribution": list(laws),
        "dependence": [dependence_name, *(n for n in dependences if n != dependence_name)],
        "r_slow": axes.get("r_slow", [1]),
        "d": raw.get("d", [2] if replayed is not None else list(DEFAULT_D)),
        "N": axes.get("N", [1]),
        **strength_axis,
    }
    study["load"] = raw.get("load", [0.5])
    parameters = _parameters(raw, policies)
    if parameters is not None:
        study["policies"] = parameters
    study["distributions"] = laws
    if dependences:
        study["dependences"] = dependences
    if system_section:
        study["system"] = system_section
    if "evaluate" in raw:
        study["evaluate"] = raw["evaluate"]
    study["simulation"] = raw["simulation"] if "simulation" in raw else dict(DEFAULT_SIMULATION)
    if decision:
        study["decision"] = decision
    if "execution" in raw:  # how the work is cut into jobs (a cluster's job length)
        study["execution"] = raw["execution"]
    t.study = study
    t.paths += list(STUDY_PATHS)
    t.paths.sort(key=lambda p: -len(p[0]))
    return t


_HEAD = re.compile(r"^(?P<path>[^:=]*?)(?P<rest>(?: = |: ).*)$", re.DOTALL)
_NO_CELL = "grid: no cell can be evaluated"


def _in_question_words(text: str, t: _Translation) -> str:
    """A study error named by the question's keys: its key path (the text before the
    first ``:`` or `` = ``), and the study paths its message names."""
    if text.startswith(_NO_CELL):
        grid = t.study["grid"]
        return (
            f"policies, d, system.N: no policy can run on this system (policies {format_value(grid['policy'])}, "
            f"d {format_value(grid['d'])}, N = {format_value(grid['N'][0])}): every one places more copies than "
            "there are servers, needs two pools with an odd N (set system.pools), or places d copies with "
            "central queueing; expected at least one policy that can run"
        )
    match = _HEAD.match(text)
    head, rest = (match["path"], match["rest"]) if match else ("", text)

    for study, question in t.paths:  # longest first
        if head == study or head.startswith((study + ".", study + "[")):
            head = question + head[len(study) :]
            break
    for study, question in t.paths:
        if "." in study:  # unambiguous in prose: grid.N, distributions.workload
            rest = re.sub(rf"(?<![\w.]){re.escape(study)}(?![\w])", question, rest)
    return head + rest


def _policy_problems(t: _Translation, resolved: ResolvedConfig) -> dict[str, str]:
    """The policies with no possible cell on the question's system -> why (the first
    reason the grid gives)."""
    from ..study.grid import build_grid

    grid = build_grid(resolved)
    possible = {cell.policy for cell in grid.cells.values()}
    why: dict[str, str] = {}
    for point, reason in grid.impossible.items():
        policy = dict(zip(grid.axes, point))["policy"]
        if policy not in possible:
            why.setdefault(policy, reason)
    return why


def read_question(path, run_dir) -> Question:
    """Read, translate and check the question file ``path`` for a run in ``run_dir``;
    a refused question raises :class:`ConfigError`, one line per problem in the
    question's own key paths (a file that cannot be read keeps the loader's words)."""
    from ..study.config import load_config, resolve_config

    path = Path(path)
    try:
        raw = load_config(path)
    except ConfigError as err:
        keys = f"a mapping of question keys ({', '.join(QUESTION_KEYS)})"
        raise ConfigError(
            [
                re.sub(r"a mapping of config keys( \([^)]*\))?", keys, line.replace(f"{path}: ", "", 1))
                for line in err.errors
            ],
            source=str(path),
        ) from None
    t = translate(raw, path, run_dir)
    if not t.study:
        raise ConfigError(t.problems, source=str(path))
    _keep_probes(t.study, study_path(Path(run_dir), str(t.study["study"])))
    problems = list(t.problems)
    resolved = None
    left_out: dict[str, str] = {}
    with contextlib.chdir(run_dir):  # a data file is read from where the study runs
        try:
            resolved = resolve_config(t.study)
        except ConfigError as err:
            for text in err.errors:
                line = _in_question_words(text, t)
                if any(line.startswith((f"{at}:", f"{at}.", f"{at}[", f"{at} ")) for at in t.said):
                    continue  # said above, in the question's words
                if line not in problems:
                    problems.append(line)
        if resolved is not None and not problems and t.default_policies:
            left_out = _policy_problems(t, resolved)
            if left_out:
                t.study["grid"]["policy"] = [p for p in t.study["grid"]["policy"] if p not in left_out]
                resolved = resolve_config(t.study)
        if resolved is not None and not problems:
            problems += load_problems(resolved)
    if problems:
        raise ConfigError(problems, source=str(path))
    assert resolved is not None
    return Question(path, t.study, resolved, Path(run_dir), left_out)


def _keep_probes(study: dict, previous: Path) -> None:
    """Keep the values of ``c`` that an earlier run of the same question added to its sweep
    (the margin's bisection, :func:`add_probes`), so that a rerun has the same grid and
    computes nothing. Only when the earlier study is this one but for those values: the
    midpoints of another question's bisection are not this one's, and would move its
    margin (:mod:`straggler.decide.assumption`)."""
    import yaml

    key = f"{COPIES}.identical"
    grid = study.get("grid") or {}
    if key not in grid or not previous.is_file():
        return
    try:
        old = yaml.safe_load(previous.read_text()) or {}
        values = old["grid"][key]
    except (OSError, yaml.YAMLError, AttributeError, KeyError, TypeError):
        return
    if not isinstance(values, list) or {**old, "grid": {**old["grid"], key: None}} != {
        **study,
        "grid": {**grid, key: None},
    }:
        return
    extra = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1]
    grid[key] = sorted(set(grid[key]) | set(extra))


def add_probes(question: Question, values) -> Question:
    """The question with ``values`` of ``c`` added to its study's sweep (the margin's
    bisection: :func:`straggler.decide.assumption.probes_needed`)."""
    import copy

    from ..study.config import resolve_config

    study = copy.deepcopy(question.study)
    key = f"{COPIES}.identical"
    study["grid"][key] = sorted(set(study["grid"][key]) | {float(v) for v in values})
    with contextlib.chdir(question.run_dir):
        resolved = resolve_config(study)
    return Question(question.path, study, resolved, question.run_dir, question.left_out)


def study_text(question: Question) -> str:
    """The study file: a header saying where it comes from, then the study as YAML."""
    import yaml

    run_dir = Path(os.path.normpath(question.run_dir.absolute()))
    study = Path(os.path.normpath(question.study_path.absolute()))
    named = study.relative_to(run_dir) if study.is_relative_to(run_dir) else study
    head = [
        f"# The study of the question {question.path.name}, written by straggler recommend: edit the",
        "# question, not this file (it is written again at every run). The same run by hand, from",
        f"# {run_dir}: snakemake --cores all --configfile {named}",
    ]
    if question.left_out:
        head.append("# Policies left out, with no possible cell on this system:")
        head += [f"#   {policy}: {why}" for policy, why in question.left_out.items()]
    body = yaml.safe_dump(question.study, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
    return "\n".join(head) + "\n" + body


def question_unit(question: Question) -> str:
    """The unit of the question's times, as its workload states it ("": none)."""
    from ..model.distributions.units import study_unit

    return study_unit(question.resolved.distributions)
