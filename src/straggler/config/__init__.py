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
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from ..policies import POLICIES, canonical_policy
from .axes import Axis, applied, apply_override, get_path
from .checks import extra_axes, under, validate
from .errors import ConfigError, Err, did_you_mean, format_value, not_allowed, one_of
from .keys import (
    BUILTIN_DEPENDENCES,
    KEY_ORDER,
    MISSING,
    NAMED_AXES,
    PROBABILITY_TOLERANCE,
    SCALES,
    SYSTEM_AXES,
    TOP_LEVEL_ORDER,
)
from .schema import deref, family_parameters, schema, schema_errors

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
    "KEY_ORDER",
    "PROBABILITY_TOLERANCE",
    "SCALES",
    "TOP_LEVEL_ORDER",
    "canonical_policy",
    "deref",
    "resolve_config_cached",
]

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
                "while constructing a mapping", node.start_mark, f"found duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_config(path) -> dict:
    """Read a YAML config file; a syntax error or a non-mapping top level is a ConfigError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read the config file ({exc.strerror or exc})"], source=str(path)) from exc
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
        raise ConfigError(
            [
                f"{path}: the top level is {format_value(data, 60)}; expected a mapping of config keys "
                f"({', '.join(KEY_ORDER)})"
            ],
            source=str(path),
        )
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


def _apply_scale(cfg: dict) -> tuple[dict, list[Err]]:
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
            return cfg, [
                not_allowed(
                    ("scale",), scale, "quick: this study defines no other scale (a study file lists them under scales)"
                )
            ]
        cfg.pop("scale", None)
        return cfg, []
    if not isinstance(scales, Mapping):
        return cfg, [not_allowed(("scales",), scales, f"a mapping with keys among {one_of(SCALES)}")]
    errs = []
    for name, over in scales.items():
        if name not in SCALES:
            errs.append(
                Err(
                    ("scales", name),
                    f"scales.{name}: key {name!r} is not allowed; "
                    f"expected one of {one_of(SCALES)}{did_you_mean(name, SCALES)}",
                )
            )
        elif not isinstance(over, Mapping):
            errs.append(
                not_allowed(
                    ("scales", name), over, "a mapping of config keys to override at that scale (e.g. simulation, load)"
                )
            )
        else:
            for key in over:
                if key in ("study", "seed", "scale", "scales"):
                    errs.append(
                        not_allowed(
                            ("scales", name, key),
                            over[key],
                            "no value: a scale changes run lengths and grids, never the study's name, seed or scale",
                        )
                    )
    if scale != "quick" and scale not in scales:
        errs.append(
            not_allowed(("scale",), scale, f"a scale this study defines under scales ({one_of(['quick', *scales])})")
        )
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
        raise ConfigError(
            [
                f"(top level): value {format_value(raw, 60)} is not allowed; expected a mapping of "
                f"config keys ({', '.join(KEY_ORDER)})"
            ]
        )
    cfg, errs = _apply_scale(copy.deepcopy(dict(raw)))
    schema_errors(cfg)  # fill the defaults first; the errors are collected below

    axes, axis_errs = extra_axes(cfg)
    errs += axis_errs
    # a swept parameter need not be given a base value: the first value of its axis serves
    for axis, values in axes:
        if axis.target[0] == "distributions" and get_path(cfg, axis.target) is MISSING:
            try:
                cfg = applied(cfg, axis, values[0])
            except (TypeError, ValueError):
                pass

    base = validate(cfg)
    targets = [axis.target for axis, _ in axes]
    # a value that every cell overrides is never used: its errors are the sweep's
    errs += [e for e in base if not any(under(e.path, t) for t in targets)]
    base_texts = {e.text for e in base}
    # each value is tried in a config whose swept axes hold one value each (validating
    # the whole grid again per value would be quadratic: minutes for 10^4 values)
    lean = {**cfg, "grid": {**cfg["grid"], **{a.key: v[:1] for a, v in axes}}}
    for axis, values in axes:
        for i, value in enumerate(values):
            where = f"grid.{axis.key}[{i}]"
            try:
                trial = applied({**lean, "grid": {**lean["grid"], axis.key: [value]}}, axis, value)
            except (TypeError, ValueError) as exc:
                errs.append(Err(("grid", axis.key, i), f"{where}: value {format_value(value)} is not allowed; {exc}"))
                continue
            for e in validate(trial):
                if under(e.path, axis.target) or e.text not in base_texts:
                    errs.append(Err(("grid", axis.key, i), f"{where} = {format_value(value)}: {e.text}"))

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

    from ..sources import model_hash

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


def _normalise(cfg: dict, axes: list[tuple[Axis, list]]) -> dict:
    grid_in = cfg["grid"]
    policy_axis: list[str] = []
    for name in grid_in["policy"]:
        canon = canonical_policy(name)
        if canon not in policy_axis:
            policy_axis.append(canon)
    grid = {"policy": policy_axis}
    for name in NAMED_AXES[1:]:
        grid[name] = list(grid_in[name])
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
    return copy.deepcopy(
        {
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
            "simulation": {
                k: sim[k] for k in ("jobs", "warmup", "replications", "confidence", "precision", "max_jobs") if k in sim
            },
            # how work is cut: never part of a cell's spec or of the dataset's config text
            "execution": dict(cfg["execution"]),
        }
    )
