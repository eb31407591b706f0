"""A cancelled copy that keeps its server: which analytic results hold with a cancellation delay.

``CellModel.cancel_delay`` (c below): a copy *in service* when it is cancelled keeps its
server c longer, and its cost counts it; a copy still waiting is removed at once. The
four papers cancel instantly (c = 0). The simulation's rule (``on_completion`` in
:mod:`straggler.engines.simulation.events`): a copy within a billionth of its end when the
winner finishes has finished with it (identical copies started together) and is not
charged; a copy cancelled on its start, or killed at a threshold, is.

For a policy that cancels (:attr:`straggler.model.policies.PolicySpec.cancels`) in a cell with
c > 0, each handler says which of its values hold there (:func:`vouch`): those it
carries (the paper's accounting with c added where its argument allows, e.g. the work a
job brings to a pool) and those c does not touch (a lower bound that only uses that
queueing adds; a necessary condition that counts one copy served in full per job). The
dispatcher (:func:`restrict`) sets every other value NaN, with a note, so that no bound
derived for instant cancellation is used where it may fail.

Also here: the counts of copies a policy may cancel in service (:func:`orphans`), and
the probabilities that one of two copies loses with work left (:func:`strict_losses`),
which the threshold paper's work per pool needs for Rep and FRed.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from ...model.cell_model import CellModel
from ...model.dependence import IdenticalPair, IIDPair, MixturePair, Pair, SXPair
from ...model.dependence.expectations import expect, survival
from ...model.distributions import Distribution, Exponential
from ...model.policies import POLICIES
from .notes import Time
from .result import AnalyticResult

VALUES = (
    "lambda_max",
    "lambda_sufficient",
    "cost",
    "cost_lower",
    "cost_upper",
    "latency_approx",
    "latency_lower",
    "latency_group",
)
"""The analytic values a cancellation delay may invalidate (``rho`` follows ``lambda_max``)."""

TIE_RTOL = 1e-9
"""Two copies whose ends lie within this relative distance finish together (the
simulation's ``DONE_TOLERANCE``): neither is charged the delay."""


def applies(model: CellModel) -> bool:
    """Does the cell's cancellation delay matter: a policy that cancels, and c > 0?"""
    return model.cancel_delay > 0.0 and model.policy in POLICIES and POLICIES[model.policy].cancels


def vouch(result: AnalyticResult, names=VALUES) -> AnalyticResult:
    """Mark ``names`` as holding at the cell's cancellation delay (carried or untouched)."""
    result.holds_with_cancel_delay.update((names,) if isinstance(names, str) else names)
    return result


def _present(result: AnalyticResult, name: str) -> bool:
    return bool(np.any(~np.isnan(np.atleast_1d(np.asarray(getattr(result, name), dtype=float)))))


def _drop(result: AnalyticResult, name: str) -> None:
    nan = np.full(len(result.loads), math.nan)
    if name in ("latency_approx", "latency_lower", "latency_group"):
        setattr(result, name, nan)
    else:
        setattr(result, name, math.nan)
    kinds = {"lambda_max": "lambda_max_kind", "cost": "cost_kind", "latency_approx": "latency_approx_kind"}
    kinds["latency_group"] = "latency_group_kind"
    if name in kinds:
        setattr(result, kinds[name], "")
    if name == "lambda_max":
        result.rho = nan.copy()


def restrict(model: CellModel, result: AnalyticResult) -> AnalyticResult:
    """Where the cancellation delay applies (:func:`applies`), set NaN every value the
    handler did not vouch for, with a note naming them (so that the intervals and the
    verdicts stop using them). A no-op otherwise: the result is unchanged, bit for bit."""
    if not applies(model):
        return result
    dropped = [name for name in VALUES if name not in result.holds_with_cancel_delay and _present(result, name)]
    for name in dropped:
        _drop(result, name)
    if dropped:
        result.add_note(
            "{names} NaN: derived for instant cancellation, and with cancel_delay = {c} a cancelled copy in "
            "service keeps its server, which the argument behind them does not allow for",
            about=tuple(dropped),
            names=", ".join(dropped) + (" is" if len(dropped) == 1 else " are"),
            c=Time(model.cancel_delay),
        )
    return result


def orphans(model: CellModel, d: int, k: int, choice: str) -> tuple[int, int]:
    """``(certain, possible)``: how many of a job's ``d`` copies are, for certain and at
    most, cancelled in service (each keeps its server ``cancel_delay``).

    ``choice="completion"`` (cancel when k finish: CoC, RIQ, FJ): at most the ``d - k``
    that do not finish, none for certain. ``choice="start"`` (CoS, FJ with ``early``):
    on PS every copy starts when it joins, so the ``d - k`` not kept are cancelled in
    service at once, for certain; on FCFS queues those that start at the same instant
    as the k-th kept one (idle servers at arrival) are, the later ones are dropped while
    waiting (the simulation's rule, :mod:`straggler.engines.simulation.fast`): at most ``d - k``,
    none for certain."""
    if choice == "start" and model.discipline == "PS":
        return d - k, d - k
    return 0, d - k


# ------------------------------------------------------------------ two copies racing


#: A law with more atoms than this is searched by bisection in :func:`mass_at` (a
#: trace's 20,000 atoms, scanned at each of the 20,000 atoms :func:`_ties` sums over,
#: took Hedge's analysis 90 s of CPU)
SCAN_ATOMS = 64
_SORTED_ATOMS: dict[int, tuple] = {}


def _sorted_atoms(masses: tuple) -> tuple[list[float], list[float]]:
    """The atoms ``masses`` (``point_masses()``) as sorted values and their masses, kept
    per tuple (a law returns the same tuple each call; the entry holds it, so its id is
    not reused while cached)."""
    hit = _SORTED_ATOMS.get(id(masses))
    if hit is not None and hit[0] is masses:
        return hit[1], hit[2]
    pairs = sorted(masses)
    values, weights = [v for v, _ in pairs], [q for _, q in pairs]
    if len(_SORTED_ATOMS) >= 16:
        _SORTED_ATOMS.clear()
    _SORTED_ATOMS[id(masses)] = (masses, values, weights)
    return values, weights


def mass_at(X: Distribution, z: float) -> float:
    """``P(X = z)`` (within :data:`TIE_RTOL`): the atoms of ``X`` at ``z``.

    A law with many atoms: only those within ``2 TIE_RTOL |z| / (1 - TIE_RTOL)`` of z can
    pass the test (``|v - z| <= r max(|v|, |z|)`` gives ``|v - z| <= r |z| / (1 - r)``),
    found by bisection, then tested as in the scan; ``fsum`` is exactly rounded, so the
    sum is the scan's, bit for bit."""
    masses = X.point_masses()
    if len(masses) <= SCAN_ATOMS or not math.isfinite(z):
        return math.fsum(q for v, q in masses if q > 0 and abs(v - z) <= TIE_RTOL * max(abs(v), abs(z)))
    values, weights = _sorted_atoms(masses)
    w = 2.0 * TIE_RTOL * abs(z) / (1.0 - TIE_RTOL) + 5e-324
    lo = bisect.bisect_left(values, z - w)
    hi = bisect.bisect_right(values, z + w, lo)
    return math.fsum(
        weights[i]
        for i in range(lo, hi)
        if weights[i] > 0 and abs(values[i] - z) <= TIE_RTOL * max(abs(values[i]), abs(z))
    )


def prob_below(X: Distribution, z: float) -> float:
    """``P(X < z)`` (strict; an atom at ``z`` is not below it)."""
    if z <= 0.0:
        return 0.0
    if math.isinf(z):
        return 1.0
    return max(1.0 - prob_at_least(X, z), 0.0)


def prob_at_least(X: Distribution, z: float) -> float:
    """``P(X >= z)`` (an atom at ``z`` included, and every atom within :data:`TIE_RTOL`
    of it once: the survival is taken above the tolerance, where an atom just above z,
    counted at z, is not counted again)."""
    if z <= 0.0:
        return 1.0
    if math.isinf(z):
        return 0.0
    at = mass_at(X, z)
    if at == 0.0:
        return survival(X, z)
    return min(survival(X, z / (1.0 - TIE_RTOL)) + at, 1.0)


def strict_losses(P: Pair, y: float) -> tuple[float, float]:
    """``(P(A - y > B), P(B > A - y > 0))`` for the pair ``(A, B)`` of
    :mod:`straggler.model.dependence`: a copy ``A`` that has run ``y`` races a copy ``B``
    started then (Rep after its threshold ``y``; FRed at ``y = 0``). The first is the
    probability that ``A`` loses with work left, the second that ``B`` does (ties,
    within :data:`TIE_RTOL`, finish together: neither loses)."""
    if math.isinf(y):
        return 0.0, 0.0
    if isinstance(P, IdenticalPair):
        return _identical_losses(P.X, P.a, P.b, y)
    if isinstance(P, IIDPair):
        return _iid_losses(P.X, P.a, P.b, y)
    if isinstance(P, MixturePair):
        parts = [(w, strict_losses(c, y)) for w, c in P.components]
        return math.fsum(w * a for w, (a, _) in parts), math.fsum(w * b for w, (_, b) in parts)
    if isinstance(P, SXPair):
        given = lambda x: _iid_losses(P.S, P.a * x, P.b * x, y) if x > 0 else (0.0, 0.0)  # noqa: E731
        return expect(P.X, lambda x: given(x)[0]), expect(P.X, lambda x: given(x)[1])
    raise TypeError(f"unsupported pair {type(P).__name__}")


def _identical_losses(X: Distribution, a: float, b: float, y: float) -> tuple[float, float]:
    """Identical replicas, ``A = a X``, ``B = b X``: ``A`` loses iff ``(a - b) X > y``; ``B``
    iff ``X > y / a`` and ``(a - b) X < y``."""
    original = survival(X, y / (a - b)) if a > b else 0.0
    if a < b or (a == b and y > 0.0):
        replica = survival(X, y / a)
    elif a > b:
        replica = max(survival(X, y / a) - prob_at_least(X, y / (a - b)), 0.0)
    else:
        replica = 0.0
    return original, replica


def _iid_losses(X: Distribution, a: float, b: float, y: float) -> tuple[float, float]:
    """i.i.d. replicas: ``E[1{a X_1 > y} P(X_2 < (a X_1 - y) / b)]`` and
    ``E[1{a X_1 > y} P(X_2 > (a X_1 - y) / b)]``, one quadrature over ``X_1`` split at
    ``y / a`` and where ``(a x - y) / b`` meets an atom. Exponential ``X`` of mean m
    (memoryless: ``A - y`` given ``A > y`` is exponential of mean ``a m``):
    ``e^(-y / (a m)) (a, b) / (a + b)``."""
    if isinstance(X, Exponential):
        alive = math.exp(-y / (a * X.mean()))
        return alive * a / (a + b), alive * b / (a + b)
    points = (y / a, *(y / a + b * v / a for v in X.atoms()))

    def original(x: float) -> float:
        return prob_below(X, (a * x - y) / b) if a * x > y else 0.0

    def replica(x: float) -> float:
        return survival(X, (a * x - y) / b) if a * x > y else 0.0

    return expect(X, original, points), expect(X, replica, points)
