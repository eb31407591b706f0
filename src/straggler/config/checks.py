"""Semantic checks of a config that a schema cannot express (see the package docstring, step 2)."""

from __future__ import annotations

import copy
import math
import sys
from typing import TypeGuard

from ..policies import ALIASES, POLICIES, canonical_policy, names_using_d
from .axes import Axis, axis_of
from .errors import Err, did_you_mean, fmt_path, format_value, not_allowed, one_of
from .keys import BUILTIN_DEPENDENCES, PROBABILITY_TOLERANCE
from .limits import SIZE_RANGE
from .nodes import list_at, section
from .schema import schema_errors, schema_validator


def _is_number(x) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _numbers(xs) -> TypeGuard[list]:
    return isinstance(xs, list) and all(_is_number(x) for x in xs)


def _numbers_at(node: dict, key: str) -> list:
    """``node[key]`` when it is a list of numbers, else an empty list."""
    value = node.get(key)
    return value if _numbers(value) else []


def _check_probabilities(p, path) -> list[Err]:
    if not _numbers(p) or not p:
        return []
    if any(x < 0 for x in p):
        return [not_allowed(path, p, "probabilities, each >= 0, summing to 1")]
    total = math.fsum(p)
    if not abs(total - 1.0) <= PROBABILITY_TOLERANCE:
        return [
            Err(
                tuple(path),
                f"{fmt_path(path)}: value {format_value(p)} is not allowed: it sums to {total!r}; "
                f"expected probabilities summing to 1",
            )
        ]
    return []


def _check_distribution(spec, path: tuple) -> list[Err]:
    """Checks of one distribution spec beyond the schema, then distributions.from_spec."""
    if not isinstance(spec, dict) or not schema_validator("distribution").is_valid(copy.deepcopy(spec)):
        return []  # the schema errors say what is wrong
    family = spec["family"]
    errs: list[Err] = []
    if family in ("hyperexponential", "discrete"):
        errs += _check_probabilities(spec["p"], path + ("p",))
        other = "rates" if family == "hyperexponential" else "values"
        if len(spec[other]) != len(spec["p"]):
            errs.append(
                Err(
                    path + (other,),
                    f"{fmt_path(path + (other,))}: value {format_value(spec[other])} is not "
                    f"allowed: it has {len(spec[other])} entries; expected one per probability in p "
                    f"({len(spec['p'])})",
                )
            )
    if family in ("bounded_pareto", "uniform") and not spec["high"] > spec["low"]:
        errs.append(not_allowed(path + ("high",), spec["high"], f"a number > low = {spec['low']}"))
    if family == "discrete" and not errs and not math.fsum(v * q for v, q in zip(spec["values"], spec["p"])) > 0:
        errs.append(not_allowed(path, spec, "a distribution with a positive mean"))
    if errs:
        return errs

    from .. import distributions

    if family not in distributions.FAMILIES:
        return [
            Err(
                path + ("family",),
                f"{fmt_path(path + ('family',))}: value {family!r} is not allowed: "
                f"straggler.distributions does not implement it; expected one of "
                f"{one_of(distributions.FAMILIES)}",
            )
        ]
    try:
        mean = _mean(spec)
    except (ValueError, TypeError, ArithmeticError) as exc:
        where = path + (exc.parameter,) if isinstance(exc, distributions.ParameterError) else path
        return [Err(where, f"{fmt_path(where)}: {exc}")]
    if not (math.isfinite(mean) and mean > 0):
        return [not_allowed(path, spec, f"a distribution with a finite positive mean (its mean is {mean!r})")]
    if not SIZE_RANGE[0] <= mean <= SIZE_RANGE[1]:
        # a mean of 1e-320 made the arrival rate infinite; name the key that sets the mean
        key = next((k for k in ("scale_to_mean", "mean", "value") if k in spec), None)
        where, value = (path + (key,), spec[key]) if key else (path, spec)
        return [not_allowed(where, value, f"a distribution whose mean is in {_range_text()} (its mean is {mean!r})")]
    return []


def _range_text() -> str:
    return f"[{SIZE_RANGE[0]:g}, {SIZE_RANGE[1]:g}]"


