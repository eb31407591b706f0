"""What the console says during a run (issue 21): whether the kernels must be compiled
first (kernel_cache's marker), the plan's estimate of the pending jobs and the time
left as they finish (workunits, progress), and, end to end, the report's path at the end."""

import copy
import os
import re
from pathlib import Path

import pytest
import yaml

from straggler.common import kernel_cache
from straggler.study import progress as run_progress
from straggler.study import workunits
from straggler.study.config import load_config, resolve_config
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]

KIND = "fast/ZRed/exponential/identical/FCFS/per_server"


def fast_costs(monkeypatch, seconds: tuple[float, float, float]) -> None:
    """The fast engine's compile costs set to ``seconds``, and no other engine's."""
    from dataclasses import replace

    from straggler.engines import registry as engines

    monkeypatch.setattr(engines, "BY_NAME", {"fast": replace(engines.BY_NAME["fast"], compile_seconds=seconds)})


def study(**over):
    cfg = load_config(ROOT / "config" / "config.yaml")
    cfg.update(copy.deepcopy(over))
    return resolve_config(cfg)


def fake_numba_files(folder: Path, n: int = 3) -> None:
    sub = folder / "simulation_0123"
    sub.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (sub / f"fast.run-{i}.py311.nbi").write_bytes(b"index")
        (sub / f"fast.run-{i}.py311.1.nbc").write_bytes(b"data")


# ------------------------------------------------------------- the compile notice


def test_a_cold_cache_folder_lacks_every_kind_and_a_recorded_one_none(tmp_path):
    folder = tmp_path / "kernels-0123456789abcdef"
    assert kernel_cache.missing_kinds([KIND, KIND], folder) == [KIND]  # cold: no folder at all
    folder.mkdir()
    fake_numba_files(folder)
    assert kernel_cache.missing_kinds([KIND], folder) == [KIND]  # numba's files, no marker
    kernel_cache.record_compiled([KIND], 42.0, folder)
    assert kernel_cache.missing_kinds([KIND], folder) == []  # warm
    other = "events/Rep/pareto/iid/FCFS/per_server"
    assert kernel_cache.missing_kinds([KIND, other], folder) == [other]
    assert kernel_cache.last_compile_seconds(folder) == 42.0
    # a later compile adds its kinds to those recorded; the longest of a digest's counts
    kernel_cache.record_compiled([other], 7.0, folder)
    assert kernel_cache.missing_kinds([KIND, other], folder) == []
    assert kernel_cache.last_compile_seconds(folder) == 42.0
    # another digest's compile (the sources changed) replaces it
    kernel_cache.record_compiled([KIND], 9.0, tmp_path / "kernels-fedcba9876543210")
    assert kernel_cache.last_compile_seconds(folder) == 9.0


def test_the_marker_goes_stale_when_numba_files_go_or_the_sources_change(tmp_path, monkeypatch):
    folder = tmp_path / "kernels-0123456789abcdef"
    fake_numba_files(folder)
    kernel_cache.record_compiled([KIND], 1.0, folder)
    # the cache emptied by hand (the marker left)
    for path in folder.rglob("*.nbc"):
        path.unlink()
    assert kernel_cache.missing_kinds([KIND], folder) == [KIND]
    fake_numba_files(folder)
    assert kernel_cache.missing_kinds([KIND], folder) == []
    # another numba (its cache ignores files of other versions), or sources touched
    real = kernel_cache.cache_stamp()
    monkeypatch.setattr(kernel_cache, "cache_stamp", lambda: {**real, "numba": "0.0.1"})
    assert kernel_cache.missing_kinds([KIND], folder) == [KIND]


def test_a_marker_without_numba_files_or_unreadable_is_no_marker(tmp_path):
    folder = tmp_path / "kernels-0123456789abcdef"
    kernel_cache.record_compiled([KIND], 1.0, folder)  # a compile that cached nothing
    assert kernel_cache.missing_kinds([KIND], folder) == [KIND]
    fake_numba_files(folder)
    (folder / kernel_cache.MARKER).write_text("{not json")
    assert kernel_cache.missing_kinds([KIND], folder) == [KIND]
    assert kernel_cache.last_compile_seconds(tmp_path / "nowhere" / "kernels-0") is None


