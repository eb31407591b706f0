"""Figures: one colour and marker per policy everywhere, values drawn by kind, the new
figures (trade-off, winner maps, theory against simulation, tail)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from synthetic import study  # noqa: E402

from straggler.model.policies import POLICIES  # noqa: E402
from straggler.outputs import figures  # noqa: E402


def test_every_canonical_policy_has_its_own_colour_and_marker():
    style = figures.policy_style()
    assert list(style) == list(POLICIES)
    colours = [tuple(np.round(s["colour"], 4)) for s in style.values()]
    markers = [s["marker"] for s in style.values()]
    assert len(set(colours)) == len(colours) and len(set(markers)) == len(markers)
    grey = (0.498, 0.498, 0.498)  # the maps' "no winner"
    assert all(np.abs(np.subtract(c, grey)).max() > 0.05 for c in colours)
    assert figures.policy_colours()["CoC"] == style["CoC"]["colour"]
    assert figures.policy_markers()["CoC"] == style["CoC"]["marker"]


def test_a_registry_past_the_twelve_markers_still_styles_every_policy():
    # a 13th policy once fell off the end of the markers and got no style at all
    from straggler.outputs.figures.style import styles_for

    names = tuple(f"P{i}" for i in range(36))
    style = styles_for(names)
    assert list(style) == list(names)
    pairs = {(tuple(np.round(s["colour"], 4)), s["marker"]) for s in style.values()}
    assert len(pairs) == len(names)


def policy_artists(fig):
    """(policy, colour, marker) of every legend entry named after a policy."""
    out = []
    for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]:
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            label = text.get_text()
            policy = label.split(",")[0].split(" ")[0].removesuffix(":")  # "FRed: full redundancy"
            if policy in POLICIES and hasattr(handle, "get_marker"):
                out.append((policy, label, to_rgb(handle.get_color()), handle.get_marker()))
    return out


def check_policy_styles(fig):
    """Legend entries of a policy have its marker, and its colour unless they are one of
    its shades (``policy, variant``); every line in a policy's colour has its marker."""
    style = figures.policy_style()
    seen = set()
    for policy, label, colour, marker in policy_artists(fig):
        assert marker == style[policy]["marker"], (label, marker)
        if label == policy or label.startswith(f"{policy}: "):
            assert np.allclose(colour, style[policy]["colour"], atol=1e-3), label
        seen.add(policy)
    by_colour = {tuple(np.round(s["colour"], 3)): s["marker"] for s in style.values()}
    for ax in fig.axes:
        for line in ax.get_lines():
            key = tuple(np.round(to_rgb(line.get_color()), 3))
            if key in by_colour and line.get_marker() not in ("None", "", None, "_", "|"):
                assert line.get_marker() == by_colour[key], (line.get_label(), key)
    return seen


@pytest.fixture(scope="module")
def synthetic():
    return study(
        policies=("ZRed", "FRed", "Rer", "Rep", "KT", "CoC", "CoS"),
        r_slow=(0.1, 1.0),
        d=(2, 4),
        loads=(0.1, 0.3, 0.5, 0.7, 0.9),
    )


def test_a_policy_has_one_colour_and_marker_in_every_figure(synthetic):
    names = figures.figure_names(
        {d: list(synthetic[d].values) for d in ("policy", "distribution", "dependence", "r_slow", "d", "N")}
    )
    assert {
        "tradeoff",
        "tail",
        "theory_vs_simulation",
        "winners_r_slow",
        "winners_d",
        "latency_by_distribution",
        "latency_vs_d",
        "stability_vs_d",
    } <= set(names)
    seen = {}
    for name in names:
        fig = figures.make_figure(synthetic, name)
        seen[name] = check_policy_styles(fig)
        plt.close(fig)
    # the figures that compare policies name them in their legends
    for name in ("stability", "latency", "tradeoff", "tail", "latency_by_distribution", "winners_r_slow"):
        assert seen[name], name


