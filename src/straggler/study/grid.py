"""The parameter grid of a study: axes, distinct cells, cell ids and random streams.

A *point* is one combination of axis values (the Cartesian product of ``grid``).
A *cell* is what is actually evaluated: the point with the axes that its policy
ignores dropped (``d`` for ``ZRed``, ``Rer.tau`` for ``CoC``, ``pareto.alpha`` for
an exponential cell), so that each distinct model is computed once and repeated
along the ignored axes when the study dataset is assembled.

Cell ids are built from the config's own literals (``1`` stays ``1``, ``0.3``
stays ``0.3``), and every cell's random stream is derived from the master seed
and its workload's id alone (:func:`workload_id`: the cell id without the policy,
``d`` and the policy's parameters), so adding a value to an axis changes no other
cell's result, and policies compared on one workload share its random numbers.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model.distributions import FAMILIES
from ..model.policies import ALIASES, POLICIES, canonical_policy, impossible_reason
from ..model.two_pools import ONE_POOL, central_queue_words, pool_sizes
from .config.axes import apply_override, axes_of, literal
from .config.keys import CANCEL_DELAY, SYSTEM_AXES

if TYPE_CHECKING:
    from .config.resolved import ResolvedConfig

NAMED_AXES: tuple[str, ...] = ("policy", "distribution", "dependence", "r_slow", "d", "N")

_SEP = "__"


@dataclass(frozen=True)
class Cell:
    """One distinct model to evaluate."""

    id: str
    coords: tuple[tuple[str, object], ...]
    """(axis, value) for the axes this cell depends on, in axis order."""

    def __getitem__(self, axis: str):
        return dict(self.coords)[axis]

    def get(self, axis: str, default=None):
        """The cell's value on ``axis``, or ``default`` if the cell does not depend on
        it."""
        return dict(self.coords).get(axis, default)

    @property
    def policy(self) -> str:
        """The cell's canonical policy name."""
        return self["policy"]


class UnknownCell(KeyError):
    """A cell id that is not one of a grid's cells (a KeyError, as a lookup of
    :attr:`Grid.cells` would raise). Its message names a few of the cells and the
    closest id; :attr:`closest` is that id or None, :attr:`count` how many cells the
    grid has."""

    def __init__(self, cell_id: str, known: list[str]):
        import difflib

        self.cell_id = cell_id
        self.count = len(known)
        close = difflib.get_close_matches(cell_id, known, n=1)
        self.closest: str | None = close[0] if close else None
        self.examples = known[:3]
        hint = f"did you mean {self.closest!r}?" if self.closest else f"e.g. {', '.join(self.examples)}"
        super().__init__(
            f"cell {cell_id!r} is not in this study's grid; expected one of its {self.count} cells, {hint}"
        )

    def __str__(self) -> str:  # a KeyError's str is the repr of its message
        return str(self.args[0])


@dataclass
class Grid:
    """A study's grid: its axes, its distinct cells, and which point is which cell (or
    impossible, and why)."""

    axes: dict[str, list]
    """Axis name -> values (config literals), in dataset dimension order."""
    cells: dict[str, Cell]
    """Distinct cells by id, in first-seen order."""
    point_cells: dict[tuple, str | None]
    """Point (tuple of values in axis order) -> cell id, or None if impossible."""
    impossible: dict[tuple, str] = field(default_factory=dict)
    """Point -> reason it cannot be evaluated (left NaN in the dataset): d > N, k > d,
    a pool policy with an odd N or ``system.pools: 1``, a d-of-N policy (``uses_d`` in the registry) with
    central queueing, central queueing with PS (only when both are swept)."""

    def cell(self, cell_id: str) -> Cell:
        """The cell with this id, or :class:`UnknownCell`."""
        try:
            return self.cells[cell_id]
        except KeyError:
            raise UnknownCell(cell_id, list(self.cells)) from None