def test_every_job_that_compiles_says_so_with_what_and_how_long(tmp_path, monkeypatch, caplog):
    """A job's own line, in its log (a cluster job's log is where one looks) and on the
    console: the engine's kernels at first, then each new kind, seconds; nothing once cached."""
    import logging

    from straggler.run import pipeline

    folder = tmp_path / "kernels-0123456789abcdef"
    monkeypatch.setattr(kernel_cache, "cache_folder", lambda: folder)
    fast_costs(monkeypatch, (40.0, 5.0, 0.5))
    resolved = study()  # (a later kind of 5 s: the default study's cost nothing, and are not announced)
    cells = list(build_grid(resolved).cells)[:3]  # ZRed, exp, identical, three r_slow
    with caplog.at_level(logging.INFO, logger="straggler.run.pipeline"):
        assert pipeline.announce_compile(resolved, cells) == [KIND]
    assert "compiling the simulation kernels of 1 kind of cell new to numba's cache (ZRed): about 40 s" in caplog.text
    fake_numba_files(folder)
    pipeline.note_compiled([KIND])
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="straggler.run.pipeline"):
        assert pipeline.announce_compile(resolved, cells) == []
    assert caplog.text == ""
    with caplog.at_level(logging.INFO, logger="straggler.run.pipeline"):
        other = [c for c in build_grid(resolved).cells if c.startswith("policy=KT")][:1]
        assert pipeline.announce_compile(resolved, other) == ["fast/KT/exponential/identical/FCFS/per_server"]
    assert "of 1 kind of cell new to numba's cache (KT): about 5 s" in caplog.text  # a variant of a cached engine
    assert kernel_cache.last_compile_seconds(folder) is None  # no time given


def test_kernel_kinds_follow_the_engine_and_the_laws():
    resolved = study()
    grid = build_grid(resolved)
    kinds = {workunits.kernel_kind(resolved, cell) for cell in grid.cells.values()}
    # 7 policies x 2 distributions x 2 dependences; Rep on the event engine
    assert len(kinds) == 28 and all(k.split("/")[0] in ("fast", "events") for k in kinds)
    assert "events/Rep/pareto/iid/FCFS/per_server" in kinds
    analytic = study(evaluate=["analytic"])
    assert {workunits.kernel_kind(analytic, c) for c in build_grid(analytic).cells.values()} == {None}


# ------------------------------------------------------------- the estimate


def test_the_pending_work_is_the_plans_estimate_less_what_is_done(tmp_path):
    resolved = study()
    grid = build_grid(resolved)
    p = workunits.plan(resolved, grid, "code")
    results = str(tmp_path / "results")
    units = run_progress.pending_work(p, results, p.pending(results))
    assert len(units) == len(p.batches) and {u.rule for u in units} == {"evaluate"}
    assert sum(u.seconds for u in units) == pytest.approx(p.cpu_seconds())
    # a finished cell is no longer pending work
    first = next(iter(p.batches.values()))
    done = Path(p.cell_path(results, first.cells[0]))
    done.parent.mkdir(parents=True)
    done.write_bytes(b"")
    less = run_progress.pending_work(p, results, p.pending(results))
    assert sum(u.seconds for u in less) == pytest.approx(p.cpu_seconds() - p.costs[first.cells[0]].total)


def test_shards_are_units_of_their_own(tmp_path):
    resolved = study(execution={"replications_per_job": 2})
    p = workunits.plan(resolved, build_grid(resolved), "code")
    results = str(tmp_path / "results")
    units = run_progress.pending_work(p, results, p.pending(results))
    assert sum(u.rule == "simulate_shard" for u in units) == len(p.shards)
    assert sum(u.seconds for u in units) == pytest.approx(p.cpu_seconds())
    shard = next(iter(p.shards.values()))
    marker = Path(f"{results}/units/shards/{shard.name}.json")
    marker.parent.mkdir(parents=True)
    marker.write_text("{}")
    assert (
        sum(u.rule == "simulate_shard" for u in run_progress.pending_work(p, results, p.pending(results)))
        == len(p.shards) - 1
    )