def test_latency_by_distribution_gives_each_policy_its_colour(synthetic):
    """Fourteen series (seven policies, two dependences) in seven colours: the policy's
    colour and marker, the dependence in the marker's fill."""
    fig = figures.latency_by_distribution_figure(synthetic)
    style = figures.policy_style()
    fills = set()
    for ax in fig.axes:
        for line in ax.get_lines():
            if (
                line.get_marker() in ("None", "", None, "_", "|")
                or not np.isfinite(np.asarray(line.get_ydata(), float)).any()
            ):
                continue
            colour = tuple(np.round(to_rgb(line.get_color()), 3))
            owners = [p for p, s in style.items() if tuple(np.round(s["colour"], 3)) == colour]
            assert owners and line.get_marker() == style[owners[0]]["marker"]
            fills.add(line.get_fillstyle())
    assert {"full", "none"} <= fills
    plt.close(fig)


def test_load_panels_are_in_increasing_order():
    ds = study(loads=(0.9, 0.1, 0.7, 0.3))
    fig = figures.latency_vs_figure(study(d=(1, 2, 4), loads=(0.9, 0.1, 0.7, 0.3)), "d")
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles[:4] == ["load = 0.1", "load = 0.3", "load = 0.7", "load = 0.9"]
    plt.close(fig)
    assert list(figures.shown_loads(ds)) == [0.1, 0.3, 0.7, 0.9]


def test_a_line_never_joins_values_of_different_kinds():
    fig, ax = plt.subplots()
    kinds = figures.draw_analytic(
        ax, [1, 2, 5, 10], [1.0, 2.0, 2.5, 1.2], ["exact", "upper bound", "upper bound", "exact"], "CoC"
    )
    assert kinds == {"exact", "upper bound"}
    lines = [line for line in ax.get_lines()]
    assert [len(line.get_xdata()) for line in lines] == [1, 2, 1]
    assert [line.get_linestyle() for line in lines] == ["-", ":", "-"]
    # the bound-only points are ringed
    assert len(ax.collections) == 1 and len(ax.collections[0].get_offsets()) == 2
    plt.close(fig)


def test_legends_name_the_kind_not_analysis(synthetic):
    fig = figures.stability_figure(synthetic)
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert "exact" in labels and {"proven interval", "at most (proven high end)"} & set(labels)
    assert not any("analysis" in label for label in labels)
    plt.close(fig)
    fig = figures.latency_figure(synthetic)
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert "upper bound" in labels and any(t.startswith("simulation") for t in labels)
    plt.close(fig)


def test_approximations_are_dashed():
    assert figures.KIND_STYLE["approximation"]["ls"] == "--"
    assert figures.kind_label("approximation") == "approximation"
    assert figures.kind_label("necessary") == "upper bound"
    assert figures.kind_label("necessary", inverse=True) == "lower bound"


def test_pareto_front_and_relative_error():
    points = [(1.0, 5.0), (2.0, 3.0), (2.5, 4.0), (3.0, 1.0), (1.0, 6.0)]
    assert figures.pareto_front(points) == [0, 1, 3]
    err, low, high = figures.relative_error([1.1], [1.0], [0.05])
    assert err[0] == pytest.approx(0.1)
    assert low[0] == pytest.approx(1.1 / 1.05 - 1) and high[0] == pytest.approx(1.1 / 0.95 - 1)


def test_simulated_figures_only_when_the_study_simulates():
    axes = {
        "policy": ["ZRed", "CoC"],
        "distribution": ["exp"],
        "dependence": ["iid"],
        "r_slow": [1.0],
        "d": [1, 2],
        "N": [4],
    }
    assert "tail" in figures.figure_names(axes) and "tradeoff" in figures.figure_names(axes)
    assert "tail" not in figures.figure_names(axes, simulated=False)
    assert figures.map_axes(axes) == ["d"]
    assert figures.map_axes(dict(axes, policy=["CoC"])) == []


