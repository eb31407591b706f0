"""The checks a policy's spec names (``PolicySpec.config_errors``)."""

from __future__ import annotations

from ....model.policies import POLICIES, TUNE, canonical_policy, is_tuned, tuned_parameters, tuned_range
from ..errors import Err, format_value, not_allowed, one_of
from ..nodes import list_at, section


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def fork_join_errors(name: str, cfg: dict, grid: dict, dists: dict, system: dict) -> list[Err]:
    """FJ's (policy ``name``'s) keep, early and split against k, d and the job-size
    laws (fork-join paper, section 8.1: k <= r <= r_f = d; section 7.2: the split
    divides Delta).

    A grid axis ``FJ.<param>`` is checked value by value (each value is applied
    and validated on its own), so here every parameter is the config's value."""
    params = section(cfg, "policies").get(name)
    names = list_at(grid, "policy")
    if not isinstance(params, dict) or name not in names:
        return []
    errs: list[Err] = []
    ks = [k for k in _as_list(params.get("k", 1)) if isinstance(k, int) and not isinstance(k, bool)]
    keeps = _as_list(params.get("keep", "d"))
    earlies = _as_list(params.get("early", False))
    ds = (
        [d for d in grid.get("d", []) if isinstance(d, int) and not isinstance(d, bool)]
        if isinstance(grid.get("d"), list)
        else []
    )
    allowed = (
        f"an integer with k <= keep <= d (k: {one_of(ks)}; d: {one_of(ds)}), "
        f"d (plain fork-join) or opt (section 8.2 strategy)"
    )
    for i, keep in enumerate(keeps):
        path = ("policies", name, "keep") + ((i,) if isinstance(params.get("keep"), list) else ())
        if isinstance(keep, bool) or not isinstance(keep, int):
            continue
        if ks and keep < max(ks):
            errs.append(not_allowed(path, keep, allowed, f"; here keep = {keep} < k = {max(ks)}"))
        elif ds and keep > max(ds):
            errs.append(not_allowed(path, keep, allowed, f"; here keep = {keep} > d for every d of the grid"))
    if True in earlies:
        bad = [keep for keep in keeps if keep == "opt" or is_tuned(keep) or (isinstance(keep, int) and keep not in ks)]
        if bad:
            errs.append(
                not_allowed(
                    ("policies", name, "early"),
                    True,
                    f"false when keep is {format_value(bad[0])} (early: true is the alias "
                    f"keep = k; give keep or early, not both)",
                )
            )
    for keep in [k for k in keeps if k == "opt" or is_tuned(k)]:
        if system.get("discipline", "FCFS") == "FCFS":
            break
        # a tuned keep's analysis is keep: opt's (its optimum is a candidate of the search)
        errs.append(
            not_allowed(
                ("policies", name, "keep"),
                keep,
                "an integer or d with system.discipline PS (keep: opt, and the analysis of a tuned keep, use "
                "the FCFS estimates of section 8.2)",
            )
        )
        break
    if "shift" in _as_list(params.get("split", "none")):
        for i, dist_name in enumerate(list_at(grid, "distribution")):
            spec = dists.get(dist_name) if isinstance(dist_name, str) else None
            family = spec.get("family") if isinstance(spec, dict) else None
            if family is not None and family != "shifted_exponential":
                errs.append(
                    Err(
                        ("policies", name, "split"),
                        f"policies.{name}.split: value 'shift' is not allowed with grid.distribution"
                        f"[{i}] = {dist_name!r} (family {family}); expected none, or only "
                        f"shifted_exponential distributions (split: shift divides their "
                        f"shift by k, section 7.2)",
                    )
                )
    return errs


def tune_errors(cfg: dict) -> list[Err]:
    """The tuned knobs ``{tune: [lo, hi]}`` (docs/guide/tuning.md): a range ``lo < hi``,
    one tuned parameter per policy, and a study that simulates (the search is by
    simulation). The schema has refused a tune on a parameter that is not a number, a
    bound below the parameter's minimum and a tune inside a list or a grid axis;
    :mod:`.values` an infinite bound."""
    errs: list[Err] = []
    evaluate = cfg.get("evaluate")
    simulated = not isinstance(evaluate, list) or "simulation" in evaluate
    for key, params in section(cfg, "policies").items():
        try:
            spec = POLICIES[canonical_policy(str(key))]
        except KeyError:
            continue  # the schema names it
        if not isinstance(params, dict):
            continue
        tuned = [name for name in tuned_parameters(params) if name in spec.tunable]
        for i, name in enumerate(tuned):
            path = ("policies", key, name)
            pair = tuned_range(params[name])
            if pair is not None and not pair[0] < pair[1]:
                errs.append(
                    not_allowed(
                        path + (TUNE,),
                        list(pair),
                        f"[lo, hi] with lo < hi: the range of {spec.name}.{name} the study searches",
                    )
                )
            if not simulated:
                errs.append(
                    not_allowed(
                        path,
                        params[name],
                        f"a value of {name} itself in a study that does not simulate (evaluate: "
                        f"{format_value(evaluate)}); a tuned knob is searched by simulation: add simulation "
                        f"to evaluate",
                    )
                )
            if i > 0:
                errs.append(
                    not_allowed(
                        path,
                        params[name],
                        f"a value of {name} itself: {spec.name} tunes {tuned[0]} already, and a policy "
                        f"tunes one parameter at most (the search is over one knob)",
                    )
                )
    return errs


POLICY_CHECKS = {"fork_join_errors": fork_join_errors}
"""``PolicySpec.config_errors`` -> its check ``(policy, cfg, grid, distributions,
system) -> errors``, run for every policy whose spec names one."""


def policy_errors(cfg: dict, grid: dict, dists: dict, system: dict) -> list[Err]:
    """The tuned knobs' checks (:func:`tune_errors`), then those of every policy whose
    spec names one (``PolicySpec.config_errors``)."""
    errs: list[Err] = tune_errors(cfg)
    for spec in POLICIES.values():
        if spec.config_errors:
            errs += POLICY_CHECKS[spec.config_errors](spec.name, cfg, grid, dists, system)
    return errs
