"""An operator's question (straggler.decide.question and .question_answer, ``straggler
recommend``): the study it becomes, its refusals in the question's own key paths, and the
answer's ten lines."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from synthetic import crowded_question
from synthetic import study as synthetic_study

from straggler.cli import build_parser, main
from straggler.decide.question import (
    DEFAULT_D,
    DEFAULT_SIMULATION,
    add_probes,
    practical_policies,
    read_question,
    study_name,
    study_text,
)
from straggler.decide.question_additions import carried_load
from straggler.decide.question_answer import MAX_ANSWER_LINES, answer_lines, run_words
from straggler.model.policies import ORACLES, POLICIES
from straggler.study.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config" / "questions" / "example.yaml"
TRACE = ROOT / "config" / "data" / "requests_ms.csv"

SMALL = {
    "system": {"N": 10},
    "workload": {"family": "exponential", "mean": 1},
    "load": [0.5],
    "slo": {"quantile": 0.99, "target": 5},
}


def write(folder: Path, question: dict, name: str = "q.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(question, sort_keys=False))
    return path


def problems(path: Path, run_dir: Path) -> list[str]:
    with pytest.raises(ConfigError) as refused:
        read_question(path, run_dir)
    return refused.value.errors


# ------------------------------------------------------------------ a question becomes a study


def test_the_shipped_example_becomes_a_study_of_the_trace_named_from_the_repository():
    question = read_question(EXAMPLE, ROOT)
    study = question.study
    # the study file goes with its results, not beside the question
    assert question.name == "example" and question.study_path == ROOT / "results" / "example" / "example.study.yaml"
    assert study["grid"] == {
        "policy": practical_policies(),
        "distribution": ["workload"],
        "dependence": ["copies"],
        "r_slow": [1],
        "d": [2, 3, 4],
        "N": [10],
        "copies.identical": [0, 0.25, 0.5, 1],
    }
    # without a dependence the answer assumes i.i.d. copies (c = 0) and is checked at other c
    assert study["dependences"] == {"copies": {"kind": "mixture", "identical": 0}}
    # the question names the trace from its own folder, the study from the repository's root
    assert study["distributions"]["workload"] == {
        "family": "empirical",
        "file": "config/data/requests_ms.csv",
        "column": "duration_ms",
        "unit": "ms",
    }
    assert study["decision"] == {"slo": {"quantile": 0.99, "target": 40}, "budget": {"extra_load": 0.1}}
    assert study["simulation"] == DEFAULT_SIMULATION
    assert question.resolved.study == "example" and not question.left_out
    # the file written is that study, behind its comments
    assert yaml.safe_load(study_text(question)) == study


def _question(tmp_path, **keys) -> Path:
    raw = yaml.safe_load(EXAMPLE.read_text())
    raw["workload"] = {"family": "exponential", "mean": 1}
    raw.update(keys)
    path = tmp_path / "q.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize(
    ("dependence", "assumed", "axis"),
    [
        ("iid", 0, [0, 0.25, 0.5, 1]),
        ("identical", 1, [0, 0.25, 0.5, 1]),
        ({"kind": "mixture", "identical": 0.3}, 0.3, [0, 0.25, 0.3, 0.5, 1]),
    ],
)
def test_a_mixture_s_c_is_assumed_and_checked_around(tmp_path, dependence, assumed, axis):
    study = read_question(_question(tmp_path, dependence=dependence), tmp_path).study
    assert study["grid"]["dependence"] == ["copies"]
    assert study["dependences"]["copies"] == {"kind": "mixture", "identical": assumed}
    assert study["grid"]["copies.identical"] == axis


def test_the_dependence_check_can_be_off_or_given_and_an_sx_is_not_checked(tmp_path):
    off = read_question(_question(tmp_path, check_dependence=False), tmp_path).study
    assert off["grid"]["dependence"] == ["iid"] and "copies.identical" not in off["grid"]
    given = read_question(_question(tmp_path, check_dependence=[1, 0.5]), tmp_path).study
    assert given["grid"]["copies.identical"] == [0, 0.5, 1]
    sx = {"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 3], "p": [0.9, 0.1]}}
    study = read_question(_question(tmp_path, dependence=sx, check_dependence=False), tmp_path).study
    assert study["grid"]["dependence"] == ["sx"] and "copies.identical" not in study["grid"]


SX = {"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 3], "p": [0.9, 0.1]}}


def test_an_sx_answer_is_checked_with_one_copy_s_law_at_iid_and_identical_copies(tmp_path):
    """Under S&X the answer is checked at i.i.d. and identical copies of X S (its mean exactly
    E[X] E[S], so every check runs at the same load), each paired with its law: a point of
    another law is impossible, not evaluated."""
    from straggler.model.distributions import from_spec
    from straggler.study.grid import build_grid

    q = read_question(_question(tmp_path, dependence=SX), tmp_path)
    study = q.study
    assert study["grid"]["distribution"] == ["workload", "one_copy"]
    assert study["grid"]["dependence"] == ["sx", "iid_copies", "identical_copies"]
    assert study["dependences"]["sx"]["work"] == "workload"
    assert study["dependences"]["iid_copies"] == {"kind": "iid", "work": "one_copy", "checks": "sx"}
    copy_law = from_spec(study["distributions"]["one_copy"])
    assert copy_law.mean() == pytest.approx(1.0 * (0.9 + 0.3), rel=1e-9)
    # P(X S <= t) = 0.9 (1 - e^-t) + 0.1 (1 - e^(-t/3)) at the table's p99 (linear between its levels)
    t = copy_law.quantile(0.99)
    assert 0.9 * -np.expm1(-t) + 0.1 * -np.expm1(-t / 3) == pytest.approx(0.99, abs=2e-4)
    grid = build_grid(q.resolved)
    pairs = {(c["distribution"], c["dependence"]) for c in grid.cells.values()}
    assert pairs == {("workload", "sx"), ("one_copy", "iid_copies"), ("one_copy", "identical_copies")}
    assert any("evaluated with the distribution one_copy only" in r for r in grid.impossible.values())


def test_an_sx_check_may_name_other_fits_and_is_refused_in_one_line_when_bad(tmp_path):
    end = {
        "workload": {"family": "exponential", "mean": 1.1},
        "slowdown": {"family": "discrete", "values": [1, 4], "p": [0.9, 0.1]},
    }
    study = read_question(_question(tmp_path, dependence=SX, check_dependence=[end]), tmp_path).study
    assert study["grid"]["dependence"] == ["sx", "sx_1"] and study["grid"]["distribution"] == ["workload", "sx_1_work"]
    assert study["dependences"]["sx_1"] == {
        "kind": "sx",
        "slowdown": end["slowdown"],
        "work": "sx_1_work",
        "checks": "sx",
    }
    with pytest.raises(ConfigError) as err:
        read_question(_question(tmp_path, dependence=SX, check_dependence=[0.5]), tmp_path)
    assert any(
        line.startswith("check_dependence: value [0.5]") and "iid, identical" in line for line in err.value.errors
    )


@pytest.mark.parametrize("check", [[0.5, 2], "yes", [True]])
def test_a_bad_dependence_check_is_refused_naming_the_key(tmp_path, check):
    with pytest.raises(ConfigError) as err:
        read_question(_question(tmp_path, check_dependence=check), tmp_path)
    assert any(line.startswith("check_dependence: value") and "[0, 1]" in line for line in err.value.errors)


def test_a_rerun_keeps_the_values_of_c_the_bisection_added(tmp_path):
    path = _question(tmp_path)
    question = add_probes(read_question(path, tmp_path), [0.375])
    question.study_path.parent.mkdir(parents=True)
    question.study_path.write_text(study_text(question))
    assert read_question(path, tmp_path).study["grid"]["copies.identical"] == [0, 0.25, 0.375, 0.5, 1]
    # another question in the same file: the earlier midpoints are not its own
    other = _question(tmp_path, load=[0.4])
    assert read_question(other, tmp_path).study["grid"]["copies.identical"] == [0, 0.25, 0.5, 1]


def test_the_default_policies_are_the_practical_ones_that_can_run_here():
    default = practical_policies()
    assert default and not set(default) & set(ORACLES)
    assert all(POLICIES[p].kernel_code is not None and not POLICIES[p].task_law for p in default)
    # central queueing: no policy that picks d of the N servers
    assert not any(POLICIES[p].uses_d for p in practical_policies("FCFS", "central"))


def test_policies_that_cannot_run_on_the_system_are_left_out_and_said(tmp_path):
    question = read_question(write(tmp_path, dict(SMALL, system={"N": 5})), tmp_path)
    two_pools = {p for p in practical_policies() if POLICIES[p].two_pools}
    assert two_pools and set(question.left_out) == two_pools  # N = 5 is odd: no two pools
    assert not two_pools & set(question.study["grid"]["policy"])
    assert all(f"#   {p}: " in study_text(question) for p in two_pools)


def test_a_relative_trace_is_read_from_the_question_s_folder(tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copy(TRACE, tmp_path / "data" / "sizes.csv")
    (tmp_path / "questions").mkdir()
    law = {"family": "empirical", "file": "../data/sizes.csv", "column": "duration_ms"}
    path = write(tmp_path / "questions", dict(SMALL, workload=law))
    # run where the file is under the run's folder: named from it; elsewhere: absolute
    assert read_question(path, tmp_path).study["distributions"]["workload"]["file"] == "data/sizes.csv"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = read_question(path, elsewhere).study["distributions"]["workload"]["file"]
    assert named == str(tmp_path / "data" / "sizes.csv")
    # a missing file is said once, as the question spells it
    law["file"] = "../data/nope.csv"
    (line,) = problems(write(tmp_path / "questions", dict(SMALL, workload=law)), tmp_path)
    assert line.startswith("workload.file: file '../data/nope.csv' does not exist (a relative path is read from")


def test_a_study_name_is_made_from_the_file_s_stem(tmp_path):
    assert study_name("my question (v2)") == "my_question__v2_"
    assert study_name("--x") == "x" and study_name("...") == "question" and len(study_name("a" * 99)) == 64
    question = read_question(write(tmp_path, SMALL, "p99 target.yaml"), tmp_path)
    assert (
        question.name == "p99_target"
        and question.study_path == tmp_path / "results" / "p99_target" / "p99_target.study.yaml"
    )


def test_the_question_s_defaults_and_pass_through_keys(tmp_path):
    question = read_question(
        write(
            tmp_path,
            dict(
                SMALL,
                name="mine",
                seed=7,
                d=[2],
                policies=["CoC", "ZRed"],
                parameters={"CoC": {"ps_bound": None}},
                system={"N": 6, "r_slow": 0.5, "discipline": "PS"},
                dependence={"kind": "sx", "slowdown": {"family": "exponential", "mean": 1}},
                budget={"extra_load": 0.2},
                simulation={"jobs": 1000, "warmup": 100, "replications": 2},
            ),
        ),
        tmp_path,
    )
    study = question.study
    assert study["study"] == "mine" and study["seed"] == 7 and study["policies"] == {"CoC": {"ps_bound": None}}
    assert study["grid"]["N"] == [6] and study["grid"]["r_slow"] == [0.5] and study["grid"]["d"] == [2]
    assert study["system"] == {"discipline": "PS"}
    assert study["grid"]["dependence"][0] == "sx" and study["dependences"]["sx"]["kind"] == "sx"
    assert study["simulation"] == {"jobs": 1000, "warmup": 100, "replications": 2}
    assert read_question(write(tmp_path, SMALL), tmp_path).study["grid"]["d"] == DEFAULT_D


# ------------------------------------------------------------------ refused, in the question's words


def test_an_unknown_key_is_named_with_the_closest_one(tmp_path):
    lines = problems(write(tmp_path, dict(SMALL, polices=["CoC"], system={"N": 10, "r_slw": 1})), tmp_path)
    assert lines == [
        "polices: key 'polices' is not allowed; expected one of name, system, workload, dependence, dependence_source, check_dependence, load, "
        "policies, d, parameters, slo, budget, resolution, seed, simulation, evaluate, execution; did you mean "
        "'policies'?",
        "system.r_slw: key 'r_slw' is not allowed; expected one of N, r_slow, pools, speeds, discipline, "
        "queueing, types; did you mean 'r_slow'?",
    ]


def test_a_question_without_slo_and_budget_is_refused(tmp_path):
    question = {k: v for k, v in SMALL.items() if k != "slo"}
    (line,) = problems(write(tmp_path, question), tmp_path)
    assert line.startswith("slo, budget: both missing; expected at least one of them")


def test_a_study_error_is_named_by_the_question_s_key(tmp_path):
    question = dict(
        SMALL,
        workload={"family": "lognormal", "mean": -1, "cv": 2},
        system={"N": 0},
        policies=["CoC", "XYZ"],
        parameters={"CoC": {"x": 1}},
        slo={"quantile": 0.42, "target": 5},
        budget={"extra_load": -1},
        name="not a name",
    )
    lines = problems(write(tmp_path, question), tmp_path)
    heads = {line.split(":", 1)[0] for line in lines}
    assert heads == {
        "workload.mean",
        "system.N",
        "policies[1]",
        "parameters.CoC.x",
        "slo.quantile",
        "budget.extra_load",
        "name",
    }, lines
    assert "workload.mean: value -1 is not allowed; expected a number > 0" in lines
    assert not any(re.search(r"\b(grid|distributions|decision)\.", line) for line in lines), lines


def test_a_value_the_question_refuses_is_not_refused_again_by_the_study(tmp_path):
    lines = problems(write(tmp_path, {"load": [0.5], "budget": {"extra_load": 0.1}}), tmp_path)
    assert [line.split(":", 1)[0] for line in lines] == ["system", "workload"]
    lines = problems(write(tmp_path, dict(SMALL, system={"N": [10, 20]})), tmp_path)
    assert lines == [
        "system.N: value [10, 20] is not allowed; expected one value: a question is about one system "
        "(a study file sweeps several)"
    ]


def test_a_d_above_n_is_left_nan_but_no_possible_cell_is_refused(tmp_path):
    read_question(write(tmp_path, dict(SMALL, policies=["CoC"], d=[2, 30])), tmp_path)
    (line,) = problems(write(tmp_path, dict(SMALL, policies=["CoC"], system={"N": 1})), tmp_path)
    assert line.startswith("policies, d, system.N: no policy can run on this system")


# ------------------------------------------------------------------ the command


def test_a_bad_question_is_one_line_per_problem_status_2_and_runs_nothing(tmp_path, capsys, monkeypatch):
    import subprocess as sp

    monkeypatch.setattr(sp, "Popen", lambda *a, **k: pytest.fail("snakemake was started"))
    path = write(tmp_path, dict(SMALL, worklaod={"family": "exponential", "mean": 1}))
    assert main(["recommend", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"straggler recommend: {path}: worklaod: key 'worklaod' is not allowed; expected one of name, system, "
        "workload, dependence, dependence_source, check_dependence, load, policies, d, parameters, slo, budget, resolution, seed, "
        "simulation, evaluate, execution; did you mean 'workload'?"
    ]
    assert not path.with_name("q.study.yaml").exists()


def test_results_must_be_a_folder_named_results(tmp_path, capsys):
    path = write(tmp_path, SMALL)
    assert main(["recommend", str(path), "--results", str(tmp_path / "out")]) == 2
    assert "a folder named 'out' is not allowed; expected a folder named results" in capsys.readouterr().err


def test_a_missing_question_file_is_status_1(tmp_path, capsys):
    assert main(["recommend", str(tmp_path / "nope.yaml")]) == 1
    assert "expected a YAML question file" in capsys.readouterr().err


def test_the_dry_run_prints_the_study_and_its_estimate_and_writes_nothing(tmp_path, capsys):
    path = write(tmp_path, SMALL)
    assert main(["recommend", str(path), "--dry-run", "--results", str(tmp_path / "results")]) == 0
    out = capsys.readouterr().out
    head, plan = out.split("# the plan", 1)
    assert yaml.safe_load(head)["study"] == "q"
    assert "estimated CPU time" in plan
    assert not (tmp_path / "results").exists() and list(tmp_path.iterdir()) == [path]


def test_the_help_s_dry_run_example_runs(tmp_path):
    """The --help example that runs in seconds, where the examples run (a folder holding
    the project's config/); the other runs the study (tests/workflow/test_recommend.py)."""
    shutil.copytree(ROOT / "config", tmp_path / "config", ignore=shutil.ignore_patterns("*.study.yaml"))
    example = "straggler recommend config/questions/example.yaml --dry-run"
    (commands,) = build_parser()._subparsers._group_actions  # argparse has no public listing
    epilog = commands.choices["recommend"].epilog
    assert f"  {example}\n" in epilog
    bin_dir = str(Path(sys.executable).parent)
    run = subprocess.run(
        ["bash", "-c", example],
        cwd=tmp_path,
        env=dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "study: example" in run.stdout and "Traceback" not in run.stderr
    assert not (tmp_path / "config" / "questions" / "example.study.yaml").exists()


# ------------------------------------------------------------------ the answer


def decided(loads, **constraints) -> list[str]:
    ds = synthetic_study(
        policies=("ZRed", "FRed", "CoC", "CoS"),
        distributions=("exp",),
        dependences=("iid",),
        r_slow=(1.0,),
        d=(2, 3),
        loads=loads,
    )
    ds.attrs["config"] += yaml.safe_dump({"decision": constraints})
    return answer_lines(ds, report="results/synthetic/report.html")


@pytest.mark.parametrize("loads", [(0.2,), (0.1, 0.2, 0.3), (0.1, 0.2, 0.3, 0.4, 0.5), tuple(range(1, 15))])
def test_the_answer_is_at_most_ten_lines_and_names_a_policy(loads):
    lines = decided(loads, slo={"quantile": 0.99, "target": 9}, budget={"extra_load": 0.3})
    assert len(lines) <= MAX_ANSWER_LINES
    assert lines[0].startswith("Asked: P99 <= 9 and extra load <= 0.3")
    assert lines[-1] == "Every contender at every load, with the evidence: results/synthetic/report.html"
    answered = [line for line in lines if line.startswith("load ")]
    assert answered and all(re.search(r": (Run (\w+)|a tie|no policy qualifies)", line) for line in answered)
    if len(loads) > 7:  # the rest are in the report, and the answer says how many
        assert lines[-3] == f"... and {len(loads) - len(answered)} more loads: see results/synthetic/report.html"
    else:
        assert len(answered) == len(loads)
    # what the answer assumes of a request's copies, always said
    assert lines[-2].startswith("Assumed: each copy of a request takes a duration of its own (i.i.d. copies, c = 0)")
    if len(loads) <= 3:  # room for what would change each answer
        assert all(lines[lines.index(line) + 1].startswith("  ") for line in answered)


def test_a_mean_slo_decides_on_e_t():
    lines = decided((0.2,), slo={"mean": 3})
    assert lines[0].startswith("Asked: E[T] <= 3 (extra load")


def test_run_words_spell_the_policy_and_its_d():
    policy = next(p for p, spec in POLICIES.items() if spec.uses_d)
    assert run_words(f"{policy} d=3", {}) == f"Run {policy} with d = 3"
    assert run_words(policy, {"d": 2}) == f"Run {policy} with d = 2"  # one d: the setting's
    single = next(p for p, spec in POLICIES.items() if not spec.uses_d)
    assert run_words(single, {"d": 2}) == f"Run {single}"


# ------------------------------------------------------------------ the guide shows the example


def test_the_guide_shows_the_shipped_example_question():
    page = (ROOT / "docs" / "guide" / "recommend.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)
    assert EXAMPLE.read_text() in blocks
    # every key of a question is explained there
    from straggler.decide.question import QUESTION_KEYS, SYSTEM_KEYS

    table = page.split("## Every key", 1)[1].split("\n## ", 1)[0]
    for key in (*QUESTION_KEYS, *(f"system.{k}" for k in SYSTEM_KEYS)):
        assert f"| `{key}` |" in table, key


def test_the_guide_s_refusal_is_what_the_command_prints(tmp_path, monkeypatch, capsys):
    """ "Before anything runs": the page's lines are those of a question with its two
    mistakes (a key misspelt, a negative mean)."""
    page = (ROOT / "docs" / "guide" / "recommend.md").read_text()
    section = page.split("## Before anything runs", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```text\n\$ .venv/bin/straggler recommend mine.yaml\n(.*?)```", section, re.DOTALL)
    mine = {k: v for k, v in SMALL.items()}
    mine["polices"] = ["CoC"]
    mine["workload"] = {"family": "exponential", "mean": -1}
    write(tmp_path, mine, "mine.yaml")
    monkeypatch.chdir(tmp_path)
    assert main(["recommend", "mine.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == block.splitlines()


def test_policies_deployable_are_those_a_client_alone_can_run(tmp_path):
    from straggler.decide.question import read_question

    question = read_question(_question(tmp_path, policies="deployable"), tmp_path)
    chosen = question.study["grid"]["policy"]
    assert chosen and set(chosen) < set(practical_policies())
    assert all(POLICIES[p].client_form for p in chosen)
    assert {p for p in practical_policies() if POLICIES[p].client_form} == set(chosen)


def test_an_answer_that_needs_the_servers_says_so_and_names_a_client_s_best():
    """On this synthetic study (E[X] = 1, CIs on the quantiles) the answer is Rer, which
    needs two pools: the answer's block says what it needs and names the best contender a
    client alone can run, as :func:`straggler.decide.deploy.deployable_answer` decides it."""
    from straggler.decide.decision import answer, decision_table
    from straggler.decide.deploy import deployable_answer, deployable_table, is_deployable

    ds = crowded_question()
    table = decision_table(ds)
    index = tuple(0 for _ in table.dims)
    chosen = answer(table, index, 0)["recommended"]
    assert chosen and not is_deployable(chosen.split(" ")[0]), chosen
    best = deployable_answer(deployable_table(ds), index, 0)["recommended"]
    lines = answer_lines(ds)
    (said,) = [line for line in lines if "needs " in line]
    assert said.startswith(f"  {chosen.split(' ')[0]} needs ")
    if best:
        assert said.split("a client alone can ")[1].split(" (")[0].split(" ")[1] == best.split(" ")[0]
    else:
        assert said.endswith("no contender a client alone can run qualifies")


def test_a_fleet_s_answer_says_what_it_rests_on():
    """Above 100 servers the answer says the fleet was simulated from a start in
    equilibrium and gives the recommended contender's mean-field limit at each load; at
    100 servers or fewer it says nothing of it."""
    import numpy as np
    import xarray as xr

    from straggler.decide.question_answer import fleet_words

    def ds(N):
        q = np.full((1, 1, 2, 5), 20.0)
        return xr.Dataset(
            {
                "latency_approx_quantile": (("policy", "d", "load", "quantile"), q),
                "latency_approx_quantile_kind": (("policy", "d"), np.array([["mean-field"]], dtype=object)),
                "latency_approx": (("policy", "d", "load"), np.full((1, 1, 2), 9.0)),
            },
            coords={
                "policy": ["CoC"],
                "d": [3],
                "N": [N],
                "load": [0.3, 0.7],
                "quantile": [0.5, 0.9, 0.95, 0.99, 0.999],
            },
        )

    answers = [(0.3, ["CoC d=3"]), (0.7, ["CoC d=3"])]
    words = fleet_words(ds(2000), answers, 0.99, "ms")
    assert words.startswith("On N = 2,000 servers: simulated, each server started in equilibrium")
    assert "P99 at 20 ms (load 0.3, CoC d=3), 20 ms (load 0.7, CoC d=3)" in words
    assert "simulated on 10,000" in fleet_words(ds(1_000_000), answers, 0.99, "ms")
    assert "E[T] at 9 ms" in fleet_words(ds(2000), answers, None, "ms")
    assert fleet_words(ds(100), answers, 0.99, "ms") == ""


def test_replayed_pairs_bring_the_law_of_one_copy_and_two_copies_at_most(tmp_path):
    """``dependence: {kind: pairs, file: F}``: the workload is the pairs' two columns pooled
    (a unit given alone is kept), d is 2 by default, the policies whose threshold the
    analysis would choose are left out (no analysis takes the pairs' joint law), and where
    the dependence was measured goes with the answer's assumption."""
    shutil.copy(ROOT / "config" / "data" / "pairs_ms.csv", tmp_path / "pairs.csv")
    q = {
        "system": {"N": 20},
        "dependence": {"kind": "pairs", "file": "pairs.csv"},
        "workload": {"unit": "ms"},
        "load": [0.3],
        "slo": {"quantile": 0.99, "target": 30},
        "dependence_source": "replayed: 5,000 pairs",
    }
    study = read_question(write(tmp_path, q), tmp_path).study
    law = study["distributions"]["workload"]
    assert law == {"family": "empirical", "file": "pairs.csv", "column": ["server_a_ms", "server_b_ms"], "unit": "ms"}
    assert study["grid"]["d"] == [2]
    assert not {"Rer", "Rep"} & set(study["grid"]["policy"]) and "CoC" in study["grid"]["policy"]
    assert study["decision"]["dependence_source"] == "replayed: 5,000 pairs"
    refused = problems(write(tmp_path, {**q, "d": [2, 3]}), tmp_path)
    assert any("d <= 2" in p for p in refused)
    missing = problems(write(tmp_path, {**q, "dependence": {"kind": "pairs", "file": "nope.csv"}}), tmp_path)
    assert any("dependence.file: file 'nope.csv' does not exist" in p for p in missing)


def test_loads_typed_as_percents_are_refused_in_one_line_naming_the_value_meant(tmp_path):
    with pytest.raises(ConfigError) as err:
        read_question(_question(tmp_path, load=[40, 70]), tmp_path)
    (line,) = err.value.errors
    assert line.startswith("load: value [40, 70] is not allowed: a load is the servers' busy share")
    assert line.endswith("did you mean [0.4, 0.7] (40 %, 70 %)?")


@pytest.mark.parametrize(
    ("dependence", "d", "bound"),
    [("identical", [2, 4], 1.0), ("iid", [2, 4], 4.0), ("iid", [2], 2.0)],
)
def test_the_load_a_contender_may_carry_is_one_copy_over_the_fastest_of_d(tmp_path, dependence, d, bound):
    """Exponential copies: the fastest of d i.i.d. takes E[X] / d, so no contender of d
    copies carries more than d; identical copies, never more than 1. A load between 1 and
    that bound is answered (a contender may carry it), one above it refused."""
    q = read_question(_question(tmp_path, dependence=dependence, d=d, check_dependence=False), tmp_path)
    carried, _ = carried_load(q.resolved)
    assert carried == pytest.approx(bound, rel=1e-9)
    within = _question(tmp_path, dependence=dependence, d=d, check_dependence=False, load=[0.5, 0.99 * bound])
    assert read_question(within, tmp_path).resolved.load[-1] == pytest.approx(0.99 * bound)
    with pytest.raises(ConfigError):
        read_question(_question(tmp_path, dependence=dependence, d=d, check_dependence=False, load=[bound]), tmp_path)