def test_unstable_and_undetermined_loads_are_marks_not_estimates(synthetic):
    """The synthetic policies are unstable above 0.6 and ZRed undetermined at 0.9: no
    simulated point is drawn there, a mark at the foot is."""
    fig = figures.latency_figure(synthetic.sel(policy=["ZRed", "CoC"]))
    marked = [
        c
        for ax in fig.axes
        for c in ax.collections
        if len(c.get_offsets()) and np.all(np.asarray(c.get_offsets())[:, 1] < 0.3)
    ]
    assert marked
    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_marker() not in ("None", "") and line.get_markerfacecolor() != "white":
                x = np.asarray(line.get_xdata(), float)
                assert not (x > 0.6).any()
    plt.close(fig)


def test_captions_are_per_figure():
    caps = {n: figures.figure_caption(n) for n in ("stability", "tradeoff", "winners_d", "latency_vs_d", "tail")}
    assert len(set(caps.values())) == len(caps)
    assert "d" in caps["winners_d"] and "``" not in caps["latency_vs_d"]


def test_stability_is_drawn_as_intervals_and_half_lines(synthetic):
    """A necessary bound is an arrow from its end (an annotation), never a point on
    a line like an exact value."""
    fig = figures.stability_figure(synthetic)
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    arrows = [a for ax in fig.axes for a in ax.texts if getattr(a, "arrow_patch", None) is not None]
    assert arrows or "proven interval" in labels
    assert "upper bound" not in labels
    plt.close(fig)


def test_verdict_marks_sit_outside_the_data_area(synthetic):
    fig = figures.latency_figure(synthetic)
    fig.canvas.draw()
    marks = 0
    for ax in fig.axes:
        box = ax.get_window_extent()
        for coll in ax.collections:
            offsets = coll.get_offsets()
            if not len(offsets) or coll.get_transform() == ax.transData:
                continue
            pts = coll.get_transform().transform(offsets)
            marks += len(pts)
            assert (pts[:, 1] < box.y0).all()  # under the panel, not on it
    assert marks
    plt.close(fig)


def test_simulated_cis_are_clipped_at_zero(synthetic):
    ds = synthetic.copy()
    ds["latency_mean_ci"] = ds["latency_mean"] * 3  # a CI reaching below 0
    fig = figures.latency_figure(ds)
    for ax in fig.axes:
        if ax.get_yscale() == "log":
            assert ax.get_ylim()[0] > 0.05
    plt.close(fig)


def test_cost_figure_draws_the_simulated_cost():
    fig = figures.cost_figure(study(policies=("ZRed", "CoC"), r_slow=(0.3, 1.0)))
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any(t.startswith("simulation") for t in labels)
    plt.close(fig)


def test_winner_map_shows_ties_as_ties(synthetic):
    fig = figures.winner_map_figure(synthetic, "r_slow")
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any(t.startswith("tie") for t in labels)
    plt.close(fig)


def test_the_winner_map_spells_out_each_policy_within_the_figure_width(synthetic):
    """The map is the picture of the answer: its legend says what each policy it draws
    is, in the registry's words (the glossary's), and stays as wide as the figure."""
    fig = figures.winner_map_figure(synthetic, "r_slow")
    fig.canvas.draw()
    (legend,) = fig.legends
    labels = [" ".join(t.get_text().split()) for t in legend.get_texts()]
    named = [label.split(":")[0] for label in labels if label.split(":")[0] in POLICIES]
    assert len(named) >= 3
    for policy in named:
        assert f"{policy}: {POLICIES[policy].title}" in labels
    assert legend.get_window_extent().width <= fig.bbox.width
    plt.close(fig)


def test_variants_that_are_other_systems_are_named_as_such():
    """The PS bound systems are named by what they are, in the legend, and a point's
    label on the trade-off figure is its value (a named value is no 'axis=value')."""
    ds = study(policies=("CoC",), r_slow=(1.0,), extra={"CoC.ps_bound": ["none", "lower", "upper"]})
    fig = figures.make_figure(ds, "latency_by_variant")
    labels = {t.get_text() for legend in fig.legends for t in legend.get_texts()}
    assert {
        "original system",
        "lower-bound system, 1/min (simulated)",
        "upper-bound system, 1/max (simulated)",
    } <= labels
    fig = figures.make_figure(ds, "tradeoff")
    texts = {t.get_text() for ax in fig.axes for t in ax.texts}
    assert {"none", "lower", "upper"} <= texts


