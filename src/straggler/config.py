"""The study configuration: loading, validation, defaults and normalisation.

DESIGN.md, "Config contract". A config goes through three steps before any job
starts (:func:`resolve_config`):

1. JSON-schema validation against ``schemas/config.schema.yaml`` (which also
   documents every key and declares the defaults), filling in the defaults;
2. semantic checks that a schema cannot express: names defined where they are
   used, probabilities summing to 1, N even when the pools differ, distribution
   parameters accepted by :func:`straggler.distributions.from_spec`, every value
   of an extra grid axis valid once applied, at least one possible cell;
3. normalisation: policy aliases mapped to canonical names, policy parameters
   completed from :data:`straggler.policies.POLICIES`, the built-in dependences
   ``identical`` and ``iid`` added, a fixed key order.

Every problem found is reported at once in a :class:`ConfigError`, one line each,
naming the key path, the bad value and what is allowed. The config's own literal
values are kept (``1`` stays ``1``, ``0.3`` stays ``0.3``): the grid builds cell
ids from them.

Extra grid axes are dotted paths (``Rer.tau``, ``pareto.alpha``, ``types.p1``,
...); :func:`apply_override` applies one value of such an axis to a resolved
config, which is how the grid builds each cell's effective config.
"""

from __future__ import annotations

import copy
import difflib
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import yaml

from .policies import ALIASES, POLICIES, canonical_policy

__all__ = [
    "ConfigError",
    "NAMED_AXES",
    "SYSTEM_AXES",
    "BUILTIN_DEPENDENCES",
    "load_config",
    "resolve_config",
    "read_config",
    "apply_override",
    "dump_config",
    "schema",
    "family_parameters",
]

NAMED_AXES: tuple[str, ...] = ("policy", "distribution", "dependence", "r_slow", "d", "N")
"""The six named grid axes, in dataset dimension order."""

TOP_LEVEL_ORDER: tuple[str, ...] = (
    "study", "seed", "grid", "load", "policies", "distributions", "dependences",
    "system", "evaluate", "simulation", "execution",
)

KEY_ORDER: tuple[str, ...] = (("study", "scale") + TOP_LEVEL_ORDER[1:4] + ("load_basis",)
                              + TOP_LEVEL_ORDER[4:] + ("scales",))
"""Every top-level key, in dump order: ``load_basis`` is in a resolved config only when
it is not the default (``nominal``), and ``scale`` only when the study defines scales,
so TOP_LEVEL_ORDER (always present) leaves them out; ``scales`` is applied and dropped."""

SCALES: tuple[str, ...] = ("quick", "paper")
"""Run scales a study file may define under ``scales`` and select with ``scale``."""

BUILTIN_DEPENDENCES: dict[str, dict] = {"identical": {"kind": "identical"}, "iid": {"kind": "iid"}}

SYSTEM_AXES: dict[str, tuple[str, ...]] = {
    "types.p1": ("system", "types", "p"),
    "types.belief": ("system", "types", "belief"),
    "types.knowledge": ("system", "types", "knowledge"),
    "system.discipline": ("system", "discipline"),
    "system.queueing": ("system", "queueing"),
}
"""Dotted system paths that may be swept under ``grid`` -> the key they set.
``types.p1: v`` sets ``system.types.p = [v, 1 - v]``."""

PROBABILITY_TOLERANCE = 1e-9

_SCHEMA_RESOURCE = "schemas/config.schema.yaml"
_MISSING = object()


# --------------------------------------------------------------------------- errors


class ConfigError(Exception):
    """An invalid config; ``errors`` holds every problem found, one message each."""

    def __init__(self, errors, source: str | None = None):
        if isinstance(errors, str):
            errors = [errors]
        self.errors: list[str] = list(errors)
        self.source = source
        super().__init__("\n".join(self.errors))

    def __str__(self) -> str:
        return "\n".join(self.errors)


@dataclass(frozen=True)
class _Err:
    path: tuple
    text: str


def _fmt_path(parts) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _fmt(value, limit: int = 120) -> str:
    """A config value as the user would write it (strings quoted)."""

    def fmt(v) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return repr(v)
        if isinstance(v, float):
            return repr(v)
        if isinstance(v, Mapping):
            return "{" + ", ".join(f"{k}: {fmt(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(fmt(x) for x in v) + "]"
        return str(v)

    text = fmt(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _did_you_mean(word, candidates) -> str:
    """``"; did you mean 'X'?"`` for the closest candidate, or ``""``."""
    if not isinstance(word, str):
        return ""
    cands = [c for c in candidates if isinstance(c, str)]
    lowered = {c.lower(): c for c in cands}
    if word.lower() in lowered and lowered[word.lower()] != word:
        return f"; did you mean {lowered[word.lower()]!r}?"
    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    if not match:  # swapped letters in a short word ('xs' for 'sx')
        match = [c for c in lowered if sorted(c) == sorted(word.lower())][:1]
    return f"; did you mean {lowered[match[0]]!r}?" if match else ""


def _one_of(items) -> str:
    items = [str(i) for i in items]
    return ", ".join(items) if items else "(none)"


def _not_allowed(path, value, expected: str, hint: str = "") -> _Err:
    return _Err(tuple(path), f"{_fmt_path(path)}: value {_fmt(value)} is not allowed; expected {expected}{hint}")


# --------------------------------------------------------------------------- schema


@functools.lru_cache(maxsize=None)
def _schema() -> dict:
    text = resources.files("straggler").joinpath(_SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def schema() -> dict:
    """The JSON schema of the config (a copy)."""
    return copy.deepcopy(_schema())


@functools.lru_cache(maxsize=None)
def _validator_class():
    from jsonschema import Draft202012Validator, validators

    # YAML ``2.0`` is not an integer here: d, N, k and run lengths must be written as integers.
    type_checker = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, x: isinstance(x, int) and not isinstance(x, bool)
    )
    validate_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema_):
        # the standard recipe for filling defaults (python-jsonschema FAQ), copying them
        if validator.is_type(instance, "object"):
            for key, sub in properties.items():
                if isinstance(sub, dict) and "default" in sub and key not in instance:
                    instance[key] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema_)

    return validators.extend(
        Draft202012Validator, {"properties": set_defaults}, type_checker=type_checker
    )