def _mean(spec: dict) -> float:
    from .. import distributions

    return float(distributions.from_spec(copy.deepcopy(spec)).mean())


def _mean_or_none(spec) -> float | None:
    """The mean of a valid spec (None for anything else: its errors are reported apart)."""
    if not isinstance(spec, dict) or not schema_validator("distribution").is_valid(copy.deepcopy(spec)):
        return None
    try:
        mean = _mean(spec)
    except (ValueError, TypeError, ArithmeticError):
        return None
    return mean if math.isfinite(mean) and mean > 0 else None


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


def _named_spec_errors(dists: dict, user_deps: dict) -> list[Err]:
    """The named distributions' and dependences' own errors."""
    errs: list[Err] = []
    for name, spec in dists.items():
        errs += _check_distribution(spec, ("distributions", name))
    for name, spec in user_deps.items():
        path = ("dependences", name)
        if name in BUILTIN_DEPENDENCES and spec != BUILTIN_DEPENDENCES[name]:
            errs.append(
                not_allowed(
                    path,
                    spec,
                    f"{format_value(BUILTIN_DEPENDENCES[name])} (a built-in name; "
                    f"choose another name for another dependence)",
                )
            )
        if isinstance(spec, dict) and spec.get("kind") == "sx":
            slowdown = spec.get("slowdown")
            if isinstance(slowdown, str) and slowdown not in dists:
                errs.append(
                    not_allowed(
                        path + ("slowdown",),
                        slowdown,
                        f"a distribution defined under distributions ({one_of(dists)}) "
                        f"or an inline distribution{did_you_mean(slowdown, dists)}",
                    )
                )
            elif isinstance(slowdown, dict):
                errs += _check_distribution(slowdown, path + ("slowdown",))
    return errs


def _grid_name_errors(grid: dict, dists: dict, deps: dict) -> list[Err]:
    """Grid values naming a distribution or a dependence that is not defined."""
    errs: list[Err] = []
    for axis, defined, where in (("distribution", dists, "distributions"), ("dependence", deps, "dependences")):
        values = grid.get(axis)
        if isinstance(values, list):
            for i, name in enumerate(values):
                if isinstance(name, str) and name not in defined:
                    errs.append(
                        not_allowed(
                            ("grid", axis, i),
                            name,
                            f"a name defined under {where}: {one_of(defined)}{did_you_mean(name, defined)}",
                        )
                    )
    return errs


def _duplicate_policy_errors(cfg: dict) -> list[Err]:
    """A policy given twice under policies."""
    errs: list[Err] = []
    policies = section(cfg, "policies")
    seen: dict[str, str] = {}
    for key in policies:
        if key in POLICIES or key in ALIASES:
            canon = canonical_policy(key)
            if canon in seen:
                errs.append(
                    Err(
                        ("policies", key),
                        f"policies.{key}: policy {canon} is given twice "
                        f"(as {seen[canon]} and {key}); expected one entry",
                    )
                )
            seen.setdefault(canon, key)
    return errs


def _pool_errors(grid: dict, system: dict) -> list[Err]:
    """Pools against N and r_slow."""
    errs: list[Err] = []
    Ns = _numbers_at(grid, "N")
    r_slow = _numbers_at(grid, "r_slow")
    pools = system.get("pools")
    speeds = system.get("speeds")
    if pools is None:
        slow = [r for r in r_slow if r < 1]
        for i, n in enumerate(Ns):
            if isinstance(n, int) and n % 2 == 1:
                if slow:
                    errs.append(
                        not_allowed(
                            ("grid", "N", i),
                            n,
                            f"an even N (two equal pools) while grid.r_slow has values < 1 "
                            f"({one_of(slow)}), or system.pools",
                        )
                    )
                elif speeds is not None:
                    errs.append(
                        not_allowed(
                            ("grid", "N", i),
                            n,
                            "an even N (two equal pools) when system.speeds is given, or system.pools",
                        )
                    )
    elif _numbers(pools) and len(pools) == 2:
        total = sum(pools)
        bad = [n for n in Ns if n != total]
        if bad:
            errs.append(
                Err(
                    ("system", "pools"),
                    f"system.pools: value {format_value(pools)} is not allowed: it sums "
                    f"to {total}, but grid.N has {one_of(bad)}; expected pool sizes summing to "
                    f"every N of the grid",
                )
            )
    return errs