def test_every_figure_kind_is_drawn_captioned_and_placed():
    """The table of figure kinds is whole: each names a function of the figures package,
    a section of report.html and a caption file of the Snakemake report, and every
    caption file belongs to a kind."""
    import importlib
    from pathlib import Path

    from straggler.outputs.catalog import FIGURE_KINDS
    from straggler.outputs.report import SECTIONS

    root = Path(__file__).resolve().parents[3]
    rst = root / "workflow" / "report" / "figures"
    # a section of report.html, or a place its template puts figures (the decision
    # figures sit under the answer, in the summary)
    template = (root / "src" / "straggler" / "outputs" / "templates" / "report.html.j2").read_text()
    for kind in FIGURE_KINDS:
        module, function = kind.draw.split(":")
        assert callable(getattr(importlib.import_module(f"straggler.outputs.figures.{module}"), function)), kind.name
        assert kind.section in SECTIONS or f"figures.{kind.section})" in template, kind.name
        assert kind.caption, kind.name
        assert (rst / f"{kind.family}.rst").is_file(), kind.name
    assert {p.stem for p in rst.glob("*.rst")} == {kind.family for kind in FIGURE_KINDS}


def test_cost_against_a_swept_parameter_is_the_extra_load_with_bars_down_to_minus_one():
    """``cost_vs_<axis>`` draws E[C]/E[X] - 1, what a budget counts; a copy cancelled
    early can make it negative (down to -1, no server time), and its CI bar reaches below 0."""
    from straggler.outputs.figures.against_axis import against_axis_figure

    ds = study(policies=("ZRed", "CoC"), r_slow=(1.0,), extra={"cancel_delay": [0.0, 0.1]})
    ds["size_mean"] = xr.full_like(ds["lambda_max"], 2.0)
    ds["cost_mean"] = xr.full_like(ds["cost_mean"], 1.6)  # extra load -0.2
    ds["cost_mean_ci"] = xr.full_like(ds["cost_mean_ci"], 0.2)  # +- 0.1 in extra load
    fig = against_axis_figure(ds, "cost", "cancel_delay")
    drawn = [ax for ax in fig.axes if ax.get_ylabel()]
    assert drawn and all(ax.get_ylabel() == "extra load E[C]/E[X] - 1" for ax in drawn)
    ys = np.concatenate([line.get_ydata() for ax in fig.axes for line in ax.get_lines()])
    assert np.isclose(ys, -0.2).any() and np.isclose(ys, -0.3).any()  # a point and its bar's lower end
    assert "Extra load" in fig._suptitle.get_text()
    plt.close(fig)
    # against a policy's own parameter, E[C] as the papers draw it
    ds = study(policies=("ZRed", "Hedge"), r_slow=(1.0,), extra={"Hedge.delay": [0.5, 2.0]})
    ds["size_mean"] = xr.full_like(ds["lambda_max"], 2.0)
    fig = against_axis_figure(ds, "cost", "Hedge.delay")
    assert {ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()} == {"E[server time per job]"}
    plt.close(fig)


def test_an_integer_axis_is_ticked_at_its_values():
    """latency_vs_d: d is a count of copies, ticked at 2 and 4, never at 2.5."""
    fig = figures.latency_vs_figure(study(policies=("ZRed", "CoC"), r_slow=(1.0,), d=(2, 3, 4)), "d")
    ticked = [list(ax.get_xticks()) for ax in fig.axes if ax.get_lines()]
    assert ticked and all(t == [2.0, 3.0, 4.0] for t in ticked), ticked
    plt.close(fig)


def test_the_effective_load_figure_draws_saturation_at_one():
    fig = figures.load_figure(study(policies=("ZRed", "CoC"), r_slow=(0.5, 1.0)))
    drawn = [ax for ax in fig.axes if ax.get_lines()]
    assert drawn and all(any(list(line.get_ydata()) == [1.0, 1.0] for line in ax.get_lines()) for ax in drawn)
    plt.close(fig)


