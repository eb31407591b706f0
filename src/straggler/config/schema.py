"""The config's JSON schema (completed from the policy registry) and its errors in words."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping
from importlib import resources

import yaml

from ..distributions import FAMILIES
from ..policies import all_policy_names, schema_definitions
from ..policies import schema_entries as policy_schema_entries
from .errors import Err, did_you_mean, fmt_path, format_value, not_allowed, one_of
from .keys import SCHEMA_RESOURCE


@functools.cache
def _schema() -> dict:
    """The schema file, completed from the policy registry and the size families: the
    policy names and ``policies.<name>`` entries, the family names and their parameters
    are generated, so a policy or a family is declared in one place."""
    text = resources.files("straggler").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    sch = yaml.safe_load(text)
    sch["$defs"]["policy_name"]["enum"] = all_policy_names()
    sch["$defs"].update(schema_definitions())
    policies = sch["properties"]["policies"]
    policies["properties"] = policy_schema_entries()
    policies["additionalProperties"] = False
    law = sch["$defs"]["distribution"]
    law["properties"]["family"]["enum"] = list(FAMILIES)
    law["allOf"] = [_family_branch(cls) for cls in FAMILIES.values()]
    return sch


def _family_branch(cls) -> dict:
    """The schema of one family's parameters (``Distribution.schema``), under its name."""
    own = {"family": {"description": "The distribution family."}, "scale_to_mean": {"$ref": "#/$defs/scale_to_mean"}}
    return {
        "if": {"properties": {"family": {"const": cls.family}}, "required": ["family"]},
        "then": {
            "additionalProperties": False,
            "required": list(cls.config_parameters()),
            "properties": {**own, **copy.deepcopy(cls.schema)},
        },
    }


def schema() -> dict:
    """The JSON schema of the config (a copy)."""
    return copy.deepcopy(_schema())


@functools.cache
def _validator_class():
    from jsonschema import Draft202012Validator, validators

    # ``2.0`` is not an integer here: the config's numbers are normalised before they are
    # validated (.numbers: an integral float where an integer is expected becomes one), so
    # an integer is what the checks and the engines are given.
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

    return validators.extend(Draft202012Validator, {"properties": set_defaults}, type_checker=type_checker)


@functools.cache
def schema_checker():
    """A validator of the whole schema that fills no default (the number normalisation's
    finder of the places that expect a number or an integer), with the project's types."""
    from jsonschema import Draft202012Validator, validators

    type_checker = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _types, x: isinstance(x, int) and not isinstance(x, bool)
    )
    return validators.extend(Draft202012Validator, type_checker=type_checker)(_schema())


@functools.cache
def schema_validator(definition: str | None = None):
    """A validator of the whole schema, or of one of its ``$defs`` (it fills defaults)."""
    root = _schema()
    if definition is None:
        return _validator_class()(root)
    return _validator_class()({"$defs": root["$defs"], "$ref": f"#/$defs/{definition}"})


@functools.cache
def family_parameters() -> dict[str, tuple[str, ...]]:
    """Distribution family -> its parameter names (besides ``scale_to_mean``), from the schema."""
    out: dict[str, tuple[str, ...]] = {}
    for branch in _schema()["$defs"]["distribution"]["allOf"]:
        family = branch["if"]["properties"]["family"]["const"]
        params = [k for k in branch["then"]["properties"] if k not in ("family", "scale_to_mean")]
        out[family] = tuple(params)
    return out


def deref(sch):
    """A schema node with its ``$ref`` chain followed: its own keys (but ``description`` and
    ``default``) over those of the definition it refers to."""
    while isinstance(sch, dict) and "$ref" in sch and sch["$ref"].startswith("#/$defs/"):
        target = _schema()["$defs"][sch["$ref"].split("/")[-1]]
        rest = {k: v for k, v in sch.items() if k not in ("$ref", "description", "default")}
        sch = {**target, **rest}
    return sch