def _queueing_errors(system: dict) -> list[Err]:
    """Central queueing with processor sharing."""
    errs: list[Err] = []
    # queueing and discipline: central queueing is one FCFS queue per pool (the
    # threshold paper's model); no central processor-sharing model is defined
    if system.get("queueing") == "central" and system.get("discipline") == "PS":
        errs.append(
            not_allowed(
                ("system", "queueing"),
                "central",
                "per_server when system.discipline is 'PS' (no central processor-sharing "
                "model is defined: a central pool queue is FCFS); or system.discipline "
                "'FCFS' with central queueing",
            )
        )
    return errs


def _type_errors(system: dict, types: dict) -> list[Err]:
    """The job types' probabilities, speeds and belief."""
    errs: list[Err] = []
    speeds = system.get("speeds")
    p = types.get("p")
    if _numbers(p) and p:
        errs += _check_probabilities(p, ("system", "types", "p"))
        if speeds is None and len(p) != 2:
            errs.append(
                not_allowed(
                    ("system", "types", "p"),
                    p,
                    "2 probabilities (two job types), unless system.speeds gives one column per type",
                )
            )
        if isinstance(speeds, list):
            for i, row in enumerate(speeds):
                if isinstance(row, list) and len(row) != len(p):
                    errs.append(
                        not_allowed(
                            ("system", "speeds", i),
                            row,
                            f"one speed per job type ({len(p)}, the length of system.types.p)",
                        )
                    )
    belief = types.get("belief")
    if isinstance(belief, list) and all(_numbers(row) for row in belief):
        J = len(p) if _numbers(p) else None
        if J is not None and (len(belief) != J or any(len(row) != J for row in belief)):
            errs.append(
                not_allowed(
                    ("system", "types", "belief"),
                    belief,
                    f"a number in [0, 1] or a {J} x {J} matrix p_(j->j*) (J = len(system.types.p))",
                )
            )
        else:
            for i, row in enumerate(belief):
                errs += _check_probabilities(row, ("system", "types", "belief", i))
    return errs


def _possible_cell_errors(grid: dict, system: dict) -> list[Err]:
    """A grid without any cell that can be evaluated."""
    errs: list[Err] = []
    Ns = _numbers_at(grid, "N")
    pools = system.get("pools")
    # at least one possible cell (cells with d > N, an odd N needing two pools, or a
    # d-of-N policy with central queueing are left NaN)
    names = grid.get("policy")
    queueings = (
        grid.get("system.queueing")
        if isinstance(grid.get("system.queueing"), list)
        else [system.get("queueing", "per_server")]
    )
    ds = grid.get("d")
    if (
        isinstance(names, list)
        and names
        and all(isinstance(x, str) and (x in POLICIES or x in ALIASES) for x in names)
        and _numbers(ds)
        and ds
        and Ns
    ):

        def possible(policy, d, n):
            spec = POLICIES[canonical_policy(policy)]
            if spec.uses_d and d > n:
                return False
            if spec.uses_d and "per_server" not in queueings:
                return False
            return not (spec.two_pools and pools is None and n % 2 == 1)

        if not any(possible(pol, d, n) for pol in names for d in ds for n in Ns):
            errs.append(
                Err(
                    ("grid",),
                    f"grid: no cell can be evaluated (policy {format_value(names)}, d {format_value(ds)}, "
                    f"N {format_value(Ns)}, system.queueing {format_value(queueings)}): every combination has "
                    f"d > N, needs two pools with an odd N, or is a d-of-N policy ({names_using_d()}) "
                    f"with central queueing; expected at least one possible cell",
                )
            )
    return errs


def _non_finite_errors(cfg: dict) -> list[Err]:
    """Values that are not finite numbers."""
    errs: list[Err] = []
    # NaN and infinities (the schema's bounds let NaN through), and integers beyond any
    # float (10**400 passes `minimum: 0` and overflows the first float() of the model)
    for path, value in _walk(cfg):
        if isinstance(value, float) and not math.isfinite(value):
            if math.isinf(value) and _infinity_allowed(path):
                continue
            errs.append(not_allowed(path, value, "a finite number"))
        elif _is_int(value) and abs(value) > sys.float_info.max:
            errs.append(not_allowed(path, value, "a finite number (this integer is beyond any float)"))
    return errs


