"""The documentation: the README stays short and names only paths that exist, every
generated section of the site has its writer and each writer runs, no page cites a file
outside the repository, the workflow is laid out as the Snakemake workflow catalog reads
it, and the commands of the getting-started page and the tutorial run, in order, on a
fresh results directory (the site itself is built with ``mkdocs build --strict`` by
``make docs`` in CI)."""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from doc_pages import run_page, run_transcripts

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: paths a run writes (named by the README as what a user gets), not files of the repository
OUTPUTS = ("results/", "archives/", "site/", ".venv/")


def _hook():
    spec = importlib.util.spec_from_file_location("docs_generated", DOCS / "hooks" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_short_and_every_path_it_names_exists():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 150
    links = re.findall(r"\]\(([^)#\s]+)", text)
    spans = [s for s in re.findall(r"`([^`\s]+)`", text) if "/" in s or re.search(r"\.(ya?ml|toml|txt|md|py)$", s)]
    named = {p for p in links + spans if not p.startswith(("http://", "https://")) and not p.startswith(OUTPUTS)}
    named = {p.split("{")[0].rstrip("/") for p in named}
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"the README names paths that do not exist: {missing}"
    assert len(named) > 10


def test_every_generated_section_has_a_writer_that_runs():
    hook = _hook()
    markers = {m for page in DOCS.rglob("*.md") for m in hook.MARKER.findall(page.read_text())}
    assert markers == set(hook.SECTIONS), "a marker without a writer, or a writer no page uses"
    for name, write in hook.SECTIONS.items():
        text = write()
        assert text.count("\n") > 5, name


def test_the_glossary_names_every_policy_with_its_parameters():
    from straggler.model.policies import POLICIES
    from straggler.outputs.glossary import glossary_markdown, policy_text

    text = glossary_markdown()
    for name, spec in POLICIES.items():
        assert f"## {name}: {spec.title}" in text
        assert spec.title and spec.explanation and spec.analysis_summary and spec.papers, name
        for parameter in spec.parameters:
            assert f"`{parameter}`" in text, (name, parameter)
        assert policy_text(name).startswith(f"{name}: ")


def test_nothing_outside_the_repository_is_cited():
    pattern = re.compile(r"\.\./shared|DESIGN\.md|REFERENCES\.md|papers/00\d_")
    trees = ("src", "workflow", "config", "tests", "benchmarks", "profiles", "cluster")
    files = [
        ROOT / "README.md",
        ROOT / ".snakemake-workflow-catalog.yml",
        *DOCS.rglob("*.md"),
        *(f for t in trees for f in (ROOT / t).rglob("*")),
    ]
    files = [f for f in files if f != Path(__file__).resolve()]
    cited = [
        f"{f.relative_to(ROOT)}:{n}"
        for f in files
        if f.is_file() and (f.suffix in (".md", ".py", ".smk", ".rst", ".yaml", ".j2") or f.name == "Snakefile")
        for n, line in enumerate(f.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not cited, cited


def test_the_workflow_is_laid_out_as_the_snakemake_workflow_catalog_reads_it():
    """The catalog's standardized usage: the main Snakefile at workflow/Snakefile, the
    configuration page config/README.md, and .snakemake-workflow-catalog.yml with only the
    catalog's keys and a deployment method that shows a command."""
    assert (ROOT / "workflow" / "Snakefile").is_file() and not (ROOT / "Snakefile").exists()
    readme = ROOT / "config" / "README.md"
    links = re.findall(r"\]\(([^)#]+)", readme.read_text())
    assert links and not [link for link in links if not (readme.parent / link).exists()]
    usage = yaml.safe_load((ROOT / ".snakemake-workflow-catalog.yml").read_text())["usage"]
    assert set(usage) <= {"mandatory-flags", "software-stack-deployment", "report"}
    assert set(usage["mandatory-flags"]) <= {"desc", "flags"}
    deployment = usage["software-stack-deployment"]
    assert set(deployment) <= {"conda", "singularity", "singularity+conda"} and any(deployment.values())
    assert usage["report"] is True


@pytest.mark.workflow
def test_the_getting_started_page_runs_on_fresh_results(getting_started):
    """Every command runs, and every output block prints as the page shows it
    (:func:`doc_pages.run_page` compares them)."""
    repo, ran = getting_started
    assert ran[0] == "make run" and "ls results/default" in ran
    assert any(c.startswith(".venv/bin/straggler best") for c in ran)
    assert (repo / "results/default/report.md").exists()


@pytest.mark.workflow
def test_the_default_study_leaves_no_disagreement_unexplained(getting_started):
    """As the coverage page says: every point where an exact value lies outside the
    default study's simulated interval is a heavy tail or chance, and the report lists
    each one with its class."""
    import xarray as xr

    from straggler.decide.disagreements import classify

    repo, _ = getting_started
    with xr.open_dataset(repo / "results/default/default.nc") as ds:
        found = classify(ds.load())
    assert len(found) and set(found["class"]) <= {"heavy tail", "chance"}
    assert (found["class"] == "heavy tail").sum() > (found["class"] == "chance").sum()
    report = (repo / "results/default/report.md").read_text()
    assert report.count("| heavy tail |") + report.count("| chance |") == len(found)
    assert "unexplained" not in report.split("## Theory against simulation")[1].split("| quantity | point")[-1]


@pytest.mark.workflow
def test_the_readme_s_answer_is_what_the_command_prints(getting_started):
    """The README's picture of an answer (a ``$ command`` and what it prints) on the
    default study's fresh results."""
    repo, _ = getting_started
    assert run_transcripts(ROOT / "README.md", repo) == [
        ".venv/bin/straggler best results/default/default.nc --at r_slow=0.5 distribution=exp dependence=iid load=0.5"
    ]


@pytest.mark.workflow
def test_the_running_guide_s_transcripts_are_what_the_commands_print(getting_started):
    """``straggler best`` on the default study, at a point and off the grid, a bad config
    refused, and a pilot's projection."""
    repo, _ = getting_started
    ran = run_transcripts(DOCS / "guide" / "running.md", repo)
    assert sum(c.startswith(".venv/bin/straggler best") for c in ran) == 2
    assert ".venv/bin/straggler check-config bad.yaml" in ran
    assert any(c.startswith(".venv/bin/straggler plan") for c in ran)


@pytest.mark.workflow
def test_the_tutorial_runs_after_it(getting_started):
    repo, _ = getting_started
    ran = run_page(DOCS / "tutorial.md", repo)
    assert sum(c.startswith(".venv/bin/snakemake") for c in ran) == 2
    assert (repo / "results/mystudy/mystudy.nc").exists() and (repo / "archives/mystudy.tar.gz").exists()


def test_the_architecture_map_names_every_module_in_its_room():
    # the map is written from the package: every module is on it, under its own room,
    # with what its docstring says it owns (a module without a docstring shows a gap)
    from straggler.common import sources

    text = _hook().package_map()
    rows = re.findall(r"^\| `([\w/.]+\.py)` \| (.*) \|$", text, re.MULTILINE)
    listed = {path: owns for path, owns in rows}
    files = sorted(
        path.relative_to(sources.ROOT).as_posix()
        for path in sources.ROOT.rglob("*.py")
        if "__pycache__" not in path.parts
    )
    rooms = re.findall(r"^### `straggler\.(\w+)`$", text, re.MULTILINE)
    # a room's own __init__ is its heading, with what its docstring says
    assert sorted(listed) == [f for f in files if f not in {f"{room}/__init__.py" for room in rooms}]
    assert [path for path, owns in listed.items() if not owns.strip()] == []
    for room in rooms:
        section = text.split(f"### `straggler.{room}`")[1].split("### ")[0]
        assert all(path.startswith(room + "/") for path in re.findall(r"^\| `([\w/.]+\.py)`", section, re.MULTILINE))


def test_the_recorded_bench_run_has_the_bench_s_workloads():
    # the contributing page prints this run with the bench's own table: a workload added
    # or renamed since it was recorded means recording it again
    import json

    from straggler.engines import bench

    out = json.loads((ROOT / _hook().BENCH_RUN).read_text())
    assert set(out["workloads"]) == {w.name for w in bench.workloads()} | {bench.BASELINE, bench.BARE}
    assert not out["quick"]


def test_the_recorded_event_set_comparison_has_the_benchmark_s_sizes_and_structures():
    import json

    hook = _hook()
    module = hook.event_sets_benchmark()
    out = json.loads((ROOT / hook.EVENT_SETS).read_text())
    assert list(out["sizes"]) == [str(q) for q in module.SIZES]
    assert all(list(row) == list(module.STRUCTURES) for row in out["sizes"].values())
    assert out["tree_min_queues"] == module.TREE_MIN_QUEUES


def test_the_recorded_event_engine_comparison_has_the_bench_s_event_workloads():
    # the contributing page prints this run: an event workload added or renamed since it
    # was recorded means recording it again
    import fnmatch
    import json

    from straggler.engines import bench

    hook = _hook()
    module = hook.benchmark("event_engine_against")
    out = json.loads((ROOT / hook.EVENT_ENGINE_AGAINST).read_text())
    names = {
        w.name
        for w in bench.workloads()
        if any(fnmatch.fnmatch(w.name, p) for p in module.PATTERNS) and not fnmatch.fnmatch(w.name, module.HEAVY)
    }
    assert set(out["workloads"]) | set(out["new"]) == names
    assert out["rounds"] % 2 == 1
    for w in out["workloads"].values():
        assert len(w["head"]) == len(w["rev"]) == out["rounds"]
        ratios = sorted(h / r for h, r in zip(w["head"], w["rev"]))
        assert w["ratio"] == ratios[len(ratios) // 2]  # the median of an odd number of rounds
    # the checks page quotes the recorded range
    low, high = min(w["ratio"] for w in out["workloads"].values()), max(w["ratio"] for w in out["workloads"].values())
    page = " ".join((ROOT / "docs" / "validation" / "checks.md").read_text().split())
    assert f"the single loop it replaced: {low:.2g} to {high:.3g} of its speed" in page


def test_the_running_guide_s_measured_workload_is_the_shipped_study_s():
    """The "Your own job sizes" example is the line of config/studies/measured.yaml, and its
    file resolves with a digest."""
    import yaml

    page = (ROOT / "docs" / "guide" / "running.md").read_text()
    section = page.split("## Your own job sizes", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    study = yaml.safe_load((ROOT / "config" / "studies" / "measured.yaml").read_text())
    assert yaml.safe_load(block)["distributions"] == study["distributions"]
    from straggler.model.distributions.data_files import content_digest

    assert content_digest(str(ROOT / study["distributions"]["requests"]["file"])).startswith("sha256:")
    # the quantile table is the trace's own quantiles, to the 0.1 ms it is written in, and
    # the page's figures are the two laws'
    from straggler.model.distributions import from_spec

    trace = from_spec(study["distributions"]["requests"])
    table = study["distributions"]["requests_p"]["quantiles"]
    np.testing.assert_allclose(list(table.values()), np.quantile(trace.values, list(table)), atol=0.05 + 1e-9)
    summary = from_spec(study["distributions"]["requests_p"])
    scv = [law.second_moment() / law.mean() ** 2 - 1 for law in (summary, trace)]
    assert f"its scv {scv[0]:.2f} against {scv[1]:.2f}" in section.replace("\n  ", " ")
    assert f"its mean is {round(100 * (summary.mean() / trace.mean() - 1))} % above" in section.replace("\n  ", " ")


def test_the_workload_guide_s_figures_are_the_trace_s():
    """The numbers the workload guide's prose reads off the generated `straggler fit`
    output are the trace's, and its quantile table's mean is the one it states."""
    import yaml

    from straggler.model.distributions import from_spec
    from straggler.model.distributions.data_files import sorted_sample
    from straggler.model.distributions.fitting import describe, fit_families

    page = " ".join((ROOT / "docs" / "guide" / "workload.md").read_text().split())
    xs = sorted_sample(str(ROOT / "config/data/requests_ms.csv"), "duration_ms")
    summary, best = describe(xs), fit_families(xs)[0]
    assert f"The trace's scv, {summary.scv:.3g}, is far above" in page
    assert f"the closest has a K-S of {best.ks:.2f}" in page
    study = yaml.safe_load((ROOT / "config" / "studies" / "measured.yaml").read_text())
    trace, table = (from_spec(study["distributions"][k]) for k in ("requests", "requests_p"))
    assert f"has a mean {round(100 * (table.mean() / trace.mean() - 1))} % above" in page
    line = re.search(r"requests_p: \{.*?\}(?:, unit: \w+)?\}", page).group(0)
    assert yaml.safe_load(line)["requests_p"] == study["distributions"]["requests_p"]


def test_the_workload_page_s_bootstrap_line_resamples_the_trace():
    """The line of "How sure the answer is" in the measured study: the trace and B
    resamples on the axis requests.resample."""
    import yaml

    from straggler.study.config import resolve_config
    from straggler.study.grid import build_grid

    page = (ROOT / "docs" / "guide" / "workload.md").read_text()
    section = page.split("## 5. How sure the answer is")[1].split("\n## ")[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    law = yaml.safe_load(block)
    study = yaml.safe_load((ROOT / "config" / "studies" / "measured.yaml").read_text())
    study["distributions"].update(law)
    cfg = resolve_config(study)
    bootstrap = law["requests"]["bootstrap"]
    assert build_grid(cfg).axes["requests.resample"] == list(range(bootstrap + 1))
    assert f"bootstrap: {bootstrap}" in block and "`requests.resample`" in section


def test_the_workload_page_s_law_per_type_is_the_shipped_study_s():
    """ "Job types with sizes of their own": the page's YAML is the study's, and what its prose
    reads off the generated table holds (ZRed's bound falls with the writes' own law, KT's and
    Rer's with i.i.d. replicas rise)."""
    import yaml

    page = (ROOT / "docs" / "guide" / "workload.md").read_text()
    section = page.split("## 6. Job types with sizes of their own")[1].split("\n## ")[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    shown = yaml.safe_load(block)
    study = yaml.safe_load((ROOT / "config" / "studies" / "measured_types.yaml").read_text())
    assert shown["distributions"] == study["distributions"]
    assert shown["system"] == study["system"]
    table = _hook().by_type_example()
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    value = {(p, d): [float(v) if v[0].isdigit() else None for v in laws] for p, d, *laws in rows}
    assert value[("ZRed", "iid")][0] < value[("ZRed", "iid")][1]
    assert value[("KT", "iid")][0] > value[("KT", "iid")][1]
    assert value[("Rer", "iid")][0] > value[("Rer", "iid")][1]
    assert value[("CoC", "iid")][0] is None  # simulated only


def test_the_decision_guide_s_section_is_the_shipped_study_s():
    """The page's `decision` block is config/studies/slo_budget.yaml's, which is the default
    study with that section, and each of its keys is one the schema describes."""
    import yaml

    from straggler.study.config import resolve_config
    from straggler.study.config.loader import load_config

    page = (ROOT / "docs" / "guide" / "decisions.md").read_text()
    block = re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)[0]
    shown = yaml.safe_load(block)
    study = load_config(ROOT / "config" / "studies" / "slo_budget.yaml")
    assert shown["decision"] == study["decision"]
    default = load_config(ROOT / "config" / "config.yaml")
    assert {k: v for k, v in study.items() if k not in ("study", "decision")} == {
        k: v for k, v in default.items() if k != "study"
    }
    resolved = resolve_config(study)
    assert resolved.decision is not None and resolved.decision.budget.extra_load == 0.1
    for key in ("slo.quantile", "slo.target", "slo.mean", "budget.extra_load"):
        assert f"| `{key}` |" in page


def test_the_hedging_guide_s_grid_is_the_shipped_study_s():
    """The page's first yaml block is config/studies/hedging.yaml's grid, load and policies."""
    import yaml

    from straggler.study.config.loader import load_config

    page = (ROOT / "docs" / "guide" / "hedging.md").read_text()
    shown = yaml.safe_load(re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)[0])
    study = load_config(ROOT / "config" / "studies" / "hedging.yaml")
    assert shown == {k: study[k] for k in ("grid", "load", "policies")}


def test_the_api_page_s_session_runs(monkeypatch):
    """The API page's short session, as printed, in the repository (it evaluates one cell of
    the default study, simulation included); and every name of the package's face resolves."""
    import straggler

    page = (DOCS / "api" / "index.md").read_text()
    block = page.split("A short session")[1].split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    exec(compile(block, "docs/api/index.md", "exec"), namespace)
    assert namespace["ds"].sizes["load"] > 0
    for name, module in straggler.PUBLIC.items():
        assert getattr(straggler, name) is getattr(importlib.import_module(module), name)
