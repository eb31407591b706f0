"""The comparison report: winners per setting, ties, oracles left out."""

import json
import re

import numpy as np
import xarray as xr
from synthetic import study

from straggler.report import SECTIONS, best_at, html, latency_winners, markdown, summary, winners, write_report


def dataset():
    policies = ["ZRed", "FRed", "KT"]
    lm = np.array([[0.5, 0.7, 1.0], [0.9, 0.9, np.nan]])  # r_slow x policy
    cost = np.array([[1.0, 1.8, 1.0], [1.0, 1.2, np.nan]])
    kind = np.array([["exact", "necessary", "exact"], ["exact", "necessary", ""]])
    cost_kind = np.array([["exact", "exact", "exact"], ["lower_bound", "exact", ""]])
    lat = np.full((2, 3, 1), np.nan)
    lat[0, :, 0] = [2.0, 1.5, 1.2]
    return xr.Dataset(
        {
            "lambda_max": (("r_slow", "policy"), lm),
            "cost": (("r_slow", "policy"), cost),
            "lambda_max_kind": (("r_slow", "policy"), kind),
            "cost_kind": (("r_slow", "policy"), cost_kind),
            "lambda_sufficient": (("r_slow", "policy"), np.where(kind == "exact", lm, 0.4)),
            "latency_mean": (("r_slow", "policy", "load"), lat),
        },
        coords={"r_slow": [0.1, 1.0], "policy": policies, "load": [0.5]},
        attrs={"study": "t"},
    )


def test_winners_ties_kinds_and_oracles():
    table = winners(dataset())
    first, second = table.to_dict("records")
    assert first["most_stable"] == "KT" and first["lambda_max_kind"] == "exact"
    assert first["most_stable_practical"] == "FRed"
    assert first["cheapest"] == "ZRed, KT" and first["cheapest_practical"] == "ZRed"
    assert second["most_stable"] == "ZRed, FRed" and second["no_analysis"] == "KT"
    assert first["cost_kind"] == "exact"
    assert first["most_stable_proven"] == "KT" and first["lambda_proven"] == 1.0
    assert second["most_stable_proven"] == "ZRed" and second["lambda_proven"] == 0.9
    assert second["cheapest"] == "ZRed" and second["cost_kind"] == "lower_bound"


def test_latency_winners_and_markdown():
    ds = dataset()
    lat = latency_winners(ds)
    assert lat.loc[0, "fastest"] == "KT" and lat.loc[0, "fastest_practical"] == "FRed"
    assert lat.loc[1, "fastest"] == ""  # nothing simulated there
    text = markdown(ds, winners(ds))
    assert "# Study `t`" in text and "## Summary" in text and "report.html" in text
    assert "No latency winner is named at a load where a contender is `undetermined`" in text


def test_a_one_sided_bound_is_capped_by_the_simulation():
    """FRed's necessary bound 0.9 at r_slow = 1 would tie ZRed's exact 0.9; its
    simulation found the backlog growing at load 0.5, so it drops to 0.5."""
    ds = dataset()
    stable = np.ones((2, 3, 1))
    stable[1, 1, 0] = 0.0  # FRed, r_slow = 1, load 0.5
    ds["stable"] = (("r_slow", "policy", "load"), stable)
    second = winners(ds).to_dict("records")[1]
    assert second["most_stable"] == "ZRed" and second["lambda_max_kind"] == "exact"
    ds["lambda_max_kind"].loc[{"r_slow": 1.0, "policy": "ZRed"}] = "necessary"
    ds["lambda_max"].loc[{"r_slow": 1.0, "policy": "ZRed"}] = 0.3
    second = winners(ds).to_dict("records")[1]
    assert second["most_stable"] == "FRed" and second["lambda_max"] == 0.5
    assert second["lambda_max_kind"] == "necessary (simulation)"


def test_no_latency_winner_while_a_contender_is_undetermined():
    ds = dataset()
    verdict = np.full((2, 3, 1), "stable", dtype=object)
    verdict[0, 1, 0] = "undetermined"  # FRed, r_slow = 0.1: no estimate, maybe the fastest
    ds["verdict"] = (("r_slow", "policy", "load"), verdict)
    ds["jobs"] = (("r_slow", "policy", "load"), np.full((2, 3, 1), 1e5))
    ds["latency_mean"].loc[{"r_slow": 0.1, "policy": "FRed"}] = np.nan
    lat = latency_winners(ds)
    assert lat.loc[0, "fastest"] == "" and lat.loc[0, "undetermined"] == "FRed"
    verdict[0, 1, 0] = "unstable"  # an unstable policy is no contender
    ds["verdict"] = (("r_slow", "policy", "load"), verdict)
    lat = latency_winners(ds)
    assert lat.loc[0, "fastest"] == "KT" and lat.loc[0, "undetermined"] == ""


