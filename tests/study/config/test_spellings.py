"""Config as a person writes it (issue 21): numbers in exponent spelling, load ranges,
the defaults shown, the distributions' own parameters named, and ``--config`` values
(Snakemake's text) read as a study file reads them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from straggler import cli
from straggler.common.sources import model_hash
from straggler.study.config import (
    ConfigError,
    dump_config,
    load_config,
    read_overrides,
    read_study_files,
    resolve_config,
    resolve_config_cached,
)
from straggler.study.grid import build_grid
from straggler.study.workunits import cell_key

DEFAULT = Path(__file__).resolve().parents[3] / "config" / "config.yaml"
BASE = {
    "study": "spell",
    "grid": {"policy": ["ZRed", "Rer", "FJ"], "distribution": ["exp"], "d": [2], "N": [4]},
    "load": [0.2, 0.4],
    "distributions": {"exp": {"family": "exponential", "mean": 1}},
    "evaluate": ["analytic"],
}


def raw(**over) -> dict:
    out = copy.deepcopy(BASE)
    for dotted, value in over.items():
        node = out
        *head, last = dotted.split("__")
        for part in head:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def errors_of(config) -> list[str]:
    with pytest.raises(ConfigError) as info:
        resolve_config(config)
    return info.value.errors


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("written", [1e5, 1.0e5, 100000.0, "1e5", "1.0e5", "1E+5", "1_000e2"])
def test_an_integral_number_is_an_integer_where_one_is_expected(written):
    resolved = resolve_config(raw(simulation__jobs=written)).to_dict()
    assert resolved["simulation"]["jobs"] == 100000 and type(resolved["simulation"]["jobs"]) is int


def test_exponent_spellings_in_a_study_file_resolve_to_integers(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(
        yaml.safe_dump(BASE, sort_keys=False)
        + "simulation: {jobs: 1e5, warmup: 2.5e3, replications: 1.0e1}\nseed: 1e3\n"
    )
    assert cli.main(["check-config", str(path)]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["simulation"]["jobs"] == 100000 and printed["simulation"]["warmup"] == 2500
    assert printed["simulation"]["replications"] == 10 and printed["seed"] == 1000
    assert "jobs: 100000," in dump_config(resolve_config(load_config(path)))


def test_integers_everywhere_the_schema_wants_one():
    config = raw(
        grid__d=[2.0, "3e0"],
        grid__N=[4e0],
        policies={"FJ": {"k": [1.0, 2e0]}},
        execution={"cells_per_job": 2e0, "replications_per_job": "1e1"},
        system={"pools": [2.0, 2.0]},
    )
    config["distributions"]["erl"] = {"family": "erlang", "k": "2e0", "mean": 1}
    config["grid"]["distribution"].append("erl")
    resolved = resolve_config(config).to_dict()
    assert resolved["grid"]["d"] == [2, 3] and resolved["grid"]["N"] == [4]
    assert resolved["policies"]["FJ"]["k"] == [1, 2] and resolved["distributions"]["erl"]["k"] == 2
    assert resolved["execution"]["cells_per_job"] == 2 and resolved["execution"]["replications_per_job"] == 10
    assert resolved["system"]["pools"] == [2, 2]
    assert all(type(x) is int for x in resolved["grid"]["d"] + resolved["policies"]["FJ"]["k"])


def test_an_extra_axis_takes_the_spelling_its_key_expects():
    resolved = resolve_config(raw(**{"grid__FJ.k": [1.0, "2e0"], "grid__Rer.tau": ["1e-1", 2.0]})).to_dict()
    assert resolved["grid"]["FJ.k"] == [1, 2]
    assert resolved["grid"]["Rer.tau"] == [0.1, 2.0]  # a number stays as written: a float


def test_a_number_where_a_number_is_expected_keeps_its_literal():
    # cell ids are built from the literals: 1 stays 1 and 1.0 stays 1.0 where a number is expected
    resolved = resolve_config(raw(grid__r_slow=[1], load=["2e-1", 0.4])).to_dict()
    assert resolved["grid"]["r_slow"] == [1] and type(resolved["grid"]["r_slow"][0]) is int
    assert resolved["load"] == [0.2, 0.4]
    exp = resolve_config(raw(distributions={"exp": {"family": "exponential", "mean": "1e-3"}})).to_dict()
    assert exp["distributions"]["exp"]["mean"] == 0.001


@pytest.mark.parametrize("written", [1.5e0, "1.5e0", 1000.5])
def test_a_non_integral_number_is_refused_naming_key_value_and_integer(written):
    assert errors_of(raw(simulation__jobs=written)) == [
        f"simulation.jobs: value {float(written)!r} is not allowed; expected an integer >= 1 and <= 1000000000"
    ]


@pytest.mark.parametrize("written", ["100000.0", "100000", "1e5x", "e5", True])
def test_only_numbers_and_exponent_spellings_are_numbers(written):
    (error,) = errors_of(raw(simulation__jobs=written))
    assert error.startswith(f"simulation.jobs: value {written!r}" if isinstance(written, str) else "simulation.jobs")
    assert "expected an integer" in error


def test_a_study_name_in_exponent_spelling_stays_a_name():
    assert resolve_config(raw(study="1e5")).study == "1e5"


def test_an_integral_float_beyond_2_63_is_refused_as_written():
    (error,) = errors_of(raw(seed=1e300))
    assert error.startswith("seed: value 1e+300 is not allowed; expected an integer")


# --------------------------------------------------------------------------- load ranges


def test_a_load_range_resolves_to_the_list_a_person_writes():
    resolved = resolve_config(raw(load={"start": 0.1, "stop": 0.9, "step": 0.1}))
    assert resolved.load == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    assert "load: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]" in dump_config(resolved)
    # stop is included when on the grid of steps, else the last load is the largest below it
    assert resolve_config(raw(load={"start": 0.05, "stop": 0.3, "step": 0.05})).load == (
        0.05,
        0.1,
        0.15,
        0.2,
        0.25,
        0.3,
    )
    assert resolve_config(raw(load={"start": 0.1, "stop": 0.95, "step": 0.2})).load == (0.1, 0.3, 0.5, 0.7, 0.9)
    assert resolve_config(raw(load={"start": 0.5, "stop": 0.5, "step": 0.1})).load == (0.5,)
    ints = resolve_config(
        raw(load={"start": 1, "stop": 3, "step": 1}),
    ).load
    assert ints == (1, 2, 3) and all(type(x) is int for x in ints)
    spelled = resolve_config(raw(load={"start": "1e-1", "stop": 0.3, "step": "1e-1"})).load
    assert spelled == (0.1, 0.2, 0.3)


def test_a_range_and_its_list_give_the_same_cells_ids_and_results():
    as_range = resolve_config(raw(load={"start": 0.1, "stop": 0.9, "step": 0.1}))
    as_list = resolve_config(raw(load=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]))
    assert dump_config(as_range) == dump_config(as_list)
    grid_r, grid_l = build_grid(as_range), build_grid(as_list)
    assert list(grid_r.cells) == list(grid_l.cells)
    code = model_hash()
    keys_r = [cell_key(as_range, cell, code) for cell in grid_r.cells.values()]
    keys_l = [cell_key(as_list, cell, code) for cell in grid_l.cells.values()]
    assert keys_r == keys_l  # the cells' file names: the same results, never computed twice


def test_a_scale_may_give_its_own_load_range():
    config = raw(
        load={"start": 0.2, "stop": 0.4, "step": 0.2},
        scales={"paper": {"load": {"start": 0.1, "stop": 0.5, "step": 0.1}}},
    )
    assert resolve_config(config).load == (0.2, 0.4)
    assert resolve_config(dict(config, scale="paper")).load == (0.1, 0.2, 0.3, 0.4, 0.5)
    # a list at one scale, a range at the other: the scale's load replaces the file's
    config["scales"]["paper"]["load"] = [0.3]
    assert resolve_config(dict(config, scale="paper")).load == (0.3,)


@pytest.mark.parametrize(
    "load, expected",
    [
        ({"start": 0.1, "stop": 0.9, "step": 0}, ["load.step: value 0 is not allowed; expected a number > 0"]),
        ({"start": 0.1, "stop": 0.9, "step": -0.1}, ["load.step: value -0.1 is not allowed; expected a number > 0"]),
        (
            {"start": 0.9, "stop": 0.1, "step": 0.1},
            [
                "load.stop: value 0.1 is not allowed; expected a number >= load.start = 0.9 "
                "(a range runs from start up to stop)"
            ],
        ),
        (
            {"start": 0.1, "stop": 0.9, "stpe": 0.1},
            [
                "load.stpe: key 'stpe' is not allowed; expected one of start, stop, step; did you mean 'step'?",
                "load.step: missing; expected a number > 0",
            ],
        ),
        (
            {"start": 0.001, "stop": 2, "step": 0.001},
            [
                "load: a range of 2000 loads (start 0.001, stop 2, step 0.001) is not allowed; expected at most "
                "1000 loads (a larger step)"
            ],
        ),
        (
            {"start": 0.1, "stop": float("inf"), "step": 0.1},
            ["load.stop: value inf is not allowed; expected a finite number"],
        ),
        ({"start": 0, "stop": 1, "step": 0.5}, ["load.start: value 0 is not allowed; expected a number > 0"]),
    ],
)
def test_a_bad_load_range_is_refused_naming_its_key(load, expected):
    assert errors_of(raw(load=load)) == expected


def test_a_bad_range_under_a_scale_is_named_there():
    config = raw(scales={"paper": {"load": {"start": 0.5, "stop": 0.1, "step": 0.1}}})
    assert [e for e in errors_of(config) if e.startswith("scales.paper.load.stop: value 0.1 is not allowed")]


# --------------------------------------------------------------------------- defaults shown


def test_check_config_prints_every_default_filled_in(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(BASE, sort_keys=False))
    assert "dependence" not in BASE["grid"]
    assert cli.main(["check-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "  dependence: [identical]\n" in out and "  r_slow: [1.0]\n" in out
    printed = yaml.safe_load(out)
    assert printed["simulation"] == {"jobs": 200000, "warmup": 20000, "replications": 4, "confidence": 0.95}


# --------------------------------------------------------------------------- distribution families


def _with_law(spec: dict) -> dict:
    return raw(distributions={"exp": spec})


def test_a_mean_for_pareto_says_what_pareto_takes_and_how_to_get_a_mean():
    errors = errors_of(_with_law({"family": "pareto", "mean": 1, "alpha": 2.5}))
    assert errors == [
        "distributions.exp.mean: key 'mean' is not allowed; expected a parameter of family pareto, which takes "
        "xm and alpha (and scale_to_mean, as every family does); for a mean m, add scale_to_mean: m (with any "
        "xm: the law is rescaled to mean m) or set xm = m (alpha - 1) / alpha",
        "distributions.exp.xm: missing (required for family pareto); expected a number > 0",
    ]
    # what the message says works: the same mean both ways
    by_scale = resolve_config(_with_law({"family": "pareto", "xm": 1, "alpha": 2.5, "scale_to_mean": 1}))
    by_xm = resolve_config(_with_law({"family": "pareto", "xm": 1 * (2.5 - 1) / 2.5, "alpha": 2.5}))
    assert by_scale.distributions["exp"]["scale_to_mean"] == 1 and by_xm.distributions["exp"]["xm"] == 0.6


@pytest.mark.parametrize(
    "spec, expected",
    [
        (
            {"family": "weibull", "shape": 1, "scale": 1, "mean": 2},
            "distributions.exp.mean: key 'mean' is not allowed; expected a parameter of family weibull, which takes "
            "shape and scale (and scale_to_mean, as every family does); for a mean m, add scale_to_mean: m (the law "
            "is rescaled to mean m)",
        ),
        (
            {"family": "pareto", "xm": 1, "alpha": 2.5, "shape": 1},
            "distributions.exp.shape: key 'shape' is not allowed; expected a parameter of family pareto, which takes "
            "xm and alpha (and scale_to_mean, as every family does); shape is a parameter of weibull",
        ),
        (
            {"family": "bounded_pareto", "low": 1, "high": 10, "alpha": 1.5, "hihg": 3},
            "distributions.exp.hihg: key 'hihg' is not allowed; expected a parameter of family bounded_pareto, "
            "which takes low, high and alpha (and scale_to_mean, as every family does); did you mean 'high'?",
        ),
    ],
)
def test_an_unknown_key_of_a_family_names_what_the_family_takes(spec, expected):
    assert errors_of(_with_law(spec)) == [expected]


# --------------------------------------------------------------------------- --config


def test_config_text_is_read_as_a_study_file_reads_it():
    from snakemake.cli import parse_config

    given = parse_config(
        ["load=[0.2,0.4]", "simulation={jobs: 1e5, warmup: 1.0e3}", "seed=7", "study=s2", "system={pools: null}"]
    )
    assert given["load"] == ["0.2", "0.4"]  # Snakemake's reading: text
    assert read_overrides(given) == {
        "load": [0.2, 0.4],
        "simulation": {"jobs": 1e5, "warmup": 1e3},
        "seed": 7,
        "study": "s2",
        "system": {"pools": None},
    }
    # a name stays a name, a date stays text, and no structure is read from inside a string
    assert read_overrides({"a": ["ZRed", "2024-01-01", "[1, 2]", "&x 1", "1e5x"]}) == {
        "a": ["ZRed", "2024-01-01", "[1, 2]", "&x 1", "1e5x"]
    }
    merged = read_study_files([], given, default=DEFAULT)
    resolved = resolve_config(merged).to_dict()
    assert resolved["load"] == [0.2, 0.4] and resolved["simulation"]["jobs"] == 100000


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            ["load=[0.2,fast]"],
            "load[1]: value 'fast' is not allowed; expected a number > 0 (from --config: Snakemake passes text, read "
            "as the study-file line `load: [0.2, fast]`)",
        ),
        (
            ["simulation=fast"],
            "simulation: value 'fast' is not allowed; expected a mapping with keys among jobs, warmup, replications, "
            "confidence, precision, max_jobs (from --config: Snakemake passes text, read as the study-file line "
            "`simulation: fast`)",
        ),
        (
            ["simulation={jobs: 1.5e0}"],
            "simulation.jobs: value 1.5 is not allowed; expected an integer >= 1 and <= 1000000000 (from --config: "
            "Snakemake passes text, read as the study-file line `simulation: {jobs: 1.5}`)",
        ),
    ],
)
def test_an_error_about_a_config_value_says_it_came_from_there(tmp_path, args, expected):
    from snakemake.cli import parse_config

    given = parse_config(args)
    with pytest.raises(ConfigError) as info:
        resolve_config_cached(read_study_files([], given, default=DEFAULT), tmp_path, overrides=given)
    assert info.value.errors == [expected]


def test_an_error_of_the_file_says_nothing_of_config(tmp_path):
    from snakemake.cli import parse_config

    given = parse_config(["study=s3"])
    raw_config = read_study_files([], given, default=DEFAULT)
    raw_config["simulation"] = {"jobs": 0}
    with pytest.raises(ConfigError) as info:
        resolve_config_cached(raw_config, tmp_path, overrides=given)
    assert [e for e in info.value.errors if e.startswith("simulation.jobs") and "--config" not in e]


@pytest.mark.workflow
def test_snakemake_reads_config_text_as_a_study_file_and_names_it_in_errors(tmp_path):
    from runs import snakemake

    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(BASE, sort_keys=False))
    run = snakemake(
        tmp_path, path, "-n", "--quiet", "rules", "--config", "load=[0.2,0.4,0.6]", "simulation={jobs: 1e5}",
        timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    resolved = yaml.safe_load(next((tmp_path / ".snakemake" / "straggler").glob("resolved-*.yaml")).read_text())
    assert resolved["load"] == [0.2, 0.4, 0.6] and resolved["simulation"]["jobs"] == 100000
    run = snakemake(tmp_path, path, "-n", "--config", "load=[0.2,fast]", timeout=120)
    assert run.returncode != 0 and not (tmp_path / "results").exists()
    out = run.stdout + run.stderr
    assert "Traceback" not in out
    assert "load[1]: value 'fast' is not allowed; expected a number > 0 (from --config: Snakemake passes text" in out
