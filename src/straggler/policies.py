"""Canonical policy names, their aliases and parameters (DESIGN.md, "Policies").

Everything that needs to know which policies exist imports this table, so a new
policy is added in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PolicySpec:
    name: str
    description: str
    aliases: tuple[str, ...] = ()
    uses_d: bool = False
    """True if the policy replicates to ``d`` servers (the grid axis ``d`` matters)."""
    two_pools: bool = True
    """True if the policy chooses a pool first (needs two pools)."""
    parameters: dict = field(default_factory=dict)
    """Parameter name -> default value."""
    analytic_only: bool = False
    monotone: str = ""
    """Why the set of stable loads is an interval (0, lambda*): the verdict is then
    monotone in the load, and the loads above an unstable one are not simulated
    (:func:`stability_monotone`). Empty: not known to be monotone."""


_FIXED_WORK = ("the work a job brings to each pool does not depend on the arrival rate (the "
               "threshold and assignment are chosen once per cell), so the load condition "
               "lambda E[B_i] / n_i < 1 (threshold paper, Props. 1-2) holds on an interval of "
               "loads")
_PLACEMENT = ("placement and cancellation do not depend on the arrival rate, and the stability "
              "conditions the papers give or conjecture are lambda < lambda* (PS paper, "
              "fork-join paper, speculation paper)")


POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in [
        PolicySpec("ZRed", "one copy, dispatched at random", aliases=("RND",), two_pools=False,
                   monotone="random dispatch with fixed probabilities: every server (or pool "
                            "queue) is an M/G/1 (M/G/c) queue whose load grows with lambda"),
        PolicySpec("FRed", "a copy in every pool at arrival, cancel on complete",
                   monotone=_FIXED_WORK),
        PolicySpec("Rer", "after tau of processing, kill and restart in the other pool",
                   aliases=("SLB",), parameters={"tau": "opt", "resume": False},
                   monotone=_FIXED_WORK),
        PolicySpec("Rep", "after tau of processing, replicate in the other pool",
                   parameters={"tau": "opt"}, monotone=_FIXED_WORK),
        PolicySpec("KT", "type-aware optimal assignment, no redundancy",
                   monotone="a fixed assignment: every server is an M/G/1 queue whose load "
                            "grows with lambda"),
        PolicySpec("KS", "size-aware thresholds", analytic_only=True),
        PolicySpec("CoC", "d copies, cancel the rest on first completion",
                   aliases=("Red", "redundancy-d"), uses_d=True, two_pools=False,
                   parameters={"ps_bound": None}, monotone=_PLACEMENT),
        PolicySpec("CoS", "d copies, cancel the rest when the first starts",
                   aliases=("LLW",), uses_d=True, two_pools=False, monotone=_PLACEMENT),
        PolicySpec("RIQ", "copies to the idle servers among d sampled", uses_d=True,
                   two_pools=False, monotone=_PLACEMENT),
        PolicySpec("FJ", "k-of-d fork-join with cancellation", uses_d=True,
                   two_pools=False,
                   parameters={"k": 1, "early": False, "keep": "d", "split": "none",
                               "cost_limit": float("inf")}, monotone=_PLACEMENT),
    ]
}

ALIASES: dict[str, str] = {
    alias: spec.name for spec in POLICIES.values() for alias in spec.aliases
}


def canonical_policy(name: str) -> str:
    """Map a policy name or alias to its canonical name; raise KeyError if unknown."""
    if name in POLICIES:
        return name
    if name in ALIASES:
        return ALIASES[name]
    raise KeyError(name)


def stability_monotone(policy: str, params: dict | None = None) -> str:
    """Why the verdict of ``policy`` with ``params`` is monotone in the load, or ""
    when it is not known to be: FJ with ``keep: opt`` runs a different system at
    each load (the strategy's kept tasks depend on the arrival rate)."""
    params = params or {}
    if policy == "FJ" and params.get("keep") == "opt":
        return ""
    return POLICIES[policy].monotone


def all_policy_names() -> list[str]:
    """Canonical names and aliases, for error messages and the schema."""
    return sorted(POLICIES) + sorted(ALIASES)