@functools.lru_cache(maxsize=None)
def _validator(definition: str | None = None):
    root = _schema()
    if definition is None:
        return _validator_class()(root)
    return _validator_class()({"$defs": root["$defs"], "$ref": f"#/$defs/{definition}"})


@functools.lru_cache(maxsize=None)
def family_parameters() -> dict[str, tuple[str, ...]]:
    """Distribution family -> its parameter names (besides ``scale_to_mean``), from the schema."""
    out: dict[str, tuple[str, ...]] = {}
    for branch in _schema()["$defs"]["distribution"]["allOf"]:
        family = branch["if"]["properties"]["family"]["const"]
        params = [k for k in branch["then"]["properties"] if k not in ("family", "scale_to_mean")]
        out[family] = tuple(params)
    return out


def _deref(sch):
    while isinstance(sch, dict) and "$ref" in sch and sch["$ref"].startswith("#/$defs/"):
        target = _schema()["$defs"][sch["$ref"].split("/")[-1]]
        rest = {k: v for k, v in sch.items() if k not in ("$ref", "description", "default")}
        sch = {**target, **rest}
    return sch


_PATTERN_TEXT = {
    "^[A-Za-z_][A-Za-z0-9_-]*$": "a name of letters, digits, '_' and '-' (no dots), starting with a letter or '_'",
    "^[A-Za-z0-9][A-Za-z0-9_.-]*$": "a name of letters, digits, '_', '-' and '.', starting with a letter or digit",
}


def _number_text(sch: dict, kind: str) -> str:
    noun = "an integer" if kind == "integer" else "a number"
    lo = hi = None
    lo_open = hi_open = False
    if "minimum" in sch:
        lo = sch["minimum"]
    if "exclusiveMinimum" in sch:
        lo, lo_open = sch["exclusiveMinimum"], True
    if "maximum" in sch:
        hi = sch["maximum"]
    if "exclusiveMaximum" in sch:
        hi, hi_open = sch["exclusiveMaximum"], True
    if lo is not None and hi is not None:
        return f"{noun} in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{noun} {'>' if lo_open else '>='} {lo}"
    if hi is not None:
        return f"{noun} {'<' if hi_open else '<='} {hi}"
    return noun


def _join_or(parts: list[str]) -> str:
    parts = [p for i, p in enumerate(parts) if p and p not in parts[:i]]
    if len(parts) <= 1:
        return parts[0] if parts else "something else"
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _describe(sch) -> str:
    """What a schema allows, in words."""
    if isinstance(sch, dict) and sch.get("$ref") == "#/$defs/distribution":
        return "an inline distribution (a mapping: family and its parameters)"
    sch = _deref(sch)
    if sch is True or not isinstance(sch, dict):
        return "anything"
    if "const" in sch:
        return _fmt(sch["const"])
    if "enum" in sch:
        return "one of " + ", ".join(_fmt(x) if x is None else str(x) for x in sch["enum"])
    for key in ("anyOf", "oneOf"):
        if key in sch:
            return _join_or([_describe(b) for b in sch[key]])
    types = sch.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    parts = []
    for t in types:
        if t in ("number", "integer"):
            parts.append(_number_text(sch, t))
        elif t == "string":
            pattern = sch.get("pattern")
            parts.append(_PATTERN_TEXT.get(pattern, f"a string matching {pattern}") if pattern else "a string")
        elif t == "boolean":
            parts.append("true or false")
        elif t == "null":
            parts.append("null")
        elif t == "array":
            lo, hi = sch.get("minItems", 0), sch.get("maxItems")
            if hi is not None and lo == hi:
                text = f"a list of {lo}"
            elif lo >= 1:
                text = "a non-empty list"
            else:
                text = "a list"
            if "items" in sch:
                text += f", each {_describe(sch['items'])}"
            if sch.get("uniqueItems"):
                text += ", without repeats"
            parts.append(text)
        elif t == "object":
            props = [k for k in sch.get("properties", {})]
            if props and sch.get("additionalProperties") is False:
                parts.append("a mapping with keys among " + ", ".join(props))
            else:
                parts.append("a mapping")
    return _join_or(parts) if parts else "a valid value"


def _type_fits(branch, instance) -> bool:
    """Could ``instance`` be meant for this anyOf branch (same JSON type)?"""
    branch = _deref(branch)
    if not isinstance(branch, dict):
        return True
    validator = _validator()
    if "type" in branch:
        types = branch["type"]
        types = [types] if isinstance(types, str) else types
        return any(validator.is_type(instance, t) for t in types)
    if "const" in branch:
        return type(branch["const"]) is type(instance)
    if "enum" in branch:
        return any(type(x) is type(instance) for x in branch["enum"])
    for key in ("anyOf", "oneOf"):
        if key in branch:
            return any(_type_fits(b, instance) for b in branch[key])
    return True


