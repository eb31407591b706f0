"""``straggler recommend`` end to end: the shipped example question answered in a
temporary folder (its results under it), two questions answered at once in one folder,
and an interrupted run resumed."""

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from straggler.decide.question_answer import MAX_ANSWER_LINES
from straggler.model.policies import POLICIES

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[2]
STRAGGLER = str(Path(sys.executable).with_name("straggler"))
GUIDE = ROOT / "docs" / "guide" / "recommend.md"


def recommend(folder: Path, question: str, *extra: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """``straggler recommend QUESTION --results FOLDER/results ...`` run in ``folder``."""
    return subprocess.run(
        [STRAGGLER, "recommend", question, "--results", str(folder / "results"), *extra],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def question_folder(folder: Path) -> Path:
    """The example question and its trace, where they are in the repository."""
    for name in ("config/questions/example.yaml", "config/data/requests_ms.csv"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, folder / name)
    return folder


def answer_of(run: subprocess.CompletedProcess) -> list[str]:
    """The answer's lines: what the command prints after the line that says where the
    study file and the results are (Snakemake's output goes to stderr)."""
    first, *answer = run.stdout.splitlines()
    assert first.startswith("study file: "), run.stdout
    return answer


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    folder = question_folder(tmp_path_factory.mktemp("recommend"))
    run = recommend(folder, "config/questions/example.yaml", "--cores", "2")
    assert run.returncode == 0, run.stderr[-4000:]
    return folder, run


def test_the_example_is_answered_in_at_most_ten_lines_that_name_a_policy(example):
    folder, run = example
    first = run.stdout.splitlines()[0]
    assert first == "study file: results/example/example.study.yaml; results: results/example"
    # nothing left beside the question: the study file lives with its results
    assert sorted(p.name for p in (folder / "config" / "questions").iterdir()) == ["example.yaml"]
    answer = answer_of(run)
    assert 0 < len(answer) <= MAX_ANSWER_LINES
    named = re.findall(r"^load [\d.]+: Run (\S+)", "\n".join(answer), re.MULTILINE)
    assert len(named) == 3 and set(named) <= set(POLICIES), answer
    assert (folder / "results" / "example" / "report.html").is_file()
    study = yaml.safe_load((folder / "results" / "example" / "example.study.yaml").read_text())
    assert study["distributions"]["workload"]["file"] == "config/data/requests_ms.csv"  # from the run's folder


def test_the_guide_shows_the_example_s_answer(example):
    """The guide's answer block is what the command prints on the shipped example (a
    change of the model that changes it means running the example again and putting
    its answer in docs/guide/recommend.md)."""
    _, run = example
    page = GUIDE.read_text()
    block = re.search(
        r"```text\n\$ \.venv/bin/straggler recommend config/questions/example.yaml\n(.*?)```", page, re.DOTALL
    )
    assert block, "docs/guide/recommend.md shows no answer of the example"
    shown = block.group(1).splitlines()
    assert shown == run.stdout.splitlines(), "\n".join(run.stdout.splitlines())


def test_emit_grpc_writes_the_answer_s_setting_as_the_guide_shows(example):
    """``--emit grpc`` on the answered example computes nothing more and prints, after
    the same answer, a service config per group of loads that parses, whose maxAttempts
    is the answer's d with a delay of 0 (CoC's copies at once); the block of
    docs/guide/deploy.md is what it prints."""
    import json

    folder, run = example
    emitted = recommend(folder, "config/questions/example.yaml", "--cores", "2", "--emit", "grpc")
    assert emitted.returncode == 0, emitted.stderr[-4000:]
    lines = emitted.stdout.splitlines()
    assert lines[: len(run.stdout.splitlines())] == run.stdout.splitlines()
    rest = lines[len(run.stdout.splitlines()) :]
    heads = [k for k, line in enumerate(rest) if line.startswith("gRPC setting for ")]
    assert heads, rest
    named = dict(re.findall(r"^load ([\d.]+): Run CoC with d = (\d)", run.stdout, re.MULTILINE))
    for k, end in zip(heads, [*heads[1:], len(rest)]):
        d = re.match(r"gRPC setting for CoC d=(\d)", rest[k]).group(1)
        config = json.loads("\n".join(x for x in rest[k + 1 : end] if not x.startswith("#")))
        policy = config["methodConfig"][0]["hedgingPolicy"]
        assert policy["maxAttempts"] == int(d) and policy["hedgingDelay"] == "0s"
        loads = rest[k].split("the answer at load ")[1].rstrip(":").split(", ")
        assert all(named[x] == d for x in loads)
    page = (ROOT / "docs" / "guide" / "deploy.md").read_text()
    block = re.search(
        r"```text\n\$ \.venv/bin/straggler recommend config/questions/example.yaml --emit grpc\n(.*?)```",
        page,
        re.DOTALL,
    )
    assert block and block.group(1).splitlines() == lines, "\n".join(lines)


def test_a_rerun_computes_nothing_and_answers_the_same(example):
    folder, run = example
    again = recommend(folder, "config/questions/example.yaml", "--cores", "2")
    assert again.returncode == 0, again.stderr[-4000:]
    assert answer_of(again) == answer_of(run)
    assert "this run evaluates" not in again.stderr


def test_the_margin_s_rounds_give_the_same_dataset_in_the_command_s_workers_as_by_snakemake(example, tmp_path):
    """Without a cluster profile the margin's rounds run in the command's own workers;
    with one, each round is a Snakemake run. Both compute the same cells: the answers
    are the same and the datasets equal bit for bit."""
    import xarray as xr

    assert "checking the answer at c = " in example[1].stderr  # the example's margin takes rounds
    folder = question_folder(tmp_path)
    profile = str(ROOT / "workflow" / "profiles" / "default")
    run = recommend(folder, "config/questions/example.yaml", "--cores", "2", "--profile", profile)
    assert run.returncode == 0, run.stderr[-4000:]
    assert answer_of(run) == answer_of(example[1])
    name = "results/example/example.nc"
    with xr.open_dataset(example[0] / name) as here, xr.open_dataset(folder / name) as by_snakemake:
        assert here.sizes == by_snakemake.sizes
        assert [v for v in here.data_vars if not here[v].equals(by_snakemake[v])] == []


QUICK = {
    "system": {"N": 10},
    "load": [0.3, 0.6],
    "policies": ["ZRed", "CoC", "CoS"],
    "d": [2, 3],
    "slo": {"quantile": 0.99, "target": 5},
    "budget": {"extra_load": 0.1},
    "simulation": {"jobs": 400000, "warmup": 20000, "replications": 4},
    "check_dependence": False,  # these test the run (locks, resuming), not the answer's margins
}


def test_two_questions_at_once_in_one_folder_do_not_interfere(tmp_path):
    """Snakemake locks the files a run writes, not its folder: runs whose outputs are
    disjoint (other study names, other results/<name>/) run side by side."""
    laws = {"alpha": {"family": "exponential", "mean": 1}, "beta": {"family": "lognormal", "mean": 1, "cv": 2}}
    for name, law in laws.items():
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(dict(QUICK, workload=law)))
    runs = {
        name: subprocess.Popen(
            [STRAGGLER, "recommend", f"{name}.yaml", "--cores", "1", "--results", str(tmp_path / "results")],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in laws
    }
    outputs = {name: process.communicate(timeout=900) for name, process in runs.items()}
    for name, (out, err) in outputs.items():
        assert runs[name].returncode == 0, err[-4000:]
        assert "Run " in out and (tmp_path / "results" / name / f"{name}.nc").is_file()
        assert "cannot be locked" not in err


def test_an_interrupted_run_resumes_with_the_cells_it_lacks(tmp_path):
    """Ctrl-C (SIGINT to the command and Snakemake) once a cell has its result: the
    command says how to resume, and the same command computes only the others."""
    question = dict(QUICK, workload={"family": "exponential", "mean": 1}, load=[0.3, 0.5, 0.7])
    question["simulation"] = {"jobs": 2000000, "warmup": 20000, "replications": 4}
    (tmp_path / "slow.yaml").write_text(yaml.safe_dump(question))
    command = [STRAGGLER, "recommend", "slow.yaml", "--cores", "1", "--results", str(tmp_path / "results")]
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # a shell runs a background job with SIGINT ignored, which its children inherit
        # (Python then installs no KeyboardInterrupt handler): as from a terminal, by default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    total, seen = None, []
    for line in process.stderr:
        seen.append(line)
        found = re.search(r"this run evaluates (\d+) cells", line)
        total = int(found.group(1)) if found else total
        if re.match(r"\[1/\d+\] policy=", line):  # a cell has its result
            os.killpg(process.pid, signal.SIGINT)
            break
    rest = process.communicate(timeout=300)[1]
    assert process.returncode == 1, "".join(seen) + rest
    assert "interrupted; run the same command again to resume" in rest
    assert total is not None and total > 1
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-4000:]
    left = int(re.search(r"this run evaluates (\d+) cells", again.stderr).group(1))
    assert 0 < left < total
    assert "Run " in again.stdout


def test_an_sx_answer_says_whether_it_holds_at_iid_and_at_identical_copies(tmp_path):
    """Exponential work, a slowdown of 10 on a tenth of the servers: two copies dodge the
    slow server (CoC d = 2's P99 near 5, ZRed's near 23, both against a target of 12), so
    the answer is CoC d = 2. With i.i.d. copies of X S two copies dodge more: it holds. With
    identical copies a second copy is as slow as the first: nothing meets the target."""
    question = {
        "system": {"N": 10},
        "workload": {"family": "exponential", "mean": 1},
        "dependence": {"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 10], "p": [0.9, 0.1]}},
        "load": [0.2],
        "policies": ["ZRed", "CoC"],
        "d": [2],
        "slo": {"quantile": 0.99, "target": 12},
        "budget": {"extra_load": 0.6},
        "simulation": {"jobs": 20000, "warmup": 2000, "replications": 4},
    }
    (tmp_path / "sx.yaml").write_text(yaml.safe_dump(question))
    run = recommend(tmp_path, "sx.yaml", "--cores", "2")
    assert run.returncode == 0, run.stderr[-4000:]
    answer = answer_of(run)
    assert any(line.startswith("load 0.2: Run CoC with d = 2") for line in answer), answer
    checked = next(line for line in answer if line.startswith("The answer holds"))
    assert "holds with i.i.d. copies of one copy's law X S" in checked, checked
    assert "It does not with identical copies of one copy's law X S" in checked and "none qualifies" in checked
