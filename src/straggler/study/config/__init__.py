"""The study configuration: loading, validation, defaults and normalisation.

Every key is described once, as a field of the typed config (:mod:`.resolved`: its
type, default, allowed values and meaning), from which the JSON schema (:mod:`.schema`,
``straggler schema``) and the configuration reference (docs/reference/configuration.md)
are generated. A study file
is read by :func:`load_config`, bounded
(:mod:`.loader`: no YAML anchors or aliases, no repeated key, UTF-8, at most
:data:`.limits.MAX_DEPTH` levels and :data:`.limits.MAX_CONFIG_BYTES`), by
``straggler check-config`` and the Snakefile alike. A config then goes through three
steps before any job starts (:func:`resolve_config`), at its scale and at every other
scale its file defines, after its grid's size is checked from the axis lengths alone
(:data:`.limits.MAX_GRID_POINTS`), and after its numbers are normalised and a load
range expanded (:mod:`.numbers`: ``1e5`` is an integer where one is expected;
:mod:`.ranges`: ``load: {start, stop, step}`` is its list):

1. JSON-schema validation against that schema, filling in the defaults;
2. semantic checks that a schema cannot express: names defined where they are
   used, probabilities summing to 1, N even when the pools differ, distribution
   parameters accepted by :func:`straggler.model.distributions.from_spec`, every value
   of an extra grid axis valid once applied, at least one possible cell, every
   size law's mean and every arrival rate within :data:`.limits.SIZE_RANGE`, a
   warm-up no longer than the measured run;
3. normalisation: policy aliases mapped to canonical names, policy parameters
   completed from :data:`straggler.model.policies.POLICIES`, the built-in dependences
   ``identical`` and ``iid`` added, a fixed key order; then the longest cell id is
   checked against :data:`.limits.MAX_CELL_ID_BYTES` (a cell's file name).

The result is a :class:`ResolvedConfig` (:mod:`.resolved`): frozen dataclasses, one per
section, read by attribute (``resolved.simulation.jobs``); its :meth:`~ResolvedConfig.to_dict`
is the resolved dict, from which the dump, the cell ids and the hashes are made. Every
default filled in is in it (``grid.dependence: [identical]`` when a study names none),
so ``straggler check-config`` prints it.

Every problem found is reported at once in a :class:`ConfigError`, one line each,
naming the key path, the bad value and what is allowed; a value given with
Snakemake's ``--config`` is read as a study file reads it and named as such in errors
(:mod:`.overrides`). The config's own literal values are kept where a number is
expected (``1`` stays ``1``, ``0.3`` stays ``0.3``): the grid builds cell ids from them.

Extra grid axes are dotted paths (``Rer.tau``, ``pareto.alpha``, ``types.p1``,
...); :func:`apply_override` applies one value of such an axis to a resolved
config, which is how the grid builds each cell's effective config.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path

import yaml

from ...common.files import write_text
from ...model.distributions import FAMILIES, data_file_digests
from ...model.policies import POLICIES, canonical_policy
from .axes import Axis, applied, apply_override, get_path
from .checks import extra_axes, under, validate
from .errors import ConfigError, Err, did_you_mean, fmt_path, format_value, not_allowed, one_of
from .keys import (
    BUILTIN_DEPENDENCES,
    MISSING,
    NAMED_AXES,
    PROBABILITY_TOLERANCE,
    SCALES,
    SYSTEM_AXES,
)
from .limits import MAX_GRID_POINTS, cell_id_errors, size_errors
from .loader import load_config, merge
from .numbers import normalise_axis_values, normalise_numbers
from .overrides import read_overrides, read_study_files, with_override_hints
from .ranges import expand_load
from .resolved import (
    KEY_ORDER,
    TOP_LEVEL_ORDER,
    ExecutionConfig,
    GridConfig,
    ResolvedConfig,
    SimulationConfig,
    SystemConfig,
    TypesConfig,
)
from .schema import deref, family_parameters, schema, schema_errors

__all__ = [
    "ConfigError",
    "NAMED_AXES",
    "SYSTEM_AXES",
    "BUILTIN_DEPENDENCES",
    "load_config",
    "read_study_files",
    "read_overrides",
    "MAX_GRID_POINTS",
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
    "ResolvedConfig",
    "GridConfig",
    "SystemConfig",
    "TypesConfig",
    "SimulationConfig",
    "ExecutionConfig",
]


def read_config(path) -> ResolvedConfig:
    """``resolve_config(load_config(path))``; errors carry the file name in ``source``."""
    data = load_config(path)
    try:
        return resolve_config(data)
    except ConfigError as exc:
        exc.source = str(path)
        raise


def dump_config(resolved: ResolvedConfig) -> str:
    """The resolved config as YAML text, in a stable key order (contract order at the top)."""
    data = resolved.to_dict()
    ordered = {k: data[k] for k in KEY_ORDER if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})
    return yaml.safe_dump(ordered, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)


# --------------------------------------------------------------------------- resolve


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
                    f"{fmt_path(('scales', name))}: key {format_value(name, 60)} is not allowed; "
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
    over = dict(scales.get(scale) or {})
    if "load" in over:
        cfg.pop("load", None)  # a scale's load replaces the file's (a range is not merged into a range)
    cfg = merge(cfg, over)
    cfg["scale"] = scale
    if scale != "quick":
        cfg["study"] = f"{cfg.get('study', 'default')}-{scale}"
    return cfg, []


def resolve_config(raw: Mapping) -> ResolvedConfig:
    """Validate ``raw`` and return the resolved config (``raw`` is not modified).

    The config is resolved at its ``scale``, and every other scale the file defines is
    validated too, so that a study is refused at once rather than when its paper scale
    is run; an error of a key set under ``scales.<scale>`` is named by that path.
    Raises :class:`ConfigError` listing every problem found.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError(
            [
                f"(top level): value {format_value(raw, 60)} is not allowed; expected a mapping of "
                f"config keys ({', '.join(KEY_ORDER)})"
            ]
        )
    chosen, *others = _scales_of(raw)
    errors: list[str] = []
    resolved = None
    try:
        resolved = _resolve_at(raw, chosen)
    except ConfigError as exc:
        errors += exc.errors
    for scale in others:
        try:
            _resolve_at(dict(raw, scale=scale), scale)
        except ConfigError as exc:
            for text in exc.errors:
                if not text.startswith("scales."):
                    text = f"{text} (at scale {scale})"
                if text not in errors and text.removesuffix(f" (at scale {scale})") not in errors:
                    errors.append(text)
    if errors or resolved is None:
        raise ConfigError(errors)
    return ResolvedConfig.from_dict(resolved)