def _axis_applies(axis: str, point: dict, resolved: ResolvedConfig) -> bool:
    """Does the model at ``point`` depend on ``axis``?"""
    policy = point["policy"]
    spec = POLICIES[policy]
    if axis in ("policy", "distribution", "dependence", "r_slow", "N"):
        return True
    if axis == "d":
        return spec.uses_d
    if axis == CANCEL_DELAY:  # a policy that cancels nothing is the same system at every delay
        return spec.cancels
    if "." in axis:
        head = axis.split(".", 1)[0]
        if head in POLICIES or head in ALIASES:
            return canonical_policy(head) == policy
        if head in resolved.distributions:
            if head == point["distribution"]:
                return True
            dep = resolved.dependences.get(point["dependence"], {})
            return isinstance(dep, dict) and dep.get("slowdown") == head
        if head in resolved.dependences:  # a mixture's identical
            return head == point["dependence"] and not spec.one_copy_served
        return True  # a system parameter (types.p1, types.belief, ...)
    # a policy parameter list axis such as ``tau``
    value = resolved.policies.get(policy, {}).get(axis)
    return isinstance(value, list)


def _policy_param(point: dict, resolved: ResolvedConfig, name: str, default):
    """The point's policy's parameter: its ``<policy>.<name>`` axis, a list-valued
    parameter's own axis ``<name>``, or the config's value."""
    policy = point["policy"]
    if f"{policy}.{name}" in point:
        return point[f"{policy}.{name}"]
    value = resolved.policies.get(policy, {}).get(name, default)
    if isinstance(value, list):
        return point.get(name, value[0])
    return value


def _impossible_reason(point: dict, resolved: ResolvedConfig) -> str | None:
    policy = point["policy"]
    spec = POLICIES[policy]
    N = point["N"]
    if spec.uses_d and point["d"] > N:
        return f"d = {point['d']} > N = {N}"
    params = {name: _policy_param(point, resolved, name, default) for name, default in spec.parameters.items()}
    reason = impossible_reason(policy, params, point["d"])
    if reason is not None:
        return reason
    if spec.two_pools and pool_sizes(resolved.system.pools, N) is None:
        if resolved.system.pools == ONE_POOL:
            return f"{policy} needs two pools and system.pools is {ONE_POOL} (one pool of N = {N} servers)"
        return f"{policy} needs two pools and N = {N} is odd (set system.pools)"
    dependence = resolved.dependences.get(point["dependence"], {})
    work = dependence.get("work") if isinstance(dependence, dict) else None
    if work is not None and point["distribution"] != work:
        return (
            f"the dependence {point['dependence']} is evaluated with the distribution {work} only "
            f"(its work: dependences.{point['dependence']}.work)"
        )
    system = resolved.system
    queueing = point.get("system.queueing", system.queueing)
    discipline = point.get("system.discipline", system.discipline)
    if queueing == "central":
        if spec.uses_d:
            return (
                f"{policy} picks d of the N servers, so it has no central form "
                f"(system.queueing = central is one queue per pool); use per_server"
            )
        if discipline == "PS":  # both swept (a fixed pair is a config error)
            return (
                "system.queueing = central with system.discipline = PS: no central "
                "processor-sharing model is defined (central queues are FCFS)"
            )
    for axis, value in point.items():
        own = resolved.policies.get(policy, {}).get(axis)
        if isinstance(own, list) and value not in own:
            return f"{axis} = {value!r} is not among {policy}'s values {own}"
    return None


def central_queues(resolved: ResolvedConfig, grid: Grid) -> str | None:
    """How many central queues a study has, of how many servers, in one line (None when
    no cell has central queueing): ``queueing: central, 1 queue of 10 servers``, or one
    clause per N. With the default pools an even N is two queues of N/2, which a reader
    comparing with M/M/N would not guess, so on identical servers the line then says how
    to get one queue."""
    queueings = grid.axes.get("system.queueing", [resolved.system.queueing])
    if "central" not in queueings:
        return None
    pools = resolved.system.pools
    Ns = [int(n) for n in grid.axes["N"]]
    words = [central_queue_words(pools, N) for N in Ns]
    text = words[0] if len(Ns) == 1 else "; ".join(f"N = {N}: {w}" for N, w in zip(Ns, words))
    identical = all(float(r) == 1.0 for r in grid.axes["r_slow"]) and resolved.system.speeds is None
    if pools is None and identical and any(pool_sizes(pools, N) is not None for N in Ns):
        text += f" (system.pools: {ONE_POOL} makes one queue of N servers)"
    return f"queueing: central, {text}"


