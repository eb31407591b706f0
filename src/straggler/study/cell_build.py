"""Building one grid cell's model from its resolved config.

Analysis and simulation both start from a :class:`~straggler.model.cell_model.CellModel`,
so that they describe the same system. The class lives below both
(:mod:`straggler.model.cell_model`); building it from a config needs the grid, which sits
above them, so it is built here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..model import dependence as dependence_mod
from ..model import distributions
from ..model.cell_model import CellModel
from ..model.policies import POLICIES
from ..model.two_pools import TwoPoolSystem, pool_sizes
from .grid import Cell, cell_config

if TYPE_CHECKING:
    from .config.resolved import ResolvedConfig


def named_distributions(cfg: ResolvedConfig) -> dict[str, distributions.Distribution]:
    """The config's job-size laws by name, as distributions."""
    return {name: distributions.from_spec(spec) for name, spec in cfg.distributions.items()}


def build_model(resolved: ResolvedConfig, cell: Cell) -> CellModel:
    """The model of ``cell``: its effective config (the grid's overrides applied) made
    into a :class:`~straggler.model.cell_model.CellModel`."""
    cfg = cell_config(resolved, cell)
    named = named_distributions(cfg)
    system_cfg = cfg.system
    types = system_cfg.types
    size = named[cell["distribution"]]
    if isinstance(size, distributions.ByType):  # this cell's types' probabilities (an axis may set them)
        size = size.with_types(types.p)
    dep_name = cell["dependence"]
    dep = dependence_mod.from_spec(cfg.dependences[dep_name], named)
    N = int(cell["N"])
    r_slow = float(cell["r_slow"])
    pools = pool_sizes(system_cfg.pools, N)
    if pools is None:
        # one pool of identical servers (system.pools: 1, or an odd N): single-pool
        # policies only (the grid ensures it), a central queue of N servers
        system = None
    else:
        system = TwoPoolSystem.affinity(
            N,
            r_slow,
            p=list(types.p),
            knowledge=types.knowledge,
            belief=types.belief,
            pools=pools,
            speeds=system_cfg.speeds,
        )
    params = dict(cfg.policies.get(cell.policy, {}))
    unit_mean = None
    spec = POLICIES[cell.policy]
    if spec.task_law:
        size, unit_mean = TASK_LAWS[spec.task_law](cell.policy, size, dep, params)
    if spec.parameter_values is not None:  # the defaults too: a default may be relative to the law
        params = spec.parameter_values(size, {**spec.parameters, **params}, dep)
    return CellModel(
        policy=cell.policy,
        params=params,
        size=size,
        dependence=dep,
        N=N,
        d=int(cell["d"]) if cell.get("d") is not None else None,
        r_slow=r_slow,
        system=system,
        discipline=system_cfg.discipline,
        queueing=system_cfg.queueing,
        loads=np.asarray(cfg.load, dtype=float),
        unit_mean=unit_mean,
        cancel_delay=float(system_cfg.cancel_delay or 0.0),
        load_basis=cfg.basis,
    )


def fork_join_tasks(policy: str, size: distributions.Distribution, dep, params: dict):
    """FJ's task law and load unit: with ``split: shift`` the job is split into k
    tasks (:func:`split_shift`) and the load unit stays the unsplit job's replica
    mean; otherwise the job's law and the replica's own unit (None)."""
    if params.get("split", "none") != "shift":
        return size, None
    unit_mean = dep.replica_mean(size)
    return split_shift(size, int(params.get("k", 1)), policy), unit_mean


def split_shift(size: distributions.Distribution, k: int, policy: str = "") -> distributions.ShiftedExponential:
    """The task law of a job split into ``k`` tasks: ``ShiftedExp(Delta / k, mu)``.

    Fork-join paper, section 7.2 (diversity-parallelism trade-off): ``Delta_k =
    Delta / k``, the exponential part unchanged: a larger k makes the tasks
    smaller (parallelism) but leaves fewer redundant tasks (diversity). ``policy``
    names the policy in the error messages.
    """
    what = f"{policy} split" if policy else "split"
    if not isinstance(size, distributions.ShiftedExponential):
        raise ValueError(f"{what}: shift needs a shifted_exponential law, got {size.family}")
    if k < 1:
        raise ValueError(f"{what}: shift needs k >= 1, got {k}")
    return distributions.ShiftedExponential(shift=size.shift / k, tail_mean=size.tail_mean)


TASK_LAWS = {"fork_join_tasks": fork_join_tasks}
"""``PolicySpec.task_law`` -> the function ``(policy, size, dependence, params) -> (task law,
load unit or None)`` that :func:`build_model` applies."""
