"""Every shipped study validates and has cells; a cell of each evaluates."""

from dataclasses import replace
from pathlib import Path

import pytest

from straggler.outputs.figures import figure_names
from straggler.study.config import ResolvedConfig, load_config, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]
STUDIES = [ROOT / "config" / "config.yaml", *sorted((ROOT / "config" / "studies").glob("*.yaml"))]


@pytest.mark.parametrize("path", STUDIES, ids=[p.stem for p in STUDIES])
def test_study_resolves_and_its_first_cell_evaluates_analytically(path):
    resolved = resolve_config(load_config(path))
    grid = build_grid(resolved)
    assert grid.cells and not grid.impossible
    assert resolved.study == ("default" if path.stem == "config" else path.stem)
    assert "stability" in figure_names(grid.axes)
    analytic = replace(resolved, evaluate=("analytic",))
    ds = evaluate_cell(analytic, next(iter(grid.cells)))
    assert ds["lambda_max_kind"].item() != "" or ds.attrs["notes"] != "[]"


def test_speculation_fig2_quick_and_paper_scales():
    """The paper's Fig. 2: quick runs in the body; at scale paper (results/speculation_fig2-paper/)
    runs of the paper's 10^7 jobs, from 10 up to the paper's 50 a point, until the precision."""
    raw = load_config(ROOT / "config" / "studies" / "speculation_fig2.yaml")
    quick = resolve_config(raw).to_dict()
    paper = resolve_config(dict(raw, scale="paper")).to_dict()
    assert quick["study"] == "speculation_fig2" and paper["study"] == "speculation_fig2-paper"
    sim = paper["simulation"]
    assert sim["jobs"] == 10_000_000 and sim["replications"] == 10 and sim["max_jobs"] == 50 * 10_000_000
    assert 0 < sim["precision"] < 0.05
    assert quick["simulation"]["jobs"] * quick["simulation"]["replications"] <= 2e7
    assert quick["grid"]["N"] == [50] and quick["grid"]["d"] == [2, 4]
    assert set(quick["grid"]["policy"]) == {"Rer", "CoC", "CoS", "RIQ"}
    assert quick["policies"]["Rer"]["tau"] == "opt"
    assert (
        len(build_grid(ResolvedConfig.from_dict(paper)).cells)
        == len(build_grid(ResolvedConfig.from_dict(quick)).cells)
        == 28
    )
