"""The documentation: the README stays short and names only paths that exist, every
generated section of the site has its writer and each writer runs, no page cites a file
outside the repository, and the commands of the getting-started page and the tutorial
run, in order, on a fresh results directory (the site itself is built with
``mkdocs build --strict`` by ``make docs`` in CI)."""

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
    from straggler.glossary import glossary_markdown, policy_text
    from straggler.policies import POLICIES

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
        ROOT / "Snakefile",
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


def shell_blocks(page: Path) -> list[tuple[str, str]]:
    """The page's code blocks that a reader runs or writes, in order: ``("sh", commands)``
    for a ```` ```sh ```` block, ``("file NAME", text)`` for a block titled with a file name
    (```` ```yaml title="NAME" ````). Output is shown in ```` ```text ```` blocks, which
    are not run."""
    blocks = []
    for lang, attrs, body in re.findall(r"^```(\w+)([^\n]*)\n(.*?)^```$", page.read_text(), re.MULTILINE | re.DOTALL):
        title = re.search(r'title="([^"]+)"', attrs)
        if title:
            blocks.append((f"file {title.group(1)}", body))
        elif lang == "sh":
            blocks.append(("sh", body))
    return blocks


#: commands of the pages that a test cannot run: the test suite itself
NOT_RUN = ("make test",)


def fresh_copy(tmp_path: Path) -> Path:
    """The repository's files without results, in ``tmp_path/repo``, with this
    environment as its ``.venv`` (so ``make`` finds it installed)."""
    repo = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    (repo / ".venv").symlink_to(Path(sys.prefix))
    return repo


def run_page(page: Path, repo: Path) -> list[str]:
    """Run the page's blocks in ``repo``, in order, each ``sh`` block as one bash script
    that stops at its first failing command; return the commands run."""
    ran = []
    for kind, body in shell_blocks(page):
        if kind.startswith("file "):
            (repo / kind[5:]).write_text(body)
            continue
        lines = [line for line in body.splitlines() if not line.strip().startswith(NOT_RUN)]
        script = "set -euo pipefail\n" + "\n".join(lines)
        done = subprocess.run(["bash", "-c", script], cwd=repo, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, (
            f"{page.name}: the block\n{body}failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
        ran += [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    return ran


@pytest.mark.workflow
def test_the_getting_started_page_and_the_tutorial_run_on_fresh_results(tmp_path):
    repo = fresh_copy(tmp_path)
    assert not (repo / "results").exists()
    started = run_page(DOCS / "getting-started.md", repo)
    assert "make run" in started and (repo / "results/default/report.md").exists()
    tutorial = run_page(DOCS / "tutorial.md", repo)
    assert any("snakemake" in c for c in tutorial)