def test_the_report_counts_verdicts_and_lists_what_would_decide_them():
    ds = dataset()
    verdict = np.array(
        [[["stable"], ["undetermined"], ["unstable"]], [["stable"], ["stable"], ["unstable"]]], dtype=object
    )
    source = np.array([[["both"], [""], ["analysis"]], [["simulation"], ["analysis"], ["analysis"]]], dtype=object)
    ds["verdict"] = (("r_slow", "policy", "load"), verdict)
    ds["verdict_source"] = (("r_slow", "policy", "load"), source)
    need = np.full((2, 3, 1), np.nan)
    need[0, 1, 0] = 123456.0
    ds["jobs_to_verdict"] = (("r_slow", "policy", "load"), need)
    ds.attrs["cell_notes"] = json.dumps(
        {"c1": ["contradiction: the simulation found loads [0.5] unstable below the proven-stable load"]}
    )
    text = markdown(ds, winners(ds))
    assert "## Stability verdicts" in text
    assert "| undetermined |  | 1 |" in text and "| stable | both | 1 |" in text
    assert "| FRed | 0.1 | 0.5 | 123,456 |" in text
    assert "- `c1`: contradiction" in text


def test_summary_sentences_name_winners_and_their_evidence():
    ds = dataset()
    text = " ".join(summary(ds))
    # KT is an oracle: left out; FRed wins r_slow = 0.1 on a necessary (one-sided) bound,
    # ZRed and FRed tie at r_slow = 1 (ZRed exact)
    assert "oracle KT" in text
    assert "Largest stability bound: FRed in 1 (a one-sided bound: 1)" in text
    assert "Smallest simulated mean latency" in text and "FRed in 1 of 2" in text
    assert "Smallest server time per job" in text


def test_summary_counts_points_without_a_winner():
    ds = study(policies=("ZRed", "CoC"))
    text = " ".join(summary(ds))
    # ZRed is undetermined at the last load: no winner named there
    assert re.search(r"no winner at \d+ points? because a contender is undetermined", text)
    assert "Stability verdicts:" in text
    assert "Pareto frontier" in text and "Theory against simulation" in text


def fake_png(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path


def test_html_is_self_contained_with_every_section(tmp_path):
    ds = study(policies=("ZRed", "CoC"), name="ps_fig6")  # a paper study: claims listed
    figs = {
        name: fake_png(tmp_path / f"{name}.png")
        for name in ("stability", "latency", "cost", "tradeoff", "theory_vs_simulation", "winners_r_slow")
    }
    page = html(ds, figs)
    for section in SECTIONS:
        assert f'<section id="{section}">' in page
    assert page.count("data:image/png;base64,") == len(figs)
    assert not re.search(r"https?://", page)
    assert "<script" not in page and "<link" not in page
    assert "not tested" in page  # the ps_fig6 claims need variables this dataset lacks
    # the figures sit in their sections
    trade = page.index('<section id="tradeoffs">')
    assert page.index('id="fig-tradeoff"') > trade > page.index('id="fig-cost"')


def test_write_report_writes_the_four_files(tmp_path):
    ds = study(policies=("ZRed", "CoC"), name="speculation_fig2")
    write_report(
        ds, tmp_path / "report.md", tmp_path / "winners.csv", tmp_path / "report.html", tmp_path / "claims.csv", {}
    )
    head = (tmp_path / "claims.csv").read_text().splitlines()[0]
    assert head.startswith("claim,source,statement,test,verdict,evidence")
    assert "## Claims of the paper" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert (tmp_path / "winners.csv").read_text().startswith("distribution,dependence")


def test_best_at_a_point_and_off_the_grid():
    ds = study(policies=("ZRed", "FRed", "KT", "CoC"), r_slow=(0.3, 1.0))
    point = {"distribution": "pareto", "dependence": "iid", "r_slow": "0.3", "load": "0.2"}
    lines, ok = best_at(ds, point)
    text = "\n".join(lines)
    assert ok and text.startswith("At distribution = pareto, dependence = iid, r_slow = 0.3")
    assert "stability (oracles left out):" in text and "latency" in text and "cost" in text
    assert "(exact)" in text or "one-sided bound" in text
    assert "simulation, estimate" in text
    lines, ok = best_at(ds, dict(point, load="0.6"))
    assert not ok and "load = 0.6 is not one of its values (0.2, 0.5, 0.8)" in "\n".join(lines)
    lines, ok = best_at(ds, {"r_slow": "0.3", "load": "0.2"})
    assert not ok and "distribution needs a value" in "\n".join(lines)
    lines, ok = best_at(ds, dict(point, load="0.8"))
    assert ok and "undetermined" in "\n".join(lines)  # ZRed undetermined there
