"""What a question's study holds beyond the translation of its keys: the delays a hedged
policy is tried at when the question names none, the law of one copy that checks an S&X
answer at i.i.d. and identical copies, and the loads no contender of the question can carry
(refused before any work). Each is a default the question states in its study file, so
the user sees it (:mod:`straggler.decide.question`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..study.config.errors import format_value

if TYPE_CHECKING:
    from ..study.config.resolved import ResolvedConfig

HEDGE_DELAYS = ["p75", "p90", "p95", "p99"]
"""The delays a question tries Hedge at when it names none (``parameters: {Hedge: {delay:
...}}``): the workload's quantiles a hedging library is set to, and Finagle's rule (the
quantile 1 - b of a budget of b hedges or extra load per job) besides."""


def hedged_policies() -> list[str]:
    """The policies a client runs as hedged requests whose delay a question may leave out
    (client form ``hedged`` with a ``delay`` parameter)."""
    from ..model.policies import POLICIES
    from ..model.policies.spec import HEDGED

    return [name for name, spec in POLICIES.items() if spec.client_form == HEDGED and "delay" in spec.parameters]


def hedge_given(raw, name: str) -> dict:
    """The question's own ``parameters.<name>`` (a mapping, else {})."""
    params = raw.get("parameters")
    own = params.get(name) if isinstance(params, Mapping) else None
    return dict(own) if isinstance(own, Mapping) else {}


def hedge_delays(raw, policies) -> list[str] | None:
    """The delays a hedged policy is tried at when the question compares it and names none:
    the quantiles of :data:`HEDGE_DELAYS` and Finagle's rule, the quantile 1 - b of a budget
    of b (``budget: {hedges: b}`` or ``{extra_load: b}``, 0 < b < 1); None otherwise."""
    hedged = [p for p in hedged_policies() if isinstance(policies, list) and p in policies]
    if not hedged or any("delay" in hedge_given(raw, p) for p in hedged):
        return None
    levels = {float(d[1:]) for d in HEDGE_DELAYS}
    budget = raw.get("budget")
    if isinstance(budget, Mapping):
        for key in ("hedges", "extra_load"):
            b = budget.get(key)
            if isinstance(b, (int, float)) and not isinstance(b, bool) and 0 < b < 1:
                levels.add(round(100 * (1 - float(b)), 4))
    return [f"p{v:g}" for v in sorted(levels)]


def copy_law_of(workload: dict, spec: Mapping, run_dir: Path) -> dict | None:
    """One copy's law X S of the question's S&X (its unit kept), or None when X or S cannot
    be built (a problem the study's checks name)."""
    import copy as copying

    from ..model.dependence import from_spec as dependence_from_spec
    from ..model.dependence.sx import copy_law_spec
    from ..model.distributions import FAMILIES, from_spec

    law = copying.deepcopy(dict(workload))
    family = FAMILIES.get(law.get("family")) if isinstance(law.get("family"), str) else None
    key = family.data_file if family is not None else None
    if key and isinstance(law.get(key), str) and not Path(law[key]).is_absolute():
        law[key] = str(Path(run_dir) / law[key])
    try:
        X = from_spec(law)
        sx = dependence_from_spec({k: v for k, v in spec.items() if k not in ("work", "checks")})
        out = copy_law_spec(X, sx)  # type: ignore[arg-type]
    except (ValueError, TypeError, KeyError, ArithmeticError):
        return None
    if "unit" in workload:
        out["unit"] = workload["unit"]
    return out


def carried_load(resolved: ResolvedConfig) -> tuple[float, str] | None:
    """(the largest load a contender of the study may carry, which one): a bound that no
    policy of at most d copies can pass, whatever it does. A job holds a server at least
    as long as the fastest of its copies would take at full speed, so a contender of d
    copies is stable only if lambda E[min(X_1..X_d)] < N: its load, lambda E[one copy] / N,
    is below E[one copy] / E[min(X_1..X_d)] (1 without redundancy; d for i.i.d. exponential
    copies, where cancel on start may get near it). None where a cell's law or dependence
    gives no such mean, or servers faster than 1 (``system.speeds``) make the bound another."""
    from ..model.dependence.pairs import MeasuredPairs
    from ..model.dependence.replicas import mean_min_replicas
    from ..model.policies import POLICIES
    from ..study.cell_build import build_model
    from ..study.grid import build_grid

    if resolved.system.speeds is not None:
        return None
    best: tuple[float, str] | None = None
    for cell in build_grid(resolved).cells.values():
        model = build_model(resolved, cell)
        d = int(model.d) if POLICIES[cell.policy].uses_d and model.d is not None else 1
        try:
            if isinstance(model.dependence, MeasuredPairs):  # at most two copies: the faster of a pair
                values = model.dependence.values
                fastest = float(values.mean()) if d == 1 else float(values.min(axis=1).mean())
            else:
                fastest = float(mean_min_replicas(model.size, model.dependence, d))
            bound = float(model.load_mean) / fastest
        except (ValueError, ArithmeticError, TypeError):
            return None
        if not bound > 0:
            return None
        name = cell.policy + (f" d={d}" if POLICIES[cell.policy].uses_d else "")
        if best is None or bound > best[0]:
            best = (bound, name)
    return best


def load_problems(resolved: ResolvedConfig) -> list[str]:
    """The question's loads that no contender can carry (:func:`carried_load`), in one line
    that says what a load is and the value likely meant (a percent typed as a whole number)."""
    loads = [float(v) for v in resolved.load]
    if not loads or max(loads) < 1.0:
        return []
    carried = carried_load(resolved)
    if carried is None:
        return []
    bound, name = carried
    over = [v for v in loads if v >= bound]
    if not over:
        return []
    meant = [v / 100 for v in loads] if all(0 < v / 100 < 1 for v in loads) else None
    hint = (
        f"; did you mean {format_value([float(f'{v:.6g}') for v in meant])} ({', '.join(f'{v:g} %' for v in loads)})?"
        if meant
        else ""
    )
    return [
        f"load: value {format_value([float(f'{v:.6g}') if not float(v).is_integer() else int(v) for v in over])} "
        f"is not allowed: a load is the servers' busy share with one copy a job, lambda E[one copy] / N "
        f"(0.5: half busy), and no contender of this question can carry {over[0]:g} (the most is "
        f"{bound:.3g}, {name}: a job holds a server at least as long as its fastest copy){hint}"
    ]
