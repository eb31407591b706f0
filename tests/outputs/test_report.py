"""The comparison report: winners per setting, ties, oracles left out."""

import json
import re

import numpy as np
import xarray as xr
from synthetic import study

from straggler.decide.decision import recommendations
from straggler.decide.winners import winners
from straggler.outputs import report
from straggler.outputs.report import SECTIONS, best_at, html, markdown, summary, write_report


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


def test_winners_rows_per_criterion_ties_and_oracles():
    table = winners(dataset())
    stab = table[table["criterion"] == "stability"].to_dict("records")
    # r_slow = 0.1: ZRed exact 0.5, FRed necessary 0.7 (at most 0.7, at least 0.4): a tie
    assert stab[0]["winners"] == "ZRed, FRed" and stab[0]["decided"] == "false"
    assert stab[0]["winners_with_oracles"] == "KT"  # the oracle's exact 1.0 beats both
    cost = table[table["criterion"] == "cost"].to_dict("records")
    # r_slow = 0.1: ZRed exact 1.0 beats FRed exact 1.8
    assert cost[0]["winners"] == "ZRed" and cost[0]["decided"] == "true" and cost[0]["evidence"] == "exact"
    assert cost[0]["runner_up"] == "FRed" and abs(cost[0]["margin"] - 0.8) < 1e-12
    # r_slow = 1: ZRed's E[C] is only a lower bound (>= 1.0): it cannot beat FRed's exact 1.2
    assert cost[1]["winners"] == "ZRed, FRed" and cost[1]["decided"] == "false"
    assert list(table.columns[:2]) == ["r_slow", "load"]


def test_latency_winner_and_markdown():
    ds = dataset()
    table = winners(ds)
    lat = table[table["criterion"] == "latency"].to_dict("records")
    assert lat[0]["winners"] == "FRed" and lat[0]["winners_with_oracles"] == "KT"
    assert lat[1]["winners"] == "ZRed, FRed"  # nothing simulated: nothing proven, a tie
    text = markdown(ds, table)
    assert "# Study `t`" in text and "## Recommendation" in text and "report.html" in text
    assert text.index("## Recommendation") < text.index("## Stability")


def test_an_unstable_verdict_bounds_the_stability_interval():
    """FRed's necessary bound 0.9 at r_slow = 1 would tie ZRed's exact 0.9; its
    simulation found the backlog growing at load 0.5, so its interval ends there."""
    ds = dataset()
    verdict = np.full((2, 3, 1), "stable", dtype=object)
    verdict[1, 1, 0] = "unstable"  # FRed, r_slow = 1, load 0.5
    ds["verdict"] = (("r_slow", "policy", "load"), verdict)
    stab = winners(ds).query("criterion == 'stability'").to_dict("records")
    assert stab[1]["winners"] == "ZRed" and stab[1]["decided"] == "true"


def test_an_undetermined_contender_is_in_the_tie_set():
    ds = dataset()
    verdict = np.full((2, 3, 1), "stable", dtype=object)
    verdict[0, 1, 0] = "undetermined"  # FRed, r_slow = 0.1: no estimate, maybe the fastest
    ds["verdict"] = (("r_slow", "policy", "load"), verdict)
    ds["jobs"] = (("r_slow", "policy", "load"), np.full((2, 3, 1), 1e5))
    ds["latency_mean"].loc[{"r_slow": 0.1, "policy": "FRed"}] = np.nan
    ds["latency_mean_ci"] = ds["latency_mean"] * 0.01
    lat = winners(ds).query("criterion == 'latency'").to_dict("records")
    assert lat[0]["winners"] == "ZRed, FRed" and lat[0]["undetermined"] == "FRed"
    verdict[0, 1, 0] = "unstable"  # an unstable policy is no contender
    ds["verdict"] = (("r_slow", "policy", "load"), verdict)
    lat = winners(ds).query("criterion == 'latency'").to_dict("records")
    assert lat[0]["winners"] == "ZRed" and lat[0]["decided"] == "true"


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


def test_summary_is_short_sentences_not_counts_per_policy():
    ds = study(policies=("ZRed", "FRed", "KT", "CoC"))
    sentences = summary(ds)
    text = " ".join(sentences)
    assert "oracle KT" in text
    assert re.search(r"One policy is recommended at \d+ of \d+", text)
    assert re.search(r"E\[T\]: decided at \d+ of \d+ points, tied at \d+", text)
    assert all(len(s) < 300 for s in sentences)