def _translate(error) -> list[_Err]:
    """A jsonschema error as readable messages."""
    path = tuple(error.absolute_path)
    inst = error.instance
    kw = error.validator
    sch = error.schema if isinstance(error.schema, dict) else {}

    if "propertyNames" in error.relative_schema_path:
        return [_Err(path + (inst,), f"{_fmt_path(path + (inst,))}: name {_fmt(inst)} is not allowed; "
                     f"expected {_describe(sch)}")]

    if kw == "additionalProperties" and isinstance(inst, Mapping):
        allowed = list(sch.get("properties", {}))
        patterns = list(sch.get("patternProperties", {}))
        out = []
        for key in inst:
            if key in allowed or any(re.search(p, str(key)) for p in patterns):
                continue
            where = _fmt_path(path + (key,))
            extra = ""
            if path == ("grid",):
                extra = " or a dotted path such as Rer.tau, pareto.alpha or types.p1"
            elif isinstance(inst.get("family"), str):
                extra = f" (for family {inst['family']})"
            elif isinstance(inst.get("kind"), str):
                extra = f" (for kind {inst['kind']})"
            out.append(_Err(path + (key,), f"{where}: key {_fmt(key)} is not allowed; expected one of "
                            f"{_one_of(allowed)}{extra}{_did_you_mean(key, allowed)}"))
        return out

    if kw == "required" and isinstance(inst, Mapping):
        out = []
        props = sch.get("properties", {})
        for key in error.validator_value:
            if key not in inst:
                expected = _describe(props[key]) if key in props else "a value"
                extra = f" (required for family {inst['family']})" if isinstance(inst.get("family"), str) else ""
                out.append(_Err(path + (key,), f"{_fmt_path(path + (key,))}: missing{extra}; expected {expected}"))
        return out

    if kw in ("anyOf", "oneOf") and isinstance(inst, (list, dict)):
        fitting = [i for i, b in enumerate(error.validator_value) if _type_fits(b, inst)]
        if len(fitting) == 1:
            sub = [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == fitting[0]]
            if sub:
                return [m for e in sub for m in _translate(e)]

    hint = ""
    if kw == "uniqueItems" and isinstance(inst, list):
        seen: list = []
        for x in inst:
            if x in seen:
                hint = f" ({_fmt(x)} is repeated)"
                break
            seen.append(x)
    if kw == "enum" and isinstance(inst, str):
        hint = _did_you_mean(inst, error.validator_value)
    return [_not_allowed(path, inst, _describe(sch), hint)]


def _schema_errors(cfg: dict) -> list[_Err]:
    """Validate ``cfg`` against the schema, filling its defaults in place."""
    out: list[_Err] = []
    for error in _validator().iter_errors(cfg):
        out.extend(_translate(error))
    return out


# --------------------------------------------------------------------------- YAML


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads ``1e-3`` as a float (YAML 1.1 wants ``1.0e-3``) and refuses
    duplicate keys (PyYAML silently keeps the last one)."""


_Loader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _construct_mapping(loader, node, deep=False):
    loader.flatten_mapping(node)
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:
            continue
        if duplicate:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"found duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_config(path) -> dict:
    """Read a YAML config file; a syntax error or a non-mapping top level is a ConfigError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read the config file ({exc.strerror or exc})"], source=str(path))
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{path}: not valid YAML{where}: {problem}"], source=str(path)) from None
    if data is None:
        raise ConfigError([f"{path}: the file is empty; expected a mapping of config keys"], source=str(path))
    if not isinstance(data, dict):
        raise ConfigError([f"{path}: the top level is {_fmt(data, 60)}; expected a mapping of config keys "
                           f"({', '.join(KEY_ORDER)})"], source=str(path))
    return data


def read_config(path) -> dict:
    """``resolve_config(load_config(path))``; errors carry the file name in ``source``."""
    data = load_config(path)
    try:
        return resolve_config(data)
    except ConfigError as exc:
        exc.source = str(path)
        raise


def dump_config(resolved: dict) -> str:
    """The resolved config as YAML text, in a stable key order (contract order at the top)."""
    ordered = {k: resolved[k] for k in KEY_ORDER if k in resolved}
    ordered.update({k: v for k, v in resolved.items() if k not in ordered})
    return yaml.safe_dump(ordered, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)


# --------------------------------------------------------------------------- extra axes


@dataclass(frozen=True)
class _Axis:
    key: str
    """The key as written under grid."""
    canonical: str
    """The key with a policy alias replaced by the canonical name (the dimension name)."""
    target: tuple[str, ...]
    """The config path that a value sets."""
    transform: Callable[[Any], Any] | None = None


