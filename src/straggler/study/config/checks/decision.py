"""Checks of the ``decision`` section that its schema cannot state: an SLO is a target
on a quantile or a bound on the mean, never both, and a quantile needs the simulation."""

from __future__ import annotations

from ..errors import Err, not_allowed
from ..nodes import section


def decision_errors(cfg: dict) -> list[Err]:
    """The SLO's form, and what answering it needs."""
    if not isinstance(cfg.get("decision"), dict):
        return []
    errs = _resolution_errors(cfg)
    return errs or _slo_errors(cfg)


def _resolution_errors(cfg: dict) -> list[Err]:
    """Located frontiers are searched by simulation: a resolution needs it."""
    decision = section(cfg, "decision")
    evaluate = cfg.get("evaluate")
    if "resolution" in decision and isinstance(evaluate, list) and "simulation" not in evaluate:
        return [
            not_allowed(
                ("evaluate",),
                evaluate,
                "a list with simulation: decision.resolution locates frontiers with simulated probes "
                "between the grid's loads (or remove decision.resolution)",
            )
        ]
    return []


def _slo_errors(cfg: dict) -> list[Err]:
    slo = section(section(cfg, "decision"), "slo")
    if not slo and "slo" not in section(cfg, "decision"):
        return []
    path = ("decision", "slo")
    if "target" in slo and "mean" in slo:
        return [
            not_allowed(
                path,
                slo,
                "{quantile: q, target: t} (a quantile at most t) or {mean: t} (E[T] at most t), not both",
            )
        ]
    if "target" not in slo and "mean" not in slo:
        return [
            not_allowed(path, slo, "{quantile: q, target: t} (q defaults to 0.99) or {mean: t}: a target is missing")
        ]
    if "mean" in slo and "quantile" in slo:
        return [not_allowed((*path, "quantile"), slo["quantile"], "no quantile with mean (it bounds E[T]); remove it")]
    evaluate = cfg.get("evaluate")
    if "target" in slo and isinstance(evaluate, list) and "simulation" not in evaluate:
        return [
            not_allowed(
                ("evaluate",),
                evaluate,
                "a list with simulation: decision.slo bounds a response-time quantile, which only the "
                "simulation estimates (or state the SLO as {mean: t})",
            )
        ]
    return []