def _scales_of(raw: Mapping) -> list[str]:
    """The scale ``raw`` is resolved at, then the other scales its file defines."""
    chosen = raw.get("scale", "quick")
    scales = raw.get("scales")
    if chosen not in SCALES or not isinstance(scales, Mapping):
        return [chosen]
    return [chosen, *dict.fromkeys(s for s in ("quick", *scales) if s in SCALES and s != chosen)]


def _sets(over, path: tuple) -> bool:
    """Does the scale's mapping ``over`` set the key at ``path`` (or a list or value
    holding it)?"""
    node = over
    for part in path:
        if not isinstance(node, Mapping):
            return True
        if part not in node:
            return False
        node = node[part]
    return True


def _named(errs: list[Err], raw: Mapping, scale) -> list[str]:
    """The error texts, those of keys that ``scales.<scale>`` sets named by their path there."""
    scales = raw.get("scales")
    over = scales.get(scale) if isinstance(scales, Mapping) and isinstance(scale, str) else None
    out = []
    for e in errs:
        inside = isinstance(over, Mapping) and e.path and e.path[0] != "scales" and _sets(over, e.path)
        out.append(f"scales.{scale}.{e.text}" if inside and e.text.startswith(fmt_path(e.path)) else e.text)
    return list(dict.fromkeys(out))