def cell_id(coords) -> str:
    """The id of the cell with ``coords``: ``axis=value`` pairs in axis order, the
    config's literals kept."""
    return _SEP.join(f"{axis}={literal(value)}" for axis, value in coords)


def build_grid(resolved: ResolvedConfig) -> Grid:
    """Expand the resolved config's grid into points and distinct cells."""
    axes = axes_of(resolved)
    names = list(axes)
    cells: dict[str, Cell] = {}
    point_cells: dict[tuple, str | None] = {}
    impossible: dict[tuple, str] = {}
    for values in itertools.product(*axes.values()):
        point = dict(zip(names, values))
        reason = _impossible_reason(point, resolved)
        if reason is not None:
            point_cells[values] = None
            impossible[values] = reason
            continue
        coords = tuple((a, v) for a, v in point.items() if _axis_applies(a, point, resolved))
        cid = cell_id(coords)
        cells.setdefault(cid, Cell(cid, coords))
        point_cells[values] = cid
    return Grid(axes=axes, cells=cells, point_cells=point_cells, impossible=impossible)


def cell_config(resolved: ResolvedConfig, cell: Cell) -> ResolvedConfig:
    """The resolved config with the cell's extra-axis values applied."""
    cfg = resolved
    for axis, value in cell.coords:
        if "." in axis or axis in SYSTEM_AXES:
            cfg = apply_override(cfg, axis, value)
        elif axis not in NAMED_AXES:  # a policy parameter list axis such as tau
            cfg = apply_override(cfg, f"{cell.policy}.{axis}", value)
    return cfg


def is_policy_axis(axis: str) -> bool:
    """True for ``d`` and a policy's parameter axis (``Rer.tau``, ``tau``): the axes
    that describe the policy, over which a recommendation chooses."""
    return axis != "policy" and _policy_axis(axis)


def policy_uses_axis(policy: str, axis: str, resolved: ResolvedConfig) -> bool:
    """Does ``policy``'s model depend on the policy ``axis`` (ZRed does not on ``d``)?"""
    return _axis_applies(axis, {"policy": policy}, resolved)


def _policy_axis(axis: str) -> bool:
    """True for the axes that describe the policy rather than the workload: ``policy``,
    ``d``, a policy's parameter (``Rer.tau``, or a list axis such as ``tau``)."""
    if axis in ("policy", "d"):
        return True
    if "." in axis:
        head = axis.split(".", 1)[0]
        return head in POLICIES or head in ALIASES
    return axis not in NAMED_AXES and axis not in SYSTEM_AXES


def settings(grid: Grid) -> list[dict]:
    """The settings of a grid that have a cell: its points without the policy's axes
    (``policy``, ``d``, a policy's parameter), in grid order. A study with
    ``decision.resolution`` searches each one in a job of its own (:mod:`.frontier`)."""
    out, seen = [], set()
    for point, cid in grid.point_cells.items():
        if cid is None:
            continue
        setting = {a: v for a, v in zip(grid.axes, point) if not _policy_axis(a)}
        key = setting_key(setting)
        if key not in seen:
            seen.add(key)
            out.append(setting)
    return out


