"""Semantic checks of a config that a schema cannot express (see the package docstring,
step 2), one module per section: the size laws and dependences (:mod:`.distributions`),
the grid (:mod:`.grid`), the servers (:mod:`.system`), the policies' own checks
(:mod:`.policies`), the run length (:mod:`.run_length`), the loads and arrival rates
(:mod:`.rates`), the operator's SLO (:mod:`.decision`), and what every value must be
(:mod:`.values`).
:func:`validate` runs the schema, then these in the order of the sections."""

from __future__ import annotations

from ..errors import Err
from ..keys import BUILTIN_DEPENDENCES
from ..nodes import section
from ..schema import schema_errors
from .decision import decision_errors
from .distributions import named_spec_errors, pairing_errors, pairs_cell_errors, per_type_errors, unit_errors
from .grid import duplicate_policy_errors, extra_axes, grid_name_errors
from .policies import POLICY_CHECKS, policy_errors
from .rates import rate_errors
from .run_length import check_run_length
from .system import (
    cancel_delay_errors,
    load_basis_errors,
    pool_errors,
    possible_cell_errors,
    queueing_errors,
    type_errors,
)
from .values import non_finite_errors

__all__ = ["POLICY_CHECKS", "extra_axes", "under", "validate"]


def _semantic_errors(cfg: dict) -> list[Err]:
    """Every semantic error of ``cfg``, in the order of its sections."""
    errs: list[Err] = []
    grid = section(cfg, "grid")
    dists = section(cfg, "distributions")
    user_deps = section(cfg, "dependences")
    deps = {**BUILTIN_DEPENDENCES, **user_deps}
    system = section(cfg, "system")
    types = section(system, "types")

    errs += named_spec_errors(dists, user_deps)
    errs += unit_errors(dists)
    errs += per_type_errors(cfg, dists, user_deps, types)
    errs += grid_name_errors(grid, dists, deps)
    errs += pairs_cell_errors(grid, dists, user_deps)
    errs += pairing_errors(grid, user_deps)
    errs += duplicate_policy_errors(cfg)
    errs += pool_errors(grid, system)
    errs += queueing_errors(system)
    errs += cancel_delay_errors(cfg, grid, system)
    errs += type_errors(system, types)
    errs += load_basis_errors(cfg, grid, system)
    errs += possible_cell_errors(grid, system)
    errs += policy_errors(cfg, grid, dists, system)
    errs += check_run_length(cfg)
    errs += rate_errors(cfg, grid, dists, deps, system)
    errs += decision_errors(cfg)
    errs += non_finite_errors(cfg)
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


def under(path: tuple, target: tuple) -> bool:
    """Does ``path`` lie at or below ``target``?"""
    return tuple(path[: len(target)]) == tuple(target)
