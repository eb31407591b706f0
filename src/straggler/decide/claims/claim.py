"""A paper's claim: what it says, where, how it is tested, and the verdict of the test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import xarray as xr

HOLDS, FAILS, NOT_TESTED = "holds", "fails", "not tested"
CLAIM_VERDICTS = (HOLDS, FAILS, NOT_TESTED)
"""A claim's verdicts (not the simulation's stability verdicts, :data:`straggler.engines.simulation.VERDICTS`)."""


class NotTested(Exception):
    """The dataset lacks what the claim's test needs (the message says what)."""


@dataclass(frozen=True)
class Outcome:
    verdict: str
    evidence: str


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    source: str
    statement: str
    test: str
    check: Callable[[xr.Dataset], Outcome]
    studies: tuple[str, ...] = ()
    """The keys of the studies that check the claim (:func:`~straggler.decide.claims.registry.study_key`)."""


def outcome(ok: bool, evidence: str) -> Outcome:
    return Outcome(HOLDS if ok else FAILS, evidence)


def joined(outs: list[Outcome]) -> Outcome:
    """One outcome of several: holds when every one holds, the evidence joined."""
    return Outcome(HOLDS if all(o.verdict == HOLDS for o in outs) else FAILS, "; ".join(o.evidence for o in outs))


def all_of(*checks):
    """A check that runs ``checks`` and joins their outcomes (:func:`joined`)."""

    def check(ds):
        return joined([f(ds) for f in checks])

    return check