def _complement(value):
    """``1 - value`` computed on the decimal literal (1 - 0.7 is 0.3, not 0.30000000000000004)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("expected a number in [0, 1]")
    if isinstance(value, int):
        return 1 - value
    if not math.isfinite(value):
        raise ValueError("expected a number in [0, 1]")
    return float(Decimal(1) - Decimal(repr(value)))


def _p1_to_p(value):
    return [value, _complement(value)]


def _axis(key: str, cfg: dict) -> _Axis:
    """Resolve a dotted grid key; raise ValueError saying what is allowed."""
    head, _, rest = key.partition(".")
    dists = cfg.get("distributions") if isinstance(cfg.get("distributions"), dict) else {}
    kinds = []
    if head in POLICIES or head in ALIASES:
        kinds.append("policy")
    if key in SYSTEM_AXES or head in ("types", "system"):
        kinds.append("system")
    if head in dists:
        kinds.append("distribution")
    if len(kinds) > 1:
        raise ValueError(f"{head!r} is ambiguous: it names a {' and a '.join(kinds)}; "
                         f"rename the distribution {head!r}")
    if not kinds:
        heads = sorted(POLICIES) + sorted(ALIASES) + sorted(dists) + ["types", "system"]
        raise ValueError(
            f"{head!r} is not a policy, a distribution defined under distributions, types or system; "
            f"expected <policy>.<parameter>, <distribution>.<parameter>, or one of "
            f"{_one_of(SYSTEM_AXES)}{_did_you_mean(head, heads)}")
    kind = kinds[0]
    if kind == "policy":
        policy = canonical_policy(head)
        params = list(POLICIES[policy].parameters)
        if not params:
            raise ValueError(f"policy {policy} has no parameters; expected <policy>.<parameter> for a policy "
                             f"with parameters ({_one_of(p for p in POLICIES if POLICIES[p].parameters)})")
        if rest not in params:
            raise ValueError(f"{rest!r} is not a parameter of policy {policy}; expected one of "
                             f"{_one_of(params)}{_did_you_mean(rest, params)}")
        return _Axis(key, f"{policy}.{rest}", ("policies", policy, rest))
    if kind == "system":
        if key not in SYSTEM_AXES:
            raise ValueError(f"{key!r} is not a system parameter that can be swept; expected one of "
                             f"{_one_of(SYSTEM_AXES)}{_did_you_mean(key, SYSTEM_AXES)}")
        return _Axis(key, key, SYSTEM_AXES[key], _p1_to_p if key == "types.p1" else None)
    spec = dists[head]
    family = spec.get("family") if isinstance(spec, dict) else None
    params = list(family_parameters().get(family, ())) + ["scale_to_mean"]
    if rest not in params:
        raise ValueError(f"{rest!r} is not a parameter of distribution {head} (family {family}); "
                         f"expected one of {_one_of(params)}{_did_you_mean(rest, params)}")
    return _Axis(key, key, ("distributions", head, rest))


def _get(cfg, path):
    node = cfg
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _set(cfg: dict, path, value) -> None:
    node = cfg
    for part in path[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[path[-1]] = value


def _applied(cfg: dict, axis: _Axis, value) -> dict:
    out = copy.deepcopy(cfg)
    new = axis.transform(value) if axis.transform else copy.deepcopy(value)
    if axis.target[0] == "policies" and isinstance(out.get("policies"), dict):
        policy = axis.target[1]
        if out["policies"].get(policy) is None:
            out["policies"][policy] = copy.deepcopy(POLICIES[policy].parameters)
    _set(out, axis.target, new)
    return out


def apply_override(resolved: dict, path: str, value) -> dict:
    """A new resolved config with the dotted ``path`` set to ``value``.

    ``types.p1`` sets ``system.types.p = [v, 1 - v]``; ``types.belief`` and
    ``types.knowledge`` set ``system.types.*``; ``system.discipline`` and
    ``system.queueing`` set ``system.*``; ``<Policy>.<param>`` (canonical name or
    alias) sets ``policies[Policy][param]``; ``<dist>.<param>`` sets
    ``distributions[dist][param]``. The input is not modified. An unknown path is a
    ValueError.
    """
    return _applied(resolved, _axis(path, resolved), value)


# --------------------------------------------------------------------------- semantic checks


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _numbers(xs) -> bool:
    return isinstance(xs, list) and all(_is_number(x) for x in xs)


def _check_probabilities(p, path) -> list[_Err]:
    if not _numbers(p) or not p:
        return []
    if any(x < 0 for x in p):
        return [_not_allowed(path, p, "probabilities, each >= 0, summing to 1")]
    total = math.fsum(p)
    if not abs(total - 1.0) <= PROBABILITY_TOLERANCE:
        return [_Err(tuple(path), f"{_fmt_path(path)}: value {_fmt(p)} is not allowed: it sums to {total!r}; "
                     f"expected probabilities summing to 1")]
    return []


def _check_distribution(spec, path: tuple) -> list[_Err]:
    """Checks of one distribution spec beyond the schema, then distributions.from_spec."""
    if not isinstance(spec, dict) or not _validator("distribution").is_valid(copy.deepcopy(spec)):
        return []  # the schema errors say what is wrong
    family = spec["family"]
    errs: list[_Err] = []
    if family in ("hyperexponential", "discrete"):
        errs += _check_probabilities(spec["p"], path + ("p",))
        other = "rates" if family == "hyperexponential" else "values"
        if len(spec[other]) != len(spec["p"]):
            errs.append(_Err(path + (other,), f"{_fmt_path(path + (other,))}: value {_fmt(spec[other])} is not "
                             f"allowed: it has {len(spec[other])} entries; expected one per probability in p "
                             f"({len(spec['p'])})"))
    if family in ("bounded_pareto", "uniform") and not spec["high"] > spec["low"]:
        errs.append(_not_allowed(path + ("high",), spec["high"], f"a number > low = {spec['low']}"))
    if family == "discrete" and not errs and not math.fsum(v * q for v, q in zip(spec["values"], spec["p"])) > 0:
        errs.append(_not_allowed(path, spec, "a distribution with a positive mean"))
    if errs:
        return errs

    from . import distributions

    if family not in distributions.FAMILIES:
        return [_Err(path + ("family",), f"{_fmt_path(path + ('family',))}: value {family!r} is not allowed: "
                     f"straggler.distributions does not implement it; expected one of "
                     f"{_one_of(distributions.FAMILIES)}")]
    try:
        dist = distributions.from_spec(copy.deepcopy(spec))
        mean = float(dist.mean())
    except (ValueError, TypeError, ArithmeticError) as exc:
        return [_Err(path, f"{_fmt_path(path)}: {exc}")]
    if not (math.isfinite(mean) and mean > 0):
        return [_not_allowed(path, spec, f"a distribution with a finite positive mean (its mean is {mean!r})")]
    return []


def _walk(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, path + (i,))


def _infinity_allowed(path) -> bool:
    """tau may be .inf (never reroute or replicate), FJ's cost_limit too (no limit)."""
    if len(path) >= 3 and path[0] == "policies" and path[2] in ("tau", "cost_limit"):
        return True
    if len(path) >= 2 and path[0] == "grid" and str(path[1]).endswith(".cost_limit"):
        return True
    return len(path) >= 2 and path[0] == "grid" and str(path[1]).endswith(".tau")