def _semantic_errors(cfg: dict) -> list[Err]:
    """Every semantic error of ``cfg``, in the order of its sections."""
    errs: list[Err] = []
    grid = section(cfg, "grid")
    dists = section(cfg, "distributions")
    user_deps = section(cfg, "dependences")
    deps = {**BUILTIN_DEPENDENCES, **user_deps}
    system = section(cfg, "system")
    types = section(system, "types")

    errs += _named_spec_errors(dists, user_deps)
    errs += _grid_name_errors(grid, dists, deps)
    errs += _duplicate_policy_errors(cfg)
    errs += _pool_errors(grid, system)
    errs += _queueing_errors(system)
    errs += _type_errors(system, types)
    errs += _load_basis_errors(cfg, grid, system)
    errs += _possible_cell_errors(grid, system)
    errs += policy_errors(cfg, grid, dists, system)
    errs += _check_run_length(cfg)
    errs += _rate_errors(cfg, grid, dists, deps, system)
    errs += _non_finite_errors(cfg)
    return errs


def _slowdown_mean(dep, dists: dict) -> float | None:
    """E[S] of a dependence (1 without slowdowns; None when it is invalid)."""
    if not isinstance(dep, dict) or dep.get("kind") != "sx":
        return 1.0 if isinstance(dep, dict) else None
    slowdown = dep.get("slowdown")
    return _mean_or_none(dists.get(slowdown) if isinstance(slowdown, str) else slowdown)


def _slowest(grid: dict, system: dict) -> tuple[tuple, float] | None:
    """The key and value of the smallest speed (r_slow, or an entry of system.speeds)."""
    speeds = system.get("speeds")
    cells: list[tuple[tuple, float]]
    if isinstance(speeds, list) and all(_numbers(row) for row in speeds):
        cells = [(("system", "speeds", i, j), v) for i, row in enumerate(speeds) for j, v in enumerate(row) if v > 0]
    else:
        r_slow = _numbers_at(grid, "r_slow")
        cells = [(("grid", "r_slow", i), v) for i, v in enumerate(r_slow) if v > 0]
    return min(cells, key=lambda c: c[1]) if cells else None


def _in_range(x: float | None) -> TypeGuard[float]:
    return x is not None and SIZE_RANGE[0] <= x <= SIZE_RANGE[1]


def _rate(load, n: int, mean: float) -> float:
    try:
        return float(load) * n / mean
    except (OverflowError, ZeroDivisionError):
        return math.inf


