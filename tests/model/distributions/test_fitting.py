"""``straggler fit``: a sample described, the families fitted by their estimators, and
the distances to the sample checked against independent evaluations."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from scipy import stats

from straggler.cli import main
from straggler.model.distributions import Exponential, Lognormal, sample_many
from straggler.model.distributions.fitting import (
    describe,
    fit_bounded_pareto,
    fit_families,
    fit_hyperexponential,
    fit_lognormal,
    fit_pareto,
    fit_shifted_exponential,
    fit_weibull,
    ks_distance,
    wasserstein_distance,
)
from straggler.study.config import resolve_config


def draws(law, n, seed):
    return np.sort(sample_many(law, n, np.random.default_rng(seed)))


def test_each_estimator_recovers_the_law_it_fits():
    """10^5 draws of a known law: each maximum-likelihood estimate within 4 of its standard
    errors (1 / sqrt(Fisher information per draw / n)), the moment fits exact."""
    n = 100_000
    xs = np.sort(np.random.default_rng(1).lognormal(0.5, 0.8, n))
    law = fit_lognormal(xs)
    sigma = math.sqrt(math.log1p(law.cv**2))
    assert abs(sigma - 0.8) <= 4 * 0.8 / math.sqrt(2 * n)
    assert abs(math.log(law.mean()) - sigma**2 / 2 - 0.5) <= 4 * 0.8 / math.sqrt(n)
    xs = np.sort(stats.pareto.rvs(2.5, scale=2.0, size=n, random_state=2))
    law = fit_pareto(xs)
    assert law.xm == xs[0] and abs(law.alpha - 2.5) <= 4 * 2.5 / math.sqrt(n)
    xs = np.sort(stats.weibull_min.rvs(0.7, scale=3.0, size=n, random_state=3))
    law = fit_weibull(xs)
    assert abs(law.shape - 0.7) <= 4 * 0.7 * math.sqrt(6) / math.pi / math.sqrt(n)
    xs = np.sort(np.random.default_rng(4).exponential(2.0, n) + 1.0)
    law = fit_shifted_exponential(xs)
    assert law.mean() == pytest.approx(xs.mean(), rel=1e-12) and law.shift == xs[0]
    ys = xs * np.random.default_rng(5).exponential(1.0, n)  # scv > 1
    law = fit_hyperexponential(ys)
    assert law.mean() == pytest.approx(ys.mean(), rel=1e-12)
    assert law.second_moment() / law.mean() ** 2 - 1 == pytest.approx(ys.var() / ys.mean() ** 2, rel=1e-12)
    # bounded Pareto: the likelihood's root, checked against a direct maximisation
    xs = np.sort(stats.pareto.rvs(1.5, scale=1.0, size=5000, random_state=6))
    xs = xs[xs < 50]
    law = fit_bounded_pareto(xs)
    loglik = lambda a: np.sum(np.log(a) + a * np.log(xs[0]) - (a + 1) * np.log(xs) - np.log1p(-((xs[0] / xs[-1]) ** a)))  # noqa: E731
    assert loglik(law.alpha) >= max(loglik(law.alpha * (1 + h)) for h in (-1e-4, 1e-4))


def test_the_distances_agree_with_independent_evaluations():
    """KS against scipy's kstest statistic; W1 against the area between the two
    distribution functions by the trapezoids on a fine grid (within the grid's error)."""
    law = Lognormal(1.0, 1.5)
    xs = draws(law, 2000, 7)
    assert ks_distance(xs, law) == pytest.approx(stats.kstest(xs, lambda x: 1 - law.sf(x)).statistic, rel=1e-12)
    grid = np.concatenate((np.linspace(0.0, xs[-1], 2_000_001), xs[-1] * np.geomspace(1.0, 1e6, 200_001)[1:]))
    fn = np.searchsorted(xs, grid, side="right") / xs.size
    area = np.trapezoid(np.abs(fn - (1 - law.sf(grid))), grid)
    assert wasserstein_distance(xs, law) == pytest.approx(area, rel=2e-4)
    # a law against its own large sample: both distances small
    exp = Exponential(1.0)
    big = draws(exp, 200_000, 8)
    assert ks_distance(big, exp) < 1.63 / math.sqrt(big.size)  # the 1 % point of Kolmogorov's law
    assert wasserstein_distance(big, exp) < 0.01


def test_describe_and_the_ranking():
    xs = draws(Lognormal(2.0, 1.0), 20_000, 9)
    summary = describe(xs)
    assert summary.n == 20_000 and summary.mean == pytest.approx(xs.mean())
    assert summary.quantiles[0.5] == np.quantile(xs, 0.5)
    fits = fit_families(xs)
    assert fits[0].family == "lognormal"  # the law it was drawn from fits best
    assert [f.ks for f in fits if f.law is not None] == sorted(f.ks for f in fits if f.law is not None)
    with_zero = np.concatenate(([0.0], xs))
    reasons = {f.family: f.why_not for f in fit_families(with_zero) if f.law is None}
    assert "sizes > 0" in reasons["lognormal"] and "sizes > 0" in reasons["pareto"]
    heavy = np.sort(stats.pareto.rvs(0.6, size=5000, random_state=11))
    (pareto,) = [f for f in fit_families(heavy) if f.family == "pareto"]
    assert pareto.law is None and "at most 1: a Pareto law this heavy has no mean" in pareto.why_not


def test_the_command_prints_the_table_and_a_snippet_a_study_accepts(tmp_path, capsys):
    path = tmp_path / "ms.csv"
    path.write_text("ms\n" + "".join(f"{v:.4f}\n" for v in draws(Lognormal(8.0, 2.0), 3000, 10)))
    out = tmp_path / "fits.yaml"
    assert main(["fit", str(path), "--column", "ms", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{path}, column ms: 3000 values" in printed and "lognormal" in printed
    snippet = yaml.safe_load(out.read_text())
    assert snippet["grid"]["distribution"][0] == "trace" and len(snippet["grid"]["distribution"]) == 3
    study = {
        "grid": {"policy": ["ZRed", "CoC"], "distribution": snippet["grid"]["distribution"]},
        "load": [0.5],
        "distributions": snippet["distributions"],
    }
    resolved = resolve_config(study)
    assert resolved.distributions["trace"]["file"] == str(path)
    # a column named ms is in ms: every law of the snippet says so, and the study's times
    assert {law["unit"] for law in snippet["distributions"].values()} == {"ms"}
    assert "# unit: ms, from the column's name ms" in out.read_text()


@pytest.mark.parametrize(
    ("header", "column", "unit"),
    [
        ("duration_ms", None, "ms"),
        ("timestamp_s,latency_seconds", "latency_seconds", "s"),
        ("timestamp_s,latency_seconds", "1", "s"),
        ("rttMicros", None, "us"),
        ("duration", None, None),
    ],
)
def test_fit_takes_the_unit_from_the_column_s_name(tmp_path, capsys, header, column, unit):
    path = tmp_path / "sizes.csv"
    width = header.count(",") + 1
    path.write_text(header + "\n" + "".join(",".join(["1.5"] * width) + "\n" for _ in range(200)))
    out = tmp_path / "fits.yaml"
    assert main(["fit", str(path), *(["--column", column] if column else []), "-o", str(out)]) == 0
    capsys.readouterr()
    laws = yaml.safe_load(out.read_text())["distributions"]
    assert {law.get("unit") for law in laws.values()} == {unit}
    if unit is None:
        assert "no unit in the column's name: add unit: ms" in out.read_text()


def test_a_bad_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("1.0\nabc\n")
    assert main(["fit", str(bad)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("straggler fit: ") and "abc" in line and "line 2" in line
    assert main(["fit", str(tmp_path / "missing.csv")]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert "missing.csv" in line