def test_wall_time_spreads_the_work_over_the_cores_but_not_below_the_longest_job():
    units = [run_progress.Unit(f"u{i}", s, "evaluate") for i, s in enumerate([10.0, 10.0, 10.0, 30.0])]
    assert run_progress.wall_seconds(units, 1) == 60.0
    assert run_progress.wall_seconds(units, 2) == 30.0
    assert run_progress.wall_seconds(units, 64) == 30.0  # the longest job
    assert run_progress.wall_seconds([], 4) == 0.0


def test_jobs_are_scheduled_longest_first_each_on_the_first_core_free():
    assert run_progress.schedule_finishes([10.0, 30.0, 30.0, 30.0], 1) == [100.0, 30.0, 60.0, 90.0]
    assert run_progress.schedule_finishes([10.0, 30.0, 30.0, 30.0], 2) == [40.0, 30.0, 30.0, 60.0]
    assert run_progress.schedule_finishes([5.0, 5.0], 8) == [5.0, 5.0]
    assert run_progress.schedule_finishes([], 2) == []


def test_the_time_left_stretches_each_phase_by_its_own_pace(tmp_path):
    """The hedging study's shape: short cells' jobs, two long break-even bisections side
    by side, the report. The cells at twice their estimate's pace do not shorten the
    bisections; once one bisection has finished, the other (begun with it) is about done."""
    cells = [run_progress.Unit(str(tmp_path / f"c{i}.json"), 10.0, "evaluate") for i in range(2)]
    be = [run_progress.Unit(str(tmp_path / f"b{i}.json"), 300.0, "break-even") for i in range(2)]
    report = run_progress.Unit(str(tmp_path / "report.html"), 40.0, "report")
    now = [0.0]
    progress = run_progress.Progress([*cells, *be, report], parallel=2, clock=lambda: now[0])
    assert progress.time_left(0.0) is None
    for unit in cells:
        Path(unit.path).write_text("{}")
    now[0] = 5.0
    progress.poll()
    assert progress.time_left(5.0) == pytest.approx(300.0 + 40.0)
    Path(be[0].path).write_text("{}")
    now[0] = 245.0  # 240 s for 300 estimated: the other bisection ends now too
    progress.poll()
    assert progress.time_left(245.0) == pytest.approx(40.0)
    Path(be[1].path).write_text("{}")
    now[0] = 250.0
    progress.poll()
    assert progress.time_left(250.0) == pytest.approx(40.0)


def test_figures_drawn_beside_the_bisections_run_first_and_do_not_set_their_pace(tmp_path):
    """Without searches the figures' jobs run beside the break-even bisections, first
    (their priority): two short figures jobs finishing early say nothing of the long
    bisections after them on the same cores."""
    cell = run_progress.Unit(str(tmp_path / "c.json"), 10.0, "evaluate")
    later = run_progress.later_work(
        {"report": 40.0, "break-even": 600.0},
        {"report": ["r.html"], "figures": [str(tmp_path / "f0.png"), str(tmp_path / "f1.png")],
         "break-even": [str(tmp_path / "b0.json"), str(tmp_path / "b1.json")]},
    )  # fmt: skip
    now = [0.0]
    progress = run_progress.Progress([cell, *later], parallel=2, clock=lambda: now[0])
    Path(cell.path).write_text("{}")
    now[0] = 10.0
    progress.poll()
    assert progress.time_left(10.0) == pytest.approx(14.0 + 300.0 + 12.0)
    for name in ("f0.png", "f1.png"):
        (tmp_path / name).write_text("")
    now[0] = 24.0
    progress.poll()
    assert progress.time_left(24.0) == pytest.approx(300.0 + 12.0)