def test_recommendation_narrows_a_latency_tie_by_cost():
    ds = study(policies=("ZRed", "CoC"), distributions=("exp",), dependences=("iid",), r_slow=(1.0,))
    # make the two E[T] CIs overlap at the first load, CoC proven cheaper there
    at = {"load": 0.2}
    ds["latency_mean"].loc[{**at, "policy": "CoC"}] = ds["latency_mean"].sel(**at, policy="ZRed")
    ds["cost"].loc[{"policy": "ZRed"}] = 3.0
    ds["cost_mean"].loc[{**at, "policy": "ZRed"}] = 3.0
    rec = recommendations(ds)
    first = rec.iloc[0]
    assert first["recommended"] == "CoC" and first["basis"] == "E[T] tie, then E[C]"


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
    head = (tmp_path / "winners.csv").read_text().splitlines()[0]
    assert head == (
        "distribution,dependence,r_slow,d,N,load,criterion,winners,decided,low,high,evidence,"
        "runner_up,margin,undetermined,winners_with_oracles,extra_load_low,extra_load_high"
    )


def test_best_at_a_point_and_off_the_grid():
    ds = study(policies=("ZRed", "FRed", "KT", "CoC"), r_slow=(0.3, 1.0))
    point = {"distribution": "pareto", "dependence": "iid", "r_slow": "0.3", "load": "0.2"}
    lines, ok = best_at(ds, point)
    text = "\n".join(lines)
    assert ok and text.startswith("At distribution = pareto, dependence = iid, r_slow = 0.3")
    assert lines[1].startswith("  rule: the least E[T], unless a policy within 5 % of it costs at least 5 % less E[C]")
    assert lines[2] == "  assumes: each copy of a request takes a duration of its own (i.i.d. copies, c = 0)"
    assert lines[3].startswith("  recommended: ")
    assert "stability (lambda_max):" in text and "latency (E[T]):" in text and "cost (E[C]):" in text
    assert "with the oracles: KT" in text and "KT (oracle):" in text
    assert "every contender" in text and "(simulation)" in text
    lines, ok = best_at(ds, dict(point, load="0.6"))
    assert not ok and "load = 0.6 is not one of its values (0.2, 0.5, 0.8)" in "\n".join(lines)
    lines, ok = best_at(ds, {"r_slow": "0.3", "load": "0.2"})
    assert not ok and "distribution needs a value" in "\n".join(lines)
    lines, ok = best_at(ds, dict(point, load="0.8"))
    assert ok and "undetermined" in "\n".join(lines)  # ZRed undetermined there


def test_the_report_says_where_the_size_law_changes_the_answer():
    """A trace (a law read from a file) beside another law: a sentence per law, and a row
    for every (setting, load) point where its recommendation is not the trace's; none
    when no law of the axis is a trace."""
    ds = study(policies=("ZRed", "CoC"), distributions=("trace", "fit"), dependences=("iid",), r_slow=(1.0,), seed=4)
    config = {"distributions": {"trace": {"family": "empirical", "file": "t.csv"}, "fit": {"family": "exponential"}}}
    ds.attrs["config"] = json.dumps(config)  # JSON is YAML
    rec = recommendations(ds)
    said, rows = report.law_differences(ds, rec)
    by_law = rec.set_index(["distribution", "load"])["recommended"]
    differ = [load for load in ds["load"].values if by_law[("trace", load)] != by_law[("fit", load)]]
    assert said == [
        f"On fit the recommendation differs from that on the trace trace at {len(differ)} of 3 (setting, load) points."
    ]
    # seed 4: two points differ, one of them because the cheaper-policy rule picks ZRed over CoC on the trace
    assert len(differ) == 2 and list(rows["load"]) == differ
    assert rows.iloc[0]["on the trace"] == by_law[("trace", differ[0])]
    text = markdown(ds)
    assert "## Where the size law changes the answer" in text and said[0] in text
    ds.attrs["config"] = json.dumps(
        {"distributions": {"trace": {"family": "exponential"}, "fit": {"family": "exponential"}}}
    )
    assert report.law_differences(ds, rec)[0] == []
    assert "## Where the size law changes the answer" not in markdown(ds)


