"""The decision figure: drawn only for a study with a ``decision`` section, the SLO and the
budget as lines at their values, the answer ringed, contenders without a finite point
left out and named."""

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from synthetic import crowded_question, study  # noqa: E402

from straggler.decide.decision import answer, constraints, decision_table  # noqa: E402
from straggler.outputs import figures  # noqa: E402
from straggler.outputs.catalog import figure_names  # noqa: E402
from straggler.outputs.figures.decision import SLO_STYLE, deciding_load, panel_points  # noqa: E402

DECISION = "decision: {slo: {quantile: 0.99, target: 6}, budget: {extra_load: 0.4}}\n"


def with_decision(ds, decision: str = DECISION):
    """``ds`` as a study with this ``decision`` section, E[X] = 1 and CIs on its quantiles."""
    ds = ds.copy()
    ds.attrs["config"] = ds.attrs["config"] + decision
    ds["size_mean"] = ds["lambda_max"] * 0 + 1.0
    ds["latency_quantile_ci"] = ds["latency_quantile"] * 0.05
    return ds


@pytest.fixture(scope="module")
def one_setting():
    return with_decision(
        study(
            policies=("ZRed", "KT", "CoC", "CoS"),
            distributions=("exp",),
            dependences=("iid",),
            r_slow=(1.0,),
            d=(2, 3),
            loads=(0.2, 0.5, 0.8),
        )
    )


def axes_with_points(fig):
    return [ax for ax in fig.axes if any(len(line.get_xdata()) == 1 for line in ax.get_lines())]


def straight_lines(ax):
    """(horizontal y values, vertical x values) of the panel's axhline / axvline."""
    flat, upright = [], []
    for line in ax.get_lines():
        x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        if len(x) == 2 and x[0] == 0 and x[1] == 1 and y[0] == y[1]:
            flat.append(float(y[0]))
        if len(y) == 2 and y[0] == 0 and y[1] == 1 and x[0] == x[1]:
            upright.append(float(x[0]))
    return flat, upright


def test_drawn_only_for_a_study_with_a_decision_section(one_setting, tmp_path):
    axes = {d: list(one_setting[d].values) for d in ("policy", "distribution", "dependence", "r_slow", "d", "N")}
    assert "decision" not in figure_names(axes)
    assert "decision" in figure_names(axes, decision=True)
    assert "decision" not in figure_names(axes, simulated=False)  # a quantile SLO needs it; the kind does not
    assert "decision" in figure_names(axes, simulated=False, decision=True)
    assert figures.has_decision(one_setting)
    plain = study(policies=("ZRed", "CoC"), distributions=("exp",), dependences=("iid",), r_slow=(1.0,))
    assert not figures.has_decision(plain)
    assert figures.figure_caption("decision") and "budget" in figures.figure_caption("decision")

    written = {p.name for p in figures.write_figures(one_setting, tmp_path / "with")}
    assert {"decision.png", "decision.svg"} <= written
    written = {p.name for p in figures.write_figures(plain, tmp_path / "without")}
    assert written and not any(n.startswith("decision") for n in written)


def test_the_budget_and_the_slo_are_lines_at_their_values(one_setting):
    fig = figures.make_figure(one_setting, "decision")
    drawn = axes_with_points(fig)
    assert drawn
    for ax in drawn:
        flat, upright = straight_lines(ax)
        assert flat == [6.0] and upright == [0.4]
        lo, hi = ax.get_ylim()
        assert ax.get_yscale() == "log" and lo < 6.0 < hi
        # the feasible corner: from the panel's lower left to (budget, target)
        (corner,) = [p for p in ax.patches if isinstance(p, Rectangle)]
        x0, y0 = corner.get_xy()
        assert x0 + corner.get_width() == pytest.approx(0.4) and y0 + corner.get_height() == pytest.approx(6.0)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert "SLO: P99 ≤ 6" in labels and "budget: extra load ≤ 0.4" in labels
    assert any(t.startswith("CoC – cancel on complete") for t in labels)
    slo = [h for h in fig.legends[0].legend_handles if h.get_label() == "SLO: P99 ≤ 6"]
    assert slo and slo[0].get_linestyle() == SLO_STYLE["ls"]
    plt.close(fig)


def test_points_are_the_contenders_and_the_answer_is_ringed(one_setting):
    """A point per contender but the oracle KT at its extra load and P99 (CIs as bars);
    the ring sits on the answer of :func:`straggler.decide.decision.answer`."""
    table = decision_table(one_setting)
    index = (0,) * len(table.dims)
    points, left_out = panel_points(table, "tail", (*index, 0))
    names = {p.name for p in points}
    assert not any(n.startswith("KT") for n in names | {n for n, _ in left_out})
    assert {"CoC d=2", "CoC d=3", "CoS d=2"} <= names
    for p in points:
        assert p.x_low <= p.x <= p.x_high and p.y_low <= p.y <= p.y_high
    fig = figures.decision_figure(one_setting)
    ax = axes_with_points(fig)[0]  # the lowest load: the first row
    chosen = answer(table, index, 0)["recommended"].split(", ")
    rings = [c for c in ax.collections if isinstance(c, PathCollection) and not len(c.get_facecolors())]
    ringed = {tuple(np.round(c.get_offsets()[0], 9)) for c in rings}
    expected = {(round(p.x, 9), round(p.y, 9)) for p in points if p.name in chosen}
    assert ringed == expected and expected
    assert chosen[0] in ax.get_title()
    plt.close(fig)