def test_durations_read_as_a_person_says_them():
    assert run_progress.duration(4.4) == "4 s"
    assert run_progress.duration(200) == "3 min 20 s"
    assert run_progress.duration(7500) == "2 h 05 min"


def test_progress_says_a_line_when_jobs_finish(tmp_path):
    paths = [tmp_path / f"u{i}.json" for i in range(4)]
    units = [run_progress.Unit(str(p), s, "evaluate") for p, s in zip(paths, [10.0, 30.0, 30.0, 30.0])]
    now = [100.0]
    progress = run_progress.Progress(units, parallel=1, clock=lambda: now[0])
    assert progress.poll() is None  # nothing finished
    paths[1].write_text("{}")
    now[0] = 130.0
    line = progress.poll()
    assert line == "straggler: 1 of 4 evaluate jobs done (30% of the estimated work) in 30 s; about 1 min 10 s left"
    assert progress.poll() is None  # one line per finished job at most
    for p in paths[2:]:
        p.write_text("{}")
    now[0] = 160.0
    assert progress.poll().startswith("straggler: 3 of 4 evaluate jobs done (90% of the estimated work) in 1 min 00 s;")
    paths[0].write_text("{}")
    assert progress.poll() == "straggler: 4 of 4 evaluate jobs done (100% of the estimated work) in 1 min 00 s"
    # on two cores, longest first: the two 30 s jobs end at 30, then 30 and 10 s more on
    # the two cores: the first ended at 30 s as estimated, 30 s left
    paths[0].unlink()
    for p in paths[2:]:
        p.unlink()
    two = run_progress.Progress(units, parallel=2, clock=lambda: now[0])
    now[0] += 30.0
    assert two.poll() is None  # a file an earlier run wrote counts once it is written again
    later = paths[1].stat().st_mtime + 1.0
    os.utime(paths[1], (later, later))
    assert two.poll().endswith("in 30 s; about 30 s left")


def test_the_jobs_after_the_cells_share_their_part_of_the_estimate(tmp_path):
    """The report's, the searches' and the break-even delays' estimates are progress units
    of their own, so the time left does not reach zero with them still to run."""
    later = run_progress.later_work(
        {"report": 40.0, "searches": 30.0, "break-even": 0.0},
        {"report": ["r.html"], "searches": ["a.json", "b.json"], "break-even": ["c.json"]},
    )
    assert [(u.path, u.seconds, u.rule) for u in later] == [
        ("r.html", 40.0, "report"),
        ("a.json", 15.0, "searches"),
        ("b.json", 15.0, "searches"),
    ]
    units = [run_progress.Unit(str(tmp_path / "u.json"), 60.0, "evaluate"), *later]
    now = [0.0]
    progress = run_progress.Progress(units, parallel=1, clock=lambda: now[0])
    (tmp_path / "u.json").write_text("{}")
    now[0] = 60.0
    assert progress.poll() == (
        "straggler: 1 of 4 jobs done (46% of the estimated work) in 1 min 00 s; about 1 min 10 s left"
    )


