"""The fitted family and the measured pairs replayed (``{kind: pairs}``) give the same
answer: E[T] and P99 of two copies (CoC d = 2, Hedge d = 2) and of one (ZRed) within the
two simulations' intervals, on the shipped S&X pairs, on S&X pairs drawn here from other laws,
and on the shipped mixture pairs (fitted as a mixture). The replay is exact for every policy
of at most two copies, so it is what a fit must agree with."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from straggler.model.dependence.families import fit_pairs, snippet
from straggler.study.config import resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow


def _study(law: dict, dependences: dict, dependence: str) -> dict:
    return {
        "study": "fit_vs_replay",
        "seed": 17,
        "grid": {
            "policy": ["ZRed", "CoC", "Hedge"],
            "distribution": ["x"],
            "dependence": [dependence],
            "r_slow": [1],
            "d": [2],
            "N": [20],
        },
        "load": [0.3, 0.5],
        "distributions": {"x": law},
        "dependences": dependences,
        "system": {"pools": 1},
        "evaluate": ["simulation"],
        "simulation": {"jobs": 100_000, "warmup": 10_000, "replications": 4},
    }


def _run(cfg: dict) -> dict:
    resolved = resolve_config(copy.deepcopy(cfg))
    out = {}
    for cid, cell in build_grid(resolved).cells.items():
        ds = evaluate_cell(resolved, cid)
        out[cell.policy] = (
            ds["latency_mean"].values,
            ds["latency_mean_ci"].values,
            ds["latency_quantile"].sel(quantile=0.99).values,
            ds["latency_quantile_ci"].sel(quantile=0.99).values,
        )
    return out


def _agree(fitted: dict, replayed: dict) -> None:
    """Four combined CI half-widths (the replications' t intervals: a 1e-4 chance each to
    miss) plus the fit's own error, which the family check bounds at the pairs' interval of
    the faster copy's p99 (a few percent): 4 % of the value."""
    for policy, (m, ci, p, pci) in fitted.items():
        rm, rci, rp, rpci = replayed[policy]
        assert np.all(np.abs(m - rm) <= 4 * np.hypot(ci, rci) + 0.04 * rm), (policy, m, rm, ci, rci)
        assert np.all(np.abs(p - rp) <= 4 * np.hypot(pci, rpci) + 0.04 * rp), (policy, p, rp, pci, rpci)


def _compare(file: Path, family: str) -> None:
    values = np.loadtxt(file, delimiter=",", skiprows=1)
    fit = fit_pairs(values, resamples=400, sx_resamples=20, processes=1)
    assert fit.chosen == family
    study = snippet(fit)["study"]
    marginal = {"family": "empirical", "file": str(file), "column": ["server_a_ms", "server_b_ms"]}
    # S&X brings its own work law; a mixture keeps the copies' marginal, the pairs' pooled
    law = study["distributions"]["measured_work"] if family == "S&X" else marginal
    fitted = _run(_study(law, study["dependences"], "measured"))
    replayed = _run(_study(marginal, {"pairs": {"kind": "pairs", "file": str(file)}}, "pairs"))
    _agree(fitted, replayed)


def test_the_shipped_sx_pairs_fitted_and_replayed():
    _compare(ROOT / "config" / "data" / "sx_pairs_ms.csv", "S&X")


def test_the_shipped_mixture_pairs_fitted_and_replayed():
    _compare(ROOT / "config" / "data" / "pairs_ms.csv", "mixture")


def test_sx_pairs_of_other_laws_fitted_and_replayed(tmp_path):
    """X Weibull-like (a gamma), S lognormal-free discrete {1, 2, 8}: another S&X."""
    rng = np.random.default_rng(20261207)
    n = 4000
    x = rng.gamma(2.0, 5.0, n)
    s = rng.choice([1.0, 2.0, 8.0], size=(n, 2), p=[0.85, 0.12, 0.03])
    values = np.round(x[:, None] * s, 3)
    path = tmp_path / "pairs.csv"
    np.savetxt(path, values, delimiter=",", header="server_a_ms,server_b_ms", comments="", fmt="%.3f")
    _compare(path, "S&X")