def _semantic_errors(cfg: dict) -> list[_Err]:
    errs: list[_Err] = []
    grid = cfg.get("grid") if isinstance(cfg.get("grid"), dict) else {}
    dists = cfg.get("distributions") if isinstance(cfg.get("distributions"), dict) else {}
    user_deps = cfg.get("dependences") if isinstance(cfg.get("dependences"), dict) else {}
    deps = {**BUILTIN_DEPENDENCES, **user_deps}
    system = cfg.get("system") if isinstance(cfg.get("system"), dict) else {}
    types = system.get("types") if isinstance(system.get("types"), dict) else {}

    # named distributions and dependences
    for name, spec in dists.items():
        errs += _check_distribution(spec, ("distributions", name))
    for name, spec in user_deps.items():
        path = ("dependences", name)
        if name in BUILTIN_DEPENDENCES and spec != BUILTIN_DEPENDENCES[name]:
            errs.append(_not_allowed(path, spec, f"{_fmt(BUILTIN_DEPENDENCES[name])} (a built-in name; "
                                     f"choose another name for another dependence)"))
        if isinstance(spec, dict) and spec.get("kind") == "sx":
            slowdown = spec.get("slowdown")
            if isinstance(slowdown, str) and slowdown not in dists:
                errs.append(_not_allowed(path + ("slowdown",), slowdown,
                                         f"a distribution defined under distributions ({_one_of(dists)}) "
                                         f"or an inline distribution{_did_you_mean(slowdown, dists)}"))
            elif isinstance(slowdown, dict):
                errs += _check_distribution(slowdown, path + ("slowdown",))

    # grid names
    for axis, defined, where in (("distribution", dists, "distributions"), ("dependence", deps, "dependences")):
        values = grid.get(axis)
        if isinstance(values, list):
            for i, name in enumerate(values):
                if isinstance(name, str) and name not in defined:
                    errs.append(_not_allowed(("grid", axis, i), name,
                                             f"a name defined under {where}: {_one_of(defined)}"
                                             f"{_did_you_mean(name, defined)}"))

    # policies given twice (canonical name and alias)
    policies = cfg.get("policies") if isinstance(cfg.get("policies"), dict) else {}
    seen: dict[str, str] = {}
    for key in policies:
        if key in POLICIES or key in ALIASES:
            canon = canonical_policy(key)
            if canon in seen:
                errs.append(_Err(("policies", key), f"policies.{key}: policy {canon} is given twice "
                                 f"(as {seen[canon]} and {key}); expected one entry"))
            seen.setdefault(canon, key)

    # pools, N and r_slow
    Ns = grid.get("N") if _numbers(grid.get("N")) else []
    r_slow = grid.get("r_slow") if _numbers(grid.get("r_slow")) else []
    pools = system.get("pools")
    speeds = system.get("speeds")
    if pools is None:
        slow = [r for r in r_slow if r < 1]
        for i, n in enumerate(Ns):
            if isinstance(n, int) and n % 2 == 1:
                if slow:
                    errs.append(_not_allowed(("grid", "N", i), n,
                                             f"an even N (two equal pools) while grid.r_slow has values < 1 "
                                             f"({_one_of(slow)}), or system.pools"))
                elif speeds is not None:
                    errs.append(_not_allowed(("grid", "N", i), n,
                                             "an even N (two equal pools) when system.speeds is given, "
                                             "or system.pools"))
    elif _numbers(pools) and len(pools) == 2:
        total = sum(pools)
        bad = [n for n in Ns if n != total]
        if bad:
            errs.append(_Err(("system", "pools"), f"system.pools: value {_fmt(pools)} is not allowed: it sums "
                             f"to {total}, but grid.N has {_one_of(bad)}; expected pool sizes summing to "
                             f"every N of the grid"))

    # queueing and discipline: central queueing is one FCFS queue per pool (the
    # threshold paper's model); no central processor-sharing model is defined
    if system.get("queueing") == "central" and system.get("discipline") == "PS":
        errs.append(_not_allowed(("system", "queueing"), "central",
                                 "per_server when system.discipline is 'PS' (no central processor-sharing "
                                 "model is defined: a central pool queue is FCFS); or system.discipline "
                                 "'FCFS' with central queueing"))

    # types
    p = types.get("p")
    if _numbers(p) and p:
        errs += _check_probabilities(p, ("system", "types", "p"))
        if speeds is None and len(p) != 2:
            errs.append(_not_allowed(("system", "types", "p"), p,
                                     "2 probabilities (two job types), unless system.speeds gives one "
                                     "column per type"))
        if isinstance(speeds, list):
            for i, row in enumerate(speeds):
                if isinstance(row, list) and len(row) != len(p):
                    errs.append(_not_allowed(("system", "speeds", i), row,
                                             f"one speed per job type ({len(p)}, the length of system.types.p)"))
    belief = types.get("belief")
    if isinstance(belief, list) and all(_numbers(row) for row in belief):
        J = len(p) if _numbers(p) else None
        if J is not None and (len(belief) != J or any(len(row) != J for row in belief)):
            errs.append(_not_allowed(("system", "types", "belief"), belief,
                                     f"a number in [0, 1] or a {J} x {J} matrix p_(j->j*) (J = len(system.types.p))"))
        else:
            for i, row in enumerate(belief):
                errs += _check_probabilities(row, ("system", "types", "belief", i))

    errs += _load_basis_errors(cfg, grid, system)

    # at least one possible cell (cells with d > N, an odd N needing two pools, or a
    # d-of-N policy with central queueing are left NaN)
    names = grid.get("policy")
    queueings = grid.get("system.queueing") if isinstance(grid.get("system.queueing"), list) else [
        system.get("queueing", "per_server")]
    ds = grid.get("d")
    if (isinstance(names, list) and names and all(isinstance(x, str) and (x in POLICIES or x in ALIASES)
                                                  for x in names)
            and _numbers(ds) and ds and Ns):
        def possible(policy, d, n):
            spec = POLICIES[canonical_policy(policy)]
            if spec.uses_d and d > n:
                return False
            if spec.uses_d and "per_server" not in queueings:
                return False
            return not (spec.two_pools and pools is None and n % 2 == 1)

        if not any(possible(pol, d, n) for pol in names for d in ds for n in Ns):
            errs.append(_Err(("grid",), f"grid: no cell can be evaluated (policy {_fmt(names)}, d {_fmt(ds)}, "
                             f"N {_fmt(Ns)}, system.queueing {_fmt(queueings)}): every combination has "
                             f"d > N, needs two pools with an odd N, or is a d-of-N policy (CoC, CoS, RIQ, "
                             f"FJ) with central queueing; expected at least one possible cell"))

    errs += _check_fork_join(cfg, grid, dists, system)
    errs += _check_run_length(cfg)

    # NaN and infinities (the schema's bounds let NaN through)
    for path, value in _walk(cfg):
        if isinstance(value, float) and not math.isfinite(value):
            if math.isinf(value) and _infinity_allowed(path):
                continue
            errs.append(_not_allowed(path, value, "a finite number"))
    return errs


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def _check_fork_join(cfg: dict, grid: dict, dists: dict, system: dict) -> list[_Err]:
    """FJ's keep, early and split against k, d and the job-size laws (fork-join
    paper, section 8.1: k <= r <= r_f = d; section 7.2: the split divides Delta).

    A grid axis ``FJ.<param>`` is checked value by value (each value is applied
    and validated on its own), so here every parameter is the config's value."""
    policies = cfg.get("policies") if isinstance(cfg.get("policies"), dict) else {}
    params = policies.get("FJ")
    names = grid.get("policy") if isinstance(grid.get("policy"), list) else []
    if not isinstance(params, dict) or "FJ" not in names:
        return []
    errs: list[_Err] = []
    ks = [k for k in _as_list(params.get("k", 1)) if isinstance(k, int) and not isinstance(k, bool)]
    keeps = _as_list(params.get("keep", "d"))
    earlies = _as_list(params.get("early", False))
    ds = [d for d in grid.get("d", []) if isinstance(d, int) and not isinstance(d, bool)] \
        if isinstance(grid.get("d"), list) else []
    allowed = (f"an integer with k <= keep <= d (k: {_one_of(ks)}; d: {_one_of(ds)}), "
               f"d (plain fork-join) or opt (section 8.2 strategy)")
    for i, keep in enumerate(keeps):
        path = ("policies", "FJ", "keep") + ((i,) if isinstance(params.get("keep"), list) else ())
        if isinstance(keep, bool) or not isinstance(keep, int):
            continue
        if ks and keep < max(ks):
            errs.append(_not_allowed(path, keep, allowed, f"; here keep = {keep} < k = {max(ks)}"))
        elif ds and keep > max(ds):
            errs.append(_not_allowed(path, keep, allowed, f"; here keep = {keep} > d for every d of the grid"))
    if True in earlies:
        bad = [keep for keep in keeps if keep == "opt" or (isinstance(keep, int) and keep not in ks)]
        if bad:
            errs.append(_not_allowed(("policies", "FJ", "early"), True,
                                     f"false when keep is {_fmt(bad[0])} (early: true is the alias "
                                     f"keep = k; give keep or early, not both)"))
    if "opt" in keeps and system.get("discipline", "FCFS") != "FCFS":
        errs.append(_not_allowed(("policies", "FJ", "keep"), "opt",
                                 "an integer or d with system.discipline PS (keep: opt uses the "
                                 "FCFS estimates of section 8.2)"))
    if "shift" in _as_list(params.get("split", "none")):
        names_d = grid.get("distribution") if isinstance(grid.get("distribution"), list) else []
        for i, name in enumerate(names_d):
            spec = dists.get(name) if isinstance(name, str) else None
            family = spec.get("family") if isinstance(spec, dict) else None
            if family is not None and family != "shifted_exponential":
                errs.append(_Err(("policies", "FJ", "split"),
                                 f"policies.FJ.split: value 'shift' is not allowed with grid.distribution"
                                 f"[{i}] = {name!r} (family {family}); expected none, or only "
                                 f"shifted_exponential distributions (split: shift divides their "
                                 f"shift by k, section 7.2)"))
    return errs


