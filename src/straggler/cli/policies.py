"""``straggler policies``: the policy glossary, read from the registry of policies
(:mod:`straggler.model.policies`) and written by :mod:`straggler.outputs.glossary`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .errors import Usage


def _policies(args) -> int:
    from ..model.policies import all_policy_names, canonical_policy
    from ..outputs.glossary import policy_text, summary_text
    from ..study.config.errors import did_you_mean

    if not args.names:
        print(summary_text(), end="")
        print("\n(straggler policies NAME ... prints a policy in full: what happens to a job, its parameters,")
        print("what the analysis knows, its papers)")
        return 0
    names = []
    for name in args.names:
        try:
            names.append(canonical_policy(name))
        except KeyError:
            raise Usage(
                f"no policy {name!r}; expected one of {', '.join(all_policy_names())}"
                + did_you_mean(name, all_policy_names())
            ) from None
    print("\n".join(policy_text(name) for name in names), end="")
    return 0


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command on the registry of policies: policies (``command(name, help, *examples)``
    adds one)."""
    from ..model.policies import ALIASES, POLICIES

    replicating = next(name for name, spec in POLICIES.items() if spec.uses_d)
    pooled = next(name for name, spec in POLICIES.items() if spec.two_pools)
    p = command(
        "policies",
        "the policy glossary: what each policy does to a job, its parameters, what the analysis knows",
        "straggler policies",
        f"straggler policies {replicating} {pooled}",
        f"straggler policies {next(iter(ALIASES))}",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="policies (names or aliases; default: a line for each)")
    p.set_defaults(func=_policies)
