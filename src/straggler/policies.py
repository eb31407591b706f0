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


POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in [
        PolicySpec("ZRed", "one copy, dispatched at random", aliases=("RND",), two_pools=False),
        PolicySpec("FRed", "a copy in every pool at arrival, cancel on complete"),
        PolicySpec("Rer", "after tau of processing, kill and restart in the other pool",
                   aliases=("SLB",), parameters={"tau": "opt", "resume": False}),
        PolicySpec("Rep", "after tau of processing, replicate in the other pool",
                   parameters={"tau": "opt"}),
        PolicySpec("KT", "type-aware optimal assignment, no redundancy"),
        PolicySpec("KS", "size-aware thresholds", analytic_only=True),
        PolicySpec("CoC", "d copies, cancel the rest on first completion",
                   aliases=("Red", "redundancy-d"), uses_d=True, two_pools=False,
                   parameters={"ps_bound": None}),
        PolicySpec("CoS", "d copies, cancel the rest when the first starts",
                   aliases=("LLW",), uses_d=True, two_pools=False),
        PolicySpec("RIQ", "copies to the idle servers among d sampled", uses_d=True,
                   two_pools=False),
        PolicySpec("FJ", "k-of-d fork-join with cancellation", uses_d=True,
                   two_pools=False,
                   parameters={"k": 1, "early": False, "keep": "d", "split": "none",
                               "cost_limit": float("inf")}),
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


def all_policy_names() -> list[str]:
    """Canonical names and aliases, for error messages and the schema."""
    return sorted(POLICIES) + sorted(ALIASES)