def test_the_jobs_after_the_cells_run_at_their_estimate_not_the_cells_pace(tmp_path):
    """The cells' pace says nothing of the jobs after them: cells twice as fast as
    estimated leave the figures (two jobs side by side, with the searches), and the
    report last, at their estimates."""
    paths = [tmp_path / f"u{i}.json" for i in range(2)]
    units = [run_progress.Unit(str(p), 40.0, "evaluate") for p in paths]
    units += run_progress.later_work(
        {"report": 40.0, "searches": 40.0},
        {"report": [str(tmp_path / "report.html")], "figures": ["f0.png", "f1.png"], "searches": ["s.json"]},
    )
    assert [(u.rule, u.seconds) for u in units[2:]] == [
        ("report", pytest.approx(12.0)),
        ("figures", pytest.approx(14.0)),
        ("figures", pytest.approx(14.0)),
        ("searches", 40.0),
    ]
    now = [0.0]
    progress = run_progress.Progress(units, parallel=4, clock=lambda: now[0])
    paths[0].write_text("{}")
    now[0] = 20.0  # 40 s of estimated work in 20 s: the other cell's job, begun with it, ends now too
    progress.poll()
    # the search, then both figures jobs side by side (they read its frontiers), then the report
    assert progress.time_left(now[0]) == pytest.approx(40.0 + 14.0 + 12.0)
    paths[1].write_text("{}")
    progress.poll()
    assert progress.time_left(now[0]) == pytest.approx(40.0 + 14.0 + 12.0)
    one = run_progress.Progress(units, parallel=1, clock=lambda: now[0])
    one.finished_at = {p: 80.0 for p in map(str, paths)}  # one core: one after another
    one.finished = set(one.finished_at)
    assert one.time_left(80.0) == pytest.approx(40.0 + 28.0 + 12.0)


def test_the_time_left_never_rises_by_more_than_ten_percent(tmp_path):
    """A job that finishes late (a compile) makes the pace so far slower: the raw
    estimate jumps up; the line says at most 10 % more than the line before."""
    paths = [tmp_path / f"u{i}.json" for i in range(5)]
    units = [run_progress.Unit(str(p), 10.0, "evaluate") for p in paths]
    now = [0.0]
    progress = run_progress.Progress(units, parallel=1, clock=lambda: now[0])
    shown, raw = [], []
    for i, t in enumerate([10.0, 20.0, 60.0, 70.0]):  # the third job took 40 s
        paths[i].write_text("{}")
        now[0] = t
        line = progress.poll()
        shown.append(float(line.split("about ")[1].split(" s left")[0]))
        raw.append(progress.time_left(t))
    assert raw[2] > 1.3 * raw[1]  # the estimate alone rises by a third
    assert all(b <= 1.1 * a + 0.5 for a, b in zip(shown, shown[1:])), shown  # 0.5: the line's rounding
    assert run_progress.smoothed_left(100.0, None, 0.0) == 100.0
    assert run_progress.smoothed_left(50.0, 40.0, 10.0) == pytest.approx(40.0)  # mean of 50 and 30
    assert run_progress.smoothed_left(200.0, 40.0, 0.0) == pytest.approx(44.0)  # capped at +10 %
    assert run_progress.smoothed_left(12.0, 250.0, 330.0) == 12.0  # the last line's time has run out


def test_the_estimate_counts_the_compiles_of_kinds_numba_has_not_cached(monkeypatch):
    """Two cores, the longest jobs first: both first jobs compile the fast engine (they
    start at once), a later job of a kind compiled by then only loads it, and a new kind
    of an engine already compiled costs its own signatures."""
    fast_costs(monkeypatch, (40.0, 5.0, 0.5))
    a, b = "fast/CoC/exponential/iid/FCFS/per_server", "fast/CoS/exponential/iid/FCFS/per_server"
    units = [
        run_progress.Unit("u0", 100.0, "evaluate", (a,)),
        run_progress.Unit("u1", 90.0, "evaluate", (a,)),
        run_progress.Unit("u2", 10.0, "evaluate", (a, b)),
        run_progress.Unit("u3", 10.0, "evaluate", ()),
    ]
    got = [u.seconds for u in run_progress.with_compiles(units, 2, [a, b])]
    # u0, u1 start at 0 and compile a (40 s each); u2 starts at 130 with a cached: a load, b new: 5 s
    assert got == [140.0, 130.0, 10.0 + 0.5 + 5.0, 10.0]
    assert [u.seconds for u in run_progress.with_compiles(units, 2, [])] == [100.0, 90.0, 10.0, 10.0]
    one = [u.seconds for u in run_progress.with_compiles(units, 1, [a, b])]
    assert one == [140.0, 90.5, 10.0 + 0.5 + 5.0, 10.0]  # one core: one compile, then loads
    both = run_progress.with_compiles([run_progress.Unit("u", 10.0, "evaluate", (a, b))], 2, [a, b])
    assert both[0].seconds == 10.0 + 40.0 + 5.0  # a job compiles its engine once, then each kind's own