LOAD_BASES: tuple[str, ...] = ("nominal", "redundancy")


def _check_run_length(cfg: dict) -> list[_Err]:
    """``simulation.max_jobs`` caps the sequential stopping of ``simulation.precision``:
    it means nothing without it, and must leave room for the first round."""
    sim = cfg.get("simulation") if isinstance(cfg.get("simulation"), dict) else {}
    cap = sim.get("max_jobs")
    if cap is None or not isinstance(cap, int) or isinstance(cap, bool):
        return []
    if sim.get("precision") is None:
        return [_not_allowed(("simulation", "max_jobs"), cap,
                             "no value without simulation.precision (it caps the jobs that "
                             "sequential stopping may add); remove it or set simulation.precision")]
    jobs, reps = sim.get("jobs"), sim.get("replications")
    if isinstance(jobs, int) and isinstance(reps, int) and cap < jobs * reps:
        return [_not_allowed(("simulation", "max_jobs"), cap,
                             f"an integer >= simulation.jobs x simulation.replications = "
                             f"{jobs} x {reps} = {jobs * reps} (the first round)")]
    return []


def _load_basis_errors(cfg: dict, grid: dict, system: dict) -> list[_Err]:
    """``load_basis: redundancy`` makes ``load`` the PS paper's rho~ = lambda d
    E[min(X_1..X_d)] / N (section 3.5), which only redundancy-d (CoC) on identical
    servers defines: another policy has no d replicas cancelled on completion, and
    with speeds != 1 the work of a replica is no longer its size."""
    basis = cfg.get("load_basis", "nominal")
    if basis != "redundancy":
        return []  # a value outside LOAD_BASES is the schema's error
    errs: list[_Err] = []
    names = grid.get("policy") if isinstance(grid.get("policy"), list) else []
    other = [n for n in names if isinstance(n, str) and (n in POLICIES or n in ALIASES)
             and canonical_policy(n) != "CoC"]
    if other:
        errs.append(_not_allowed(("load_basis",), basis,
                                 f"'nominal' while grid.policy has {_one_of(other)}: the redundancy "
                                 f"load rho~ = lambda d E[min(X_1..X_d)] / N is defined for CoC only "
                                 f"(allowed: {_one_of(LOAD_BASES)})"))
    slow = [r for r in (grid.get("r_slow") if _numbers(grid.get("r_slow")) else []) if r != 1]
    if slow or system.get("speeds") is not None:
        what = f"grid.r_slow has {_one_of(slow)}" if slow else "system.speeds is given"
        errs.append(_not_allowed(("load_basis",), basis,
                                 f"'nominal' while {what}: rho~ needs identical unit-speed servers "
                                 f"(r_slow = 1, no system.speeds)"))
    return errs


