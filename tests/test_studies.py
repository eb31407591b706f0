"""Every shipped study validates and has cells; a cell of each evaluates."""

from pathlib import Path

import pytest

from straggler.config import load_config, resolve_config
from straggler.evaluate import evaluate_cell
from straggler.grid import build_grid
from straggler.plots import figure_names

ROOT = Path(__file__).resolve().parents[1]
STUDIES = [ROOT / "config" / "config.yaml", *sorted((ROOT / "config" / "studies").glob("*.yaml"))]


@pytest.mark.parametrize("path", STUDIES, ids=[p.stem for p in STUDIES])
def test_study_resolves_and_its_first_cell_evaluates_analytically(path):
    resolved = resolve_config(load_config(path))
    grid = build_grid(resolved)
    assert grid.cells and not grid.impossible
    assert resolved["study"] == ("default" if path.stem == "config" else path.stem)
    assert "stability" in figure_names(grid.axes)
    analytic = dict(resolved, evaluate=["analytic"])
    ds = evaluate_cell(analytic, next(iter(grid.cells)))
    assert ds["lambda_max_kind"].item() != "" or ds.attrs["notes"] != "[]"
