"""The `straggler` command: its subcommands, its errors (one line, no traceback, the
exit status the module docstring gives) and the examples of every ``--help``."""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import straggler
from straggler.cli import BROKEN_PIPE, build_parser, main

ROOT = Path(__file__).resolve().parents[2]
ZRED = "policy=ZRed__distribution=exp__dependence=identical__r_slow=1.0__N=10"
"""A cell of GOOD's grid."""
SRC = str(Path(straggler.__file__).resolve().parents[1])
"""The folder the package under test is imported from (a subprocess imports it too)."""

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
    from synthetic import study

    path = tmp_path / "s.nc"
    study(policies=("ZRed", "CoC"), r_slow=(0.3, 1.0)).to_netcdf(path)
    args = ["best", str(path), "--at", "r_slow=0.3", "distribution=pareto", "dependence=iid", "load=0.5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "At " in out and "recommended:" in out and "stability (" in out and "latency (" in out and "cost (" in out
    # a point not on the grid is a usage error: one line a problem on stderr, nothing on stdout
    assert main(args[:-2] + ["load=0.6"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "straggler best: the point is not on the grid: load = 0.6 is not one of its values (0.2, 0.5, 0.8)",
        "straggler best: the point is not on the grid: dependence needs a value (one of identical, iid)",
    ]
    assert main(args[:3] + ["r_slo=0.3"] + args[4:]) == 2
    err = capsys.readouterr().err
    assert "r_slo is not an axis of this dataset" in err and "did you mean 'r_slow'?" in err


# ------------------------------------------------------------------ user errors: one line, no traceback


def one_line(capsys, command: str) -> str:
    """The one line a user error prints on stderr, ``straggler <command>: ...``."""
    out, err = capsys.readouterr()
    assert "Traceback" not in err and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"straggler {command}: "), err
    return lines[0]


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"straggler {version('straggler')}\n"


def file_commands(path: str) -> dict[str, list[str]]:
    """Every command that reads a file, with ``path`` as that file."""
    return {
        "check-config": ["check-config", path],
        "cells": ["cells", path],
        "evaluate": ["evaluate", path, ZRED],
        "plan": ["plan", path],
        "best": ["best", path, "--at", "load=0.5"],
        "verify": ["verify", path],
    }


EXPECTED = {
    "check-config": "; expected a YAML study file, e.g. config/config.yaml",
    "cells": "; expected a YAML study file, e.g. config/config.yaml",
    "evaluate": "; expected a YAML study file, e.g. config/config.yaml",
    "plan": "; expected a YAML study file, e.g. config/config.yaml",
    "best": "; expected the dataset of a finished study, e.g. results/default/default.nc",
    "verify": "; expected an archive written by straggler archive, e.g. archives/default.tar.gz",
}


@pytest.mark.parametrize("command", list(EXPECTED))
def test_a_missing_file_is_one_line_and_status_1(tmp_path, capsys, command):
    missing = str(tmp_path / "missing")
    assert main(file_commands(missing)[command]) == 1
    line = one_line(capsys, command)
    what = f"{missing}: not a readable .tar.gz archive" if command == "verify" else f"cannot read {missing}"
    assert line == f"straggler {command}: {what} (No such file or directory){EXPECTED[command]}"


@pytest.mark.parametrize("command", list(EXPECTED))
def test_a_directory_is_one_line_and_status_1(tmp_path, capsys, command):
    assert main(file_commands(str(tmp_path))[command]) == 1
    assert one_line(capsys, command) == f"straggler {command}: {tmp_path} is a directory{EXPECTED[command]}"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
@pytest.mark.parametrize("command", list(EXPECTED))
def test_an_unreadable_file_is_one_line_and_status_1(tmp_path, capsys, command):
    path = tmp_path / "unreadable"
    path.write_text("study: x\n")
    path.chmod(0)
    assert main(file_commands(str(path))[command]) == 1
    assert "(Permission denied)" in one_line(capsys, command)


def test_a_file_of_the_wrong_kind_is_refused_with_status_1(tmp_path, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("a: [1\n")
    # a config: the config's refusal, as check-config prints it (its header, a line a problem)
    for command in ("check-config", "cells", "evaluate", "plan"):
        assert main(file_commands(str(text))[command]) == 1
        out, err = capsys.readouterr()
        assert err.splitlines()[0] == f"{text}: invalid configuration:" and "not valid YAML" in err
        assert "Traceback" not in err and out == ""
    assert main(file_commands(str(text))["best"]) == 1
    assert one_line(capsys, "best").startswith(f"straggler best: {text} is not a netCDF dataset (")
    assert main(file_commands(str(text))["verify"]) == 1
    assert one_line(capsys, "verify").startswith(f"straggler verify: {text}: not a readable .tar.gz archive")
    # a netCDF file that is not a study's dataset (a cell's)
    cells_nc = tmp_path / "cell.nc"
    config = write(tmp_path, GOOD)
    assert main(["evaluate", config, ZRED, "-o", str(cells_nc)]) == 0
    capsys.readouterr()
    assert main(["best", str(cells_nc), "--at", "load=0.5"]) == 1
    assert one_line(capsys, "best") == (
        f"straggler best: {cells_nc} is not a study dataset (no lambda_max by policy, no load); "
        "expected the dataset of a finished study, e.g. results/default/default.nc"
    )


def test_archive_of_a_study_not_run_is_one_line_and_status_1(tmp_path, capsys):
    assert main(["archive", "nope", "--results", str(tmp_path)]) == 1
    assert "nope.nc is missing; run the study first" in one_line(capsys, "archive")
    assert main(["archive", "nope", "-o", str(tmp_path)]) == 1
    assert one_line(capsys, "archive") == (
        f"straggler archive: {tmp_path} is a directory; expected the path of the archive to write"
    )


def test_a_bad_cell_id_is_a_usage_error_with_the_closest_id(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    assert main(["evaluate", path, "NOPE"]) == 2
    assert one_line(capsys, "evaluate") == (
        f"straggler evaluate: cell 'NOPE' is not in the grid of {path}; expected one of its 2 cells "
        f"(straggler cells {path} lists them), e.g. {ZRED}"
    )
    no_d = ZRED.replace("ZRed", "CoC")  # CoC's cells have a d
    assert main(["evaluate", path, no_d]) == 2
    assert one_line(capsys, "evaluate").endswith(f"did you mean {no_d.replace('__N=', '__d=2__N=')!r}?")
    # checked before any work: an output under a file, or a directory
    notes = tmp_path / "notes.txt"
    notes.write_text("")
    assert main(["evaluate", path, ZRED, "-o", str(notes / "x.nc")]) == 1
    assert one_line(capsys, "evaluate") == (
        f"straggler evaluate: {notes} is not a directory; expected the path of the netCDF file to write"
    )
    assert main(["evaluate", path, ZRED, "-o", str(tmp_path)]) == 1
    assert one_line(capsys, "evaluate") == (
        f"straggler evaluate: {tmp_path} is a directory; expected the path of the netCDF file to write"
    )


def test_the_unknown_cell_error_is_a_key_error_with_a_plain_message(tmp_path):
    from straggler.study.config import load_config, resolve_config
    from straggler.study.grid import UnknownCell, build_grid

    grid = build_grid(resolve_config(load_config(write(tmp_path, GOOD))))
    with pytest.raises(KeyError) as info:
        grid.cell(ZRED.replace("exp", "exq"))
    assert isinstance(info.value, UnknownCell) and info.value.closest == ZRED
    assert str(info.value) == (
        f"cell {ZRED.replace('exp', 'exq')!r} is not in this study's grid; expected one of its 2 cells, "
        f"did you mean {ZRED!r}?"
    )


@pytest.mark.parametrize(
    "at, message",
    [
        (["load"], "--at 'load' is not AXIS=VALUE; expected e.g. r_slow=0.5 load=0.5"),
        (["=0.5"], "--at '=0.5' is not AXIS=VALUE; expected e.g. r_slow=0.5 load=0.5"),
        (["load=0.2", "load=0.5"], "--at gives load twice (0.2, 0.5); expected one value per axis"),
    ],
)
def test_a_malformed_point_is_a_usage_error(tmp_path, capsys, at, message):
    # refused before the dataset is read: the file need not exist
    assert main(["best", str(tmp_path / "missing.nc"), "--at", *at]) == 2
    assert one_line(capsys, "best") == f"straggler best: {message}"


def test_argparse_errors_are_status_2(capsys):
    for argv in (["verify", "a.tar.gz", "--rerun", "-1"], ["plan", "c.yaml", "--scale", "huge"], ["nope"]):
        with pytest.raises(SystemExit) as exit:
            main(argv)
        assert exit.value.code == 2
        assert "Traceback" not in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["verify", "a.tar.gz", "--rerun", "-1"])
    assert "argument --rerun: -1 is negative; expected a count >= 0" in capsys.readouterr().err


def test_an_internal_error_keeps_its_traceback(tmp_path, monkeypatch):
    """Only user errors are one line: a bug in the code is an exception, not status 1."""
    import straggler.study.grid

    def broken(resolved):
        raise RuntimeError("a bug")

    monkeypatch.setattr(straggler.study.grid, "build_grid", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["cells", write(tmp_path, GOOD)])


def test_check_config_says_when_no_point_is_left_nan(tmp_path, capsys):
    ok = dict(GOOD, grid=dict(GOOD["grid"], d=[2]))
    assert main(["check-config", write(tmp_path, ok)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "# 2 distinct cells; no grid point left NaN"


def test_check_config_and_plan_say_how_many_central_queues(tmp_path, capsys):
    central = dict(GOOD, grid=dict(GOOD["grid"], policy=["ZRed"]), system={"queueing": "central"})
    path = write(tmp_path, central)
    assert main(["check-config", path]) == 0
    line = "queueing: central, 2 queues (one per pool) of 5 servers (system.pools: 1 makes one queue of N servers)"
    assert f"# {line}" in capsys.readouterr().out.splitlines()
    assert main(["plan", path]) == 0
    assert line in capsys.readouterr().out.splitlines()
    path = write(tmp_path, dict(central, system={"queueing": "central", "pools": 1}))
    assert main(["check-config", path]) == 0
    out = capsys.readouterr().out
    assert "# queueing: central, 1 queue of 10 servers" in out.splitlines()
    assert yaml.safe_load(out)["system"]["pools"] == 1
    assert main(["plan", path]) == 0
    assert "queueing: central, 1 queue of 10 servers" in capsys.readouterr().out.splitlines()
    assert main(["check-config", write(tmp_path, GOOD)]) == 0  # per-server queues: nothing to say
    assert not any(line.startswith("# queueing:") for line in capsys.readouterr().out.splitlines())


def test_check_config_refuses_one_pool_on_affinity_before_any_work(tmp_path, capsys):
    bad = dict(GOOD, grid=dict(GOOD["grid"], r_slow=[0.25, 1.0]), system={"queueing": "central", "pools": 1})
    assert main(["check-config", write(tmp_path, bad)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert (
        "system.pools: value 1 is not allowed; expected null or [n_1, n_2] (two pools) while grid.r_slow has "
        "0.25: one pool (system.pools: 1) is for identical servers (every r_slow 1)"
    ) in err


def straggler(*args: str, **kwargs) -> subprocess.Popen:
    """The ``straggler`` command in a process of its own, on the package under test."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-m", "straggler.cli", *args], env=env, **kwargs)


def test_a_closed_pipe_ends_quietly_with_status_141():
    """``straggler cells FILE | head -1``: the reader is gone before the output is
    written (closed here before the command has even read its config); no traceback,
    nothing on stderr, 128 + SIGPIPE."""
    proc = straggler("cells", str(ROOT / "config" / "config.yaml"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == BROKEN_PIPE and err == b""


def command_on_path(tmp_path: Path) -> Path:
    """A folder holding a ``straggler`` that runs the package under test."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "straggler"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{SRC}:$PYTHONPATH" exec "{sys.executable}" -m straggler.cli "$@"\n')
    script.chmod(0o755)
    return bin_dir


def test_a_pipe_into_head_prints_nothing_on_stderr(tmp_path):
    bin_dir = command_on_path(tmp_path)
    run = subprocess.run(
        ["bash", "-c", "straggler cells config/config.yaml | head -1; echo ${PIPESTATUS[0]}"],
        cwd=ROOT,
        env=dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    first, status = run.stdout.splitlines()
    assert first.startswith("policy=ZRed__") and status in ("0", str(BROKEN_PIPE)) and run.stderr == ""


# ------------------------------------------------------------------ the examples of every --help


def epilogs() -> dict[str, str]:
    """Each subcommand's ``--help`` epilog."""
    (action,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: p.epilog or "" for name, p in action.choices.items()}


def examples(command: str) -> list[str]:
    """The example commands of a subcommand's ``--help``: its epilog's lines that begin
    with two spaces and ``straggler``."""
    return [line.strip() for line in epilogs()[command].splitlines() if line.startswith("  straggler ")]


def test_every_subcommand_has_examples():
    assert set(epilogs()) == {
        "policies",
        "check-config",
        "fit",
        "schema",
        "cells",
        "evaluate",
        "plan",
        "bench",
        "archive",
        "verify",
        "best",
        "recommend",
    }
    for command, epilog in epilogs().items():
        assert epilog.startswith("examples:\n"), command
        assert examples(command) and all(f"{e} ".startswith(f"straggler {command} ") for e in examples(command))
    assert all("--quick" in e for e in examples("bench"))  # a minute, not ten


def test_the_schema_command_prints_a_schema_that_checks_a_study_file(capsys):
    from jsonschema import Draft202012Validator

    assert main(["schema"]) == 0
    sch = yaml.safe_load(capsys.readouterr().out)
    Draft202012Validator.check_schema(sch)
    study = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert not list(Draft202012Validator(sch).iter_errors(study))
    study["simulation"] = {"jobs": 0}
    (error,) = Draft202012Validator(sch).iter_errors(study)
    assert list(error.path) == ["simulation", "jobs"]


def test_help_shows_the_examples_as_written(capsys):
    with pytest.raises(SystemExit):
        main(["best", "--help"])
    out = capsys.readouterr().out
    assert "\nexamples:\n" in out and f"\n  {examples('best')[0]}\n" in out


def run_examples(commands: list[str], workdir: Path) -> None:
    """Run each example in ``workdir`` with bash (they may hold a pipe), in order; each
    succeeds and prints no traceback."""
    env = dict(os.environ, PATH=f"{command_on_path(workdir)}{os.pathsep}{os.environ['PATH']}")
    for example in commands:
        run = subprocess.run(["bash", "-c", example], cwd=workdir, env=env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, f"{example}\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
        assert "Traceback" not in run.stderr, example


def study_folder(path: Path) -> Path:
    """A working folder for the examples: the project's config/ copied into it."""
    shutil.copytree(ROOT / "config", path / "config")
    return path


@pytest.mark.parametrize("command", ["policies", "check-config", "fit", "schema", "cells", "evaluate", "plan", "bench"])
def test_the_examples_run(tmp_path, command):
    """The examples that need no results, in a folder holding config/."""
    run_examples(examples(command), study_folder(tmp_path))


@pytest.fixture(scope="module")
def default_study(getting_started):
    """A folder in which the default study has run: the fresh copy of the repository in
    which the getting-started page ran (tests/conftest.py), once per session."""
    repo, _ = getting_started
    assert (repo / "results" / "default" / "default.nc").is_file()
    return repo


@pytest.mark.workflow
def test_the_examples_on_the_default_study_run(default_study):
    """archive (writes archives/ there), then verify (reads it), then best."""
    run_examples(examples("archive") + examples("verify") + examples("best"), default_study)
    assert (default_study / "archives" / "default.tar.gz").is_file()


@pytest.mark.workflow
def test_user_errors_on_the_default_study(default_study, monkeypatch, capsys):
    monkeypatch.chdir(default_study)
    (default_study / "notes.txt").write_text("")
    assert main(["archive", "default", "-o", "notes.txt/default.tar.gz"]) == 1
    assert one_line(capsys, "archive") == (
        "straggler archive: notes.txt is not a directory; expected the path of the archive to write"
    )
    assert main(["best", "results/default/default.nc", "--at", "r_slow=0.3", "distribution=pareto", "load=0.6"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        "straggler best: the point is not on the grid: load = 0.6 is not one of its values (0.1, 0.3, 0.5, 0.7, 0.9)",
        "straggler best: the point is not on the grid: dependence needs a value (one of identical, iid)",
    ]


def test_policies_prints_the_glossary_and_refuses_an_unknown_name_in_one_line(capsys):
    assert main(["policies"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"ZRed +zero redundancy: ", out) and "\nFJ " in out
    assert main(["policies", "Red", "SLB"]) == 0  # aliases: their policies' entries
    out = capsys.readouterr().out
    assert out.startswith("CoC: cancel on complete") and "\nRer: " in out and "what the analysis knows:" in out
    assert main(["policies", "CoCC"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("straggler policies: no policy 'CoCC'; expected one of ")
    assert "did you mean 'CoC'?" in err