def test_unstable_nan_and_infinite_contenders_are_left_out_and_named(one_setting):
    ds = one_setting.copy(deep=True)
    at = dict(distribution="exp", dependence="iid", r_slow=1.0, N=10)
    ds["latency_quantile"].loc[dict(at, policy="CoC", d=3)] = np.nan  # no P99
    ds["cost_mean"].loc[dict(at, policy="CoS", d=3)] = np.inf  # an infinite extra load
    ds["cost"].loc[dict(at, policy="CoS", d=3)] = np.inf
    table = decision_table(ds)
    index = (0,) * len(table.dims)
    points, left_out = panel_points(table, "tail", (*index, 0))
    assert {"CoC d=3", "CoS d=3"} <= {n for n, _ in left_out}
    assert all(math.isfinite(v) for p in points for v in (p.x, p.y, p.x_low, p.x_high, p.y_low, p.y_high))
    # above 0.6 every synthetic policy is unstable (ZRed undetermined): no point there
    points, left_out = panel_points(table, "tail", (*index, 2))
    assert not points and dict(left_out)["CoC d=2"] == "unstable" and dict(left_out)["ZRed d=2"] == "undetermined"

    fig = figures.decision_figure(ds)
    for ax in fig.axes:
        for line in ax.get_lines():
            assert np.isfinite(np.asarray(line.get_xdata(), float)).all()
            assert np.isfinite(np.asarray(line.get_ydata(), float)).all()
    notes = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "CoC d=3" in notes and "CoS d=3" in notes
    # one setting: the loads across, and the load at which nothing is stable has no column
    columns = {ax.get_subplotspec().colspan.start for ax in axes_with_points(fig)}
    assert len(columns) == 2 and len(fig.axes) == 2
    assert "no point at load = 0.8" in fig._suptitle.get_text()  # and the title says so
    plt.close(fig)


def test_nothing_to_draw_is_an_empty_figure(one_setting):
    ds = one_setting.drop_vars("size_mean")  # no E[X]: no extra load
    fig = figures.decision_figure(ds)
    assert any("no contender" in t.get_text() for ax in fig.axes for t in ax.texts)
    plt.close(fig)


def test_a_mean_slo_puts_e_t_on_the_y_axis(one_setting):
    ds = with_decision(
        study(policies=("ZRed", "CoC"), distributions=("exp",), dependences=("iid",), r_slow=(1.0,)),
        "decision: {slo: {mean: 3}}\n",
    )
    assert constraints(ds).level is None
    fig = figures.decision_figure(ds)
    drawn = axes_with_points(fig)
    assert drawn and all(straight_lines(ax) == ([3.0], []) for ax in drawn)
    assert drawn[0].get_ylabel().startswith("E[T]")
    plt.close(fig)


def test_many_settings_get_a_panel_each_at_the_load_that_decides():
    """Sixteen settings (the default study's): a row per case, a column per r_slow, each
    panel at its highest load with an answer (the synthetic P99s pass the SLO at some
    loads and not at others)."""
    ds = with_decision(study(r_slow=(0.1, 0.3, 0.5, 1.0), loads=(0.1, 0.3, 0.5, 0.7, 0.9)))
    table = decision_table(ds)
    expected = []
    for index in np.ndindex(*(ds.sizes[d] for d in table.dims)):
        drawn = [li for li in range(ds.sizes["load"]) if panel_points(table, "tail", (*index, li))[0]]
        answered = [li for li in drawn if answer(table, index, li)["recommended"]]
        # else none qualifies at any load: the lowest load with a point
        expected.append(f"load {ds['load'].values[max(answered) if answered else min(drawn)]:g} → ")
    assert len(set(expected)) > 1  # the loads differ between settings
    fig = figures.decision_figure(ds)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 16
    shown = [ax.get_title().splitlines()[-1] for ax in panels]
    # the panels in the settings' order: dims (distribution, dependence, r_slow, d, N)
    assert all(title.startswith(want) for title, want in zip(shown, expected)), (shown, expected)
    tops = {ax.get_title().splitlines()[0] for ax in panels if len(ax.get_title().splitlines()) == 2}
    assert tops == {"r_slow=0.1", "r_slow=0.3", "r_slow=0.5", "r_slow=1"}
    rows = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_rotation() == 270]
    assert rows == ["exp, identical", "exp, iid", "pareto, identical", "pareto, iid"]
    plt.close(fig)


def test_deciding_load_prefers_the_highest_load_with_an_answer():
    from straggler.outputs.figures.decision import Panel, Point

    point = Point("CoC", "CoC", 0, 0, 0, 1, 1, 1)
    panels = [
        Panel((0,), 0, [point], answer={"recommended": "CoC"}),
        Panel((0,), 1, [point], answer={"recommended": "CoC"}),
        Panel((0,), 2, [point], answer={"recommended": ""}),
        Panel((0,), 3, [], answer={"recommended": ""}),
    ]
    assert deciding_load(panels).li == 1
    assert deciding_load([p for p in panels if p.li >= 2]).li == 2  # none qualifies: the lowest with a point
    assert deciding_load(panels[3:]) is None


