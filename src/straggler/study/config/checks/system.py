"""The servers: pools against N and r_slow, queueing, job types, the cells a grid can
make, and the load basis."""

from __future__ import annotations

from ....model.policies import ALIASES, POLICIES, canonical_policy, names_using_d, ps_bound_policies
from ....model.two_pools import ONE_POOL
from ..errors import Err, format_value, not_allowed, one_of
from ..nodes import list_at, section
from .distributions import check_probabilities
from .values import numbers, numbers_at


def pool_errors(grid: dict, system: dict) -> list[Err]:
    """Pools against N and r_slow."""
    errs: list[Err] = []
    Ns = numbers_at(grid, "N")
    r_slow = numbers_at(grid, "r_slow")
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
    elif pools == ONE_POOL:
        errs += _one_pool_errors(r_slow, speeds)
    elif numbers(pools) and len(pools) == 2:
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


def _one_pool_errors(r_slow: list, speeds) -> list[Err]:
    """``system.pools: 1`` (one pool of all N servers) on servers that are not identical:
    a job's speed depends on its pool, and one pool has no other."""
    slow = [r for r in r_slow if r != 1]
    if slow:
        return [
            not_allowed(
                ("system", "pools"),
                ONE_POOL,
                f"null or [n_1, n_2] (two pools) while grid.r_slow has {one_of(slow)}: one pool "
                f"(system.pools: {ONE_POOL}) is for identical servers (every r_slow 1)",
            )
        ]
    if speeds is not None:
        return [
            not_allowed(
                ("system", "pools"),
                ONE_POOL,
                f"null or [n_1, n_2] (two pools) when system.speeds is given (a speed per pool); "
                f"one pool (system.pools: {ONE_POOL}) is for identical servers",
            )
        ]
    return []


def queueing_errors(system: dict) -> list[Err]:
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


def type_errors(system: dict, types: dict) -> list[Err]:
    """The job types' probabilities, speeds and belief."""
    errs: list[Err] = []
    speeds = system.get("speeds")
    p = types.get("p")
    if numbers(p) and p:
        errs += check_probabilities(p, ("system", "types", "p"))
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
    if isinstance(belief, list) and all(numbers(row) for row in belief):
        J = len(p) if numbers(p) else None
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
                errs += check_probabilities(row, ("system", "types", "belief", i))
    return errs


def possible_cell_errors(grid: dict, system: dict) -> list[Err]:
    """A grid without any cell that can be evaluated."""
    errs: list[Err] = []
    Ns = numbers_at(grid, "N")
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
        and numbers(ds)
        and ds
        and Ns
    ):

        def possible(policy, d, n):
            spec = POLICIES[canonical_policy(policy)]
            if spec.uses_d and d > n:
                return False
            if spec.uses_d and "per_server" not in queueings:
                return False
            return not (spec.two_pools and (pools == ONE_POOL or (pools is None and n % 2 == 1)))

        if not any(possible(pol, d, n) for pol in names for d in ds for n in Ns):
            errs.append(
                Err(
                    ("grid",),
                    f"grid: no cell can be evaluated (policy {format_value(names)}, d {format_value(ds)}, "
                    f"N {format_value(Ns)}, system.queueing {format_value(queueings)}): every combination has "
                    f"d > N, needs two pools with an odd N or system.pools {ONE_POOL}, or is a d-of-N policy "
                    f"({names_using_d()}) "
                    f"with central queueing; expected at least one possible cell",
                )
            )
    return errs


LOAD_BASES: tuple[str, ...] = ("nominal", "redundancy")


def load_basis_errors(cfg: dict, grid: dict, system: dict) -> list[Err]:
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
    slow = [r for r in numbers_at(grid, "r_slow") if r != 1]
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


def cancel_delay_errors(cfg: dict, grid: dict, system: dict) -> list[Err]:
    """A cancellation delay with a PS bound system (CoC's ``ps_bound: lower`` or
    ``upper``): their service rates are set by the queue lengths of a job's servers,
    which a cancelled copy has left, so they have no cancellation delay. (A value of the
    grid's ``cancel_delay`` axis is checked as this key, applied: :mod:`straggler.study.config`.)"""
    value = system.get("cancel_delay")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return []
    listed = {canonical_policy(p) for p in list_at(grid, "policy") if p in POLICIES or p in ALIASES}
    params = section(cfg, "policies")
    for name in ps_bound_policies():
        if name not in listed:
            continue
        keys = [name, *POLICIES[name].aliases]
        chosen = [section(params, k).get("ps_bound") for k in keys]
        chosen += [v for k in keys for v in list_at(grid, f"{k}.ps_bound")]
        bound = [v for c in chosen for v in (c if isinstance(c, list) else [c]) if v in ("lower", "upper")]
        if bound:
            return [
                not_allowed(
                    ("system", "cancel_delay"),
                    value,
                    f"0 while {name}.ps_bound is {bound[0]}: the PS bound systems have no cancellation "
                    "delay (their rates are set by the queue lengths of a job's servers, which a "
                    "cancelled copy has left)",
                )
            ]
    return []