def setting_key(setting: dict) -> str:
    """A short name of a setting that a rerun gives again (a file name)."""
    import json

    text = json.dumps({k: literal(v) for k, v in setting.items()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def workload_id(cell: Cell) -> str:
    """What identifies the cell's workload: its id without the policy, ``d``, the
    policy's parameters and the cancellation delay (the system's, not the workload's).
    Cells of one workload draw their arrivals, types and job sizes from the same streams
    (common random numbers: :mod:`.simulation.streams`), so the difference of two
    policies' results gets a paired confidence interval, and so does a policy's at two
    cancellation delays. A mixture dependence's ``identical`` axis (``<name>.identical``)
    is left out too: a job keeps its arrival and its copies' draws whatever the probability
    c that they are one draw, so the answers at two values of c differ only by c."""
    coords = dict(cell.coords)
    strength = f"{coords.get('dependence')}.identical"
    return cell_id((a, v) for a, v in cell.coords if not _policy_axis(a) and a not in (CANCEL_DELAY, strength))


def seed_sequence(master_seed: int, cid: str):
    """A random stream: a function of the master seed and the id (a cell's
    :func:`workload_id`) only."""
    import numpy as np

    digest = hashlib.sha256(cid.encode()).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
    return np.random.SeedSequence(entropy=master_seed, spawn_key=words)


def cell_spec(resolved: ResolvedConfig, cell: Cell, shared: bool = False) -> dict:
    """A self-contained resolved config for one cell.

    Its grid holds only the cell's own values (axes the cell ignores are dropped or
    pinned), and it keeps only the distributions, dependence and policy parameters
    the cell uses: a change reruns exactly the cells it concerns. With ``shared``
    the parts that need no change are the resolved config's own objects, not copies
    (fast, for hashing: the caller must not modify the result).
    """
    import copy

    dup = (lambda x: x) if shared else copy.deepcopy
    coords = dict(cell.coords)
    data = resolved.shared_dict
    # the operator's decision weighs the results and changes none: a new SLO reruns no cell
    spec = {
        k: dup(v) for k, v in data.items() if k not in ("grid", "policies", "distributions", "dependences", "decision")
    }
    dep_name = coords["dependence"]
    dep = dup(data["dependences"][dep_name])
    used_distributions: set[str] = {str(coords["distribution"])}
    if isinstance(dep, dict) and isinstance(dep.get("slowdown"), str):
        used_distributions.add(dep["slowdown"])
    spec["distributions"] = {
        name: _law_of_cell(data["distributions"][name], dup) for name in sorted(used_distributions)
    }
    spec["dependences"] = {dep_name: dep}
    policy_params = dict(dup(data["policies"].get(cell.policy, {})))
    grid: dict = {}
    for axis in NAMED_AXES:
        # an ignored named axis (d for ZRed) is pinned to 1, which is never impossible
        grid[axis] = [coords.get(axis, 1)]
    for axis, value in coords.items():
        if axis in NAMED_AXES:
            continue
        if "." in axis or axis in SYSTEM_AXES:
            grid[axis] = [value]
        else:  # a policy parameter list axis such as tau
            policy_params[axis] = [value]
    spec["grid"] = grid
    spec["policies"] = {cell.policy: policy_params}
    return spec


def _law_of_cell(spec, dup):
    """A law's entry in a cell's spec: without the keys that only shape the grid (a
    trace's ``bootstrap``: the cell has its own resample, and a larger B reruns none of
    the cells it had)."""
    family = FAMILIES.get(spec.get("family")) if isinstance(spec, dict) else None
    drop = getattr(family, "grid_only", ()) if family is not None else ()
    if not any(key in spec for key in drop):
        return dup(spec)
    return {k: dup(v) for k, v in spec.items() if k not in drop}


NON_RESULT_KEYS = ("execution", "scale")
"""Config keys that never change a number (how work is cut, which scale was merged):
left out of cell specs and of the dataset's config text."""


def result_config(resolved: ResolvedConfig) -> ResolvedConfig:
    """The resolved config without the keys that never change a number."""
    return resolved.without(*NON_RESULT_KEYS)


def result_spec(resolved: ResolvedConfig, cell: Cell, shared: bool = False) -> dict:
    """A cell's self-contained config (:func:`cell_spec`) without the keys that never
    change a number."""
    return {k: v for k, v in cell_spec(resolved, cell, shared).items() if k not in NON_RESULT_KEYS}