def test_the_report_says_how_sure_the_answer_is_over_the_trace_s_resamples():
    """A trace with resamples (the axis ``trace.resample``): a sentence, and a row per
    (setting, load) point with the share of resamples that give the trace's recommendation;
    robust only where the trace's is one decided policy and every resample decides it.
    The other tables show the trace itself, once."""
    ds = study(
        policies=("ZRed", "CoC"),
        distributions=("trace",),
        dependences=("iid",),
        r_slow=(1.0,),
        seed=10,
        extra={"trace.resample": [0, 1, 2, 3]},
    )
    rec = recommendations(ds)
    said, rows = report.resample_agreement(ds, rec)
    assert len(rows) == 3  # one row per load
    for _, row in rows.iterrows():
        at = rec[rec["load"] == row["load"]].set_index("trace.resample")
        same = int((at.loc[[1, 2, 3], "recommended"] == at.loc[0, "recommended"]).sum())
        assert row["resamples agreeing"] == f"{same} of 3"
        decided = (at["basis"] == "E[T]").all()
        assert (row["robust"] == "yes") == bool(decided and same == 3)
    robust = int((rows["robust"] == "yes").sum())
    assert said == [
        f"The trace trace and 3 resamples of it (n values drawn with replacement): at {robust} of 3 (setting, load) "
        "points every resample decides the trace's recommendation (robust); the table gives the share that agree "
        "at each point."
    ]
    # seed 10: robust at one load; at another the cheaper-policy rule picks CoC on one resample;
    # at the third every resample agrees, on a tie: not robust
    assert robust == 1 and "3 of 3" in set(rows.loc[rows["robust"] == "no", "resamples agreeing"])
    text = markdown(ds)
    assert "## How sure the answer is: resamples of the trace" in text and said[0] in text
    recommendation = text.split("## Recommendation")[1].split("\n\n")[1]
    assert "trace.resample" not in recommendation and len(recommendation.splitlines()) == 2 + 3
    assert report.resample_agreement(study(), recommendations(study()))[0] == []


def test_the_summary_counts_where_theory_and_simulation_disagree_and_sorts_them():
    """An exact value outside the simulation's CI is counted and classed: far outside a
    light-tailed CI it is unexplained; just outside, chance; with an infinite variance,
    heavy tail. The report lists every one with its class."""
    from straggler.decide.disagreements import classify
    from straggler.outputs.report import conflict_sentences

    ds = study(policies=("ZRed", "CoC"), r_slow=(1.0,))
    ds["latency_approx_kind"] = xr.full_like(ds["latency_approx_kind"], "exact")
    ds["latency_approx"] = ds["latency_mean"].isel(load=0, drop=True) * 0 + 100.0  # far above every CI
    said = conflict_sentences(ds)
    assert said and said[0].startswith("An exact value lies outside the simulation's CI at ")
    assert "unexplained" in said[0] and "chance" not in said[0]
    assert any(s in summary(ds) for s in said)
    assert "| unexplained |" in markdown(ds)
    # just outside: 1.2 half-widths is chance among this many comparisons
    near = ds.copy()
    near["latency_approx"] = near["latency_mean"] + 1.2 * near["latency_mean_ci"]
    found = classify(near)
    assert len(found) and set(found["class"]) == {"chance"}
    # the same gap where the CI is unreliable for a heavy tail
    reasons = xr.full_like(near["verdict"], "infinite variance: FCFS: a replica's service time has tail index 2.2")
    heavy = near.assign(ci_reliable_reason=reasons, ci_reliable=xr.zeros_like(near["latency_mean"]))
    assert set(classify(heavy)["class"]) == {"heavy tail"}


def test_every_word_the_report_uses_is_defined_in_its_how_to_read_and_on_the_outputs_page():
    """The terms of the table and the summary (conflict, decided by, margin, extra load, the
    cheaper-policy rule) are defined on the page that shows them, from one table that the
    documentation's outputs page is written from too."""
    from pathlib import Path

    from straggler.outputs.glossary import TERMS

    ds = study(policies=("ZRed", "FRed", "CoC"), r_slow=(0.5, 1.0))
    page = html(ds, {})
    how = page.split('<details class="how-to-read">')[1].split("</details>")[0]
    for term in ("conflict", "decided by", "margin", "extra load", "cheaper-policy rule", "tie set", "oracle"):
        assert f"<dt>{term}</dt>" in how, term
    assert "prefer_cheaper_within" in how and "infinite variance" in how
    for word in ("intervals disjoint", "paired CI of the difference excludes 0", "high ends of the intervals"):
        assert word in TERMS["decided by"], word
    docs = (Path(__file__).parents[2] / "docs" / "reference" / "outputs.md").read_text()
    assert "<!-- generated: terms -->" in docs