def _validate(cfg: dict) -> list[_Err]:
    """Schema and semantic errors of ``cfg`` (whose defaults are filled in place)."""
    errs = _schema_errors(cfg)
    try:
        sem = _semantic_errors(cfg)
    except Exception:
        if errs:  # the structure is broken in a way the schema errors already describe
            sem = []
        else:
            raise
    # a semantic error about a value whose parts the schema already refused is noise
    errs += [e for e in sem if not any(_under(k.path, e.path) for k in errs)]
    return errs


def _extra_axes(cfg: dict) -> tuple[list[tuple[_Axis, list]], list[_Err]]:
    grid = cfg.get("grid")
    if not isinstance(grid, dict):
        return [], []
    axes: list[tuple[_Axis, list]] = []
    errs: list[_Err] = []
    by_name: dict[str, str] = {}
    policies = cfg.get("policies") if isinstance(cfg.get("policies"), dict) else {}
    for key, values in grid.items():
        if not isinstance(key, str) or "." not in key:
            continue
        try:
            axis = _axis(key, cfg)
        except ValueError as exc:
            errs.append(_Err(("grid", key), f"grid.{key}: key {key!r} is not allowed: {exc}"))
            continue
        if axis.canonical in by_name:
            errs.append(_Err(("grid", key), f"grid.{key}: key {key!r} is not allowed: it is the same axis as "
                             f"grid.{by_name[axis.canonical]}; expected each axis once"))
            continue
        by_name[axis.canonical] = key
        if axis.target[0] == "policies":
            own = None
            for name, params in policies.items():
                if (name in POLICIES or name in ALIASES) and canonical_policy(name) == axis.target[1]:
                    own = params.get(axis.target[2]) if isinstance(params, dict) else None
            if isinstance(own, list):
                errs.append(_Err(("grid", key), f"grid.{key}: key {key!r} is not allowed: "
                                 f"policies.{axis.target[1]}.{axis.target[2]} is a list too; expected the "
                                 f"values in one place"))
                continue
        if isinstance(values, list) and values:
            axes.append((axis, values))
    return axes, errs


def _under(path: tuple, target: tuple) -> bool:
    return tuple(path[: len(target)]) == tuple(target)


# --------------------------------------------------------------------------- resolve


def _merge(base: dict, over: dict) -> dict:
    """``base`` with ``over`` merged in: mappings recursively, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), dict(value))
        else:
            out[key] = copy.deepcopy(value)
    return out


def _apply_scale(cfg: dict) -> tuple[dict, list[_Err]]:
    """The config at its ``scale`` (``quick`` unless given): ``scales.<scale>`` merged
    over the rest of the file, and, for a scale other than quick, the study renamed
    ``<study>-<scale>`` so that both scales keep their results (``results/<study>/``).
    A study without ``scales`` resolves as before (no ``scale`` key) and has only the
    quick scale."""
    scales = cfg.pop("scales", None)
    scale = cfg.get("scale", "quick")
    if scale not in SCALES:
        return cfg, []  # the schema names the allowed values
    if scales is None:
        if scale != "quick":
            return cfg, [_not_allowed(("scale",), scale, "quick: this study defines no other "
                                      "scale (a study file lists them under scales)")]
        cfg.pop("scale", None)
        return cfg, []
    if not isinstance(scales, Mapping):
        return cfg, [_not_allowed(("scales",), scales, f"a mapping with keys among {_one_of(SCALES)}")]
    errs = []
    for name, over in scales.items():
        if name not in SCALES:
            errs.append(_Err(("scales", name), f"scales.{name}: key {name!r} is not allowed; "
                             f"expected one of {_one_of(SCALES)}{_did_you_mean(name, SCALES)}"))
        elif not isinstance(over, Mapping):
            errs.append(_not_allowed(("scales", name), over, "a mapping of config keys to "
                                     "override at that scale (e.g. simulation, load)"))
        else:
            for key in over:
                if key in ("study", "seed", "scale", "scales"):
                    errs.append(_not_allowed(("scales", name, key), over[key],
                                             "no value: a scale changes run lengths and grids, "
                                             "never the study's name, seed or scale"))
    if scale != "quick" and scale not in scales:
        errs.append(_not_allowed(("scale",), scale, f"a scale this study defines under scales "
                                 f"({_one_of(['quick', *scales])})"))
    if errs:
        return cfg, errs
    cfg = _merge(cfg, dict(scales.get(scale) or {}))
    cfg["scale"] = scale
    if scale != "quick":
        cfg["study"] = f"{cfg.get('study', 'default')}-{scale}"
    return cfg, []


def resolve_config(raw: dict) -> dict:
    """Validate ``raw`` and return the resolved config (a new dict; ``raw`` is not modified).

    Raises :class:`ConfigError` listing every problem found.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError([f"(top level): value {_fmt(raw, 60)} is not allowed; expected a mapping of "
                           f"config keys ({', '.join(KEY_ORDER)})"])
    cfg, errs = _apply_scale(copy.deepcopy(dict(raw)))
    _schema_errors(cfg)  # fill the defaults first; the errors are collected below

    axes, axis_errs = _extra_axes(cfg)
    errs += axis_errs
    # a swept parameter need not be given a base value: the first value of its axis serves
    for axis, values in axes:
        if axis.target[0] == "distributions" and _get(cfg, axis.target) is _MISSING:
            try:
                cfg = _applied(cfg, axis, values[0])
            except (TypeError, ValueError):
                pass

    base = _validate(cfg)
    targets = [axis.target for axis, _ in axes]
    # a value that every cell overrides is never used: its errors are the sweep's
    errs += [e for e in base if not any(_under(e.path, t) for t in targets)]
    base_texts = {e.text for e in base}
    # each value is tried in a config whose swept axes hold one value each (validating
    # the whole grid again per value would be quadratic: minutes for 10^4 values)
    lean = {**cfg, "grid": {**cfg["grid"], **{a.key: v[:1] for a, v in axes}}}
    for axis, values in axes:
        for i, value in enumerate(values):
            where = f"grid.{axis.key}[{i}]"
            try:
                trial = _applied({**lean, "grid": {**lean["grid"], axis.key: [value]}}, axis,
                                 value)
            except (TypeError, ValueError) as exc:
                errs.append(_Err(("grid", axis.key, i), f"{where}: value {_fmt(value)} is not allowed; {exc}"))
                continue
            for e in _validate(trial):
                if _under(e.path, axis.target) or e.text not in base_texts:
                    errs.append(_Err(("grid", axis.key, i), f"{where} = {_fmt(value)}: {e.text}"))

    texts = list(dict.fromkeys(e.text for e in errs))
    if texts:
        raise ConfigError(texts)
    return _normalise(cfg, axes)