_PATTERN_TEXT = {
    "^[A-Za-z_][A-Za-z0-9_-]{0,63}$(?!\\n)": (
        "a name of letters, digits, '_' and '-' (no dots), starting with a letter or '_', at most 64 characters"
    ),
    "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$(?!\\n)": (
        "a name of letters, digits, '_', '-' and '.', starting with a letter or digit, at most 64 characters"
    ),
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
    if lo is not None and hi is not None and kind == "integer" and not (lo_open or hi_open):
        return f"{noun} >= {lo} and <= {hi}"  # a count and its cap, such as d in [1, 10000]
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
    if isinstance(sch, dict) and sch.get("$ref") == "#/$defs/load_range":
        return "a range {start: ..., stop: ..., step: ...}"
    sch = deref(sch)
    if sch is True or not isinstance(sch, dict):
        return "anything"
    if "const" in sch:
        return format_value(sch["const"])
    if "enum" in sch:
        return "one of " + ", ".join(format_value(x) if x is None else str(x) for x in sch["enum"])
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
                text = "a non-empty list" + (f" of at most {hi}" if hi is not None else "")
            else:
                text = "a list" + (f" of at most {hi}" if hi is not None else "")
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
    branch = deref(branch)
    if not isinstance(branch, dict):
        return True
    validator = schema_validator()
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


def _family_key_text(key, family: str) -> str:
    """Why ``key`` is not a parameter of ``family``: what the family takes, and for a
    mean, how to get one (a distribution of a given mean is any family with
    scale_to_mean)."""
    params = family_parameters()[family]
    takes = _join_or(list(params)).replace(" or ", " and ")
    text = (
        f"key {format_value(key)} is not allowed; expected a parameter of family {family}, which takes "
        f"{takes} (and scale_to_mean, as every family does)"
    )
    if key == "mean":
        if family == "pareto":
            return text + (
                "; for a mean m, add scale_to_mean: m (with any xm: the law is rescaled to mean m) "
                "or set xm = m (alpha - 1) / alpha"
            )
        return text + "; for a mean m, add scale_to_mean: m (the law is rescaled to mean m)"
    elsewhere = [f for f, ps in family_parameters().items() if key in ps]
    hint = did_you_mean(key, [*params, "scale_to_mean", "family"])
    if elsewhere and not hint:
        hint = f"; {key} is a parameter of {_join_or(elsewhere)}"
    return text + hint


def _translate(error) -> list[Err]:
    """A jsonschema error as readable messages."""
    path = tuple(error.absolute_path)
    inst = error.instance
    kw = error.validator
    sch = error.schema if isinstance(error.schema, dict) else {}

    if "propertyNames" in error.relative_schema_path:
        return [
            Err(
                path + (inst,),
                f"{fmt_path(path + (inst,))}: name {format_value(inst)} is not allowed; expected {_describe(sch)}",
            )
        ]

    if kw == "additionalProperties" and isinstance(inst, Mapping):
        allowed = list(sch.get("properties", {}))
        patterns = list(sch.get("patternProperties", {}))
        out = []
        for key in inst:
            if key in allowed or any(re.search(p, str(key)) for p in patterns):
                continue
            where = fmt_path(path + (key,))
            extra = ""
            if path == ("grid",):
                extra = " or a dotted path such as Rer.tau, pareto.alpha or types.p1"
            elif isinstance(inst.get("family"), str) and inst["family"] in family_parameters():
                out.append(Err(path + (key,), f"{where}: {_family_key_text(key, inst['family'])}"))
                continue
            elif isinstance(inst.get("kind"), str):
                extra = f" (for kind {inst['kind']})"
            out.append(
                Err(
                    path + (key,),
                    f"{where}: key {format_value(key)} is not allowed; expected one of "
                    f"{one_of(allowed)}{extra}{did_you_mean(key, allowed)}",
                )
            )
        return out

    if kw == "required" and isinstance(inst, Mapping):
        out = []
        props = sch.get("properties", {})
        for key in error.validator_value:
            if key not in inst:
                expected = _describe(props[key]) if key in props else "a value"
                extra = f" (required for family {inst['family']})" if isinstance(inst.get("family"), str) else ""
                out.append(Err(path + (key,), f"{fmt_path(path + (key,))}: missing{extra}; expected {expected}"))
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
                hint = f" ({format_value(x)} is repeated)"
                break
            seen.append(x)
    if kw == "enum" and isinstance(inst, str):
        hint = did_you_mean(inst, error.validator_value)
    return [not_allowed(path, inst, _describe(sch), hint)]


def schema_errors(cfg: dict) -> list[Err]:
    """Validate ``cfg`` against the schema, filling its defaults in place."""
    out: list[Err] = []
    for error in schema_validator().iter_errors(cfg):
        out.extend(_translate(error))
    return out