def _resolve_at(raw: Mapping, scale) -> dict:
    cfg, errs = _apply_scale(copy.deepcopy(dict(raw)))
    # the grid's size first, from its axis lengths: validating or building a grid of 10^7
    # points takes minutes
    size = size_errors(cfg)
    if size:
        raise ConfigError(_named(errs + size, raw, scale))
    # numbers as written (1e5 where an integer is expected) and a load range, before
    # anything is checked: no check needs to know their spellings
    normalise_numbers(cfg)
    load_errs = expand_load(cfg)
    errs += load_errs
    size = size_errors(cfg)  # again: a range's loads, replications written 1e4
    if size:
        raise ConfigError(_named(errs + size, raw, scale))
    schema_errors(cfg)  # fill the defaults first; the errors are collected below

    axes, axis_errs = extra_axes(cfg)
    errs += axis_errs
    normalise_axis_values(cfg, axes)
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
    errs += _axis_value_errors(cfg, axes, {e.text for e in base})
    if load_errs:  # a refused range is removed: "load: missing" and the like are its errors
        errs = [e for e in errs if e in load_errs or not under(e.path, ("load",))]
    if errs:
        raise ConfigError(_named(errs, raw, scale))
    resolved = _normalise(cfg, axes)
    long_ids = cell_id_errors(resolved)
    if long_ids:
        raise ConfigError(_named(long_ids, raw, scale))
    return resolved


def _axis_value_errors(cfg: dict, axes: list[tuple[Axis, list]], base_texts: set[str]) -> list[Err]:
    """Each value of an extra axis, tried in a config whose swept axes hold one value
    each (validating the whole grid again per value would be quadratic: minutes for 10^4
    values)."""
    errs: list[Err] = []
    if not axes:  # nothing to try (and a config may lack its grid: validate said so)
        return errs
    grid: dict = cfg["grid"] if isinstance(cfg.get("grid"), dict) else {}
    lean = {**cfg, "grid": {**grid, **{a.key: v[:1] for a, v in axes}}}
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
    return errs


def resolve_config_cached(raw: dict, cache_dir, overrides: Mapping | None = None) -> ResolvedConfig:
    """:func:`resolve_config`, kept in ``cache_dir`` under a hash of ``raw`` and of the
    code: every cluster job parses the Snakefile again, and validation builds the
    distributions (numpy, numba); a cached resolution is read back as YAML text, which
    round-trips a resolved config exactly. A config that does not resolve is never
    cached (its errors are raised every time); an error about a value of ``overrides``
    (Snakemake's ``--config``, merged into ``raw``) says that it came from there."""
    import hashlib
    import json

    from ...common.sources import model_hash

    # the data files' contents too: a changed file resolves to a new digest
    text = json.dumps([raw, data_file_digests(raw)], sort_keys=True, default=repr) + model_hash()
    path = Path(cache_dir) / f"resolved-{hashlib.sha256(text.encode()).hexdigest()[:20]}.yaml"
    if path.is_file():
        return ResolvedConfig.from_yaml(path.read_text())
    try:
        resolved = resolve_config(raw)
    except ConfigError as exc:
        raise with_override_hints(exc, overrides) from None
    try:
        write_text(path, dump_config(resolved))
    except OSError:
        pass  # a read-only place: resolve every time
    return resolved


def _decision(decision: dict) -> dict:
    """``decision`` in its sections' key order (``slo``: quantile, target, mean)."""
    out: dict = {}
    if isinstance(decision.get("slo"), dict):
        out["slo"] = {k: decision["slo"][k] for k in ("quantile", "target", "mean") if k in decision["slo"]}
    if isinstance(decision.get("budget"), dict):
        out["budget"] = dict(decision["budget"])
    for key in ("prefer_cheaper_within", "resolution", "max_jobs", "dependence_source"):
        if key in decision:
            out[key] = decision[key]
    return out


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
        # a law backed by a data file carries its content's digest: a cell's identity
        # (its spec) changes with the file's content
        extras = FAMILIES[spec["family"]].resolved_extras(spec)
        if spec.get("bootstrap"):  # its resamples are drawn from the study's seed
            extras["seed"] = cfg["seed"]
        if FAMILIES[spec["family"]].per_type:  # its mixture's weights are the types' probabilities
            extras["p"] = list(cfg["system"]["types"]["p"])
        return {"family": spec["family"], **{k: v for k, v in spec.items() if k != "family"}, **extras}

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
        # only when given: a study without it resolves to the text, cell specs and hashes it had
        **({"cancel_delay": system_in["cancel_delay"]} if system_in.get("cancel_delay") is not None else {}),
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
            # the operator's question, in the key order of its sections; never part of a
            # cell's spec (it weighs the results and changes none)
            **({"decision": _decision(cfg["decision"])} if isinstance(cfg.get("decision"), dict) else {}),
            # how work is cut: never part of a cell's spec or of the dataset's config text
            "execution": dict(cfg["execution"]),
        }
    )
