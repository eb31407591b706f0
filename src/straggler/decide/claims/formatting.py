"""How a claim's evidence writes its numbers."""

from __future__ import annotations

import math

import numpy as np


def fmt(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "nan"
    return ("inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:.4g}"


def pct(x: float) -> str:
    return "nan" if not np.isfinite(x) else f"{100 * x:.1f} %"
