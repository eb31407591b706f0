"""The `straggler` command: check-config, cells, evaluate."""

import yaml

from straggler.cli import main

GOOD = {
    "study": "cli",
    "grid": {"policy": ["ZRed", "CoC"], "distribution": ["exp"], "d": [2, 12], "N": [10]},
    "load": [0.5],
    "distributions": {"exp": {"family": "exponential", "mean": 1}},
    "evaluate": ["analytic"],
}


def write(tmp_path, cfg, name="c.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def test_check_config_prints_resolved_config(tmp_path, capsys):
    assert main(["check-config", write(tmp_path, GOOD)]) == 0
    out = capsys.readouterr().out
    resolved = yaml.safe_load(out)
    assert resolved["system"]["discipline"] == "FCFS"  # a default, filled in
    assert "2 distinct cells" in out and "d = 12 > N = 10" in out


def test_check_config_refuses_with_key_value_and_allowed(tmp_path, capsys):
    bad = dict(GOOD, grid=dict(GOOD["grid"], policy=["ZRedd"]), lod=[1])
    assert main(["check-config", write(tmp_path, bad)]) == 1
    err = capsys.readouterr().err
    assert "grid.policy" in err and "ZRedd" in err and "did you mean 'ZRed'" in err
    assert "lod" in err and "load" in err


def test_cells_and_evaluate(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    assert main(["cells", path]) == 0
    cells = capsys.readouterr().out.split()
    assert len(cells) == 2
    out = tmp_path / "cell.nc"
    assert main(["evaluate", path, cells[0], "-o", str(out)]) == 0
    assert out.exists()


def test_best_prints_the_winners_or_says_the_point_is_off_the_grid(tmp_path, capsys):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic import study

    path = tmp_path / "s.nc"
    study(policies=("ZRed", "CoC"), r_slow=(0.3, 1.0)).to_netcdf(path)
    args = ["best", str(path), "--at", "r_slow=0.3", "distribution=pareto", "dependence=iid", "load=0.5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "At " in out and "recommended:" in out and "stability (" in out and "latency (" in out and "cost (" in out
    assert main(args[:-1] + ["load=0.6"]) == 1
    assert "not on the grid" in capsys.readouterr().out