def test_a_figure_that_draws_four_loads_of_five_says_which_it_left_out():
    ds = study(policies=("ZRed", "CoC"), r_slow=(1.0,), loads=(0.1, 0.3, 0.5, 0.7, 0.9))
    fig = figures.latency_by_distribution_figure(ds)
    assert "load 0.5 not drawn (at most 4 panels)" in fig._suptitle.get_text()
    plt.close(fig)
    fig = figures.latency_by_distribution_figure(study(policies=("ZRed", "CoC"), r_slow=(1.0,)))
    assert "not drawn" not in fig._suptitle.get_text()
    plt.close(fig)


def _label_heights(fig) -> dict:
    """Row of panels -> the heights (pixels) of the tops of its visible x tick labels."""
    fig.canvas.draw()
    rows: dict = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None or not ax.axison:
            continue
        tops = [t.get_window_extent().y1 for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        rows.setdefault((id(spec.get_gridspec()), spec.rowspan.stop), []).extend(tops)
    return rows


def test_the_x_tick_labels_of_a_row_of_panels_share_one_height():
    """A verdict strip moves a panel's x tick labels below it: at r_slow = 1 only ZRed
    has a mark (one row of strip), at 0.5 all three (three rows); the labels of both
    panels of a row still sit at one height."""
    ds = study(policies=("ZRed", "FRed", "CoC"), r_slow=(0.5, 1.0), loads=(0.2, 0.5, 0.8))
    verdict = ds["verdict"].values  # policy, distribution, dependence, r_slow, d, N, load
    verdict[1:, :, :, 1] = "stable"
    ds["verdict"] = (ds["verdict"].dims, verdict)
    for draw in (figures.latency_figure, figures.tail_figure):
        fig = draw(ds)
        rows = _label_heights(fig)
        assert any(len(tops) > 3 for tops in rows.values())
        for tops in rows.values():
            assert max(tops, default=0) - min(tops, default=0) < 0.5, (draw.__name__, tops)
        plt.close(fig)


def _bar_boxes(fig) -> list:
    """(axes, x0, x1, y0, y1) in pixels of every bar of the stability figure: a patch, or
    a vertical line segment as wide as its line."""
    fig.canvas.draw()
    out = []
    for ax in fig.axes:
        out += [(ax, *p.get_window_extent().extents[[0, 2, 1, 3]]) for p in ax.patches]
        for line in ax.get_lines():
            x, y = (np.asarray(v, float) for v in line.get_data())
            if len(x) == 2 and x[0] == x[1] and y[0] != y[1] and line.get_linestyle() == "-":
                (px, py0), (_, py1) = ax.transData.transform(np.column_stack([x, y]))
                half = line.get_linewidth() * fig.dpi / 72 / 2
                out.append((ax, px - half, px + half, min(py0, py1), max(py0, py1)))
    return out


def test_the_bars_of_the_stability_figure_do_not_overlap():
    """Seven policies' intervals side by side at each r_slow: no bar covers another."""
    policies = ("ZRed", "FRed", "Rer", "Rep", "KT", "CoC", "CoS")
    for r_slow in ((0.1, 0.3, 0.5, 1.0), (0.0, 0.01, 0.1)):
        fig = figures.stability_figure(study(policies=policies, r_slow=r_slow, loads=(0.2, 0.5)))
        boxes = _bar_boxes(fig)
        assert len(boxes) >= 2 * len(r_slow) * (len(policies) - 1)
        for i, (ax, x0, x1, y0, y1) in enumerate(boxes):
            for bx, u0, u1, v0, v1 in boxes[i + 1 :]:
                overlap = min(x1, u1) - max(x0, u0) > 0.01 and min(y1, v1) - max(y0, v0) > 0.01
                assert not (bx is ax and overlap), (r_slow, (x0, x1), (u0, u1))
        plt.close(fig)


def test_the_tradeoff_is_drawn_over_r_slow_where_costs_differ():
    """At r_slow = 1 every policy's E[C] is about one job's size: a study that sweeps
    r_slow gets a column per value of it, at the heaviest load where half the policies
    have estimates at every r_slow, and says so in its title."""
    ds = study(policies=("ZRed", "FRed", "Rep", "CoC"), r_slow=(0.1, 0.5, 1.0), loads=(0.2, 0.5, 0.8))
    # at r_slow = 0.1 only ZRed has an estimate at load 0.5: the figure is drawn at 0.2
    for var in ("latency_mean", "cost_mean"):
        ds[var].loc[dict(policy=["FRed", "Rep", "CoC"], r_slow=0.1, load=0.5)] = np.nan
    fig = figures.tradeoff_figure(ds)
    assert [ax.get_title() for ax in fig.axes[:3]] == ["r_slow = 0.1", "r_slow = 0.5", "r_slow = 1"]
    assert "load = 0.2" in fig._suptitle.get_text()
    first = ds.sel(distribution="exp", dependence="identical", load=0.2).isel(d=0, N=0)
    for ax, r_slow in zip(fig.axes[:3], (0.1, 0.5, 1.0)):
        points = [line for line in ax.get_lines() if len(line.get_xdata()) == 1 and line.get_marker() not in "|_"]
        drawn = {round(float(line.get_xdata()[0]), 6) for line in points}
        expected = {round(float(c), 6) for c in first["cost_mean"].sel(r_slow=r_slow).values}
        assert drawn == expected, r_slow
    plt.close(fig)
    # without r_slow swept, a column per load as before
    fig = figures.tradeoff_figure(study(policies=("ZRed", "CoC"), r_slow=(1.0,), loads=(0.2, 0.5)))
    assert [ax.get_title() for ax in fig.axes[:2]] == ["load = 0.2", "load = 0.5"]
    plt.close(fig)


def test_the_fleet_figure_draws_each_policy_against_n_beside_its_limit():
    """A study over N gets the fleet figure: each policy's simulated quantile and extra load
    at each N (filled markers), and its limit as one horizontal line to the right edge."""
    import math

    import matplotlib.pyplot as plt
    import numpy as np

    from straggler.outputs.catalog import figure_names
    from straggler.outputs.figures.fleet import fleet_figure

    ds = study(policies=("ZRed", "CoC"), distributions=("exp",), dependences=("iid",), r_slow=(1.0,), N=(10, 100, 1000))
    assert "fleet" in figure_names(
        {k: list(ds[k].values) for k in ("policy", "distribution", "dependence", "r_slow", "d", "N")}, simulated=True
    )
    shape = ds["latency_mean"].shape + (len(ds["quantile"]),)
    ds["latency_approx_quantile"] = (ds["latency_quantile"].dims, np.full(shape, 3.0))
    ds["latency_approx_quantile_kind"] = (
        ds["latency_approx_kind"].dims,
        np.full(ds["latency_approx_kind"].shape, "mean-field", dtype=object),
    )
    ds["cost_approx"] = (ds["latency_mean"].dims, np.full(ds["latency_mean"].shape, 1.5))
    ds["size_mean"] = (ds["cost"].dims, np.ones(ds["cost"].shape))
    ds["stable"] = (ds["verdict"].dims, np.where(ds["verdict"].values == "stable", 1.0, math.nan))
    fig = fleet_figure(ds)
    top = fig.axes[0]
    assert top.get_xscale() == "log" and top.get_yscale() == "log"
    limits = [line for line in top.get_lines() if len(set(line.get_ydata())) == 1 and line.get_ydata()[0] == 3.0]
    assert len(limits) >= 2  # a line and its end marker for each policy with a limit
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("mean-field" in t for t in legend) and "ZRed" in legend and "CoC" in legend
    plt.close(fig)
    one = study(N=(10,))
    assert "fleet" not in figure_names(
        {k: list(one[k].values) for k in ("policy", "distribution", "dependence", "r_slow", "d", "N")}, simulated=True
    )
