"""The report's first screen (:mod:`straggler.outputs.headline`): a sentence per case with the
runs of loads and their extra load, the table grouped by setting with runs of "no policy
stable" folded, and, in a real browser, the sentences and the winners map on the first
screen of report.html."""

from __future__ import annotations

import json
import shutil
import subprocess

import pandas as pd
import pytest

from straggler.decide.winners import NONE_STABLE
from straggler.outputs import headline


def rows(case: str, r_slow: float, picks: list[tuple[float, str, str]]) -> list[dict]:
    """Recommendation rows: (load, recommended, extra load shown)."""
    return [
        {
            "distribution": case,
            "r_slow": r_slow,
            "load": load,
            "recommended": rec,
            "basis": NONE_STABLE if rec == "" else "E[T]",
            "extra load": extra,
        }
        for load, rec, extra in picks
    ]


def test_a_case_is_one_sentence_of_runs_with_their_extra_load():
    rec = pd.DataFrame(
        rows("exp", 0.1, [(0.1, "FRed", "[1.071, 1.092]"), (0.3, "FRed", "[1.02, 1.05]"), (0.5, "", ""), (0.7, "", "")])
        + rows("exp", 1.0, [(0.1, "CoS", "0"), (0.3, "CoS", "0"), (0.5, "CoC, CoS", "[-0.01, 0.01]"), (0.7, "", "")])
    )
    (said,) = headline.sentences(rec, ["distribution", "r_slow"])
    assert said == (
        "exp: r_slow 0.1: FRed at loads 0.1-0.3 (extra load +102 % to +109 %), no policy stable from load 0.5; "
        "r_slow 1: CoS at loads 0.1-0.3 (extra load +0 %), tie {CoC, CoS} at load 0.5 (extra load -1 % to +1 %), "
        "no policy stable at load 0.7."
    )


def test_settings_with_the_same_runs_are_said_once():
    rec = pd.DataFrame(
        rows("pareto", 0.0, [(0.3, "Hedge", "0"), (0.7, "Hedge", "0.04")])
        + rows("pareto", 0.1, [(0.3, "Hedge", "0.01"), (0.7, "Hedge", "0.07")])
    ).rename(columns={"r_slow": "cancel_delay"})
    assert headline.sentences(rec, ["distribution", "cancel_delay"]) == [
        "pareto, at every cancel_delay: Hedge at loads 0.3-0.7 (extra load +0 % to +7 %)."
    ]


def test_the_table_is_grouped_by_setting_and_a_run_of_no_policy_stable_is_one_row():
    rec = pd.DataFrame(
        rows("exp", 0.1, [(0.1, "FRed", "1.07"), (0.5, "", ""), (0.7, "", ""), (0.9, "", "")])
        + rows("exp", 1.0, [(0.1, "CoS", "0"), (0.5, "CoS", "0"), (0.7, "CoS", "0"), (0.9, "CoS", "0")])
    )
    frame = rec[["distribution", "r_slow", "load", "recommended", "basis", "extra load"]]
    groups = headline.grouped(frame, rec, ["distribution", "r_slow"])
    assert [title for title, _ in groups] == [
        "distribution exp, r_slow 0.1: FRed at load 0.1 (extra load +107 %), no policy stable from load 0.5",
        "distribution exp, r_slow 1: CoS at loads 0.1-0.9 (extra load +0 %)",
    ]
    first = groups[0][1]
    assert list(first["load"]) == [0.1, "0.5-0.9"] and "r_slow" not in first
    assert len(groups[1][1]) == 4


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# a page's layout, read by the browser itself: the script writes the boxes into the
# title, which --dump-dom prints
PROBE = """<script>
addEventListener("load", () => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; };
  const map = document.querySelector("figure[id^='fig-winners_']");
  document.title = JSON.stringify({headline: box(document.getElementById("headline")),
                                   map: map ? box(map) : null, height: innerHeight});
});
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium (Debian's chromium package)")
def test_the_first_screen_of_report_html_holds_the_answer_and_the_winners_map(tmp_path):
    """In a 1400 x 1000 window: the report opens on the winners map, the answer as a
    picture, with at least its first row of panels and its key (beside them, 300 px) on the
    first screen; the sentences follow it, starting within the second screen. Before, the
    map started about 4,300 px down, then below six lines of text with its key 1,950 px
    down."""
    from synthetic import study

    from straggler.outputs.figures import write_figures
    from straggler.outputs.report import html

    ds = study(policies=("ZRed", "FRed", "CoC"), r_slow=(0.3, 1.0), loads=(0.1, 0.3, 0.5, 0.7, 0.9))
    write_figures(ds, tmp_path / "figures", ["winners_r_slow"])
    page = html(ds, {"winners_r_slow": tmp_path / "figures" / "winners_r_slow.png"})
    path = tmp_path / "report.html"
    path.write_text(page.replace("</body>", PROBE))
    out = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    layout = json.loads(out.split("<title>", 1)[1].split("</title>", 1)[0].replace("&quot;", '"'))
    fold = layout["height"]
    top, bottom = layout["map"]
    assert top <= 200 and top + 300 <= fold, layout
    assert bottom <= layout["headline"][0] <= 2 * fold, layout
