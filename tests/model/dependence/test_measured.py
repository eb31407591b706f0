"""``straggler fit --pairs``: the dependence of a request's copies measured from paired
durations (straggler.model.dependence.measured): the mixture's c found within its interval, the
exact ends (independent, identical), the tail dependence the mixture implies, the files
read and the bad ones refused in one line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
import yaml
from scipy import stats

from straggler.cli import main
from straggler.model.dependence.measured import (
    MIN_PAIRS,
    PairsError,
    RankedColumn,
    measure,
    read_pairs,
    weighted_statistics,
)


def mixture_pairs(n: int, c: float, seed: int) -> np.ndarray:
    """``n`` pairs of the mixture: with probability ``c`` one lognormal draw twice, else two."""
    rng = np.random.default_rng(seed)
    out = rng.lognormal(2.0, 0.6, (n, 2))
    same = rng.random(n) < c
    out[same, 1] = out[same, 0]
    return out


def write_csv(path, values, header="a,b"):
    path.write_text(header + "\n" + "".join(f"{a!r},{b!r}\n" for a, b in np.asarray(values).tolist()))
    return str(path)


@pytest.mark.parametrize("c", [0.3, 0.7])
def test_the_mixture_s_c_is_within_the_printed_interval(c):
    m = measure(mixture_pairs(5000, c, seed=11))
    assert m.c.low <= c <= m.c.high and m.c.high - m.c.low < 0.08
    tail = c + (1 - c) * 0.01  # the mixture's tail dependence at p99
    assert m.tail is not None and m.tail.low <= tail <= m.tail.high
    assert m.verdict() is None


def test_independent_pairs_give_an_interval_holding_0_and_identical_ones_exactly_1():
    m = measure(mixture_pairs(5000, 0.0, seed=12))
    assert m.rho.low <= 0 <= m.rho.high and m.c.low == 0
    x = mixture_pairs(5000, 1.0, seed=13)
    assert np.array_equal(x[:, 0], x[:, 1])
    m = measure(x)
    assert (m.rho.value, m.rho.low, m.rho.high) == (1.0, 1.0, 1.0)
    assert (m.tail.value, m.tail.low, m.tail.high) == (1.0, 1.0, 1.0)  # type: ignore[union-attr]


def test_a_resample_s_figures_are_those_of_the_resample_ranked_again():
    """The counts-of-each-pair shortcut gives the rho and tail of the resample itself, ties
    (rounded durations, repeated pairs) at their mean rank."""
    rng = np.random.default_rng(14)
    x = np.round(mixture_pairs(400, 0.5, seed=15), 0)  # many ties
    columns = (RankedColumn.of(x[:, 0]), RankedColumn.of(x[:, 1]))
    for _ in range(5):
        idx = rng.integers(0, len(x), len(x))
        weights = np.bincount(idx, minlength=len(x))[None, :].astype(float)
        rho, tail = weighted_statistics(columns, weights, 0.9)
        y = x[idx]
        assert rho[0] == pytest.approx(stats.spearmanr(y[:, 0], y[:, 1])[0], abs=1e-12)
        upto = [np.searchsorted(np.sort(y[:, j]), y[:, j], side="right") for j in (0, 1)]
        above = upto[0] > 0.9 * len(x)
        assert tail[0] == pytest.approx((above & (upto[1] > 0.9 * len(x))).sum() / above.sum())


def test_a_dependence_only_in_the_tail_is_said_not_to_be_a_mixture():
    rng = np.random.default_rng(16)
    x = rng.lognormal(0, 1, (5000, 2))
    top = x[:, 0] > np.quantile(x[:, 0], 0.99)
    x[top, 1] = x[top, 0]  # the slowest 1 % slow on both servers, the rest independent
    m = measure(x)
    assert m.tail_c.low > m.rho.high and m.rho.high < 0.1  # type: ignore[union-attr]
    assert "only in the tail" in (m.verdict() or "")
    m = measure(np.column_stack([x[:, 0], 1 / x[:, 0] + 0.01 * x[:, 1]]))
    assert m.rho.high < 0 and m.c.value == 0 and "negatively dependent" in (m.verdict() or "")


def test_csv_tsv_text_npy_and_gz_read_alike(tmp_path):
    x = mixture_pairs(300, 0.5, seed=17)
    files = [write_csv(tmp_path / "p.csv", x), write_csv(tmp_path / "noheader.csv", x, header="")]
    (tmp_path / "noheader.csv").write_text((tmp_path / "noheader.csv").read_text().lstrip("\n"))
    (tmp_path / "p.tsv").write_text("a\tb\n" + "".join(f"{a!r}\t{b!r}\n" for a, b in x.tolist()))
    (tmp_path / "p.txt").write_text("# a request a line\n\n" + "".join(f"{a!r}  {b!r}  # ok\n" for a, b in x.tolist()))
    np.save(tmp_path / "p.npy", x)
    files += [str(tmp_path / f) for f in ("p.tsv", "p.txt", "p.npy")]
    for f in list(files):
        (tmp_path / (f.rsplit("/", 1)[1] + ".gz")).write_bytes(gzip.compress(open(f, "rb").read()))
        files.append(f + ".gz")
    for f in files:
        np.testing.assert_array_equal(read_pairs(f).values, x, err_msg=f)
    assert read_pairs(files[0]).names == ("a", "b")
    three = np.column_stack([np.arange(1, 301), x])
    (tmp_path / "three.csv").write_text("id,a,b\n" + "".join(f"{int(i)},{a!r},{b!r}\n" for i, a, b in three.tolist()))
    np.save(tmp_path / "three.npy", three)
    np.testing.assert_array_equal(read_pairs(str(tmp_path / "three.csv"), ("a", "b")).values, x)
    np.testing.assert_array_equal(read_pairs(str(tmp_path / "three.csv"), (2, 1)).values, x[:, ::-1])
    np.testing.assert_array_equal(read_pairs(str(tmp_path / "three.npy"), (1, 2)).values, x)


def bad_files(tmp_path) -> list[tuple[str, str, str]]:
    """(file, what its message names, the allowed part)."""
    good = [f"{a!r},{b!r}" for a, b in mixture_pairs(200, 0.5, seed=18).tolist()]

    def csv(name, rows):
        (tmp_path / name).write_text("\n".join(rows) + "\n")
        return str(tmp_path / name)

    np.save(tmp_path / "one.npy", np.ones(200))
    zero = np.ones((200, 2)) + np.arange(200)[:, None]
    zero[6, 1] = 0
    np.save(tmp_path / "zero.npy", zero)
    return [
        (csv("one.csv", ["ms", *[g.split(",")[0] for g in good]]), "line 1: one column (ms)", "two durations > 0"),
        (csv("word.csv", ["a,b", *good[:9], "3.2,slow", *good[9:]]), "line 11: 'slow' is not a number", "> 0"),
        (csv("zero.csv", ["a,b", *good[:4], "0,1.5", *good[4:]]), "line 6: 0 is not allowed", "durations > 0"),
        (csv("neg.csv", ["a,b", *good[:4], "-2,1.5", *good[4:]]), "line 6: -2 is not allowed", "> 0"),
        (csv("inf.csv", ["a,b", *good[:4], "inf,1.5", *good[4:]]), "line 6: inf is not allowed", "> 0"),
        (csv("nan.csv", ["a,b", *good[:4], "1.5,nan", *good[4:]]), "line 6: nan is not allowed", "> 0"),
        (csv("short.csv", ["a,b", *good[:4], "1.5", *good[4:]]), "line 6: one column", "two durations"),
        (csv("few.csv", ["a,b", *good[:50]]), "50 pairs (the last on line 51)", f"at least {MIN_PAIRS}"),
        (csv("three.csv", ["id,a,b", *[f"1,{g}" for g in good]]), "line 1: 3 columns (id, a, b)", "--columns A,B"),
        (str(tmp_path / "one.npy"), "shape (200)", "expected shape (n, 2)"),
        (str(tmp_path / "zero.npy"), "row 7: [7.0, 0.0] is not allowed", "durations > 0"),
    ]


def test_bad_files_are_refused_naming_the_file_the_line_and_what_is_allowed(tmp_path):
    for file, where, allowed in bad_files(tmp_path):
        with pytest.raises(PairsError) as err:
            read_pairs(file)
        message = str(err.value)
        assert "\n" not in message and file in message and where in message and allowed in message, message


def test_the_command_prints_the_figures_and_a_yaml_snippet(tmp_path, capsys, monkeypatch):
    from straggler.model.dependence import sx_fit

    monkeypatch.setattr(sx_fit, "SX_RESAMPLES", 20)  # the form of the output, not S&X's intervals
    file = write_csv(tmp_path / "p.csv", mixture_pairs(3000, 0.3, seed=19))
    assert main(["fit", "--pairs", file]) == 0
    out = capsys.readouterr().out
    report, snippet = out.split("\n\n# ", 1)
    m = measure(read_pairs(file))
    assert f"Spearman's rho {m.rho.value:.2f} [{m.rho.low:.2f}, {m.rho.high:.2f}]" in report
    assert "tail dependence" in report and "the tail's c" in report and "chosen: mixture" in report
    parsed = yaml.safe_load("# " + snippet)
    assert set(parsed) == {"question", "study"}
    spec = {"kind": "mixture", "identical": round(m.c.value, 2)}
    assert parsed["study"]["dependences"]["measured"] == spec
    ends = [round(m.c.low, 2), round(m.c.value, 2), round(m.c.high, 2)]
    assert parsed["study"]["grid"] == {"dependence": ["measured"], "measured.identical": ends}
    assert parsed["question"]["dependence"] == spec  # a question's keys
    assert parsed["question"]["check_dependence"] == [0, ends[0], ends[2], 1]
    assert f"3,000 pairs of {file}" in snippet
    out_file = tmp_path / "snippet.yaml"
    assert main(["fit", "--pairs", file, "-o", str(out_file)]) == 0
    assert yaml.safe_load(out_file.read_text()) == parsed


def test_the_command_refuses_bad_files_and_uses_in_one_line(tmp_path, capsys):
    for file, where, _ in bad_files(tmp_path):
        assert main(["fit", "--pairs", file]) == 1
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err
        (line,) = err.splitlines()
        assert line.startswith(f"straggler fit: file '{file}'") and where in line
    file = bad_files(tmp_path)[0][0]
    for argv in (
        ["fit"],
        ["fit", file, "--pairs", file],
        ["fit", "--pairs", file, "--column", "a"],
        ["fit", "--pairs", file, "--columns", "a"],
        ["fit", file, "--columns", "a,b"],
    ):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        (line,) = err.splitlines()
        assert out == "" and line.startswith("straggler fit: ") and "expected" in line, argv


@pytest.mark.slow
def test_the_intervals_cover_as_often_as_they_claim(ci_scale):
    """Over 200 data sets of the mixture (c = 0.3, 1,000 pairs; 50 in CI), rho's 95 %
    interval holds c in 88 % of them or more. Coverage is binomial(200, ~0.95): below
    0.88 (176 of 200) has a probability under 0.1 % for an interval that covers 95 %;
    the percentile bootstrap of a correlation undercovers by a point or two at this
    size, so the false-alarm rate stays below 1 %. In CI, 50 data sets (0.25 x 200) and a
    floor of 0.84 (42 of 50; P(fewer than 42 | 0.95) < 1 %)."""
    runs = max(20, int(200 * ci_scale))
    floor = 0.88 if runs >= 200 else 0.84
    covered = 0
    for seed in range(runs):
        m = measure(mixture_pairs(1000, 0.3, seed=1000 + seed), resamples=1000)
        covered += m.rho.low <= 0.3 <= m.rho.high
    assert covered / runs >= floor, covered


def test_the_workload_guide_states_the_module_s_constants():
    from pathlib import Path

    from straggler.model.dependence.measured import CONFIDENCE, RESAMPLES, TAIL_LEVEL, TAIL_PAIRS

    page = (Path(__file__).resolve().parents[3] / "docs" / "guide" / "workload.md").read_text()
    section = " ".join(page.split("## 7. How alike a request's copies are")[1].split("\n## ")[0].split())
    assert f"{100 * CONFIDENCE:g} % percentile bootstrap intervals over {RESAMPLES:,} resamples" in section
    assert f"At least {MIN_PAIRS} pairs are read" in section
    assert f"from {TAIL_PAIRS:,} pairs on ({TAIL_PAIRS * (1 - TAIL_LEVEL):.0f} above p{100 * TAIL_LEVEL:g})" in section
    assert "<!-- generated: pairs-example -->" in section
    assert "<!-- generated: sx-pairs-example -->" in section