def test_drawing_it_imports_no_numba():
    """The figure's own imports pull no numba (a paired comparison of replications,
    :func:`straggler.decide.winners.beats`, is not the figure's)."""
    import subprocess
    import sys
    from pathlib import Path

    tests = Path(__file__).resolve().parents[2]
    code = f"""
import sys
sys.path.insert(0, {str(tests)!r})
from synthetic import study
ds = study(policies=("ZRed", "CoC"), distributions=("exp",), dependences=("iid",), r_slow=(1.0,))
ds.attrs["config"] += "decision: {{budget: {{extra_load: 0.5}}}}\\n"
ds["size_mean"] = ds["lambda_max"] * 0 + 1.0
from straggler.outputs.figures import make_figure
make_figure(ds, "decision")
assert "numba" not in sys.modules, [m for m in sys.modules if m.startswith("numba")][:3]
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.fixture(scope="module")
def crowded():
    """A question with 16 contenders at one load: the case whose names overlapped."""
    return crowded_question()


def label_boxes(fig):
    """Per panel, the window boxes of the contenders' names (the annotations)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [
        [t.get_window_extent(renderer) for t in ax.texts if t.__class__.__name__ == "Annotation"]
        for ax in axes_with_points(fig)
    ]


def test_no_two_names_overlap_and_every_contender_is_named(crowded, one_setting):
    """The names are placed where they cover no other name: the boxes, measured on the
    drawn figure, are pairwise disjoint; a name with no such place within reach is
    listed under the panel instead, so every contender is named once."""
    for ds in (crowded, one_setting):
        fig = figures.decision_figure(ds)
        for ax, boxes in zip(axes_with_points(fig), label_boxes(fig)):
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    w = min(a.x1, b.x1) - max(a.x0, b.x0)
                    h = min(a.y1, b.y1) - max(a.y0, b.y0)
                    assert not (w > 0 and h > 0), (a, b)
            named = [t.get_text() for t in ax.texts if t.__class__.__name__ == "Annotation"]
            crowded_out = (
                ax.get_xlabel().split("too crowded: ", 1)[1].rstrip(")").split(", ")
                if "crowded" in ax.get_xlabel()
                else []
            )
            assert len(named) + len(crowded_out) == len(set(named) | set(crowded_out))
        plt.close(fig)


def test_one_answer_s_panel_is_at_least_as_large_as_its_legend(crowded):
    fig = figures.decision_figure(crowded)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (ax,) = axes_with_points(fig)
    panel = ax.get_window_extent(renderer)
    legend = fig.legends[0].get_window_extent(renderer)
    assert panel.width * panel.height >= legend.width * legend.height
    plt.close(fig)


def test_contenders_that_need_the_servers_are_hollow(crowded):
    """A client alone runs ZRed, CoC and Hedge (filled markers); the others need the
    servers (hollow: a white face), and the legend says which is which."""
    from matplotlib.colors import to_rgba

    from straggler.decide.deploy import is_deployable

    fig = figures.decision_figure(crowded)
    ax = axes_with_points(fig)[0]
    faces = {}
    for line in ax.get_lines():
        if len(line.get_xdata()) == 1 and line.get_marker() not in ("None", None, "", "|", "_"):  # not the caps
            faces[line.get_color()] = to_rgba(line.get_markerfacecolor()) == to_rgba("white")
    handles = {h.get_label().split(" – ")[0]: h for h in fig.legends[0].legend_handles}
    drawn = [p for p in ("ZRed", "FRed", "Rer", "Rep", "CoC", "CoS", "RIQ", "Hedge") if p in handles]
    assert {"CoC", "Hedge", "CoS", "RIQ"} <= set(drawn)
    for policy in drawn:
        hollow = to_rgba(handles[policy].get_markerfacecolor()) == to_rgba("white")
        assert hollow == (not is_deployable(policy)), policy
    assert "hollow: needs the servers" in handles
    assert set(faces.values()) == {True, False}
    plt.close(fig)


def test_a_contender_over_the_hedges_budget_is_named_so():
    """The x axis is the extra load: a budget of hedges per job has no line there, so a
    contender surely over it says so in its name (here every contender sends 2 copies:
    1 hedge per job, over 0.5)."""
    import yaml

    ds = crowded_question()
    ds.attrs["config"] += yaml.safe_dump({"decision": {"budget": {"hedges": 0.5}}})
    ds["copies_mean"] = ds["latency_mean"] * 0 + 2.0
    ds["copies_mean_ci"] = ds["latency_mean"] * 0 + 0.01
    fig = figures.decision_figure(ds)
    (ax,) = axes_with_points(fig)
    names = [t.get_text() for t in ax.texts if t.__class__.__name__ == "Annotation"]
    assert names and all(n.endswith("(hedges > budget)") for n in names)
    plt.close(fig)