def _rate_errors(cfg: dict, grid: dict, dists: dict, deps: dict, system: dict) -> list[Err]:
    """A replica's mean size E[X] E[S], its mean service time at the slowest speed and
    the arrival rate load x N / E[X] E[S] of every load must be in SIZE_RANGE: a law of
    mean 1e-320 made the rate infinite and the simulation's clock with it."""
    loads = _numbers_at(cfg, "load")
    Ns = [n for n in _numbers_at(grid, "N") if n > 0]
    names = (
        [n for n in grid.get("distribution", []) if isinstance(n, str)]
        if isinstance(grid.get("distribution"), list)
        else []
    )
    dep_names = list_at(grid, "dependence")
    lo, hi = SIZE_RANGE
    slowest = _slowest(grid, system)
    found: dict[tuple, Err] = {}
    for i, name in enumerate(names):
        x = _mean_or_none(dists.get(name))
        for j, dep in enumerate(dep_names):
            s = _slowdown_mean(deps.get(dep), dists) if isinstance(dep, str) else None
            if not (_in_range(x) and _in_range(s)):
                continue  # a law's own mean is its error (_check_distribution)
            m = x * s
            with_law = f"with grid.distribution[{i}] = {name!r} (mean {x!r})"
            if not lo <= m <= hi:
                text = f"a dependence whose replica mean E[X] E[S] is in {_range_text()} {with_law}; here {m!r}"
                found.setdefault(("grid", "dependence", j), not_allowed(("grid", "dependence", j), dep, text))
                continue
            if slowest is not None and not lo <= m / slowest[1] <= hi:
                text = f"a speed giving a mean service time in {_range_text()} {with_law}; here {m / slowest[1]!r}"
                found.setdefault(slowest[0], not_allowed(slowest[0], slowest[1], text))
            for k, load in enumerate(loads):
                if not (Ns and 0 < load <= sys.float_info.max):
                    continue  # a load <= 0 or beyond any float is the schema's or the walk's error
                rates = [_rate(load, n, m) for n in (min(Ns), max(Ns))]
                bad = [r for r in rates if not lo <= r <= hi]
                if bad:
                    text = (
                        f"a load whose arrival rate load x N / E[replica size] is in {_range_text()} {with_law}, "
                        f"N {one_of(sorted(set(Ns)))} and dependence {dep!r}; here {bad[0]!r}"
                    )
                    found.setdefault(("load", k), not_allowed(("load", k), load, text))
    return list(found.values())


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
        bad = [keep for keep in keeps if keep == "opt" or (isinstance(keep, int) and keep not in ks)]
        if bad:
            errs.append(
                not_allowed(
                    ("policies", name, "early"),
                    True,
                    f"false when keep is {format_value(bad[0])} (early: true is the alias "
                    f"keep = k; give keep or early, not both)",
                )
            )
    if "opt" in keeps and system.get("discipline", "FCFS") != "FCFS":
        errs.append(
            not_allowed(
                ("policies", name, "keep"),
                "opt",
                "an integer or d with system.discipline PS (keep: opt uses the FCFS estimates of section 8.2)",
            )
        )
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


POLICY_CHECKS = {"fork_join_errors": fork_join_errors}
"""``PolicySpec.config_errors`` -> its check ``(policy, cfg, grid, distributions,
system) -> errors``, run for every policy whose spec names one."""


def policy_errors(cfg: dict, grid: dict, dists: dict, system: dict) -> list[Err]:
    """The checks of every policy whose spec names one (``PolicySpec.config_errors``)."""
    errs: list[Err] = []
    for spec in POLICIES.values():
        if spec.config_errors:
            errs += POLICY_CHECKS[spec.config_errors](spec.name, cfg, grid, dists, system)
    return errs


LOAD_BASES: tuple[str, ...] = ("nominal", "redundancy")


def _warmup_errors(sim: dict) -> list[Err]:
    """The warm-up is discarded before the ``jobs`` measured (it is extra to them): one
    longer than the measured run spends most of each replication on jobs thrown away,
    and measures a few jobs of a system that has long forgotten its start."""
    jobs, warmup = sim.get("jobs"), sim.get("warmup")
    if not (_is_int(jobs) and _is_int(warmup)) or warmup <= jobs or jobs < 1:
        return []  # (jobs < 1 is the schema's error)
    return [
        not_allowed(
            ("simulation", "warmup"),
            warmup,
            f"an integer in [0, simulation.jobs = {jobs}] (the jobs discarded before the {jobs} measured ones "
            f"of each replication; a warm-up longer than the measured run is meaningless)",
        )
    ]


def _is_int(x) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_run_length(cfg: dict) -> list[Err]:
    """``simulation.max_jobs`` caps the sequential stopping of ``simulation.precision``:
    it means nothing without it, and must leave room for the first round; the warm-up
    must not be longer than the measured run."""
    sim = section(cfg, "simulation")
    errs = _warmup_errors(sim)
    return errs + _max_jobs_errors(sim)


def _max_jobs_errors(sim: dict) -> list[Err]:
    cap = sim.get("max_jobs")
    if cap is None or not isinstance(cap, int) or isinstance(cap, bool):
        return []
    if sim.get("precision") is None:
        return [
            not_allowed(
                ("simulation", "max_jobs"),
                cap,
                "no value without simulation.precision (it caps the jobs that "
                "sequential stopping may add); remove it or set simulation.precision",
            )
        ]
    jobs, reps = sim.get("jobs"), sim.get("replications")
    if isinstance(jobs, int) and isinstance(reps, int) and cap < jobs * reps:
        return [
            not_allowed(
                ("simulation", "max_jobs"),
                cap,
                f"an integer >= simulation.jobs x simulation.replications = "
                f"{jobs} x {reps} = {jobs * reps} (the first round)",
            )
        ]
    return []


