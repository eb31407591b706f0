"""The cluster profiles against a running scheduler (marker `cluster`).

A single-node SLURM on localhost (`cluster/local-slurm`, started once for the module)
runs a small study, analysis and a short simulation in four cells, through
`--profile profiles/slurm` and through `--profile profiles/cluster-generic` (sbatch, and
the profile's `slurm-status` script for job states). Both datasets must equal the local
run's bit for bit, but for the provenance attributes that name the moment of the run.
A job killed with `scancel` while it runs fails the run, which names its cell; the other
cells finish (`keep-going`), the profile's retries ask for a longer runtime each time,
and a rerun computes only the killed cell.

Skipped, with the reason, where the SLURM and munge programs are missing (Debian's
slurmctld, slurmd, slurm-client and munge, which `.ci/run` installs when it can), where
the tests do not run as root, or where the machine has a SLURM configuration of its own.
"""

import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
import runs
import xarray as xr
import yaml

from straggler.outputs.catalog import figure_names, figure_parts
from straggler.study.config import resolve_config
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]
PROFILES = ROOT / "profiles"

pytestmark = pytest.mark.cluster

STUDY = {
    "study": "mini",
    "seed": 11,
    "grid": {
        "policy": ["ZRed", "CoC"],
        "distribution": ["exp"],
        "dependence": ["iid"],
        "r_slow": [0.5, 1.0],
        "d": [2],
        "N": [4],
    },
    "load": [0.3, 0.6],
    "distributions": {"exp": {"family": "exponential", "mean": 1}},
    "evaluate": ["analytic", "simulation"],
    "simulation": {"jobs": 20000, "warmup": 2000, "replications": 2},
    # one cell per job, so that killing a job leaves exactly one cell without a result
    "execution": {"cells_per_job": 1},
}
CELLS = [
    "policy=ZRed__distribution=exp__dependence=iid__r_slow=0.5__N=4",
    "policy=ZRed__distribution=exp__dependence=iid__r_slow=1.0__N=4",
    "policy=CoC__distribution=exp__dependence=iid__r_slow=0.5__d=2__N=4",
    "policy=CoC__distribution=exp__dependence=iid__r_slow=1.0__d=2__N=4",
]
# Dataset attributes that say when the dataset was made, not what it holds.
WHEN = ("created",)
# The SLURM executor without accounting (no slurmdbd here): squeue for job states
# (MinJobAge is 600 s) and a first status check after 1 s instead of 40 s.
SLURM_OPTIONS = ["--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "1"]
# cluster-generic: the profile's status script every 3 s instead of 10 s (a test of
# seconds of work; the profile's default suits jobs of minutes).
GENERIC_OPTIONS = ["--seconds-between-status-checks", "3"]


def _load_local_slurm():
    path = ROOT / "cluster" / "local-slurm"
    loader = importlib.machinery.SourceFileLoader("local_slurm", str(path))
    spec = importlib.util.spec_from_loader("local_slurm", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


local_slurm = _load_local_slurm()


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "the local SLURM needs root (slurmd launches jobs; /etc/slurm/slurm.conf)"
    missing = local_slurm.missing_programs()
    if missing:
        return (
            "Debian packages not installed: "
            + " ".join(missing)
            + " (apt-get install slurmctld slurmd slurm-client munge; .ci/run tries)"
        )
    etc = local_slurm.ETC_CONF
    if etc.exists() and not etc.is_symlink():
        return f"this machine has its own SLURM configuration ({etc}); not touching it"
    return None


@pytest.fixture(scope="module")
def slurm():
    """A running single-node SLURM; yields the environment that points at it."""
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    for plugin in ("snakemake_executor_plugin_slurm", "snakemake_executor_plugin_cluster_generic"):
        if importlib.util.find_spec(plugin) is None:
            pytest.fail(
                f"{plugin} is not installed: `make setup` (pip install -e '.[cluster]') installs the executor plugins"
            )
    directory = Path(tempfile.mkdtemp(prefix="local-slurm-"))
    try:
        local_slurm.start(directory)
        yield {**os.environ, "SLURM_CONF": str(directory / "slurm.conf")}
    finally:
        local_slurm.stop(directory)
        shutil.rmtree(directory, ignore_errors=True)


def snakemake(workdir: Path, *extra, env=None, timeout=300):
    configfile = workdir / "mini.yaml"
    if not configfile.exists():
        configfile.write_text(yaml.safe_dump(STUDY))
    return runs.snakemake(workdir, configfile, *extra, env=env, timeout=timeout)


def dataset(workdir: Path) -> xr.Dataset:
    with xr.open_dataset(workdir / "results" / "mini" / "mini.nc") as ds:
        ds = ds.load()
    for key in WHEN:
        ds.attrs.pop(key)
    return ds


def assert_same(got: xr.Dataset, want: xr.Dataset):
    """Bit for bit: every variable, coordinate and attribute (but WHEN)."""
    differ = [n for n in want.variables if n not in got.variables or not got[n].identical(want[n])]
    attrs = sorted(k for k in set(want.attrs) | set(got.attrs) if str(want.attrs.get(k)) != str(got.attrs.get(k)))
    assert not differ and not attrs, f"variables {differ}, attributes {attrs} differ"
    assert got.identical(want)


def cell_file(workdir: Path, cell: str) -> Path:
    """cells/<cell id>@<hash of its spec and code>.nc (straggler.study.workunits)."""
    found = sorted((workdir / "results" / "mini" / "cells").glob(f"{cell}@*.nc"))
    return found[0] if found else workdir / "results" / "mini" / "cells" / f"{cell}@.nc"


def batch_of(cell: str):
    """The work unit (straggler.study.workunits.Batch) that evaluates ``cell``."""
    from straggler.common.sources import model_hash
    from straggler.study.config import resolve_config
    from straggler.study.grid import build_grid
    from straggler.study.workunits import plan

    resolved = resolve_config(STUDY)
    p = plan(resolved, build_grid(resolved), model_hash())
    return next(b for b in p.batches.values() if cell in b.cells)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("local")
    start = time.perf_counter()
    run = snakemake(workdir, "--cores", "2")
    seconds = time.perf_counter() - start
    assert run.returncode == 0, run.stderr[-4000:]
    print(f"local run: {seconds:.1f} s")
    return dataset(workdir)


def test_status_script_maps_slurm_states(slurm):
    """profiles/cluster-generic/slurm-status: running, success, failed, and an unknown job."""
    status = str(PROFILES / "cluster-generic" / "slurm-status")

    def submit(command):
        out = subprocess.run(
            ["sbatch", "--parsable", "--output=/dev/null", "--wrap", command],
            capture_output=True,
            text=True,
            env=slurm,
            check=True,
        ).stdout
        return out.strip()

    def state(jobid):
        return subprocess.run([status, jobid], capture_output=True, text=True, env=slurm, check=True).stdout.strip()

    def settle(jobid, timeout=30):
        deadline = time.monotonic() + timeout
        while (answer := state(jobid)) == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        return answer

    ok, bad, slow = submit("true"), submit("exit 3"), submit("sleep 60")
    assert settle(ok) == "success"
    assert settle(bad) == "failed"
    assert state(slow) == "running"
    subprocess.run(["scancel", slow], env=slurm, check=True)
    assert settle(slow) == "failed"
    assert state(f"{ok};local") == "success"  # sbatch --parsable on a multi-cluster setup
    assert state("999999") == "failed"


@pytest.mark.parametrize("profile,options", [("slurm", SLURM_OPTIONS), ("cluster-generic", GENERIC_OPTIONS)])
def test_profile_runs_the_study_as_the_local_run_does(slurm, local, tmp_path, profile, options):
    start = time.perf_counter()
    run = snakemake(tmp_path, "--profile", str(PROFILES / profile), *options, env=slurm)
    seconds = time.perf_counter() - start
    assert run.returncode == 0, run.stderr[-6000:]
    print(f"{profile} run: {seconds:.1f} s")
    submitted = re.findall(r"submitted with SLURM jobid|with external jobid", run.stderr)
    # cells, aggregate, figures (one job or two), report
    figures = figure_parts(figure_names(build_grid(resolve_config(STUDY)).axes))
    assert len(submitted) == len(CELLS) + 2 + len(figures)
    assert_same(dataset(tmp_path), local)


class Killer(threading.Thread):
    """scancel every job of one work unit once it runs, until stopped."""

    def __init__(self, env, unit):
        super().__init__(daemon=True)
        self.env, self.cell = env, unit
        self.killed: list[str] = []
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            out = subprocess.run(
                ["squeue", "--noheader", "--format=%i|%T|%k"], capture_output=True, text=True, env=self.env
            ).stdout
            for line in out.splitlines():
                jobid, state, comment = line.split("|", 2)
                # the job's comment names its rule and wildcards (batch=<id>,todo=<digest>)
                if self.cell in comment and state == "RUNNING" and jobid not in self.killed:
                    subprocess.run(["scancel", jobid], env=self.env)
                    self.killed.append(jobid)
            time.sleep(0.2)


def test_a_killed_job_fails_the_run_by_cell_and_a_rerun_computes_only_it(slurm, local, tmp_path):
    profile = ["--profile", str(PROFILES / "slurm"), *SLURM_OPTIONS]
    from straggler.study.workunits import runtime_minutes

    target = CELLS[2]
    batch = batch_of(target)
    assert batch.cells == (target,)
    retries = yaml.safe_load((PROFILES / "slurm" / "config.yaml").read_text())["retries"]
    killer = Killer(slurm, batch.id)
    killer.start()
    try:
        run = snakemake(tmp_path, *profile, env=slurm)
    finally:
        killer.done.set()
        killer.join()
    assert run.returncode != 0
    # every attempt was killed while it ran; the retries asked for more time
    assert len(killer.killed) == retries + 1, (killer.killed, run.stderr[-6000:])
    for attempt in range(1, retries + 2):
        assert f"runtime={runtime_minutes(batch.seconds, attempt)}" in run.stderr
    # the run names the killed cell: in each job's error and in the closing summary
    assert f"1 of {len(CELLS)} cells of study 'mini' have no result" in run.stderr
    summary = run.stderr.split("have no result", 1)[1]
    assert target in summary and not any(c in summary for c in CELLS if c != target)
    assert re.search(r"SLURM-job '\d+' failed, SLURM status is: 'CANCELLED'", run.stderr)
    # the other cells finished
    for cell in CELLS:
        assert cell_file(tmp_path, cell).exists() == (cell != target), cell
    kept = {c: cell_file(tmp_path, c).stat().st_mtime_ns for c in CELLS if c != target}

    dry = snakemake(tmp_path, *profile, "-n", "--quiet", "rules", env=slurm)
    assert dry.returncode == 0, dry.stderr[-4000:]
    counts = dict(
        line.split()
        for line in (dry.stdout + dry.stderr).splitlines()
        if len(line.split()) == 2 and line.split()[1].isdigit()
    )
    assert counts.get("evaluate") == "1", counts

    rerun = snakemake(tmp_path, *profile, env=slurm)
    assert rerun.returncode == 0, rerun.stderr[-6000:]
    assert rerun.stderr.count("rule evaluate:") == 1
    assert {c: cell_file(tmp_path, c).stat().st_mtime_ns for c in kept} == kept
    assert_same(dataset(tmp_path), local)
