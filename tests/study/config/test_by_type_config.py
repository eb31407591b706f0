"""A size law per job type (``family: by_type``) in a study file: each wrong use refused in
one error naming its key path; a good study resolves with the types' probabilities and the
inner trace's digest in the law; the inner trace's content is in the study's identity and
provenance (``<law>.laws.<j>``)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from straggler import cli
from straggler.model.distributions import ByType, Empirical, from_spec
from straggler.model.distributions.base import ParameterError
from straggler.model.distributions.data_files import content_digest
from straggler.study.cell_build import build_model
from straggler.study.config import ConfigError, dump_config, load_config, resolve_config
from straggler.study.evaluate import store_key
from straggler.study.grid import build_grid, result_spec
from straggler.study.provenance import data_file_entries, data_files

REPO = Path(__file__).resolve().parents[3]
TRACE = "config/data/requests_ms.csv"

A = {"family": "quantiles", "quantiles": {0: 0.1, 0.5: 0.6, 0.9: 2.0, 1: 5.0}}
B = {"family": "discrete", "values": [1, 3], "p": [0.7, 0.3]}


def study(laws=None, **top) -> dict:
    """A small study with one law per type (two types, p = [0.8, 0.2])."""
    cfg = {
        "study": "types",
        "grid": {"policy": ["ZRed"], "distribution": ["x"], "dependence": ["iid"], "r_slow": [0.5], "N": [2]},
        "load": [0.5],
        "distributions": {"x": {"family": "by_type", "laws": copy.deepcopy(laws or [A, B])}},
        "system": {"types": {"p": [0.8, 0.2]}},
        "evaluate": ["analytic"],
    }
    cfg.update(copy.deepcopy(top))
    return cfg


def _set(path, value):
    def modify(cfg):
        node = cfg
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = copy.deepcopy(value)

    return modify


def _sx_slowdown(slowdown, named=None):
    def modify(cfg):
        if named is not None:
            cfg["distributions"]["s"] = copy.deepcopy(named)
        cfg["dependences"] = {"sx": {"kind": "sx", "slowdown": copy.deepcopy(slowdown)}}
        cfg["grid"]["dependence"] = ["sx"]

    return modify


def _redundancy_basis(cfg):
    cfg["grid"].update(policy=["CoC"], d=[2], r_slow=[1.0])
    cfg["load_basis"] = "redundancy"


BY_TYPE_SLOWDOWN = {"family": "by_type", "laws": [copy.deepcopy(B), copy.deepcopy(B)]}  # no YAML aliases

# (id, change to the good study, the key path of the one error, words it must contain)
BAD = [
    (
        "inner-exponential",
        _set(("distributions", "x", "laws", 1), {"family": "exponential", "mean": 1}),
        "distributions.x.laws[1].family",
        ["'exponential'", "empirical, quantiles, discrete, deterministic, uniform"],
    ),
    (
        "inner-pareto",
        _set(("distributions", "x", "laws", 0), {"family": "pareto", "xm": 1, "alpha": 2.5}),
        "distributions.x.laws[0].family",
        ["'pareto'", "empirical, quantiles, discrete, deterministic, uniform"],
    ),
    (
        "inner-by-type",
        _set(("distributions", "x", "laws", 1), {"family": "by_type", "laws": [B]}),
        "distributions.x.laws[1].family",
        ["'by_type'"],
    ),
    (
        "inner-bootstrap",
        _set(
            ("distributions", "x", "laws", 0),
            {"family": "empirical", "file": str(REPO / TRACE), "column": "duration_ms", "bootstrap": 3},
        ),
        "distributions.x.laws[0].bootstrap",
        ["value 3", "bootstrap"],
    ),
    (
        "a-p-other-than-the-system-s",
        _set(("distributions", "x", "p"), [0.5, 0.5]),
        "distributions.x.p",
        ["[0.5, 0.5]", "system.types.p ([0.8, 0.2])"],
    ),
    (
        "three-laws-two-types",
        _set(("distributions", "x", "laws"), [A, B, copy.deepcopy(B)]),
        "distributions.x.laws",
        ["3 laws", "2 laws", "system.types.p"],
    ),
    (
        "one-law-two-types",
        _set(("distributions", "x", "laws"), [A]),
        "distributions.x.laws",
        ["1 laws", "2 laws", "system.types.p"],
    ),
    (
        "two-laws-three-types",
        _set(("system",), {"types": {"p": [0.5, 0.3, 0.2]}, "speeds": [[1, 0.5, 0.5], [0.5, 1, 1]]}),
        "distributions.x.laws",
        ["2 laws", "3 laws", "system.types.p"],
    ),
    (
        "named-sx-slowdown",
        _sx_slowdown("s", named=BY_TYPE_SLOWDOWN),
        "dependences.sx.slowdown",
        ["'s'", "no job types"],
    ),
    ("inline-sx-slowdown", _sx_slowdown(BY_TYPE_SLOWDOWN), "dependences.sx.slowdown", ["by_type", "no job types"]),
    ("redundancy-load-basis", _redundancy_basis, "load_basis", ["'redundancy'", "'nominal'", "(x)"]),
]


@pytest.mark.parametrize("modify, key, words", [pytest.param(m, k, w, id=i) for i, m, k, w in BAD])
def test_a_wrong_use_is_refused_in_one_error_naming_its_key(modify, key, words):
    cfg = study()
    modify(cfg)
    with pytest.raises(ConfigError) as info:
        resolve_config(cfg)
    errors = info.value.errors
    assert len(errors) == 1, "\n".join(errors)
    (error,) = errors
    assert error.startswith(f"{key}: "), error
    assert "not allowed" in error and "expected" in error, error
    for word in words:
        assert word in error, (word, error)


@pytest.mark.parametrize("modify, key", [pytest.param(m, k, id=i) for i, m, k, _ in BAD])
def test_check_config_refuses_a_wrong_use_in_one_line(tmp_path, capsys, modify, key):
    cfg = study()
    modify(cfg)
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    assert cli.main(["check-config", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    header, *lines = err.splitlines()
    assert header == f"{path}: invalid configuration:"
    assert len(lines) == 1 and lines[0].startswith(f"{key}: "), err


def test_a_law_per_type_resolves_with_the_types_probabilities():
    resolved = resolve_config(study())
    law = resolved.distributions["x"]
    assert law["family"] == "by_type"
    assert law["p"] == [0.8, 0.2] == list(resolved.to_dict()["system"]["types"]["p"])
    assert [inner["family"] for inner in law["laws"]] == ["quantiles", "discrete"]
    built = from_spec(law)
    assert isinstance(built, ByType) and built.p == (0.8, 0.2)
    assert built.mean() == pytest.approx(0.8 * 1.045 + 0.2 * 1.6, rel=1e-13)
    # no system section: the default types' probabilities
    default = study()
    del default["system"]
    assert resolve_config(default).distributions["x"]["p"] == [0.5, 0.5]


def test_three_types_with_a_speed_matrix_resolve():
    cfg = study(
        laws=[A, B, {"family": "uniform", "low": 1, "high": 2}],
        system={"types": {"p": [0.2, 0.3, 0.5]}, "speeds": [[1, 0.5, 0.2], [0.5, 1, 1]]},
    )
    resolved = resolve_config(cfg)
    assert resolved.distributions["x"]["p"] == [0.2, 0.3, 0.5]
    (cell,) = build_grid(resolved).cells.values()
    model = build_model(resolved, cell)
    assert model.size.p == model.system.p == (0.2, 0.3, 0.5)


def test_a_swept_type_probability_rebinds_each_cell_s_law():
    cfg = study()
    del cfg["system"]
    cfg["grid"]["types.p1"] = [0.3, 0.9]
    resolved = resolve_config(cfg)
    cells = list(build_grid(resolved).cells.values())
    assert len(cells) == 2
    seen = set()
    for cell in cells:
        model = build_model(resolved, cell)
        p1 = dict(cell.coords)["types.p1"]
        assert model.size.p == model.system.p == pytest.approx((p1, 1 - p1))
        seen.add(model.size.p[0])
    assert seen == {0.3, 0.9}


def test_resolving_a_resolved_study_again_gives_the_same_config():
    resolved = resolve_config(study())
    assert resolve_config(resolved.to_dict()) == resolved


def test_a_written_resolved_study_reads_back(tmp_path):
    """As the workflow writes it (results/<study>/config.yaml) and an archive reads it."""
    resolved = resolve_config(study())
    path = tmp_path / "config.yaml"
    path.write_text(dump_config(resolved))
    assert resolve_config(load_config(path)) == resolved


# ------------------------------------------------------------- the example study


def small_example() -> dict:
    """config/studies/measured_types.yaml made small."""
    raw = load_config(REPO / "config" / "studies" / "measured_types.yaml")
    raw["grid"].update(policy=["ZRed", "CoC"], dependence=["iid"])
    raw["load"] = [0.5]
    raw["evaluate"] = ["analytic"]
    raw["simulation"] = {"jobs": 2000, "warmup": 200, "replications": 1}
    return raw


def test_the_example_study_made_small_resolves_with_p_and_the_trace_s_digest(monkeypatch):
    monkeypatch.chdir(REPO)  # its trace is named relative to the repository
    raw = small_example()
    resolved = resolve_config(raw)
    law = resolved.distributions["by_type"]
    assert law["p"] == raw["system"]["types"]["p"] == [0.8, 0.2]
    trace, quantiles = law["laws"]
    assert trace["family"] == "empirical" and trace["file"] == TRACE
    assert trace["digest"] == content_digest(TRACE)
    assert "digest" not in quantiles
    # the reads-only law reads the same trace
    assert resolved.distributions["reads_only"]["digest"] == trace["digest"]
    built = from_spec(law)
    assert isinstance(built.of_type(0), Empirical)
    assert built.of_type(0).mean() == pytest.approx(from_spec(resolved.distributions["reads_only"]).mean())
    # the inner trace in the provenance, named <law>.laws.<j>
    entries = data_file_entries(resolved)
    assert ("by_type.laws.0", TRACE, trace["digest"], "duration_ms") in entries
    assert [name for name, *_ in entries] == ["by_type.laws.0", "reads_only"]
    # and every cell builds (ZRed analysed by type, CoC simulated only)
    for cell in build_grid(resolved).cells.values():
        model = build_model(resolved, cell)
        if dict(cell.coords)["distribution"] == "by_type":
            assert model.size.p == (0.8, 0.2)


def test_check_config_accepts_the_example_study_made_small(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    path = tmp_path / "measured_types.yaml"
    path.write_text(yaml.safe_dump(small_example(), sort_keys=False))
    assert cli.main(["check-config", str(path)]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["distributions"]["by_type"]["p"] == [0.8, 0.2]
    assert printed["distributions"]["by_type"]["laws"][0]["digest"] == content_digest(TRACE)


# ----------------------------------------------------------- an inner trace file


def trace_study(path: Path, **inner) -> dict:
    trace = {"family": "empirical", "file": str(path), "column": "ms", **inner}
    return study(laws=[trace, {"family": "deterministic", "value": 2.0}], system={"types": {"p": [0.7, 0.3]}})


def test_the_inner_trace_s_content_is_in_the_study_s_identity(tmp_path):
    path = tmp_path / "sizes.csv"
    path.write_text("ms\n1.0\n2.0\n4.0\n")
    first = resolve_config(trace_study(path))
    digest = first.distributions["x"]["laws"][0]["digest"]
    assert digest == content_digest(str(path))
    assert first.distributions["x"]["p"] == [0.7, 0.3]
    assert from_spec(first.distributions["x"]).mean() == pytest.approx(0.7 * 7 / 3 + 0.3 * 2.0, rel=1e-13)
    assert data_file_entries(first) == [("x.laws.0", str(path), digest, "ms")]
    assert data_files(first) == f"x.laws.0: {path} ({digest}, 3 values)"
    (cell,) = build_grid(first).cells.values()
    params = {"alpha": None, "tau": None, "keep": None}
    spec, key = result_spec(first, cell), store_key(first, cell, params)

    path.write_text("ms\n1.0\n2.0\n5.0\n")  # the same path, another content
    again = resolve_config(trace_study(path))
    changed = again.distributions["x"]["laws"][0]["digest"]
    assert changed == content_digest(str(path)) != digest
    assert result_spec(again, cell) != spec
    assert store_key(again, cell, params) != key
    assert data_file_entries(again) == [("x.laws.0", str(path), changed, "ms")]
    assert from_spec(again.distributions["x"]).mean() == pytest.approx(0.7 * 8 / 3 + 0.3 * 2.0, rel=1e-13)
    # a law resolved before the change refuses the new content rather than mix the two
    with pytest.raises(ParameterError, match=r"laws\[0\]: file .* has changed"):
        from_spec(first.distributions["x"])
    # a digest written in the study pins the content, named by the inner law's key
    with pytest.raises(ConfigError) as info:
        resolve_config(trace_study(path, digest=digest))
    (error,) = info.value.errors
    assert error.startswith("distributions.x.laws[0].file: ") and "has changed" in error


def test_the_resolved_study_dumps_the_inner_digest(tmp_path):
    path = tmp_path / "sizes.csv"
    path.write_text("ms\n1.5\n2.5\n")
    text = dump_config(resolve_config(trace_study(path)))
    law = yaml.safe_load(text)["distributions"]["x"]
    assert law["p"] == [0.7, 0.3]
    assert law["laws"][0]["digest"] == content_digest(str(path))