def test_progress_watch_emits_the_lines_and_ends(tmp_path):
    path = tmp_path / "u.json"
    progress = run_progress.Progress([run_progress.Unit(str(path), 5.0, "simulate_shard")])
    lines: list[str] = []
    thread = progress.watch(lines.append, interval=0.01)
    path.write_text("{}")
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert lines and lines[0].startswith("straggler: 1 of 1 evaluate and shard jobs done")
    progress.stop()


# ------------------------------------------------------------- end to end


@pytest.mark.workflow
def test_a_run_ends_with_the_reports_path_and_compiles_nothing_it_does_not_simulate(tmp_path):
    """An analytic study: no simulation kernel to compile (no notice; the mean-field
    tier's, an analysis, compiles in a few seconds), the estimate at the start, and the
    report's paths at the end; the progress lines and messages write no result."""
    from runs import snakemake

    cfg = yaml.safe_load((ROOT / "tests" / "data" / "tiny.yaml").read_text())
    cfg["evaluate"] = ["analytic"]
    configfile = tmp_path / "tiny.yaml"
    configfile.write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    run = snakemake(tmp_path, configfile, "--cores", "2", env=env)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    assert "straggler: this run evaluates 16 cells in 1 job, then its report: about" in out
    assert "compiling the simulation kernels" not in out
    # in full: the run's directory is not the project's (snakemake --directory)
    report = tmp_path.resolve() / "results" / "tiny"
    assert f"the report: {report}/report.md (HTML: {report}/report.html)" in out
    compiled = list((tmp_path / "numba").rglob("*.nbi"))
    assert all(p.parent.name.startswith("mean_field") for p in compiled), compiled  # no simulation kernel
    again = snakemake(tmp_path, configfile, "--cores", "2", env=env)
    assert "Nothing to be done" in again.stdout + again.stderr


def console_lines() -> list[str]:
    """The form of the run's own lines, as docs/guide/running.md shows it."""
    page = (ROOT / "docs" / "guide" / "running.md").read_text()
    block = page.split("## What the console says", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def console_pattern(line: str) -> re.Pattern:
    """A line of :func:`console_lines` as a pattern: each ``<...>`` any text."""
    return re.compile("".join(".+?" if p.startswith("<") else re.escape(p) for p in re.split(r"(<[^>]+>)", line)) + "$")


@pytest.mark.workflow
def test_a_cold_run_says_what_the_guide_shows_and_hides_snakemake_s_job_blocks(tmp_path):
    """A simulated study on an empty numba cache, cut into a job per cell: the notice,
    the estimate with its compiles, each compiling job's own line, the time left, the
    end, in the form docs/guide/running.md shows; no per-job block (``input:``,
    ``reason:``), and the time left never up by more than 10 %."""
    from runs import snakemake

    configfile = ROOT / "tests" / "data" / "tiny.yaml"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    cut = ["--config", "execution={cells_per_job: 1}"]
    run = snakemake(tmp_path, configfile, "--cores", "2", *cut, env=env, timeout=1200)
    out = (run.stdout + run.stderr).splitlines()
    assert run.returncode == 0, "\n".join(out[-80:])
    for shown in console_lines():
        pattern = console_pattern(shown.replace("results/default", "<results>"))
        assert any(pattern.search(line) for line in out), (shown, "\n".join(out[-80:]))
    assert not [line for line in out if line.strip().startswith(("input:", "reason:", "wildcards:"))]
    assert "Shell command: None" not in out
    left = [
        60 * int(m.group(1) or 0) + int(m.group(2))
        for line in out
        if (m := re.search(r"about (?:(\d+) min )?(\d+) s left$", line))
    ]
    assert left, "no line with the time left"
    assert all(b <= 1.1 * a + 1 for a, b in zip(left, left[1:])), left
