"""Expectations over one size law that the pair functionals are built from: its
atoms, survival and density, ``E[h(X)]``, tail integrals, and the checks of their
arguments."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...common.numerics import RELATIVE_1E10, integrate_split
from ..distributions import Distribution


def _atom_masses(X: Distribution) -> tuple[np.ndarray, np.ndarray]:
    """Atoms of ``X`` and their masses (``X.point_masses()``)."""
    pm = [(float(v), float(q)) for v, q in X.point_masses() if q > 0]
    if not pm:
        return np.empty(0), np.empty(0)
    v, m = zip(*sorted(pm))
    return np.asarray(v, dtype=float), np.asarray(m, dtype=float)


def atomic_law(X: Distribution) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, probabilities)`` when ``X`` is purely atomic, else ``None``."""
    v, m = _atom_masses(X)
    if v.size and abs(m.sum() - 1.0) < 1e-9:
        return v, m / m.sum()
    return None


def survival(X: Distribution, x: float) -> float:
    """Scalar ``P(X > x)`` (the families' fast scalar path when they have one)."""
    f = getattr(X, "_sf_scalar", None)
    return float(f(x)) if f is not None else float(X.sf(x))


def _density(X: Distribution) -> Callable[[float], float]:
    """Scalar density of the absolutely continuous part of ``X``."""
    f = getattr(X, "_pdf_scalar", None)
    if f is not None:
        return lambda x: float(f(x))
    return lambda x: float(X.pdf(x))


def expect(X: Distribution, h: Callable[[float], float], points=()) -> float:
    """``E[h(X)]``: a sum over the atoms of ``X`` plus a quadrature of ``h`` against
    the density of its continuous part, split at ``points`` (kinks of ``h``)."""
    v, m = _atom_masses(X)
    total = float(sum(mk * h(float(vk)) for vk, mk in zip(v, m)))
    if v.size and m.sum() >= 1.0 - 1e-12:
        return total
    pdf = _density(X)
    lo, hi = X.support()

    def integrand(x: float) -> float:
        p = pdf(x)
        return h(x) * p if p > 0.0 else 0.0

    return total + integrate_split(integrand, lo, hi, RELATIVE_1E10, tuple(points) + tuple(v), scale=X.mean())


def tail_integral1(X: Distribution, c: float) -> float:
    """``int_c^inf P(X > u) du = E[(X - c)^+]`` for ``c >= 0``."""
    if math.isinf(c):
        return 0.0
    return max(X.partial_mean(c) - c * survival(X, c), 0.0)


def tail_integral2(X: Distribution, c: float) -> float:
    """``int_c^inf 2u P(X > u) du = E[(X^2 - c^2)^+]`` for ``c >= 0`` (``inf`` if E[X^2] is)."""
    if math.isinf(c):
        return 0.0
    p2 = X.partial_second_moment(c)
    if math.isinf(p2):
        return math.inf
    return max(p2 - c * c * survival(X, c), 0.0)


def check_threshold(t: float, name: str) -> float:
    """``t`` as a float, a threshold ``>= 0`` (``inf`` allowed); a ValueError naming ``name`` otherwise."""
    t = float(t)
    if math.isnan(t) or t < 0:
        raise ValueError(f"{name} must be >= 0 (inf allowed), got {t}")
    return t


def check_moment_order(m: int) -> int:
    """``m`` of ``k(m, y)``, which is 1 or 2; a ValueError otherwise."""
    if m not in (1, 2):
        raise ValueError(f"k(m, y) is defined for m = 1, 2; got m = {m!r}")
    return int(m)


def check_time_factor(a: float, name: str) -> float:
    """``a`` as a float, a time per unit size (finite, ``> 0``); a ValueError naming ``name`` otherwise."""
    a = float(a)
    if not (math.isfinite(a) and a > 0):
        raise ValueError(f"{name} (time per unit size, 1/speed) must be finite and > 0, got {a}")
    return a


def zero_safe_product(x: float, y: float) -> float:
    """``x * y`` with ``0 * inf = 0`` (an empty event carries no mass)."""
    return 0.0 if x == 0.0 or y == 0.0 else x * y