def _load_basis_errors(cfg: dict, grid: dict, system: dict) -> list[Err]:
    """``load_basis: redundancy`` makes ``load`` the PS paper's rho~ = lambda d
    E[min(X_1..X_d)] / N (section 3.5), which only redundancy-d (CoC) on identical
    servers defines: another policy has no d replicas cancelled on completion, and
    with speeds != 1 the work of a replica is no longer its size."""
    basis = cfg.get("load_basis", "nominal")
    if basis != "redundancy":
        return []  # a value outside LOAD_BASES is the schema's error
    errs: list[Err] = []
    names = list_at(grid, "policy")
    other = [
        n
        for n in names
        if isinstance(n, str) and (n in POLICIES or n in ALIASES) and not POLICIES[canonical_policy(n)].redundancy_load
    ]
    defined = ", ".join(name for name, spec in POLICIES.items() if spec.redundancy_load)
    if other:
        errs.append(
            not_allowed(
                ("load_basis",),
                basis,
                f"'nominal' while grid.policy has {one_of(other)}: the redundancy "
                f"load rho~ = lambda d E[min(X_1..X_d)] / N is defined for {defined} only "
                f"(allowed: {one_of(LOAD_BASES)})",
            )
        )
    slow = [r for r in _numbers_at(grid, "r_slow") if r != 1]
    if slow or system.get("speeds") is not None:
        what = f"grid.r_slow has {one_of(slow)}" if slow else "system.speeds is given"
        errs.append(
            not_allowed(
                ("load_basis",),
                basis,
                f"'nominal' while {what}: rho~ needs identical unit-speed servers (r_slow = 1, no system.speeds)",
            )
        )
    return errs


def validate(cfg: dict) -> list[Err]:
    """Schema and semantic errors of ``cfg`` (whose defaults are filled in place)."""
    errs = schema_errors(cfg)
    try:
        sem = _semantic_errors(cfg)
    except Exception:
        if errs:  # the structure is broken in a way the schema errors already describe
            sem = []
        else:
            raise
    # a semantic error about a value whose parts the schema already refused is noise
    errs += [e for e in sem if not any(under(k.path, e.path) for k in errs)]
    return errs


def extra_axes(cfg: dict) -> tuple[list[tuple[Axis, list]], list[Err]]:
    """The dotted grid axes of ``cfg`` with their values, and the errors of those refused."""
    grid = cfg.get("grid")
    if not isinstance(grid, dict):
        return [], []
    axes: list[tuple[Axis, list]] = []
    errs: list[Err] = []
    by_name: dict[str, str] = {}
    policies = section(cfg, "policies")
    for key, values in grid.items():
        if not isinstance(key, str) or "." not in key:
            continue
        try:
            axis = axis_of(key, cfg)
        except ValueError as exc:
            errs.append(
                Err(("grid", key), f"{fmt_path(('grid', key))}: key {format_value(key, 60)} is not allowed: {exc}")
            )
            continue
        if axis.canonical in by_name:
            errs.append(
                Err(
                    ("grid", key),
                    f"grid.{key}: key {key!r} is not allowed: it is the same axis as "
                    f"grid.{by_name[axis.canonical]}; expected each axis once",
                )
            )
            continue
        by_name[axis.canonical] = key
        if axis.target[0] == "policies":
            own = None
            for name, params in policies.items():
                if (name in POLICIES or name in ALIASES) and canonical_policy(name) == axis.target[1]:
                    own = params.get(axis.target[2]) if isinstance(params, dict) else None
            if isinstance(own, list):
                errs.append(
                    Err(
                        ("grid", key),
                        f"grid.{key}: key {key!r} is not allowed: "
                        f"policies.{axis.target[1]}.{axis.target[2]} is a list too; expected the "
                        f"values in one place",
                    )
                )
                continue
        if isinstance(values, list) and values:
            axes.append((axis, values))
    return axes, errs


def under(path: tuple, target: tuple) -> bool:
    """Does ``path`` lie at or below ``target``?"""
    return tuple(path[: len(target)]) == tuple(target)