def resolve_config_cached(raw: dict, cache_dir) -> dict:
    """:func:`resolve_config`, kept in ``cache_dir`` under a hash of ``raw`` and of the
    code: every cluster job parses the Snakefile again, and validation builds the
    distributions (numpy, numba); a cached resolution is read back as YAML text, which
    round-trips a resolved config exactly. A config that does not resolve is never
    cached (its errors are raised every time)."""
    import hashlib
    import json
    import os

    from .sources import model_hash

    text = json.dumps(raw, sort_keys=True, default=repr) + model_hash()
    path = Path(cache_dir) / f"resolved-{hashlib.sha256(text.encode()).hexdigest()[:20]}.yaml"
    if path.is_file():
        return yaml.safe_load(path.read_text())
    resolved = resolve_config(raw)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(dump_config(resolved))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only place: resolve every time
    return resolved


def _normalise(cfg: dict, axes: list[tuple[_Axis, list]]) -> dict:
    grid_in = cfg["grid"]
    policy_axis: list[str] = []
    for name in grid_in["policy"]:
        canon = canonical_policy(name)
        if canon not in policy_axis:
            policy_axis.append(canon)
    grid = {"policy": policy_axis}
    for axis in NAMED_AXES[1:]:
        grid[axis] = list(grid_in[axis])
    for axis, values in axes:
        grid[axis.canonical] = list(values)

    given: dict[str, dict] = {}
    for name, params in cfg["policies"].items():
        given[canonical_policy(name)] = dict(params or {})
    order = policy_axis + [p for p in POLICIES if p in given and p not in policy_axis]
    policies = {p: {**copy.deepcopy(POLICIES[p].parameters), **given.get(p, {})} for p in order}

    def dist(spec: dict) -> dict:
        return {"family": spec["family"], **{k: v for k, v in spec.items() if k != "family"}}

    distributions = {name: dist(spec) for name, spec in cfg["distributions"].items()}
    dependences = copy.deepcopy(BUILTIN_DEPENDENCES)
    for name, spec in cfg["dependences"].items():
        spec = dict(spec)
        if isinstance(spec.get("slowdown"), dict):
            spec["slowdown"] = dist(spec["slowdown"])
        dependences[name] = spec

    system_in = cfg["system"]
    types_in = system_in["types"]
    system = {
        "discipline": system_in["discipline"],
        "queueing": system_in["queueing"],
        "pools": system_in["pools"],
        "speeds": system_in["speeds"],
        "types": {"p": types_in["p"], "knowledge": types_in["knowledge"], "belief": types_in["belief"]},
    }
    sim = cfg["simulation"]
    # the default basis is left out, so that a config without the key (every study
    # written before it existed) resolves to the same text, cell specs and hashes
    basis = {} if cfg.get("load_basis", "nominal") == "nominal" else {"load_basis": cfg["load_basis"]}
    return copy.deepcopy({
        "study": cfg["study"],
        **({"scale": cfg["scale"]} if "scale" in cfg else {}),
        "seed": cfg["seed"],
        "grid": grid,
        "load": list(cfg["load"]),
        **basis,
        "policies": policies,
        "distributions": distributions,
        "dependences": dependences,
        "system": system,
        "evaluate": list(cfg["evaluate"]),
        # precision and max_jobs only when given: older studies resolve to the same text
        "simulation": {k: sim[k] for k in ("jobs", "warmup", "replications", "confidence",
                                           "precision", "max_jobs") if k in sim},
        # how work is cut: never part of a cell's spec or of the dataset's config text
        "execution": dict(cfg["execution"]),
    })
